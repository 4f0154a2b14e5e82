/**
 * Job tracking with finalizers: the three-step `status.uncountedTerminatedPods` protocol.
 * (1) a terminated pod's UID is added to `uncountedTerminatedPods.succeeded`/`.failed` (for an
 * Indexed Job a succeeded pod's index goes straight into `completedIndexes`) and the status is
 * written; (2) the pod's `batch.example.io/job-tracking` finalizer is removed; (3) UIDs whose pod
 * no longer has the finalizer leave the lists and increase `succeeded`/`failed`, and the status
 * is written again. A crash between any two steps loses or doubles nothing: step (3) only counts
 * UIDs that are in the written list, and a pod is only listed while it still has the finalizer.
 *
 * @see pkg/controller/job/job_controller.go (trackJobStatusAndRemoveFinalizers,
 *   flushUncountedAndRemoveFinalizers, cleanUncountedPodsWithoutFinalizers)
 */
import type { Job, JobCondition, JobStatus, Pod } from "@skiff/api-types";
import { countIndexes, formatIntervals, intervalsContain, withOrderedIndexes } from "@skiff/completed-indexes";
import type { IndexInterval } from "@skiff/completed-indexes";
import { getCompletionIndex, unknownCompletionIndex } from "./indexed-job.js";
import type { JobSyncContext } from "./job-sync.js";
import { hasTrackingFinalizer } from "./pod-utils.js";

/** Most pod UIDs (and new completed indexes) one sync puts into `uncountedTerminatedPods`; the rest wait for the next sync. @defaultValue 500 */
export const maxUncountedPods = 500;

/** Most finalizer removals, creates or deletes in flight at once. @defaultValue 500 */
export const maxConcurrentPodWrites = 500;

/**
 * Step (3): moves UIDs of `status.uncountedTerminatedPods` whose pod is not in
 * `uidsWithFinalizer` into the counters. Mutates `status`; returns whether anything changed.
 * @see pkg/controller/job/job_controller.go (cleanUncountedPodsWithoutFinalizers)
 */
export function cleanUncountedPodsWithoutFinalizers(status: JobStatus, uidsWithFinalizer: ReadonlySet<string>): boolean {
  const u = (status.uncountedTerminatedPods ??= {});
  let changed = false;
  const keepS = (u.succeeded ?? []).filter((uid) => uidsWithFinalizer.has(uid));
  if (keepS.length !== (u.succeeded ?? []).length) {
    status.succeeded = (status.succeeded ?? 0) + (u.succeeded ?? []).length - keepS.length;
    u.succeeded = keepS;
    changed = true;
  }
  const keepF = (u.failed ?? []).filter((uid) => uidsWithFinalizer.has(uid));
  if (keepF.length !== (u.failed ?? []).length) {
    status.failed = (status.failed ?? 0) + (u.failed ?? []).length - keepF.length;
    u.failed = keepF;
    changed = true;
  }
  return changed;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; resolves with per-item success. */
export async function runLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<{ ok: boolean[]; errors: unknown[] }> {
  const ok: boolean[] = new Array<boolean>(items.length).fill(false);
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        await fn(items[i] as T);
        ok[i] = true;
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return { ok, errors };
}

/**
 * Adds `finishedCond` to the Job unless uncounted pods remain; records the condition's event and
 * sets `completionTime` for `Complete`. Mutates `job.status`; returns whether it was added.
 * @see pkg/controller/job/job_controller.go (enactJobFinished)
 */
export function enactJobFinished(job: Job, finishedCond: JobCondition | undefined, ctx: Pick<JobSyncContext, "recorder">): boolean {
  if (!finishedCond) return false;
  const status = (job.status ??= {});
  const u = status.uncountedTerminatedPods;
  if (u && ((u.succeeded ?? []).length > 0 || (u.failed ?? []).length > 0)) return false;
  status.conditions = [...(status.conditions ?? []), finishedCond];
  if (finishedCond.type === "Complete") {
    const completions = job.spec?.completions;
    if (completions !== undefined && (status.succeeded ?? 0) > completions) {
      ctx.recorder.event(job, "Warning", "TooManySucceededPods", "Too many succeeded pods running after completion count reached");
    }
    if (finishedCond.lastTransitionTime !== undefined) status.completionTime = finishedCond.lastTransitionTime;
    ctx.recorder.event(job, "Normal", "Completed", "Job completed");
  } else {
    ctx.recorder.event(job, "Warning", finishedCond.reason ?? "", finishedCond.message ?? "");
  }
  return true;
}

/**
 * Accounts the Job's terminated pods with the three-step protocol, then adds `finishedCond` when
 * nothing is left uncounted. `job` is the working copy (status already holds this sync's
 * active/ready/conditions); `prevSucceeded` are the completed indexes from the Job's status.
 * Returns the last written Job. Throws the first API error (the caller requeues the Job).
 * @see pkg/controller/job/job_controller.go (trackJobStatusAndRemoveFinalizers)
 */
export async function trackJobStatusAndRemoveFinalizers(
  ctx: JobSyncContext,
  jobIn: Job,
  pods: readonly Pod[],
  prevSucceeded: IndexInterval[],
  uncounted: { readonly succeeded: ReadonlySet<string>; readonly failed: ReadonlySet<string> },
  expectedRmFinalizers: ReadonlySet<string>,
  finishedCond: JobCondition | undefined,
  needsFlushIn: boolean,
): Promise<Job> {
  let job = jobIn;
  let needsFlush = needsFlushIn;
  const status = (job.status ??= {});
  const isIndexed = job.spec?.completionMode === "Indexed";
  const completions = job.spec?.completions ?? 0;
  let succeededIndexes = prevSucceeded;
  let ordered = pods;
  if (isIndexed) ordered = [...pods].sort((a, b) => getCompletionIndex(a) - getCompletionIndex(b));
  const uidsWithFinalizer = new Set<string>();
  for (const p of ordered) {
    const uid = p.metadata?.uid ?? "";
    if (hasTrackingFinalizer(p) && !expectedRmFinalizers.has(uid)) uidsWithFinalizer.add(uid);
  }
  if (cleanUncountedPodsWithoutFinalizers(status, uidsWithFinalizer)) needsFlush = true;
  let podsToRemoveFinalizer: Pod[] = [];
  let newSucceededIndexes: number[] = [];
  const u = status.uncountedTerminatedPods ?? {};
  status.uncountedTerminatedPods = u;

  const flush = async (): Promise<void> => {
    if (newSucceededIndexes.length > 0) {
      succeededIndexes = withOrderedIndexes(succeededIndexes, [...new Set(newSucceededIndexes)].sort((a, b) => a - b));
      status.succeeded = countIndexes(succeededIndexes);
      status.completedIndexes = formatIntervals(succeededIndexes);
      newSucceededIndexes = [];
    }
    // Step 1: record the uncounted UIDs (and new completed indexes).
    if (needsFlush) {
      job = await ctx.actions.updateStatus(job);
      job.status = status;
      needsFlush = false;
    }
    // Step 2: remove the finalizers.
    let rmError: unknown;
    if (podsToRemoveFinalizer.length > 0) {
      const list = podsToRemoveFinalizer;
      podsToRemoveFinalizer = [];
      ctx.finalizerExpectations.expectFinalizersRemoved(ctx.key, list.map((p) => p.metadata?.uid ?? ""));
      const r = await runLimited(list, maxConcurrentPodWrites, (p) => ctx.actions.removeTrackingFinalizer(p));
      list.forEach((p, i) => {
        const uid = p.metadata?.uid ?? "";
        if (r.ok[i]) uidsWithFinalizer.delete(uid);
        else ctx.finalizerExpectations.finalizerRemovalObserved(uid);
      });
      rmError = r.errors[0];
    }
    // Step 3 (written by the caller's final flush, or now when step 2 partly failed).
    if (cleanUncountedPodsWithoutFinalizers(status, uidsWithFinalizer)) needsFlush = true;
    if (rmError !== undefined) {
      if (needsFlush) {
        job = await ctx.actions.updateStatus(job);
        job.status = status;
      }
      throw rmError;
    }
  };

  for (const pod of ordered) {
    const uid = pod.metadata?.uid ?? "";
    if (!hasTrackingFinalizer(pod) || expectedRmFinalizers.has(uid)) continue;
    const phase = pod.status?.phase;
    const podFinished = phase === "Succeeded" || phase === "Failed";
    const podTerminating = pod.metadata?.deletionTimestamp !== undefined || finishedCond !== undefined;
    const jobDeleting = job.metadata?.deletionTimestamp !== undefined;
    if (podFinished || podTerminating || jobDeleting) podsToRemoveFinalizer.push(pod);
    if (phase === "Succeeded" && !uncounted.failed.has(uid)) {
      if (isIndexed) {
        const ix = getCompletionIndex(pod);
        if (ix !== unknownCompletionIndex && ix < completions && !containsIndex(succeededIndexes, newSucceededIndexes, ix)) {
          newSucceededIndexes.push(ix);
          needsFlush = true;
        }
      } else if (!uncounted.succeeded.has(uid)) {
        (u.succeeded ??= []).push(uid);
        needsFlush = true;
      }
    } else if (phase === "Failed" || podTerminating) {
      // (A Job being deleted only gets its pods' finalizers removed: a running pod is not a failure.)
      const ix = getCompletionIndex(pod);
      if (!uncounted.failed.has(uid) && (!isIndexed || (ix !== unknownCompletionIndex && ix < completions))) {
        (u.failed ??= []).push(uid);
        needsFlush = true;
      }
    }
    // Enough for one sync: the status write and the pod updates requeue the Job for the rest
    // (keeps the lists under ~20 KB and big Jobs from starving small ones).
    if (newSucceededIndexes.length + (u.succeeded ?? []).length + (u.failed ?? []).length >= maxUncountedPods) break;
  }
  await flush();
  if (enactJobFinished(job, finishedCond, ctx)) needsFlush = true;
  if (needsFlush) {
    job = await ctx.actions.updateStatus(job);
  }
  return job;
}

function containsIndex(intervals: readonly IndexInterval[], pending: readonly number[], ix: number): boolean {
  return intervalsContain(intervals, ix) || pending.includes(ix);
}
