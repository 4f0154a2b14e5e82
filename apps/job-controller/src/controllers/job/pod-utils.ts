/**
 * Pod predicates and orderings the Job controller shares between its modules.
 *
 * @see pkg/controller/controller_utils.go (FilterActivePods, ActivePods, IsPodReady)
 */
import { JobTrackingFinalizer } from "@skiff/api-types";
import type { OwnerReference, Pod } from "@skiff/api-types";

/** Active = not Succeeded, not Failed, not being deleted. Pure. @see pkg/controller/controller_utils.go (IsPodActive) */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && !pod.metadata?.deletionTimestamp;
}

/** Whether the pod's `Ready` condition is `True`. Pure. */
export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

/**
 * Whether an API error says the namespace is being torn down: a `NamespaceTerminating` status
 * cause, or (for servers that send none) a Forbidden whose message says the namespace "is being
 * terminated". Pure. @see pkg/controller/job/job_controller.go (manageJob, HasStatusCause)
 */
export function isNamespaceTerminatingError(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const s = (e as { status?: { reason?: string; message?: string; details?: { causes?: ReadonlyArray<{ type?: string }> } } }).status;
  if (!s || typeof s !== "object") return false;
  if ((s.details?.causes ?? []).some((c) => c.type === "NamespaceTerminating")) return true;
  return s.reason === "Forbidden" && (s.message ?? "").includes("because it is being terminated");
}

/** Whether the pod carries the `batch.example.io/job-tracking` finalizer. Pure. */
export function hasTrackingFinalizer(pod: Pod): boolean {
  return (pod.metadata?.finalizers ?? []).includes(JobTrackingFinalizer);
}

/** The ownerReference with `controller: true`, if any. Pure. @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go */
export function controllerRefOf(obj: { readonly metadata?: { readonly ownerReferences?: readonly OwnerReference[] } }): OwnerReference | undefined {
  return (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
}

function phaseRank(pod: Pod): number {
  switch (pod.status?.phase) {
    case "Pending":
      return 0;
    case "Unknown":
      return 1;
    case "Running":
      return 2;
    default:
      return 3;
  }
}

function readySinceMs(pod: Pod): number {
  const c = (pod.status?.conditions ?? []).find((x) => x.type === "Ready" && x.status === "True");
  return c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
}

function maxRestarts(pod: Pod): number {
  let max = 0;
  for (const cs of pod.status?.containerStatuses ?? []) max = Math.max(max, cs.restartCount ?? 0);
  return max;
}

/**
 * Comparator putting the pod to delete first before the others, as 1.23's `ActivePods`:
 * unassigned before assigned; Pending before Unknown before Running; not ready before ready;
 * ready for less time before ready for longer; more restarts before fewer; newer before older.
 * Pure; sorts nothing itself.
 * @see pkg/controller/controller_utils.go (ActivePods.Less)
 */
export function compareActivePodsForDeletion(a: Pod, b: Pod): number {
  const aNode = a.spec?.nodeName ? 1 : 0;
  const bNode = b.spec?.nodeName ? 1 : 0;
  if (aNode !== bNode) return aNode - bNode;
  const pr = phaseRank(a) - phaseRank(b);
  if (pr !== 0) return pr;
  const aReady = isPodReady(a) ? 1 : 0;
  const bReady = isPodReady(b) ? 1 : 0;
  if (aReady !== bReady) return aReady - bReady;
  if (aReady === 1) {
    const at = readySinceMs(a);
    const bt = readySinceMs(b);
    if (at !== bt && !(Number.isNaN(at) && Number.isNaN(bt))) {
      // Ready more recently (later time) goes first; unknown time counts as "just now".
      if (Number.isNaN(at)) return -1;
      if (Number.isNaN(bt)) return 1;
      return bt - at;
    }
  }
  const rr = maxRestarts(b) - maxRestarts(a);
  if (rr !== 0) return rr;
  const ac = a.metadata?.creationTimestamp ? Date.parse(a.metadata.creationTimestamp) : Infinity;
  const bc = b.metadata?.creationTimestamp ? Date.parse(b.metadata.creationTimestamp) : Infinity;
  if (ac !== bc) return bc > ac ? 1 : -1;
  return 0;
}
