/**
 * `metadata` validation on create and update, as Kubernetes' generic ObjectMeta rules.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go
 */
import { fieldPath, isQualifiedName, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { ForegroundDeletionFinalizer, OrphanFinalizer, type ObjectMeta, type OwnerReference } from "@skiff/api-types";
import { validateLabels } from "./labels.js";
import { nameIsDNSLabel, type NameValidator } from "./names.js";
import { semanticEqual } from "./internal/deep-equal.js";
import { field, fieldImmutableErrorMsg, isNegativeErrorMsg } from "./internal/field.js";
import { arr, goStringSlice, num, rec, str, strMap, utf8Length } from "./internal/values.js";

/** Total size limit of all annotation keys and values of one object, in bytes (256 KiB). */
export const totalAnnotationSizeLimitBytes = 256 * 1024;

/** Longest `managedFields[].manager`, in bytes. */
const fieldManagerMaxLength = 128;
/** Longest `managedFields[].subresource`, in bytes. */
const maxSubresourceNameLength = 256;

const finalizerOrphanDependents = OrphanFinalizer;
const finalizerDeleteDependents = ForegroundDeletionFinalizer;

/**
 * Options of {@link validateObjectMeta}.
 *
 * - `namespaced`: whether the kind lives in a namespace (then `metadata.namespace` is required and
 *   must be a DNS-1123 label; otherwise it must be empty).
 * - `nameValidator`: the kind's name rule, e.g. {@link nameIsDNSSubdomain}.
 */
export interface ObjectMetaValidationOptions {
  readonly namespaced: boolean;
  readonly nameValidator: NameValidator;
}

/**
 * Checks annotations: each key a qualified name compared case-insensitively (`Invalid value` at
 * `path`), and the total size of keys plus values at most 262144 bytes (`Too long: must have at most
 * 262144 bytes`). Does not mutate its input.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go `ValidateAnnotations`
 */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(rec(annotations))) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(path, k, msg));
    total += utf8Length(k) + utf8Length(str(v));
  }
  if (total > totalAnnotationSizeLimitBytes) errs.push(field.tooLong(path, totalAnnotationSizeLimitBytes));
  return errs;
}

function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? "", version: parts[1] ?? "" };
  return { group: "", version: "" };
}

function validateOwnerReference(ref: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(ref["apiVersion"]);
  const kind = str(ref["kind"]);
  const gv = splitAPIVersion(apiVersion);
  if (gv.version === "") errs.push(field.invalid(path.child("apiVersion"), apiVersion, "version must not be empty"));
  if (kind === "") errs.push(field.invalid(path.child("kind"), kind, "kind must not be empty"));
  if (str(ref["name"]) === "") errs.push(field.invalid(path.child("name"), str(ref["name"]), "name must not be empty"));
  if (str(ref["uid"]) === "") errs.push(field.invalid(path.child("uid"), str(ref["uid"]), "uid must not be empty"));
  // core/v1 Event may not own anything.
  if (gv.group === "" && gv.version === "v1" && kind === "Event") {
    errs.push(field.invalid(path, ref, `${gv.group}/${gv.version}, Kind=${kind} is disallowed from being an owner`));
  }
  return errs;
}

/**
 * Checks owner references: `apiVersion` (with a version), `kind`, `name` and `uid` must be non-empty
 * (`Invalid value: "": uid must not be empty`), a core/v1 Event may not be an owner, and at most one
 * reference may have `controller: true` (`Only one reference can have Controller set to true. Found
 * "true" in references for Job/a and Job/b`). As in Kubernetes, the errors' paths are not indexed
 * (`metadata.ownerReferences.uid`). Does not mutate its input.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go `ValidateOwnerReferences`
 */
export function validateOwnerReferences(refs: readonly OwnerReference[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = "";
  for (const item of arr(refs)) {
    const ref = rec(item);
    errs.push(...validateOwnerReference(ref, path));
    if (ref["controller"] === true) {
      const current = `${str(ref["kind"])}/${str(ref["name"])}`;
      if (firstController !== "") {
        errs.push(
          field.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/**
 * Checks finalizers: each a qualified name (`Invalid value` at `path`), not both `orphan` and
 * `foregroundDeletion` (`finalizer orphan and foregroundDeletion cannot be both set`), and no
 * duplicates (`Duplicate value` at `path[i]`; a Skiff rule — Kubernetes 1.23 accepts repeats).
 * Does not mutate its input.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go `ValidateFinalizers`
 */
export function validateFinalizers(finalizers: readonly string[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let orphan = false;
  let foreground = false;
  const seen = new Set<string>();
  arr(finalizers).forEach((item, i) => {
    const f = str(item);
    for (const msg of isQualifiedName(f)) errs.push(field.invalid(path, f, msg));
    if (f === finalizerOrphanDependents) orphan = true;
    if (f === finalizerDeleteDependents) foreground = true;
    if (seen.has(f)) errs.push(field.duplicate(path.index(i), f));
    seen.add(f);
  });
  if (orphan && foreground) {
    errs.push(
      field.invalid(
        path,
        finalizers,
        `finalizer ${finalizerOrphanDependents} and ${finalizerDeleteDependents} cannot be both set`,
      ),
    );
  }
  return errs;
}

/**
 * Checks `managedFields` entries: `operation` is `Apply` or `Update`, `fieldsType` empty or
 * `FieldsV1`, `manager` at most 128 bytes of printable characters, `subresource` at most 256 bytes.
 * Does not mutate its input.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go `ValidateManagedFields`
 */
export function validateManagedFields(entries: readonly unknown[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  arr(entries).forEach((item, i) => {
    const e = rec(item);
    const p = path.index(i);
    const operation = e["operation"];
    if (operation !== "Apply" && operation !== "Update") {
      errs.push(field.invalid(p.child("operation"), operation ?? "", "must be `Apply` or `Update`"));
    }
    const fieldsType = str(e["fieldsType"]);
    if (fieldsType !== "" && fieldsType !== "FieldsV1") {
      errs.push(field.invalid(p.child("fieldsType"), fieldsType, "must be `FieldsV1`"));
    }
    const manager = str(e["manager"]);
    if (utf8Length(manager) > fieldManagerMaxLength) errs.push(field.tooLong(p.child("manager"), fieldManagerMaxLength));
    let pos = 0;
    for (const ch of manager) {
      // Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
      if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
        const code = ch.codePointAt(0) ?? 0;
        const hex = code.toString(16).toUpperCase().padStart(4, "0");
        errs.push(field.invalid(p.child("manager"), manager, `invalid character U+${hex} (at position ${pos})`));
      }
      pos += utf8Length(ch);
    }
    if (utf8Length(str(e["subresource"])) > maxSubresourceNameLength) {
      errs.push(field.tooLong(p.child("subresource"), maxSubresourceNameLength));
    }
  });
  return errs;
}

/**
 * Validates `metadata` of an object being created. Name generation must already have happened:
 * `name` is required (`Required value: name or generateName is required`) and checked with
 * `opts.nameValidator`, `generateName` (when set) with the same rule in prefix mode; `namespace` is
 * required and a DNS-1123 label when `opts.namespaced`, otherwise `Forbidden: not allowed on this
 * type`; `generation` ≥ 0; labels, annotations, owner references, finalizers and managed fields as
 * their own validators. Paths start at `path` (default `metadata`). Does not mutate its input.
 *
 * @returns Kubernetes field errors (Required, Invalid, Forbidden, Duplicate, Too long); never throws.
 * @example
 * validateObjectMeta({ name: "web", namespace: "default" }, { namespaced: true, nameValidator: nameIsDNSSubdomain })
 * // []
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go `ValidateObjectMetaAccessor`
 */
export function validateObjectMeta(
  meta: ObjectMeta | undefined,
  opts: ObjectMetaValidationOptions,
  path: FieldPath = fieldPath("metadata"),
): FieldError[] {
  const m = rec(meta);
  const errs: FieldError[] = [];
  const generateName = str(m["generateName"]);
  if (generateName !== "") {
    for (const msg of opts.nameValidator(generateName, true)) {
      errs.push(field.invalid(path.child("generateName"), generateName, msg));
    }
  }
  const name = str(m["name"]);
  if (name === "") {
    errs.push(field.required(path.child("name"), "name or generateName is required"));
  } else {
    for (const msg of opts.nameValidator(name, false)) errs.push(field.invalid(path.child("name"), name, msg));
  }
  const namespace = str(m["namespace"]);
  if (opts.namespaced) {
    if (namespace === "") {
      errs.push(field.required(path.child("namespace")));
    } else {
      for (const msg of nameIsDNSLabel(namespace, false)) {
        errs.push(field.invalid(path.child("namespace"), namespace, msg));
      }
    }
  } else if (namespace !== "") {
    errs.push(field.forbidden(path.child("namespace"), "not allowed on this type"));
  }
  const generation = num(m["generation"]);
  if (generation !== undefined && generation < 0) {
    errs.push(field.invalid(path.child("generation"), generation, isNegativeErrorMsg));
  }
  errs.push(...validateLabels(strMap(m["labels"]), path.child("labels")));
  errs.push(...validateAnnotations(strMap(m["annotations"]), path.child("annotations")));
  errs.push(...validateOwnerReferences(arr<OwnerReference>(m["ownerReferences"]), path.child("ownerReferences")));
  errs.push(...validateFinalizers(arr<string>(m["finalizers"]), path.child("finalizers")));
  errs.push(...validateManagedFields(arr(m["managedFields"]), path.child("managedFields")));
  return errs;
}

function sameTime(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") {
    const ta = Date.parse(a);
    const tb = Date.parse(b);
    if (!Number.isNaN(ta) && !Number.isNaN(tb)) return ta === tb;
  }
  return semanticEqual(a, b);
}

function immutable(newVal: unknown, oldVal: unknown, path: FieldPath, equal = semanticEqual): FieldError[] {
  return equal(newVal, oldVal) ? [] : [field.invalid(path, newVal ?? null, fieldImmutableErrorMsg)];
}

/**
 * Validates `metadata` on update, given the stored object's metadata:
 * - when the old object is being deleted (`deletionTimestamp` set), no finalizer may be added
 *   (`Forbidden: no new finalizers can be added if the object is being deleted, found new
 *   finalizers []string{"x"}`);
 * - `resourceVersion` must be set (`Invalid value: "": must be specified for an update`);
 * - `generation` must not decrease (`must not be decremented`);
 * - `name`, `namespace`, `uid`, `creationTimestamp`, `deletionTimestamp`,
 *   `deletionGracePeriodSeconds` (and the legacy `clusterName`) are immutable (`Invalid value: ...:
 *   field is immutable`);
 * - labels, annotations, owner references and managed fields of the new object are re-validated.
 *
 * Finalizer names are not re-checked here (as in Kubernetes, whose generic registry also runs the
 * create-time checks on update). Does not mutate its inputs.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go `ValidateObjectMetaAccessorUpdate`
 */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta | undefined,
  oldMeta: ObjectMeta | undefined,
  path: FieldPath = fieldPath("metadata"),
): FieldError[] {
  const n = rec(newMeta);
  const o = rec(oldMeta);
  const errs: FieldError[] = [];
  if (o["deletionTimestamp"] !== undefined && o["deletionTimestamp"] !== null) {
    const old = new Set(arr(o["finalizers"]).map(str));
    const extra = [...new Set(arr(n["finalizers"]).map(str))].filter((f) => !old.has(f)).sort();
    if (extra.length > 0) {
      errs.push(
        field.forbidden(
          path.child("finalizers"),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
        ),
      );
    }
  }
  if (str(n["resourceVersion"]) === "") {
    errs.push(field.invalid(path.child("resourceVersion"), "", "must be specified for an update"));
  }
  const newGen = num(n["generation"]) ?? 0;
  const oldGen = num(o["generation"]) ?? 0;
  if (newGen < oldGen) errs.push(field.invalid(path.child("generation"), newGen, "must not be decremented"));
  errs.push(...immutable(str(n["name"]), str(o["name"]), path.child("name")));
  errs.push(...immutable(str(n["namespace"]), str(o["namespace"]), path.child("namespace")));
  errs.push(...immutable(str(n["uid"]), str(o["uid"]), path.child("uid")));
  errs.push(...immutable(n["creationTimestamp"], o["creationTimestamp"], path.child("creationTimestamp"), sameTime));
  errs.push(...immutable(n["deletionTimestamp"], o["deletionTimestamp"], path.child("deletionTimestamp"), sameTime));
  errs.push(
    ...immutable(n["deletionGracePeriodSeconds"], o["deletionGracePeriodSeconds"], path.child("deletionGracePeriodSeconds")),
  );
  errs.push(...immutable(n["clusterName"], o["clusterName"], path.child("clusterName")));
  errs.push(...validateLabels(strMap(n["labels"]), path.child("labels")));
  errs.push(...validateAnnotations(strMap(n["annotations"]), path.child("annotations")));
  errs.push(...validateOwnerReferences(arr<OwnerReference>(n["ownerReferences"]), path.child("ownerReferences")));
  errs.push(...validateManagedFields(arr(n["managedFields"]), path.child("managedFields")));
  return errs;
}
