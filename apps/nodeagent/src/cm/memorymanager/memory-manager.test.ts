import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { CPUManager, topologyOf } from "../cpumanager/index.js";
import { TopologyManager } from "../topologymanager/index.js";
import { decodeMemoryCheckpoint, discoverNUMAMemory, encodeMemoryCheckpoint, hugePageResourceName, MemoryManager, MemoryManagerStateError, systemReservedMemory, type NUMANodeMemory } from "./index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "memmgr-"));
  dirs.push(d);
  return d;
};

const Gi = 1024 ** 3;
const Mi = 1024 ** 2;
// Two NUMA nodes of 4Gi each.
const twoNodes: NUMANodeMemory[] = [
  { id: 0, memoryBytes: 4 * Gi, hugePages: [] },
  { id: 1, memoryBytes: 4 * Gi, hugePages: [] },
];

function pod(uid: string, memory: string, cpu = "100m", containers = 1): Pod {
  return {
    metadata: { uid, name: uid, namespace: "default" },
    spec: { containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image: "x", resources: { requests: { cpu, memory }, limits: { cpu, memory } } })) },
  } as Pod;
}

function start(stateDir: string, nodes = twoNodes, reservedMemory = [{ numaNode: 0, limits: { memory: "100Mi" } }]): MemoryManager {
  return MemoryManager.start({ policy: "Static", reservedMemory, nodeAllocatableReservation: { memory: ["100Mi"] }, stateDir, numaNodes: nodes, machineMemoryBytes: 8 * Gi });
}

describe("memory_manager_state", () => {
  it("verifies 1.23's checksum (upstream test vector) and round-trips what it writes", () => {
    const text = `{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum": 4215593881}`;
    const s = decodeMemoryCheckpoint(text);
    expect(s.assignments.get("pod")?.get("container1")).toEqual([{ numaAffinity: [0], type: "memory", size: 512 }]);
    expect(JSON.parse(encodeMemoryCheckpoint(s))).toMatchObject({ checksum: 4215593881 });
    expect(() => decodeMemoryCheckpoint(text.replace('"size":512', '"size":513'))).toThrow("checkpoint is corrupted");
  });
});

describe("discoverNUMAMemory", () => {
  it("reads each node's MemTotal and hugepages from a prepared sysfs", () => {
    const root = tmp();
    for (const n of [0, 1]) {
      const d = join(root, "devices/system/node", `node${n}`);
      mkdirSync(join(d, "hugepages/hugepages-2048kB"), { recursive: true });
      writeFileSync(join(d, "meminfo"), `Node ${n} MemTotal:       4194304 kB\nNode ${n} MemFree:        1000 kB\n`);
      writeFileSync(join(d, "hugepages/hugepages-2048kB/nr_hugepages"), n === 0 ? "4\n" : "0\n");
    }
    expect(discoverNUMAMemory(root, 1)).toEqual([
      { id: 0, memoryBytes: 4 * Gi, hugePages: [{ pageSizeKiB: 2048, numPages: 4 }] },
      { id: 1, memoryBytes: 4 * Gi, hugePages: [{ pageSizeKiB: 2048, numPages: 0 }] },
    ]);
    expect(hugePageResourceName(2048)).toBe("hugepages-2Mi");
    expect(hugePageResourceName(1048576)).toBe("hugepages-1Gi");
  });
});

describe("--reserved-memory validation (1.23's words)", () => {
  it("requires the per-type sum to equal system + cluster reserved + hard eviction", () => {
    expect(() => systemReservedMemory(twoNodes, { memory: ["100Mi"] }, [])).toThrow('the total amount "0" of type "memory" is not equal to the value "100Mi" determined by Node Allocatable feature');
    expect(() => systemReservedMemory(twoNodes, { memory: ["1Gi", "100Mi"] }, [{ numaNode: 0, limits: { memory: "1Gi" } }])).toThrow('the total amount "1Gi" of type "memory" is not equal to the value "1124Mi" determined by Node Allocatable feature');
    expect(() => systemReservedMemory(twoNodes, { memory: ["100Mi"] }, [{ numaNode: 3, limits: { memory: "100Mi" } }])).toThrow("the reserved memory configuration references a NUMA node 3 that does not exist on this machine");
    expect(() => systemReservedMemory(twoNodes, {}, [{ numaNode: 0, limits: { "hugepages-2Mi": "2Mi" } }])).toThrow('the total amount "2Mi" of type "hugepages-2Mi" is not equal to the value "0" determined by Node Allocatable feature');
    const r = systemReservedMemory(twoNodes, { memory: ["1Gi", "100Mi"] }, [{ numaNode: 0, limits: { memory: "1Gi" } }, { numaNode: 1, limits: { memory: "100Mi" } }]);
    expect(r.get(0)?.get("memory")).toBe(Gi);
    expect(r.get(1)?.get("memory")).toBe(100 * Mi);
  });

  it("requires some reserved memory with the Static policy", () => {
    expect(() => MemoryManager.start({ policy: "Static", reservedMemory: [], nodeAllocatableReservation: {}, stateDir: tmp(), numaNodes: twoNodes, machineMemoryBytes: 8 * Gi })).toThrow("[memorymanager] you should specify the system reserved memory");
  });
});

describe("Static memory manager", () => {
  it("writes the machine state, pins a Guaranteed container to one node and releases it", () => {
    const dir = tmp();
    const mm = start(dir);
    const file = join(dir, "memory_manager_state");
    const read = () => JSON.parse(readFileSync(file, "utf8"));
    expect(read()).toMatchObject({
      policyName: "Static",
      machineState: {
        "0": { numberOfAssignments: 0, memoryMap: { memory: { total: 4 * Gi, systemReserved: 100 * Mi, allocatable: 4 * Gi - 100 * Mi, reserved: 0, free: 4 * Gi - 100 * Mi } }, cells: [0] },
        "1": { numberOfAssignments: 0, memoryMap: { memory: { total: 4 * Gi, systemReserved: 0, allocatable: 4 * Gi, reserved: 0, free: 4 * Gi } }, cells: [1] },
      },
    });
    const p = pod("p1", "1Gi");
    const c = p.spec?.containers[0];
    if (!c) throw new Error("no container");
    expect(mm.topologyHints(p, c)).toEqual(new Map([["memory", [{ numaNodeAffinity: 1, preferred: true }, { numaNodeAffinity: 2, preferred: true }, { numaNodeAffinity: 3, preferred: false }]]]));
    mm.allocate(p, c, { numaNodeAffinity: 2, preferred: true });
    expect(mm.containerMemoryNodes(p, c)).toBe("1");
    expect(read()).toMatchObject({ entries: { p1: { c0: [{ numaAffinity: [1], type: "memory", size: Gi }] } }, machineState: { "1": { numberOfAssignments: 1, memoryMap: { memory: { reserved: Gi, free: 3 * Gi } } } } });
    // After a restart the container's blocks come back as its only, preferred hint.
    const again = start(dir);
    expect(again.topologyHints(p, c)).toEqual(new Map([["memory", [{ numaNodeAffinity: 2, preferred: true }]]]));
    again.removePod("p1");
    expect(read().entries).toBeUndefined();
    expect(read().machineState["1"]).toMatchObject({ numberOfAssignments: 0, memoryMap: { memory: { reserved: 0, free: 4 * Gi } }, cells: [1] });
  });

  it("spreads a request no single node can hold over a node group, and keeps grouped nodes out of single-node hints", () => {
    const mm = start(tmp());
    const big = pod("big", "6Gi");
    const c = big.spec?.containers[0];
    if (!c) throw new Error("no container");
    expect(mm.topologyHints(big, c)).toEqual(new Map([["memory", [{ numaNodeAffinity: 3, preferred: true }]]]));
    mm.allocate(big, c, undefined);
    expect(mm.containerMemoryNodes(big, c)).toBe("0,1");
    expect(mm.machineState.get(0)).toMatchObject({ cells: [0, 1], numberOfAssignments: 1 });
    const small = pod("small", "100Mi");
    const s = small.spec?.containers[0];
    if (!s) throw new Error("no container");
    // Nodes 0 and 1 are grouped: a small container may only join the group.
    expect(mm.topologyHints(small, s)).toEqual(new Map([["memory", [{ numaNodeAffinity: 3, preferred: false }]]]));
  });

  it("does not pin Burstable or BestEffort pods, and refuses what no node group can hold", () => {
    const mm = start(tmp());
    const burstable = { metadata: { uid: "b" }, spec: { containers: [{ name: "c", image: "x", resources: { requests: { memory: "1Gi" } } }] } } as Pod;
    const bc = burstable.spec?.containers[0];
    if (!bc) throw new Error("no container");
    expect(mm.topologyHints(burstable, bc)).toBeUndefined();
    mm.allocate(burstable, bc);
    expect(mm.containerMemoryNodes(burstable, bc)).toBeUndefined();
    const huge = pod("huge", "9Gi");
    const hc = huge.spec?.containers[0];
    if (!hc) throw new Error("no container");
    expect(mm.topologyHints(huge, hc)).toEqual(new Map());
    expect(() => mm.allocate(huge, hc)).toThrow("[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available");
  });

  it("refuses a changed policy, a corrupt state file and a state that does not match the machine, naming the file", () => {
    const dir = tmp();
    start(dir);
    const file = join(dir, "memory_manager_state");
    const none = () => MemoryManager.start({ policy: "None", reservedMemory: [], nodeAllocatableReservation: {}, stateDir: dir, machineMemoryBytes: 1 });
    expect(none).toThrow(MemoryManagerStateError);
    expect(none).toThrow(`could not restore state from checkpoint: [memorymanager] configured policy "None" differs from state checkpoint policy "Static", please drain this node and delete the memory manager checkpoint file ${JSON.stringify(file)} before restarting Nodeagent`);
    expect(() => start(dir, [{ id: 0, memoryBytes: 2 * Gi, hugePages: [] }, { id: 1, memoryBytes: 4 * Gi, hugePages: [] }])).toThrow("[memorymanager] the expected machine state is different from the real one");
    writeFileSync(file, readFileSync(file, "utf8").replace('"numberOfAssignments":0', '"numberOfAssignments":1'));
    expect(() => start(dir)).toThrow(`could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the memory manager checkpoint file ${JSON.stringify(file)}`);
  });

  it("with hugepages: hugepages come out of the node's memory and are allocated as their own blocks", () => {
    const nodes: NUMANodeMemory[] = [{ id: 0, memoryBytes: 4 * Gi, hugePages: [{ pageSizeKiB: 2048, numPages: 512 }] }];
    const mm = start(tmp(), nodes);
    expect(mm.machineState.get(0)?.memoryMap).toEqual({
      "hugepages-2Mi": { total: Gi, systemReserved: 0, allocatable: Gi, reserved: 0, free: Gi },
      memory: { total: 4 * Gi, systemReserved: 100 * Mi, allocatable: 3 * Gi - 100 * Mi, reserved: 0, free: 3 * Gi - 100 * Mi },
    });
    const p = { metadata: { uid: "h" }, spec: { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "1", memory: "1Gi", "hugepages-2Mi": "4Mi" }, limits: { cpu: "1", memory: "1Gi", "hugepages-2Mi": "4Mi" } } }] } } as Pod;
    const c = p.spec?.containers[0];
    if (!c) throw new Error("no container");
    mm.allocate(p, c);
    expect(mm.assignments.get("h")?.get("c")).toEqual([
      { numaAffinity: [0], type: "memory", size: Gi },
      { numaAffinity: [0], type: "hugepages-2Mi", size: 4 * Mi },
    ]);
    expect(mm.machineState.get(0)).toMatchObject({ numberOfAssignments: 2, memoryMap: { "hugepages-2Mi": { reserved: 4 * Mi } } });
  });
});

// A Guaranteed pod with init containers and app containers of the given memory (cpu 100m each).
function podWithInit(uid: string, init: readonly string[], app: readonly string[]): Pod {
  const c = (name: string, memory: string) => ({ name, image: "x", resources: { requests: { cpu: "100m", memory }, limits: { cpu: "100m", memory } } });
  return { metadata: { uid, name: uid, namespace: "default" }, spec: { initContainers: init.map((m, i) => c(`i${i}`, m)), containers: app.map((m, i) => c(`a${i}`, m)) } } as Pod;
}

describe("Static memory manager: init containers' memory reused (1.23's initContainersReusableMemory)", () => {
  const containers = (p: Pod) => [...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? [])];

  it("reserves max(largest init container, sum of app containers), shrinking the init containers' blocks by what was reused", () => {
    const dir = tmp();
    const mm = start(dir);
    const p = podWithInit("p", ["1Gi", "2Gi"], ["1536Mi", "1Gi"]);
    const reservedOn0 = () => mm.machineState.get(0)?.memoryMap.memory?.reserved;
    const sizes = () => Object.fromEntries([...(mm.assignments.get("p") ?? new Map<string, { size: number }[]>())].map(([n, bs]) => [n, bs[0]?.size]));
    const [i0, i1, a0, a1] = containers(p);
    if (!i0 || !i1 || !a0 || !a1) throw new Error("no containers");
    mm.allocate(p, i0, { numaNodeAffinity: 1, preferred: true });
    expect(reservedOn0()).toBe(Gi);
    // i1 reuses i0's 1Gi: only 1Gi more is reserved; i0's block drops to 0.
    mm.allocate(p, i1, { numaNodeAffinity: 1, preferred: true });
    expect(reservedOn0()).toBe(2 * Gi);
    expect(sizes()).toEqual({ i0: 0, i1: 2 * Gi });
    // a0 fits in what the init containers hold: nothing more reserved.
    mm.allocate(p, a0, { numaNodeAffinity: 1, preferred: true });
    expect(reservedOn0()).toBe(2 * Gi);
    expect(sizes()).toEqual({ i0: 0, i1: 512 * Mi, a0: 1536 * Mi });
    // a1 reuses the last 512Mi and reserves 512Mi more: 2.5Gi in all = the app containers' sum.
    mm.allocate(p, a1, { numaNodeAffinity: 1, preferred: true });
    expect(reservedOn0()).toBe(2560 * Mi);
    expect(sizes()).toEqual({ i0: 0, i1: 0, a0: 1536 * Mi, a1: Gi });
    expect(mm.machineState.get(0)?.numberOfAssignments).toBe(4);
    // The written state is consistent: a restart validates it against the machine.
    const again = start(dir);
    expect(again.machineState.get(0)?.memoryMap.memory?.reserved).toBe(2560 * Mi);
    again.removePod("p");
    expect(again.machineState.get(0)).toMatchObject({ numberOfAssignments: 0, memoryMap: { memory: { reserved: 0, free: 4 * Gi - 100 * Mi } } });
  });

  it("offers the node the init container holds to the app container, counting the reusable memory as free", () => {
    const mm = start(tmp(), [{ id: 0, memoryBytes: 4 * Gi, hugePages: [] }]);
    const p = podWithInit("p", ["3Gi"], ["3Gi"]);
    const [i0, a0] = containers(p);
    if (!i0 || !a0) throw new Error("no containers");
    mm.allocate(p, i0);
    // 924Mi is free, but the pod's init container holds 3Gi on node 0 that the app container reuses.
    expect(mm.topologyHints(p, a0)).toEqual(new Map([["memory", [{ numaNodeAffinity: 1, preferred: true }]]]));
    mm.allocate(p, a0);
    expect(mm.machineState.get(0)?.memoryMap.memory?.reserved).toBe(3 * Gi);
    // Another pod cannot reuse it.
    const q = podWithInit("q", [], ["3Gi"]);
    const [qa] = containers(q);
    if (!qa) throw new Error("no container");
    expect(mm.topologyHints(q, qa)).toEqual(new Map());
  });

  it("does not reuse across NUMA masks, and a rolled-back pod leaves nothing reusable behind", () => {
    const mm = start(tmp());
    const p = podWithInit("p", ["1Gi"], ["1Gi"]);
    const [i0, a0] = containers(p);
    if (!i0 || !a0) throw new Error("no containers");
    mm.allocate(p, i0, { numaNodeAffinity: 1, preferred: true });
    mm.allocate(p, a0, { numaNodeAffinity: 2, preferred: true });
    expect(mm.machineState.get(0)?.memoryMap.memory?.reserved).toBe(Gi);
    expect(mm.machineState.get(1)?.memoryMap.memory?.reserved).toBe(Gi);
    expect(mm.assignments.get("p")?.get("i0")?.[0]?.size).toBe(Gi);
    mm.rollBack(p, new Set());
    expect(mm.assignments.get("p")).toBeUndefined();
    // Re-admitted, the init container's memory is reserved afresh, not counted as reusable twice.
    mm.allocate(p, i0, { numaNodeAffinity: 1, preferred: true });
    mm.allocate(p, a0, { numaNodeAffinity: 1, preferred: true });
    expect(mm.machineState.get(0)?.memoryMap.memory?.reserved).toBe(Gi);
  });
});

describe("topology manager with the CPU and memory managers", () => {
  // Two NUMA nodes of 2 CPUs each; CPU 0 reserved; 4Gi per node.
  const cpuTopo = topologyOf([[0, 0, 0, 0], [1, 0, 1, 0], [2, 1, 2, 1], [3, 1, 3, 1]]);
  function managers(dir: string, policy: string, scope = "container") {
    const cpu = CPUManager.start({ policy: "static", policyOptions: {}, alphaOptions: false, betaOptions: true, reservedCPUs: [0], reservedMilliCPU: 1000n, stateDir: dir, topology: cpuTopo });
    const mem = start(dir);
    return { cpu, mem, tm: new TopologyManager(policy, scope, cpu, [0, 1], undefined, mem) };
  }

  it("single-numa-node: TopologyAffinityError when CPU and memory hints do not intersect, nothing left allocated", () => {
    const dir = tmp();
    const { cpu, mem, tm } = managers(dir, "single-numa-node");
    // Fill node 1's memory so memory only fits on node 0.
    expect(tm.admitPod(pod("filler", "3Gi"), [])).toBeUndefined();
    expect(mem.containerMemoryNodes(pod("filler", "3Gi"), { name: "c0", image: "x" })).toBe("0");
    expect(tm.admitPod(pod("filler2", "3584Mi"), [])).toBeUndefined();
    expect(mem.containerMemoryNodes(pod("filler2", "3584Mi"), { name: "c0", image: "x" })).toBe("1");
    // 2 CPUs only fit on node 1 (CPU 0 is reserved); 900Mi of memory only fits on node 0 (924Mi free, node 1 512Mi).
    const p = pod("p", "900Mi", "2");
    expect(tm.admitPod(p, [])).toEqual({ reason: "TopologyAffinityError", message: "Resources cannot be allocated with Topology locality" });
    expect(cpu.assignments.get("p")).toBeUndefined();
    expect(mem.assignments.get("p")).toBeUndefined();
    // Aligned on node 1 when both fit there.
    const q = pod("q", "512Mi", "2");
    expect(tm.admitPod(q, [])).toBeUndefined();
    expect(tm.containerCPUSet(q, { name: "c0", image: "x" })).toBe("2-3");
    expect(tm.containerMemoryNodes(q, { name: "c0", image: "x" })).toBe("1");
    tm.removePod("q");
    expect(mem.assignments.get("q")).toBeUndefined();
  });

  it("pod scope and policy none allocate memory too; a memory failure rolls back the CPUs", () => {
    const { cpu, mem, tm } = managers(tmp(), "none");
    const p = pod("p", "1Gi", "1");
    expect(tm.admitPod(p, [])).toBeUndefined();
    expect(mem.assignments.get("p")?.get("c0")?.[0]?.size).toBe(Gi);
    const huge = pod("huge", "20Gi", "1");
    expect(tm.admitPod(huge, [])).toEqual({ reason: "UnexpectedAdmissionError", message: "Allocate failed due to [memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available, which is unexpected" });
    expect(cpu.assignments.get("huge")).toBeUndefined();
    const podScope = managers(tmp(), "restricted", "pod");
    expect(podScope.tm.admitPod(pod("two", "1Gi", "1", 2), [])).toBeUndefined();
    expect(podScope.mem.containerMemoryNodes(pod("two", "1Gi", "1", 2), { name: "c1", image: "x" })).toBe("1");
  });

  it("writes each checkpoint once per admission, the same file as change by change", () => {
    const dir = tmp();
    const { mem, tm } = managers(dir, "best-effort");
    const memFile = join(dir, "memory_manager_state");
    const cpuFile = join(dir, "cpu_manager_state");
    const p = pod("p", "1Gi", "1", 2);
    const before = [readFileSync(memFile, "utf8"), readFileSync(cpuFile, "utf8")];
    // Inside a batch nothing is written yet; at its end both files hold the final state.
    mem.batch(() => {
      expect(tm.admitPod(p, [])).toBeUndefined();
      expect(readFileSync(memFile, "utf8")).toBe(before[0]);
    });
    const written = readFileSync(memFile, "utf8");
    expect(JSON.parse(written).entries.p).toMatchObject({ c0: [{ size: Gi }], c1: [{ size: Gi }] });
    expect(readFileSync(cpuFile, "utf8")).not.toBe(before[1]);
    // The same admission without the batch (a fresh node) writes the same memory state.
    const dir2 = tmp();
    const other = managers(dir2, "best-effort");
    expect(other.tm.admitPod(p, [])).toBeUndefined();
    expect(readFileSync(join(dir2, "memory_manager_state"), "utf8")).toBe(written);
    // A restart restores it.
    expect(start(dir).assignments.get("p")?.size).toBe(2);
  });

  it("admits a pod whose init and app containers each need most of a node: the app containers reuse the init container's memory", () => {
    const { mem, tm } = managers(tmp(), "single-numa-node");
    const p = podWithInit("p", ["3Gi"], ["2Gi", "1Gi"]);
    expect(tm.admitPod(p, [])).toBeUndefined();
    const nodes = new Set([...(mem.assignments.get("p")?.values() ?? [])].map((bs) => bs[0]?.numaAffinity.join(",")));
    expect(nodes.size).toBe(1);
    const node = Number([...nodes][0]);
    expect(mem.machineState.get(node)?.memoryMap.memory?.reserved).toBe(3 * Gi);
  });
});
