/**
 * Pods, pod templates and bindings: create, update and status-update validation.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodCreate`, `ValidatePodUpdate`,
 *   `ValidatePodStatusUpdate`, `ValidatePodBinding`, `ValidatePodTemplate`, `ValidatePodTemplateSpec`
 */
import { fieldPath, isQualifiedName, type FieldError, type FieldPath } from "@skiff/apimachinery";
import type { Binding, ObjectMeta, Pod, PodSpec, PodTemplate, PodTemplateSpec } from "@skiff/api-types";
import { validateLabels } from "../meta/labels.js";
import { nameIsDNSSubdomain } from "../meta/names.js";
import { validateAnnotations } from "../meta/objectmeta.js";
import { semanticEqual } from "../meta/internal/deep-equal.js";
import { field, inclusiveRangeError } from "../meta/internal/field.js";
import { arr, isRecord, num, str, strMap } from "../meta/internal/values.js";
import { validateContainersOnlyForPod } from "./containers.js";
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from "./core-meta.js";
import {
  items,
  view,
  type ContainerStatusView,
  type ContainerView,
  type PodSpecView,
  type PodTemplateSpecView,
  type PodView,
  type ProjectionView,
  type TolerationView,
  type VolumeView,
} from "./internal-types.js";
import { ipFamily, invalidIPMessage, isDualStack } from "./net.js";
import type { PodValidationOptions } from "./options.js";
import { validatePodSpec } from "./pod-spec.js";
import { validateTolerations } from "./scheduling.js";
import { mirrorPodAnnotation, podDeletionCostAnnotation } from "./well-known.js";

const maxInt32 = 2147483647;

function validDeletionCost(value: string): boolean {
  // No "+" sign and no leading zeros, then a 32-bit integer.
  if (!/^(-?[1-9]\d*|0|-0)$/.test(value)) return false;
  const n = Number(value);
  return n >= -2147483648 && n <= maxInt32;
}

function validatePodSpecificAnnotations(
  annotations: Record<string, string>,
  spec: PodSpecView,
  path: FieldPath,
  opts: PodValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  if (mirrorPodAnnotation in annotations && str(spec.nodeName) === "") {
    errs.push(
      field.invalid(path.key(mirrorPodAnnotation), annotations[mirrorPodAnnotation], "must set spec.nodeName if mirror pod annotation is set"),
    );
  }
  const cost = annotations[podDeletionCostAnnotation];
  if (opts.allowInvalidPodDeletionCost !== true && cost !== undefined && !validDeletionCost(cost)) {
    errs.push(field.invalid(path.key(podDeletionCostAnnotation), cost, "must be a 32bit integer"));
  }
  return errs;
}

function validatePodSpecificAnnotationUpdates(
  newPod: PodView,
  oldPod: PodView,
  path: FieldPath,
  opts: PodValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  const newAnnotations = strMap(newPod.metadata?.annotations);
  const oldAnnotations = strMap(oldPod.metadata?.annotations);
  if (mirrorPodAnnotation in oldAnnotations && newAnnotations[mirrorPodAnnotation] !== oldAnnotations[mirrorPodAnnotation]) {
    errs.push(field.forbidden(path.key(mirrorPodAnnotation), "may not remove or update mirror pod annotation"));
  }
  if (mirrorPodAnnotation in newAnnotations && !(mirrorPodAnnotation in oldAnnotations)) {
    errs.push(field.forbidden(path.key(mirrorPodAnnotation), "may not add mirror pod annotation"));
  }
  errs.push(...validatePodSpecificAnnotations(newAnnotations, view<PodSpecView>(newPod.spec), path, opts));
  return errs;
}

function validatePodMetadataAndSpec(pod: PodView, opts: PodValidationOptions): FieldError[] {
  const metaPath = fieldPath("metadata");
  const specPath = fieldPath("spec");
  const spec = view<PodSpecView>(pod.spec);
  const errs = validateCoreObjectMeta(pod.metadata as ObjectMeta | undefined, { namespaced: true, nameValidator: nameIsDNSSubdomain }, metaPath);
  errs.push(...validatePodSpecificAnnotations(strMap(pod.metadata?.annotations), spec, metaPath.child("annotations"), opts));
  errs.push(...validatePodSpec(pod.spec as PodSpec | undefined, specPath, opts, pod.metadata as ObjectMeta | undefined));
  if (str(spec.serviceAccountName) === "") {
    items<VolumeView>(spec.volumes).forEach((v, vi) => {
      if (!isRecord(v.projected)) return;
      items<ProjectionView>(v.projected.sources).forEach((source, si) => {
        if (isRecord(source.serviceAccountToken)) {
          errs.push(
            field.forbidden(
              specPath.child("volumes").index(vi).child("projected", "sources").index(si).child("serviceAccountToken"),
              "must not be specified when serviceAccountName is not set",
            ),
          );
        }
      });
    });
  }
  errs.push(...validateContainersOnlyForPod(spec.containers, specPath.child("containers")));
  errs.push(...validateContainersOnlyForPod(spec.initContainers, specPath.child("initContainers")));
  return errs;
}

function validatePodIPs(pod: PodView): FieldError[] {
  const errs: FieldError[] = [];
  const path = fieldPath("status", "podIPs");
  const podIPs = items<{ ip?: string }>(pod.status?.podIPs);
  podIPs.forEach((p, i) => {
    if (ipFamily(str(p.ip)) === 0) errs.push(field.invalid(path.index(i), str(p.ip), invalidIPMessage));
  });
  if (podIPs.length > 1) {
    const families = podIPs.map((p) => ipFamily(str(p.ip)));
    if (families.every((f) => f !== 0) && (!isDualStack(families) || podIPs.length > 2)) {
      errs.push(field.invalid(path, pod.status?.podIPs, "may specify no more than one IP for each IP family"));
    }
    const seen = new Set<string>();
    podIPs.forEach((p, i) => {
      if (seen.has(str(p.ip))) errs.push(field.duplicate(path.index(i), p));
      seen.add(str(p.ip));
    });
  }
  return errs;
}

/**
 * Validates a pod being created: metadata (namespaced, name a DNS subdomain, core finalizer names,
 * mirror-pod and pod-deletion-cost annotations), the spec ({@link validatePodSpec}), service-account
 * token projections only with a service account, image whitespace, and no ephemeral containers
 * (`Forbidden: cannot be set on create`). The pod must already be defaulted ({@link setPodDefaults}).
 * Does not mutate its input.
 *
 * @returns Kubernetes field errors; empty when the pod may be stored.
 * @example
 * const pod = { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
 * setPodDefaults(pod);
 * validatePod(pod, defaultPodValidationOptions); // []
 * @see pkg/apis/core/validation/validation.go `ValidatePodCreate`
 */
export function validatePod(pod: Pod, opts: PodValidationOptions): FieldError[] {
  const p = view<PodView>(pod);
  const errs = validatePodMetadataAndSpec(p, opts);
  if (arr<ContainerView>(view<PodSpecView>(p.spec).ephemeralContainers).length > 0) {
    errs.push(field.forbidden(fieldPath("spec", "ephemeralContainers"), "cannot be set on create"));
  }
  return errs;
}

function validateContainerUpdates(newList: unknown, oldList: unknown, path: FieldPath): { errs: FieldError[]; stop: boolean } {
  const n = items<ContainerView>(newList);
  const o = items<ContainerView>(oldList);
  if (n.length !== o.length) return { errs: [field.forbidden(path, "pod updates may not add or remove containers")], stop: true };
  const errs: FieldError[] = [];
  n.forEach((c, i) => {
    const image = str(c.image);
    if (image === "") errs.push(field.required(path.index(i).child("image")));
    if (image.trim() !== image) errs.push(field.invalid(path.index(i).child("image"), image, "must not have leading or trailing whitespace"));
  });
  return { errs, stop: false };
}

function validateOnlyAddedTolerations(newList: unknown, oldList: unknown, path: FieldPath): FieldError[] {
  const n = items<TolerationView>(newList);
  for (const old of items<TolerationView>(oldList)) {
    const found = n.some((t) => semanticEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [field.forbidden(path, "existing toleration can not be modified except its tolerationSeconds")];
  }
  return validateTolerations(n, path);
}

function sortedJSON(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    isRecord(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value,
  );
}

// Kubernetes' diff.ObjectDiff: the common prefix of both JSON texts, then where they part.
function objectDiff(a: unknown, b: unknown): string {
  const ja = sortedJSON(a) ?? "null";
  const jb = sortedJSON(b) ?? "null";
  let i = 0;
  while (i < ja.length && i < jb.length && ja[i] === jb[i]) i++;
  return `${ja.slice(0, i)}\n\nA: ${ja.slice(i)}\n\nB: ${jb.slice(i)}\n\n`;
}

/**
 * Validates a pod update against the stored pod. Runs the create-time checks on the new pod and the
 * metadata update rules, then allows only these spec changes: container and init-container images
 * (`pod updates may not add or remove containers`), `activeDeadlineSeconds` (set from unset, or
 * lowered: `must be less than or equal to previous value`; never unset: `must not update from a
 * positive integer to nil value`), and additions to `tolerations` (existing ones may change only
 * their `tolerationSeconds`). Any other difference is `Forbidden` at `spec` with the message
 * `pod updates may not change fields other than \`spec.containers[*].image\`,
 * \`spec.initContainers[*].image\`, \`spec.activeDeadlineSeconds\` or \`spec.tolerations\` (only
 * additions to existing tolerations)` followed by a diff. A `terminationGracePeriodSeconds` that was
 * negative may become 1. Mirror-pod annotations may not be added, changed or removed. Does not
 * mutate its inputs.
 *
 * @example
 * validatePodUpdate({ ...stored, spec: { ...stored.spec, restartPolicy: "Never" } }, stored, defaultPodValidationOptions)
 * // [{ type: "FieldValueForbidden", field: "spec", detail: "pod updates may not change fields other than ..." }]
 * @see pkg/apis/core/validation/validation.go `ValidatePodUpdate`
 */
export function validatePodUpdate(pod: Pod, old: Pod, opts: PodValidationOptions): FieldError[] {
  const n = view<PodView>(pod);
  const o = view<PodView>(old);
  const metaPath = fieldPath("metadata");
  const specPath = fieldPath("spec");
  const errs = validateCoreObjectMetaUpdate(n.metadata as ObjectMeta | undefined, o.metadata as ObjectMeta | undefined, metaPath);
  errs.push(...validatePodMetadataAndSpec(n, opts));
  errs.push(...validatePodSpecificAnnotationUpdates(n, o, metaPath.child("annotations"), opts));
  const ns = view<PodSpecView>(n.spec);
  const os = view<PodSpecView>(o.spec);
  for (const key of ["containers", "initContainers"] as const) {
    const r = validateContainerUpdates(ns[key], os[key], specPath.child(key));
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const adsPath = specPath.child("activeDeadlineSeconds");
  if (ns.activeDeadlineSeconds !== undefined && ns.activeDeadlineSeconds !== null) {
    const v = num(ns.activeDeadlineSeconds) ?? 0;
    if (v < 0 || v > maxInt32) {
      errs.push(field.invalid(adsPath, v, inclusiveRangeError(0, maxInt32)));
      return errs;
    }
    const prev = num(os.activeDeadlineSeconds);
    if (prev !== undefined && prev < v) {
      errs.push(field.invalid(adsPath, v, "must be less than or equal to previous value"));
      return errs;
    }
  } else if (os.activeDeadlineSeconds !== undefined && os.activeDeadlineSeconds !== null) {
    errs.push(field.invalid(adsPath, null, "must not update from a positive integer to nil value"));
  }
  errs.push(...validateOnlyAddedTolerations(ns.tolerations, os.tolerations, specPath.child("tolerations")));
  if (semanticEqual(ns, os)) return errs;
  // The new spec with every updatable field taken from the old one.
  const munged: Record<string, unknown> = { ...ns };
  for (const key of ["containers", "initContainers"] as const) {
    const oldList = items<ContainerView>(os[key]);
    if (Array.isArray(ns[key])) munged[key] = items<ContainerView>(ns[key]).map((c, i) => ({ ...c, image: oldList[i]?.image }));
  }
  munged["activeDeadlineSeconds"] = os.activeDeadlineSeconds;
  munged["tolerations"] = os.tolerations;
  const oldGrace = num(os.terminationGracePeriodSeconds);
  if (oldGrace !== undefined && oldGrace < 0 && num(munged["terminationGracePeriodSeconds"]) === 1) {
    munged["terminationGracePeriodSeconds"] = oldGrace;
  }
  if (!semanticEqual(munged, os)) {
    errs.push(
      field.forbidden(
        specPath,
        "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, " +
          "`spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)\n" +
          objectDiff(munged, os),
      ),
    );
  }
  return errs;
}

/**
 * Validates an update through the `ephemeralcontainers` subresource, as 1.23's
 * `ValidatePodEphemeralContainersUpdate`: the metadata update rules, the whole new pod as on create
 * (so new ephemeral containers get {@link validatePodSpec}'s checks: unique names,
 * `targetContainerName`, forbidden fields, image required), pod annotations, and then every
 * existing ephemeral container (matched by name: patches do not keep order) still present and
 * unchanged: `Forbidden` at `spec.ephemeralContainers` with `existing ephemeral containers "<name>"
 * may not be removed` or `... may not be changed` followed by a diff. `pod` and `old` must differ
 * only in `spec.ephemeralContainers` (the strategy's `prepareForUpdate` ensures it). Does not
 * mutate its inputs.
 *
 * @example
 * validatePodEphemeralContainersUpdate(withDebugger, stored, defaultPodValidationOptions) // []
 * @see pkg/apis/core/validation/validation.go `ValidatePodEphemeralContainersUpdate` (v1.23)
 */
export function validatePodEphemeralContainersUpdate(pod: Pod, old: Pod, opts: PodValidationOptions): FieldError[] {
  const n = view<PodView>(pod);
  const o = view<PodView>(old);
  const metaPath = fieldPath("metadata");
  const errs = validateCoreObjectMetaUpdate(n.metadata as ObjectMeta | undefined, o.metadata as ObjectMeta | undefined, metaPath);
  errs.push(...validatePodMetadataAndSpec(n, opts));
  errs.push(...validatePodSpecificAnnotationUpdates(n, o, metaPath.child("annotations"), opts));
  const specPath = fieldPath("spec", "ephemeralContainers");
  const byName = new Map(items<ContainerView>(view<PodSpecView>(n.spec).ephemeralContainers).map((c) => [str(c.name), c]));
  for (const prev of items<ContainerView>(view<PodSpecView>(o.spec).ephemeralContainers)) {
    const name = str(prev.name);
    const cur = byName.get(name);
    if (cur === undefined) {
      errs.push(field.forbidden(specPath, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    } else if (!semanticEqual(prev, cur)) {
      errs.push(field.forbidden(specPath, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${objectDiff(prev, cur)}`));
    }
  }
  return errs;
}

function validateContainerStateTransition(
  newStatuses: unknown,
  oldStatuses: unknown,
  path: FieldPath,
  restartPolicy: string,
): FieldError[] {
  if (restartPolicy === "Always") return [];
  const errs: FieldError[] = [];
  const n = items<ContainerStatusView>(newStatuses);
  items<ContainerStatusView>(oldStatuses).forEach((old, i) => {
    const terminated = isRecord(old.state) ? old.state.terminated : undefined;
    if (!isRecord(terminated)) return;
    if ((num(terminated.exitCode) ?? 0) !== 0 && restartPolicy === "OnFailure") return;
    for (const s of n) {
      if (str(s.name) === str(old.name) && !(isRecord(s.state) && isRecord(s.state.terminated))) {
        errs.push(field.forbidden(path.index(i).child("state"), "may not be transitioned to non-terminated state"));
      }
    }
  });
  return errs;
}

/**
 * Validates a pod status update (the `/status` subresource). Metadata update rules and pod
 * annotations; custom condition types are qualified names (Kubernetes reports them at
 * `metadata.conditions[i].Type`); `spec.nodeName` may not change (`Forbidden` at `status.nodeName`:
 * `may not be changed directly`); `nominatedNodeName` a DNS subdomain; unless `restartPolicy` is
 * `Always`, a terminated container may not return to a non-terminated state (`Forbidden: may not be
 * transitioned to non-terminated state`; with `OnFailure` only after success); pod IPs valid, at
 * most one per family, unique. Does not mutate its inputs.
 *
 * @example
 * validatePodStatusUpdate(podWithNewStatus, storedPod, defaultPodValidationOptions) // []
 * @see pkg/apis/core/validation/validation.go `ValidatePodStatusUpdate`
 */
export function validatePodStatusUpdate(pod: Pod, old: Pod, opts: PodValidationOptions): FieldError[] {
  const n = view<PodView>(pod);
  const o = view<PodView>(old);
  const metaPath = fieldPath("metadata");
  const errs = validateCoreObjectMetaUpdate(n.metadata as ObjectMeta | undefined, o.metadata as ObjectMeta | undefined, metaPath);
  errs.push(...validatePodSpecificAnnotationUpdates(n, o, metaPath.child("annotations"), opts));
  const system = new Set(["PodScheduled", "Ready", "Initialized"]);
  items<{ type?: string }>(n.status?.conditions).forEach((c, i) => {
    const type = str(c.type);
    if (system.has(type)) return;
    for (const msg of isQualifiedName(type)) errs.push(field.invalid(metaPath.child("conditions").index(i).child("Type"), type, msg));
  });
  const statusPath = fieldPath("status");
  if (str(n.spec?.nodeName) !== str(o.spec?.nodeName)) {
    errs.push(field.forbidden(statusPath.child("nodeName"), "may not be changed directly"));
  }
  const nominated = str(n.status?.nominatedNodeName);
  if (nominated !== "" && nominated !== str(o.status?.nominatedNodeName)) {
    for (const msg of nameIsDNSSubdomain(nominated, false)) errs.push(field.invalid(statusPath.child("nominatedNodeName"), nominated, msg));
  }
  const restartPolicy = str(o.spec?.restartPolicy);
  errs.push(
    ...validateContainerStateTransition(n.status?.containerStatuses, o.status?.containerStatuses, statusPath.child("containerStatuses"), restartPolicy),
  );
  errs.push(
    ...validateContainerStateTransition(
      n.status?.initContainerStatuses,
      o.status?.initContainerStatuses,
      statusPath.child("initContainerStatuses"),
      restartPolicy,
    ),
  );
  errs.push(...validatePodIPs(n));
  return errs;
}

/**
 * Validates a `Binding` posted to `pods/<name>/binding`: `target.kind` empty or `Node`
 * (`Unsupported value: ...: supported values: "Node", "<empty>"`) and `target.name` required.
 * Does not mutate its input.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodBinding`
 */
export function validatePodBinding(binding: Binding): FieldError[] {
  const target = view<{ kind?: string; name?: string }>(view<{ target?: unknown }>(binding).target);
  const errs: FieldError[] = [];
  const kind = str(target.kind);
  if (kind !== "" && kind !== "Node") errs.push(field.notSupported(fieldPath("target", "kind"), kind, ["Node", "<empty>"]));
  if (str(target.name) === "") errs.push(field.required(fieldPath("target", "name")));
  return errs;
}

/**
 * Validates a pod template (as embedded in a Job or a PodTemplate): template labels and
 * annotations (reported at `<path>.labels` / `<path>.annotations`, as Kubernetes does), pod
 * annotations, the pod spec at `<path>.spec`, and no ephemeral containers (`Forbidden: ephemeral
 * containers not allowed in pod template`). An undefined template is validated as an empty one
 * (so `spec.containers` is reported missing). Does not mutate its input.
 *
 * @example
 * validatePodTemplateSpec(job.spec.template, fieldPath("spec", "template"), defaultPodValidationOptions)
 * @see pkg/apis/core/validation/validation.go `ValidatePodTemplateSpec`
 */
export function validatePodTemplateSpec(
  template: PodTemplateSpec | undefined,
  path: FieldPath,
  opts: PodValidationOptions,
): FieldError[] {
  const t = view<PodTemplateSpecView>(template);
  const annotations = strMap(t.metadata?.annotations);
  const spec = view<PodSpecView>(t.spec);
  const errs = validateLabels(strMap(t.metadata?.labels), path.child("labels"));
  errs.push(...validateAnnotations(annotations, path.child("annotations")));
  errs.push(...validatePodSpecificAnnotations(annotations, spec, path.child("annotations"), opts));
  errs.push(...validatePodSpec(t.spec as PodSpec | undefined, path.child("spec"), opts));
  if (arr(spec.ephemeralContainers).length > 0) {
    errs.push(field.forbidden(path.child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"));
  }
  return errs;
}

/**
 * Validates a PodTemplate being created: metadata (namespaced, DNS-subdomain name) and its
 * `template` ({@link validatePodTemplateSpec} at `template`). Does not mutate its input.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodTemplate`
 */
export function validatePodTemplate(podTemplate: PodTemplate, opts: PodValidationOptions): FieldError[] {
  const pt = view<{ metadata?: ObjectMeta; template?: PodTemplateSpec }>(podTemplate);
  const errs = validateCoreObjectMeta(pt.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errs.push(...validatePodTemplateSpec(pt.template, fieldPath("template"), opts));
  return errs;
}

/**
 * Validates a PodTemplate update: metadata update rules and the new template (templates are
 * mutable). Does not mutate its inputs.
 *
 * @see pkg/apis/core/validation/validation.go `ValidatePodTemplateUpdate`
 */
export function validatePodTemplateUpdate(podTemplate: PodTemplate, old: PodTemplate, opts: PodValidationOptions): FieldError[] {
  const pt = view<{ metadata?: ObjectMeta; template?: PodTemplateSpec }>(podTemplate);
  const prev = view<{ metadata?: ObjectMeta }>(old);
  const errs = validateCoreObjectMetaUpdate(pt.metadata, prev.metadata);
  errs.push(...validatePodTemplateSpec(pt.template, fieldPath("template"), opts));
  return errs;
}
