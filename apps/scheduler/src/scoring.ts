/**
 * Scoring of feasible nodes: 1.23's NodeResourcesLeastAllocated (cpu and memory, weight 1 each)
 * and NodeResourcesBalancedAllocation (cpu and memory), plugin weight 1 each, and the choice of the
 * best node.
 *
 * @see pkg/scheduler/framework/plugins/noderesources/least_allocated.go in kubernetes/kubernetes v1.23
 * @see pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go in kubernetes/kubernetes v1.23
 * @see pkg/scheduler/framework/plugins/noderesources/resource_allocation.go in kubernetes/kubernetes v1.23
 */

import type { Pod } from "@skiff/api-types";
import type { NodeInfo } from "./predicates.js";
import { nodeAllocatable, podNonZeroRequests, podRequests } from "./predicates.js";

/** The highest node score. */
export const maxNodeScore = 100;

/** Weights of the resources in least-allocated scoring. @defaultValue cpu 1, memory 1 */
export interface ResourceWeights {
  readonly cpu: number;
  readonly memory: number;
}

function leastRequested(requested: number, capacity: number): number {
  if (capacity <= 0 || requested > capacity) return 0;
  return Math.floor(((capacity - requested) * maxNodeScore) / capacity);
}

/**
 * Least-allocated score of placing `pod` on the node (0..100, integer): per resource
 * `(allocatable - requested) * 100 / allocatable` (0 when over), where requested is the node's
 * pods' non-zero requests plus the pod's; then the weighted mean, rounded down as Go's int64
 * division.
 */
export function leastAllocatedScore(pod: Pod, info: NodeInfo, weights: ResourceWeights = { cpu: 1, memory: 1 }): number {
  const alloc = nodeAllocatable(info.node);
  const req = podNonZeroRequests(pod);
  const cpu = leastRequested(info.nonZeroRequested.milliCPU + req.milliCPU, alloc.milliCPU);
  const mem = leastRequested(info.nonZeroRequested.memoryBytes + req.memoryBytes, alloc.memoryBytes);
  const weightSum = weights.cpu + weights.memory;
  if (weightSum <= 0) return 0;
  return Math.floor((cpu * weights.cpu + mem * weights.memory) / weightSum);
}

/**
 * Balanced-allocation score of placing `pod` on the node (0..100, integer): the fractions
 * requested / allocatable of cpu and memory, counting requests as written (no non-zero defaults,
 * unlike least-allocated: the node's pods' requests plus the pod's, overhead included), each
 * fraction at most 1 (an allocatable of 0 counts as full when anything is requested); their
 * standard deviation `|cpu - memory| / 2`; then `trunc((1 - std) * 100)`. Nodes whose cpu and
 * memory would be used alike score higher.
 * @see pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go (`balancedResourceScorer`, `useRequested`) in kubernetes/kubernetes v1.23
 */
export function balancedAllocationScore(pod: Pod, info: NodeInfo): number {
  const alloc = nodeAllocatable(info.node);
  const req = podRequests(pod);
  const fraction = (requested: number, allocatable: number) => (allocatable <= 0 ? (requested > 0 ? 1 : 0) : Math.min(1, requested / allocatable));
  const cpu = fraction(info.requested.milliCPU + req.milliCPU, alloc.milliCPU);
  const mem = fraction(info.requested.memoryBytes + req.memoryBytes, alloc.memoryBytes);
  return Math.trunc((1 - Math.abs(cpu - mem) / 2) * maxNodeScore);
}

/**
 * The feasible node with the highest score: least-allocated plus balanced-allocation plus `extra[i]` for `feasible[i]` (the
 * preference scores of `./preference-scoring.ts`). Ties go to the node whose name sorts first, so
 * placement is deterministic (Kubernetes picks randomly among the tied nodes). `undefined` when
 * `feasible` is empty. Does not mutate its arguments.
 * @see pkg/scheduler/generic_scheduler.go (`selectHost`)
 */
export function selectNode(pod: Pod, feasible: readonly NodeInfo[], weights?: ResourceWeights, extra?: readonly number[]): { readonly nodeName: string; readonly score: number } | undefined {
  let best: { nodeName: string; score: number } | undefined;
  for (const [i, info] of feasible.entries()) {
    const nodeName = info.node.metadata?.name ?? "";
    const score = leastAllocatedScore(pod, info, weights) + balancedAllocationScore(pod, info) + (extra?.[i] ?? 0);
    if (!best || score > best.score || (score === best.score && nodeName < best.nodeName)) best = { nodeName, score };
  }
  return best;
}
