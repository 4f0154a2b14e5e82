import type { Node, Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { newNodeInfo } from "./predicates.js";
import { balancedAllocationScore, leastAllocatedScore, selectNode } from "./scoring.js";

const node = (name: string, cpu: string, memory: string): Node => ({ metadata: { name }, status: { allocatable: { cpu, memory, pods: "110" } } });
const pod = (cpu?: string, memory?: string, nodeName?: string): Pod => ({
  metadata: { name: "p" },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "i", resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } } }] },
});

describe("leastAllocatedScore (1.23 NodeResourcesLeastAllocated)", () => {
  it.each<[string, Node, Pod[], Pod, number]>([
    // cpu (4000-1000)*100/4000 = 75, memory (10000-5000)*100/10000 = 50 -> (75+50)/2 = 62
    ["weighted mean, integer division", node("n", "4", "10000"), [], pod("1", "5000"), 62],
    ["empty node, small pod", node("n", "4", "8Gi"), [], pod("0", "0"), 100],
    ["existing pods count", node("n", "4", "8Gi"), [pod("2", "4Gi", "n")], pod("1", "2Gi"), 25],
    ["over capacity scores 0 for that resource", node("n", "1", "8Gi"), [], pod("2", "0"), 50],
    // no requests: 100m and 200Mi assumed -> cpu (1000-100)*100/1000 = 90, mem (400Mi-200Mi)/400Mi = 50 -> 70
    ["containers without requests use the non-zero defaults", node("n", "1", "400Mi"), [], pod(), 70],
    ["zero allocatable scores 0", node("n", "0", "0"), [], pod("1", "1"), 0],
  ])("%s", (_n, n, pods, p, want) => expect(leastAllocatedScore(p, newNodeInfo(n, pods))).toBe(want));

  it("honours weights", () => {
    expect(leastAllocatedScore(pod("1", "5000"), newNodeInfo(node("n", "4", "10000"), []), { cpu: 3, memory: 1 })).toBe(68);
  });
});

describe("balancedAllocationScore (1.23 NodeResourcesBalancedAllocation)", () => {
  const twoContainers: Pod = {
    metadata: { name: "p" },
    spec: { containers: [{ name: "a", image: "i", resources: { requests: { cpu: "1000m", memory: "2000" } } }, { name: "b", image: "i", resources: { requests: { cpu: "2000m", memory: "3000" } } }] },
  };
  it.each<[string, Node, Pod[], Pod, number]>([
    // balanced_allocation_test.go "resources requested, differently sized machines": cpu 3000/4000, memory 5000/10000 → std 0.125
    ["cpu 0.75, memory 0.5", node("n", "4", "10000"), [], twoContainers, 87],
    ["cpu 0.5, memory 0.5", node("n", "6", "10000"), [], twoContainers, 100],
    // Requests as written (1.23's useRequested): pods without requests count nothing, not 100m/200Mi.
    ["no requests anywhere", node("n", "4", "10000"), [pod(undefined, undefined, "n")], pod(), 100],
    ["the node's pods count", node("n", "4", "10000"), [pod("1", "0", "n")], pod("1", "5000"), 100],
    ["a fraction over 1 counts as 1", node("n", "1", "8Gi"), [], pod("2", "0"), 50],
    ["overhead counts", node("n", "4", "10000"), [], { ...pod("1", "5000"), spec: { ...pod("1", "5000").spec!, overhead: { cpu: "1" } } } as Pod, 100],
    ["zero allocatable with a request is full", node("n", "0", "10000"), [], pod("1", "0"), 50],
  ])("%s", (_n, n, pods, p, want) => expect(balancedAllocationScore(p, newNodeInfo(n, pods))).toBe(want));
});

describe("selectNode", () => {
  it("picks the least allocated node; ties go to the first name; none when empty", () => {
    const busy = newNodeInfo(node("a", "4", "8Gi"), [pod("3", "4Gi", "a")]);
    const idle = newNodeInfo(node("b", "4", "8Gi"), []);
    const idle2 = newNodeInfo(node("c", "4", "8Gi"), []);
    expect(selectNode(pod("1", "1Gi"), [busy, idle2, idle])?.nodeName).toBe("b");
    expect(selectNode(pod("1", "1Gi"), [busy])?.nodeName).toBe("a");
    expect(selectNode(pod("1"), [])).toBeUndefined();
  });

  it("adds balanced allocation to least allocated: of two nodes with equal least-allocated scores, the balanced one wins", () => {
    // Both score (cpu 50 + memory 50) / 2 = 50 least-allocated after the pod; a: cpu 0.25, memory 0.75 → 75; b: 0.5, 0.5 → 100.
    const a = newNodeInfo(node("a", "4", "8Gi"), [pod("0", "5Gi", "a")]);
    const b = newNodeInfo(node("b", "4", "8Gi"), [pod("1", "3Gi", "b")]);
    expect(leastAllocatedScore(pod("1", "1Gi"), a)).toBe(leastAllocatedScore(pod("1", "1Gi"), b));
    expect(selectNode(pod("1", "1Gi"), [a, b])).toEqual({ nodeName: "b", score: 50 + 100 });
  });
});
