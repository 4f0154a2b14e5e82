import type { PodSpec } from "@skiff/api-types";
import { isRecord } from "../meta/internal/values.js";
import type { PodValidationOptions } from "./options.js";

/** The gates whose pod-spec fields {@link dropDisabledPodSpecFields} drops. */
export interface PodFieldGates {
  /** IdentifyPodOS: `spec.os` is kept only when on (or already used by the old spec). */
  readonly identifyPodOS: boolean;
}

/**
 * Drops the pod-spec fields whose gate is off, unless the old spec already used them, as 1.23's
 * pod, pod-template and workload strategies do on create and update: `spec.os` when IdentifyPodOS
 * is off and `old` had no `os`. `old` is `undefined` on create. MUTATES `spec` in place; never
 * throws.
 *
 * @see pkg/api/pod/util.go `dropDisabledFields` (podOSInUse) in kubernetes/kubernetes v1.23
 */
export function dropDisabledPodSpecFields(spec: PodSpec | undefined, old: PodSpec | undefined, gates: PodFieldGates): void {
  if (spec === undefined) return;
  if (!gates.identifyPodOS && old?.os == null) delete spec.os;
}

/** Whether a spec sets `windowsOptions.hostProcess` (true or false) on the pod or any container. */
function setsWindowsHostProcess(spec: PodSpec | undefined): boolean {
  if (spec === undefined) return false;
  const sets = (sc: unknown): boolean => isRecord(sc) && isRecord(sc.windowsOptions) && sc.windowsOptions.hostProcess != null;
  if (sets(spec.securityContext)) return true;
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].some((c) => sets(c.securityContext));
}

/**
 * The pod validation options for a new spec beside its old one (`undefined` on create): HostProcess
 * fields are allowed when `base` allows them (the gate is on) or the old spec already set one. The
 * other options come from `base` unchanged.
 *
 * @see pkg/api/pod/util.go `GetValidationOptionsFromPodSpecAndMeta` in kubernetes/kubernetes v1.23
 */
export function podValidationOptionsFor(base: PodValidationOptions, old: PodSpec | undefined): PodValidationOptions {
  if (base.allowWindowsHostProcessField !== false || !setsWindowsHostProcess(old)) return base;
  return { ...base, allowWindowsHostProcessField: true };
}
