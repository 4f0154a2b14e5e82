import type { Job } from "@skiff/api-types";
import { JobTrackingAnnotation, hasJobTrackingAnnotation } from "./job.js";

/** The gates whose fields {@link dropDisabledJobFields} drops. */
export interface JobFieldGates {
  /** JobReadyPods: `status.ready` is kept only when on (or already used by the old object). */
  readonly jobReadyPods: boolean;
  /**
   * JobTrackingWithFinalizers: `status.uncountedTerminatedPods` and the
   * `batch.example.io/job-tracking` annotation are kept only when on (or already used by the old
   * object).
   */
  readonly jobTrackingWithFinalizers: boolean;
}

/**
 * Drops the Job fields whose gate is off, unless the old object already used them (STYLE §8), as
 * the 1.23 Job strategies do in PrepareForCreate/PrepareForUpdate:
 * - `status.ready` when JobReadyPods is off and `old` had no `status.ready`;
 * - `status.uncountedTerminatedPods` when JobTrackingWithFinalizers is off and `old` had none;
 * - the `batch.example.io/job-tracking` annotation when JobTrackingWithFinalizers is off and `old`
 *   did not carry it (on create, `old` is `undefined`). Adding the annotation when the gate is on
 *   is the create strategy's job, not this function's.
 *
 * MUTATES `job` in place and returns the same object (for chaining). Reads nothing but its
 * arguments; never throws. An emptied `annotations` map is removed.
 *
 * @see pkg/registry/batch/job/strategy.go `PrepareForCreate`, `PrepareForUpdate`, and
 *   `jobStatusStrategy.PrepareForUpdate` (kubernetes/kubernetes, 1.23)
 * @example
 * dropDisabledJobFields(newJob, oldJob, { jobReadyPods: gates.enabled("JobReadyPods"),
 *   jobTrackingWithFinalizers: gates.enabled("JobTrackingWithFinalizers") });
 */
export function dropDisabledJobFields(job: Job, old: Job | undefined, gates: JobFieldGates): Job {
  const status = job.status;
  if (status !== undefined) {
    if (!gates.jobReadyPods && old?.status?.ready === undefined) delete status.ready;
    if (!gates.jobTrackingWithFinalizers && old?.status?.uncountedTerminatedPods === undefined) {
      delete status.uncountedTerminatedPods;
    }
  }
  if (!gates.jobTrackingWithFinalizers && !(old !== undefined && hasJobTrackingAnnotation(old))) {
    const annotations = job.metadata?.annotations;
    if (annotations !== undefined && hasJobTrackingAnnotation(job)) {
      delete annotations[JobTrackingAnnotation];
      if (Object.keys(annotations).length === 0 && job.metadata) delete job.metadata.annotations;
    }
  }
  return job;
}
