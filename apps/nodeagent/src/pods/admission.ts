import type { Node, Pod } from "@skiff/api-types";
import { findMatchingUntoleratedTaint, hostPortsFit, podHostPorts, requiredNodeAffinityMatches } from "@skiff/component-helpers";
import { podRequestsAndLimits, valueOfMilli } from "./resources.js";

/** What a node can give pods (its `allocatable`); absent resources are not checked. */
export interface AdmissionAllocatable {
  /** CPU in milli-cores. */
  readonly cpuMilli?: bigint;
  /** Memory in bytes. */
  readonly memoryBytes?: bigint;
  /** How many pods may run. */
  readonly pods: number;
  /** Ephemeral storage in bytes (`--root-dir`'s filesystem). */
  readonly ephemeralStorageBytes?: bigint;
  /** Hugepages by resource name (`hugepages-2Mi`) in bytes; a size absent here has none. Unchecked when absent. */
  readonly hugePages?: ReadonlyMap<string, bigint>;
  /**
   * Device plugin resources by name, in whole units (the device manager's allocatable, at least
   * what it has allocated: 1.23's sanitizeNodeAllocatable). A pod's request of an extended resource
   * absent here is not checked (removeMissingExtendedResources).
   */
  readonly extendedResources?: ReadonlyMap<string, bigint>;
}

/** The outcome of {@link admitPod}: admitted, or the 1.23 reason (`OutOfpods`...) and message. */
export type AdmitResult = { readonly admit: true } | { readonly admit: false; readonly reason: string; readonly message: string };

/** The node's operating system as Go's `runtime.GOOS` names it (`linux`, `windows`, `darwin`...). */
export const nodeOS: string = process.platform === "win32" ? "windows" : process.platform;

/**
 * The node agent's OS admission, checked before resources: a pod whose own `example.io/os` label
 * (its metadata label, not its node selector, as 1.23 reads it) names another OS than the node's is
 * refused with `PodOSSelectorNodeLabelDoesNotMatch`; a pod whose `spec.os.name` is not the node's OS
 * with `PodOSNotSupported`. The node's own label does not matter: 1.23 treats it as `runtime.GOOS`.
 * Pure.
 * @param os - the node's OS ({@link nodeOS}).
 * @see pkg/kubelet/lifecycle/predicate.go (rejectPodAdmissionBasedOnOSSelector,
 *   rejectPodAdmissionBasedOnOSField) in kubernetes/kubernetes v1.23
 */
export function admitPodOS(pod: Pod, os: string = nodeOS): AdmitResult {
  const label = pod.metadata?.labels?.["example.io/os"];
  if (label !== undefined && label !== os) {
    return { admit: false, reason: "PodOSSelectorNodeLabelDoesNotMatch", message: "Failed to admit pod as the `example.io/os` label doesn't match node label" };
  }
  if (pod.spec?.os !== undefined && pod.spec.os.name !== os) {
    return { admit: false, reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS" };
  }
  return { admit: true };
}

/**
 * A resource the node lacks for a pod (1.23's `InsufficientResourceError`): CPU in milli-cores,
 * memory, ephemeral storage and hugepages in bytes, pods and device plugin resources in units.
 */
export interface InsufficientResource {
  readonly resourceName: string;
  readonly requested: bigint;
  readonly used: bigint;
  readonly capacity: bigint;
}

/**
 * Every resource `pod` asks for more of than the node has left after the `active` pods already
 * admitted (the new pod never among them), in 1.23's order: the pod count (`len(active) + 1 >
 * pods`), CPU and memory requests (the pod's effective requests: containers summed, init
 * containers' maximum, overhead), ephemeral storage, each `hugepages-<size>` request, then each
 * device plugin resource's. A pod requesting none of them only needs a pod slot. Empty: it fits.
 * Pure.
 * @see pkg/scheduler/framework/plugins/noderesources/fit.go (fitsRequest) in kubernetes/kubernetes v1.23
 */
export function insufficientResources(pod: Pod, active: readonly Pod[], allocatable: AdmissionAllocatable): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  const lack = (resourceName: string, requested: bigint, used: bigint, capacity: bigint) => out.push({ resourceName, requested, used, capacity });
  if (active.length + 1 > allocatable.pods) lack("pods", 1n, BigInt(active.length), BigInt(allocatable.pods));
  const want = podRequestsAndLimits(pod).requests;
  const cpu = want.get("cpu") ?? 0n;
  const memory = valueOfMilli(want.get("memory") ?? 0n);
  const storage = valueOfMilli(want.get("ephemeral-storage") ?? 0n);
  const hugeWanted = [...want].filter(([name, milli]) => name.startsWith("hugepages-") && milli > 0n);
  const extendedWanted = [...want].filter(([name, milli]) => allocatable.extendedResources?.has(name) === true && milli > 0n);
  if (cpu === 0n && memory === 0n && storage === 0n && hugeWanted.length === 0 && extendedWanted.length === 0) return out;
  let usedCPU = 0n;
  let usedMemory = 0n;
  let usedStorage = 0n;
  for (const p of active) {
    const r = podRequestsAndLimits(p).requests;
    usedCPU += r.get("cpu") ?? 0n;
    usedMemory += valueOfMilli(r.get("memory") ?? 0n);
    usedStorage += valueOfMilli(r.get("ephemeral-storage") ?? 0n);
  }
  if (allocatable.cpuMilli !== undefined && cpu > allocatable.cpuMilli - usedCPU) lack("cpu", cpu, usedCPU, allocatable.cpuMilli);
  if (allocatable.memoryBytes !== undefined && memory > allocatable.memoryBytes - usedMemory) lack("memory", memory, usedMemory, allocatable.memoryBytes);
  const eph = allocatable.ephemeralStorageBytes;
  if (eph !== undefined && storage > eph - usedStorage) lack("ephemeral-storage", storage, usedStorage, eph);
  const scalar = (name: string, milli: bigint, capacity: bigint) => {
    const requested = valueOfMilli(milli);
    const used = active.reduce((sum, p) => sum + valueOfMilli(podRequestsAndLimits(p).requests.get(name) ?? 0n), 0n);
    if (requested > capacity - used) lack(name, requested, used, capacity);
  };
  if (allocatable.hugePages !== undefined) {
    for (const [name, milli] of hugeWanted.sort(([a], [b]) => (a < b ? -1 : 1))) scalar(name, milli, allocatable.hugePages.get(name) ?? 0n);
  }
  for (const [name, milli] of extendedWanted.sort(([a], [b]) => (a < b ? -1 : 1))) scalar(name, milli, allocatable.extendedResources?.get(name) ?? 0n);
  return out;
}

/** 1.23's outcome of an insufficient resource: reason `OutOf<resource>`, message `Node didn't have enough resource: ...`. */
export function insufficientResourceResult(r: InsufficientResource): AdmitResult {
  return { admit: false, reason: `OutOf${r.resourceName}`, message: `Node didn't have enough resource: ${r.resourceName}, requested: ${r.requested}, used: ${r.used}, capacity: ${r.capacity}` };
}

/**
 * The node agent's resource admission of `pod` against the `active` pods already admitted: the
 * first of {@link insufficientResources} is the answer, reason `OutOf<resource>`, message
 * `Node didn't have enough resource: <resource>, requested: <n>, used: <n>, capacity: <n>` (CPU in
 * milli-cores, memory in bytes). Pure.
 * @see pkg/kubelet/lifecycle/predicate.go (Admit), pkg/scheduler/framework/plugins/noderesources/fit.go
 *   (fitsRequest, InsufficientResourceError) in kubernetes/kubernetes v1.23
 */
export function admitPod(pod: Pod, active: readonly Pod[], allocatable: AdmissionAllocatable): AdmitResult {
  const [first] = insufficientResources(pod, active, allocatable);
  return first === undefined ? { admit: true } : insufficientResourceResult(first);
}

/** The reason of a pod refused by one of {@link admitPodOnNode}'s checks: 1.23's scheduler plugin name. */
export type NodePredicateName = "NodeAffinity" | "NodeName" | "NodePorts" | "TaintToleration";

function predicateFailure(name: NodePredicateName): AdmitResult {
  return { admit: false, reason: name, message: `Predicate ${name} failed` };
}

/**
 * The node checks of the node agent's predicate admission (1.23's `generalFilter` after the
 * resource fit), in 1.23's order, the first failure being the answer:
 * - `NodeAffinity`: the node's labels satisfy the pod's `nodeSelector` and required node affinity;
 * - `NodeName`: the pod's `spec.nodeName`, when set, is the node's name;
 * - `NodePorts`: the host ports of the pod's app containers are free among those of `active`;
 * - `TaintToleration`: every `NoExecute` taint of the node is tolerated (not checked for static
 *   pods; `NoSchedule` taints are the scheduler's business, not the node's).
 * Reason: the check's name; message `Predicate <name> failed` (1.23's `PredicateFailureError`).
 * Pure.
 * @param node - the Node as the agent last saw it (its informer's, else the node built from the flags).
 * @param active - the other pods admitted and not finished (never `pod` itself).
 * @param isStatic - whether `pod` comes from a file or HTTP source.
 * @see pkg/kubelet/lifecycle/predicate.go (generalFilter, PredicateFailureError) in kubernetes/kubernetes v1.23
 * @see pkg/scheduler/framework/plugins/{nodeaffinity,nodename,nodeports} in kubernetes/kubernetes v1.23
 */
export function admitPodOnNode(pod: Pod, node: Node, active: readonly Pod[], isStatic: boolean): AdmitResult {
  if (!requiredNodeAffinityMatches(pod, node)) return predicateFailure("NodeAffinity");
  const nodeName = pod.spec?.nodeName ?? "";
  if (nodeName !== "" && nodeName !== (node.metadata?.name ?? "")) return predicateFailure("NodeName");
  if (!hostPortsFit(podHostPorts(pod), active)) return predicateFailure("NodePorts");
  if (!isStatic && findMatchingUntoleratedTaint(node.spec?.taints, pod.spec?.tolerations, (t) => t.effect === "NoExecute") !== undefined) return predicateFailure("TaintToleration");
  return { admit: true };
}
