import type { CSIDriver, CSIDriverSpec } from "@skiff/api-types";
import { GoSyntaxValue, duplicate, fieldPath, goQuote, invalid, notSupported, required } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { validateImmutableField } from "../internal/field-checks.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "../meta/index.js";
import { nameIsCSIDriverName } from "./csi-driver-name.js";

/** Shortest `tokenRequests[].expirationSeconds` (10 minutes). */
export const MinTokenExpirationSeconds = 600;
/** Longest `tokenRequests[].expirationSeconds` (2^32 seconds, inclusive as in 1.23). */
export const MaxTokenExpirationSeconds = 2 ** 32;

const fsGroupPolicies = ["File", "None", "ReadWriteOnceWithFSType"] as const;
const volumeLifecycleModes = ["Persistent", "Ephemeral"] as const;

/**
 * Validates a CSIDriver for create (call after defaulting). Never throws; does not mutate.
 *
 * - `metadata`: cluster-scoped object meta; the name follows the spec's CSI driver name rule
 *   (at most 63 characters, `[a-zA-Z0-9]` at both ends, dashes, dots and alphanumerics between;
 *   upper case allowed — the spec wins over 1.23's DNS-subdomain rule);
 * - `spec.attachRequired`, `spec.podInfoOnMount`, `spec.storageCapacity` → `Required value` when
 *   unset (defaulting sets them), the first at 1.23's path `spec.attachedRequired` (its typo);
 * - `spec.fsGroupPolicy` one of `File`, `None`, `ReadWriteOnceWithFSType`;
 * - each of `spec.volumeLifecycleModes` one of `Persistent`, `Ephemeral` (`Unsupported value` at
 *   the list's path `spec.volumeLifecycleModes`, no index, once per bad mode, as 1.23);
 * - `spec.tokenRequests[i].audience` unique (`Duplicate value`; so at most one empty audience);
 *   `expirationSeconds` ≥ 600 (`may not specify a duration less than 10 minutes`) and ≤ 2^32
 *   (`may not specify a duration larger than 2^32 seconds`).
 *
 * Paths are 1.23's own, typo included: clients and scripts match on them.
 *
 * @see pkg/apis/storage/validation/validation.go `ValidateCSIDriver` (kubernetes/kubernetes, 1.23)
 * @example
 * const errs = validateCSIDriver(driver); // [] when valid
 */
export function validateCSIDriver(driver: CSIDriver): FieldError[] {
  const errs = validateObjectMeta(driver.metadata, { namespaced: false, nameValidator: nameIsCSIDriverName }, fieldPath("metadata"));
  errs.push(...validateCSIDriverSpec(driver.spec, fieldPath("spec")));
  return errs;
}

/**
 * Validates an update of a CSIDriver: object-meta update rules, every spec rule of
 * {@link validateCSIDriver}, and immutability of `spec.attachRequired` (reported at 1.23's
 * `spec.attachedRequired`), `spec.fsGroupPolicy`, `spec.podInfoOnMount` and
 * `spec.volumeLifecycleModes` (`Invalid value: ...: field is immutable`, the modes shown as Go's
 * `[]storage.VolumeLifecycleMode{...}`), in 1.23's order.
 * `requiresRepublish`, `tokenRequests` and `storageCapacity` may change (the spec; 1.23).
 * Never throws; does not mutate.
 *
 * @see pkg/apis/storage/validation/validation.go `ValidateCSIDriverUpdate` (kubernetes/kubernetes, 1.23)
 */
export function validateCSIDriverUpdate(driver: CSIDriver, old: CSIDriver): FieldError[] {
  const errs = validateObjectMetaUpdate(driver.metadata, old.metadata, fieldPath("metadata"));
  const spec = fieldPath("spec");
  errs.push(...validateCSIDriverSpec(driver.spec, spec));
  const n = driver.spec;
  const o = old.spec;
  errs.push(...validateImmutableField(n?.attachRequired, o?.attachRequired, spec.child("attachedRequired")));
  errs.push(...validateImmutableField(n?.fsGroupPolicy, o?.fsGroupPolicy, spec.child("fsGroupPolicy")));
  errs.push(...validateImmutableField(n?.podInfoOnMount, o?.podInfoOnMount, spec.child("podInfoOnMount")));
  errs.push(
    ...validateImmutableField(n?.volumeLifecycleModes, o?.volumeLifecycleModes, spec.child("volumeLifecycleModes")).map((e) => ({
      ...e,
      badValue: new GoSyntaxValue(goLifecycleModes(n?.volumeLifecycleModes)),
    })),
  );
  return errs;
}

// Go's %#v of the internal []storage.VolumeLifecycleMode.
function goLifecycleModes(modes: readonly string[] | undefined): string {
  if (modes === undefined) return "[]storage.VolumeLifecycleMode(nil)";
  return `[]storage.VolumeLifecycleMode{${modes.map((m) => goQuote(m)).join(", ")}}`;
}

function validateCSIDriverSpec(spec: CSIDriverSpec | undefined, path: FieldPath): FieldError[] {
  const s: Partial<CSIDriverSpec> = spec ?? {};
  const errs: FieldError[] = [];
  if (s.attachRequired === undefined) errs.push(required(path.child("attachedRequired").toString()));
  if (s.podInfoOnMount === undefined) errs.push(required(path.child("podInfoOnMount").toString()));
  if (s.storageCapacity === undefined) errs.push(required(path.child("storageCapacity").toString()));
  if (s.fsGroupPolicy !== undefined && !(fsGroupPolicies as readonly string[]).includes(s.fsGroupPolicy)) {
    errs.push(notSupported(path.child("fsGroupPolicy").toString(), s.fsGroupPolicy, fsGroupPolicies));
  }
  for (const mode of s.volumeLifecycleModes ?? []) {
    if (!(volumeLifecycleModes as readonly string[]).includes(mode)) {
      errs.push(notSupported(path.child("volumeLifecycleModes").toString(), mode, volumeLifecycleModes));
    }
  }
  const audiences = new Set<string>();
  (s.tokenRequests ?? []).forEach((tr, i) => {
    const p = path.child("tokenRequests").index(i);
    if (audiences.has(tr.audience)) {
      errs.push(duplicate(p.child("audience").toString(), tr.audience));
      return;
    }
    audiences.add(tr.audience);
    const exp = tr.expirationSeconds;
    if (exp === undefined) return;
    if (exp < MinTokenExpirationSeconds) {
      errs.push(invalid(p.child("expirationSeconds").toString(), exp, "may not specify a duration less than 10 minutes"));
    }
    if (exp > MaxTokenExpirationSeconds) {
      errs.push(invalid(p.child("expirationSeconds").toString(), exp, "may not specify a duration larger than 2^32 seconds"));
    }
  });
  return errs;
}
