import type { Binding, CSIDriver, CSINode, ClusterRole, ClusterRoleBinding, ConfigMap, Role, RoleBinding, Event, Job, Lease, Namespace, Node, Pod, PodTemplate, PriorityClass, Secret, ServiceAccount } from "@skiff/api-types";
import type { FieldError } from "@skiff/apimachinery";
import { jobValidationOptionsFor, validateJob, validateJobStatusUpdate, validateJobUpdate } from "./batch/job.js";
import {
  defaultPodValidationOptions,
  validateEvent,
  validateEventUpdate,
  validateNamespace,
  validateNamespaceFinalizeUpdate,
  validateNamespaceStatusUpdate,
  validateNamespaceUpdate,
  validateNode,
  validateNodeUpdate,
  validatePod,
  validatePodBinding,
  validatePodEphemeralContainersUpdate,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodTemplateUpdate,
  validatePodUpdate,
} from "./core/index.js";
import type { PodValidationOptions } from "./core/index.js";
import { podValidationOptionsFor } from "./core/drop-disabled.js";
import { validateCSIDriver, validateCSIDriverUpdate } from "./storage/csidriver.js";
import { validateCSINode, validateCSINodeUpdate } from "./storage/csinode.js";
import { validateLease, validateLeaseUpdate } from "./coordination/lease.js";
import { validatePriorityClass, validatePriorityClassUpdate } from "./scheduling/priorityclass.js";
import {
  validateConfigMap,
  validateConfigMapUpdate,
  validateSecret,
  validateSecretUpdate,
  validateServiceAccount,
  validateServiceAccountUpdate,
} from "./core/config.js";
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from "./rbac/rbac.js";

/**
 * Everything the validators need besides the objects: one object, built by the caller (the
 * apiserver's `main.ts` / strategies) from its feature gates. Validation never reads a gate.
 * Options that depend on the old object (Job: tracking annotation on update, mutable scheduling
 * directives) are derived inside {@link kindValidators}, as 1.23's `validationOptionsForJob` does.
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

/** The kinds {@link kindValidators} and the validation dispatchers handle, with their types. */
export interface ValidatedKindTypes {
  Job: Job;
  CSIDriver: CSIDriver;
  CSINode: CSINode;
  Lease: Lease;
  PriorityClass: PriorityClass;
  PodTemplate: PodTemplate;
  Pod: Pod;
  Node: Node;
  Event: Event;
  Namespace: Namespace;
  ConfigMap: ConfigMap;
  Secret: Secret;
  ServiceAccount: ServiceAccount;
  Role: Role;
  ClusterRole: ClusterRole;
  RoleBinding: RoleBinding;
  ClusterRoleBinding: ClusterRoleBinding;
  Binding: Binding;
}

/** A kind name the validation dispatchers accept. */
export type ValidatedKindName = keyof ValidatedKindTypes;

function jobOptions(job: Job, old: Job | undefined, opts: ValidationOptions) {
  return jobValidationOptionsFor(job, old, opts, podValidationOptionsFor(opts.pod, old?.spec?.template?.spec));
}

/** A validator of a new object of type `T`: pure, never throws; an empty list means valid. */
export type CreateValidator<T> = (obj: T, opts: ValidationOptions) => FieldError[];

/** A validator of an update of `old` to `obj` (both of type `T`): pure, never throws. */
export type UpdateValidator<T> = (obj: T, old: T, opts: ValidationOptions) => FieldError[];

/**
 * The validators of one kind, as its registry strategy calls them: `validate` on create (after
 * defaulting and prepareForCreate), `validateUpdate` on PUT/PATCH of the main resource (after
 * prepareForUpdate; object-meta update rules and immutable fields included). Each takes the whole
 * {@link ValidationOptions} and picks what it needs. None mutates its input.
 *
 * @see pkg/registry/rest/create.go (RESTCreateStrategy.Validate), pkg/registry/rest/update.go (RESTUpdateStrategy.ValidateUpdate)
 */
export interface KindValidator<T> {
  readonly validate: CreateValidator<T>;
  readonly validateUpdate: UpdateValidator<T>;
}

/**
 * The validator of the `/status` subresource of a kind that has one (after the status strategy's
 * prepareForUpdate). Does not mutate its input.
 *
 * @see pkg/registry/batch/job/strategy.go (jobStatusStrategy.ValidateUpdate)
 */
export interface StatusValidator<T> {
  readonly validateStatusUpdate: UpdateValidator<T>;
}

/**
 * The validator of the Namespace `/finalize` subresource. Does not mutate its input.
 *
 * @see pkg/registry/core/namespace/strategy.go (namespaceFinalizeStrategy.ValidateUpdate)
 */
export interface FinalizeValidator<T> {
  readonly validateFinalizeUpdate: UpdateValidator<T>;
}

/**
 * Validation of updates through Pod's `ephemeralcontainers` subresource.
 * @see pkg/registry/core/pod/strategy.go (podEphemeralContainersStrategy.ValidateUpdate)
 */
export interface EphemeralContainersValidator<T> {
  readonly validateEphemeralContainersUpdate: UpdateValidator<T>;
}

/**
 * The type of {@link kindValidators}: a {@link KindValidator} per {@link ValidatedKindName}, plus
 * a {@link StatusValidator} for the kinds with a `/status` subresource and a
 * {@link FinalizeValidator} for Namespace.
 */
export interface KindValidators {
  readonly Job: KindValidator<Job> & StatusValidator<Job>;
  readonly CSIDriver: KindValidator<CSIDriver>;
  readonly CSINode: KindValidator<CSINode>;
  readonly Lease: KindValidator<Lease>;
  readonly PriorityClass: KindValidator<PriorityClass>;
  readonly PodTemplate: KindValidator<PodTemplate>;
  readonly Pod: KindValidator<Pod> & StatusValidator<Pod> & EphemeralContainersValidator<Pod>;
  readonly Node: KindValidator<Node> & StatusValidator<Node>;
  readonly Event: KindValidator<Event>;
  readonly Namespace: KindValidator<Namespace> & StatusValidator<Namespace> & FinalizeValidator<Namespace>;
  readonly ConfigMap: KindValidator<ConfigMap>;
  readonly Secret: KindValidator<Secret>;
  readonly ServiceAccount: KindValidator<ServiceAccount>;
  readonly Role: KindValidator<Role>;
  readonly ClusterRole: KindValidator<ClusterRole>;
  readonly RoleBinding: KindValidator<RoleBinding>;
  readonly ClusterRoleBinding: KindValidator<ClusterRoleBinding>;
  readonly Binding: KindValidator<Binding>;
}

/**
 * The one place that names each kind's validators: {@link validateObject},
 * {@link validateObjectUpdate} and {@link validateStatusUpdate} dispatch through it, and the
 * apiserver's registry strategies call its entries directly. Job, Pod, Node and Namespace also
 * validate `/status` updates; Namespace validates `/finalize` updates; Pod validates
 * `/ephemeralcontainers` updates.
 * Options that depend on the old object (Job) are derived here, as 1.23's
 * `validationOptionsForJob` does. A Binding is never updated: its create rules apply on update.
 *
 * @example
 * const errs = kindValidators.Job.validateStatusUpdate(job, storedJob, defaultValidationOptions);
 * @see pkg/registry/batch/job/strategy.go `validationOptionsForJob`
 */
export const kindValidators: KindValidators = {
  Job: {
    validate: (job, opts) => validateJob(job, jobOptions(job, undefined, opts)),
    validateUpdate: (job, old, opts) => validateJobUpdate(job, old, jobOptions(job, old, opts)),
    validateStatusUpdate: (job, old, opts) => validateJobStatusUpdate(job, old, jobOptions(job, old, opts)),
  },
  CSIDriver: {
    validate: (driver) => validateCSIDriver(driver),
    validateUpdate: (driver, old) => validateCSIDriverUpdate(driver, old),
  },
  CSINode: {
    validate: (node, opts) => validateCSINode(node, { allowLongNodeID: opts.allowLongCSINodeID }),
    validateUpdate: (node, old, opts) => validateCSINodeUpdate(node, old, { allowLongNodeID: opts.allowLongCSINodeID }),
  },
  Lease: {
    validate: (lease) => validateLease(lease),
    validateUpdate: (lease, old) => validateLeaseUpdate(lease, old),
  },
  PriorityClass: {
    validate: (pc) => validatePriorityClass(pc),
    validateUpdate: (pc, old) => validatePriorityClassUpdate(pc, old),
  },
  PodTemplate: {
    validate: (template, opts) => validatePodTemplate(template, opts.pod),
    validateUpdate: (template, old, opts) => validatePodTemplateUpdate(template, old, podValidationOptionsFor(opts.pod, old.template?.spec)),
  },
  Pod: {
    validate: (pod, opts) => validatePod(pod, opts.pod),
    validateUpdate: (pod, old, opts) => validatePodUpdate(pod, old, podValidationOptionsFor(opts.pod, old.spec)),
    validateStatusUpdate: (pod, old, opts) => validatePodStatusUpdate(pod, old, podValidationOptionsFor(opts.pod, old.spec)),
    validateEphemeralContainersUpdate: (pod, old, opts) => validatePodEphemeralContainersUpdate(pod, old, podValidationOptionsFor(opts.pod, old.spec)),
  },
  Node: {
    validate: (node) => validateNode(node),
    validateUpdate: (node, old) => validateNodeUpdate(node, old),
    validateStatusUpdate: (node, old) => validateNodeUpdate(node, old),
  },
  Event: {
    validate: (event) => validateEvent(event),
    validateUpdate: (event, old) => validateEventUpdate(event, old),
  },
  Namespace: {
    validate: (ns) => validateNamespace(ns),
    validateUpdate: (ns, old) => validateNamespaceUpdate(ns, old),
    validateStatusUpdate: (ns, old) => validateNamespaceStatusUpdate(ns, old),
    validateFinalizeUpdate: (ns, old) => validateNamespaceFinalizeUpdate(ns, old),
  },
  ConfigMap: {
    validate: (cm) => validateConfigMap(cm),
    validateUpdate: (cm, old) => validateConfigMapUpdate(cm, old),
  },
  Secret: {
    validate: (secret) => validateSecret(secret),
    validateUpdate: (secret, old) => validateSecretUpdate(secret, old),
  },
  ServiceAccount: {
    validate: (sa) => validateServiceAccount(sa),
    validateUpdate: (sa, old) => validateServiceAccountUpdate(sa, old),
  },
  Role: { validate: (r) => validateRole(r), validateUpdate: (r, old) => validateRoleUpdate(r, old) },
  ClusterRole: { validate: (r) => validateClusterRole(r), validateUpdate: (r, old) => validateClusterRoleUpdate(r, old) },
  RoleBinding: { validate: (b) => validateRoleBinding(b), validateUpdate: (b, old) => validateRoleBindingUpdate(b, old) },
  ClusterRoleBinding: { validate: (b) => validateClusterRoleBinding(b), validateUpdate: (b, old) => validateClusterRoleBindingUpdate(b, old) },
  Binding: {
    validate: (binding) => validatePodBinding(binding),
    validateUpdate: (binding) => validatePodBinding(binding),
  },
};

// The table as the dispatchers see it; the assignment also checks that every ValidatedKindName has an entry.
type AnyKindValidator<T> = KindValidator<T> & Partial<StatusValidator<T>>;
const byKind: { readonly [K in ValidatedKindName]: AnyKindValidator<ValidatedKindTypes[K]> } = kindValidators;

// The entry of `kind`, or undefined for a name outside the table (JavaScript callers; inherited
// Object.prototype members such as "toString" are not entries).
function validatorOf<K extends ValidatedKindName>(kind: K): AnyKindValidator<ValidatedKindTypes[K]> | undefined {
  return Object.prototype.hasOwnProperty.call(byKind, kind) ? byKind[kind] : undefined;
}

/**
 * Validates a new object of `kind` (the create path, after defaulting and the strategy's
 * prepareForCreate) with `kindValidators[kind].validate`. Returns every problem as a FieldError
 * with a Kubernetes path; an empty list means valid, as for a kind outside the table. Pure; never
 * throws.
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
  return validatorOf(kind)?.validate(obj, opts) ?? [];
}

/**
 * Validates an update of the main resource of `kind` (PUT/PATCH, after prepareForUpdate) with
 * `kindValidators[kind].validateUpdate`: the kind's update rules, including object-meta update
 * rules and immutable fields. A Binding is never updated (its create rules apply). Pure; never
 * throws.
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
  return validatorOf(kind)?.validateUpdate(obj, old, opts) ?? [];
}

/**
 * Validates an update through the `/status` subresource with
 * `kindValidators[kind].validateStatusUpdate`: Job → `validateJobStatusUpdate`, Pod →
 * `validatePodStatusUpdate`, Node → `validateNodeUpdate`, Namespace →
 * `validateNamespaceStatusUpdate`. Kinds without a status subresource fall back to
 * {@link validateObjectUpdate}. Pure; never throws.
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
  const v = validatorOf(kind);
  return (v?.validateStatusUpdate ?? v?.validateUpdate)?.(obj, old, opts) ?? [];
}
