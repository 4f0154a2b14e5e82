/**
 * `PodSpec` validation.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodSpec`
 */
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, type FieldError, type FieldPath } from "@skiff/apimachinery";
import type { ObjectMeta, PodSpec } from "@skiff/api-types";
import { validateLabels } from "../meta/labels.js";
import { nameIsDNSSubdomain } from "../meta/names.js";
import { field, inclusiveRangeError, isNegativeErrorMsg } from "../meta/internal/field.js";
import { arr, isRecord, num, str, strMap } from "../meta/internal/values.js";
import { validateContainers, validateEphemeralContainers, validateInitContainers } from "./containers.js";
import { view, items, type MetaView, type PodSpecView } from "./internal-types.js";
import { ipFamily } from "./net.js";
import type { PodValidationOptions } from "./options.js";
import { validateResourceRequirements } from "./resources.js";
import { validateAffinity, validateTolerations, validateTopologySpreadConstraints } from "./scheduling.js";
import { validatePodOS, validateWindowsHostProcessPod } from "./os.js";
import { validatePodSecurityContext } from "./security.js";
import { validateVolumes } from "./volumes.js";

const maxInt32 = 2147483647;
const restartPolicies = ["Always", "OnFailure", "Never"];
const dnsPolicies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];

function dnsLabelErrors(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((msg) => field.invalid(path, value, msg));
}

function validateDNSConfig(spec: PodSpecView, path: FieldPath, opts: PodValidationOptions): FieldError[] {
  const dnsConfig = spec.dnsConfig;
  if (spec.dnsPolicy === "None") {
    if (!isRecord(dnsConfig)) return [field.required(path, "must provide `dnsConfig` when `dnsPolicy` is None")];
    if (arr(dnsConfig.nameservers).length === 0) {
      return [field.required(path.child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")];
    }
  }
  if (!isRecord(dnsConfig)) return [];
  const errs: FieldError[] = [];
  const nameservers = arr(dnsConfig.nameservers);
  if (nameservers.length > 3) {
    errs.push(field.invalid(path.child("nameservers"), nameservers, "must not have more than 3 nameservers"));
  }
  nameservers.forEach((ns, i) => {
    if (ipFamily(str(ns)) === 0) errs.push(field.invalid(path.child("nameservers").index(i), ns, "must be valid IP address"));
  });
  const searches = arr(dnsConfig.searches).map(str);
  const maxPaths = opts.allowExpandedDNSConfig === true ? 32 : 6;
  const maxChars = opts.allowExpandedDNSConfig === true ? 2048 : 256;
  if (searches.length > maxPaths) {
    errs.push(field.invalid(path.child("searches"), searches, `must not have more than ${maxPaths} search paths`));
  }
  if (searches.join(" ").length > maxChars) {
    errs.push(
      field.invalid(path.child("searches"), searches, `must not have more than ${maxChars} characters (including spaces) in the search list`),
    );
  }
  searches.forEach((search, i) => {
    const s = search.endsWith(".") ? search.slice(0, -1) : search;
    for (const msg of isDNS1123Subdomain(s)) errs.push(field.invalid(path.child("searches").index(i), s, msg));
  });
  items<{ name?: string }>(dnsConfig.options).forEach((o, i) => {
    if (str(o.name) === "") errs.push(field.required(path.child("options").index(i), "must not be empty"));
  });
  return errs;
}

/**
 * Validates a pod spec (of a pod or a template) as Kubernetes 1.23 does before storing it. The spec
 * is expected to be defaulted ({@link setPodSpecDefaults}): `restartPolicy`, `dnsPolicy`,
 * `imagePullPolicy` and `terminationMessagePolicy` are required here. Covers volumes, containers and
 * init containers, restart and DNS policies (`Unsupported value`), node selector labels, security
 * context, ephemeral containers ({@link validateEphemeralContainers}), affinity, tolerations, DNS config, readiness gates, topology spread, service account and
 * node names (DNS subdomains), `activeDeadlineSeconds` (`must be between 1 and 2147483647,
 * inclusive`), `terminationGracePeriodSeconds` ≥ 0 (a Skiff rule; 1.23 only warned), hostname and
 * subdomain (DNS labels), host aliases, priority and runtime class names, preemption policy,
 * overhead, HostProcess containers and the pod's OS ({@link validatePodOS}). `podMeta` is the owning pod's metadata, when validating a pod (its name fixes the names
 * of ephemeral volume claims). Does not mutate its input.
 *
 * @returns Kubernetes field errors under `path`; an undefined spec is validated as an empty one.
 * @example
 * validatePodSpec(pod.spec, fieldPath("spec"), defaultPodValidationOptions)
 * @see pkg/apis/core/validation/validation.go `ValidatePodSpec`
 */
export function validatePodSpec(
  spec: PodSpec | undefined,
  path: FieldPath,
  opts: PodValidationOptions,
  podMeta?: ObjectMeta,
): FieldError[] {
  const s = view<PodSpecView>(spec);
  const podName = str(view<MetaView>(podMeta).name);
  const { volumes, errs } = validateVolumes(s.volumes, podName, path.child("volumes"), opts);
  errs.push(...validateContainers(s.containers, false, volumes, path.child("containers"), opts));
  errs.push(...validateInitContainers(s.initContainers, s.containers, volumes, path.child("initContainers"), opts));
  errs.push(...validateEphemeralContainers(s.ephemeralContainers, s.containers, s.initContainers, volumes, path.child("ephemeralContainers"), opts));
  const restartPolicy = str(s.restartPolicy);
  if (restartPolicy === "") errs.push(field.required(path.child("restartPolicy")));
  else if (!restartPolicies.includes(restartPolicy)) {
    errs.push(field.notSupported(path.child("restartPolicy"), restartPolicy, restartPolicies));
  }
  const dnsPolicy = str(s.dnsPolicy);
  if (dnsPolicy === "") errs.push(field.required(path.child("dnsPolicy")));
  else if (!dnsPolicies.includes(dnsPolicy)) errs.push(field.notSupported(path.child("dnsPolicy"), dnsPolicy, dnsPolicies));
  errs.push(...validateLabels(strMap(s.nodeSelector), path.child("nodeSelector")));
  errs.push(...validatePodSecurityContext(s, path));
  errs.push(...validateAffinity(s.affinity, path.child("affinity")));
  errs.push(...validateDNSConfig(s, path.child("dnsConfig"), opts));
  items<{ conditionType?: string }>(s.readinessGates).forEach((g, i) => {
    const type = str(g.conditionType);
    for (const msg of isQualifiedName(type)) errs.push(field.invalid(path.child("readinessGates").index(i).child("conditionType"), type, msg));
  });
  errs.push(...validateTopologySpreadConstraints(s.topologySpreadConstraints, path.child("topologySpreadConstraints")));
  errs.push(...validateWindowsHostProcessPod(s, path, opts));
  for (const [key, value] of [
    ["serviceAccountName", str(s.serviceAccountName)],
    ["nodeName", str(s.nodeName)],
  ] as const) {
    if (value !== "") for (const msg of nameIsDNSSubdomain(value, false)) errs.push(field.invalid(path.child(key), value, msg));
  }
  if (s.activeDeadlineSeconds !== undefined && s.activeDeadlineSeconds !== null) {
    const v = num(s.activeDeadlineSeconds) ?? 0;
    if (v < 1 || v > maxInt32) errs.push(field.invalid(path.child("activeDeadlineSeconds"), v, inclusiveRangeError(1, maxInt32)));
  }
  const tgps = num(s.terminationGracePeriodSeconds);
  if (tgps !== undefined && tgps < 0) {
    errs.push(field.invalid(path.child("terminationGracePeriodSeconds"), tgps, isNegativeErrorMsg));
  }
  if (str(s.hostname) !== "") errs.push(...dnsLabelErrors(str(s.hostname), path.child("hostname")));
  if (str(s.subdomain) !== "") errs.push(...dnsLabelErrors(str(s.subdomain), path.child("subdomain")));
  errs.push(...validateTolerations(arr(s.tolerations), path.child("tolerations")));
  for (const alias of items<{ ip?: string; hostnames?: string[] }>(s.hostAliases)) {
    const p = path.child("hostAliases");
    if (ipFamily(str(alias.ip)) === 0) errs.push(field.invalid(p.child("ip"), str(alias.ip), "must be valid IP address"));
    for (const hostname of arr(alias.hostnames)) {
      for (const msg of isDNS1123Subdomain(str(hostname))) errs.push(field.invalid(p.child("hostnames"), hostname, msg));
    }
  }
  const priorityClassName = str(s.priorityClassName);
  if (priorityClassName !== "") {
    for (const msg of nameIsDNSSubdomain(priorityClassName, false)) {
      errs.push(field.invalid(path.child("priorityClassName"), priorityClassName, msg));
    }
  }
  if (s.runtimeClassName !== undefined && s.runtimeClassName !== null) {
    const runtimeClassName = str(s.runtimeClassName);
    for (const msg of nameIsDNSSubdomain(runtimeClassName, false)) {
      errs.push(field.invalid(path.child("runtimeClassName"), runtimeClassName, msg));
    }
  }
  if (s.preemptionPolicy !== undefined) {
    const pp = str(s.preemptionPolicy);
    if (pp === "") errs.push(field.required(path.child("preemptionPolicy")));
    else if (pp !== "PreemptLowerPriority" && pp !== "Never") {
      errs.push(field.notSupported(path.child("preemptionPolicy"), pp, ["PreemptLowerPriority", "Never"]));
    }
  }
  if (isRecord(s.overhead)) errs.push(...validateResourceRequirements({ limits: s.overhead }, path.child("overhead"), opts));
  errs.push(...validatePodOS(s, path));
  return errs;
}
