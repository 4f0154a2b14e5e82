import type { Job, JobCondition, JobList, JobSpec, JobStatus, UncountedTerminatedPods } from "@skiff/api-types";
import type { z } from "zod";
import { podTemplateSpecSchema } from "./core.js";
import { kindEnvelope, kindListOf, labelSelectorSchema } from "./meta.js";
import { bool, int32, int64, listOf, objectOf, str, stringList, time } from "./primitives.js";

/** `batch/v1` JobSpec (1.23 fields). */
export const jobSpecSchema = objectOf<JobSpec>()("JobSpec", {
  parallelism: int32().exactOptional(),
  completions: int32().exactOptional(),
  activeDeadlineSeconds: int64().exactOptional(),
  backoffLimit: int32().exactOptional(),
  selector: labelSelectorSchema.exactOptional(),
  manualSelector: bool().exactOptional(),
  template: podTemplateSpecSchema,
  ttlSecondsAfterFinished: int32().exactOptional(),
  completionMode: str().exactOptional(),
  suspend: bool().exactOptional(),
}) satisfies z.ZodType<JobSpec>;

/** `batch/v1` JobCondition. */
export const jobConditionSchema = objectOf<JobCondition>()("JobCondition", {
  type: str(),
  status: str(),
  lastProbeTime: time().exactOptional(),
  lastTransitionTime: time().exactOptional(),
  reason: str().exactOptional(),
  message: str().exactOptional(),
}) satisfies z.ZodType<JobCondition>;

/** `batch/v1` UncountedTerminatedPods. */
export const uncountedTerminatedPodsSchema = objectOf<UncountedTerminatedPods>()("UncountedTerminatedPods", {
  succeeded: stringList().exactOptional(),
  failed: stringList().exactOptional(),
}) satisfies z.ZodType<UncountedTerminatedPods>;

/** `batch/v1` JobStatus (1.23 fields, incl. `ready` and `uncountedTerminatedPods`). */
export const jobStatusSchema = objectOf<JobStatus>()("JobStatus", {
  conditions: listOf(jobConditionSchema).exactOptional(),
  startTime: time().exactOptional(),
  completionTime: time().exactOptional(),
  active: int32().exactOptional(),
  succeeded: int32().exactOptional(),
  failed: int32().exactOptional(),
  completedIndexes: str().exactOptional(),
  uncountedTerminatedPods: uncountedTerminatedPodsSchema.exactOptional(),
  ready: int32().exactOptional(),
}) satisfies z.ZodType<JobStatus>;

/** `batch/v1` Job. */
export const jobSchema = objectOf<Job>()("Job", {
  ...kindEnvelope(),
  spec: jobSpecSchema.exactOptional(),
  status: jobStatusSchema.exactOptional(),
}) satisfies z.ZodType<Job>;

/** `batch/v1` JobList. */
export const jobListSchema = kindListOf<JobList>()("JobList", jobSchema) satisfies z.ZodType<JobList>;
