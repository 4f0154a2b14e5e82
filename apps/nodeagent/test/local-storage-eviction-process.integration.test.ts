// Local storage capacity isolation (the LocalStorageCapacityIsolation gate, beta and on in 1.23)
// end to end: the REAL apiserver process, the node agent in-process on the process CRI server
// with namespace isolation (so a container writes into its emptyDir at its mount path, as under
// runc), volumes measured every second. Pods that write past an emptyDir `sizeLimit`, past the
// pod's total `ephemeral-storage` limit (emptyDir files count) and past a container's own limit
// (its log file counts; the process runtime has no writable layer) are evicted with 1.23's
// messages and an Evicted event; a pod within its limits keeps running. No eviction threshold is
// configured: these evictions do not depend on node pressure.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import type { RunningAPIServer } from "@skiff/test-support";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";
import { startProcessNode, type ProcessNode } from "./process-node.js";

const nodeName = "local-storage-node";

describe("local storage eviction on the process runtime (emptyDir sizeLimit, pod and container ephemeral-storage limits)", () => {
  let node: ProcessNode;
  let api: RunningAPIServer;

  beforeAll(async () => {
    // No --eviction-hard: only the local storage limits can evict here.
    node = await startProcessNode({ prefix: "skiff-lsi-", nodeName, isolation: "namespaces", args: ["--node-status-update-frequency=1s", "--volume-stats-agg-period=1s", "--eviction-hard="] });
    api = node.api;
  }, 120_000);

  afterAll(() => node?.stop(), 60_000);

  const getPod = async (name: string) => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const create = async (pod: Record<string, unknown>) => {
    const r = await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod);
    expect(r.status, r.body).toBe(201);
  };
  const evicted = async (name: string) => {
    const p = await waitFor(`${name} evicted`, async () => {
      const x = await getPod(name);
      return x?.status?.phase === "Failed" ? x : undefined;
    }, 90_000);
    const events = await waitFor(`${name} Evicted event`, async () => {
      const r = (await apiCall(api, "GET", "/api/v1/namespaces/default/events")).json() as { items: { reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }[] };
      const e = r.items.filter((x) => x.reason === "Evicted" && x.involvedObject?.name === name);
      return e.length > 0 ? e : undefined;
    }, 30_000);
    expect(events[0]).toMatchObject({ type: "Warning", message: p.status?.message });
    return p;
  };
  const mib = (n: number) => `dd if=/dev/zero of=/scratch/f bs=1024 count=${String(n * 1024)} 2>/dev/null`;

  it("evicts a pod whose emptyDir use exceeds its sizeLimit, and leaves one within its limits running", async () => {
    await create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "within" },
      spec: {
        nodeName,
        containers: [{ name: "main", image: "busybox", command: ["sh", "-c", `${mib(1)}; sleep 3600`], volumeMounts: [{ name: "scratch", mountPath: "/scratch" }], resources: { limits: { "ephemeral-storage": "8Mi" } } }],
        volumes: [{ name: "scratch", emptyDir: { sizeLimit: "4Mi" } }],
      },
    });
    await create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "emptydir-limit" },
      spec: {
        nodeName,
        terminationGracePeriodSeconds: 30,
        containers: [{ name: "main", image: "busybox", command: ["sh", "-c", `${mib(2)}; sleep 3600`], volumeMounts: [{ name: "scratch", mountPath: "/scratch" }] }],
        volumes: [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }],
      },
    });
    const p = await evicted("emptydir-limit");
    expect(p.status).toMatchObject({ phase: "Failed", reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' });
    const stopped = await waitFor("its container stopped", async () => {
      const x = await getPod("emptydir-limit");
      return x?.status?.containerStatuses?.[0]?.state?.terminated ? x : undefined;
    }, 30_000);
    expect(stopped.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    const within = await getPod("within");
    expect(within?.status?.phase).toBe("Running");
  }, 150_000);

  it("evicts a pod whose total use (emptyDir files count) exceeds the sum of its containers' limits", async () => {
    await create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "pod-limit" },
      spec: {
        nodeName,
        containers: [
          { name: "writer", image: "busybox", command: ["sh", "-c", `${mib(3)}; sleep 3600`], volumeMounts: [{ name: "scratch", mountPath: "/scratch" }], resources: { limits: { "ephemeral-storage": "1Mi" } } },
          { name: "idle", image: "busybox", command: ["sleep", "3600"], resources: { limits: { "ephemeral-storage": "1Mi" } } },
        ],
        volumes: [{ name: "scratch", emptyDir: {} }],
      },
    });
    const p = await evicted("pod-limit");
    expect(p.status).toMatchObject({ reason: "Evicted", message: "Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. " });
  }, 150_000);

  it("evicts a pod whose container's log exceeds the container's ephemeral-storage limit", async () => {
    await create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "container-limit" },
      spec: {
        nodeName,
        containers: [
          // ~2 MiB of output in 1000-character lines: the log file alone is past the 1Mi limit.
          { name: "chatty", image: "busybox", command: ["sh", "-c", "head -c 2097152 /dev/zero | tr '\\0' x | fold -w 1000; sleep 3600"], resources: { limits: { "ephemeral-storage": "1Mi" } } },
          { name: "quiet", image: "busybox", command: ["sleep", "3600"], resources: { limits: { "ephemeral-storage": "100Mi" } } },
        ],
      },
    });
    const p = await evicted("container-limit");
    expect(p.status).toMatchObject({ reason: "Evicted", message: 'Container chatty exceeded its local ephemeral storage limit "1Mi". ' });
    expect((await getPod("within"))?.status?.phase).toBe("Running");
  }, 150_000);
});
