import type { Node, Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { newNodeInfo } from "./predicates.js";
import { leastAllocatedScore, selectNode } from "./scoring.js";

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

describe("selectNode", () => {
  it("picks the least allocated node; ties go to the first name; none when empty", () => {
    const busy = newNodeInfo(node("a", "4", "8Gi"), [pod("3", "4Gi", "a")]);
    const idle = newNodeInfo(node("b", "4", "8Gi"), []);
    const idle2 = newNodeInfo(node("c", "4", "8Gi"), []);
    expect(selectNode(pod("1", "1Gi"), [busy, idle2, idle])?.nodeName).toBe("b");
    expect(selectNode(pod("1", "1Gi"), [busy])?.nodeName).toBe("a");
    expect(selectNode(pod("1"), [])).toBeUndefined();
  });
});
