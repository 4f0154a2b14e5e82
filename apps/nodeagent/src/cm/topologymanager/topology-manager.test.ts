import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { CPUManager, formatCPUSet, topologyOf } from "../cpumanager/index.js";
import { mergeHints, TopologyManager } from "./index.js";

// 2 sockets × 2 cores × 2 threads, one NUMA node per socket: node 0 = 0,1,4,5; node 1 = 2,3,6,7.
const twoNUMA = topologyOf([
  [0, 0, 0, 0], [1, 0, 1, 0], [2, 1, 2, 1], [3, 1, 3, 1],
  [4, 0, 0, 0], [5, 0, 1, 0], [6, 1, 2, 1], [7, 1, 3, 1],
]);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function manager(policy: string, scope = "container"): TopologyManager {
  const dir = mkdtempSync(join(tmpdir(), "topoman-"));
  dirs.push(dir);
  const cpu = CPUManager.start({ policy: "static", policyOptions: {}, alphaOptions: false, betaOptions: true, reservedCPUs: [0], reservedMilliCPU: 1000n, stateDir: dir, topology: twoNUMA });
  return new TopologyManager(policy, scope, cpu, twoNUMA.numaNodes());
}

function pod(uid: string, ...cpus: string[]): Pod {
  const r = (cpu: string) => ({ requests: { cpu, memory: "64Mi" }, limits: { cpu, memory: "64Mi" } });
  return { metadata: { name: uid, namespace: "default", uid }, spec: { containers: cpus.map((cpu, i) => ({ name: `c${i}`, image: "busybox", resources: r(cpu) })) } };
}

const cpusOf = (m: TopologyManager, p: Pod, i = 0) => m.containerCPUSet(p, p.spec!.containers[i]!);
const affinityError = { reason: "TopologyAffinityError", message: "Resources cannot be allocated with Topology locality" };

describe("mergeHints", () => {
  it("prefers preferred hints, then the narrowest, and ANDs across resources", () => {
    const any = { numaNodeAffinity: undefined, preferred: true };
    expect(mergeHints([0, 1], [[any]])).toEqual({ numaNodeAffinity: 0b11, preferred: true });
    expect(mergeHints([0, 1], [[{ numaNodeAffinity: 0b11, preferred: false }, { numaNodeAffinity: 0b10, preferred: true }], [any]])).toEqual({ numaNodeAffinity: 0b10, preferred: true });
    expect(mergeHints([0, 1], [[{ numaNodeAffinity: 0b01, preferred: true }], [{ numaNodeAffinity: 0b10, preferred: true }]])).toEqual({ numaNodeAffinity: 0b11, preferred: false });
    expect(mergeHints([0, 1], [[]])).toEqual({ numaNodeAffinity: 0b11, preferred: false });
  });
});

describe("TopologyManager with the CPU manager as hint provider (2 NUMA nodes)", () => {
  it("single-numa-node puts a container on one node, and rejects what no single node can hold", () => {
    const m = manager("single-numa-node");
    const a = pod("a", "2");
    expect(m.admitPod(a, [])).toBeUndefined();
    expect(cpusOf(m, a)).toBe("1,5");
    const big = pod("big", "5");
    expect(m.admitPod(big, [a])).toEqual(affinityError);
    expect(m.cpuManager.assignments.has("big")).toBe(false);
    expect(formatCPUSet(m.cpuManager.defaultCPUSet)).toBe("0,2-4,6-7");
  });

  it("restricted admits a request larger than a node across both, and rejects a split that a node could have held", () => {
    const m = manager("restricted");
    const big = pod("big", "5");
    expect(m.admitPod(big, [])).toBeUndefined();
    const m2 = manager("restricted");
    const a = pod("a", "2");
    const b = pod("b", "3");
    expect(m2.admitPod(a, [])).toBeUndefined();
    expect(m2.admitPod(b, [a])).toBeUndefined();
    expect(cpusOf(m2, b)).toBe("2-3,6");
    // One CPU left on each node: 2 CPUs only fit across nodes, which is not preferred.
    const c = pod("c", "2");
    expect(m2.admitPod(c, [a, b])).toEqual(affinityError);
    expect(m2.cpuManager.assignments.has("c")).toBe(false);
  });

  it("best-effort admits the same split", () => {
    const m = manager("best-effort");
    const a = pod("a", "2");
    const b = pod("b", "3");
    const c = pod("c", "2");
    expect(m.admitPod(a, [])).toBeUndefined();
    expect(m.admitPod(b, [a])).toBeUndefined();
    expect(m.admitPod(c, [a, b])).toBeUndefined();
    expect(cpusOf(m, c)).toBe("4,7");
  });

  it("pod scope aligns all containers of the pod on one node", () => {
    const m = manager("single-numa-node", "pod");
    const p = pod("p", "2", "2");
    expect(m.admitPod(p, [])).toBeUndefined();
    expect([cpusOf(m, p, 0), cpusOf(m, p, 1)].sort()).toEqual(["2,6", "3,7"]);
    const c = manager("single-numa-node", "container");
    const q = pod("q", "2", "2");
    expect(c.admitPod(q, [])).toBeUndefined();
    expect([cpusOf(c, q, 0), cpusOf(c, q, 1)]).toEqual(["1,5", "2,6"]);
  });

  it("policy none allocates without hints, and an unknown policy or scope is refused", () => {
    const m = manager("none");
    const big = pod("big", "5");
    expect(m.admitPod(big, [])).toBeUndefined();
    expect(() => manager("tight")).toThrow('unknown policy: "tight"');
    expect(() => manager("restricted", "node")).toThrow('unknown scope: "node"');
  });
});
