/**
 * The pod's operating system (`spec.os`) and the Windows-only parts of a pod spec: the OS name, the
 * fields each OS forbids, and HostProcess pods.
 *
 * @see pkg/apis/core/validation/validation.go `validateOS`, `validateLinux`, `validateWindows`,
 *   `validateWindowsHostProcessPod` (kubernetes/kubernetes v1.23)
 */
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { field } from "../meta/internal/field.js";
import { arr, isRecord, str } from "../meta/internal/values.js";
import { items, type ContainerView, type PodSpecView, type SecurityContextView } from "./internal-types.js";
import type { PodValidationOptions } from "./options.js";

const validOS = ["linux", "windows"];
const forbiddenForWindows = "cannot be set for a windows pod";

/** Init containers, then containers, then ephemeral containers, with their paths (`VisitContainersWithPath`). */
function containersWithPath(spec: PodSpecView, specPath: FieldPath): [ContainerView, FieldPath][] {
  const out: [ContainerView, FieldPath][] = [];
  for (const key of ["initContainers", "containers", "ephemeralContainers"] as const) {
    items<ContainerView>(spec[key]).forEach((c, i) => out.push([c, specPath.child(key).index(i)]));
  }
  return out;
}

function securityContextOf(c: ContainerView): SecurityContextView | undefined {
  return isRecord(c.securityContext) ? c.securityContext : undefined;
}

/**
 * Checks `spec.os` and, when its name is valid, the fields that OS forbids. An empty name is
 * `Required value: cannot be empty` at `os.name`; another name than `linux` or `windows` is
 * `Unsupported value` at `os` itself (as 1.23 reports it). With `linux`, `windowsOptions` of the
 * pod and of every container are forbidden (`windows options cannot be set for a linux pod`). With
 * `windows`, the pod's `securityContext.seLinuxOptions`, `seccompProfile`, `fsGroup`,
 * `fsGroupChangePolicy`, `sysctls`, `runAsUser`, `runAsGroup`, `supplementalGroups`, and
 * `hostPID`, `hostIPC`, `shareProcessNamespace`, and each container's `seLinuxOptions`,
 * `seccompProfile`, `capabilities`, `readOnlyRootFilesystem`, `privileged`,
 * `allowPrivilegeEscalation`, `procMount`, `runAsUser`, `runAsGroup` are forbidden (`cannot be set
 * for a windows pod`). A spec without `os` gives no error.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodSpec` (its `spec.OS` switch)
 */
export function validatePodOS(spec: PodSpecView, specPath: FieldPath): FieldError[] {
  if (!isRecord(spec.os)) return [];
  const path = specPath.child("os");
  const name = str(spec.os.name);
  if (name === "") return [field.required(path.child("name"), "cannot be empty")];
  if (!validOS.includes(name)) return [field.notSupported(path, name, validOS)];
  return name === "linux" ? validateLinux(spec, specPath) : validateWindows(spec, specPath);
}

function validateLinux(spec: PodSpecView, specPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const msg = "windows options cannot be set for a linux pod";
  if (isRecord(spec.securityContext) && spec.securityContext.windowsOptions != null) {
    errs.push(field.forbidden(specPath.child("securityContext", "windowsOptions"), msg));
  }
  for (const [c, p] of containersWithPath(spec, specPath)) {
    if (securityContextOf(c)?.windowsOptions != null) errs.push(field.forbidden(p.child("securityContext", "windowsOptions"), msg));
  }
  return errs;
}

function validateWindows(spec: PodSpecView, specPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const forbid = (p: FieldPath): void => {
    errs.push(field.forbidden(p, forbiddenForWindows));
  };
  // 1.23's internal PodSecurityContext holds hostPID, hostIPC and shareProcessNamespace, so they
  // are checked with it, in its order, at their v1 paths.
  const sc = isRecord(spec.securityContext) ? spec.securityContext : {};
  const scPath = specPath.child("securityContext");
  if (sc.seLinuxOptions != null) forbid(scPath.child("seLinuxOptions"));
  if (spec.hostPID === true) forbid(specPath.child("hostPID"));
  if (spec.hostIPC === true) forbid(specPath.child("hostIPC"));
  if (sc.seccompProfile != null) forbid(scPath.child("seccompProfile"));
  if (sc.fsGroup != null) forbid(scPath.child("fsGroup"));
  if (sc.fsGroupChangePolicy != null) forbid(scPath.child("fsGroupChangePolicy"));
  if (arr(sc.sysctls).length > 0) forbid(scPath.child("sysctls"));
  if (spec.shareProcessNamespace != null) forbid(specPath.child("shareProcessNamespace"));
  if (sc.runAsUser != null) forbid(scPath.child("runAsUser"));
  if (sc.runAsGroup != null) forbid(scPath.child("runAsGroup"));
  if (sc.supplementalGroups != null) forbid(scPath.child("supplementalGroups"));
  for (const [c, p] of containersWithPath(spec, specPath)) {
    const csc = securityContextOf(c);
    if (csc === undefined) continue;
    const cp = p.child("securityContext");
    for (const key of [
      "seLinuxOptions",
      "seccompProfile",
      "capabilities",
      "readOnlyRootFilesystem",
      "privileged",
      "allowPrivilegeEscalation",
      "procMount",
      "runAsUser",
      "runAsGroup",
    ] as const) {
      if (csc[key] != null) forbid(cp.child(key));
    }
  }
  return errs;
}

/**
 * Checks HostProcess containers: with the gate off (`allowWindowsHostProcessField` false) any
 * `hostProcess` value is forbidden (`not allowed when feature gate 'WindowsHostProcessContainers'
 * is not enabled`); a container's value must equal the pod's when both are set; when any container
 * is a HostProcess one (its own value or the pod's), all must be, `hostNetwork` must be true, and
 * privileged containers must be allowed (`hostProcess containers are disallowed by cluster policy`).
 *
 * @see pkg/apis/core/validation/validation.go `validateWindowsHostProcessPod`
 */
export function validateWindowsHostProcessPod(spec: PodSpecView, specPath: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const gateOff = "not allowed when feature gate 'WindowsHostProcessContainers' is not enabled";
  const sc = isRecord(spec.securityContext) ? spec.securityContext : {};
  const podHostProcess = isRecord(sc.windowsOptions) && typeof sc.windowsOptions.hostProcess === "boolean" ? sc.windowsOptions.hostProcess : undefined;
  const allowField = opts.allowWindowsHostProcessField !== false;
  if (!allowField && podHostProcess !== undefined) {
    return [field.forbidden(specPath.child("securityContext", "windowsOptions", "hostProcess"), gateOff)];
  }
  let containerCount = 0;
  let hostProcessCount = 0;
  for (const [c, p] of containersWithPath(spec, specPath)) {
    containerCount++;
    const wo = securityContextOf(c)?.windowsOptions;
    const own = isRecord(wo) && typeof wo.hostProcess === "boolean" ? wo.hostProcess : undefined;
    const hp = p.child("securityContext", "windowsOptions", "hostProcess");
    if (!allowField && own !== undefined) errs.push(field.forbidden(hp, gateOff));
    if (podHostProcess !== undefined && own !== undefined && podHostProcess !== own) {
      errs.push(field.invalid(hp, own, `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`));
    }
    if (own === true || (own === undefined && podHostProcess === true)) hostProcessCount++;
  }
  if (hostProcessCount > 0) {
    if (hostProcessCount !== containerCount) {
      errs.push(field.invalid(specPath, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"));
    }
    const hostNetwork = spec.hostNetwork === true;
    if (!hostNetwork) errs.push(field.invalid(specPath.child("hostNetwork"), hostNetwork, "hostNetwork must be true if pod contains any hostProcess containers"));
    if (opts.allowPrivileged === false) errs.push(field.forbidden(specPath, "hostProcess containers are disallowed by cluster policy"));
  }
  return errs;
}
