import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cpuSetOf, parseCPUSet, type CPUSet } from "./cpuset.js";

/** Where one logical CPU sits. `coreID` is the lowest CPU id of its physical core (unique per machine). */
export interface CPUInfo {
  readonly numaNodeID: number;
  readonly socketID: number;
  readonly coreID: number;
}

/**
 * The machine's CPU topology: logical CPUs, physical cores, sockets and NUMA nodes.
 * @see pkg/kubelet/cm/cpumanager/topology/topology.go (CPUTopology, CPUDetails) in kubernetes/kubernetes v1.23
 */
export class CPUTopology {
  /** cpu id → where it sits. */
  readonly details: ReadonlyMap<number, CPUInfo>;

  constructor(details: ReadonlyMap<number, CPUInfo>) {
    this.details = details;
  }

  /** All logical CPUs. */
  cpus(): CPUSet {
    return cpuSetOf(this.details.keys());
  }
  get numCPUs(): number {
    return this.details.size;
  }
  /** Physical cores on the machine. */
  get numCores(): number {
    return new Set([...this.details.values()].map((d) => d.coreID)).size;
  }
  get numSockets(): number {
    return new Set([...this.details.values()].map((d) => d.socketID)).size;
  }
  get numNUMANodes(): number {
    return new Set([...this.details.values()].map((d) => d.numaNodeID)).size;
  }
  /** Hyper-threads per physical core (0 when there are no CPUs). */
  cpusPerCore(): number {
    return this.numCores === 0 ? 0 : this.numCPUs / this.numCores;
  }
  /** Logical CPUs per socket (0 when there are no CPUs). */
  cpusPerSocket(): number {
    return this.numSockets === 0 ? 0 : this.numCPUs / this.numSockets;
  }
  /** The CPUs whose info satisfies `pick`. */
  cpusWhere(pick: (d: CPUInfo, cpu: number) => boolean): CPUSet {
    return cpuSetOf([...this.details].filter(([cpu, d]) => pick(d, cpu)).map(([cpu]) => cpu));
  }
  /** The NUMA node ids, ascending. */
  numaNodes(): number[] {
    return cpuSetOf([...this.details.values()].map((d) => d.numaNodeID)) as number[];
  }
  /** The CPUs on the given NUMA nodes. */
  cpusInNUMANodes(...ids: number[]): CPUSet {
    return this.cpusWhere((d) => ids.includes(d.numaNodeID));
  }
}

/** Builds a topology from `[cpu, socket, core(lowest sibling), numa]` rows (tests, prepared machines). */
export function topologyOf(rows: ReadonlyArray<readonly [cpu: number, socket: number, core: number, numa?: number]>): CPUTopology {
  return new CPUTopology(new Map(rows.map(([cpu, socketID, coreID, numaNodeID = socketID]) => [cpu, { socketID, coreID, numaNodeID }])));
}

function readTrim(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * Reads the CPU topology of the machine from sysfs as cAdvisor does for the kubelet: the online
 * CPUs (`devices/system/cpu/online`), each one's `topology/physical_package_id` and
 * `topology/core_id`, and the NUMA node holding it (`devices/system/node/node<N>/cpulist`; node 0
 * when the kernel reports no NUMA nodes). A core's id is the lowest CPU id of its hyper-threads.
 * `sysfsRoot` is `/sys`, or a prepared tree in tests.
 * @throws Error `could not detect number of cpus` when no CPU is found, or a file does not parse.
 * @see pkg/kubelet/cm/cpumanager/topology/topology.go (Discover) in kubernetes/kubernetes v1.23
 */
export function discoverTopology(sysfsRoot = "/sys"): CPUTopology {
  const cpuDir = join(sysfsRoot, "devices", "system", "cpu");
  const online = readTrim(join(cpuDir, "online"));
  let cpus: CPUSet;
  if (online !== undefined) cpus = parseCPUSet(online);
  else {
    const names = existsSync(cpuDir) ? readdirSync(cpuDir) : [];
    cpus = cpuSetOf(names.filter((n) => /^cpu\d+$/.test(n)).map((n) => Number(n.slice(3))));
  }
  if (cpus.length === 0) throw new Error("could not detect number of cpus");
  const numaOf = new Map<number, number>();
  const nodeDir = join(sysfsRoot, "devices", "system", "node");
  if (existsSync(nodeDir)) {
    for (const n of readdirSync(nodeDir)) {
      if (!/^node\d+$/.test(n)) continue;
      const list = readTrim(join(nodeDir, n, "cpulist"));
      if (list === undefined) continue;
      for (const cpu of parseCPUSet(list)) numaOf.set(cpu, Number(n.slice(4)));
    }
  }
  const raw = cpus.map((cpu) => {
    const num = (file: string): number => {
      const t = readTrim(join(cpuDir, `cpu${cpu}`, "topology", file));
      const v = t === undefined ? 0 : Number.parseInt(t, 10);
      if (!Number.isFinite(v)) throw new Error(`could not parse ${join(cpuDir, `cpu${cpu}`, "topology", file)}: ${JSON.stringify(t)}`);
      return v;
    };
    return { cpu, socket: num("physical_package_id"), core: num("core_id") };
  });
  const lowest = new Map<string, number>();
  for (const r of raw) {
    const key = `${r.socket}/${r.core}`;
    lowest.set(key, Math.min(lowest.get(key) ?? r.cpu, r.cpu));
  }
  return new CPUTopology(new Map(raw.map((r) => [r.cpu, { socketID: r.socket, coreID: lowest.get(`${r.socket}/${r.core}`) ?? r.cpu, numaNodeID: numaOf.get(r.cpu) ?? 0 }])));
}
