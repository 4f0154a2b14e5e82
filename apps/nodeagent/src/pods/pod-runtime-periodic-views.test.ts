// The pod runtime's cheap views for the periodic passes (the mirror-pod pass reads
// listStaticPods, the status resync podUIDs), without a container runtime (the endpoint does not
// exist: admission and these views need none).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { createPodRuntime } from "./pod-runtime.js";
import type { PodRuntime } from "./types.js";

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
