/**
 * `kubectl get jobs` columns.
 * @see pkg/printers/internalversion/printers.go (printJob)
 */
import type { Job } from "@skiff/api-types";
import { formatLabelSelector } from "@skiff/apimachinery";
import type { TableConvertor } from "@skiff/apiserver-core";
import { humanDuration, translateTimestampSince } from "@skiff/apiserver-core";

/** Job table: NAME, COMPLETIONS, DURATION, AGE; wide: CONTAINERS, IMAGES, SELECTOR. */
export const jobTable: TableConvertor<Job & Record<string, unknown>> = {
  columns: [
    { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", priority: 0 },
    { name: "Completions", type: "string", format: "", description: "The desired number of successfully finished pods the job should be run with.", priority: 0 },
    { name: "Duration", type: "string", format: "", description: "Time required to complete the job.", priority: 0 },
    { name: "Age", type: "string", format: "", description: "CreationTimestamp is a timestamp representing the server time when this object was created.", priority: 0 },
    { name: "Containers", type: "string", format: "", description: "Names of each container in the template.", priority: 1 },
    { name: "Images", type: "string", format: "", description: "Images referenced by each container in the template.", priority: 1 },
    { name: "Selector", type: "string", format: "", description: "A label query over pods that should match the pod count.", priority: 1 },
  ],
  cells(job, now) {
    return [
      job.metadata?.name ?? "",
      jobCompletions(job),
      jobDuration(job, now),
      translateTimestampSince(job.metadata?.creationTimestamp, now),
      (job.spec?.template?.spec?.containers ?? []).map((c) => c.name).join(","),
      (job.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? "").join(","),
      formatLabelSelector(job.spec?.selector),
    ];
  },
};

/** COMPLETIONS cell. */
export function jobCompletions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const completions = job.spec?.completions;
  if (completions !== undefined && completions !== null) return `${String(succeeded)}/${String(completions)}`;
  const parallelism = job.spec?.parallelism ?? 0;
  if (parallelism > 1) return `${String(succeeded)}/1 of ${String(parallelism)}`;
  return `${String(succeeded)}/1`;
}

/** DURATION cell. */
export function jobDuration(job: Job, now: Date): string {
  const start = job.status?.startTime;
  if (start === undefined || start === null) return "";
  const end = job.status?.completionTime;
  const endMs = end === undefined || end === null ? now.getTime() : Date.parse(end);
  return humanDuration(endMs - Date.parse(start));
}
