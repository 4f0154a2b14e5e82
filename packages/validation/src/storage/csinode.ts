import type { CSINode, CSINodeDriver } from "@skiff/api-types";
import { duplicate, fieldPath, invalid, isQualifiedName, required } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { validateImmutableField, validateNonnegativeField } from "../internal/field-checks.js";
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from "../meta/index.js";
import { validateCSINodeDriverName } from "./csi-driver-name.js";

/** Longest CSINode `nodeID` without `allowLongNodeID` (CSI spec 1.4). */
export const CSINodeIDMaxLength = 192;
/** Longest CSINode `nodeID` with `allowLongNodeID` (CSI spec 1.5; the 1.23 default). */
export const CSINodeIDLongerMaxLength = 256;

/**
 * Options of the CSINode validators.
 *
 * @see pkg/apis/storage/validation/validation.go `CSINodeValidationOptions` (kubernetes/kubernetes, 1.23)
 */
export interface CSINodeValidationOptions {
  /**
   * Allow `nodeID`s up to 256 characters instead of 192. 1.23's CSINode strategy always sets it.
   * @defaultValue true
   */
  readonly allowLongNodeID: boolean;
}

/** 1.23's CSINode validation options: `{ allowLongNodeID: true }`. */
export const defaultCSINodeValidationOptions: CSINodeValidationOptions = { allowLongNodeID: true };

/**
 * Validates a CSINode for create. Never throws; does not mutate.
 *
 * - `metadata`: cluster-scoped object meta; the name is a node name (DNS-1123 subdomain);
 * - `spec.drivers[i].name`: required, the CSI driver name rule (see `nameIsCSIDriverName`;
 *   longer than 63 → `Too long`), unique (`Duplicate value`);
 * - `spec.drivers[i].nodeID`: required, at most 256 characters (192 without `allowLongNodeID`):
 *   `must be 256 characters or less`;
 * - `spec.drivers[i].allocatable.count` ≥ 0;
 * - `spec.drivers[i].topologyKeys[j]`: non-empty, unique, qualified names.
 *
 * Topology-key errors carry the key's own path (`...topologyKeys[j]`) where 1.23 names only the
 * driver (`spec.drivers[i]`).
 *
 * @see pkg/apis/storage/validation/validation.go `ValidateCSINode` (kubernetes/kubernetes, 1.23)
 * @example
 * validateCSINode(csiNode) // [] when valid
 */
export function validateCSINode(node: CSINode, opts: CSINodeValidationOptions = defaultCSINodeValidationOptions): FieldError[] {
  const errs = validateObjectMeta(node.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain }, fieldPath("metadata"));
  const drivers = fieldPath("spec", "drivers");
  const names = new Set<string>();
  (node.spec?.drivers ?? []).forEach((d, i) => errs.push(...validateCSINodeDriver(d, names, drivers.index(i), opts)));
  return errs;
}

/**
 * Validates an update of a CSINode: object-meta update rules, every create rule on the new
 * object, and for each driver present in both (matched by name) its `nodeID`, `allocatable` and
 * `topologyKeys` unchanged (`Invalid value: ...: field is immutable`, at
 * `spec.drivers[i].nodeID` etc.). Drivers may be added and removed. Never throws; does not mutate.
 *
 * @see pkg/apis/storage/validation/validation.go `ValidateCSINodeUpdate` (kubernetes/kubernetes, 1.23)
 */
export function validateCSINodeUpdate(
  node: CSINode,
  old: CSINode,
  opts: CSINodeValidationOptions = defaultCSINodeValidationOptions,
): FieldError[] {
  const errs = validateObjectMetaUpdate(node.metadata, old.metadata, fieldPath("metadata"));
  errs.push(...validateCSINode(node, opts));
  const oldByName = new Map((old.spec?.drivers ?? []).map((d) => [d.name, d] as const));
  const drivers = fieldPath("spec", "drivers");
  (node.spec?.drivers ?? []).forEach((d, i) => {
    const o = oldByName.get(d.name);
    if (o === undefined) return;
    const p = drivers.index(i);
    errs.push(...validateImmutableField(d.nodeID, o.nodeID, p.child("nodeID")));
    errs.push(...validateImmutableField(d.allocatable, o.allocatable, p.child("allocatable")));
    errs.push(...validateImmutableField(d.topologyKeys, o.topologyKeys, p.child("topologyKeys")));
  });
  return errs;
}

function validateCSINodeDriver(
  driver: CSINodeDriver,
  names: Set<string>,
  path: FieldPath,
  opts: CSINodeValidationOptions,
): FieldError[] {
  const errs = validateCSINodeDriverName(driver.name, path.child("name"));
  const nodeIDPath = path.child("nodeID").toString();
  if (driver.nodeID.length === 0) errs.push(required(nodeIDPath));
  const max = opts.allowLongNodeID ? CSINodeIDLongerMaxLength : CSINodeIDMaxLength;
  if (driver.nodeID.length > max) errs.push(invalid(nodeIDPath, driver.nodeID, `must be ${max} characters or less`));
  errs.push(...validateNonnegativeField(driver.allocatable?.count, path.child("allocatable", "count")));
  if (names.has(driver.name)) errs.push(duplicate(path.child("name").toString(), driver.name));
  names.add(driver.name);
  const keys = new Set<string>();
  (driver.topologyKeys ?? []).forEach((key, j) => {
    const kp = path.child("topologyKeys").index(j).toString();
    if (key.length === 0) {
      errs.push(required(kp));
      return;
    }
    if (keys.has(key)) errs.push(duplicate(kp, key));
    keys.add(key);
    for (const msg of isQualifiedName(key)) errs.push(invalid(kp, key, msg));
  });
  return errs;
}
