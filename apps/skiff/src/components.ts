// Where the installed components are: each is a dependency of @skiff/cli, run through its bin.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ComponentName } from "./cluster/local-cluster.js";

const packages: Record<ComponentName, { pkg: string; bin: string }> = {
  apiserver: { pkg: "@skiff/apiserver", bin: "skiff-apiserver" },
  "job-controller": { pkg: "@skiff/job-controller", bin: "skiff-job-controller" },
  scheduler: { pkg: "@skiff/scheduler", bin: "skiff-scheduler" },
  nodeagent: { pkg: "@skiff/nodeagent", bin: "nodeagent" },
  "cri-process-server": { pkg: "@skiff/cri-process-server", bin: "skiff-cri-process-server" },
};

/**
 * The script of component `name`'s bin in its installed package (resolved from this package, as
 * Node resolves a dependency).
 *
 * @throws Error naming the package when it is not installed or has no such bin.
 */
export function installedComponentScript(name: ComponentName): string {
  const { pkg, bin } = packages[name];
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  } catch (e) {
    throw new Error(`${pkg} is not installed next to @skiff/cli (reinstall @skiff/cli)`, { cause: e });
  }
  const bins = (JSON.parse(readFileSync(manifest, "utf8")) as { bin?: Record<string, string> }).bin ?? {};
  const rel = bins[bin];
  if (rel === undefined) throw new Error(`${pkg} has no bin ${bin}`);
  return join(dirname(manifest), rel);
}
