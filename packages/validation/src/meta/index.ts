export { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain, nameIsPathSegment } from "./names.js";
export type { NameValidator } from "./names.js";
export { validateLabelName, validateLabelSelector, validateLabelSelectorRequirement, validateLabels } from "./labels.js";
export {
  totalAnnotationSizeLimitBytes,
  validateAnnotations,
  validateFinalizers,
  validateManagedFields,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from "./objectmeta.js";
export type { ObjectMetaValidationOptions } from "./objectmeta.js";
