/**
 * What a pod asks for, as the kubelet 1.23 turns it into numbers: the pod's QoS class, the
 * container's CRI `LinuxContainerResources` (CPU shares, CFS quota and period, memory limit, OOM
 * score adjustment) and the pod's summed requests and limits.
 *
 * Quantities are handled as exact milli-units (`bigint`): `milli(cpu)` is milli-cores, memory's
 * `Value()` (bytes, rounded up) is `ceil(milli / 1000)`.
 *
 * @see pkg/apis/core/v1/helper/qos/qos.go, pkg/kubelet/qos/policy.go,
 *   pkg/kubelet/kuberuntime/kuberuntime_container_linux.go, pkg/kubelet/kuberuntime/helpers_linux.go,
 *   pkg/api/v1/resource/helpers.go in kubernetes/kubernetes v1.23
 */
import type { Container, Pod } from "@skiff/api-types";
import { ConfigHashAnnotation, ConfigMirrorAnnotation, ConfigSourceAnnotation } from "@skiff/api-types";
import type { LinuxContainerResources } from "@skiff/cri-api";
import { parseQuantity, quantityMilliValue } from "@skiff/flags";

/** A pod's QoS class (`status.qosClass`). */
export type PodQOSClass = "Guaranteed" | "Burstable" | "BestEffort";

/** Resource name → milli-units (milli-cores for `cpu`, milli-bytes for `memory`). */
export type MilliResourceList = Map<string, bigint>;

/** CPU shares bounds and units of the CFS scheduler. */
export const minShares = 2n;
/** The largest `cpu.shares` the kernel accepts (the container manager's cap). */
export const maxShares = 262144n;
const sharesPerCPU = 1024n;
const milliCPUToCPU = 1000n;
/** The CFS period the kubelet uses unless `CustomCPUCFSQuotaPeriod` is on, in µs. */
export const defaultQuotaPeriodUs = 100_000n;
/** The smallest CFS quota the kubelet sets, in µs. */
export const minQuotaPeriodUs = 1_000n;

/** OOM score adjustment of Guaranteed (and node-critical) containers. */
export const guaranteedOOMScoreAdj = -997;
/** OOM score adjustment of BestEffort containers. */
export const besteffortOOMScoreAdj = 1000;

/** `system-node-critical`, the priority class whose critical pods are killed last. */
const systemNodeCritical = "system-node-critical";
/** Pods at or above this priority are critical (`scheduling.SystemCriticalPriority`). */
const systemCriticalPriority = 2_000_000_000;

/**
 * A quantity's milli value (Kubernetes `MilliValue()`, rounded up), or `undefined` when the text
 * does not parse (the API server validates quantities; a bad one from a static file counts as absent).
 */
export function milliOf(q: string | number | undefined): bigint | undefined {
  if (q === undefined) return undefined;
  const r = parseQuantity(String(q));
  if (!r.ok) return undefined;
  try {
    return quantityMilliValue(r.value);
  } catch {
    return undefined;
  }
}

/** `Value()` of a milli amount: whole units, rounded up. */
export function valueOfMilli(milli: bigint): bigint {
  return milli <= 0n ? -(-milli / 1000n) : (milli + 999n) / 1000n;
}

function listOf(rl: Readonly<Record<string, string | number>> | undefined): Array<[string, bigint]> {
  const out: Array<[string, bigint]> = [];
  for (const [name, q] of Object.entries(rl ?? {})) {
    const m = milliOf(q);
    if (m !== undefined) out.push([name, m]);
  }
  return out;
}

function isSupportedQoSComputeResource(name: string): boolean {
  return name === "cpu" || name === "memory" || name.startsWith("hugepages-");
}

/**
 * The QoS class of `pod`: BestEffort when no container (init containers included) requests or
 * limits cpu, memory or hugepages; Guaranteed when every container limits cpu and memory and the
 * summed requests equal the summed limits for every resource; Burstable otherwise. Zero
 * quantities count as absent. Does not mutate `pod`.
 * @see pkg/apis/core/v1/helper/qos/qos.go (GetPodQOS) in kubernetes/kubernetes v1.23
 */
export function podQOSClass(pod: Pod): PodQOSClass {
  const requests: MilliResourceList = new Map();
  const limits: MilliResourceList = new Map();
  let isGuaranteed = true;
  const spec = pod.spec ?? { containers: [] };
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    for (const [name, m] of listOf(c.resources?.requests)) {
      if (!isSupportedQoSComputeResource(name) || m <= 0n) continue;
      requests.set(name, (requests.get(name) ?? 0n) + m);
    }
    const found = new Set<string>();
    for (const [name, m] of listOf(c.resources?.limits)) {
      if (!isSupportedQoSComputeResource(name) || m <= 0n) continue;
      found.add(name);
      limits.set(name, (limits.get(name) ?? 0n) + m);
    }
    if (!found.has("memory") || !found.has("cpu")) isGuaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (isGuaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        isGuaranteed = false;
        break;
      }
    }
  }
  return isGuaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}

/**
 * The pod's effective requests and limits: the sum over its containers, raised to the largest
 * init container's value per resource, plus `spec.overhead` (added to limits only where a limit
 * exists; gate PodOverhead, on in 1.23). Milli-units. Does not mutate `pod`.
 * @see pkg/api/v1/resource/helpers.go (PodRequestsAndLimits) in kubernetes/kubernetes v1.23
 */
export function podRequestsAndLimits(pod: Pod, podOverhead = true): { requests: MilliResourceList; limits: MilliResourceList } {
  const requests: MilliResourceList = new Map();
  const limits: MilliResourceList = new Map();
  const spec = pod.spec ?? { containers: [] };
  for (const c of spec.containers) {
    for (const [n, m] of listOf(c.resources?.requests)) requests.set(n, (requests.get(n) ?? 0n) + m);
    for (const [n, m] of listOf(c.resources?.limits)) limits.set(n, (limits.get(n) ?? 0n) + m);
  }
  for (const c of spec.initContainers ?? []) {
    for (const [n, m] of listOf(c.resources?.requests)) if (m > (requests.get(n) ?? -1n)) requests.set(n, m);
    for (const [n, m] of listOf(c.resources?.limits)) if (m > (limits.get(n) ?? -1n)) limits.set(n, m);
  }
  if (podOverhead) {
    // spec.overhead is not in Skiff's Pod type (set by RuntimeClass admission upstream); honoured when present.
    for (const [n, m] of listOf((spec as { overhead?: Record<string, string> }).overhead)) {
      requests.set(n, (requests.get(n) ?? 0n) + m);
      const l = limits.get(n);
      if (l !== undefined) limits.set(n, l + m);
    }
  }
  return { requests, limits };
}

/**
 * CPU shares of a container (kuberuntime): `milliCPU × 1024 / 1000`, at least 2 (0 → 2); no
 * upper bound (the runtime caps it).
 * @see pkg/kubelet/kuberuntime/helpers_linux.go (milliCPUToShares) in kubernetes/kubernetes v1.23
 */
export function milliCPUToShares(milliCPU: bigint): bigint {
  if (milliCPU === 0n) return minShares;
  const shares = (milliCPU * sharesPerCPU) / milliCPUToCPU;
  return shares < minShares ? minShares : shares;
}

/**
 * CFS quota in µs for `milliCPU` over `periodUs`: `milliCPU × period / 1000`, at least 1000 µs;
 * 0 when `milliCPU` is 0 (no limit).
 * @see pkg/kubelet/kuberuntime/helpers_linux.go (milliCPUToQuota) in kubernetes/kubernetes v1.23
 */
export function milliCPUToQuota(milliCPU: bigint, periodUs: bigint): bigint {
  if (milliCPU === 0n) return 0n;
  const quota = (milliCPU * periodUs) / milliCPUToCPU;
  return quota < minQuotaPeriodUs ? minQuotaPeriodUs : quota;
}

/**
 * Whether the pod is a static pod (config source not `api`), a mirror pod, or has a priority of
 * 2000000000 or more.
 * @see pkg/kubelet/types/pod_update.go (IsCriticalPod) in kubernetes/kubernetes v1.23
 */
export function isCriticalPod(pod: Pod): boolean {
  const a = pod.metadata?.annotations ?? {};
  const source = a[ConfigSourceAnnotation];
  const isStatic = source !== undefined ? source !== "api" : a[ConfigHashAnnotation] !== undefined;
  if (isStatic || a[ConfigMirrorAnnotation] !== undefined) return true;
  const p = pod.spec?.priority;
  return p !== undefined && p >= systemCriticalPriority;
}

/**
 * The OOM score adjustment of a container: node-critical pods (critical and priority class
 * `system-node-critical`) and Guaranteed pods −997, BestEffort 1000, Burstable
 * `1000 − 1000 × memoryRequest / memoryCapacity` kept within [3, 999] (3 = 1000 − 997, so a
 * Burstable container always ranks above Guaranteed ones; 999 below BestEffort ones).
 * @param memoryCapacityBytes the node's memory capacity (> 0).
 * @see pkg/kubelet/qos/policy.go (GetContainerOOMScoreAdjust) in kubernetes/kubernetes v1.23
 */
export function containerOOMScoreAdjust(pod: Pod, container: Container, memoryCapacityBytes: bigint): number {
  if (isCriticalPod(pod) && pod.spec?.priorityClassName === systemNodeCritical) return guaranteedOOMScoreAdj;
  const qos = podQOSClass(pod);
  if (qos === "Guaranteed") return guaranteedOOMScoreAdj;
  if (qos === "BestEffort") return besteffortOOMScoreAdj;
  const requestMilli = milliOf(container.resources?.requests?.memory) ?? 0n;
  const memoryRequest = valueOfMilli(requestMilli);
  const capacity = memoryCapacityBytes > 0n ? memoryCapacityBytes : 1n;
  const adjust = 1000n - (1000n * memoryRequest) / capacity;
  if (adjust < BigInt(1000 + guaranteedOOMScoreAdj)) return 1000 + guaranteedOOMScoreAdj;
  if (adjust === BigInt(besteffortOOMScoreAdj)) return besteffortOOMScoreAdj - 1;
  return Number(adjust);
}

/** What {@link containerResources} needs besides the pod. */
export interface ContainerResourceSettings {
  /** The node's memory capacity in bytes (for Burstable OOM scores). */
  readonly memoryCapacityBytes: bigint;
  /** `--cpu-cfs-quota`: set `cpu_quota`/`cpu_period`. @defaultValue true */
  readonly cpuCFSQuota?: boolean;
  /** `--cpu-cfs-quota-period` in µs; used only with {@link customCPUCFSQuotaPeriod}. @defaultValue 100000 */
  readonly cpuCFSQuotaPeriodUs?: bigint;
  /** The `CustomCPUCFSQuotaPeriod` gate. @defaultValue false */
  readonly customCPUCFSQuotaPeriod?: boolean;
  /** The machine's hugepage sizes (`1GB`, `2MB`, libcontainer's HugePageSizes). @defaultValue none */
  readonly hugePageSizes?: readonly string[];
  /**
   * The `NodeSwap` gate: `memory_swap_limit_in_bytes` equals the memory limit (1.23's default
   * `LimitedSwap` behaviour: no swap beyond the limit; 0 without one). @defaultValue false
   */
  readonly nodeSwap?: boolean;
}

const hugePageUnits = ["B", "KB", "MB", "GB", "TB", "PB"];

// HugePageUnitSizeFromByteSize: undefined when the size does not reduce to a whole unit.
function hugePageUnitSizeOf(bytes: bigint): string | undefined {
  let size = bytes;
  let idx = 0;
  while (size % 1024n === 0n && size !== 0n && idx < hugePageUnits.length - 1) {
    size /= 1024n;
    idx++;
  }
  return size > 1024n ? undefined : `${size}${hugePageUnits[idx]}`;
}

/**
 * The CRI `hugepage_limits` of a container: one entry per page size of the machine, limited to
 * the container's `hugepages-<size>` limit in bytes, else 0 (a limit of a size the machine lacks
 * is not listed).
 * @see pkg/kubelet/kuberuntime/kuberuntime_container_linux.go (GetHugepageLimitsFromResources) in kubernetes/kubernetes v1.23
 */
export function hugepageLimitsOf(container: Container, pageSizes: readonly string[]): Array<{ pageSize: string; limit: string }> {
  const required = new Map<string, bigint>();
  for (const [name, v] of Object.entries(container.resources?.limits ?? {})) {
    if (!name.startsWith("hugepages-")) continue;
    const size = milliOf(name.slice("hugepages-".length));
    const amount = milliOf(v);
    if (size === undefined || amount === undefined || size <= 0n) continue;
    const text = hugePageUnitSizeOf(valueOfMilli(size));
    if (text !== undefined) required.set(text, valueOfMilli(amount));
  }
  return pageSizes.map((pageSize) => ({ pageSize, limit: String(required.get(pageSize) ?? 0n) }));
}

/**
 * The CRI `LinuxContainerResources` of `container` in `pod`: `cpuShares` from the CPU request
 * (the limit when only a limit is set; 2 when neither), `memoryLimitInBytes` when a memory limit
 * is set, `oomScoreAdj` by {@link containerOOMScoreAdjust}, and with `cpuCFSQuota`: `cpuPeriod`
 * (100000 µs, or `--cpu-cfs-quota-period` with `CustomCPUCFSQuotaPeriod`) and `cpuQuota` from
 * the CPU limit (0 = unlimited), `hugepageLimits` by {@link hugepageLimitsOf} for the machine's page
 * sizes (omitted when it has none). Numbers are decimal strings (CRI int64).
 * Does not mutate its inputs.
 * @see pkg/kubelet/kuberuntime/kuberuntime_container_linux.go (generateLinuxContainerConfig) in kubernetes/kubernetes v1.23
 */
export function containerResources(pod: Pod, container: Container, s: ContainerResourceSettings): LinuxContainerResources {
  const cpuRequest = milliOf(container.resources?.requests?.cpu) ?? 0n;
  const cpuLimit = milliOf(container.resources?.limits?.cpu) ?? 0n;
  const memoryLimit = valueOfMilli(milliOf(container.resources?.limits?.memory) ?? 0n);
  const cpuShares = cpuRequest === 0n && cpuLimit !== 0n ? milliCPUToShares(cpuLimit) : milliCPUToShares(cpuRequest);
  const r: LinuxContainerResources = { cpuShares: String(cpuShares), oomScoreAdj: String(containerOOMScoreAdjust(pod, container, s.memoryCapacityBytes)) };
  if (memoryLimit !== 0n) r.memoryLimitInBytes = String(memoryLimit);
  if (s.cpuCFSQuota ?? true) {
    const period = s.customCPUCFSQuotaPeriod === true ? (s.cpuCFSQuotaPeriodUs ?? defaultQuotaPeriodUs) : defaultQuotaPeriodUs;
    r.cpuQuota = String(milliCPUToQuota(cpuLimit, period));
    r.cpuPeriod = String(period);
  }
  const sizes = s.hugePageSizes ?? [];
  if (sizes.length > 0) r.hugepageLimits = hugepageLimitsOf(container, sizes);
  if (s.nodeSwap === true) r.memorySwapLimitInBytes = r.memoryLimitInBytes ?? "0";
  return r;
}
