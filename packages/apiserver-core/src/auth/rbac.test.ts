import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import type { AuthorizationAttributes } from "./auth.js";
import { newForbiddenFromDecision } from "./authorizers.js";
import { rbacAuthorizer, ruleAllows } from "./rbac.js";
import type { RBACPolicySource } from "./rbac.js";

const rbac = "rbac.authorization.k8s.io";
function source(o: { roles?: Role[]; clusterRoles?: ClusterRole[]; roleBindings?: RoleBinding[]; clusterRoleBindings?: ClusterRoleBinding[] }): RBACPolicySource {
  return {
    getRole: (ns, name) => o.roles?.find((r) => r.metadata?.namespace === ns && r.metadata?.name === name),
    getClusterRole: (name) => o.clusterRoles?.find((r) => r.metadata?.name === name),
    clusterRoleBindingsFor: () => o.clusterRoleBindings ?? [],
    roleBindingsFor: (_u, ns) => (o.roleBindings ?? []).filter((b) => b.metadata?.namespace === ns),
  };
}
const attrs = (a: Partial<AuthorizationAttributes> & { user: AuthorizationAttributes["user"] }): AuthorizationAttributes => ({
  verb: "get", resourceRequest: true, path: "", apiGroup: "", apiVersion: "v1", namespace: "default", resource: "pods", subresource: "", name: "", ...a,
});
const bob = { username: "bob", groups: ["system:authenticated"] };
const sa = { username: "system:serviceaccount:ci:builder", groups: ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"] };

describe("ruleAllows (1.23 evaluation helpers)", () => {
  it("matches verbs, groups, resources with subresources and names", () => {
    const rule = { verbs: ["get"], apiGroups: [""], resources: ["pods", "*/log"], resourceNames: ["web"] };
    expect(ruleAllows(attrs({ user: bob, name: "web" }), rule)).toBe(true);
    expect(ruleAllows(attrs({ user: bob, name: "db" }), rule)).toBe(false);
    expect(ruleAllows(attrs({ user: bob, name: "web", subresource: "log" }), rule)).toBe(true);
    expect(ruleAllows(attrs({ user: bob, name: "web", subresource: "status" }), rule)).toBe(false);
    expect(ruleAllows(attrs({ user: bob, name: "web", verb: "list" }), rule)).toBe(false);
    expect(ruleAllows(attrs({ user: bob, apiGroup: "batch", resource: "jobs" }), { verbs: ["*"], apiGroups: ["*"], resources: ["*"] })).toBe(true);
  });

  it("matches non-resource URLs exactly or by a trailing *", () => {
    const rule = { verbs: ["get"], nonResourceURLs: ["/healthz", "/api/*"] };
    expect(ruleAllows(attrs({ user: bob, resourceRequest: false, path: "/healthz" }), rule)).toBe(true);
    expect(ruleAllows(attrs({ user: bob, resourceRequest: false, path: "/api/v1" }), rule)).toBe(true);
    expect(ruleAllows(attrs({ user: bob, resourceRequest: false, path: "/apis" }), rule)).toBe(false);
  });
});

describe("rbacAuthorizer", () => {
  const roles: Role[] = [{ metadata: { name: "pod-reader", namespace: "default" }, rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }] }];
  const clusterRoles: ClusterRole[] = [{ metadata: { name: "view-jobs" }, rules: [{ verbs: ["list"], apiGroups: ["batch"], resources: ["jobs"] }] }];

  it("allows through a RoleBinding to a user, naming the binding in the reason", async () => {
    const a = rbacAuthorizer(source({ roles, roleBindings: [{ metadata: { name: "rb", namespace: "default" }, roleRef: { apiGroup: rbac, kind: "Role", name: "pod-reader" }, subjects: [{ kind: "User", apiGroup: rbac, name: "bob" }] }] }));
    expect(await a(attrs({ user: bob, verb: "list" }))).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "rb/default" of Role "pod-reader" to User "bob"' });
    expect((await a(attrs({ user: bob, verb: "list", namespace: "other" }))).allowed).toBe(false);
    expect((await a(attrs({ user: bob, verb: "delete" }))).allowed).toBe(false);
  });

  it("matches service accounts by name (namespace defaulted to the binding's) and by their groups", async () => {
    const local = rbacAuthorizer(source({ clusterRoles, roleBindings: [{ metadata: { name: "rb", namespace: "ci" }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "view-jobs" }, subjects: [{ kind: "ServiceAccount", name: "builder" }] }] }));
    expect(await local(attrs({ user: sa, verb: "list", apiGroup: "batch", resource: "jobs", namespace: "ci" }))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/ci" of ClusterRole "view-jobs" to ServiceAccount "builder/ci"',
    });
    const byGroup = rbacAuthorizer(source({ clusterRoles, clusterRoleBindings: [{ metadata: { name: "all-sa" }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "view-jobs" }, subjects: [{ kind: "Group", apiGroup: rbac, name: "system:serviceaccounts:ci" }] }] }));
    expect((await byGroup(attrs({ user: sa, verb: "list", apiGroup: "batch", resource: "jobs", namespace: "anywhere" }))).allowed).toBe(true);
    expect((await byGroup(attrs({ user: bob, verb: "list", apiGroup: "batch", resource: "jobs" }))).allowed).toBe(false);
  });

  it("has no opinion with the missing roles as reason, worded into 1.23's 403 message", async () => {
    const a = rbacAuthorizer(source({
      clusterRoleBindings: [{ metadata: { name: "crb" }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "gone" }, subjects: [{ kind: "User", apiGroup: rbac, name: "bob" }] }],
      roleBindings: [{ metadata: { name: "rb", namespace: "default" }, roleRef: { apiGroup: rbac, kind: "Role", name: "gone-too" }, subjects: [{ kind: "User", apiGroup: rbac, name: "bob" }] }],
    }));
    const at = attrs({ user: bob, verb: "list" });
    const d = await a(at);
    expect(d).toEqual({ allowed: false, reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "gone-too" not found]' });
    expect(newForbiddenFromDecision(at, d).status.message).toBe(
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default": RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "gone-too" not found]',
    );
    expect(await rbacAuthorizer(source({}))(at)).toEqual({ allowed: false, reason: "" });
  });
});
