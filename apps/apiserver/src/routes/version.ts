/**
 * `/version` and the `--version` text: skiff-apiserver reports Kubernetes 1.23 (minor `23`), so
 * kubectl's dispatcher picks a client that speaks 1.23's API.
 *
 * @see staging/src/k8s.io/apiserver/pkg/server/routes/version.go
 * @see staging/src/k8s.io/apimachinery/pkg/version/types.go (Info)
 */
import type { NonResourceRoute } from "@skiff/apiserver-core";

/** The version `/version` and `--version` report. */
export const skiffVersion = Object.freeze({ major: "1", minor: "23", gitVersion: "v1.23.0-skiff.0" });

/** The `version.Info` body of `GET /version` (JSON). */
export function versionInfo(): Record<string, string> {
  return { ...skiffVersion, gitCommit: "", gitTreeState: "clean", buildDate: "", goVersion: "", compiler: "node", platform: "linux/amd64" };
}

/**
 * What `--version` prints: `Kubernetes v1.23.0-skiff.0`, or with `--version=raw` the version as
 * one JSON line. Ends with a newline.
 */
export function formatVersion(raw: boolean): string {
  return raw ? `${JSON.stringify(skiffVersion)}\n` : `Kubernetes ${skiffVersion.gitVersion}\n`;
}

/** The `GET /version` route (authenticated, as every non-health route). */
export function versionRoutes(): NonResourceRoute[] {
  return [{ method: "GET", url: "/version", handler: () => versionInfo() }];
}
