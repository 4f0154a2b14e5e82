import type { PriorityClass } from "@skiff/api-types";
import { HighestUserDefinablePriority, SystemPriorityClasses } from "@skiff/api-types";
import { fieldPath, forbidden, notSupported, required } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { validateImmutableField } from "../internal/field-checks.js";
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from "../meta/index.js";

/** The prefix of the names reserved for the built-in classes (1.23's `SystemPriorityClassPrefix`). */
export const SystemPriorityClassPrefix = "system-";

/** The preemption policies a PriorityClass (and a pod) may have, in 1.23's message order. */
const preemptionPolicies = ["PreemptLowerPriority", "Never"] as const;

/**
 * Whether `name` with `value` and `globalDefault` is one of the built-in classes exactly; the
 * reason when not, in 1.23's words (`value of system-node-critical PriorityClass must be
 * 2000001000`, `system-x is not a known system priority class`).
 * @see pkg/apis/scheduling/helpers.go `IsKnownSystemPriorityClass` (kubernetes/kubernetes, 1.23)
 */
export function knownSystemPriorityClass(name: string, value: number, globalDefault: boolean): string | undefined {
  const spc = SystemPriorityClasses.find((c) => c.name === name);
  if (spc === undefined) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${spc.name} PriorityClass must be ${spc.value}`;
  // The built-in classes are never the global default.
  if (globalDefault) return `globalDefault of ${spc.name} PriorityClass must be false`;
  return undefined;
}

/**
 * Validates a PriorityClass for create (after defaulting). Never throws; does not mutate.
 *
 * - `metadata`: cluster-scoped object meta, the name a DNS-1123 subdomain;
 * - a name starting `system-` must be a built-in class with its value and `globalDefault: false`
 *   (`metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system
 *   use only. error: ...`); any other class's `value` is at most 1,000,000,000
 *   (`value: Forbidden: maximum allowed value of a user defined priority is 1000000000`);
 * - `preemptionPolicy`, when set, `PreemptLowerPriority` or `Never` (`""` is `Required value`).
 *
 * At most one `globalDefault` class is the Priority admission plugin's rule, not validation's.
 *
 * @see pkg/apis/scheduling/validation/validation.go `ValidatePriorityClass` (kubernetes/kubernetes, 1.23)
 */
export function validatePriorityClass(pc: PriorityClass): FieldError[] {
  const errs = validateObjectMeta(pc.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain }, fieldPath("metadata"));
  const name = pc.metadata?.name ?? "";
  const value = pc.value ?? 0;
  if (name.startsWith(SystemPriorityClassPrefix)) {
    const why = knownSystemPriorityClass(name, value, pc.globalDefault === true);
    if (why !== undefined) {
      errs.push(forbidden("metadata.name", `priority class names with '${SystemPriorityClassPrefix}' prefix are reserved for system use only. error: ${why}`));
    }
  } else if (value > HighestUserDefinablePriority) {
    errs.push(forbidden("value", `maximum allowed value of a user defined priority is ${HighestUserDefinablePriority}`));
  }
  if (pc.preemptionPolicy !== undefined) errs.push(...validatePreemptionPolicy(pc.preemptionPolicy, fieldPath("preemptionPolicy")));
  return errs;
}

/**
 * Validates an update of a PriorityClass: object-meta update rules; `value` may not change
 * (`value: Forbidden: may not be changed in an update.`); `preemptionPolicy` is immutable
 * (`Invalid value: ...: field is immutable`). `description` and `globalDefault` may change. As
 * 1.23, the create rules are not applied again. Never throws; does not mutate.
 * @see pkg/apis/scheduling/validation/validation.go `ValidatePriorityClassUpdate` (kubernetes/kubernetes, 1.23)
 */
export function validatePriorityClassUpdate(pc: PriorityClass, old: PriorityClass): FieldError[] {
  const errs = validateObjectMetaUpdate(pc.metadata, old.metadata, fieldPath("metadata"));
  if ((pc.value ?? 0) !== (old.value ?? 0)) errs.push(forbidden("value", "may not be changed in an update."));
  errs.push(...validateImmutableField(pc.preemptionPolicy, old.preemptionPolicy, fieldPath("preemptionPolicy")));
  return errs;
}

function validatePreemptionPolicy(policy: string, path: FieldPath): FieldError[] {
  if (policy === "") return [required(path.toString())];
  if (!(preemptionPolicies as readonly string[]).includes(policy)) return [notSupported(path.toString(), policy, preemptionPolicies)];
  return [];
}

/**
 * The defaults of a PriorityClass, in place: `preemptionPolicy` `PreemptLowerPriority` when unset
 * (1.23's `SetDefaults_PriorityClass`, NonPreemptingPriority on). An absent `value` is already 0
 * after decoding (Go's zero value of the non-optional field). Idempotent; never throws.
 * @see pkg/apis/scheduling/v1/defaults.go (kubernetes/kubernetes, 1.23)
 */
export function setPriorityClassDefaults(pc: PriorityClass): void {
  if (pc.preemptionPolicy === undefined) pc.preemptionPolicy = "PreemptLowerPriority";
}
