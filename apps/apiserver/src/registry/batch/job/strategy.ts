/**
 * batch/v1 Job: create/update/status hooks, selector generation, field selectors, delete policy.
 * @see pkg/registry/batch/job/strategy.go
 */
import type { Job } from "@skiff/api-types";
import { findResource } from "@skiff/api-types";
import { deepCopyJSON } from "@skiff/apimachinery";
import type { FieldError } from "@skiff/apimachinery";
import { semanticEqual } from "@skiff/apiserver-core";
import type { RequestContext, ResourceStrategy, StatusStrategy } from "@skiff/apiserver-core";
import { JobTrackingAnnotation, dropDisabledJobFields, dropDisabledPodSpecFields, kindValidators, setJobDefaults } from "@skiff/validation";
import type { ValidationOptions } from "@skiff/validation";
import { podSpecGatesOf, validationOptionsFor, type PodSpecGates } from "../../../internal/pod-spec-gates.js";
import { keepAllButStatus } from "../../../internal/status-split.js";
import { jobTable } from "./printer.js";

type JobObject = Job & Record<string, unknown>;

/** The feature gates the Job strategy reads (the pod-spec ones default to on). */
export interface JobStrategyGates extends Partial<PodSpecGates> {
  readonly jobReadyPods: boolean;
  readonly jobTrackingWithFinalizers: boolean;
  readonly jobMutableNodeSchedulingDirectives: boolean;
}

/** The warning a Job delete without a propagation policy returns (reference §11). */
export const jobDeleteWarning =
  "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning";

/**
 * Build the Job strategy. `prepareForCreate` needs `metadata.uid` already assigned (the store
 * sets it before calling the hook) to generate the `controller-uid` selector.
 *
 * @example
 * ```ts
 * const s = createJobStrategy({ jobReadyPods: true, jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: true });
 * ```
 */
export function createJobStrategy(gates: JobStrategyGates): ResourceStrategy<JobObject> {
  const resource = findResource({ group: "batch", resource: "jobs" }) ?? mustFind("jobs");
  // kindValidators.Job derives the per-Job options (tracking annotation, mutable scheduling
  // directives) from these and the old Job.
  const specGates = podSpecGatesOf(gates);
  const opts: ValidationOptions = {
    ...validationOptionsFor(specGates),
    jobTrackingWithFinalizers: gates.jobTrackingWithFinalizers,
    jobMutableNodeSchedulingDirectives: gates.jobMutableNodeSchedulingDirectives,
  };
  const validators = kindValidators.Job;
  const status: StatusStrategy<JobObject> = {
    prepareForUpdate(_ctx, obj, old) {
      // Everything but status (and the managedFields the handler recorded) from the stored Job.
      keepAllButStatus(obj, old);
      dropDisabledJobFields(obj, old, gates);
    },
    validateUpdate(_ctx, obj, old): FieldError[] {
      return validators.validateStatusUpdate(obj, old, opts);
    },
  };
  return {
    resource,
    applyDefaults(obj) {
      setJobDefaults(obj);
    },
    prepareForCreate(_ctx: RequestContext, job) {
      // 1.23: `job.Status = batch.JobStatus{}` — a struct, on the wire `"status":{}`.
      job.status = {};
      const meta = (job.metadata ??= {});
      meta.generation = 1;
      if (gates.jobTrackingWithFinalizers) {
        meta.annotations = { ...meta.annotations, [JobTrackingAnnotation]: "" };
      } else if (meta.annotations !== undefined) {
        delete meta.annotations[JobTrackingAnnotation];
      }
      generateSelector(job);
      copyTemplateLabelsIfEmpty(job);
      dropDisabledJobFields(job, undefined, gates);
      dropDisabledPodSpecFields(job.spec?.template.spec, undefined, specGates);
    },
    validate(_ctx, job) {
      return validators.validate(job, opts);
    },
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForUpdate(_ctx, job, old) {
      if (old.status === undefined) delete job.status;
      else job.status = deepCopyJSON(old.status);
      dropDisabledJobFields(job, old, gates);
      dropDisabledPodSpecFields(job.spec?.template.spec, old.spec?.template.spec, specGates);
      copyTemplateLabelsIfEmpty(job);
      // Only a spec change bumps generation (1.23: !apiequality.Semantic.DeepEqual(new.Spec, old.Spec));
      // labels, annotations and status writes keep it (the store set it to the old one).
      if (!semanticEqual(job.spec, old.spec)) {
        (job.metadata ??= {}).generation = (old.metadata?.generation ?? 0) + 1;
      }
    },
    validateUpdate(_ctx, job, old) {
      return validators.validateUpdate(job, old, opts);
    },
    status,
    getAttrs(job) {
      return {
        labels: { ...job.metadata?.labels },
        fields: {
          "metadata.name": job.metadata?.name ?? "",
          "metadata.namespace": job.metadata?.namespace ?? "",
          "status.successful": String(job.status?.succeeded ?? 0),
        },
      };
    },
    fieldSelectorKeys: ["status.successful"],
    fieldLabelError: (label) => `field label "${label}" not supported for batchv1.Job`,
    defaultGarbageCollectionPolicy() {
      return "Orphan";
    },
    warningsOnDefaultDelete() {
      return [jobDeleteWarning];
    },
    returnDeletedObject: false,
    table: jobTable,
  };
}

/**
 * Unless `spec.manualSelector` is true, set `spec.selector` to `controller-uid=<uid>` and add
 * `controller-uid` and `job-name` to the template labels. Mutates `job`.
 * @see pkg/registry/batch/job/strategy.go (generateSelector)
 */
export function generateSelector(job: Job): void {
  const spec = job.spec;
  if (spec === undefined || spec.manualSelector === true) return;
  const uid = job.metadata?.uid ?? "";
  const template = (spec.template ??= {});
  const tmeta = (template.metadata ??= {});
  const labels = (tmeta.labels ??= {});
  labels["controller-uid"] ??= uid;
  labels["job-name"] ??= job.metadata?.name ?? "";
  const sel = (spec.selector ??= {});
  const matchLabels = (sel.matchLabels ??= {});
  matchLabels["controller-uid"] ??= uid;
}

/**
 * A Job with no labels of its own shows its template's labels, the generated `controller-uid` and
 * `job-name` included, so `kubectl get jobs -l job-name=<name>` finds it. Kubernetes 1.23 gets this
 * from `SetDefaults_Job` (`if len(obj.Labels) == 0 { obj.Labels = obj.Spec.Template.Labels }`),
 * which runs again on every decode from storage, after the strategy generated the labels; copying
 * once the selector is generated gives the same observable object. Mutates `job`.
 * @see pkg/apis/batch/v1/defaults.go
 */
export function copyTemplateLabelsIfEmpty(job: Job): void {
  const meta = (job.metadata ??= {});
  const templateLabels = job.spec?.template?.metadata?.labels;
  if (templateLabels === undefined || Object.keys(templateLabels).length === 0) return;
  if (meta.labels !== undefined && Object.keys(meta.labels).length > 0) return;
  meta.labels = { ...templateLabels };
}

function mustFind(plural: string): never {
  throw new Error(`resource ${plural} is not in @skiff/api-types' resources table`);
}
