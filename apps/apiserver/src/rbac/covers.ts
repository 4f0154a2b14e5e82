/**
 * Whether a set of rules covers another, and the rules it does not cover, as 1.23's RBAC
 * validation computes them (used by the escalation checks and by bootstrap reconciliation).
 *
 * @see pkg/registry/rbac/validation/policy_comparator.go (Covers, BreakdownRule, ruleCovers)
 * @see pkg/registry/rbac/validation/policy_compact.go (CompactRules)
 * @see pkg/apis/rbac/v1/helpers.go (CompactString)
 */
import type { PolicyRule } from "@skiff/api-types";

const has = (set: readonly string[] | undefined, v: string) => (set ?? []).includes(v);
const hasAll = (set: readonly string[] | undefined, want: readonly string[] | undefined) => (want ?? []).every((w) => has(set, w));

/** One rule per group × resource × verb (× name), and per URL × verb. @see policy_comparator.go BreakdownRule */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourceCoversAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  if (has(set, "*") || hasAll(set, covers)) return true;
  for (const path of covers ?? []) {
    if (has(set, path)) continue;
    const slash = path.indexOf("/");
    if (slash < 0) return false;
    if (!has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith("*") && sub.startsWith(owner.replace(/\*+$/, "")));
}

/** Whether `owner` covers `sub` (a broken-down rule). @see policy_comparator.go ruleCovers */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, "*") || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, "*") || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/**
 * Whether `owner` covers every rule of `servant`, and the broken-down servant rules it misses.
 * @see pkg/registry/rbac/validation/policy_comparator.go Covers
 */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing = servant.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
  return { covered: missing.length === 0, missing };
}

/**
 * Merges simple rules (one group, one resource, at most one name, no URLs) of the same group,
 * resource and name into one rule with all their verbs. @see policy_compact.go CompactRules
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      (r.resourceNames ?? []).length <= 1 && (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!isSimple) {
      compacted.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...r.verbs];
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...compacted, ...simple.values()];
}

// Go's %q of a []string: ["a" "b"].
function goQuoteList(v: readonly string[]): string {
  return `[${v.map((s) => JSON.stringify(s)).join(" ")}]`;
}

/** A rule as `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. @see pkg/apis/rbac/v1/helpers.go CompactString */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoteList(r.apiGroups!)}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuoteList(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoteList(r.resourceNames!)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/** Go's `%q` of a `[]string` (`["a" "b"]`), for messages that print group lists. */
export { goQuoteList };
