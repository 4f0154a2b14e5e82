import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { insufficientResources } from "./admission.js";
import { podsToPreempt, preemptable, PreemptionError, requirementOf } from "./preemption.js";

type Requests = Record<string, string>;
const pod = (name: string, requests?: Requests, limits?: Requests, extra: Partial<NonNullable<Pod["spec"]>> = {}, annotations?: Record<string, string>): Pod => ({
  metadata: { name, namespace: "default", uid: name, ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: "c", image: "busybox", resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } }], ...extra },
});
const critical = (requests?: Requests) => pod("critical", requests, undefined, { priority: 2_000_001_000 });
const names = (pods: readonly Pod[]) => pods.map((p) => p.metadata?.name);

// pkg/kubelet/preemption/preemption_test.go, 1.23
describe("podsToPreempt (1.23 getPodsToPreempt)", () => {
  const bestEffort = pod("best-effort");
  const burstable = pod("burstable", { cpu: "100m", memory: "100Mi" });
  const guaranteed = pod("guaranteed", { cpu: "100m", memory: "100Mi" }, { cpu: "100m", memory: "100Mi" });
  const bigBurstable = pod("big-burstable", { cpu: "1", memory: "1Gi" });

  it("frees a pod slot with a BestEffort pod before a Burstable or Guaranteed one", () => {
    expect(names(podsToPreempt(critical(), [guaranteed, burstable, bestEffort], [{ resourceName: "pods", quantity: 1n }]))).toEqual(["best-effort"]);
    expect(names(podsToPreempt(critical(), [guaranteed, burstable], [{ resourceName: "pods", quantity: 1n }]))).toEqual(["burstable"]);
    expect(names(podsToPreempt(critical(), [guaranteed], [{ resourceName: "pods", quantity: 1n }]))).toEqual(["guaranteed"]);
  });

  it("frees memory with the pod nearest the need; BestEffort pods free nothing but slots", () => {
    expect(names(podsToPreempt(critical(), [bestEffort, burstable, bigBurstable], [{ resourceName: "memory", quantity: 500n * 1024n * 1024n }]))).toEqual(["big-burstable"]);
    // Two Burstable pods of 100Mi each are needed for 150Mi when there is no bigger one.
    const other = pod("burstable-2", { cpu: "100m", memory: "100Mi" });
    expect(names(podsToPreempt(critical(), [bestEffort, burstable, other], [{ resourceName: "memory", quantity: 150n * 1024n * 1024n }])).sort()).toEqual(["burstable", "burstable-2"]);
  });

  it("of two pods that both meet the need, takes the one with the smaller request (memory, then CPU)", () => {
    const a = pod("a", { cpu: "2", memory: "2Gi" });
    const b = pod("b", { cpu: "1", memory: "1Gi" });
    expect(names(podsToPreempt(critical(), [a, b], [{ resourceName: "cpu", quantity: 500n }]))).toEqual(["b"]);
  });

  it("never preempts critical pods, nor pods a non-critical pod does not outrank", () => {
    const staticPod = pod("static", undefined, undefined, {}, { "example.io/config.source": "file" });
    expect(() => podsToPreempt(critical(), [staticPod], [{ resourceName: "pods", quantity: 1n }])).toThrow(new PreemptionError([{ resourceName: "pods", quantity: 1n }]));
    expect(() => podsToPreempt(critical(), [staticPod], [{ resourceName: "pods", quantity: 1n }])).toThrow("no set of running pods found to reclaim resources: [(res: pods, q: 1), ]");
    expect(preemptable(pod("high", undefined, undefined, { priority: 10 }), pod("low", undefined, undefined, { priority: 5 }))).toBe(true);
    expect(preemptable(pod("high", undefined, undefined, { priority: 10 }), pod("none"))).toBe(false);
    // A critical pod outranks a critical pod only by priority.
    expect(preemptable(critical(), pod("lower-critical", undefined, undefined, { priority: 2_000_000_000 }))).toBe(true);
    expect(preemptable(critical(), pod("equal-critical", undefined, undefined, { priority: 2_000_001_000 }))).toBe(false);
  });

  it("reports what even every preemptable pod cannot free", () => {
    expect(() => podsToPreempt(critical(), [burstable], [{ resourceName: "cpu", quantity: 1000n }])).toThrow("no set of running pods found to reclaim resources: [(res: cpu, q: 900), ]");
  });

  it("turns insufficient resources into requirements: requested - (capacity - used)", () => {
    const lacking = insufficientResources(critical({ cpu: "600m", memory: "1Gi" }), [burstable, bigBurstable], { pods: 2, cpuMilli: 1500n, memoryBytes: 2n * 1024n ** 3n });
    expect(lacking.map(requirementOf)).toEqual([
      { resourceName: "pods", quantity: 1n },
      { resourceName: "cpu", quantity: 200n },
      { resourceName: "memory", quantity: 100n * 1024n * 1024n },
    ]);
    expect(names(podsToPreempt(critical(), [burstable, bigBurstable], lacking.map(requirementOf)))).toEqual(["big-burstable"]);
  });
});
