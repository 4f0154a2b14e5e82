/**
 * Node validation.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateNode`, `ValidateNodeUpdate`
 */
import { fieldPath, type FieldError, type FieldPath } from "@skiff/apimachinery";
import type { Node, ObjectMeta } from "@skiff/api-types";
import { nameIsDNSSubdomain } from "../meta/names.js";
import { semanticEqual } from "../meta/internal/deep-equal.js";
import { field } from "../meta/internal/field.js";
import { arr, isRecord, str } from "../meta/internal/values.js";
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from "./core-meta.js";
import { items, view, type NodeView } from "./internal-types.js";
import { cidrFamily, isDualStack } from "./net.js";
import { validateResourceQuantityValue } from "./resources.js";
import { validateNodeTaints } from "./scheduling.js";

/** `spec.podCIDRs`, or `[spec.podCIDR]` when only the singular field is set. */
function podCIDRsOf(node: NodeView): string[] {
  const list = arr(node.spec?.podCIDRs).map(str);
  if (list.length > 0) return list;
  const single = str(node.spec?.podCIDR);
  return single === "" ? [] : [single];
}

function validateNodeResources(node: NodeView): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ["capacity", "allocatable"] as const) {
    const list = node.status?.[key];
    if (!isRecord(list)) continue;
    // Kubernetes builds these paths with Child, not Key: `status.capacity.cpu`.
    for (const [name, value] of Object.entries(list)) {
      errs.push(...validateResourceQuantityValue(name, value, fieldPath("status", key, name)));
    }
  }
  return errs;
}

// Kubernetes validates taints under `metadata.taints` (sic).
const taintsPath: FieldPath = fieldPath("metadata", "taints");

/**
 * Validates a Node being created: metadata (cluster-scoped, name a DNS subdomain), taints (key,
 * value, effect; unique by key and effect; reported under `metadata.taints[i]` as Kubernetes does),
 * capacity and allocatable quantities (`status.capacity.<name>`), and pod CIDRs (each a CIDR: `must
 * be valid CIDR`; at most one per IP family; no duplicates). Does not mutate its input.
 *
 * @example
 * validateNode({ metadata: { name: "node-1" }, spec: { podCIDR: "10.244.1.0/24" } }) // []
 * @see pkg/apis/core/validation/validation.go `ValidateNode`
 */
export function validateNode(node: Node): FieldError[] {
  const n = view<NodeView>(node);
  const errs = validateCoreObjectMeta(n.metadata as ObjectMeta | undefined, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  errs.push(...validateNodeTaints(arr(n.spec?.taints), taintsPath));
  errs.push(...validateNodeResources(n));
  const cidrs = podCIDRsOf(n);
  const path = fieldPath("spec", "podCIDRs");
  const families = cidrs.map(cidrFamily);
  families.forEach((f, i) => {
    if (f === 0) errs.push(field.invalid(path.index(i), cidrs, "must be valid CIDR"));
  });
  if (cidrs.length > 1) {
    if (families.every((f) => f !== 0) && (!isDualStack(families) || cidrs.length > 2)) {
      errs.push(field.invalid(path, cidrs, "may specify no more than one CIDR for each IP family"));
    }
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(field.duplicate(path.index(i), c));
      seen.add(c);
    });
  }
  return errs;
}

/**
 * Validates a Node update: metadata update rules, capacity and allocatable quantities, no duplicate
 * `status.addresses`, pod CIDRs immutable once set (`Forbidden: node updates may not change podCIDR
 * except from "" to valid`), `providerID` immutable once set (`... may not change providerID except
 * from "" to valid`), taints valid, `externalID` immutable (`may not be updated`). Unschedulable and
 * taints may change. Does not mutate its inputs.
 *
 * @example
 * validateNodeUpdate(nodeWithNewCIDR, storedNode) // [{ type: "FieldValueForbidden", field: "spec.podCIDRs", ... }]
 * @see pkg/apis/core/validation/validation.go `ValidateNodeUpdate`
 */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const n = view<NodeView>(node);
  const o = view<NodeView>(old);
  const errs = validateCoreObjectMetaUpdate(n.metadata as ObjectMeta | undefined, o.metadata as ObjectMeta | undefined);
  errs.push(...validateNodeResources(n));
  const addresses = items<{ type?: string; address?: string }>(n.status?.addresses);
  addresses.forEach((a, i) => {
    if (addresses.slice(0, i).some((b) => semanticEqual(a, b))) {
      errs.push(field.duplicate(fieldPath("status", "addresses").index(i), a));
    }
  });
  const oldCIDRs = podCIDRsOf(o);
  const newCIDRs = podCIDRsOf(n);
  if (oldCIDRs.length > 0) {
    const msg = 'node updates may not change podCIDR except from "" to valid';
    if (oldCIDRs.length !== newCIDRs.length) errs.push(field.forbidden(fieldPath("spec", "podCIDRs"), msg));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(field.forbidden(fieldPath("spec", "podCIDRs"), msg)));
  }
  const oldProvider = str(o.spec?.providerID);
  if (oldProvider !== "" && oldProvider !== str(n.spec?.providerID)) {
    errs.push(field.forbidden(fieldPath("spec", "providerID"), 'node updates may not change providerID except from "" to valid'));
  }
  errs.push(...validateNodeTaints(arr(n.spec?.taints), taintsPath));
  if (str(n.spec?.externalID) !== str(o.spec?.externalID)) {
    errs.push(field.forbidden(fieldPath("spec", "externalID"), "may not be updated"));
  }
  return errs;
}
