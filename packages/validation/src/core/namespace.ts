/**
 * Namespace validation.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateNamespace`, `ValidateNamespaceUpdate`
 */
import { fieldPath, type FieldError } from "@skiff/apimachinery";
import type { Namespace, ObjectMeta } from "@skiff/api-types";
import { nameIsDNSLabel } from "../meta/names.js";
import { field } from "../meta/internal/field.js";
import { arr, str } from "../meta/internal/values.js";
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate, validateFinalizerName } from "./core-meta.js";
import { view, type NamespaceView } from "./internal-types.js";

/**
 * Validates a Namespace being created: metadata (cluster-scoped, name a DNS-1123 label) and each
 * `spec.finalizers` entry (a qualified name; without a domain only `kubernetes`, `orphan` or
 * `foregroundDeletion`: `name is neither a standard finalizer name nor is it fully qualified`;
 * reported at `spec.finalizers` as Kubernetes does). Does not mutate its input.
 *
 * @example
 * validateNamespace({ metadata: { name: "team-a" }, spec: { finalizers: ["kubernetes"] } }) // []
 * @see pkg/apis/core/validation/validation.go `ValidateNamespace`
 */
export function validateNamespace(namespace: Namespace): FieldError[] {
  const ns = view<NamespaceView>(namespace);
  const errs = validateCoreObjectMeta(ns.metadata as ObjectMeta | undefined, { namespaced: false, nameValidator: nameIsDNSLabel });
  for (const f of arr(ns.spec?.finalizers)) errs.push(...validateFinalizerName(str(f), fieldPath("spec", "finalizers")));
  return errs;
}

/**
 * Validates a Namespace update: only the metadata update rules (the registry keeps the old
 * `spec.finalizers`, which change only through `/finalize`). Does not mutate its inputs.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateNamespaceUpdate`
 */
export function validateNamespaceUpdate(namespace: Namespace, old: Namespace): FieldError[] {
  return validateCoreObjectMetaUpdate(
    view<NamespaceView>(namespace).metadata as ObjectMeta | undefined,
    view<NamespaceView>(old).metadata as ObjectMeta | undefined,
  );
}

/**
 * Validates a Namespace `/status` update: metadata update rules, and `status.phase` `Active`
 * without a `deletionTimestamp`, `Terminating` with one (reported at `status.Phase`, as Kubernetes
 * does). Does not mutate its inputs.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateNamespaceStatusUpdate`
 */
export function validateNamespaceStatusUpdate(namespace: Namespace, old: Namespace): FieldError[] {
  const ns = view<NamespaceView>(namespace);
  const errs = validateNamespaceUpdate(namespace, old);
  const phase = str(ns.status?.phase);
  const deleting = ns.metadata?.deletionTimestamp !== undefined && ns.metadata.deletionTimestamp !== null;
  if (!deleting && phase !== "Active") {
    errs.push(field.invalid(fieldPath("status", "Phase"), phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  } else if (deleting && phase !== "Terminating") {
    errs.push(field.invalid(fieldPath("status", "Phase"), phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errs;
}

/**
 * Validates a Namespace `/finalize` update: metadata update rules and each new `spec.finalizers[i]`.
 * Does not mutate its inputs.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateNamespaceFinalizeUpdate`
 */
export function validateNamespaceFinalizeUpdate(namespace: Namespace, old: Namespace): FieldError[] {
  const errs = validateNamespaceUpdate(namespace, old);
  arr(view<NamespaceView>(namespace).spec?.finalizers).forEach((f, i) => {
    errs.push(...validateFinalizerName(str(f), fieldPath("spec", "finalizers").index(i)));
  });
  return errs;
}
