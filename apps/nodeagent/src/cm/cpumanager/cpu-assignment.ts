import { cpuSetOf, difference, intersection, union, type CPUSet } from "./cpuset.js";
import type { CPUTopology } from "./topology.js";

/** The error of {@link takeByTopology} when `available` is too small; its message is 1.23's. */
export class NotEnoughCPUsError extends Error {
  constructor() {
    super("not enough cpus available to satisfy request");
    this.name = "NotEnoughCPUsError";
  }
}

/**
 * Picks `numCPUs` CPUs of `available` the way 1.23's static policy packs them: whole sockets first
 * (when at least a socket's worth is still needed), then whole physical cores (when at least a
 * core's worth is needed), then single hyper-threads. Sockets are visited with the fewest
 * available CPUs first, then by id; cores likewise within their socket, so allocations fill
 * partly used sockets and cores before breaking into free ones. Pure.
 * @throws NotEnoughCPUsError when `available` holds fewer than `numCPUs` CPUs.
 * @see pkg/kubelet/cm/cpumanager/cpu_assignment.go (takeByTopologyNUMAPacked, cpuAccumulator) in kubernetes/kubernetes v1.23
 */
export function takeByTopology(topo: CPUTopology, available: CPUSet, numCPUs: number): CPUSet {
  let free = intersection(available, topo.cpus());
  let result: CPUSet = [];
  let needed = numCPUs;
  if (needed <= 0) return [];
  if (needed > free.length) throw new NotEnoughCPUsError();
  const take = (cpus: CPUSet): void => {
    result = union(result, cpus);
    free = difference(free, cpus);
    needed -= cpus.length;
  };
  const socketOf = (cpu: number) => topo.details.get(cpu)?.socketID ?? 0;
  const coreOf = (cpu: number) => topo.details.get(cpu)?.coreID ?? cpu;
  const freeIn = (pick: (cpu: number) => boolean) => free.filter(pick).length;
  const sockets = () => cpuSetOf(free.map(socketOf));
  const sortedSockets = () => [...sockets()].sort((a, b) => freeIn((c) => socketOf(c) === a) - freeIn((c) => socketOf(c) === b) || a - b);
  const sortedCores = () =>
    sortedSockets().flatMap((s) => {
      const cores = cpuSetOf(free.filter((c) => socketOf(c) === s).map(coreOf));
      return [...cores].sort((a, b) => freeIn((c) => coreOf(c) === a) - freeIn((c) => coreOf(c) === b) || a - b);
    });
  // 1. Whole sockets.
  const perSocket = topo.cpusPerSocket();
  for (const s of [...sockets()].sort((a, b) => a - b)) {
    if (needed < perSocket || perSocket === 0) break;
    const cpus = topo.cpusWhere((d) => d.socketID === s);
    if (intersection(cpus, free).length === cpus.length) take(cpus);
  }
  if (needed === 0) return result;
  // 2. Whole cores.
  const perCore = topo.cpusPerCore();
  for (const core of sortedCores()) {
    if (needed < perCore || perCore === 0) break;
    const cpus = topo.cpusWhere((d) => d.coreID === core);
    if (intersection(cpus, free).length === cpus.length) take(cpus);
  }
  if (needed === 0) return result;
  // 3. Single threads: partly used cores first.
  for (const core of sortedCores()) {
    for (const cpu of free.filter((c) => coreOf(c) === core)) {
      take([cpu]);
      if (needed === 0) return result;
    }
  }
  throw new Error("failed to allocate cpus");
}
