// The pod status cache (1.23's PLEG pod cache, GetNewerThan): a status read while nothing could
// have changed the pod's runtime state is reused by a resync; a state-changing CRI call made for
// that pod (RuntimeClients.forPod) or a change in it the relist saw (invalidatePod) makes its next
// read go to the runtime; a call through the shared client or invalidate(), every pod's.
// The CRI clients are in-memory fakes here (the unit is the cache, not the runtime); the real
// runtimes are exercised by the agent's integration suites.
import type { ImageClient, RuntimeClient } from "@skiff/cri-api";
import { describe, expect, it } from "vitest";
import { RuntimeClients } from "./runtime-clients.js";
import { RuntimeManager, type RuntimeManagerOptions } from "./runtime-manager.js";

function setUp() {
  const calls: string[] = [];
  const runtime = {
    listPodSandbox: async () => {
      calls.push("listPodSandbox");
      return { items: [{ id: "s1", state: "SANDBOX_READY", metadata: { attempt: 0 }, createdAt: "1000000" }] };
    },
    podSandboxStatus: async () => {
      calls.push("podSandboxStatus");
      return { status: { network: { ip: "10.1.0.2" } } };
    },
    listContainers: async () => {
      calls.push("listContainers");
      return { containers: [{ id: "c1", podSandboxId: "s1", labels: {} }] };
    },
    containerStatus: async () => {
      calls.push("containerStatus");
      return { status: { id: "c1", metadata: { name: "app", attempt: 0 }, state: "CONTAINER_RUNNING", annotations: {}, createdAt: "1", startedAt: "1", finishedAt: "0", exitCode: 0, reason: "", message: "", image: { image: "busybox" }, imageRef: "sha256:b", logPath: "", mounts: [] } };
    },
    stopContainer: async () => {
      calls.push("stopContainer");
      return {};
    },
    close: () => undefined,
  } as unknown as RuntimeClient;
  const images = { close: () => undefined } as unknown as ImageClient;
  const clients = new RuntimeClients("unix:///unused", 1_000, "", undefined, () => ({ runtime, images }));
  const manager = new RuntimeManager({ clients, hostIP: "10.0.0.1", log: () => undefined } as unknown as RuntimeManagerOptions);
  return { calls, clients, manager };
}

describe("RuntimeManager.getPodStatus: the pod status cache", () => {
  it("reuses the last status while the clients' generation is unchanged, and only when allowed", async () => {
    const { calls, manager } = setUp();
    const first = await manager.getPodStatus("u", true);
    expect(first.containers.map((c) => c.id)).toEqual(["c1"]);
    const reads = calls.length;
    expect(reads).toBe(4);
    expect(await manager.getPodStatus("u", true)).toBe(first);
    expect(calls.length).toBe(reads);
    // Without allowCached (every path but a sync's first read): always the runtime.
    await manager.getPodStatus("u");
    expect(calls.length).toBe(2 * reads);
  });

  it("reads the runtime again after a state-changing CRI call or a relist change", async () => {
    const { calls, clients, manager } = setUp();
    await manager.getPodStatus("u", true);
    await clients.runtime.stopContainer({ containerId: "c1", timeout: 0 });
    const before = calls.length;
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 4);
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 4);
    clients.invalidate();
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 8);
    manager.forgetPodStatus("u");
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 12);
  });

  it("a sync of a running pod that needs nothing reads the runtime once, and its resync not at all", async () => {
    const { calls, manager } = setUp();
    const pod = { metadata: { uid: "u", name: "p", namespace: "default" }, spec: { containers: [{ name: "app", image: "busybox" }] } } as Parameters<RuntimeManager["syncPod"]>[0];
    const result = await manager.syncPod(pod);
    expect(result.status.containers.map((c) => c.state)).toEqual(["running"]);
    expect([...calls].sort()).toEqual(["containerStatus", "listContainers", "listPodSandbox", "podSandboxStatus"]);
    await manager.syncPod(pod);
    expect(calls).toHaveLength(4);
  });

  it("a change in one pod (relist, or a state-changing call made for it) leaves the other pods' cached state current", async () => {
    const { calls, clients, manager } = setUp();
    await manager.getPodStatus("u", true);
    await manager.getPodStatus("v", true);
    const before = calls.length;
    clients.invalidatePod("u");
    await manager.getPodStatus("v", true);
    expect(calls.length).toBe(before);
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 4);
    // A call through forPod marks that pod only; one through the shared client marks every pod.
    await clients.forPod("v").stopContainer({ containerId: "c1", timeout: 0 });
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 5);
    await manager.getPodStatus("v", true);
    expect(calls.length).toBe(before + 9);
    await clients.runtime.stopContainer({ containerId: "c1", timeout: 0 });
    await manager.getPodStatus("u", true);
    await manager.getPodStatus("v", true);
    expect(calls.length).toBe(before + 18);
  });

  it("a pod marked changed while its status is being read is read again next time", async () => {
    const { calls, clients, manager } = setUp();
    const reading = manager.getPodStatus("u", true);
    clients.invalidatePod("u");
    await reading;
    const before = calls.length;
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 4);
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 4);
  });

  it("keeps its record of changed pods bounded: past 4,096 pods, every pod is read again", async () => {
    const { calls, clients, manager } = setUp();
    await manager.getPodStatus("u", true);
    for (let i = 0; i < 4_096; i++) clients.invalidatePod(`gone-${String(i)}`);
    const before = calls.length;
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before);
    clients.invalidatePod("one-more");
    await manager.getPodStatus("u", true);
    expect(calls.length).toBe(before + 4);
  });
});
