// The node status loop against the REAL apiserver (from source): with node leases the status is
// posted when it changes, or once nodeStatusReportFrequency has passed (1.23's kubelet). The clock
// is the test's, so five minutes pass at once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Node } from "@skiff/api-types";
import { createClient, loadClusterConfig } from "@skiff/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInitialNode } from "../src/cluster/node-object.js";
import { NodeStatusManager, nodeStatusHasChanged } from "../src/cluster/node-status-manager.js";
import type { NodePressure } from "../src/cluster/node-object.js";
import { apiCall, startAPIServer, writeAdminKubeconfig } from "./cluster-helpers.js";
import type { APIServerProcess } from "./cluster-helpers.js";

describe("node status reporting", () => {
  let dir: string;
  let server: APIServerProcess;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-node-status-"));
    server = await startAPIServer(dir);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("posts on change or after the report frequency, not on every update", async () => {
    const client = createClient(await loadClusterConfig(await writeAdminKubeconfig(server)));
    let nowMs = Date.parse("2026-01-01T00:00:00Z");
    let pressure: NodePressure = { memory: false, disk: false, pid: false };
    const manager = new NodeStatusManager({
      client,
      initialNode: buildInitialNode({ nodeName: "status-node", hostname: "status-node", os: "linux", arch: "amd64", nodeLabels: {}, taints: [], registerSchedulable: true, controllerAttachDetach: true, providerID: "", podCIDR: "" }),
      resources: { capacity: { cpu: "2", memory: "4Gi", pods: "110" }, allocatable: { cpu: "2", memory: "4Gi", pods: "110" } },
      addresses: [{ type: "Hostname", address: "status-node" }],
      nodeInfo: { machineID: "m", systemUUID: "s", bootID: "b", kernelVersion: "k", osImage: "o", containerRuntimeVersion: "", kubeletVersion: "v1.23.0", kubeProxyVersion: "v1.23.0", operatingSystem: "linux", architecture: "amd64" },
      port: 10250,
      runtimeState: () => ({ ready: true, message: "", errors: [], networkError: "", runtimeName: "fake", runtimeVersion: "1" }),
      pressure: () => Promise.resolve(pressure),
      updateFrequencyMs: 10_000,
      reportFrequencyMs: 5 * 60_000,
      clock: () => nowMs,
      now: () => new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
      log: () => {},
    });
    await manager.register();
    const rv = async () => ((await apiCall(server, "GET", "/api/v1/nodes/status-node")).json() as Node).metadata?.resourceVersion;
    const registered = await rv();
    // Ten seconds later nothing changed but the heartbeat: no write.
    nowMs += 10_000;
    await manager.updateNodeStatus();
    expect(await rv()).toBe(registered);
    // A condition changes: posted at once.
    pressure = { ...pressure, memory: true };
    nowMs += 10_000;
    await manager.updateNodeStatus();
    const changed = (await apiCall(server, "GET", "/api/v1/nodes/status-node")).json() as Node;
    expect(changed.metadata?.resourceVersion).not.toBe(registered);
    expect(changed.status?.conditions?.find((c) => c.type === "MemoryPressure")?.status).toBe("True");
    // Unchanged again until five minutes after that post: then the heartbeat goes out.
    nowMs += 4 * 60_000;
    await manager.updateNodeStatus();
    expect(await rv()).toBe(changed.metadata?.resourceVersion);
    nowMs += 60_000;
    await manager.updateNodeStatus();
    const reported = (await apiCall(server, "GET", "/api/v1/nodes/status-node")).json() as Node;
    expect(reported.metadata?.resourceVersion).not.toBe(changed.metadata?.resourceVersion);
    expect(reported.status?.conditions?.find((c) => c.type === "Ready")?.lastHeartbeatTime).toBe(new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, "Z"));
    manager.stop();
  }, 60_000);
});

describe("nodeStatusHasChanged", () => {
  const ready = (heartbeat: string, status = "True") => ({ type: "Ready", status, lastHeartbeatTime: heartbeat, lastTransitionTime: "2026-01-01T00:00:00Z", reason: "KubeletReady", message: "ready" });
  it("ignores heartbeat times and condition order, and sees everything else", () => {
    const base = { conditions: [ready("2026-01-01T00:00:00Z"), { type: "MemoryPressure", status: "False" }], capacity: { cpu: "2" } };
    expect(nodeStatusHasChanged(base, { ...base, conditions: [{ type: "MemoryPressure", status: "False" }, ready("2026-01-01T00:05:00Z")] })).toBe(false);
    expect(nodeStatusHasChanged(base, { ...base, conditions: [ready("2026-01-01T00:00:00Z", "False"), { type: "MemoryPressure", status: "False" }] })).toBe(true);
    expect(nodeStatusHasChanged(base, { ...base, capacity: { cpu: "4" } })).toBe(true);
    expect(nodeStatusHasChanged(base, { ...base, conditions: [ready("2026-01-01T00:00:00Z")] })).toBe(true);
  });
});
