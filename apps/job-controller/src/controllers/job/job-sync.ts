/**
 * One sync of one Job, as 1.23's `syncJob`: given the Job, the pods it owns, the time and the
 * feature gates, decide and perform the pod creations/deletions, the tracking-finalizer removals
 * and the new status, through the injected {@link JobSyncActions}. Everything but those calls
 * (and the expectation/event bookkeeping) is computed from the inputs, so unit tests drive it with
 * fake actions and assert what it did.
 *
 * @see pkg/controller/job/job_controller.go (syncJob, manageJob, getStatus, pastActiveDeadline,
 *   pastBackoffLimitOnFailure, ensureJobConditionStatus)
 */
import { JobTrackingAnnotation, JobTrackingFinalizer } from "@skiff/api-types";
import type { Job, JobCondition, JobStatus, Pod } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import { formatIntervals } from "@skiff/completed-indexes";
import type { IndexInterval } from "@skiff/completed-indexes";
import type { EventRecorder, EventType } from "../../events.js";
import { JobEvents } from "../../events.js";
import type { ControllerExpectations, FinalizerExpectations } from "./expectations.js";
import { calculateSucceededIndexes, duplicatedIndexPodsForRemoval, firstPendingIndexes, getCompletionIndex, podGenerateNameWithIndex, unknownCompletionIndex, withCompletionIndexEnv } from "./indexed-job.js";
import { podFromTemplate } from "./pod-control.js";
import { compareActivePodsForDeletion, hasTrackingFinalizer, isNamespaceTerminatingError, isPodActive, isPodReady } from "./pod-utils.js";
import { enactJobFinished, maxConcurrentPodWrites, runLimited, trackJobStatusAndRemoveFinalizers } from "./tracking.js";

/** Most pods one sync creates or deletes. @defaultValue 500 */
export const maxPodCreateDeletePerSync = 500;

/** The gates a sync reads (injected; never a global). */
export interface JobSyncGates {
  /** `JobReadyPods`: write `status.ready`. */
  readonly jobReadyPods: boolean;
  /** `JobTrackingWithFinalizers`: track Jobs carrying `batch.example.io/job-tracking` with pod finalizers. */
  readonly jobTrackingWithFinalizers: boolean;
}

/** The API writes a sync makes. Each throws the API error on failure. */
export interface JobSyncActions {
  /** Creates the pod (events are the implementation's business). */
  createPod(job: Job, pod: Pod): Promise<unknown>;
  deletePod(job: Job, pod: Pod): Promise<void>;
  /** Removes `batch.example.io/job-tracking` from the pod; a missing pod counts as done. */
  removeTrackingFinalizer(pod: Pod): Promise<void>;
  /** `PUT jobs/{name}/status`; returns the written Job (new resourceVersion). */
  updateStatus(job: Job): Promise<Job>;
  /** Removes the `batch.example.io/job-tracking` annotation from the Job (gate off). */
  removeTrackingAnnotation(job: Job): Promise<Job>;
}

/** Everything a sync needs besides the Job and its pods. */
export interface JobSyncContext {
  /** `namespace/name` of the Job (expectation key). */
  readonly key: string;
  /** "Now" in ms since the epoch (conditions, startTime, deadline). */
  readonly nowMs: number;
  readonly gates: JobSyncGates;
  readonly expectations: ControllerExpectations;
  readonly finalizerExpectations: FinalizerExpectations;
  readonly actions: JobSyncActions;
  readonly recorder: EventRecorder;
}

/** Outcome of {@link syncJob}. */
export interface JobSyncResult {
  /** Reset the Job's back-off (succeeded grew, or the Job is finished). */
  readonly forget: boolean;
  /** The first error; the caller requeues the Job rate-limited. A new pod failure is one too. */
  readonly error?: unknown;
  /** Sync again after this many ms (activeDeadlineSeconds check). */
  readonly requeueAfterMs?: number;
  /** The Job as last written (or the input when nothing was written). */
  readonly job: Job;
}

/** Thrown (as `JobSyncResult.error`) after a sync that saw a new pod failure, to requeue with back-off. */
export class NewPodFailureError extends Error {
  readonly reason = "NewPodFailure" as const;
  constructor(key: string) {
    super(`failed pod(s) detected for job key "${key}"`);
    this.name = "NewPodFailureError";
  }
}

/** RFC 3339 time at second precision, as metav1.Time marshals. Pure. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Whether the Job has a `Complete` or `Failed` condition with status `True`. Pure. */
export function isJobFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");
}

/** Whether the Job is tracked with finalizers: the gate is on and the Job carries the annotation. Pure. */
export function isTrackingWithFinalizers(job: Job, gates: JobSyncGates): boolean {
  return gates.jobTrackingWithFinalizers && job.metadata?.annotations?.[JobTrackingAnnotation] !== undefined;
}

/** A copy of the Job whose empty `uncountedTerminatedPods` lists are omitted (as Go's omitempty). */
function normalizeStatus(job: Job): Job {
  const u = job.status?.uncountedTerminatedPods;
  if (!u || ((u.succeeded ?? []).length > 0 && (u.failed ?? []).length > 0)) return job;
  const nu = { ...u };
  if ((nu.succeeded ?? []).length === 0) delete nu.succeeded;
  if ((nu.failed ?? []).length === 0) delete nu.failed;
  return { ...job, status: { ...job.status, uncountedTerminatedPods: nu } };
}

function newCondition(type: string, status: "True" | "False", reason: string, message: string, nowMs: number): JobCondition {
  const t = formatTime(nowMs);
  return { type, status, lastProbeTime: t, lastTransitionTime: t, ...(reason !== "" ? { reason } : {}), ...(message !== "" ? { message } : {}) };
}

/**
 * Sets the condition of `type` to `status/reason/message`: rewrites an existing one (new probe
 * and transition times) when any of the three differ; adds a missing one unless `status` is
 * False. Returns the new list and whether it changed. Does not mutate `list`.
 * @see pkg/controller/job/job_controller.go (ensureJobConditionStatus)
 */
export function ensureJobConditionStatus(list: readonly JobCondition[], type: string, status: "True" | "False", reason: string, message: string, nowMs: number): { conditions: JobCondition[]; changed: boolean } {
  const out = [...list];
  const i = out.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = out[i] as JobCondition;
    if (c.status !== status || (c.reason ?? "") !== reason || (c.message ?? "") !== message) {
      out[i] = newCondition(type, status, reason, message, nowMs);
      return { conditions: out, changed: true };
    }
    return { conditions: out, changed: false };
  }
  if (status === "False") return { conditions: out, changed: false };
  out.push(newCondition(type, status, reason, message, nowMs));
  return { conditions: out, changed: true };
}

function hasCondition(job: Job, type: string, status: string): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === type && c.status === status);
}

/**
 * `restartPolicy: OnFailure` and the container + init-container restarts of running/pending
 * pods reach `backoffLimit` (> 0 when it is 0). Pure.
 * @see pkg/controller/job/job_controller.go (pastBackoffLimitOnFailure)
 */
export function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== "OnFailure") return false;
  let restarts = 0;
  for (const p of pods) {
    const phase = p.status?.phase;
    if (phase !== "Running" && phase !== "Pending") continue;
    for (const s of p.status?.initContainerStatuses ?? []) restarts += s.restartCount ?? 0;
    for (const s of p.status?.containerStatuses ?? []) restarts += s.restartCount ?? 0;
  }
  const limit = job.spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/**
 * Milliseconds until `activeDeadlineSeconds` runs out (≤ 0: past it); `undefined` when there is
 * no deadline, no startTime, or the Job is suspended. Pure.
 * @see pkg/controller/job/job_controller.go (pastActiveDeadline)
 */
export function remainingActiveDeadlineMs(job: Job, nowMs: number): number | undefined {
  const ads = job.spec?.activeDeadlineSeconds;
  const start = job.status?.startTime;
  if (ads === undefined || start === undefined || job.spec?.suspend === true) return undefined;
  return Date.parse(start) + ads * 1000 - nowMs;
}

function countValid(job: Job, pods: readonly Pod[], uncounted: ReadonlySet<string> | undefined, expectedRm: ReadonlySet<string>, filter: (p: Pod) => boolean): number {
  let n = uncounted?.size ?? 0;
  const indexed = job.spec?.completionMode === "Indexed";
  const completions = job.spec?.completions ?? 0;
  for (const p of pods) {
    const uid = p.metadata?.uid ?? "";
    if (uncounted && (!hasTrackingFinalizer(p) || uncounted.has(uid) || expectedRm.has(uid))) continue;
    if (indexed) {
      const ix = getCompletionIndex(p);
      if (ix === unknownCompletionIndex || ix >= completions) continue;
    }
    if (filter(p)) n++;
  }
  return n;
}

function activePodsForRemoval(job: Job, active: readonly Pod[], rmAtLeast: number): Pod[] {
  let rm: Pod[] = [];
  let left: Pod[] = [...active];
  if (job.spec?.completionMode === "Indexed") ({ rm, left } = duplicatedIndexPodsForRemoval(active, job.spec.completions ?? 0));
  if (rm.length < rmAtLeast) {
    left.sort(compareActivePodsForDeletion);
    rm = rm.concat(left.slice(0, rmAtLeast - rm.length));
  }
  return rm;
}

/**
 * Deletes pods, stripping their tracking finalizer first when `stripFinalizer`; returns how many
 * were deleted. A pod already gone (404) counts as deleted, as 1.23's deleteJobPods and
 * deleteActivePods count it.
 */
async function deleteJobPods(ctx: JobSyncContext, job: Job, pods: readonly Pod[], stripFinalizer: boolean): Promise<{ deleted: number; error?: unknown }> {
  let error: unknown;
  let deleted = 0;
  await runLimited(pods, maxConcurrentPodWrites, async (pod) => {
    try {
      if (stripFinalizer && hasTrackingFinalizer(pod)) await ctx.actions.removeTrackingFinalizer(pod);
      await ctx.actions.deletePod(job, pod);
      deleted++;
    } catch (e) {
      ctx.expectations.deletionObserved(ctx.key);
      if (isNotFound(e)) deleted++;
      else error ??= e;
    }
  });
  return error === undefined ? { deleted } : { deleted, error };
}

async function manageJob(ctx: JobSyncContext, job: Job, activePods: readonly Pod[], succeeded: number, succeededIndexes: readonly IndexInterval[], tracking: boolean): Promise<{ active: number; error?: unknown }> {
  let active = activePods.length;
  const parallelism = job.spec?.parallelism ?? 1;
  if (job.spec?.suspend === true) {
    ctx.expectations.expectDeletions(ctx.key, activePods.length);
    const r = await deleteJobPods(ctx, job, activePods, true);
    return { active: active - r.deleted, ...(r.error !== undefined ? { error: r.error } : {}) };
  }
  let wantActive: number;
  const completions = job.spec?.completions;
  if (completions === undefined) wantActive = succeeded > 0 ? active : parallelism;
  else wantActive = Math.max(0, Math.min(completions - succeeded, parallelism));
  const rmAtLeast = Math.max(0, active - wantActive);
  const podsToDelete = activePodsForRemoval(job, activePods, rmAtLeast).slice(0, maxPodCreateDeletePerSync);
  if (podsToDelete.length > 0) {
    ctx.expectations.expectDeletions(ctx.key, podsToDelete.length);
    const r = await deleteJobPods(ctx, job, podsToDelete, true);
    return { active: active - r.deleted, ...(r.error !== undefined ? { error: r.error } : {}) };
  }
  if (active >= wantActive) return { active };
  let diff = Math.min(wantActive - active, maxPodCreateDeletePerSync);
  const isIndexed = job.spec?.completionMode === "Indexed";
  let indexes: number[] = [];
  if (isIndexed) {
    indexes = firstPendingIndexes(activePods, succeededIndexes, diff, completions ?? 0);
    diff = indexes.length;
  }
  if (diff === 0) return { active };
  ctx.expectations.expectCreations(ctx.key, diff);
  active += diff;
  let template = job.spec?.template ?? {};
  if (isIndexed) template = withCompletionIndexEnv(template);
  if (tracking) {
    const fin = template.metadata?.finalizers ?? [];
    if (!fin.includes(JobTrackingFinalizer)) template = { ...template, metadata: { ...template.metadata, finalizers: [...fin, JobTrackingFinalizer] } };
  }
  const jobName = job.metadata?.name ?? "";
  const pods: Pod[] = [];
  try {
    for (let i = 0; i < diff; i++) {
      const ix = indexes[i];
      if (ix === undefined) {
        pods.push(podFromTemplate(job, template, `${jobName}-`));
        continue;
      }
      const p = podFromTemplate(job, template, podGenerateNameWithIndex(jobName, ix));
      (p.metadata ??= {}).annotations = { ...p.metadata.annotations, "batch.example.io/job-completion-index": String(ix) };
      if (p.spec) p.spec.hostname = `${jobName}-${String(ix)}`;
      pods.push(p);
    }
  } catch (e) {
    ctx.expectations.lowerCreations(ctx.key, diff);
    ctx.recorder.event(job, "Warning", JobEvents.failedCreate, `Error creating: ${e instanceof Error ? e.message : String(e)}`);
    return { active: active - diff, error: e };
  }
  // Slow start: batches of 1, 2, 4, ... stop at the first batch with a failure.
  let error: unknown;
  let done = 0;
  for (let batch = Math.min(diff, 1); done < diff; batch = Math.min(2 * batch, diff - done)) {
    let failed = 0;
    await runLimited(pods.slice(done, done + batch), maxConcurrentPodWrites, async (pod) => {
      try {
        await ctx.actions.createPod(job, pod);
      } catch (e) {
        ctx.expectations.creationObserved(ctx.key);
        // The namespace is being torn down: every later create fails too; not an error (1.23).
        if (isNamespaceTerminatingError(e)) {
          active--;
          return;
        }
        active--;
        failed++;
        error ??= e;
      }
    });
    done += batch;
    const skipped = diff - done;
    if (failed > 0 && skipped > 0) {
      ctx.expectations.lowerCreations(ctx.key, skipped);
      active -= skipped;
      break;
    }
  }
  return error === undefined ? { active } : { active, error };
}

/**
 * Syncs one Job (see the module comment). Does not mutate `jobIn` or `pods`; all writes go
 * through `ctx.actions`, events through `ctx.recorder`; expectations are raised before creates
 * and deletes and lowered for calls that fail.
 * @example
 * const r = await syncJob(ctx, job, ownedPods);
 * if (r.error) queue.addRateLimited(key); else if (r.forget) queue.forget(key);
 */
export async function syncJob(ctxIn: JobSyncContext, jobIn: Job, pods: readonly Pod[]): Promise<JobSyncResult> {
  let ctx = ctxIn;
  if (isJobFinished(jobIn)) return { forget: true, job: jobIn };
  const mode = jobIn.spec?.completionMode ?? "NonIndexed";
  if (mode !== "NonIndexed" && mode !== "Indexed") {
    ctx.recorder.event(jobIn, "Warning", JobEvents.unknownCompletionMode.reason, JobEvents.unknownCompletionMode.message);
    return { forget: false, job: jobIn };
  }
  const deferred: Array<[EventType, string, string]> = [];
  const outer = ctx;
  // Condition events wait for the status write that records the condition, so a sync working
  // from a stale cache (its write then conflicts) does not announce a transition twice.
  ctx = {
    ...outer,
    recorder: {
      event: (o, type, reason, message) => {
        if (reason === JobEvents.failedCreate || reason === JobEvents.unknownCompletionMode.reason) outer.recorder.event(o, type, reason, message);
        else deferred.push([type, reason, message]);
      },
    },
    actions: { ...outer.actions, updateStatus: (j) => outer.actions.updateStatus(normalizeStatus(j)) },
  };
  let job: Job = structuredClone(jobIn);
  const status: JobStatus = (job.status ??= {});
  const oldStatus: JobStatus = structuredClone(status);
  const isIndexed = mode === "Indexed";
  const tracking = isTrackingWithFinalizers(job, ctx.gates);
  let expectedRm: ReadonlySet<string> = new Set();
  let uncounted: { succeeded: Set<string>; failed: Set<string> } | undefined;
  if (tracking) {
    status.uncountedTerminatedPods ??= {};
    uncounted = { succeeded: new Set(status.uncountedTerminatedPods.succeeded ?? []), failed: new Set(status.uncountedTerminatedPods.failed ?? []) };
    expectedRm = ctx.finalizerExpectations.expectedUids(ctx.key);
  } else {
    delete status.uncountedTerminatedPods;
    if (job.metadata?.annotations?.[JobTrackingAnnotation] !== undefined) {
      try {
        const patched = await ctx.actions.removeTrackingAnnotation(job);
        job = { ...job, metadata: { ...job.metadata, ...(patched.metadata?.resourceVersion !== undefined ? { resourceVersion: patched.metadata.resourceVersion } : {}) } };
      } catch (e) {
        return { forget: false, error: e, job: jobIn };
      }
    }
    // Legacy tracking: leftover finalizers (gate switched off) only block pod deletion.
    const leftovers = pods.filter(hasTrackingFinalizer);
    if (leftovers.length > 0) await runLimited(leftovers, maxConcurrentPodWrites, (p) => ctx.actions.removeTrackingFinalizer(p));
  }

  const jobNeedsSync = ctx.expectations.satisfied(ctx.key);
  const activePods = pods.filter(isPodActive);
  let active = activePods.length;
  const uncountedSucceeded = uncounted?.succeeded;
  const uncountedFailed = uncounted?.failed;
  let succeeded = (tracking ? (status.succeeded ?? 0) : 0) + countValid(job, pods, uncountedSucceeded, expectedRm, (p) => p.status?.phase === "Succeeded");
  let failed =
    (tracking ? (status.failed ?? 0) : 0) +
    countValid(job, pods, uncountedFailed, expectedRm, (p) => p.status?.phase === "Failed" || (tracking && p.metadata?.deletionTimestamp !== undefined && p.status?.phase !== "Succeeded"));
  const ready = ctx.gates.jobReadyPods ? activePods.filter(isPodReady).length : undefined;

  if (status.startTime === undefined && job.spec?.suspend !== true) status.startTime = formatTime(ctx.nowMs);

  const parallelism = job.spec?.parallelism ?? 1;
  const backoffLimit = job.spec?.backoffLimit ?? 6;
  const jobHasNewFailure = failed > (status.failed ?? 0);
  const exceedsBackoffLimit = jobHasNewFailure && active !== parallelism && failed > backoffLimit;
  let finishedCondition: JobCondition | undefined;
  const remainingMs = remainingActiveDeadlineMs(job, ctx.nowMs);
  if (exceedsBackoffLimit || pastBackoffLimitOnFailure(job, pods)) {
    finishedCondition = newCondition("Failed", "True", JobEvents.backoffLimitExceeded.reason, JobEvents.backoffLimitExceeded.message, ctx.nowMs);
  } else if (remainingMs !== undefined && remainingMs <= 0) {
    finishedCondition = newCondition("Failed", "True", JobEvents.deadlineExceeded.reason, JobEvents.deadlineExceeded.message, ctx.nowMs);
  }

  let prevSucceededIndexes: IndexInterval[] = [];
  let succeededIndexes: IndexInterval[] = [];
  if (isIndexed) {
    const r = calculateSucceededIndexes(job, tracking ? pods.filter((p) => hasTrackingFinalizer(p) && !expectedRm.has(p.metadata?.uid ?? "")) : pods, tracking);
    prevSucceededIndexes = r.prev;
    succeededIndexes = r.next;
    succeeded = succeededIndexes.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  let suspendCondChanged = false;
  let manageError: unknown;
  if (finishedCondition) {
    // Fail: delete every active pod. Legacy tracking counts them failed at once; finalizer
    // tracking counts them through the uncounted lists and waits until all are gone.
    ctx.expectations.expectDeletions(ctx.key, activePods.length);
    const r = await deleteJobPods(ctx, job, activePods, false);
    let deleted = r.deleted;
    if (!tracking) deleted = active;
    else if (deleted !== active) finishedCondition = undefined;
    active -= deleted;
    failed += deleted;
    manageError = r.error;
  } else {
    let manageJobCalled = false;
    if (jobNeedsSync && job.metadata?.deletionTimestamp === undefined) {
      const r = await manageJob(ctx, job, activePods, succeeded, succeededIndexes, tracking);
      active = r.active;
      manageError = r.error;
      manageJobCalled = true;
    }
    const completions = job.spec?.completions;
    const complete = completions === undefined ? succeeded > 0 && active === 0 : succeeded >= completions && active === 0;
    if (complete) {
      finishedCondition = newCondition("Complete", "True", "", "", ctx.nowMs);
    } else if (manageJobCalled) {
      if (job.spec?.suspend === true) {
        const r = ensureJobConditionStatus(status.conditions ?? [], "Suspended", "True", "JobSuspended", "Job suspended", ctx.nowMs);
        if (r.changed) {
          status.conditions = r.conditions;
          suspendCondChanged = true;
          // Differs from 1.23 (which keeps startTime until the resume) because the spec wins:
          // spec/resource-api.md, "States and transitions", running → `suspend` false to true:
          // "All active pods are deleted; `startTime` is reset, which resets the
          // `activeDeadlineSeconds` timer". Unset until the resume sets it anew.
          delete status.startTime;
          ctx.recorder.event(job, "Normal", JobEvents.suspended.reason, JobEvents.suspended.message);
        }
      } else if (hasCondition(job, "Suspended", "True")) {
        const r = ensureJobConditionStatus(status.conditions ?? [], "Suspended", "False", "JobResumed", "Job resumed", ctx.nowMs);
        if (r.changed) {
          status.conditions = r.conditions;
          suspendCondChanged = true;
          status.startTime = formatTime(ctx.nowMs);
          ctx.recorder.event(job, "Normal", JobEvents.resumed.reason, JobEvents.resumed.message);
        }
      }
    }
  }

  let forget = (oldStatus.succeeded ?? 0) < succeeded;
  let needsStatusUpdate = suspendCondChanged || active !== (oldStatus.active ?? 0) || ready !== oldStatus.ready || status.startTime !== oldStatus.startTime;
  status.active = active;
  if (ready !== undefined) status.ready = ready;
  else delete status.ready;
  let error: unknown = manageError;
  // 1.23 resets the Job's back-off ("forget") after a sync without a new pod failure: always when
  // tracking with finalizers, only after a status write in legacy mode.
  let wroteStatus = false;
  try {
    if (uncounted) {
      needsStatusUpdate ||= oldStatus.uncountedTerminatedPods === undefined;
      job = await trackJobStatusAndRemoveFinalizers(ctx, job, pods, prevSucceededIndexes, uncounted, expectedRm, finishedCondition, needsStatusUpdate);
      wroteStatus = true;
    } else {
      if (enactJobFinished(job, finishedCondition, ctx)) needsStatusUpdate = true;
      if (isIndexed) status.completedIndexes = formatIntervals(succeededIndexes);
      needsStatusUpdate ||= succeeded !== (oldStatus.succeeded ?? 0) || failed !== (oldStatus.failed ?? 0) || status.completedIndexes !== oldStatus.completedIndexes || oldStatus.uncountedTerminatedPods !== undefined;
      status.succeeded = succeeded;
      status.failed = failed;
      if (needsStatusUpdate) {
        job = await ctx.actions.updateStatus(job);
        wroteStatus = true;
      }
    }
  } catch (e) {
    error ??= e;
  }
  if (error === undefined) for (const [type, reason, message] of deferred) outer.recorder.event(job, type, reason, message);
  if (error === undefined && jobHasNewFailure && !isJobFinished(job)) error = new NewPodFailureError(ctx.key);
  if (wroteStatus && !(jobHasNewFailure && !isJobFinished(job))) forget = true;
  const remaining = isJobFinished(job) ? undefined : remainingActiveDeadlineMs(job, ctx.nowMs);
  return { forget, job, ...(error !== undefined ? { error } : {}), ...(remaining !== undefined ? { requeueAfterMs: Math.max(0, remaining) } : {}) };
}
