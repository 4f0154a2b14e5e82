/**
 * The RBAC authorizer of kube-apiserver 1.23: rule matching (verbs, API groups, resources with
 * subresources and `*` / `*\/sub`, resource names, non-resource URLs with a trailing `*`), subject
 * matching (users, groups, service accounts with the binding's namespace as default) and the rule
 * resolver walking ClusterRoleBindings, then the RoleBindings of the request's namespace. Pure: the
 * roles and bindings come from an {@link RBACPolicySource} (the apiserver feeds it from a watch).
 *
 * @see plugin/pkg/auth/authorizer/rbac/rbac.go (RBACAuthorizer, RuleAllows)
 * @see pkg/registry/rbac/validation/rule.go (DefaultRuleResolver.VisitRulesFor, appliesTo)
 * @see pkg/apis/rbac/v1/evaluation_helpers.go (VerbMatches, ResourceMatches, NonResourceURLMatches)
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from "@skiff/api-types";
import type { UserInfo } from "../registry/strategy.js";
import type { AuthorizationAttributes, Authorizer } from "./auth.js";

/** The roles and bindings the resolver reads. Lookups are synchronous (an in-memory cache). */
export interface RBACPolicySource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  /** The ClusterRoleBindings that may apply to `user` (a superset is fine; every binding is correct too). */
  clusterRoleBindingsFor(user: UserInfo): Iterable<ClusterRoleBinding>;
  /** The RoleBindings of `namespace` that may apply to `user` (a superset is fine). */
  roleBindingsFor(user: UserInfo, namespace: string): Iterable<RoleBinding>;
}

/** `*`: every verb, group, resource or URL. @see staging/src/k8s.io/api/rbac/v1/types.go */
const all = "*";

/** Whether `rule` allows `verb`. @see pkg/apis/rbac/v1/evaluation_helpers.go VerbMatches */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === all || v === verb);
}

/** @see pkg/apis/rbac/v1/evaluation_helpers.go APIGroupMatches */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === all || g === group);
}

/**
 * Whether `rule` covers `combined` (`pods` or `pods/log`): `*`, an exact entry, or `*\/<sub>`
 * for the requested subresource. @see pkg/apis/rbac/v1/evaluation_helpers.go ResourceMatches
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === all || r === combined) return true;
    if (subresource === "") continue;
    if (r.length === subresource.length + 2 && r.startsWith("*/") && r.endsWith(subresource)) return true;
  }
  return false;
}

/** Empty `resourceNames` matches every name. @see pkg/apis/rbac/v1/evaluation_helpers.go ResourceNameMatches */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*`, an exact URL, or a prefix ending in `*`. @see pkg/apis/rbac/v1/evaluation_helpers.go NonResourceURLMatches */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === all || u === path) return true;
    if (u.endsWith("*") && path.startsWith(u.replace(/\*+$/, ""))) return true;
  }
  return false;
}

/**
 * Whether `rule` allows the request `attrs`.
 * @see plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows
 */
export function ruleAllows(attrs: Pick<AuthorizationAttributes, "resourceRequest" | "verb" | "apiGroup" | "resource" | "subresource" | "name" | "path">, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return verbMatches(rule, attrs.verb) && apiGroupMatches(rule, attrs.apiGroup) && resourceMatches(rule, combined, attrs.subresource) && resourceNameMatches(rule, attrs.name);
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** The service-account user name `system:serviceaccount:<ns>:<name>`. @see staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * Whether `subject` names `user`: a User by name, a Group by membership, a ServiceAccount by its
 * user name (its namespace defaulting to the binding's `namespace`; none at all never matches).
 * @see pkg/registry/rbac/validation/rule.go appliesToUser
 */
export function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const ns = subject.namespace ? subject.namespace : namespace;
      return ns !== "" && user.username === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace ? s.namespace : bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** Where a rule came from, worded as 1.23's describers (`RoleBinding "b/ns" of Role "r" to User "bob"`). */
export type RuleSource = () => string;

/** Called for each rule (or each error resolving a binding's role); return false to stop. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: Error | undefined) => boolean;

/** 1.23's lister NotFound error text, e.g. `clusterrole.rbac.authorization.k8s.io "x" not found`. */
function notFound(kind: "role" | "clusterrole", name: string): Error {
  return new Error(`${kind}.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`);
}

/**
 * The rules of `ref` (a Role in `bindingNamespace` or a ClusterRole).
 * @throws Error naming the missing role (1.23's NotFound text) or an unsupported kind.
 * @see pkg/registry/rbac/validation/rule.go GetRoleReferenceRules
 */
export function roleReferenceRules(source: RBACPolicySource, ref: RoleRef, bindingNamespace: string): readonly PolicyRule[] {
  switch (ref.kind) {
    case "Role": {
      const role = source.getRole(bindingNamespace, ref.name);
      if (role === undefined) throw notFound("role", ref.name);
      return role.rules ?? [];
    }
    case "ClusterRole": {
      const role = source.getClusterRole(ref.name);
      if (role === undefined) throw notFound("clusterrole", ref.name);
      return role.rules ?? [];
    }
    default:
      throw new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
  }
}

/**
 * Visits every rule that applies to `user` in `namespace` (`""`: cluster-wide only): the rules of
 * each ClusterRoleBinding naming the user, then of each RoleBinding of `namespace` naming it.
 * @see pkg/registry/rbac/validation/rule.go DefaultRuleResolver.VisitRulesFor
 */
export function visitRulesFor(source: RBACPolicySource, user: UserInfo, namespace: string, visitor: RuleVisitor): void {
  for (const b of source.clusterRoleBindingsFor(user)) {
    const subject = (b.subjects ?? []).find((s) => appliesToUser(user, s, ""));
    if (subject === undefined) continue;
    let rules: readonly PolicyRule[];
    try {
      rules = roleReferenceRules(source, b.roleRef, "");
    } catch (e) {
      if (!visitor(undefined, undefined, e as Error)) return;
      continue;
    }
    const describe = () => `ClusterRoleBinding ${JSON.stringify(b.metadata?.name ?? "")} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, "")}`;
    for (const r of rules) if (!visitor(describe, r, undefined)) return;
  }
  if (namespace === "") return;
  for (const b of source.roleBindingsFor(user, namespace)) {
    const subject = (b.subjects ?? []).find((s) => appliesToUser(user, s, namespace));
    if (subject === undefined) continue;
    let rules: readonly PolicyRule[];
    try {
      rules = roleReferenceRules(source, b.roleRef, namespace);
    } catch (e) {
      if (!visitor(undefined, undefined, e as Error)) return;
      continue;
    }
    const describe = () =>
      `RoleBinding ${JSON.stringify(`${b.metadata?.name ?? ""}/${namespace}`)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, namespace)}`;
    for (const r of rules) if (!visitor(describe, r, undefined)) return;
  }
}

/**
 * Every rule that applies to `user` in `namespace`, and the errors met resolving bindings.
 * @see pkg/registry/rbac/validation/rule.go DefaultRuleResolver.RulesFor
 */
export function rulesFor(source: RBACPolicySource, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
  const rules: PolicyRule[] = [];
  const errors: Error[] = [];
  visitRulesFor(source, user, namespace, (_s, rule, err) => {
    if (rule !== undefined) rules.push(rule);
    if (err !== undefined) errors.push(err);
    return true;
  });
  return { rules, errors };
}

/**
 * apimachinery's aggregate error text: one error alone, else `[e1, e2]`.
 * @see staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go (aggregate.Error)
 */
export function formatAggregate(errors: readonly Error[]): string {
  const msgs = [...new Set(errors.map((e) => e.message))];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(", ")}]`;
}

/**
 * The RBAC authorizer: allowed (reason `RBAC: allowed by <source>`) when a rule that applies to
 * the user allows the request; otherwise no opinion, with reason `RBAC: <errors>` when bindings
 * named missing roles (appended to the 403 message), else `""`.
 * @see plugin/pkg/auth/authorizer/rbac/rbac.go RBACAuthorizer.Authorize
 */
export function rbacAuthorizer(source: RBACPolicySource): Authorizer {
  return (attrs) => {
    let allowedBy: RuleSource | undefined;
    const errors: Error[] = [];
    visitRulesFor(source, attrs.user, attrs.namespace, (src, rule, err) => {
      if (rule !== undefined && ruleAllows(attrs, rule)) {
        allowedBy = src;
        return false;
      }
      if (err !== undefined) errors.push(err);
      return true;
    });
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${allowedBy()}` };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${formatAggregate(errors)}` : "" };
  };
}
