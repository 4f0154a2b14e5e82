// Structural decoding.
export { decodeObject, formatDecodeError } from "./decode.js";
export type { DecodeFieldError, DecodeOptions, DecodeResult, FieldValidation, JsonTypeName } from "./decode.js";

// zod schemas (each `satisfies z.ZodType<X>` against @skiff/api-types).
export { isKindName, kindSchemas } from "./schemas/index.js";
export type { KindName, KindTypes } from "./schemas/index.js";
export {
  deleteOptionsSchema,
  labelSelectorSchema,
  listMetaSchema,
  objectMetaSchema,
  ownerReferenceSchema,
} from "./schemas/meta.js";
export { jobListSchema, jobSchema, jobSpecSchema, jobStatusSchema } from "./schemas/batch.js";
export {
  csiDriverListSchema,
  csiDriverSchema,
  csiDriverSpecSchema,
  csiNodeListSchema,
  csiNodeSchema,
  csiNodeSpecSchema,
} from "./schemas/storage.js";
export { leaseListSchema, leaseSchema, leaseSpecSchema } from "./schemas/coordination.js";
export { priorityClassListSchema, priorityClassSchema } from "./schemas/scheduling.js";
export { configMapListSchema, configMapSchema, secretListSchema, secretSchema, serviceAccountListSchema, serviceAccountSchema } from "./schemas/config.js";
export {
  bindingSchema,
  containerSchema,
  ephemeralContainerSchema,
  eventListSchema,
  eventSchema,
  namespaceListSchema,
  namespaceSchema,
  nodeListSchema,
  nodeSchema,
  podListSchema,
  podSchema,
  podSpecSchema,
  podTemplateListSchema,
  podTemplateSchema,
  podTemplateSpecSchema,
} from "./schemas/core.js";

// Defaulting (mutates in place).
export { applyDefaults } from "./defaults/apply.js";
export { DefaultJobBackoffLimit, setJobDefaults } from "./defaults/job.js";
export { setCSIDriverDefaults } from "./defaults/csidriver.js";

// Validation entry points.
export { defaultValidationOptions, kindValidators, validateObject, validateObjectUpdate, validateStatusUpdate } from "./validate.js";
export type {
  CreateValidator,
  FinalizeValidator,
  EphemeralContainersValidator,
  KindValidator,
  KindValidators,
  StatusValidator,
  UpdateValidator,
  ValidatedKindName,
  ValidatedKindTypes,
  ValidationOptions,
} from "./validate.js";

// batch/v1 Job.
export {
  JobTrackingAnnotation,
  MaxParallelismForIndexedJob,
  hasJobTrackingAnnotation,
  jobValidationOptionsFor,
  validateJob,
  validateJobStatusUpdate,
  validateJobUpdate,
} from "./batch/job.js";
export type { JobValidationGates, JobValidationOptions } from "./batch/job.js";
export { dropDisabledJobFields } from "./batch/drop-disabled.js";
export type { JobFieldGates } from "./batch/drop-disabled.js";
export { dropDisabledPodSpecFields } from "./core/drop-disabled.js";
export type { PodFieldGates } from "./core/drop-disabled.js";

// storage.example.io/v1 CSIDriver and CSINode.
export { CSIDriverNameMaxLength, nameIsCSIDriverName, validateCSINodeDriverName } from "./storage/csi-driver-name.js";
export {
  MaxTokenExpirationSeconds,
  MinTokenExpirationSeconds,
  validateCSIDriver,
  validateCSIDriverUpdate,
} from "./storage/csidriver.js";
export {
  CSINodeIDLongerMaxLength,
  CSINodeIDMaxLength,
  defaultCSINodeValidationOptions,
  validateCSINode,
  validateCSINodeUpdate,
} from "./storage/csinode.js";
export type { CSINodeValidationOptions } from "./storage/csinode.js";

// core/v1 ConfigMap, Secret, ServiceAccount (src/core/config.ts).
export {
  immutableWhenSetMessage,
  maxSecretSizeBytes,
  setSecretDefaults,
  validateConfigMap,
  validateConfigMapUpdate,
  validateSecret,
  validateSecretUpdate,
  validateServiceAccount,
  validateServiceAccountUpdate,
} from "./core/config.js";

// rbac.authorization.k8s.io/v1 (src/rbac/rbac.ts).
export {
  setBindingDefaults,
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validatePolicyRule,
  validateRole,
  validateRoleBinding,
  validateRoleBindingSubject,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from "./rbac/rbac.js";
export {
  aggregationRuleSchema,
  clusterRoleBindingListSchema,
  clusterRoleBindingSchema,
  clusterRoleListSchema,
  clusterRoleSchema,
  policyRuleSchema,
  roleBindingListSchema,
  roleBindingSchema,
  roleListSchema,
  roleRefSchema,
  roleSchema,
  subjectSchema,
} from "./schemas/rbac.js";

// coordination.k8s.io/v1 Lease.
export { validateLease, validateLeaseUpdate } from "./coordination/lease.js";

// scheduling.k8s.io/v1 PriorityClass.
export { SystemPriorityClassPrefix, knownSystemPriorityClass, setPriorityClassDefaults, validatePriorityClass, validatePriorityClassUpdate } from "./scheduling/priorityclass.js";

// Object metadata, labels, selectors (src/meta).
export {
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
  totalAnnotationSizeLimitBytes,
  validateAnnotations,
  validateFinalizers,
  validateLabelName,
  validateLabelSelector,
  validateLabelSelectorRequirement,
  validateLabels,
  validateManagedFields,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from "./meta/index.js";
export type { NameValidator, ObjectMetaValidationOptions } from "./meta/index.js";

// core/v1 Pod, PodTemplate, Node, Event, Namespace, Binding (src/core).
export {
  defaultPodValidationOptions,
  setEventDefaults,
  setNamespaceDefaults,
  setNodeDefaults,
  setPodDefaults,
  setPodSpecDefaults,
  setPodTemplateDefaults,
  setPodTemplateSpecDefaults,
  validateCSIDriverName,
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
  validatePodSpec,
  validatePodEphemeralContainersUpdate,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodTemplateSpec,
  validatePodTemplateUpdate,
  validatePodUpdate,
} from "./core/index.js";
export type { PodValidationOptions } from "./core/index.js";
