// The pod status cache (1.23's PLEG pod cache, GetNewerThan): a status read while nothing could
// have changed the runtime is reused by a resync; any state-changing CRI call through the clients,
// or a change the relist saw (RuntimeClients.invalidate), makes the next read go to the runtime.
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
});
