import type { Node, NodeSelectorRequirement, Pod, Taint, Toleration } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import {
  checkNodeAffinity,
  checkNodeUnschedulable,
  checkResources,
  checkTaints,
  filterNode,
  formatFitError,
  newNodeInfo,
  podNonZeroRequests,
  podRequests,
  reasonNodeAffinity,
} from "./predicates.js";

const ready = [{ type: "Ready", status: "True" }];
const node = (name: string, o: { labels?: Record<string, string>; taints?: Taint[]; cpu?: string; memory?: string; pods?: string; unschedulable?: boolean; ready?: boolean } = {}): Node => ({
  metadata: { name, labels: o.labels ?? {} },
  spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
  status: { allocatable: { cpu: o.cpu ?? "4", memory: o.memory ?? "8Gi", pods: o.pods ?? "110" }, conditions: o.ready === false ? [{ type: "Ready", status: "False" }] : ready },
});
const pod = (spec: Partial<NonNullable<Pod["spec"]>> = {}, requests?: Record<string, string>): Pod => ({
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "c", image: "i", ...(requests ? { resources: { requests } } : {}) }], ...spec },
});

describe("podRequests (1.23 computePodResourceRequest)", () => {
  it.each([
    ["no requests", pod(), { milliCPU: 0, memoryBytes: 0 }],
    ["one container", pod({}, { cpu: "500m", memory: "1Gi" }), { milliCPU: 500, memoryBytes: 1073741824 }],
    [
      "sum of containers, max with init containers",
      pod({
        containers: [
          { name: "a", image: "i", resources: { requests: { cpu: "1", memory: "100Mi" } } },
          { name: "b", image: "i", resources: { requests: { cpu: "250m" } } },
        ],
        initContainers: [
          { name: "i1", image: "i", resources: { requests: { cpu: "2" } } },
          { name: "i2", image: "i", resources: { requests: { memory: "50Mi" } } },
        ],
      }),
      { milliCPU: 2000, memoryBytes: 100 * 1024 * 1024 },
    ],
    ["overhead added", pod({ overhead: { cpu: "100m" } } as never, { cpu: "1" }), { milliCPU: 1100, memoryBytes: 0 }],
  ])("%s", (_n, p, want) => expect(podRequests(p)).toEqual(want));

  it("non-zero requests default to 100m and 200Mi per container", () => {
    expect(podNonZeroRequests(pod())).toEqual({ milliCPU: 100, memoryBytes: 200 * 1024 * 1024 });
    expect(podNonZeroRequests(pod({}, { cpu: "2" }))).toEqual({ milliCPU: 2000, memoryBytes: 200 * 1024 * 1024 });
  });
});

describe("checkTaints", () => {
  it.each<[string, Taint[], Toleration[], string[]]>([
    ["untolerated NoSchedule", [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }], [], ["node(s) had taint {dedicated: gpu}, that the pod didn't tolerate"]],
    ["untolerated NoExecute", [{ key: "k", effect: "NoExecute" }], [], ["node(s) had taint {k: }, that the pod didn't tolerate"]],
    ["PreferNoSchedule ignored for filtering", [{ key: "k", effect: "PreferNoSchedule" }], [], []],
    ["tolerated", [{ key: "k", value: "v", effect: "NoSchedule" }], [{ key: "k", operator: "Equal", value: "v" }], []],
    ["first untolerated reported", [{ key: "a", effect: "NoSchedule" }, { key: "b", effect: "NoSchedule" }], [{ key: "a", operator: "Exists" }], ["node(s) had taint {b: }, that the pod didn't tolerate"]],
  ])("%s", (_n, taints, tolerations, want) => expect(checkTaints(pod({ tolerations }), node("n", { taints }))).toEqual(want));

  it("the node lifecycle controller's condition taints (memory-, disk-, pid-pressure) filter pods that do not tolerate them", () => {
    for (const key of ["node.example.io/memory-pressure", "node.example.io/disk-pressure", "node.example.io/pid-pressure", "node.example.io/network-unavailable"]) {
      const n = node("n", { taints: [{ key, effect: "NoSchedule", timeAdded: "2026-01-01T00:00:00Z" }] });
      expect(checkTaints(pod(), n)).toEqual([`node(s) had taint {${key}: }, that the pod didn't tolerate`]);
      expect(checkTaints(pod({ tolerations: [{ key, operator: "Exists", effect: "NoSchedule" }] }), n)).toEqual([]);
      // DefaultTolerationSeconds' NoExecute tolerations do not cover a NoSchedule taint.
      expect(checkTaints(pod({ tolerations: [{ key: "node.example.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }] }), n)).toHaveLength(1);
    }
  });
  it("not-ready:NoSchedule (TaintNodesByCondition's taint) is a taint like any other; conditions alone do not filter (1.23)", () => {
    const notReady: Taint = { key: "node.example.io/not-ready", effect: "NoSchedule" };
    expect(checkTaints(pod(), node("n", { ready: false, taints: [notReady] }))).toEqual(["node(s) had taint {node.example.io/not-ready: }, that the pod didn't tolerate"]);
    expect(checkTaints(pod(), node("n", { taints: [notReady] }))).toHaveLength(1);
    for (const t of [{ key: "node.example.io/not-ready", operator: "Exists" }, { key: "node.example.io/not-ready", operator: "Exists", effect: "NoSchedule" }, { operator: "Exists" }] as const) {
      expect(checkTaints(pod({ tolerations: [t] }), node("n", { ready: false, taints: [notReady] }))).toEqual([]);
    }
    // The node lifecycle controller's job, not the scheduler's: an untainted node fits whatever its conditions.
    expect(checkTaints(pod(), node("n", { ready: false }))).toEqual([]);
    expect(checkTaints(pod(), { metadata: { name: "no-status" } })).toEqual([]);
  });
});

describe("checkNodeUnschedulable", () => {
  it("fails unless the pod tolerates the unschedulable taint", () => {
    expect(checkNodeUnschedulable(pod(), node("n", { unschedulable: true }))).toEqual(["node(s) were unschedulable"]);
    expect(checkNodeUnschedulable(pod({ tolerations: [{ key: "node.example.io/unschedulable", operator: "Exists", effect: "NoSchedule" }] }), node("n", { unschedulable: true }))).toEqual([]);
    expect(checkNodeUnschedulable(pod(), node("n"))).toEqual([]);
  });
});

describe("node affinity", () => {
  const n = node("node-a", { labels: { zone: "z1", gen: "5", disk: "ssd" } });
  const term = (...e: NodeSelectorRequirement[]) => ({ matchExpressions: e });
  it("terms are ORed, requirements ANDed (the matching itself is @skiff/component-helpers')", () => {
    const affinity = (terms: object[]) => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
    expect(checkNodeAffinity(affinity([term({ key: "zone", operator: "In", values: ["z9"] }), term({ key: "disk", operator: "Exists" })]), n)).toEqual([]);
    expect(checkNodeAffinity(affinity([term({ key: "zone", operator: "In", values: ["z1"] }, { key: "disk", operator: "DoesNotExist" })]), n)).toEqual([reasonNodeAffinity]);
    expect(checkNodeAffinity(affinity([]), n)).toEqual([reasonNodeAffinity]);
  });

  it("nodeSelector must be a subset of the labels", () => {
    expect(checkNodeAffinity(pod({ nodeSelector: { zone: "z1", disk: "ssd" } }), n)).toEqual([]);
    expect(checkNodeAffinity(pod({ nodeSelector: { zone: "z2" } }), n)).toEqual([reasonNodeAffinity]);
    expect(checkNodeAffinity(pod({ nodeSelector: { other: "" } }), n)).toEqual([reasonNodeAffinity]);
  });
});

describe("checkResources", () => {
  const onNode = (cpu: string, memory: string) => pod({ nodeName: "n" }, { cpu, memory });
  it.each<[string, Node, Pod[], Pod, string[]]>([
    ["fits", node("n", { cpu: "2", memory: "2Gi" }), [onNode("1", "1Gi")], pod({}, { cpu: "1", memory: "1Gi" }), []],
    ["insufficient cpu", node("n", { cpu: "2" }), [onNode("1500m", "0")], pod({}, { cpu: "600m" }), ["Insufficient cpu"]],
    ["insufficient cpu and memory", node("n", { cpu: "1", memory: "1Gi" }), [], pod({}, { cpu: "2", memory: "2Gi" }), ["Insufficient cpu", "Insufficient memory"]],
    ["too many pods", node("n", { pods: "1" }), [onNode("0", "0")], pod(), ["Too many pods"]],
    ["zero-request pod fits a full node", node("n", { cpu: "1" }), [onNode("1", "0")], pod(), []],
    ["terminated pods free their resources", node("n", { cpu: "1" }), [{ ...onNode("1", "0"), status: { phase: "Succeeded" } }], pod({}, { cpu: "1" }), []],
  ])("%s", (_n, nd, pods, p, want) => expect(checkResources(p, newNodeInfo(nd, pods))).toEqual(want));
});

describe("filterNode and formatFitError", () => {
  it("reports the first failing filter in plugin order", () => {
    const n = node("n", { unschedulable: true, taints: [{ key: "k", effect: "NoSchedule" }], cpu: "0" });
    expect(filterNode(pod({ nodeSelector: { a: "b" } }, { cpu: "1" }), newNodeInfo(n, []))).toEqual(["node(s) were unschedulable"]);
    expect(filterNode(pod({}, { cpu: "1" }), newNodeInfo(node("ok"), []))).toEqual([]);
  });
  it("formats 1.23's message with sorted counts", () => {
    expect(formatFitError(3, [[reasonNodeAffinity], ["Insufficient cpu"], ["Insufficient cpu"]])).toBe("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu.");
    expect(formatFitError(2, [["Insufficient cpu", "Insufficient memory"], ["Too many pods"]])).toBe("0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods.");
    expect(formatFitError(0, [])).toBe("no nodes available to schedule pods");
  });
});
