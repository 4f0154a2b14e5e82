import { defaultValidationOptions, type ValidationOptions } from "@skiff/validation";

/**
 * The feature gates that change which pod-spec fields the Pod, PodTemplate and Job strategies keep
 * and allow (`dropDisabledPodSpecFields`, HostProcess validation).
 */
export interface PodSpecGates {
  /** IdentifyPodOS (beta and on in Skiff's gate set): `spec.os` is kept. */
  readonly identifyPodOS: boolean;
  /** WindowsHostProcessContainers (beta and on in 1.23): `windowsOptions.hostProcess` is allowed. */
  readonly windowsHostProcessContainers: boolean;
}

/** Both gates at their defaults (on). */
export const defaultPodSpecGates: PodSpecGates = Object.freeze({ identifyPodOS: true, windowsHostProcessContainers: true });

/** The gates given, the others at their defaults (on). */
export function podSpecGatesOf(gates: Partial<PodSpecGates>): PodSpecGates {
  return {
    identifyPodOS: gates.identifyPodOS ?? defaultPodSpecGates.identifyPodOS,
    windowsHostProcessContainers: gates.windowsHostProcessContainers ?? defaultPodSpecGates.windowsHostProcessContainers,
  };
}

/**
 * `base` (the default validation options unless given) with the pod options the gates decide: HostProcess
 * fields allowed only with WindowsHostProcessContainers on (the validators also allow them when the
 * old object already set them).
 * @see pkg/api/pod/util.go `GetValidationOptionsFromPodSpecAndMeta` in kubernetes/kubernetes v1.23
 */
export function validationOptionsFor(gates: PodSpecGates, base: ValidationOptions = defaultValidationOptions): ValidationOptions {
  return { ...base, pod: { ...base.pod, allowWindowsHostProcessField: gates.windowsHostProcessContainers } };
}
