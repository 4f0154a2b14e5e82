import type { Node, Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { NodeInfoCache } from "./node-info-cache.js";
import { newNodeInfo } from "./predicates.js";

const node = (name: string, cpu = "4"): Node => ({ metadata: { name }, status: { allocatable: { cpu, memory: "8Gi", pods: "110" } } });
const pod = (name: string, nodeName: string, cpu: string, phase: "Running" | "Succeeded" = "Running"): Pod => ({
  metadata: { name, namespace: "default" },
  spec: { nodeName, containers: [{ name: "c", image: "i", resources: { requests: { cpu } } }] },
  status: { phase },
});

// A small cluster the test changes by hand, counting how often the cache reads each node's pods.
function cluster() {
  const nodes = new Map<string, Node>();
  const pods = new Map<string, Pod>();
  const reads = new Map<string, number>();
  const source = {
    node: (name: string) => nodes.get(name),
    nodes: () => [...nodes.values()],
    podsOn: (name: string) => {
      reads.set(name, (reads.get(name) ?? 0) + 1);
      return [...pods.values()].filter((p) => p.spec?.nodeName === name);
    },
  };
  return { nodes, pods, reads, cache: new NodeInfoCache(source), source };
}

// What the scheduler computed before the cache: every node's info from scratch, sorted by name.
function fromScratch(c: ReturnType<typeof cluster>): ReturnType<NodeInfoCache["snapshot"]> {
  return [...c.nodes.values()]
    .sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1))
    .map((n) => newNodeInfo(n, [...c.pods.values()].filter((p) => p.spec?.nodeName === n.metadata?.name)));
}

describe("NodeInfoCache", () => {
  it("gives the nodes in name order with their pods' requests, as a full rebuild would", () => {
    const c = cluster();
    for (const n of ["b", "c", "a"]) c.nodes.set(n, node(n));
    c.pods.set("p1", pod("p1", "a", "500m"));
    c.pods.set("p2", pod("p2", "a", "250m"));
    c.pods.set("p3", pod("p3", "c", "1"));
    const infos = c.cache.snapshot();
    expect(infos.map((i) => i.node.metadata?.name)).toEqual(["a", "b", "c"]);
    expect(infos).toEqual(fromScratch(c));
    expect(infos[0]?.requested.milliCPU).toBe(750);
    expect(infos[0]?.podCount).toBe(2);
  });

  it("rebuilds only the nodes a pod event touched", () => {
    const c = cluster();
    for (const n of ["a", "b", "c"]) c.nodes.set(n, node(n));
    c.pods.set("p1", pod("p1", "a", "500m"));
    c.cache.snapshot();
    expect(Object.fromEntries(c.reads)).toEqual({ a: 1, b: 1, c: 1 });
    c.cache.snapshot();
    expect(Object.fromEntries(c.reads)).toEqual({ a: 1, b: 1, c: 1 });

    c.pods.set("p2", pod("p2", "b", "1"));
    c.cache.podsChanged("b");
    expect(c.cache.snapshot()).toEqual(fromScratch(c));
    expect(Object.fromEntries(c.reads)).toEqual({ a: 1, b: 2, c: 1 });

    // A pod leaving (deleted, or terminated: the assigned-pod informer drops it) frees its requests.
    c.pods.delete("p1");
    c.cache.podsChanged("a");
    expect(c.cache.snapshot()).toEqual(fromScratch(c));
    expect(c.cache.snapshot()[0]?.requested.milliCPU).toBe(0);
    c.cache.podsChanged("");
    c.cache.snapshot();
    expect(Object.fromEntries(c.reads)).toEqual({ a: 2, b: 2, c: 1 });
  });

  it("notices a Node replaced by an update, and Nodes added or deleted", () => {
    const c = cluster();
    for (const n of ["a", "b"]) c.nodes.set(n, node(n));
    c.cache.snapshot();
    const bigger = node("a", "8");
    c.nodes.set("a", bigger);
    expect(c.cache.snapshot()[0]?.node).toBe(bigger);

    c.nodes.set("aa", node("aa"));
    c.cache.nodesChanged("aa");
    expect(c.cache.snapshot().map((i) => i.node.metadata?.name)).toEqual(["a", "aa", "b"]);
    c.nodes.delete("a");
    c.cache.nodesChanged("a");
    expect(c.cache.snapshot()).toEqual(fromScratch(c));
  });

  it("counts extra (assumed) pods on top without keeping them, skipping terminated ones", () => {
    const c = cluster();
    for (const n of ["a", "b"]) c.nodes.set(n, node(n));
    c.pods.set("p1", pod("p1", "a", "500m"));
    const extra = new Map([["a", [pod("x", "a", "1"), pod("y", "a", "2", "Succeeded")]]]);
    const infos = c.cache.snapshot(extra);
    expect(infos[0]?.requested.milliCPU).toBe(1500);
    expect(infos[0]?.podCount).toBe(2);
    expect(c.cache.snapshot()[0]?.requested.milliCPU).toBe(500);
  });
});
