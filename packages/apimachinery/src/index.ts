export {
  FieldErrorType,
  GoSyntaxValue,
  FieldPath,
  duplicate,
  fieldPath,
  forbidden,
  formatFieldError,
  formatFieldErrorBody,
  formatFieldErrors,
  internalError,
  invalid,
  notFound,
  notSupported,
  required,
  tooLong,
  tooMany,
} from "./field-errors.js";
export type { FieldError } from "./field-errors.js";
export {
  DNS1035LabelMaxLength,
  DNS1123LabelMaxLength,
  DNS1123SubdomainMaxLength,
  LabelValueMaxLength,
  QualifiedNameMaxLength,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
} from "./names.js";
export {
  everythingSelector,
  formatLabelSelector,
  labelSelectorAsSelector,
  newRequirement,
  nothingSelector,
  parseLabelSelector,
  selectorFromRequirements,
  selectorFromSet,
} from "./label-selector.js";
export type {
  LabelRequirement,
  LabelSelector,
  LabelSelectorRequirement,
  Labels,
  SelectionOperator,
  Selector,
  SelectorResult,
} from "./label-selector.js";
export { escapeFieldSelectorValue, fieldSelectorFromSet, parseFieldSelector, unescapeFieldSelectorValue } from "./field-selector.js";
export type { FieldRequirement, FieldSelectionOperator, FieldSelector, Fields } from "./field-selector.js";
export {
  StatusError,
  errorToStatus,
  internalErrorMessage,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isExpired,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotFound,
  isServerTimeout,
  isServiceUnavailable,
  isStatusError,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenericServerResponse,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeoutError,
  newTooManyRequests,
  newUnauthorized,
  newUnsupportedMediaType,
  optimisticLockErrorMessage,
  qualifiedKind,
  qualifiedResource,
  reasonForError,
  statusErrorFromObject,
  statusReasonCodes,
} from "./status-errors.js";
export type { GroupKind, GroupResource, StatusBody, StatusCause, StatusDetails, StatusReason } from "./status-errors.js";
export { PatchError, isPatchError } from "./patch-error.js";
export type { PatchErrorReason } from "./patch-error.js";
export { applyJSONPatch, maxJSONPatchOperations } from "./json-patch.js";
export type { JSONPatchOperation } from "./json-patch.js";
export { applyMergePatch, createMergePatch } from "./merge-patch.js";
export { PatchSchemaError, emptyPatchSchema, patchSchemaFromOpenAPI } from "./patch-schema.js";
export type { PatchField, PatchMeta, PatchSchema, PatchSchemaErrorReason, PatchSchemaOptions } from "./patch-schema.js";
export { applyStrategicMergePatch } from "./strategic-merge-patch.js";
export {
  ContinueTokenError,
  ResourceVersionError,
  decodeContinue,
  encodeContinue,
  formatResourceVersion,
  parseResourceVersion,
} from "./resource-version.js";
export type { ContinueToken, ResourceVersionErrorReason } from "./resource-version.js";
export {
  WatchDecodeError,
  WatchEventDecoder,
  decodeWatchStream,
  formatWatchEvent,
  isWatchEventType,
  newBookmarkEvent,
} from "./watch.js";
export type { BookmarkObject, WatchDecodeErrorReason, WatchEvent, WatchEventDecoderOptions, WatchEventType } from "./watch.js";
export {
  FieldSet,
  FieldsV1Error,
  comparePathElements,
  fieldElement,
  formatFieldPath,
  indexElement,
  keyElement,
  parseFieldsV1,
  valueElement,
} from "./managed-fields/field-set.js";
export type { FieldSetPath, PathElement } from "./managed-fields/field-set.js";
export { deducedTypeSchema, typeSchemaFromOpenAPI } from "./managed-fields/type-schema.js";
export type { ListType, TypeSchema } from "./managed-fields/type-schema.js";
export { TypedValueError, compareObjects, mergeApplied, removeFields, toFieldSet } from "./managed-fields/typed.js";
export type { Comparison } from "./managed-fields/typed.js";
export {
  ApplyConflictError,
  ApplyRequestError,
  ancientChangesManager,
  applyConfiguration,
  beforeFirstApplyManager,
  decodeManagedFields,
  encodeManagedFields,
  fieldPathOf,
  maxUpdateManagers,
  recordUpdate,
} from "./managed-fields/field-manager.js";
export type { FieldConflict, FieldManagerOptions, ManagedFieldsEntry, ManagerRecord } from "./managed-fields/field-manager.js";
export { checkDocumentLimits, checkObjectDepth, estimateYAMLDepth, maxDocumentDepth, maxJSONPatchCopyBytes, maxObjectDepth, maxPatchedObjectBytes } from "./document-limits.js";
export type { DocumentLimitProblem } from "./document-limits.js";
export { goQuote } from "./internal/go-format.js";
export { cloneJSON as deepCopyJSON } from "./internal/json.js";
export { newFileTracer, noopTracer, parseTraceRecords, traceFileEnv, tracerFromEnv } from "./trace.js";
export type { TraceFields, TraceRecord, Tracer } from "./trace.js";
