/**
 * Preemption, as 1.23's DefaultPreemption PostFilter plugin: when a pod fits on no node, find the
 * node where deleting the fewest, least important pods of lower priority makes it fit.
 *
 * - Eligibility: a pod with `preemptionPolicy: Never` never preempts; a pod already nominated to
 *   a node where a lower-priority pod is still terminating waits for it (it preempted already).
 * - Only nodes whose failure preemption can resolve are tried: too many pods, insufficient cpu or
 *   memory, host ports, pod anti-affinity (its own or the existing pods'), topology spread skew.
 *   Node selector, affinity, taints, unschedulable nodes, a missing topology key and pod affinity
 *   are "Preemption is not helpful for scheduling".
 * - Per node: every pod of lower priority is removed; if the pod then fits, victims are reprieved
 *   most important first (higher priority, then earlier start) while the pod still fits.
 * - Among the nodes with victims: the lowest highest-victim priority, then the lowest sum of
 *   victim priorities, then the fewest victims, then the latest start of the highest-priority
 *   victims, then the first node by name.
 *
 * Skiff has no PodDisruptionBudgets, so no candidate violates one. 1.23 dry-runs a random sample
 * of at least 100 nodes (10 %) starting at a random offset; Skiff tries every node that might help,
 * in name order, so the choice is deterministic.
 *
 * @see pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (SelectVictimsOnNode, PodEligibleToPreemptOthers)
 * @see pkg/scheduler/framework/preemption/preemption.go (Evaluator.Preempt, findCandidates, pickOneNodeForPreemption, nodesWherePreemptionMightHelp)
 * @see pkg/scheduler/util/utils.go (MoreImportantPod, GetEarliestPodStartTime) in kubernetes/kubernetes v1.23
 */

import type { Pod } from "@skiff/api-types";
import { reasonAntiAffinityRulesNotMatch, reasonExistingAntiAffinityRulesNotMatch, reasonNodePorts, reasonTopologySpreadNotMatch } from "./inter-pod.js";
import type { NodeInfo } from "./predicates.js";
import { addPodsToNodeInfo, formatFitError, newNodeInfo, reasonTooManyPods } from "./predicates.js";

/** The status of a node preemption cannot help on (1.23's `nodesWherePreemptionMightHelp`). */
export const reasonPreemptionNotHelpful = "Preemption is not helpful for scheduling";

// Reasons of the filters whose failure is Unschedulable (not UnschedulableAndUnresolvable) in 1.23:
// removing pods from the node may resolve them.
const resolvableReasons = new Set([reasonTooManyPods, "Insufficient cpu", "Insufficient memory", reasonNodePorts, reasonAntiAffinityRulesNotMatch, reasonExistingAntiAffinityRulesNotMatch, reasonTopologySpreadNotMatch]);

/** A pod's priority: `spec.priority`, 0 when unset (1.23's `corev1helpers.PodPriority`). */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

// A pod's start time in ms since the epoch; a pod not started yet counts as starting now (1.23's GetPodStartTime).
function startTimeMs(pod: Pod, nowMs: number): number {
  const t = pod.status?.startTime;
  const ms = t ? Date.parse(t) : Number.NaN;
  return Number.isNaN(ms) ? nowMs : ms;
}

/** Whether `a` is more important than `b`: higher priority, then the earlier start (1.23's `MoreImportantPod`). */
export function moreImportantPod(a: Pod, b: Pod, nowMs: number = Date.now()): boolean {
  const pa = podPriority(a);
  const pb = podPriority(b);
  if (pa !== pb) return pa > pb;
  return startTimeMs(a, nowMs) < startTimeMs(b, nowMs);
}

/**
 * Whether `pod` may preempt others now: not with `preemptionPolicy: Never`; not while a pod of
 * lower priority is terminating on the node it is nominated to (unless that node now fails for a
 * reason preemption cannot help).
 * @param nominatedNodeReasons the filter reasons of the pod's nominated node in this cycle, if any
 */
export function podEligibleToPreemptOthers(pod: Pod, infos: readonly NodeInfo[], nominatedNodeReasons: readonly string[] | undefined): boolean {
  if (pod.spec?.preemptionPolicy === "Never") return false;
  const nominated = pod.status?.nominatedNodeName ?? "";
  if (nominated === "") return true;
  if (nominatedNodeReasons !== undefined && nominatedNodeReasons.length > 0 && !resolvableReasons.has(nominatedNodeReasons[0] ?? "")) return true;
  const info = infos.find((i) => i.node.metadata?.name === nominated);
  const priority = podPriority(pod);
  return !(info?.pods.some((p) => p.metadata?.deletionTimestamp && podPriority(p) < priority) ?? false);
}

/** Filters `pod` on `info` within the snapshot `infos` (where `info` replaces its node's entry): the reasons, empty when it fits. */
export type PreemptionFilter = (pod: Pod, info: NodeInfo, infos: readonly NodeInfo[]) => string[];

/** The pods to delete on one node, most important first. */
export interface PreemptionCandidate {
  readonly nodeName: string;
  readonly victims: readonly Pod[];
}

/** What {@link preempt} found. */
export type PreemptionResult =
  /** The pod may not preempt (policy Never, or its earlier victims are still terminating): no message. */
  | { readonly outcome: "ineligible" }
  /**
   * No node: `message` is the FitError of the dry run (`0/3 nodes are available: 1 No victims
   * found on node n1 for preemptor pod p, 2 Preemption is not helpful for scheduling.`; 1.23 logs
   * it, 1.24 added it to the FailedScheduling message); `clearNomination` when no node could be
   * helped at all (1.23 then clears the pod's `nominatedNodeName`).
   */
  | { readonly outcome: "none"; readonly message: string; readonly clearNomination: boolean }
  | { readonly outcome: "candidate"; readonly candidate: PreemptionCandidate };

/**
 * Selects the victims on one node (1.23's `SelectVictimsOnNode` without PodDisruptionBudgets):
 * `{ victims }` most important first, or `{ reasons }` when no pod of lower priority is there
 * (`No victims found on node <node> for preemptor pod <pod>`) or the pod does not fit even
 * without them (the filter's reasons).
 */
export function selectVictimsOnNode(pod: Pod, info: NodeInfo, infos: readonly NodeInfo[], filter: PreemptionFilter, nowMs: number = Date.now()): { victims: Pod[] } | { reasons: string[] } {
  const priority = podPriority(pod);
  const potential = info.pods.filter((p) => podPriority(p) < priority);
  const nodeName = info.node.metadata?.name ?? "";
  if (potential.length === 0) return { reasons: [`No victims found on node ${nodeName} for preemptor pod ${pod.metadata?.name ?? ""}`] };
  const removed = new Set(potential);
  let current = newNodeInfo(info.node, info.pods.filter((p) => !removed.has(p)));
  const within = (candidate: NodeInfo) => infos.map((i) => (i === info || i.node.metadata?.name === nodeName ? candidate : i));
  const without = filter(pod, current, within(current));
  if (without.length > 0) return { reasons: without };
  potential.sort((a, b) => (moreImportantPod(a, b, nowMs) ? -1 : moreImportantPod(b, a, nowMs) ? 1 : 0));
  const victims: Pod[] = [];
  for (const p of potential) {
    const reprieved = addPodsToNodeInfo(current, [p]);
    if (filter(pod, reprieved, within(reprieved)).length === 0) current = reprieved;
    else victims.push(p);
  }
  return { victims };
}

// 1.23 adds MaxInt32+1 to each priority so negative priorities sum sensibly.
const priorityOffset = 2 ** 31;

/**
 * The candidate 1.23's `pickOneNodeForPreemption` picks; see the module comment for the order.
 * `candidates` in node-name order; undefined when empty.
 */
export function pickOneNodeForPreemption(candidates: readonly PreemptionCandidate[], nowMs: number = Date.now()): PreemptionCandidate | undefined {
  let best = [...candidates];
  const keepMin = (score: (c: PreemptionCandidate) => number) => {
    let min = Infinity;
    for (const c of best) min = Math.min(min, score(c));
    best = best.filter((c) => score(c) === min);
  };
  // Victims are most important first, so the first one has the highest priority.
  const highest = (c: PreemptionCandidate) => (c.victims.length === 0 ? -Infinity : podPriority(c.victims[0]!));
  keepMin(highest);
  if (best.length > 1) keepMin((c) => c.victims.reduce((s, v) => s + podPriority(v) + priorityOffset, 0));
  if (best.length > 1) keepMin((c) => c.victims.length);
  if (best.length > 1) {
    // The latest earliest-start among each node's highest-priority victims.
    keepMin((c) => {
      const top = highest(c);
      let earliest = Infinity;
      for (const v of c.victims) if (podPriority(v) === top) earliest = Math.min(earliest, startTimeMs(v, nowMs));
      return -earliest;
    });
  }
  return best[0];
}

/**
 * 1.23's preemption for a pod no node fits (see the module comment).
 * @param infos the cycle's snapshot, in node-name order
 * @param reasons the filter reasons of every node in this cycle, by node name
 * @param filter runs the filters of the cycle on a changed node
 */
export function preempt(pod: Pod, infos: readonly NodeInfo[], reasons: ReadonlyMap<string, readonly string[]>, filter: PreemptionFilter, nowMs: number = Date.now()): PreemptionResult {
  const nominated = pod.status?.nominatedNodeName;
  if (!podEligibleToPreemptOthers(pod, infos, nominated ? reasons.get(nominated) : undefined)) return { outcome: "ineligible" };
  const statuses: string[][] = [];
  const candidates: PreemptionCandidate[] = [];
  let tried = 0;
  for (const info of infos) {
    const name = info.node.metadata?.name ?? "";
    const r = reasons.get(name) ?? [];
    if (r.length > 0 && !resolvableReasons.has(r[0] ?? "")) {
      statuses.push([reasonPreemptionNotHelpful]);
      continue;
    }
    tried++;
    const selected = selectVictimsOnNode(pod, info, infos, filter, nowMs);
    if ("victims" in selected) candidates.push({ nodeName: name, victims: selected.victims });
    else statuses.push(selected.reasons);
  }
  const best = pickOneNodeForPreemption(candidates, nowMs);
  if (best === undefined) return { outcome: "none", message: formatFitError(statuses.length, statuses), clearNomination: tried === 0 };
  return { outcome: "candidate", candidate: best };
}
