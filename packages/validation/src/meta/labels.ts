/**
 * Label and label-selector validation.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go
 */
import { isQualifiedName, isValidLabelValue, type FieldError, type FieldPath } from "@skiff/apimachinery";
import type { LabelSelector } from "@skiff/api-types";
import { field } from "./internal/field.js";
import { arr, isRecord, rec, str } from "./internal/values.js";

/**
 * Checks one label key (a qualified name: optional DNS-subdomain prefix and `/`, then at most 63
 * characters). Errors are `Invalid value` at `path` (Kubernetes does not key the path).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go `ValidateLabelName`
 */
export function validateLabelName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => field.invalid(path, name, msg));
}

/**
 * Checks a label map: every key a qualified name, every value a label value (empty, or at most 63
 * alphanumerics, `-`, `_`, `.` starting and ending alphanumeric). Errors are `Invalid value` at
 * `path` itself (e.g. `metadata.labels`), as Kubernetes reports them. Undefined means no labels.
 * Does not mutate its input.
 *
 * @example
 * validateLabels({ app: "web" }, fieldPath("metadata", "labels")) // []
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go `ValidateLabels`
 */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(rec(labels))) {
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(str(v))) errs.push(field.invalid(path, v, msg));
  }
  return errs;
}

/**
 * Checks one `matchExpressions` entry: `In`/`NotIn` need values (`Required value: must be specified
 * when \`operator\` is 'In' or 'NotIn'`), `Exists`/`DoesNotExist` forbid them, any other operator is
 * `Invalid value: not a valid selector operator`; the key must be a qualified name and each value a
 * label value (the value check is what Kubernetes added after 1.23; 1.23 silently ignored such
 * selectors when matching).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go `ValidateLabelSelectorRequirement`
 */
export function validateLabelSelectorRequirement(requirement: unknown, path: FieldPath): FieldError[] {
  const r = rec(requirement);
  const errs: FieldError[] = [];
  const values = arr(r["values"]);
  const operator = r["operator"];
  switch (operator) {
    case "In":
    case "NotIn":
      if (values.length === 0) {
        errs.push(field.required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) {
        errs.push(
          field.forbidden(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      break;
    default:
      errs.push(field.invalid(path.child("operator"), operator ?? "", "not a valid selector operator"));
  }
  errs.push(...validateLabelName(str(r["key"]), path.child("key")));
  values.forEach((v, i) => {
    for (const msg of isValidLabelValue(str(v))) errs.push(field.invalid(path.child("values").index(i), v, msg));
  });
  return errs;
}

/**
 * Checks a label selector: `matchLabels` as labels, each `matchExpressions[i]` as above. Undefined
 * (no selector) is valid. Does not mutate its input.
 *
 * @example
 * validateLabelSelector({ matchExpressions: [{ key: "app", operator: "In" }] }, fieldPath("spec", "selector"))
 * // [{ type: "FieldValueRequired", field: "spec.selector.matchExpressions[0].values", ... }]
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go `ValidateLabelSelector`
 */
export function validateLabelSelector(selector: LabelSelector | undefined, path: FieldPath): FieldError[] {
  return validateAnyLabelSelector(selector, path);
}

/** {@link validateLabelSelector} for a value of unknown shape (internal callers). */
export function validateAnyLabelSelector(selector: unknown, path: FieldPath): FieldError[] {
  if (!isRecord(selector)) return [];
  const s = selector;
  const errs = validateLabels(rec(s["matchLabels"]) as Record<string, string>, path.child("matchLabels"));
  arr(s["matchExpressions"]).forEach((expr, i) => {
    errs.push(...validateLabelSelectorRequirement(expr, path.child("matchExpressions").index(i)));
  });
  return errs;
}
