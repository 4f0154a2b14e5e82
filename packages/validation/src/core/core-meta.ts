/**
 * ObjectMeta rules specific to the core group: finalizers without a domain must be standard ones.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateObjectMeta`, `validateKubeFinalizerName`
 */
import { fieldPath, isQualifiedName, type FieldError, type FieldPath } from "@skiff/apimachinery";
import type { ObjectMeta } from "@skiff/api-types";
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaValidationOptions } from "../meta/objectmeta.js";
import { field } from "../meta/internal/field.js";
import { arr, rec, str } from "../meta/internal/values.js";
import { kubernetesFinalizer } from "./well-known.js";

const standardFinalizers = new Set([kubernetesFinalizer, "orphan", "foregroundDeletion"]);

/** A finalizer without `/` must be `kubernetes`, `orphan` or `foregroundDeletion`. */
export function validateKubeFinalizerName(name: string, path: FieldPath): FieldError[] {
  if (!name.includes("/") && !standardFinalizers.has(name)) {
    return [field.invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified")];
  }
  return [];
}

/** A namespace `spec.finalizers` entry: a qualified, standard-or-domain name. */
export function validateFinalizerName(name: string, path: FieldPath): FieldError[] {
  return [...isQualifiedName(name).map((msg) => field.invalid(path, name, msg)), ...validateKubeFinalizerName(name, path)];
}

function kubeFinalizerErrors(meta: ObjectMeta | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  arr(rec(meta)["finalizers"]).forEach((f, i) => errs.push(...validateKubeFinalizerName(str(f), path.child("finalizers").index(i))));
  return errs;
}

/** Generic ObjectMeta validation plus the core finalizer rule. */
export function validateCoreObjectMeta(
  meta: ObjectMeta | undefined,
  opts: ObjectMetaValidationOptions,
  path: FieldPath = fieldPath("metadata"),
): FieldError[] {
  return [...validateObjectMeta(meta, opts, path), ...kubeFinalizerErrors(meta, path)];
}

/** Generic ObjectMeta update validation plus the core finalizer rule. */
export function validateCoreObjectMetaUpdate(
  newMeta: ObjectMeta | undefined,
  oldMeta: ObjectMeta | undefined,
  path: FieldPath = fieldPath("metadata"),
): FieldError[] {
  return [...validateObjectMetaUpdate(newMeta, oldMeta, path), ...kubeFinalizerErrors(newMeta, path)];
}
