import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointChecksum, CPUManager, decodeCheckpoint, discoverTopology, encodeCheckpoint, formatCPUSet, parseCPUSet, takeByTopology, topologyOf } from "./index.js";

// 2 sockets × 2 cores × 2 threads, numbered as Linux does: cpu i and i+4 are siblings.
const dualSocketHT = topologyOf([
  [0, 0, 0], [1, 0, 1], [2, 1, 2], [3, 1, 3],
  [4, 0, 0], [5, 0, 1], [6, 1, 2], [7, 1, 3],
]);

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "cpuman-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function pod(uid: string, cpus: Array<string | undefined>, limits = true): Pod {
  return {
    metadata: { name: uid, namespace: "default", uid },
    spec: {
      containers: cpus.map((cpu, i) => ({
        name: `c${i}`,
        image: "busybox",
        resources: cpu === undefined ? {} : { requests: { cpu, memory: "64Mi" }, ...(limits ? { limits: { cpu, memory: "64Mi" } } : {}) },
      })),
    },
  };
}

describe("cpuset", () => {
  it("parses and formats the kubelet's text form", () => {
    expect(parseCPUSet("0-2,7,5")).toEqual([0, 1, 2, 5, 7]);
    expect(formatCPUSet([0, 1, 2, 5, 7])).toBe("0-2,5,7");
    expect(parseCPUSet("")).toEqual([]);
    expect(() => parseCPUSet("3-1")).toThrow('invalid range "3-1" (3 >= 1)');
    expect(() => parseCPUSet("a")).toThrow('strconv.Atoi: parsing "a": invalid syntax');
  });
});

describe("takeByTopology (2 sockets × 2 cores × 2 threads)", () => {
  const all = dualSocketHT.cpus();
  it("takes a whole socket for a socket's worth", () => {
    expect(formatCPUSet(takeByTopology(dualSocketHT, all, 4))).toBe("0-1,4-5");
  });
  it("takes whole cores before threads", () => {
    expect(formatCPUSet(takeByTopology(dualSocketHT, all, 2))).toBe("0,4");
    expect(formatCPUSet(takeByTopology(dualSocketHT, all, 6))).toBe("0-2,4-6");
  });
  it("fills a partly used core first with single threads", () => {
    // cpu 0 is gone: its sibling 4 is taken before a fresh core.
    expect(formatCPUSet(takeByTopology(dualSocketHT, [1, 2, 3, 4, 5, 6, 7], 1))).toBe("4");
  });
  it("prefers the socket with fewer free CPUs", () => {
    expect(formatCPUSet(takeByTopology(dualSocketHT, [1, 2, 3, 5, 6, 7], 2))).toBe("1,5");
  });
  it("fails with 1.23's message when too few CPUs are left", () => {
    expect(() => takeByTopology(dualSocketHT, [1, 2], 3)).toThrow("not enough cpus available to satisfy request");
  });
});

describe("discoverTopology", () => {
  it("reads CPUs, sockets, cores and NUMA nodes from a prepared sysfs tree", () => {
    const root = tmp();
    for (let cpu = 0; cpu < 8; cpu++) {
      const dir = join(root, "devices/system/cpu", `cpu${cpu}`, "topology");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "physical_package_id"), `${cpu % 4 < 2 ? 0 : 1}\n`);
      writeFileSync(join(dir, "core_id"), `${cpu % 2}\n`);
    }
    writeFileSync(join(root, "devices/system/cpu/online"), "0-7\n");
    mkdirSync(join(root, "devices/system/node/node0"), { recursive: true });
    mkdirSync(join(root, "devices/system/node/node1"), { recursive: true });
    writeFileSync(join(root, "devices/system/node/node0/cpulist"), "0-1,4-5\n");
    writeFileSync(join(root, "devices/system/node/node1/cpulist"), "2-3,6-7\n");
    const t = discoverTopology(root);
    expect([t.numCPUs, t.numCores, t.numSockets, t.numNUMANodes, t.cpusPerCore()]).toEqual([8, 4, 2, 2, 2]);
    expect(t.details.get(5)).toEqual({ socketID: 0, coreID: 1, numaNodeID: 0 });
    expect(t.details.get(6)).toEqual({ socketID: 1, coreID: 2, numaNodeID: 1 });
    expect(formatCPUSet(t.cpusInNUMANodes(1))).toBe("2-3,6-7");
  });
  it("reads this machine", () => {
    expect(discoverTopology().numCPUs).toBeGreaterThan(0);
  });
});

describe("checkpoint", () => {
  it("computes 1.23's checksums (upstream test vectors)", () => {
    expect(checkpointChecksum({ policyName: "none", defaultCPUSet: "4-6", entries: {} })).toBe(354655845);
    expect(checkpointChecksum({ policyName: "none", defaultCPUSet: "1-3", entries: { pod: { container1: "4-6", container2: "1-3" } } })).toBe(3610638499);
  });
  it("round-trips through 1.23's JSON", () => {
    const text = encodeCheckpoint({ policyName: "static", defaultCPUSet: [0, 3], assignments: new Map([["uid-1", new Map([["app", [1, 2]]])]]) });
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(json).toMatchObject({ policyName: "static", defaultCPUSet: "0,3", entries: { "uid-1": { app: "1-2" } } });
    const back = decodeCheckpoint(text);
    expect(back.assignments.get("uid-1")?.get("app")).toEqual([1, 2]);
    expect(JSON.parse(encodeCheckpoint({ policyName: "none", defaultCPUSet: [], assignments: new Map() }))).toEqual({ policyName: "none", defaultCPUSet: "", checksum: checkpointChecksum({ policyName: "none", defaultCPUSet: "", entries: {} }) });
  });
  it("refuses a tampered file", () => {
    const text = encodeCheckpoint({ policyName: "static", defaultCPUSet: [0, 3], assignments: new Map() }).replace('"0,3"', '"0-3"');
    expect(() => decodeCheckpoint(text)).toThrow("checkpoint is corrupted");
  });
});

const staticOpts = (stateDir: string, extra: Partial<Parameters<typeof CPUManager.start>[0]> = {}) => ({
  policy: "static",
  policyOptions: {},
  alphaOptions: false,
  betaOptions: true,
  reservedCPUs: [],
  reservedMilliCPU: 1000n,
  stateDir,
  topology: dualSocketHT,
  ...extra,
});

describe("CPUManager static policy", () => {
  it("reserves by topology, gives Guaranteed integer containers exclusive CPUs and releases them", () => {
    const dir = tmp();
    const m = CPUManager.start(staticOpts(dir, { reservedMilliCPU: 1500n }));
    expect(formatCPUSet(m.reserved)).toBe("0,4");
    const g = pod("g", ["2", "500m"]);
    expect(m.admitPod(g, [])).toBeUndefined();
    expect(m.containerCPUSet(g, g.spec!.containers[0]!)).toBe("1,5");
    // The fractional container stays in the shared pool (reserved CPUs included).
    expect(m.containerCPUSet(g, g.spec!.containers[1]!)).toBe("0,2-4,6-7");
    const state = JSON.parse(readFileSync(join(dir, "cpu_manager_state"), "utf8")) as Record<string, unknown>;
    expect(state).toMatchObject({ policyName: "static", defaultCPUSet: "0,2-4,6-7", entries: { g: { c0: "1,5" } } });
    const burstable = pod("b", ["1"], false);
    expect(m.admitPod(burstable, [g])).toBeUndefined();
    expect(m.assignments.has("b")).toBe(false);
    m.removeStaleState([burstable]);
    expect(formatCPUSet(m.defaultCPUSet)).toBe("0-7");
    expect(m.admitPod(g, [])).toBeUndefined();
    expect(m.assignments.get("g")?.size).toBe(1);
    m.removePod("g");
    expect(m.assignments.size).toBe(0);
    expect(formatCPUSet(m.defaultCPUSet)).toBe("0-7");
  });

  it("rejects a pod when not enough CPUs are left, leaving nothing behind", () => {
    const m = CPUManager.start(staticOpts(tmp(), { reservedCPUs: [0] }));
    const big = pod("big", ["4", "4"]);
    expect(m.admitPod(big, [])).toEqual({ reason: "UnexpectedAdmissionError", message: "Allocate failed due to not enough cpus available to satisfy request, which is unexpected" });
    expect(m.assignments.size).toBe(0);
    expect(formatCPUSet(m.defaultCPUSet)).toBe("0-7");
  });

  it("app containers reuse the exclusive CPUs of the pod's init containers (1.23's cpusToReuse)", () => {
    const m = CPUManager.start(staticOpts(tmp(), { reservedCPUs: [0] }));
    const g = pod("g", ["2", "1"]);
    const res = { requests: { cpu: "2", memory: "64Mi" }, limits: { cpu: "2", memory: "64Mi" } };
    g.spec!.initContainers = [{ name: "init", image: "busybox", resources: res }];
    expect(m.admitPod(g, [])).toBeUndefined();
    const init = m.assignments.get("g")?.get("init");
    // The first app container gets the init container's CPUs back; only the second takes a new one.
    expect(m.assignments.get("g")?.get("c0")).toEqual(init);
    expect(m.defaultCPUSet.length).toBe(8 - 3);
    // Another pod cannot reuse them: 7 CPUs less the 3 held leave 4, so 5 are refused.
    expect(m.admitPod(pod("other", ["5"]), [g])).toMatchObject({ reason: "UnexpectedAdmissionError" });
    expect(m.admitPod(pod("other", ["4"]), [g])).toBeUndefined();
    m.removePod("g");
    m.removePod("other");
    expect(formatCPUSet(m.defaultCPUSet)).toBe("0-7");
  });

  it("full-pcpus-only rejects requests that are not whole cores", () => {
    const m = CPUManager.start(staticOpts(tmp(), { policyOptions: { "full-pcpus-only": "true" } }));
    expect(m.admitPod(pod("odd", ["3"]), [])).toEqual({ reason: "SMTAlignmentError", message: "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2" });
    expect(m.admitPod(pod("even", ["2"]), [])).toBeUndefined();
  });

  it("checks options, gates and reservations with 1.23's messages", () => {
    expect(() => CPUManager.start(staticOpts(tmp(), { reservedMilliCPU: 0n }))).toThrow("[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero");
    expect(() => CPUManager.start(staticOpts(tmp(), { policyOptions: { "full-pcpus-only": "true" }, betaOptions: false }))).toThrow('CPU Manager Policy Beta-level Options not enabled, but option "full-pcpus-only" provided');
    expect(() => CPUManager.start(staticOpts(tmp(), { policyOptions: { nope: "1" } }))).toThrow('unknown CPU Manager Policy option: "nope"');
    expect(() => CPUManager.start(staticOpts(tmp(), { policyOptions: { "full-pcpus-only": "maybe" } }))).toThrow('bad value for option "full-pcpus-only"');
    expect(() => CPUManager.start(staticOpts(tmp(), { reservedMilliCPU: 9000n }))).toThrow("unable to reserve the required amount of CPUs");
  });

  it("restores assignments after a restart and refuses a changed policy or a corrupt file", () => {
    const dir = tmp();
    const m = CPUManager.start(staticOpts(dir));
    const g = pod("g", ["1"]);
    m.admitPod(g, []);
    const again = CPUManager.start(staticOpts(dir));
    expect(again.containerCPUSet(g, g.spec!.containers[0]!)).toBe(m.containerCPUSet(g, g.spec!.containers[0]!));
    const file = join(dir, "cpu_manager_state");
    expect(() => CPUManager.start({ ...staticOpts(dir), policy: "none" })).toThrow(
      `could not restore state from checkpoint: configured policy "none" differs from state checkpoint policy "static", please drain this node and delete the CPU manager checkpoint file ${JSON.stringify(file)} before restarting Nodeagent`,
    );
    writeFileSync(file, "{not json");
    expect(() => CPUManager.start(staticOpts(dir))).toThrow(`could not restore state from checkpoint: invalid JSON`);
    expect(() => CPUManager.start(staticOpts(dir))).toThrow(JSON.stringify(file));
  });

  it("validates a restored state against the reservation and the machine (1.23's messages)", () => {
    const dir = tmp();
    const m = CPUManager.start(staticOpts(dir, { reservedCPUs: [0] }));
    const g = pod("g", ["1"]);
    m.admitPod(g, []);
    const taken = m.containerCPUSet(g, g.spec!.containers[0]!);
    expect(taken).toBe("4");
    expect(() => CPUManager.start(staticOpts(dir, { reservedCPUs: [4] }))).toThrow('not all reserved cpus: "4" are present in defaultCpuSet: "0-3,5-7"');
    const smaller = topologyOf([[0, 0, 0], [1, 0, 1], [2, 1, 2], [3, 1, 3], [4, 0, 0]]);
    expect(() => CPUManager.start(staticOpts(dir, { reservedCPUs: [0], topology: smaller }))).toThrow('current set of available CPUs "0-4" doesn\'t match with CPUs in state "0-7"');
  });

  it("reconcile writes changed CPU sets of running containers only once", async () => {
    const m = CPUManager.start(staticOpts(tmp(), { reservedCPUs: [0] }));
    const shared = pod("s", [undefined]);
    const g = pod("g", ["1"]);
    const calls: string[] = [];
    const update = async (id: string, cpus: string) => void calls.push(`${id}=${cpus}`);
    const running = [{ podUID: "s", containerName: "c0", containerId: "sid" }];
    await m.reconcile([shared], running, update);
    expect(m.admitPod(g, [shared])).toBeUndefined();
    await m.reconcile([shared, g], running, update);
    await m.reconcile([shared, g], running, update);
    await m.reconcile([shared], running, update);
    expect(calls).toEqual(["sid=0-7", "sid=0-3,5-7", "sid=0-7"]);
  });
});

describe("CPUManager none policy", () => {
  it("writes the state file and sets no CPU sets", () => {
    const dir = tmp();
    const m = CPUManager.start({ ...staticOpts(dir), policy: "none" });
    const g = pod("g", ["1"]);
    expect(m.admitPod(g, [])).toBeUndefined();
    expect(m.containerCPUSet(g, g.spec!.containers[0]!)).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dir, "cpu_manager_state"), "utf8"))).toMatchObject({ policyName: "none", defaultCPUSet: "" });
    expect(() => CPUManager.start(staticOpts(dir))).toThrow('configured policy "static" differs from state checkpoint policy "none"');
  });
});
