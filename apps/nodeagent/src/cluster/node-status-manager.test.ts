import type { Node } from "@skiff/api-types";
import type { Client } from "@skiff/client";
import { describe, expect, it } from "vitest";
import type { RuntimeState } from "../pods/types.js";
import { NodeStatusManager } from "./node-status-manager.js";

// A client whose Node calls are recorded under `label`.
function recordingClient(label: string, calls: string[]): Client {
  const nodes = {
    async create(n: Node) {
      calls.push(`${label} create`);
      return { ...n, metadata: { ...n.metadata, uid: "u1", resourceVersion: "1" } };
    },
    async patch(name: string, patch: { status?: Node["status"] }, opts?: { subresource?: string }) {
      calls.push(`${label} patch ${opts?.subresource ?? ""}`.trim());
      return { metadata: { name }, status: patch.status };
    },
    async get(name: string) {
      calls.push(`${label} get`);
      return { metadata: { name } };
    },
  };
  return { nodes } as unknown as Client;
}

function manager(calls: string[], now: { ms: number }, runtimeState: () => RuntimeState = () => ({ ready: true, message: "", errors: [], networkError: "", runtimeName: "sim", runtimeVersion: "1" })): NodeStatusManager {
  return new NodeStatusManager({
    client: recordingClient("client", calls),
    heartbeatClient: recordingClient("heartbeat", calls),
    initialNode: { apiVersion: "v1", kind: "Node", metadata: { name: "node-a" } },
    resources: { capacity: { cpu: "2", memory: "4Gi", pods: "110" }, allocatable: { cpu: "2", memory: "4Gi", pods: "110" } },
    addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
    nodeInfo: { machineID: "", systemUUID: "", bootID: "", kernelVersion: "", osImage: "", containerRuntimeVersion: "", kubeletVersion: "v1.23.0", kubeProxyVersion: "v1.23.0", operatingSystem: "linux", architecture: "amd64" },
    port: 10250,
    runtimeState,
    pressure: async () => ({ memory: false, disk: false, pid: false }),
    updateFrequencyMs: 10_000,
    reportFrequencyMs: 60_000,
    clock: () => now.ms,
    log: () => undefined,
  });
}

describe("NodeStatusManager clients", () => {
  it("registers through the rate-limited client and posts later status updates through the heartbeat client (1.23's HeartbeatClient)", async () => {
    const calls: string[] = [];
    const now = { ms: 0 };
    const m = manager(calls, now);
    await m.register();
    expect(calls).toEqual(["client create", "client patch status"]);
    calls.length = 0;
    now.ms = 61_000; // the report is due
    await m.updateNodeStatus();
    expect(calls).toEqual(["heartbeat patch status"]);
    m.stop();
  });
});

describe("NodeStatusManager Ready condition", () => {
  it("is False with the runtime's errors and then its network's, aggregated as 1.23's ReadyCondition", async () => {
    const m = manager([], { ms: 0 }, () => ({
      ready: false,
      message: "",
      errors: ["container runtime is down", "PLEG is not healthy: pleg has yet to be successful"],
      networkError: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized",
      runtimeName: "sim",
    }));
    const node = await m.register();
    expect(node.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "False",
      message: "[container runtime is down, PLEG is not healthy: pleg has yet to be successful, container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized]",
    });
    m.stop();
  });

  it("is False for a network error alone, though the runtime is ready", async () => {
    const m = manager([], { ms: 0 }, () => ({ ready: true, message: "", errors: [], networkError: "container runtime network not ready: NetworkReady=false reason:x message:y", runtimeName: "sim" }));
    const node = await m.register();
    expect(node.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", message: "container runtime network not ready: NetworkReady=false reason:x message:y" });
    m.stop();
  });
});
