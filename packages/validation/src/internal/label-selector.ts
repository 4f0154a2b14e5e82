import { isQualifiedName, isValidLabelValue } from "@skiff/apimachinery";
import type { LabelSelector } from "@skiff/api-types";

/** A label selector converted for matching: `null` when it cannot be converted (invalid operator, values...). */
export type LabelMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

/**
 * Converts a LabelSelector as `metav1.LabelSelectorAsSelector` does. `undefined` selects nothing;
 * `{}` selects everything. Returns `null` when the selector is invalid (the caller reports that
 * through label-selector validation and skips matching, as Kubernetes does).
 */
export function labelSelectorAsMatcher(selector: LabelSelector | undefined): LabelMatcher | null {
  if (selector === undefined) return () => false;
  const reqs: Array<(labels: Readonly<Record<string, string>>) => boolean> = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (isQualifiedName(key).length > 0 || isValidLabelValue(value).length > 0) return null;
    reqs.push((l) => Object.prototype.hasOwnProperty.call(l, key) && l[key] === value);
  }
  for (const expr of selector.matchExpressions ?? []) {
    const { key, operator } = expr;
    const values = expr.values ?? [];
    if (isQualifiedName(key).length > 0) return null;
    switch (operator) {
      case "In":
      case "NotIn": {
        if (values.length === 0) return null;
        if (values.some((v) => isValidLabelValue(v).length > 0)) return null;
        const set = new Set(values);
        const has = (l: Readonly<Record<string, string>>) => Object.prototype.hasOwnProperty.call(l, key);
        reqs.push(operator === "In" ? (l) => has(l) && set.has(l[key] ?? "") : (l) => !has(l) || !set.has(l[key] ?? ""));
        break;
      }
      case "Exists":
      case "DoesNotExist": {
        if (values.length > 0) return null;
        const want = operator === "Exists";
        reqs.push((l) => Object.prototype.hasOwnProperty.call(l, key) === want);
        break;
      }
      default:
        return null;
    }
  }
  return (labels) => {
    const l = labels ?? {};
    return reqs.every((r) => r(l));
  };
}
