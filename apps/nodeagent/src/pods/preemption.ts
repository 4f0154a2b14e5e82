/**
 * Critical pod admission: a critical pod (static, mirror, or priority ≥ 2000000000) refused only
 * for lack of resources is admitted after the node agent preempts other pods that free them.
 *
 * @see pkg/kubelet/preemption/preemption.go (CriticalPodAdmissionHandler) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/types/pod_update.go (IsCriticalPod, Preemptable) in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import type { InsufficientResource } from "./admission.js";
import { isCriticalPod, podQOSClass, podRequestsAndLimits, valueOfMilli } from "./resources.js";

/** The status message and event message of a preempted pod; its reason is `Preempting`. */
export const preemptionMessage = "Preempted in order to admit critical pod";

/** A resource amount still to free: CPU in milli-cores, pods in units, the rest in bytes or units. */
export interface AdmissionRequirement {
  readonly resourceName: string;
  readonly quantity: bigint;
}

/** The requirement an insufficient resource makes: `requested - (capacity - used)` (1.23's `GetInsufficientAmount`). */
export function requirementOf(r: InsufficientResource): AdmissionRequirement {
  return { resourceName: r.resourceName, quantity: r.requested - (r.capacity - r.used) };
}

/** A pod's request of one resource as 1.23's `GetResourceRequest`: `pods` is 1, CPU milli-cores, the rest whole units. */
function resourceRequest(pod: Pod, resourceName: string): bigint {
  if (resourceName === "pods") return 1n;
  const milli = podRequestsAndLimits(pod).requests.get(resourceName) ?? 0n;
  return resourceName === "cpu" ? milli : valueOfMilli(milli);
}

/** What is left of `requirements` once `pods` are preempted (requirements met drop out). */
function subtract(requirements: readonly AdmissionRequirement[], pods: readonly Pod[]): AdmissionRequirement[] {
  const out: AdmissionRequirement[] = [];
  for (const req of requirements) {
    let quantity = req.quantity;
    for (const p of pods) {
      quantity -= resourceRequest(p, req.resourceName);
      if (quantity <= 0n) break;
    }
    if (quantity > 0n) out.push({ resourceName: req.resourceName, quantity });
  }
  return out;
}

/** The sum over requirements of the squared fraction a pod leaves unmet (0: it meets them all). */
function distance(requirements: readonly AdmissionRequirement[], pod: Pod): number {
  let dist = 0;
  for (const req of requirements) {
    const remaining = Number(req.quantity - resourceRequest(pod, req.resourceName));
    if (remaining > 0) dist += (remaining / Number(req.quantity)) ** 2;
  }
  return dist;
}

/** Whether `a` requests less memory, or as much memory and no more CPU, than `b`. */
function smallerResourceRequest(a: Pod, b: Pod): boolean {
  for (const name of ["memory", "cpu"]) {
    const ra = resourceRequest(a, name);
    const rb = resourceRequest(b, name);
    if (ra < rb) return true;
    if (ra > rb) return false;
  }
  return true;
}

function toText(requirements: readonly AdmissionRequirement[]): string {
  return `[${requirements.map((r) => `(res: ${r.resourceName}, q: ${r.quantity}), `).join("")}]`;
}

/** Why no set of pods could be found: 1.23's error text. */
export class PreemptionError extends Error {
  constructor(requirements: readonly AdmissionRequirement[]) {
    super(`no set of running pods found to reclaim resources: ${toText(requirements)}`);
    this.name = "PreemptionError";
  }
}

// Repeatedly takes the pod nearest to meeting what is left (ties: the smaller request), so as
// few pods as possible go.
function byDistance(candidates: readonly Pod[], requirements: AdmissionRequirement[]): Pod[] {
  const pods = [...candidates];
  const chosen: Pod[] = [];
  let left = requirements;
  while (left.length > 0) {
    if (pods.length === 0) throw new PreemptionError(left);
    let best = 0;
    let bestDistance = left.length + 1;
    pods.forEach((p, i) => {
      const d = distance(left, p);
      if (d < bestDistance || (d === bestDistance && smallerResourceRequest(p, pods[best] as Pod))) {
        bestDistance = d;
        best = i;
      }
    });
    const victim = pods[best] as Pod;
    left = subtract(left, [victim]);
    chosen.push(victim);
    pods[best] = pods[pods.length - 1] as Pod;
    pods.pop();
  }
  return chosen;
}

/**
 * Whether `preemptor` may preempt `preemptee`: a critical pod preempts a non-critical one; else a
 * pod of higher priority one of lower (both priorities set).
 * @see pkg/kubelet/types/pod_update.go (Preemptable) in kubernetes/kubernetes v1.23
 */
export function preemptable(preemptor: Pod, preemptee: Pod): boolean {
  if (isCriticalPod(preemptor) && !isCriticalPod(preemptee)) return true;
  const a = preemptor.spec?.priority;
  const b = preemptee.spec?.priority;
  return a !== undefined && a !== null && b !== undefined && b !== null && a > b;
}

/**
 * The pods to preempt so that `requirements` are met, as 1.23's kubelet chooses them: only pods
 * `preemptor` may preempt; the fewest Guaranteed pods needed once every Burstable and BestEffort
 * pod is gone, then the fewest Burstable pods once every BestEffort pod and those Guaranteed are
 * gone, then the BestEffort pods still needed; within a class, by shortest distance to what is
 * left. Returned BestEffort first, then Burstable, then Guaranteed. Pure.
 * @throws PreemptionError when even all preemptable pods would not free enough.
 * @see pkg/kubelet/preemption/preemption.go (getPodsToPreempt, getPodsToPreemptByDistance) in kubernetes/kubernetes v1.23
 */
export function podsToPreempt(preemptor: Pod, active: readonly Pod[], requirements: readonly AdmissionRequirement[]): Pod[] {
  const bestEffort: Pod[] = [];
  const burstable: Pod[] = [];
  const guaranteed: Pod[] = [];
  for (const p of active) {
    if (!preemptable(preemptor, p)) continue;
    const qos = podQOSClass(p);
    (qos === "BestEffort" ? bestEffort : qos === "Burstable" ? burstable : guaranteed).push(p);
  }
  const unmet = subtract(requirements, [...bestEffort, ...burstable, ...guaranteed]);
  if (unmet.length > 0) throw new PreemptionError(unmet);
  const guaranteedToEvict = byDistance(guaranteed, subtract(requirements, [...bestEffort, ...burstable]));
  const burstableToEvict = byDistance(burstable, subtract(requirements, [...bestEffort, ...guaranteedToEvict]));
  const bestEffortToEvict = byDistance(bestEffort, subtract(requirements, [...burstableToEvict, ...guaranteedToEvict]));
  return [...bestEffortToEvict, ...burstableToEvict, ...guaranteedToEvict];
}
