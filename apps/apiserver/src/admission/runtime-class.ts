/**
 * The RuntimeClass admission plugin of 1.23, for a cluster without RuntimeClasses (Skiff serves
 * no `node.k8s.io` API, so no class can exist): pods on CREATE only, not their subresources.
 * - `spec.runtimeClassName` set → 403 `pods "p" is forbidden: pod rejected: RuntimeClass "<name>"
 *   not found` (mutating phase, as 1.23 resolves the class there);
 * - `spec.overhead` set → 403 `pod rejected: Pod Overhead set without corresponding RuntimeClass
 *   defined Overhead` (validating phase). Overhead comes only from a RuntimeClass.
 * So a pod that asks for a runtime the node agents do not know is refused with a clear error, not
 * run with the default one.
 * @see plugin/pkg/admission/runtimeclass/admission.go in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import { newForbidden } from "@skiff/apimachinery";
import type { AdmissionAttributes, AdmissionPlugin } from "@skiff/apiserver-core";

/** The plugin's name, as 1.23's `--enable-admission-plugins` spells it. */
export const RuntimeClassPluginName = "RuntimeClass";

// The pod of a CREATE of `pods` (not a subresource); undefined for anything else.
function createdPod(attrs: AdmissionAttributes): Pod | undefined {
  if (attrs.operation !== "CREATE" || attrs.object === undefined) return undefined;
  if (attrs.info.apiGroup !== "" || attrs.info.resource !== "pods" || attrs.info.subresource !== "") return undefined;
  return attrs.object as Pod;
}

function forbidden(attrs: AdmissionAttributes, pod: Pod, message: string): Error {
  const name = attrs.info.name || pod.metadata?.name || pod.metadata?.generateName || "Unknown";
  return newForbidden({ group: "", resource: "pods" }, name, new Error(message));
}

/**
 * The plugin; see the module comment.
 * @example admission: [..., defaultTolerationSecondsAdmission(...), runtimeClassAdmission()]
 */
export function runtimeClassAdmission(): AdmissionPlugin {
  return {
    name: RuntimeClassPluginName,
    mutate(attrs) {
      const pod = createdPod(attrs);
      const name = pod?.spec?.runtimeClassName;
      if (pod === undefined || name === undefined || name === null) return;
      throw forbidden(attrs, pod, `pod rejected: RuntimeClass "${name}" not found`);
    },
    validate(attrs) {
      const pod = createdPod(attrs);
      if (pod?.spec?.overhead === undefined || pod.spec.overhead === null) return;
      throw forbidden(attrs, pod, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
    },
  };
}
