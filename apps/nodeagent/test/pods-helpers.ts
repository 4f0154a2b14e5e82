import type { Readable } from "node:stream";
import type { Pod } from "@skiff/api-types";
import { join } from "node:path";
import { waitFor as poll, type ContainerdSetup } from "@skiff/test-support";

export function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  return poll(fn, { what, timeoutMs });
}

export async function readAll(stream: Readable): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
  return out;
}

export function findPod(pods: readonly Pod[], prefix: string): Pod | undefined {
  return pods.find((p) => p.metadata?.name?.startsWith(prefix));
}

export const alwaysManifest = (image: string) => `apiVersion: v1
kind: Pod
metadata:
  name: always
  labels: {app: always}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ${image}
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", "echo hello $(GREETING); exit 3"]
    env:
    - name: GREETING
      value: always
`;

export const neverManifest = (image: string) => JSON.stringify({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "never" },
  spec: {
    restartPolicy: "Never",
    terminationGracePeriodSeconds: 1,
    containers: [{ name: "main", image, imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "echo done; echo oops >&2; exit 7"] }],
  },
});

/**
 * The pod runtime options every containerd suite starts from: state under `<setup.dir>/<sub>`
 * (`agent`, `pod-logs`, `manifests`), containerd's endpoint, a 60 s request timeout, the static
 * pod folder checked every 500 ms and a 300 ms relist. Spread it and add the suite's own.
 */
export function containerdRuntimeOptions(setup: ContainerdSetup, sub = "") {
  return {
    rootDir: join(setup.dir, sub, "agent"),
    podLogsDir: join(setup.dir, sub, "pod-logs"),
    containerRuntimeEndpoint: setup.endpoint ?? "",
    runtimeRequestTimeoutMs: 60_000,
    staticPodPath: join(setup.dir, sub, "manifests"),
    fileCheckFrequencyMs: 500,
    relistPeriodMs: 300,
  };
}
