/**
 * Indexed completion mode: completion indexes of pods, which indexes to create next, which
 * active pods to delete (invalid or duplicate index), and the index-specific pod template
 * changes (annotation, hostname, `JOB_COMPLETION_INDEX`, generateName).
 *
 * @see pkg/controller/job/indexed_job_utils.go
 */
import { JobCompletionIndexAnnotation, JobCompletionIndexEnvName } from "@skiff/api-types";
import type { Container, Job, Pod, PodTemplateSpec } from "@skiff/api-types";
import { parseIndexes, withOrderedIndexes } from "@skiff/completed-indexes";
import type { IndexInterval } from "@skiff/completed-indexes";
import { compareActivePodsForDeletion } from "./pod-utils.js";

/** Returned by {@link getCompletionIndex} for a missing or unparsable index. */
export const unknownCompletionIndex = -1;

/** Longest `generateName` prefix the apiserver keeps whole (63 − 5 random characters). */
export const maxGeneratedNameLength = 58;

/**
 * The pod's completion index from its annotation: a non-negative decimal integer, else
 * {@link unknownCompletionIndex}. Pure.
 * @see pkg/controller/job/indexed_job_utils.go (getCompletionIndex)
 */
export function getCompletionIndex(pod: Pod): number {
  const v = pod.metadata?.annotations?.[JobCompletionIndexAnnotation];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return unknownCompletionIndex;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : unknownCompletionIndex;
}

/**
 * The Job's completed indexes: those of `status.completedIndexes` (lenient parse, clamped to
 * `completions`) merged with the valid indexes of `succeededPods`. Returns the previous and the
 * new interval lists. Pure.
 * @see pkg/controller/job/indexed_job_utils.go (calculateSucceededIndexes)
 */
export function calculateSucceededIndexes(job: Job, succeededPods: Iterable<Pod>, includeStatus: boolean): { prev: IndexInterval[]; next: IndexInterval[] } {
  const completions = job.spec?.completions ?? 0;
  const prev = includeStatus ? parseIndexes(job.status?.completedIndexes ?? "", completions) : [];
  const added = new Set<number>();
  for (const p of succeededPods) {
    if (p.status?.phase !== "Succeeded") continue;
    const ix = getCompletionIndex(p);
    if (ix !== unknownCompletionIndex && ix < completions) added.add(ix);
  }
  // Always merged, even with nothing new: out-of-order intervals read from the text are dropped
  // here, as upstream's withOrderedIndexes drops them.
  return { prev, next: withOrderedIndexes(prev, [...added].sort((a, b) => a - b)) };
}

/**
 * The lowest `count` indexes in `[0, completions)` that are neither succeeded nor held by one of
 * `activePods`. Pure. @see pkg/controller/job/indexed_job_utils.go (firstPendingIndexes)
 */
export function firstPendingIndexes(activePods: readonly Pod[], succeeded: readonly IndexInterval[], count: number, completions: number): number[] {
  if (count <= 0) return [];
  const held = new Set<number>();
  for (const p of activePods) {
    const ix = getCompletionIndex(p);
    if (ix !== unknownCompletionIndex) held.add(ix);
  }
  const out: number[] = [];
  let iv = 0;
  for (let i = 0; i < completions && out.length < count; i++) {
    // Skip whole succeeded intervals at once.
    while (iv < succeeded.length && (succeeded[iv] as IndexInterval).last < i) iv++;
    const cur = succeeded[iv];
    if (cur && cur.first <= i) {
      i = cur.last;
      continue;
    }
    if (!held.has(i)) out.push(i);
  }
  return out;
}

/**
 * Splits active pods of an Indexed Job into those to delete (missing, invalid or out-of-range
 * index; all but the most valuable pod of an index held by several) and those to keep. Pure.
 * @see pkg/controller/job/indexed_job_utils.go (appendDuplicatedIndexPodsForRemoval)
 */
export function duplicatedIndexPodsForRemoval(activePods: readonly Pod[], completions: number): { rm: Pod[]; left: Pod[] } {
  const rm: Pod[] = [];
  const left: Pod[] = [];
  const byIndex = new Map<number, Pod[]>();
  for (const p of activePods) {
    const ix = getCompletionIndex(p);
    if (ix === unknownCompletionIndex || ix >= completions) {
      rm.push(p);
      continue;
    }
    const list = byIndex.get(ix);
    if (list) list.push(p);
    else byIndex.set(ix, [p]);
  }
  for (const ix of [...byIndex.keys()].sort((a, b) => a - b)) {
    const group = byIndex.get(ix) as Pod[];
    if (group.length === 1) {
      left.push(group[0] as Pod);
      continue;
    }
    group.sort(compareActivePodsForDeletion);
    rm.push(...group.slice(0, -1));
    left.push(group[group.length - 1] as Pod);
  }
  return { rm, left };
}

/** `<job>-<index>-`, the job-name part shortened so the prefix is at most 58 characters. Pure. */
export function podGenerateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${String(index)}-`;
  const prefix = jobName + suffix;
  if (prefix.length <= maxGeneratedNameLength) return prefix;
  return jobName.slice(0, Math.max(0, maxGeneratedNameLength - suffix.length)) + suffix;
}

function addEnv(c: Container): Container {
  if ((c.env ?? []).some((e) => e.name === JobCompletionIndexEnvName)) return c;
  return {
    ...c,
    env: [...(c.env ?? []), { name: JobCompletionIndexEnvName, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JobCompletionIndexAnnotation}']` } } }],
  };
}

/**
 * A copy of `template` whose containers and init containers get `JOB_COMPLETION_INDEX` from the
 * annotation (unless they define it already). Does not mutate its input.
 * @see pkg/controller/job/indexed_job_utils.go (addCompletionIndexEnvVariables)
 */
export function withCompletionIndexEnv(template: PodTemplateSpec): PodTemplateSpec {
  const spec = template.spec;
  if (!spec) return template;
  return {
    ...template,
    spec: {
      ...spec,
      containers: spec.containers.map(addEnv),
      ...(spec.initContainers ? { initContainers: spec.initContainers.map(addEnv) } : {}),
    },
  };
}
