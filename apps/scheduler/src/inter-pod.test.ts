import type { Node, Pod, PodAffinityTerm, TopologySpreadConstraint } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import {
  prepareClusterFilters,
  reasonAffinityRulesNotMatch,
  reasonAntiAffinityRulesNotMatch,
  reasonExistingAntiAffinityRulesNotMatch,
  reasonNodePorts,
  reasonTopologySpreadMissingLabel,
  reasonTopologySpreadNotMatch,
  type NamespaceLabels,
} from "./inter-pod.js";
import { filterNode, newNodeInfo, type NodeInfo } from "./predicates.js";

const node = (name: string, labels: Record<string, string>): Node => ({
  metadata: { name, labels: { "example.io/hostname": name, ...labels } },
  status: { allocatable: { cpu: "4", memory: "8Gi", pods: "110" }, conditions: [{ type: "Ready", status: "True" }] },
});
const pod = (name: string, labels: Record<string, string>, spec: Partial<NonNullable<Pod["spec"]>> = {}, namespace = "default"): Pod => ({
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: "c", image: "i" }], ...spec },
});
const term = (matchLabels: Record<string, string>, topologyKey: string, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm => ({ labelSelector: { matchLabels }, topologyKey, ...extra });
const noNamespaceLabels: NamespaceLabels = () => undefined;

// Which of `nodes` (with `placed` pods on them by node name) `incoming` may go to, with the reason per node.
function fit(incoming: Pod, nodes: Node[], placed: Record<string, Pod[]>, nsLabels = noNamespaceLabels): Record<string, string> {
  const infos: NodeInfo[] = nodes.map((n) => newNodeInfo(n, placed[n.metadata?.name ?? ""] ?? []));
  const cluster = prepareClusterFilters(incoming, infos, nsLabels);
  return Object.fromEntries(infos.map((i) => [i.node.metadata?.name ?? "", filterNode(incoming, i, cluster).join("; ") || "fits"]));
}

const zoneA1 = node("a1", { zone: "a" });
const zoneA2 = node("a2", { zone: "a" });
const zoneB1 = node("b1", { zone: "b" });
const unzoned = node("x1", {});

describe("InterPodAffinity (1.23 filtering.go)", () => {
  it("required affinity: only nodes whose domain holds a selected pod; a node without the key never", () => {
    const web = pod("web", { app: "web" });
    const incoming = pod("cache", { app: "cache" }, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: "web" }, "zone")] } } });
    expect(fit(incoming, [zoneA1, zoneA2, zoneB1, unzoned], { a1: [web] })).toEqual({ a1: "fits", a2: "fits", b1: reasonAffinityRulesNotMatch, x1: reasonAffinityRulesNotMatch });
  });

  it("required affinity to itself: the group's first pod may go to any node with the key", () => {
    const incoming = pod("first", { app: "db" }, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: "db" }, "zone")] } } });
    expect(fit(incoming, [zoneA1, zoneB1, unzoned], {})).toEqual({ a1: "fits", b1: "fits", x1: reasonAffinityRulesNotMatch });
  });

  it("required affinity counts only pods that match every term", () => {
    const incoming = pod("p", {}, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: "web" }, "zone"), term({ tier: "front" }, "zone")] } } });
    expect(fit(incoming, [zoneA1, zoneB1], { a1: [pod("w", { app: "web" })], b1: [pod("w2", { app: "web", tier: "front" })] })).toEqual({ a1: reasonAffinityRulesNotMatch, b1: "fits" });
  });

  it("required anti-affinity keeps the pod out of the domains of the pods it selects", () => {
    const incoming = pod("web-2", { app: "web" }, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: "web" }, "example.io/hostname")] } } });
    expect(fit(incoming, [zoneA1, zoneA2], { a1: [pod("web-1", { app: "web" })] })).toEqual({ a1: reasonAntiAffinityRulesNotMatch, a2: "fits" });
  });

  it("an existing pod's required anti-affinity keeps a pod it selects out of its domain (symmetry)", () => {
    const guard = pod("guard", { app: "guard" }, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: "noisy" }, "zone")] } } });
    expect(fit(pod("n", { app: "noisy" }), [zoneA1, zoneA2, zoneB1], { a1: [guard] })).toEqual({ a1: reasonExistingAntiAffinityRulesNotMatch, a2: reasonExistingAntiAffinityRulesNotMatch, b1: "fits" });
    expect(fit(pod("q", { app: "quiet" }), [zoneA1], { a1: [guard] })).toEqual({ a1: "fits" });
  });

  it("terms select in the pod's own namespace by default, else in `namespaces` or by namespaceSelector", () => {
    const other = pod("w", { app: "web" }, {}, "other");
    const anti = (t: PodAffinityTerm) => pod("p", {}, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } } });
    expect(fit(anti(term({ app: "web" }, "zone")), [zoneA1], { a1: [other] })).toEqual({ a1: "fits" });
    expect(fit(anti(term({ app: "web" }, "zone", { namespaces: ["other"] })), [zoneA1], { a1: [other] })).toEqual({ a1: reasonAntiAffinityRulesNotMatch });
    expect(fit(anti(term({ app: "web" }, "zone", { namespaceSelector: {} })), [zoneA1], { a1: [other] })).toEqual({ a1: reasonAntiAffinityRulesNotMatch });
    const labelsOf: NamespaceLabels = (ns) => (ns === "other" ? { team: "x" } : {});
    expect(fit(anti(term({ app: "web" }, "zone", { namespaceSelector: { matchLabels: { team: "x" } } })), [zoneA1], { a1: [other] }, labelsOf)).toEqual({ a1: reasonAntiAffinityRulesNotMatch });
    expect(fit(anti(term({ app: "web" }, "zone", { namespaceSelector: { matchLabels: { team: "y" } } })), [zoneA1], { a1: [other] }, labelsOf)).toEqual({ a1: "fits" });
  });

  it("a term without a label selector selects no pod", () => {
    const incoming = pod("p", {}, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "zone" }] } } });
    expect(fit(incoming, [zoneA1], { a1: [pod("w", { app: "web" })] })).toEqual({ a1: "fits" });
  });
});

describe("PodTopologySpread, DoNotSchedule (1.23 filtering.go)", () => {
  const spread = (maxSkew: number, topologyKey = "zone", extra: Partial<TopologySpreadConstraint> = {}): Pick<NonNullable<Pod["spec"]>, "topologySpreadConstraints"> => ({
    topologySpreadConstraints: [{ maxSkew, topologyKey, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "w" } }, ...extra }],
  });
  const w = (name: string) => pod(name, { app: "w" });

  it("refuses a node whose domain would exceed the smallest by more than maxSkew; empty domains count as 0", () => {
    const placed = { a1: [w("1"), w("2")], b1: [] };
    expect(fit(pod("n", { app: "w" }, spread(1)), [zoneA1, zoneA2, zoneB1], placed)).toEqual({ a1: reasonTopologySpreadNotMatch, a2: reasonTopologySpreadNotMatch, b1: "fits" });
    expect(fit(pod("n", { app: "w" }, spread(3)), [zoneA1, zoneA2, zoneB1], placed)).toEqual({ a1: "fits", a2: "fits", b1: "fits" });
  });

  it("a node without the topology key is refused with the missing-label reason and not counted", () => {
    expect(fit(pod("n", { app: "w" }, spread(1)), [zoneA1, unzoned], { x1: [w("1"), w("2"), w("3")] })).toEqual({ a1: "fits", x1: reasonTopologySpreadMissingLabel });
  });

  it("the pod counts itself only when the selector matches it; other namespaces and terminating pods are not counted", () => {
    const placed = { a1: [w("1")], b1: [] };
    expect(fit(pod("n", { app: "other" }, spread(1)), [zoneA1, zoneB1], placed)).toEqual({ a1: "fits", b1: "fits" });
    const elsewhere = { a1: [pod("o", { app: "w" }, {}, "other"), { ...w("t"), metadata: { ...w("t").metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }], b1: [] };
    expect(fit(pod("n", { app: "w" }, spread(1)), [zoneA1, zoneB1], elsewhere)).toEqual({ a1: "fits", b1: "fits" });
  });

  it("nodes the pod's node selector excludes are not counted as domains", () => {
    const placed = { a1: [w("1")], b1: [] };
    expect(fit(pod("n", { app: "w" }, { ...spread(1), nodeSelector: { zone: "a" } }), [zoneA1, zoneA2, zoneB1], placed)).toEqual({ a1: "fits", a2: "fits", b1: "node(s) didn't match Pod's node affinity/selector" });
  });

  it("ScheduleAnyway constraints do not filter", () => {
    expect(fit(pod("n", { app: "w" }, spread(1, "zone", { whenUnsatisfiable: "ScheduleAnyway" })), [zoneA1, zoneB1], { a1: [w("1"), w("2")] })).toEqual({ a1: "fits", b1: "fits" });
  });
});

describe("NodePorts", () => {
  const withPort = (name: string, hostPort: number, o: { protocol?: "TCP" | "UDP"; hostIP?: string } = {}) =>
    ({ ...pod(name, {}), spec: { containers: [{ name: "c", image: "i", ports: [{ containerPort: 80, hostPort, ...(o.protocol ? { protocol: o.protocol } : {}), ...(o.hostIP ? { hostIP: o.hostIP } : {}) }] }] } }) as Pod;

  it("refuses a node where the host port is taken for the same protocol and an overlapping IP", () => {
    expect(fit(withPort("n", 8080), [zoneA1, zoneA2], { a1: [withPort("o", 8080)] })).toEqual({ a1: reasonNodePorts, a2: "fits" });
    expect(fit(withPort("n", 8080, { protocol: "UDP" }), [zoneA1], { a1: [withPort("o", 8080)] })).toEqual({ a1: "fits" });
    expect(fit(withPort("n", 8080, { hostIP: "10.0.0.1" }), [zoneA1], { a1: [withPort("o", 8080, { hostIP: "10.0.0.2" })] })).toEqual({ a1: "fits" });
    expect(fit(withPort("n", 8080, { hostIP: "10.0.0.1" }), [zoneA1], { a1: [withPort("o", 8080)] })).toEqual({ a1: reasonNodePorts });
  });
});
