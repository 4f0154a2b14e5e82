import type { CSINode, CSINodeDriver } from "@skiff/api-types";
import { GoSyntaxValue, duplicate, fieldPath, goQuote, invalid, isQualifiedName, required } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { deepEqual } from "../internal/deep-equal.js";
import { validateNonnegativeField } from "../internal/field-checks.js";
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
 * Validates a CSINode for create as 1.23's `ValidateCSINode`. Never throws; does not mutate.
 *
 * - `metadata`: cluster-scoped object meta; the name is a node name (DNS-1123 subdomain);
 * - `spec.drivers[i].name`: 1.23's `ValidateCSIDriverName` — empty → `Required value` and also
 *   `Invalid value` (the lower-cased name is not a DNS-1123 subdomain); longer than 63 →
 *   `Too long`; not a DNS-1123 subdomain once lower-cased → `Invalid value`; unique (`Duplicate value`);
 * - `spec.drivers[i].nodeID`: required, at most 256 characters (192 without `allowLongNodeID`):
 *   `must be 256 characters or less`;
 * - `spec.drivers[i].allocatable.count` ≥ 0;
 * - `spec.drivers[i].topologyKeys`: each key non-empty (`Required value`), unique
 *   (`Duplicate value: "<key>"`) and a qualified name (`Invalid value` showing the whole key list)
 *   — all reported at the driver's path `spec.drivers[i]`, as 1.23 does.
 *
 * @see pkg/apis/storage/validation/validation.go `ValidateCSINode`, `validateCSINodeDriver` (kubernetes/kubernetes, 1.23)
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
 * Validates an update of a CSINode as 1.23's strategy does: object-meta update rules, then
 * `ValidateCSINode` on the new object, then `ValidateCSINodeUpdate` — which validates the new
 * object once more (so each create-rule cause appears twice in `details.causes`, once in the
 * message) and, for each driver present in both (matched by name) that changed in any way,
 * `CSINodeDriver: Invalid value: storage.CSINodeDriver{...}: field is immutable` (1.23's path
 * `CSINodeDriver`, the driver printed as Go's `%#v`; the `Allocatable` pointer's address, which
 * differs on every 1.23 run, is printed as `0xc000000000`). Drivers may be added and removed.
 * Never throws; does not mutate.
 *
 * @see pkg/apis/storage/validation/validation.go `ValidateCSINodeUpdate`; pkg/registry/storage/csinode/strategy.go `ValidateUpdate` (kubernetes/kubernetes, 1.23)
 */
export function validateCSINodeUpdate(
  node: CSINode,
  old: CSINode,
  opts: CSINodeValidationOptions = defaultCSINodeValidationOptions,
): FieldError[] {
  const errs = validateObjectMetaUpdate(node.metadata, old.metadata, fieldPath("metadata"));
  errs.push(...validateCSINode(node, opts));
  errs.push(...validateCSINode(node, opts));
  for (const o of old.spec?.drivers ?? []) {
    for (const d of node.spec?.drivers ?? []) {
      if (o.name === d.name && !deepEqual(d, o)) errs.push(invalid("CSINodeDriver", new GoSyntaxValue(goCSINodeDriver(d)), "field is immutable"));
    }
  }
  return errs;
}

// Go's %#v of the internal storage.CSINodeDriver.
function goCSINodeDriver(d: CSINodeDriver): string {
  const keys = d.topologyKeys === undefined ? "[]string(nil)" : `[]string{${d.topologyKeys.map((k) => goQuote(k)).join(", ")}}`;
  const allocatable = d.allocatable === undefined ? "(*storage.VolumeNodeResources)(nil)" : "(*storage.VolumeNodeResources)(0xc000000000)";
  return `storage.CSINodeDriver{Name:${goQuote(d.name)}, NodeID:${goQuote(d.nodeID)}, TopologyKeys:${keys}, Allocatable:${allocatable}}`;
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
  // 1.23 reports every topology-key problem at the driver's own path, the whole key list as the bad value.
  const p = path.toString();
  const keys = new Set<string>();
  for (const key of driver.topologyKeys ?? []) {
    if (key.length === 0) errs.push(required(p));
    if (keys.has(key)) errs.push(duplicate(p, key));
    keys.add(key);
    for (const msg of isQualifiedName(key)) errs.push(invalid(p, driver.topologyKeys ?? [], msg));
  }
  return errs;
}
