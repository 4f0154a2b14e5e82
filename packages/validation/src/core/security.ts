/**
 * Security contexts of pods and containers.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodSecurityContext`, `ValidateSecurityContext`
 */
import { isDNS1123Subdomain, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { field, inclusiveRangeError } from "../meta/internal/field.js";
import { arr, isRecord, num, str, utf8Length } from "../meta/internal/values.js";
import { items, type ContainerPortView, type ContainerView, type PodSpecView, type SeccompProfileView, type SecurityContextView } from "./internal-types.js";
import { validateLocalDescendingPath } from "./paths.js";
import type { PodValidationOptions } from "./options.js";

const maxID = 2147483647;
const sysctlSegmentFmt = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const sysctlFmt = `(${sysctlSegmentFmt}\\.)*${sysctlSegmentFmt}`;
const sysctlRe = new RegExp(`^${sysctlFmt}$`);
const sysctlMaxLength = 253;

function validateID(value: unknown, path: FieldPath): FieldError[] {
  const v = num(value);
  if (v === undefined) return [];
  return Number.isInteger(v) && v >= 0 && v <= maxID ? [] : [field.invalid(path, v, inclusiveRangeError(0, maxID))];
}

/**
 * Checks a seccomp profile: type `Localhost`, `RuntimeDefault` or `Unconfined` (required when the
 * profile is set), `localhostProfile` required for `Localhost` (a relative path without `..`) and
 * forbidden otherwise.
 */
export function validateSeccompProfile(profile: unknown, path: FieldPath): FieldError[] {
  if (!isRecord(profile)) return [];
  const sp = profile as SeccompProfileView;
  const errs: FieldError[] = [];
  const type = str(sp.type);
  const types = ["Localhost", "RuntimeDefault", "Unconfined"];
  if (type === "") errs.push(field.required(path.child("type"), "type is required when seccompProfile is set"));
  else if (!types.includes(type)) errs.push(field.notSupported(path.child("type"), type, types));
  if (type === "Localhost") {
    if (sp.localhostProfile === undefined) {
      errs.push(field.required(path.child("localhostProfile"), "must be set when seccomp type is Localhost"));
    } else {
      errs.push(...validateLocalDescendingPath(str(sp.localhostProfile), path.child("localhostProfile")));
    }
  } else if (sp.localhostProfile !== undefined) {
    errs.push(field.invalid(path.child("localhostProfile"), sp, "can only be set when seccomp type is Localhost"));
  }
  return errs;
}

const maxGMSACredentialSpecLengthInKiB = 64;
const maxRunAsUserNameDomainLength = 256;
const maxRunAsUserNameUserLength = 104;
// Go's [[:cntrl:]] is ASCII only.
// eslint-disable-next-line no-control-regex
const ctrlRe = /[\x00-\x1f\x7f]/;
const validNetBiosRe = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/u;
const dnsLabelFormat = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?";
const validWindowsUserDomainDNSRe = new RegExp(`^${dnsLabelFormat}(?:\\.${dnsLabelFormat})*$`);
const invalidUserNameCharsRe = /["/\\:;|=,+*?<>@[\]]/;
const invalidUserNameDotsSpacesRe = /^[. ]+$/;

/**
 * Checks Windows security options (of a pod or a container) as 1.23 does, whatever the pod's OS:
 * `gmsaCredentialSpecName` a DNS subdomain; `gmsaCredentialSpec` non-empty and under 64 KiB;
 * `runAsUserName` non-empty, without control characters, at most one backslash, its domain (before
 * the backslash) under 256 bytes in NetBIOS or DNS form, its user part non-empty, at most 104 bytes,
 * not only dots or spaces and without `"/\:;|=,+*?<>@[]`. Lengths are in bytes, as Go's `len`.
 *
 * @see pkg/apis/core/validation/validation.go `validateWindowsSecurityContextOptions`
 */
export function validateWindowsSecurityContextOptions(value: unknown, path: FieldPath): FieldError[] {
  if (!isRecord(value)) return [];
  const errs: FieldError[] = [];
  if (value.gmsaCredentialSpecName !== undefined) {
    const name = str(value.gmsaCredentialSpecName);
    for (const msg of isDNS1123Subdomain(name)) errs.push(field.invalid(path.child("gmsaCredentialSpecName"), name, msg));
  }
  if (value.gmsaCredentialSpec !== undefined) {
    const spec = str(value.gmsaCredentialSpec);
    const l = utf8Length(spec);
    if (l === 0) errs.push(field.invalid(path.child("gmsaCredentialSpec"), spec, "gmsaCredentialSpec cannot be an empty string"));
    else if (l > maxGMSACredentialSpecLengthInKiB * 1024) {
      errs.push(field.invalid(path.child("gmsaCredentialSpec"), spec, `gmsaCredentialSpec size must be under ${maxGMSACredentialSpecLengthInKiB} KiB`));
    }
  }
  if (value.runAsUserName !== undefined) {
    const name = str(value.runAsUserName);
    const p = path.child("runAsUserName");
    const parts = name.split("\\");
    if (name === "") errs.push(field.invalid(p, name, "runAsUserName cannot be an empty string"));
    else if (ctrlRe.test(name)) errs.push(field.invalid(p, name, "runAsUserName cannot contain control characters"));
    else if (parts.length > 2) errs.push(field.invalid(p, name, "runAsUserName cannot contain more than one backslash"));
    else {
      const hasDomain = parts.length === 2;
      const domain = hasDomain ? (parts[0] ?? "") : "";
      const user = hasDomain ? (parts[1] ?? "") : (parts[0] ?? "");
      if (utf8Length(domain) >= maxRunAsUserNameDomainLength) {
        errs.push(field.invalid(p, name, `runAsUserName's Domain length must be under ${maxRunAsUserNameDomainLength} characters`));
      }
      if (hasDomain && !(validNetBiosRe.test(domain) || validWindowsUserDomainDNSRe.test(domain))) {
        errs.push(field.invalid(p, name, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
      }
      const l = utf8Length(user);
      if (l === 0) errs.push(field.invalid(p, name, "runAsUserName's User cannot be empty"));
      else if (l > maxRunAsUserNameUserLength) {
        errs.push(field.invalid(p, name, `runAsUserName's User length must not be longer than ${maxRunAsUserNameUserLength} characters`));
      }
      if (invalidUserNameDotsSpacesRe.test(user)) errs.push(field.invalid(p, name, "runAsUserName's User cannot contain only periods or spaces"));
      if (invalidUserNameCharsRe.test(user)) {
        errs.push(field.invalid(p, name, `runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`));
      }
    }
  }
  return errs;
}

/**
 * With `hostNetwork`, every container port must equal its host port (`must match \`hostPort\` when
 * \`hostNetwork\` is true`). Defaulting copies `containerPort` into an unset `hostPort`.
 */
function validateHostNetwork(spec: PodSpecView, containersPath: FieldPath): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  items<ContainerView>(spec.containers).forEach((c, i) => {
    items<ContainerPortView>(c.ports).forEach((port, j) => {
      if ((num(port.hostPort) ?? 0) !== (num(port.containerPort) ?? 0)) {
        errs.push(
          field.invalid(
            containersPath.index(i).child("ports").index(j).child("containerPort"),
            port.containerPort ?? 0,
            "must match `hostPort` when `hostNetwork` is true",
          ),
        );
      }
    });
  });
  return errs;
}

/**
 * Checks the pod-level security context and the host-network port rule: user and group IDs in
 * 0..2147483647, `shareProcessNamespace` not with `hostPID`, sysctl names well-formed and unique,
 * `fsGroupChangePolicy` `OnRootMismatch` or `Always`, seccomp profile.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodSecurityContext`
 */
export function validatePodSecurityContext(spec: PodSpecView, specPath: FieldPath): FieldError[] {
  const path = specPath.child("securityContext");
  const errs = validateHostNetwork(spec, specPath.child("containers"));
  const sc = isRecord(spec.securityContext) ? spec.securityContext : {};
  errs.push(...validateID(sc.fsGroup, path.child("fsGroup")));
  errs.push(...validateID(sc.runAsUser, path.child("runAsUser")));
  errs.push(...validateID(sc.runAsGroup, path.child("runAsGroup")));
  arr(sc.supplementalGroups).forEach((g, i) => errs.push(...validateID(g, path.child("supplementalGroups").index(i))));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(
      field.invalid(path.child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"),
    );
  }
  const names = new Set<string>();
  items<{ name?: string }>(sc.sysctls).forEach((s, i) => {
    const p = path.child("sysctls").index(i).child("name");
    const name = str(s.name);
    if (name === "") errs.push(field.required(p));
    else if (name.length > sysctlMaxLength || !sysctlRe.test(name)) {
      errs.push(field.invalid(p, name, `must have at most ${sysctlMaxLength} characters and match regex ${sysctlFmt}`));
    } else if (names.has(name)) errs.push(field.duplicate(p, name));
    names.add(name);
  });
  if (sc.fsGroupChangePolicy !== undefined) {
    const policies = ["Always", "OnRootMismatch"];
    if (!policies.includes(str(sc.fsGroupChangePolicy))) {
      errs.push(field.notSupported(path.child("fsGroupChangePolicy"), sc.fsGroupChangePolicy, policies));
    }
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, path.child("seccompProfile")));
  errs.push(...validateWindowsSecurityContextOptions(sc.windowsOptions, path.child("windowsOptions")));
  return errs;
}

/**
 * Checks a container's security context: privileged only when allowed (`Forbidden: disallowed by
 * cluster policy`), IDs in range, `procMount` `Default` or `Unmasked`, seccomp profile, and
 * `allowPrivilegeEscalation: false` not combined with `privileged` or `CAP_SYS_ADMIN`.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateSecurityContext`
 */
export function validateSecurityContext(value: unknown, path: FieldPath, opts: PodValidationOptions): FieldError[] {
  if (!isRecord(value)) return [];
  const sc = value as SecurityContextView;
  const errs: FieldError[] = [];
  if (sc.privileged === true && opts.allowPrivileged === false) {
    errs.push(field.forbidden(path.child("privileged"), "disallowed by cluster policy"));
  }
  errs.push(...validateID(sc.runAsUser, path.child("runAsUser")));
  errs.push(...validateID(sc.runAsGroup, path.child("runAsGroup")));
  if (sc.procMount !== undefined && sc.procMount !== "Default" && sc.procMount !== "Unmasked") {
    errs.push(field.notSupported(path.child("procMount"), sc.procMount, ["Default", "Unmasked"]));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, path.child("seccompProfile")));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) {
      errs.push(field.invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
    }
    for (const cap of arr(isRecord(sc.capabilities) ? sc.capabilities.add : undefined)) {
      if (cap === "CAP_SYS_ADMIN") {
        errs.push(field.invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"));
      }
    }
  }
  errs.push(...validateWindowsSecurityContextOptions(sc.windowsOptions, path.child("windowsOptions")));
  return errs;
}
