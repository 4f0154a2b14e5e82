import type { Pod } from "@skiff/api-types";
import { defaultQuotaPeriodUs, maxShares, milliOf, minQuotaPeriodUs, minShares, podQOSClass, podRequestsAndLimits, valueOfMilli } from "../pods/resources.js";
import type { ResourceConfig } from "./cgroup-manager.js";
import { hugePageSizeOfResource } from "./hugepages.js";

/**
 * Hugetlb limits from a resource list (milli-units by name): page size in bytes → the summed
 * `hugepages-<size>` amounts in bytes.
 * @see pkg/kubelet/cm/helpers_linux.go (HugePageLimits) in kubernetes/kubernetes v1.23
 */
export function hugePageLimits(rl: ReadonlyMap<string, bigint>): Map<bigint, bigint> {
  const out = new Map<bigint, bigint>();
  for (const [name, milli] of rl) {
    const size = hugePageSizeOfResource(name);
    if (size === undefined) continue;
    out.set(size, (out.get(size) ?? 0n) + valueOfMilli(milli));
  }
  return out;
}

/**
 * CPU shares of a QoS or pod cgroup: `milliCPU × 1024 / 1000` within [2, 262144] (0 → 2).
 * @see pkg/kubelet/cm/helpers_linux.go (MilliCPUToShares) in kubernetes/kubernetes v1.23
 */
export function cgroupMilliCPUToShares(milliCPU: bigint): bigint {
  if (milliCPU === 0n) return minShares;
  const shares = (milliCPU * 1024n) / 1000n;
  if (shares < minShares) return minShares;
  return shares > maxShares ? maxShares : shares;
}

/**
 * CFS quota of a pod cgroup in µs: `milliCPU × period / 1000`, at least 1000; 0 for 0. The period
 * is 100000 µs unless `customPeriod` (gate CustomCPUCFSQuotaPeriod) is on.
 * @see pkg/kubelet/cm/helpers_linux.go (MilliCPUToQuota) in kubernetes/kubernetes v1.23
 */
export function cgroupMilliCPUToQuota(milliCPU: bigint, periodUs: bigint, customPeriod: boolean): bigint {
  if (milliCPU === 0n) return 0n;
  const period = customPeriod ? periodUs : defaultQuotaPeriodUs;
  const quota = (milliCPU * period) / 1000n;
  return quota < minQuotaPeriodUs ? minQuotaPeriodUs : quota;
}

/** What {@link resourceConfigForPod} reads besides the pod. */
export interface PodCgroupSettings {
  /** `--cpu-cfs-quota`: enforce CPU limits (else quota −1). */
  readonly enforceCPULimits: boolean;
  /** `--cpu-cfs-quota-period` in µs. */
  readonly cpuPeriodUs: bigint;
  /** The CustomCPUCFSQuotaPeriod gate. */
  readonly customCPUCFSQuotaPeriod: boolean;
}

/**
 * The limits of a pod's cgroup: CPU shares from the summed CPU requests; Guaranteed pods also
 * get the CFS quota/period of the summed CPU limits and the summed memory limit; Burstable pods
 * get those only when every container (init containers too) declares that limit; BestEffort pods
 * get 2 shares only; every class gets the hugetlb limits of its summed hugepages requests. Without
 * `enforceCPULimits` the quota is −1. Does not mutate `pod`.
 * @see pkg/kubelet/cm/helpers_linux.go (ResourceConfigForPod) in kubernetes/kubernetes v1.23
 */
export function resourceConfigForPod(pod: Pod, s: PodCgroupSettings): ResourceConfig {
  const { requests, limits } = podRequestsAndLimits(pod);
  const cpuRequests = requests.get("cpu") ?? 0n;
  const cpuLimits = limits.get("cpu") ?? 0n;
  const memoryLimits = valueOfMilli(limits.get("memory") ?? 0n);
  const cpuShares = cgroupMilliCPUToShares(cpuRequests);
  let cpuQuota = cgroupMilliCPUToQuota(cpuLimits, s.cpuPeriodUs, s.customCPUCFSQuotaPeriod);
  let cpuLimitsDeclared = true;
  let memoryLimitsDeclared = true;
  const spec = pod.spec ?? { containers: [] };
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    if ((milliOf(c.resources?.limits?.cpu) ?? 0n) === 0n) cpuLimitsDeclared = false;
    if ((milliOf(c.resources?.limits?.memory) ?? 0n) === 0n) memoryLimitsDeclared = false;
  }
  if (!s.enforceCPULimits) cpuQuota = -1n;
  const cpuPeriod = s.cpuPeriodUs;
  const hugePageLimit = hugePageLimits(requests);
  switch (podQOSClass(pod)) {
    case "Guaranteed":
      return { cpuShares, cpuQuota, cpuPeriod, memory: memoryLimits, hugePageLimit };
    case "Burstable": {
      const rc: ResourceConfig = { cpuShares, hugePageLimit };
      if (cpuLimitsDeclared) {
        rc.cpuQuota = cpuQuota;
        rc.cpuPeriod = cpuPeriod;
      }
      if (memoryLimitsDeclared) rc.memory = memoryLimits;
      return rc;
    }
    default:
      return { cpuShares: minShares, hugePageLimit };
  }
}

/**
 * The limits of a reserved or node-allocatable cgroup from a resource list (milli-units): memory
 * in bytes, CPU as shares, `pid` as pids.max, `hugepages-<size>` as hugetlb limits; undefined for
 * an absent list.
 * @see pkg/kubelet/cm/node_container_manager_linux.go (getCgroupConfig) in kubernetes/kubernetes v1.23
 */
export function cgroupConfigOf(rl: ReadonlyMap<string, bigint> | undefined): ResourceConfig | undefined {
  if (rl === undefined) return undefined;
  const rc: ResourceConfig = {};
  const memory = rl.get("memory");
  if (memory !== undefined) rc.memory = valueOfMilli(memory);
  const cpu = rl.get("cpu");
  if (cpu !== undefined) rc.cpuShares = cgroupMilliCPUToShares(cpu);
  const pids = rl.get("pid");
  if (pids !== undefined) rc.pidsLimit = valueOfMilli(pids);
  rc.hugePageLimit = hugePageLimits(rl);
  return rc;
}
