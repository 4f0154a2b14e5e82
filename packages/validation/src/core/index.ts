export { defaultPodValidationOptions } from "./options.js";
export type { PodValidationOptions } from "./options.js";
export { validatePodSpec } from "./pod-spec.js";
export {
  validatePod,
  validatePodBinding,
  validatePodEphemeralContainersUpdate,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodTemplateSpec,
  validatePodTemplateUpdate,
  validatePodUpdate,
} from "./pod.js";
export { validateNode, validateNodeUpdate } from "./node.js";
export { validateEvent, validateEventUpdate } from "./event.js";
export {
  validateNamespace,
  validateNamespaceFinalizeUpdate,
  validateNamespaceStatusUpdate,
  validateNamespaceUpdate,
} from "./namespace.js";
export {
  setEventDefaults,
  setNamespaceDefaults,
  setNodeDefaults,
  setPodDefaults,
  setPodSpecDefaults,
  setPodTemplateDefaults,
  setPodTemplateSpecDefaults,
} from "./defaults.js";
export { validateCSIDriverName } from "./volumes.js";
