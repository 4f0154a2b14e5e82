import { describe, expect, it } from "vitest";
import type { Pod, PodStatus } from "@skiff/api-types";
import { isMirrorPod } from "./api-pod-source.js";
import { buildMirrorPod, planMirrorPods } from "./mirror-pods.js";
import { mergePodStatus } from "./pod-status-sync.js";
import { mustParseDuration } from "@skiff/flags";
import { heartbeatTimeoutMs } from "./cluster-mode.js";

const staticPod = (name: string, uid: string): Pod => ({
  metadata: { name, namespace: "default", uid, labels: { app: name }, annotations: { "example.io/config.source": "file", "example.io/config.hash": uid } },
  spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox" }] },
});
const mirror = (name: string, hash: string, extra: Partial<NonNullable<Pod["metadata"]>> = {}): Pod => ({
  metadata: { name, namespace: "default", uid: `m-${name}`, annotations: { "example.io/config.mirror": hash }, ...extra },
  spec: { containers: [] },
});

describe("mirror pods", () => {
  it("buildMirrorPod copies metadata and spec, adds the hash annotation and the Node owner, drops uid and status", () => {
    const m = buildMirrorPod({ ...staticPod("web-n1", "abc"), status: { phase: "Running" } }, { name: "n1", uid: "node-uid" });
    expect(m.metadata).toEqual({
      name: "web-n1",
      namespace: "default",
      labels: { app: "web-n1" },
      annotations: { "example.io/config.source": "file", "example.io/config.hash": "abc", "example.io/config.mirror": "abc" },
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "node-uid", controller: true }],
    });
    expect(m.spec?.nodeName).toBe("n1");
    expect(m.status).toBeUndefined();
    expect(isMirrorPod(m)).toBe(true);
    expect(isMirrorPod(staticPod("x", "y"))).toBe(false);
  });

  it("planMirrorPods creates missing mirrors and removes orphaned, outdated and terminating ones", () => {
    const plan = planMirrorPods(
      [staticPod("a", "h1"), staticPod("b", "h2"), staticPod("c", "h3"), staticPod("d", "h4")],
      [mirror("b", "h2"), mirror("c", "old"), mirror("d", "h4", { deletionTimestamp: "2026-01-01T00:00:00Z" }), mirror("gone", "h9")],
    );
    expect(plan.create.map((p) => p.metadata?.name)).toEqual(["a"]);
    expect(plan.remove.map((p) => p.metadata?.name).sort()).toEqual(["c", "d", "gone"]);
  });
});

describe("mergePodStatus", () => {
  it("takes the agent's status, keeps conditions it does not own and server-only fields", () => {
    const server: PodStatus = {
      phase: "Pending",
      nominatedNodeName: "n1",
      conditions: [
        { type: "PodScheduled", status: "True" },
        { type: "DisruptionTarget", status: "True", reason: "Preemption" },
      ],
    };
    const ours: PodStatus = { phase: "Running", hostIP: "10.0.0.1", conditions: [{ type: "Ready", status: "True" }, { type: "PodScheduled", status: "True" }] };
    const merged = mergePodStatus(server, ours);
    expect(merged.phase).toBe("Running");
    expect(merged.nominatedNodeName).toBe("n1");
    expect(merged.hostIP).toBe("10.0.0.1");
    expect(merged.conditions?.map((c) => c.type)).toEqual(["Ready", "PodScheduled", "DisruptionTarget"]);
    expect(server.conditions).toHaveLength(2);
  });

  it("never moves a terminal phase back", () => {
    expect(mergePodStatus({ phase: "Succeeded" }, { phase: "Running" }).phase).toBe("Succeeded");
    expect(mergePodStatus({ phase: "Running" }, { phase: "Failed" }).phase).toBe("Failed");
    expect(mergePodStatus(undefined, { phase: "Pending" })).toEqual({ phase: "Pending" });
  });
});

describe("heartbeatTimeoutMs", () => {
  it("is nodeStatusUpdateFrequency, or the lease duration when shorter (1.23's heartbeat client timeout)", () => {
    expect(heartbeatTimeoutMs({ nodeStatusUpdateFrequency: mustParseDuration("10s"), nodeLeaseDurationSeconds: 40 })).toBe(10_000);
    expect(heartbeatTimeoutMs({ nodeStatusUpdateFrequency: mustParseDuration("1m"), nodeLeaseDurationSeconds: 40 })).toBe(40_000);
  });
});
