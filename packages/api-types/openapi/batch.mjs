// batch/v1 (k8s.io/api/batch/v1): Job, in 1.23 shape.
import { BATCH, CORE, META, arrayOf, bool, gvk, int32, int64, kindSchema, link, listKindSchema, listType, mergeBy, object, str, strList, time } from "./dsl.mjs";

const B = (name) => BATCH + name;

export const batchSchemas = {
  [B("Job")]: kindSchema({
    gvks: gvk("batch", "v1", "Job"),
    description: "A batch workload that runs pods until a required number of them finish successfully.",
    properties: {
      spec: link(B("JobSpec"), "Desired behavior of the job."),
      status: link(B("JobStatus"), "Most recently observed status of the job, maintained by the job controller."),
    },
  }),
  [B("JobList")]: listKindSchema({ group: "batch", version: "v1", kind: "JobList", itemSchema: B("Job"), itemKind: "Job" }),
  [B("JobSpec")]: object(
    "Desired behavior of a job.",
    {
      parallelism: int32(
        "Maximum number of pods running at the same moment. Fewer run when the remaining work (completions minus succeeded) is smaller. Defaults to 1.",
      ),
      completions: int32(
        "Number of successfully finished pods wanted. Unset: the success of any one pod is the success of the job, and parallelism may be any positive value. 1: parallelism is limited to 1.",
      ),
      activeDeadlineSeconds: int64(
        "Seconds, counted from startTime, the job may be continuously active before the system tries to terminate it. Positive. Suspending the job stops and resets the timer.",
      ),
      backoffLimit: int32("Retries before the job is marked failed.", { default: 6 }),
      selector: link(`${META}LabelSelector`, "Label query over the pods that count toward the job. Normally set by the system."),
      manualSelector: bool(
        "When false or unset, the system picks labels unique to the job and adds them to the pod template. When true, the user picks unique labels and the selector. Leave unset.",
      ),
      template: link(`${CORE}PodTemplateSpec`, "The pod created when the job runs."),
      ttlSecondsAfterFinished: int32(
        "Seconds after the job finishes (Complete or Failed) before it becomes eligible for automatic deletion, honoring finalizers. 0: eligible at once. Unset: never deleted automatically.",
      ),
      completionMode: str(
        "How pod completions are tracked: NonIndexed (the job completes after `completions` successful pods) or Indexed (each pod gets an index from 0 to completions-1, in the annotation batch.example.io/job-completion-index; the job completes when each index has succeeded once; requires completions, and parallelism at most 10^5). A controller skips jobs whose mode it does not recognize.",
        { default: "NonIndexed" },
      ),
      suspend: bool("When true, no pods are created, and active pods are deleted; resuming resets startTime.", { default: false }),
    },
    { required: ["template"] },
  ),
  [B("JobStatus")]: object("Observed state of a job.", {
    conditions: arrayOf(B("JobCondition"), "Latest observations of the job's state: Complete, Failed or Suspended.", {
      ...listType("atomic"),
      ...mergeBy("type"),
    }),
    startTime: time(
      "When the controller started processing the job. Unset for a job created suspended until its first resume; reset on every resume.",
    ),
    completionTime: time("When the job finished successfully; only set on success. Not guaranteed to be set in happens-before order across separate operations."),
    active: int32("Number of pending and running pods."),
    succeeded: int32("Number of pods that reached phase Succeeded."),
    failed: int32("Number of pods that reached phase Failed."),
    completedIndexes: str(
      "With completionMode Indexed: the completed indexes as decimal integers in increasing order, comma-separated, with runs of three or more written `first-last` (1,3,4,5,7 is `1,3-5,7`).",
    ),
    uncountedTerminatedPods: link(
      B("UncountedTerminatedPods"),
      "UIDs of terminated pods not yet added to the counters (beta; used while the JobTrackingWithFinalizers gate is on, null for old jobs). The controller adds the UID, removes the pod's finalizer, then removes the UID and increases the counter.",
    ),
    ready: int32("Number of pods with a Ready condition (beta; populated while the JobReadyPods gate is on)."),
  }),
  [B("JobCondition")]: object(
    "One condition of a job.",
    {
      type: str("Condition type: Complete, Failed or Suspended."),
      status: str("True, False or Unknown."),
      lastProbeTime: time("Last time the condition was checked."),
      lastTransitionTime: time("Last time the condition moved from one status to another."),
      reason: str("Brief CamelCase reason for the last transition."),
      message: str("Human-readable details about the last transition."),
    },
    { required: ["type", "status"] },
  ),
  [B("UncountedTerminatedPods")]: object("UIDs of terminated pods not yet counted in the job status.", {
    succeeded: strList("UIDs of succeeded pods.", listType("set")),
    failed: strList("UIDs of failed pods.", listType("set")),
  }),
};
