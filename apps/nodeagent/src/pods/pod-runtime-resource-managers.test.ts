// The pod runtime without a container runtime (the endpoint does not exist: admission and these
// views need none): its use of the resource managers (CPU / topology manager hooks) at admission,
// and the cheap views of the periodic passes (the mirror-pod pass reads listStaticPods, the
// status resync podUIDs).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { createPodRuntime } from "./pod-runtime.js";
import type { PodResourceManagerHooks, PodRuntime } from "./types.js";

const dirs: string[] = [];
const runtimes: PodRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function until<T>(fn: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("pod runtime with resource managers", () => {
  it("keeps the assignments of every pod of the first batch, and rejects what a manager refuses Failed with its reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "podrt-rm-"));
    dirs.push(dir);
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    for (const name of ["a", "b", "c"]) {
      writeFileSync(join(manifests, `${name}.json`), JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "main", image: "busybox:1.36" }] } }));
    }
    const sweeps: string[][] = [];
    const hooks: PodResourceManagerHooks = {
      admitPod: (pod) => (pod.metadata?.name?.startsWith("c") ? { reason: "TopologyAffinityError", message: "Resources cannot be allocated with Topology locality" } : undefined),
      containerCPUSet: () => undefined,
      removeStaleState: (active) => void sweeps.push(active.map((p: Pod) => p.metadata?.name ?? "").sort()),
      removePod: () => {},
      reconcile: async () => {},
    };
    const runtime = createPodRuntime({ nodeName: "n1", rootDir: join(dir, "root"), containerRuntimeEndpoint: "unix:///nonexistent-skiff.sock", staticPodPath: manifests, resourceManagers: hooks, podLogsDir: join(dir, "logs") });
    runtimes.push(runtime);
    await runtime.start();
    const c = await until(() => runtime.listPods().find((p) => p.metadata?.name?.startsWith("c") && p.status?.phase === "Failed"));
    expect(c.status).toMatchObject({ phase: "Failed", reason: "TopologyAffinityError", message: "Pod Resources cannot be allocated with Topology locality" });
    // Every admission's sweep kept all pods the sources want (b and c before they were admitted).
    expect(sweeps.length).toBeGreaterThan(0);
    expect(sweeps[0]).toEqual(["a-n1", "b-n1", "c-n1"]);
  });
});

function apiPod(name: string, uid: string): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", uid }, spec: { nodeName: "n1", containers: [{ name: "main", image: "busybox:1.36" }] } };
}

describe("pod runtime periodic views", () => {
  it("podUIDs names every desired pod and listStaticPods copies only the file source's pods, each with its status", async () => {
    const dir = mkdtempSync(join(tmpdir(), "podrt-views-"));
    dirs.push(dir);
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(join(manifests, "web.json"), JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [{ name: "main", image: "busybox:1.36" }] } }));
    const runtime = createPodRuntime({ nodeName: "n1", rootDir: join(dir, "root"), containerRuntimeEndpoint: "unix:///nonexistent-skiff.sock", staticPodPath: manifests, podLogsDir: join(dir, "logs") });
    runtimes.push(runtime);
    await runtime.start();
    runtime.setApiPods([apiPod("a", "uid-a"), apiPod("b", "uid-b")]);
    const all = await until(() => {
      const pods = runtime.listPods();
      return pods.length === 3 ? pods : undefined;
    });
    const staticPod = all.find((p) => p.metadata?.name === "web-n1");
    expect(staticPod).toBeDefined();
    expect(new Set(runtime.podUIDs())).toEqual(new Set(all.map((p) => p.metadata?.uid)));
    expect(runtime.podUIDs()).toContain("uid-a");
    const statics = runtime.listStaticPods();
    expect(statics.map((p) => p.metadata?.name)).toEqual(["web-n1"]);
    expect(statics[0]?.metadata?.uid).toBe(staticPod?.metadata?.uid);
    // The same status listPods gives it (the mirror pod's status comes from here).
    expect(statics[0]?.status).toEqual(staticPod?.status);
    // An API pod removed from the source leaves both views.
    runtime.setApiPods([apiPod("a", "uid-a")]);
    await until(() => (runtime.podUIDs().includes("uid-b") ? undefined : true));
    expect(runtime.listStaticPods().map((p) => p.metadata?.name)).toEqual(["web-n1"]);
  });
});
