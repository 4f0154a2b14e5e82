/**
 * Filter predicates of the scheduler: pure functions deciding whether a pod fits a node, each
 * returning the failure reasons Kubernetes 1.23 reports (empty when the pod fits).
 *
 * @see pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
 * @see pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
 * @see pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
 * @see pkg/scheduler/framework/plugins/noderesources/fit.go
 * @see pkg/scheduler/framework/types.go (`FitError`)
 */

import type { Node, Pod, Taint } from "@skiff/api-types";
import { NodeUnschedulableTaintKey } from "@skiff/api-types";
import { findMatchingUntoleratedTaint, requiredNodeAffinityMatches, taintToleratedBy } from "@skiff/component-helpers";
import { parseQuantity, quantityMilliValue, quantityValue } from "@skiff/flags";

/** Reason of a node that is `spec.unschedulable` (and the pod does not tolerate it). */
export const reasonUnschedulable = "node(s) were unschedulable";
/** Reason of a node whose labels/name fail the pod's nodeSelector or required node affinity. */
export const reasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector";
/** Reason of a node with as many pods as its allocatable `pods`. */
export const reasonTooManyPods = "Too many pods";

/** The reason of an untolerated NoSchedule/NoExecute taint. */
export function formatTaintReason(taint: Taint): string {
  return `node(s) had taint {${taint.key}: ${taint.value ?? ""}}, that the pod didn't tolerate`;
}

/** Requests of a pod or capacity of a node: CPU in millicores, memory in bytes, pod count. */
export interface Resources {
  readonly milliCPU: number;
  readonly memoryBytes: number;
}

/** A node and what the pods already assigned to it use (non-terminated pods only). */
export interface NodeInfo {
  readonly node: Node;
  /** Sum of the requests of the pods on the node ({@link podRequests}). */
  readonly requested: Resources;
  /** Sum of the non-zero requests of the pods on the node ({@link podNonZeroRequests}), for scoring. */
  readonly nonZeroRequested: Resources;
  readonly podCount: number;
  /** The pods counted (non-terminated), for the filters that look at other pods (`./inter-pod.ts`). */
  readonly pods: readonly Pod[];
  /** Those of {@link pods} with pod affinity or anti-affinity rules (what the affinity scoring reads of a pod without its own). */
  readonly podsWithAffinity: readonly Pod[];
  /** Those of {@link pods} with required pod anti-affinity terms (the symmetric anti-affinity check reads only them). */
  readonly podsWithRequiredAntiAffinity: readonly Pod[];
}

function quantity(text: string | undefined, milli: boolean): number {
  if (text === undefined) return 0;
  const r = parseQuantity(String(text));
  if (!r.ok) return 0;
  return Number(milli ? quantityMilliValue(r.value) : quantityValue(r.value));
}

function containerRequests(c: { resources?: { requests?: Record<string, string> } }): Resources {
  const req = c.resources?.requests ?? {};
  return { milliCPU: quantity(req.cpu, true), memoryBytes: quantity(req.memory, false) };
}

/**
 * A pod's effective requests as 1.23's `computePodResourceRequest`: the sum over containers,
 * then per resource the max with each init container's; plus `spec.overhead`. Unparseable
 * quantities count as 0 (the apiserver rejects them).
 * @see pkg/scheduler/framework/plugins/noderesources/fit.go (`computePodResourceRequest`)
 */
export function podRequests(pod: Pod): Resources {
  let r = requestsOf.get(pod);
  if (r === undefined) requestsOf.set(pod, (r = computePodRequests(pod)));
  return r;
}

// Per object, computed once: the informers' objects are replaced on change, never mutated (a
// caller that mutates a pod it passed in gets the requests of its first state).
const requestsOf = new WeakMap<Pod, Resources>();
const nonZeroRequestsOf = new WeakMap<Pod, Resources>();
const allocatableOf = new WeakMap<Node, Resources & { readonly pods: number }>();

function computePodRequests(pod: Pod): Resources {
  let milliCPU = 0;
  let memoryBytes = 0;
  for (const c of pod.spec?.containers ?? []) {
    const r = containerRequests(c as never);
    milliCPU += r.milliCPU;
    memoryBytes += r.memoryBytes;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const r = containerRequests(c as never);
    milliCPU = Math.max(milliCPU, r.milliCPU);
    memoryBytes = Math.max(memoryBytes, r.memoryBytes);
  }
  const overhead = (pod.spec as { overhead?: Record<string, string> } | undefined)?.overhead;
  if (overhead) {
    milliCPU += quantity(overhead.cpu, true);
    memoryBytes += quantity(overhead.memory, false);
  }
  return { milliCPU, memoryBytes };
}

/** Default CPU request (millicores) scoring assumes for a container without one. */
export const defaultMilliCPURequest = 100;
/** Default memory request (bytes) scoring assumes for a container without one: 200 MiB. */
export const defaultMemoryRequestBytes = 200 * 1024 * 1024;

/**
 * Requests for scoring: as {@link podRequests} (overhead included) but a container with no cpu
 * (memory) request counts as 100m (200 MiB), so empty pods still spread.
 * @see pkg/scheduler/util/non_zero.go (`GetNonzeroRequests`)
 * @see pkg/scheduler/framework/plugins/noderesources/resource_allocation.go (`calculatePodResourceRequest`)
 * @see pkg/scheduler/framework/types.go (`calculateResource`) in kubernetes/kubernetes v1.23
 */
export function podNonZeroRequests(pod: Pod): Resources {
  let r = nonZeroRequestsOf.get(pod);
  if (r === undefined) nonZeroRequestsOf.set(pod, (r = computePodNonZeroRequests(pod)));
  return r;
}

function computePodNonZeroRequests(pod: Pod): Resources {
  const nonZero = (c: { resources?: { requests?: Record<string, string> } }): Resources => {
    const req = c.resources?.requests ?? {};
    return {
      milliCPU: req.cpu === undefined ? defaultMilliCPURequest : quantity(req.cpu, true),
      memoryBytes: req.memory === undefined ? defaultMemoryRequestBytes : quantity(req.memory, false),
    };
  };
  let milliCPU = 0;
  let memoryBytes = 0;
  for (const c of pod.spec?.containers ?? []) {
    const r = nonZero(c as never);
    milliCPU += r.milliCPU;
    memoryBytes += r.memoryBytes;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const r = nonZero(c as never);
    milliCPU = Math.max(milliCPU, r.milliCPU);
    memoryBytes = Math.max(memoryBytes, r.memoryBytes);
  }
  // The overhead adds as requested (a resource it does not name adds nothing), as calculateResource.
  const overhead = (pod.spec as { overhead?: Record<string, string> } | undefined)?.overhead;
  if (overhead) {
    milliCPU += quantity(overhead.cpu, true);
    memoryBytes += quantity(overhead.memory, false);
  }
  return { milliCPU, memoryBytes };
}

/** A node's allocatable cpu (millicores), memory (bytes) and pods (from `status.allocatable`, else `status.capacity`). */
export function nodeAllocatable(node: Node): Resources & { readonly pods: number } {
  let r = allocatableOf.get(node);
  if (r === undefined) allocatableOf.set(node, (r = computeNodeAllocatable(node)));
  return r;
}

function computeNodeAllocatable(node: Node): Resources & { readonly pods: number } {
  const a = (node.status?.allocatable ?? node.status?.capacity ?? {}) as Record<string, string>;
  return { milliCPU: quantity(a.cpu, true), memoryBytes: quantity(a.memory, false), pods: quantity(a.pods, false) };
}

/** Builds the {@link NodeInfo} of `node` from the pods assigned to it (terminated pods are skipped). */
export function newNodeInfo(node: Node, pods: readonly Pod[]): NodeInfo {
  return addPodsToNodeInfo({ node, requested: { milliCPU: 0, memoryBytes: 0 }, nonZeroRequested: { milliCPU: 0, memoryBytes: 0 }, podCount: 0, pods: [], podsWithAffinity: [], podsWithRequiredAntiAffinity: [] }, pods);
}

/** A new {@link NodeInfo}: `info` with `pods` counted on top (terminated pods are skipped). Does not mutate its arguments. */
export function addPodsToNodeInfo(info: NodeInfo, pods: readonly Pod[]): NodeInfo {
  let { milliCPU, memoryBytes } = info.requested;
  let nzCPU = info.nonZeroRequested.milliCPU;
  let nzMem = info.nonZeroRequested.memoryBytes;
  let podCount = info.podCount;
  const counted = [...info.pods];
  const withAffinity = [...info.podsWithAffinity];
  const withAnti = [...info.podsWithRequiredAntiAffinity];
  for (const p of pods) {
    if (p.status?.phase === "Succeeded" || p.status?.phase === "Failed") continue;
    counted.push(p);
    if (p.spec?.affinity?.podAffinity !== undefined || p.spec?.affinity?.podAntiAffinity !== undefined) withAffinity.push(p);
    if ((p.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0) withAnti.push(p);
    const r = podRequests(p);
    const nz = podNonZeroRequests(p);
    milliCPU += r.milliCPU;
    memoryBytes += r.memoryBytes;
    nzCPU += nz.milliCPU;
    nzMem += nz.memoryBytes;
    podCount++;
  }
  return { node: info.node, requested: { milliCPU, memoryBytes }, nonZeroRequested: { milliCPU: nzCPU, memoryBytes: nzMem }, podCount, pods: counted, podsWithAffinity: withAffinity, podsWithRequiredAntiAffinity: withAnti };
}

/**
 * NodeUnschedulable: a node with `spec.unschedulable` fits only pods tolerating
 * the unschedulable taint (`node.example.io/unschedulable:NoSchedule`).
 */
export function checkNodeUnschedulable(pod: Pod, node: Node): string[] {
  if (!node.spec?.unschedulable) return [];
  const taint: Taint = { key: NodeUnschedulableTaintKey, effect: "NoSchedule" };
  return taintToleratedBy(taint, pod.spec?.tolerations ?? []) ? [] : [reasonUnschedulable];
}

/**
 * TaintToleration: the first NoSchedule/NoExecute taint (in node order) no toleration of the pod
 * tolerates fails the node; PreferNoSchedule taints never filter. Only `spec.taints` counts, as in
 * 1.23: a node that is not Ready is kept from pods by the `node.example.io/not-ready:NoSchedule`
 * taint (the apiserver's TaintNodesByCondition admission puts it on every new Node, the node
 * lifecycle controller keeps it in step with the Ready condition), not by its conditions; a pod
 * tolerating that taint may land there.
 * @see pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (Filter) in kubernetes/kubernetes v1.23
 */
export function checkTaints(pod: Pod, node: Node): string[] {
  const taint = findMatchingUntoleratedTaint(node.spec?.taints, pod.spec?.tolerations, (t) => t.effect === "NoSchedule" || t.effect === "NoExecute");
  return taint === undefined ? [] : [formatTaintReason(taint)];
}

/**
 * NodeAffinity: the node's labels contain the pod's `nodeSelector`, and it matches one of the
 * terms of `requiredDuringSchedulingIgnoredDuringExecution` (terms are ORed), as
 * `requiredNodeAffinityMatches` of `@skiff/component-helpers` decides.
 */
export function checkNodeAffinity(pod: Pod, node: Node): string[] {
  return requiredNodeAffinityMatches(pod, node) ? [] : [reasonNodeAffinity];
}

/**
 * NodeResourcesFit: the pod count must stay within allocatable `pods`; each of cpu and memory
 * the pod requests must fit in allocatable minus what the node's pods request. Returns every
 * insufficient resource (`Too many pods`, `Insufficient cpu`, `Insufficient memory`).
 * @see pkg/scheduler/framework/plugins/noderesources/fit.go (`fitsRequest`)
 */
export function checkResources(pod: Pod, info: NodeInfo): string[] {
  const reasons: string[] = [];
  const alloc = nodeAllocatable(info.node);
  if (info.podCount + 1 > alloc.pods) reasons.push(reasonTooManyPods);
  const req = podRequests(pod);
  if (req.milliCPU === 0 && req.memoryBytes === 0) return reasons;
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - info.requested.milliCPU) reasons.push("Insufficient cpu");
  if (req.memoryBytes > 0 && req.memoryBytes > alloc.memoryBytes - info.requested.memoryBytes) reasons.push("Insufficient memory");
  return reasons;
}

/**
 * Runs the filters in 1.23's default plugin order (NodeUnschedulable, TaintToleration,
 * NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread, InterPodAffinity) and returns the
 * reasons of the first that fails (empty when the pod fits), as the framework stops at the first
 * failing filter of a node. `cluster`: the cycle's pre-filtered NodePorts, PodTopologySpread and
 * InterPodAffinity (`prepareClusterFilters` in `./inter-pod.ts`); those are skipped without it.
 */
export function filterNode(pod: Pod, info: NodeInfo, cluster?: { ports(info: NodeInfo): string[]; check(info: NodeInfo): string[] }): string[] {
  let reasons = checkNodeUnschedulable(pod, info.node);
  if (reasons.length === 0) reasons = checkTaints(pod, info.node);
  if (reasons.length === 0) reasons = checkNodeAffinity(pod, info.node);
  if (reasons.length === 0 && cluster) reasons = cluster.ports(info);
  if (reasons.length === 0) reasons = checkResources(pod, info);
  if (reasons.length === 0 && cluster) reasons = cluster.check(info);
  return reasons;
}

/** The FailedScheduling message when the cluster has no nodes. @see pkg/scheduler/generic_scheduler.go (`ErrNoNodesAvailable`) */
export const noNodesAvailableMessage = "no nodes available to schedule pods";

/**
 * The FailedScheduling message: `0/<n> nodes are available: ` then `<count> <reason>` for every
 * distinct reason, sorted as strings and joined with `, `, then `.`; with no nodes at all,
 * {@link noNodesAvailableMessage}.
 * @see pkg/scheduler/framework/types.go (`FitError.Error`)
 * @example
 * formatFitError(3, [["node(s) didn't match Pod's node affinity/selector"], ["Insufficient cpu"], ["Insufficient cpu"]])
 * // "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu."
 */
export function formatFitError(numNodes: number, reasonsPerNode: readonly (readonly string[])[]): string {
  if (numNodes === 0) return noNodesAvailableMessage;
  const counts = new Map<string, number>();
  for (const reasons of reasonsPerNode) for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts].map(([r, n]) => `${n} ${r}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `0/${numNodes} nodes are available${parts.length > 0 ? `: ${parts.join(", ")}` : ""}.`;
}
