import { NodeHostnameLabel as hostnameLabel, type Node, type Pod, type Taint } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { newNodeInfo, type NodeInfo } from "./predicates.js";
import { imageLocalityScores, normalizedImageName, preferenceScores } from "./preference-scoring.js";
import { selectNode } from "./scoring.js";

const node = (name: string, labels: Record<string, string>, taints: Taint[] = []): Node => ({
  metadata: { name, labels: { [hostnameLabel]: name, ...labels } },
  spec: taints.length > 0 ? { taints } : {},
  status: { allocatable: { cpu: "4", memory: "8Gi", pods: "110" }, conditions: [{ type: "Ready", status: "True" }] },
});
const pod = (name: string, labels: Record<string, string>, spec: Partial<NonNullable<Pod["spec"]>> = {}, namespace = "default"): Pod => ({
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: "c", image: "i" }], ...spec },
});
const infos = (nodes: Node[], placed: Record<string, Pod[]> = {}): NodeInfo[] => nodes.map((n) => newNodeInfo(n, placed[n.metadata?.name ?? ""] ?? []));
const scores = (p: Pod, all: NodeInfo[], feasible = all) => Object.fromEntries(preferenceScores(p, feasible, all, () => undefined).map((s, i) => [feasible[i]?.node.metadata?.name ?? "", s]));

const a1 = node("a1", { zone: "a", disk: "ssd" });
const a2 = node("a2", { zone: "a" });
const b1 = node("b1", { zone: "b" });
// TaintToleration adds 100 to every node when no node has a PreferNoSchedule taint.
const base = 100;

describe("preferenceScores (1.23's scoring plugins and default weights)", () => {
  it("adds nothing but the constant TaintToleration score for a pod without preferences", () => {
    expect(scores(pod("p", {}), infos([a1, a2, b1]))).toEqual({ a1: base, a2: base, b1: base });
  });

  it("NodeAffinity: preferred terms' weights, normalized to the best node", () => {
    const p = pod("p", {}, {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 30, preference: { matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] } },
            { weight: 10, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] } },
          ],
        },
      },
    });
    expect(scores(p, infos([a1, a2, b1]))).toEqual({ a1: base + 100, a2: base + 25, b1: base });
  });

  it("TaintToleration: PreferNoSchedule taints not tolerated lower a node; a toleration lifts that", () => {
    const tainted = node("t1", {}, [{ key: "spot", value: "true", effect: "PreferNoSchedule" }]);
    const clean = node("c1", {});
    expect(scores(pod("p", {}), infos([tainted, clean]))).toEqual({ t1: 0, c1: 100 });
    expect(scores(pod("p", {}, { tolerations: [{ key: "spot", operator: "Exists" }] }), infos([tainted, clean]))).toEqual({ t1: 100, c1: 100 });
  });

  it("InterPodAffinity: preferred affinity draws the pod to the domains of the pods it selects, preferred anti-affinity away", () => {
    const placed = { a1: [pod("web", { app: "web" })] };
    const near = pod("p", {}, { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: "web" } }, topologyKey: "zone" } }] } } });
    expect(scores(near, infos([a1, a2, b1], placed))).toEqual({ a1: base + 100, a2: base + 100, b1: base });
    const away = pod("p", {}, { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: "web" } }, topologyKey: hostnameLabel } }] } } });
    expect(scores(away, infos([a1, a2, b1], placed))).toEqual({ a1: base, a2: base + 100, b1: base + 100 });
  });

  it("InterPodAffinity: an existing pod's required affinity toward the new pod counts as a preference of weight 1 (symmetry)", () => {
    const follower = pod("f", { app: "f" }, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "leader" } }, topologyKey: "zone" }] } } });
    expect(scores(pod("leader", { app: "leader" }), infos([a1, b1], { b1: [follower] }))).toEqual({ a1: base, b1: base + 100 });
    expect(scores(pod("other", { app: "other" }), infos([a1, b1], { b1: [follower] }))).toEqual({ a1: base, b1: base });
  });

  it("PodTopologySpread (ScheduleAnyway, weight 2): the emptier domain wins; nodes without the key score 0", () => {
    const w = (n: string) => pod(n, { app: "w" });
    const p = pod("p", { app: "w" }, { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: { app: "w" } } }] });
    const unzoned = node("x1", {});
    expect(scores(p, infos([a1, b1, unzoned], { a1: [w("1"), w("2")] }))).toEqual({ a1: base + 0, b1: base + 200, x1: base + 0 });
  });

  it("selectNode adds them to least-allocated: a preference outweighs a small difference in load", () => {
    const p = pod("p", {}, { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] } }] } } });
    const all = infos([a1, b1], { b1: [pod("load", {}, { containers: [{ name: "c", image: "i", resources: { requests: { cpu: "1" } } }] })] });
    expect(selectNode(p, all)?.nodeName).toBe("a1");
    expect(selectNode(p, all, undefined, preferenceScores(p, all, all, () => undefined))?.nodeName).toBe("b1");
  });
});

describe("ImageLocality (1.23 image_locality.go)", () => {
  const MiB = 1024 * 1024;
  const withImages = (n: Node, images: { names: string[]; sizeBytes: number }[]): Node => ({ ...n, status: { ...n.status, images } });
  const busybox = { names: ["docker.io/library/busybox@sha256:abc", "docker.io/library/busybox:1.36", "busybox:1.36"], sizeBytes: 500 * MiB };
  const n1 = withImages(node("n1", {}), [busybox, { names: ["registry:5000/app:latest"], sizeBytes: 900 * MiB }]);
  const n2 = withImages(node("n2", {}), [busybox]);
  const n3 = withImages(node("n3", {}), [{ names: ["gcr.io/small:latest"], sizeBytes: 10 * MiB }]);
  const withImage = (...images: string[]) => pod("p", {}, { containers: images.map((image, i) => ({ name: `c${i}`, image })) });

  it("normalizes an untagged name with :latest, keeping a registry port and digests", () => {
    expect(normalizedImageName("busybox")).toBe("busybox:latest");
    expect(normalizedImageName("registry:5000/app")).toBe("registry:5000/app:latest");
    expect(normalizedImageName("busybox:1.36")).toBe("busybox:1.36");
    expect(normalizedImageName("busybox@sha256:abc")).toBe("busybox@sha256:abc");
  });

  it("scales the image size by the share of nodes holding it, clamps to [23 MiB, 1000 MiB per container] and scores 0..100", () => {
    const all = infos([n1, n2, n3]);
    // 500 MiB on 2 of 3 nodes: trunc(500 MiB * 2/3) → 31; a node without it, or with only a 10 MiB image, 0.
    expect(imageLocalityScores(withImage("busybox:1.36"), all, all)).toEqual([31, 31, 0]);
    expect(imageLocalityScores(withImage("gcr.io/small"), all, all)).toEqual([0, 0, 0]);
    // Two containers: 1000 MiB each at most; n1 holds 500 MiB (2/3 spread) + 900 MiB (1/3 spread) = 633 MiB of 2000, n2 333 MiB.
    expect(imageLocalityScores(withImage("busybox:1.36", "registry:5000/app"), all, all)).toEqual([30, 15, 0]);
    // An image on every node (500 MiB, spread 1) still counts: 48; only the feasible nodes are scored.
    expect(imageLocalityScores(withImage("busybox:1.36"), infos([n2]), infos([n1, n2]))).toEqual([48]);
  });

  it("adds to the preference scores with weight 1: a pod lands where its image is", () => {
    // 900 MiB on 1 of 2 nodes: 450 MiB → 43.
    const all = infos([n3, n1]);
    expect(scores(withImage("registry:5000/app"), all)).toEqual({ n3: base, n1: base + 43 });
    expect(selectNode(withImage("registry:5000/app"), all, undefined, preferenceScores(withImage("registry:5000/app"), all, all, () => undefined))?.nodeName).toBe("n1");
  });
});
