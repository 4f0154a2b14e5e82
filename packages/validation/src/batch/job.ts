import type { Job, JobSpec, JobStatus, PodTemplateSpec } from "@skiff/api-types";
import { duplicate, fieldPath, forbidden, invalid, isDNS1123Label, notSupported, required } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { validatePodTemplateSpec } from "../core/index.js";
import type { PodValidationOptions } from "../core/index.js";
import { fieldImmutableMessage, validateImmutableField, validateNonnegativeField } from "../internal/field-checks.js";
import { deepEqual } from "../internal/deep-equal.js";
import { labelSelectorAsMatcher } from "../internal/label-selector.js";
import { nameIsDNSSubdomain, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from "../meta/index.js";

/** The annotation (and pod finalizer) marking Jobs tracked with finalizers. */
export const JobTrackingAnnotation = "batch.example.io/job-tracking";

/** Maximum `spec.parallelism` of an Indexed Job (10^5; caps the length of `completedIndexes`). */
export const MaxParallelismForIndexedJob = 100000;

const completionModes = ["NonIndexed", "Indexed"] as const;
const jobRestartPolicies = ["OnFailure", "Never"] as const;

/**
 * Options of the Job validators, derived by the caller from feature gates and the old object
 * (see {@link jobValidationOptionsFor}); validation never reads a gate itself.
 *
 * @see pkg/apis/batch/validation/validation.go `JobValidationOptions` (kubernetes/kubernetes, 1.23)
 */
export interface JobValidationOptions {
  /** Options for the pod template (`validatePodTemplateSpec`). */
  readonly pod: PodValidationOptions;
  /**
   * Whether `metadata.annotations["batch.example.io/job-tracking"]` is allowed. On create: the
   * JobTrackingWithFinalizers gate; on update: whether the old Job had the annotation.
   */
  readonly allowTrackingAnnotation: boolean;
  /**
   * Whether the template's nodeSelector, tolerations, nodeAffinity, labels and annotations may
   * change on update: the JobMutableNodeSchedulingDirectives gate and the old Job suspended and
   * never started (`status.startTime` unset). Always `false` on create.
   */
  readonly allowMutableSchedulingDirectives: boolean;
}

/** Gates the Job validation options depend on. */
export interface JobValidationGates {
  /** JobTrackingWithFinalizers (spec: beta, configurable). */
  readonly jobTrackingWithFinalizers: boolean;
  /** JobMutableNodeSchedulingDirectives (1.23: beta, on). */
  readonly jobMutableNodeSchedulingDirectives: boolean;
}

/**
 * Builds {@link JobValidationOptions} for a create (`old` undefined) or an update, as 1.23's
 * `validationOptionsForJob` does. Pure.
 *
 * @see pkg/registry/batch/job/strategy.go `validationOptionsForJob` (kubernetes/kubernetes, 1.23)
 * @example
 * const opts = jobValidationOptionsFor(job, oldJob, gates, defaultPodValidationOptions);
 * const errs = validateJobUpdate(job, oldJob, opts);
 */
export function jobValidationOptionsFor(
  _job: Job,
  old: Job | undefined,
  gates: JobValidationGates,
  pod: PodValidationOptions,
): JobValidationOptions {
  if (old === undefined) {
    return { pod, allowTrackingAnnotation: gates.jobTrackingWithFinalizers, allowMutableSchedulingDirectives: false };
  }
  const suspended = old.spec?.suspend === true;
  const notStarted = old.status?.startTime === undefined;
  return {
    pod,
    allowTrackingAnnotation: hasJobTrackingAnnotation(old),
    allowMutableSchedulingDirectives: gates.jobMutableNodeSchedulingDirectives && suspended && notStarted,
  };
}

/** Whether the Job carries the `batch.example.io/job-tracking` annotation. */
export function hasJobTrackingAnnotation(job: Job): boolean {
  const annotations = job.metadata?.annotations;
  return annotations !== undefined && Object.prototype.hasOwnProperty.call(annotations, JobTrackingAnnotation);
}

/**
 * Validates a Job for create (call after defaulting and after the registry generated the
 * selector). Returns every problem as a FieldError; never throws; does not mutate `job`.
 *
 * Rules (1.23 unless the spec says otherwise):
 * - `metadata`: namespaced object meta, name a DNS-1123 subdomain; the job-tracking annotation is
 *   `Forbidden` unless `allowTrackingAnnotation`; an Indexed Job whose `<name>-<completions-1>` is
 *   not a DNS-1123 label → `metadata.name: Invalid value: ... will not able to create pod with
 *   invalid DNS label: <hostname>` (Kubernetes' wording);
 * - generated selector (unless `manualSelector` is true): `metadata.uid` required, template labels
 *   `controller-uid=<uid>` and `job-name=<name>`, and a selector matching them
 *   (`` `selector` not auto-generated ``);
 * - `spec.parallelism`, `completions`, `backoffLimit`, `ttlSecondsAfterFinished` ≥ 0
 *   (`must be greater than or equal to 0`);
 * - `spec.activeDeadlineSeconds` > 0 (`must be greater than 0`): the spec says "positive integer",
 *   which wins over 1.23 (accepted 0);
 * - `spec.completionMode` `NonIndexed`|`Indexed`; Indexed needs `completions`
 *   (`Required value: when completion mode is Indexed`) and `parallelism` ≤ 100000;
 * - `spec.selector` required and valid; it must match the template labels
 *   (`` `selector` does not match template `labels` ``);
 * - the template via `validatePodTemplateSpec`; `restartPolicy` only `OnFailure`|`Never`
 *   (`Unsupported value: "Always": supported values: "OnFailure", "Never"`).
 *
 * @see pkg/apis/batch/validation/validation.go `ValidateJob` (kubernetes/kubernetes, 1.23)
 * @example
 * const errs = validateJob(job, jobValidationOptionsFor(job, undefined, gates, defaultPodValidationOptions));
 */
export function validateJob(job: Job, opts: JobValidationOptions): FieldError[] {
  const meta = fieldPath("metadata");
  const errs = validateObjectMeta(job.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain }, meta);
  errs.push(...validateGeneratedSelector(job));
  errs.push(...validateJobSpec(job.spec, fieldPath("spec"), opts.pod));
  if (!opts.allowTrackingAnnotation && hasJobTrackingAnnotation(job)) {
    errs.push(forbidden(meta.child("annotations").key(JobTrackingAnnotation).toString(), "cannot add this annotation"));
  }
  const spec = job.spec;
  if (spec?.completionMode === "Indexed" && spec.completions !== undefined && spec.completions > 0) {
    const name = job.metadata?.name ?? "";
    const hostname = `${name}-${spec.completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(
        invalid(meta.child("name").toString(), name, `will not able to create pod with invalid DNS label: ${hostname}`),
      );
    }
  }
  return errs;
}

/**
 * Validates an update of a Job (the main resource; status is kept from the old object by the
 * strategy): every create rule on the new Job, object-meta update rules, and immutability of
 * `spec.completions`, `spec.selector`, `spec.completionMode` and `spec.template`
 * (`Invalid value: ...: field is immutable`). With `allowMutableSchedulingDirectives` the
 * template's nodeSelector, tolerations, nodeAffinity, labels and annotations may change.
 * Pure; never throws.
 *
 * @see pkg/apis/batch/validation/validation.go `ValidateJobUpdate`, `ValidateJobSpecUpdate` (kubernetes/kubernetes, 1.23)
 */
export function validateJobUpdate(job: Job, old: Job, opts: JobValidationOptions): FieldError[] {
  const errs = validateJob(job, opts);
  errs.push(...validateObjectMetaUpdate(job.metadata, old.metadata, fieldPath("metadata")));
  const spec = fieldPath("spec");
  const n = job.spec;
  const o = old.spec;
  errs.push(...validateImmutableField(n?.completions, o?.completions, spec.child("completions")));
  errs.push(...validateImmutableField(n?.selector, o?.selector, spec.child("selector")));
  errs.push(...validateTemplateUpdate(n?.template, o?.template, spec.child("template"), opts.allowMutableSchedulingDirectives));
  errs.push(...validateImmutableField(n?.completionMode, o?.completionMode, spec.child("completionMode")));
  return errs;
}

/**
 * Validates an update through the `/status` subresource (the spec is kept from the old object by
 * the status strategy) exactly as 1.23's `ValidateJobUpdateStatus`: object-meta update rules;
 * `status.active`, `succeeded`, `failed`, `ready` ≥ 0; `status.uncountedTerminatedPods` UIDs
 * non-empty (`must not be empty`) and unique across `succeeded` and `failed` (`Duplicate value`).
 * Nothing more: 1.23 checks neither `completedIndexes` nor `conditions` nor times here (the job
 * controller's lenient parser copes with a malformed `completedIndexes`). Pure; never throws.
 *
 * @see pkg/apis/batch/validation/validation.go `ValidateJobUpdateStatus`, `validateJobStatus` (kubernetes/kubernetes, 1.23)
 */
export function validateJobStatusUpdate(job: Job, old: Job, _opts: JobValidationOptions): FieldError[] {
  const errs = validateObjectMetaUpdate(job.metadata, old.metadata, fieldPath("metadata"));
  errs.push(...validateJobStatus(job.status, fieldPath("status")));
  return errs;
}

function validateJobSpec(spec: JobSpec | undefined, path: FieldPath, podOpts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const s: Partial<JobSpec> = spec ?? {};
  errs.push(...validateNonnegativeField(s.parallelism, path.child("parallelism")));
  errs.push(...validateNonnegativeField(s.completions, path.child("completions")));
  if (s.activeDeadlineSeconds !== undefined && s.activeDeadlineSeconds <= 0) {
    errs.push(invalid(path.child("activeDeadlineSeconds").toString(), s.activeDeadlineSeconds, "must be greater than 0"));
  }
  errs.push(...validateNonnegativeField(s.backoffLimit, path.child("backoffLimit")));
  errs.push(...validateNonnegativeField(s.ttlSecondsAfterFinished, path.child("ttlSecondsAfterFinished")));
  if (s.completionMode !== undefined) {
    if (!(completionModes as readonly string[]).includes(s.completionMode)) {
      errs.push(notSupported(path.child("completionMode").toString(), s.completionMode, completionModes));
    }
    if (s.completionMode === "Indexed") {
      if (s.completions === undefined) {
        errs.push(required(path.child("completions").toString(), "when completion mode is Indexed"));
      }
      if (s.parallelism !== undefined && s.parallelism > MaxParallelismForIndexedJob) {
        errs.push(
          invalid(
            path.child("parallelism").toString(),
            s.parallelism,
            `must be less than or equal to ${MaxParallelismForIndexedJob} when completion mode is Indexed`,
          ),
        );
      }
    }
  }
  const templatePath = path.child("template");
  errs.push(...validatePodTemplateSpec(s.template, templatePath, podOpts));
  // 1.23: Always (the pod default) or unset is Required (with the valid values as detail); any
  // other value but OnFailure/Never is NotSupported — after the pod template's own NotSupported.
  const restartPolicy = s.template?.spec?.restartPolicy ?? "";
  const restartPolicyPath = templatePath.child("spec", "restartPolicy").toString();
  if (restartPolicy === "Always" || restartPolicy === "") {
    errs.push(required(restartPolicyPath, `valid values: ${jobRestartPolicies.map((p) => JSON.stringify(p)).join(", ")}`));
  } else if (!(jobRestartPolicies as readonly string[]).includes(restartPolicy)) {
    errs.push(notSupported(restartPolicyPath, restartPolicy, jobRestartPolicies));
  }
  if (s.selector === undefined) {
    errs.push(required(path.child("selector").toString()));
  } else {
    errs.push(...validateLabelSelector(s.selector, path.child("selector")));
  }
  const matcher = labelSelectorAsMatcher(s.selector);
  const labels = s.template?.metadata?.labels;
  if (matcher !== null && !matcher(labels)) {
    errs.push(
      invalid(templatePath.child("metadata", "labels").toString(), labels ?? null, "`selector` does not match template `labels`"),
    );
  }
  return errs;
}

function validateGeneratedSelector(job: Job): FieldError[] {
  const spec = job.spec;
  if (spec?.manualSelector === true || spec?.selector === undefined) return [];
  const errs: FieldError[] = [];
  const uid = job.metadata?.uid ?? "";
  const name = job.metadata?.name ?? "";
  if (uid === "") errs.push(required("metadata.uid"));
  const templateMeta = fieldPath("spec", "template", "metadata");
  const labels = spec.template?.metadata?.labels;
  errs.push(...validateHasLabel(labels, templateMeta, "controller-uid", uid));
  errs.push(...validateHasLabel(labels, templateMeta, "job-name", name));
  const matcher = labelSelectorAsMatcher(spec.selector);
  if (matcher !== null && !matcher({ "controller-uid": uid, "job-name": name })) {
    errs.push(invalid("spec.selector", spec.selector, "`selector` not auto-generated"));
  }
  return errs;
}

function validateHasLabel(
  labels: Readonly<Record<string, string>> | undefined,
  path: FieldPath,
  key: string,
  expected: string,
): FieldError[] {
  const p = path.child("labels").key(key).toString();
  if (labels === undefined || !Object.prototype.hasOwnProperty.call(labels, key)) return [required(p, expected)];
  if (labels[key] !== expected) return [invalid(p, labels, `must be '${expected}'`)];
  return [];
}

type MutableTemplate = {
  metadata?: { labels?: unknown; annotations?: unknown; [k: string]: unknown };
  spec?: { nodeSelector?: unknown; tolerations?: unknown; affinity?: { nodeAffinity?: unknown; [k: string]: unknown }; [k: string]: unknown };
  [k: string]: unknown;
};

function validateTemplateUpdate(
  template: PodTemplateSpec | undefined,
  old: PodTemplateSpec | undefined,
  path: FieldPath,
  allowMutableSchedulingDirectives: boolean,
): FieldError[] {
  let oldTemplate: unknown = old;
  if (allowMutableSchedulingDirectives) {
    const t = structuredClone(old ?? {}) as MutableTemplate;
    const n = (template ?? {}) as MutableTemplate;
    const newAffinity = n.spec?.affinity;
    const spec = (t.spec ??= {});
    if (newAffinity === undefined && spec.affinity !== undefined) {
      delete spec.affinity.nodeAffinity;
      if (Object.keys(spec.affinity).every((k) => spec.affinity?.[k] === undefined)) delete spec.affinity;
    } else if (newAffinity !== undefined && spec.affinity === undefined) {
      spec.affinity = newAffinity.nodeAffinity === undefined ? {} : { nodeAffinity: newAffinity.nodeAffinity };
    } else if (newAffinity !== undefined && spec.affinity !== undefined) {
      if (newAffinity.nodeAffinity === undefined) delete spec.affinity.nodeAffinity;
      else spec.affinity.nodeAffinity = newAffinity.nodeAffinity;
    }
    assignOrDelete(spec, "nodeSelector", n.spec?.nodeSelector);
    assignOrDelete(spec, "tolerations", n.spec?.tolerations);
    const meta = (t.metadata ??= {});
    assignOrDelete(meta, "annotations", n.metadata?.annotations);
    assignOrDelete(meta, "labels", n.metadata?.labels);
    oldTemplate = t;
  }
  if (deepEqual(template, oldTemplate)) return [];
  return [invalid(path.toString(), template ?? null, fieldImmutableMessage)];
}

function assignOrDelete(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

function validateJobStatus(status: JobStatus | undefined, path: FieldPath): FieldError[] {
  if (status === undefined) return [];
  const errs: FieldError[] = [];
  errs.push(...validateNonnegativeField(status.active, path.child("active")));
  errs.push(...validateNonnegativeField(status.succeeded, path.child("succeeded")));
  errs.push(...validateNonnegativeField(status.failed, path.child("failed")));
  errs.push(...validateNonnegativeField(status.ready, path.child("ready")));
  const uncounted = status.uncountedTerminatedPods;
  if (uncounted !== undefined) {
    const up = path.child("uncountedTerminatedPods");
    const seen = new Set<string>();
    for (const list of ["succeeded", "failed"] as const) {
      (uncounted[list] ?? []).forEach((uid, i) => {
        const p = up.child(list).index(i).toString();
        if (uid === "") errs.push(invalid(p, uid, "must not be empty"));
        else if (seen.has(uid)) errs.push(duplicate(p, uid));
        else seen.add(uid);
      });
    }
  }
  return errs;
}
