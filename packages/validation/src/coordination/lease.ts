import type { Lease, LeaseSpec } from "@skiff/api-types";
import { fieldPath, invalid } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from "../meta/index.js";

/**
 * Validates a Lease for create. Never throws; does not mutate.
 *
 * - `metadata`: namespaced object meta, the name a DNS-1123 subdomain;
 * - `spec.leaseDurationSeconds`, when set, > 0 (`must be greater than 0`);
 * - `spec.leaseTransitions`, when set, ≥ 0 (`must to greater or equal than 0`, 1.23's wording).
 *
 * `holderIdentity` and the times are not checked beyond their JSON types (decoding checks that
 * the times are RFC 3339).
 *
 * @see pkg/apis/coordination/validation/validation.go `ValidateLease` (kubernetes/kubernetes, 1.23)
 * @example
 * validateLease({ metadata: { name: "node-1", namespace: "kube-node-lease" }, spec: { leaseDurationSeconds: 40 } }) // []
 */
export function validateLease(lease: Lease): FieldError[] {
  const errs = validateObjectMeta(lease.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain }, fieldPath("metadata"));
  errs.push(...validateLeaseSpec(lease.spec, fieldPath("spec")));
  return errs;
}

/**
 * Validates an update of a Lease: the object-meta update rules and the spec rules of
 * {@link validateLease} (every spec field may change). Never throws; does not mutate.
 *
 * @see pkg/apis/coordination/validation/validation.go `ValidateLeaseUpdate` (kubernetes/kubernetes, 1.23)
 */
export function validateLeaseUpdate(lease: Lease, old: Lease): FieldError[] {
  const errs = validateObjectMetaUpdate(lease.metadata, old.metadata, fieldPath("metadata"));
  errs.push(...validateLeaseSpec(lease.spec, fieldPath("spec")));
  return errs;
}

function validateLeaseSpec(spec: LeaseSpec | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const duration = spec?.leaseDurationSeconds;
  if (duration !== undefined && duration <= 0) errs.push(invalid(path.child("leaseDurationSeconds").toString(), duration, "must be greater than 0"));
  const transitions = spec?.leaseTransitions;
  if (transitions !== undefined && transitions < 0) errs.push(invalid(path.child("leaseTransitions").toString(), transitions, "must to greater or equal than 0"));
  return errs;
}
