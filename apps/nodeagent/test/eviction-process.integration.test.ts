// The eviction manager end to end: the REAL apiserver process, the node agent in-process on the
// process CRI server with `--eviction-hard=memory.available<100Ti`, a threshold above any real
// machine's memory, so the node is "under memory pressure" without using any memory. The agent
// reports MemoryPressure on its Node, refuses a BestEffort pod at admission and evicts a running
// Burstable pod with 1.23's status and event.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Node, Pod } from "@skiff/api-types";
import type { RunningAPIServer } from "@skiff/test-support";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";
import { startProcessNode, type ProcessNode } from "./process-node.js";

const nodeName = "evict-node";


describe("eviction manager on the process runtime (memory.available threshold above the machine's memory)", () => {
  let node: ProcessNode;
  let api: RunningAPIServer;

  beforeAll(async () => {
    node = await startProcessNode({ prefix: "skiff-evict-", nodeName, args: ["--node-status-update-frequency=1s", "--eviction-hard=memory.available<100Ti"] });
    api = node.api;
  }, 120_000);

  afterAll(() => node?.stop(), 60_000);

  const getPod = async (name: string) => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };

  it("reports MemoryPressure on the Node", async () => {
    const node = await waitFor("MemoryPressure=True", async () => {
      const r = await apiCall(api, "GET", `/api/v1/nodes/${nodeName}`);
      const n = r.status === 200 ? (r.json() as Node) : undefined;
      return n?.status?.conditions?.find((c) => c.type === "MemoryPressure" && c.status === "True") ? n : undefined;
    }, 60_000);
    expect(node.status?.conditions?.find((c) => c.type === "MemoryPressure")).toMatchObject({ reason: "NodeAgentHasInsufficientMemory", message: "nodeagent has insufficient memory available" });
    expect(node.status?.conditions?.find((c) => c.type === "DiskPressure")?.status).toBe("False");
  }, 90_000);

  it("refuses a BestEffort pod at admission with reason Evicted", async () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "best-effort" }, spec: { nodeName, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }] } };
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    const p = await waitFor("best-effort refused", async () => {
      const x = await getPod("best-effort");
      return x?.status?.phase === "Failed" ? x : undefined;
    }, 60_000);
    expect(p.status).toMatchObject({ phase: "Failed", reason: "Evicted", message: "Pod The node had condition: [MemoryPressure]. " });
  }, 90_000);

  it("evicts a Burstable pod: Failed, reason Evicted, 1.23's message, an Evicted event", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "burstable" },
      spec: { nodeName, terminationGracePeriodSeconds: 30, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], resources: { requests: { cpu: "10m" } } }] },
    };
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    const p = await waitFor("burstable evicted", async () => {
      const x = await getPod("burstable");
      return x?.status?.phase === "Failed" ? x : undefined;
    }, 90_000);
    expect(p.status?.reason).toBe("Evicted");
    expect(p.status?.message).toMatch(/^The node was low on resource: memory\. (Container main was using \d+(Ki|Mi)?, which exceeds its request of 0\. )?$/);
    const events = await waitFor("Evicted event", async () => {
      const r = (await apiCall(api, "GET", "/api/v1/namespaces/default/events")).json() as { items: { reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }[] };
      const e = r.items.filter((x) => x.reason === "Evicted" && x.involvedObject?.name === "burstable");
      return e.length > 0 ? e : undefined;
    }, 30_000);
    expect(events[0]).toMatchObject({ type: "Warning", message: p.status?.message });
    // Its container was stopped (with the 1 s grace of a hard eviction) and is not restarted.
    const stopped = await waitFor("evicted container terminated", async () => {
      const x = await getPod("burstable");
      return x?.status?.containerStatuses?.[0]?.state?.terminated ? x : undefined;
    }, 30_000);
    expect(stopped.status).toMatchObject({ phase: "Failed", reason: "Evicted", message: p.status?.message });
    expect(stopped.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    const nodeEvents = (await apiCall(api, "GET", "/api/v1/events")).json() as { items: { reason?: string; message?: string; involvedObject?: { kind?: string } }[] };
    expect(nodeEvents.items.some((e) => e.reason === "EvictionThresholdMet" && e.message === "Attempting to reclaim memory" && e.involvedObject?.kind === "Node")).toBe(true);
  }, 150_000);
});
