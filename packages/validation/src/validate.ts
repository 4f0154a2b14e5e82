import type { Binding, CSIDriver, CSINode, Event, Job, Lease, Namespace, Node, Pod, PodTemplate } from "@skiff/api-types";
import type { FieldError } from "@skiff/apimachinery";
import { jobValidationOptionsFor, validateJob, validateJobStatusUpdate, validateJobUpdate } from "./batch/job.js";
import {
  defaultPodValidationOptions,
  validateEvent,
  validateEventUpdate,
  validateNamespace,
  validateNamespaceStatusUpdate,
  validateNamespaceUpdate,
  validateNode,
  validateNodeUpdate,
  validatePod,
  validatePodBinding,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodTemplateUpdate,
  validatePodUpdate,
} from "./core/index.js";
import type { PodValidationOptions } from "./core/index.js";
import { validateCSIDriver, validateCSIDriverUpdate } from "./storage/csidriver.js";
import { validateCSINode, validateCSINodeUpdate } from "./storage/csinode.js";
import { validateLease, validateLeaseUpdate } from "./coordination/lease.js";

/**
 * Everything the validators need besides the objects: one object, built by the caller (the
 * apiserver's `main.ts` / strategies) from its feature gates. Validation never reads a gate.
 * Options that depend on the old object (Job: tracking annotation on update, mutable scheduling
 * directives) are derived inside the dispatchers, as 1.23's `validationOptionsForJob` does.
 */
export interface ValidationOptions {
  /** Options for pods and pod templates (also Job templates). @defaultValue `defaultPodValidationOptions` */
  readonly pod: PodValidationOptions;
  /**
   * Gate JobTrackingWithFinalizers: on create, Jobs may carry the
   * `batch.example.io/job-tracking` annotation. The spec leaves its default configurable.
   * @defaultValue false
   */
  readonly jobTrackingWithFinalizers: boolean;
  /**
   * Gate JobMutableNodeSchedulingDirectives (1.23 beta, on): a suspended, never-started Job's
   * template nodeSelector, tolerations, nodeAffinity, labels and annotations may change.
   * @defaultValue true
   */
  readonly jobMutableNodeSchedulingDirectives: boolean;
  /**
   * CSINode `nodeID` may be 256 characters (else 192), as 1.23's strategy always allows.
   * @defaultValue true
   */
  readonly allowLongCSINodeID: boolean;
}

/** The defaults of {@link ValidationOptions} (1.23 and the spec's gate defaults). */
export const defaultValidationOptions: ValidationOptions = {
  pod: defaultPodValidationOptions,
  jobTrackingWithFinalizers: false,
  jobMutableNodeSchedulingDirectives: true,
  allowLongCSINodeID: true,
};

/** The kinds the validation dispatchers handle, with their types. */
export interface ValidatedKindTypes {
  Job: Job;
  CSIDriver: CSIDriver;
  CSINode: CSINode;
  Lease: Lease;
  PodTemplate: PodTemplate;
  Pod: Pod;
  Node: Node;
  Event: Event;
  Namespace: Namespace;
  Binding: Binding;
}

/** A kind name the validation dispatchers accept. */
export type ValidatedKindName = keyof ValidatedKindTypes;

function jobOptions(job: Job, old: Job | undefined, opts: ValidationOptions) {
  return jobValidationOptionsFor(job, old, opts, opts.pod);
}

/**
 * Validates a new object of `kind` (the create path, after defaulting and the strategy's
 * prepareForCreate). Returns every problem as a FieldError with a Kubernetes path; an empty list
 * means valid. Pure; never throws.
 *
 * @example
 * const errs = validateObject("Job", job, { ...defaultValidationOptions, jobTrackingWithFinalizers: true });
 * if (errs.length) throw newInvalid("Job", job.metadata?.name, errs);
 */
export function validateObject<K extends ValidatedKindName>(
  kind: K,
  obj: ValidatedKindTypes[K],
  opts: ValidationOptions = defaultValidationOptions,
): FieldError[] {
  const o = obj as ValidatedKindTypes[ValidatedKindName];
  switch (kind) {
    case "Job":
      return validateJob(o as Job, jobOptions(o as Job, undefined, opts));
    case "CSIDriver":
      return validateCSIDriver(o as CSIDriver);
    case "CSINode":
      return validateCSINode(o as CSINode, { allowLongNodeID: opts.allowLongCSINodeID });
    case "Lease":
      return validateLease(o as Lease);
    case "PodTemplate":
      return validatePodTemplate(o as PodTemplate, opts.pod);
    case "Pod":
      return validatePod(o as Pod, opts.pod);
    case "Node":
      return validateNode(o as Node);
    case "Event":
      return validateEvent(o as Event);
    case "Namespace":
      return validateNamespace(o as Namespace);
    case "Binding":
      return validatePodBinding(o as Binding);
    default:
      return [];
  }
}

/**
 * Validates an update of the main resource of `kind` (PUT/PATCH, after prepareForUpdate): the
 * kind's update rules, including object-meta update rules and immutable fields. A Binding is
 * never updated (its create rules apply). Pure; never throws.
 *
 * @example
 * const errs = validateObjectUpdate("CSIDriver", newDriver, oldDriver);
 */
export function validateObjectUpdate<K extends ValidatedKindName>(
  kind: K,
  obj: ValidatedKindTypes[K],
  old: ValidatedKindTypes[K],
  opts: ValidationOptions = defaultValidationOptions,
): FieldError[] {
  const o = obj as ValidatedKindTypes[ValidatedKindName];
  const p = old as ValidatedKindTypes[ValidatedKindName];
  switch (kind) {
    case "Job":
      return validateJobUpdate(o as Job, p as Job, jobOptions(o as Job, p as Job, opts));
    case "CSIDriver":
      return validateCSIDriverUpdate(o as CSIDriver, p as CSIDriver);
    case "CSINode":
      return validateCSINodeUpdate(o as CSINode, p as CSINode, { allowLongNodeID: opts.allowLongCSINodeID });
    case "Lease":
      return validateLeaseUpdate(o as Lease, p as Lease);
    case "PodTemplate":
      return validatePodTemplateUpdate(o as PodTemplate, p as PodTemplate, opts.pod);
    case "Pod":
      return validatePodUpdate(o as Pod, p as Pod, opts.pod);
    case "Node":
      return validateNodeUpdate(o as Node, p as Node);
    case "Namespace":
      return validateNamespaceUpdate(o as Namespace, p as Namespace);
    case "Event":
      return validateEventUpdate(o as Event, p as Event);
    case "Binding":
      return validatePodBinding(o as Binding);
    default:
      return [];
  }
}

/**
 * Validates an update through the `/status` subresource: Job → `validateJobStatusUpdate`, Pod →
 * `validatePodStatusUpdate`, Node → `validateNodeUpdate`, Namespace →
 * `validateNamespaceStatusUpdate`. Kinds without a status
 * subresource fall back to {@link validateObjectUpdate}. Pure; never throws.
 *
 * @example
 * const errs = validateStatusUpdate("Job", jobWithNewStatus, storedJob);
 */
export function validateStatusUpdate<K extends ValidatedKindName>(
  kind: K,
  obj: ValidatedKindTypes[K],
  old: ValidatedKindTypes[K],
  opts: ValidationOptions = defaultValidationOptions,
): FieldError[] {
  const o = obj as ValidatedKindTypes[ValidatedKindName];
  const p = old as ValidatedKindTypes[ValidatedKindName];
  switch (kind) {
    case "Job":
      return validateJobStatusUpdate(o as Job, p as Job, jobOptions(o as Job, p as Job, opts));
    case "Pod":
      return validatePodStatusUpdate(o as Pod, p as Pod, opts.pod);
    case "Node":
      return validateNodeUpdate(o as Node, p as Node);
    case "Namespace":
      return validateNamespaceStatusUpdate(o as Namespace, p as Namespace);
    default:
      return validateObjectUpdate(kind, obj, old, opts);
  }
}
