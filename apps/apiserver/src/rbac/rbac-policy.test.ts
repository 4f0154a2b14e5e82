import type { ClusterRole, ClusterRoleBinding } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { aggregatedRules } from "../controllers/clusterrole-aggregation-controller.js";
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, controllerRoles } from "./bootstrap-policy.js";
import { compactRules, compactString, covers } from "./covers.js";
import { computeReconciledBinding, computeReconciledRole } from "./reconcile.js";
import { kindValidators } from "@skiff/validation";

describe("covers (1.23 policy comparator)", () => {
  it("breaks rules down and reports what the owner lacks", () => {
    const owner = [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "*/log"] }];
    expect(covers(owner, [{ verbs: ["get"], apiGroups: [""], resources: ["pods", "pods/log"] }]).covered).toBe(true);
    const r = covers(owner, [{ verbs: ["get", "delete"], apiGroups: [""], resources: ["pods"] }, { verbs: ["get"], nonResourceURLs: ["/healthz"] }]);
    expect(r.missing).toEqual([{ apiGroups: [""], resources: ["pods"], verbs: ["delete"] }, { nonResourceURLs: ["/healthz"], verbs: ["get"] }]);
    expect(covers([{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, { verbs: ["*"], nonResourceURLs: ["*"] }], r.missing).covered).toBe(true);
    expect(covers([{ verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] }], [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]).covered).toBe(false);
  });

  it("compacts and prints missing rules as 1.23's CompactString", () => {
    const rules = compactRules([
      { apiGroups: [""], resources: ["pods"], verbs: ["delete"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["create"] },
    ]);
    expect(rules.map(compactString)).toEqual(['{APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]}']);
    expect(compactString({ nonResourceURLs: ["/x"], verbs: ["get"] })).toBe('{NonResourceURLs:["/x"], Verbs:["get"]}');
  });
});

describe("bootstrap policy", () => {
  it("is valid and labelled, every controller role bound to its service account", () => {
    for (const r of [...bootstrapClusterRoles(), ...controllerRoles()]) expect(kindValidators.ClusterRole.validate(r as never, undefined as never), r.metadata?.name).toEqual([]);
    const bindings = bootstrapClusterRoleBindings();
    for (const b of bindings) expect(kindValidators.ClusterRoleBinding.validate(b as never, undefined as never), b.metadata?.name).toEqual([]);
    expect(bindings.find((b) => b.metadata?.name === "system:controller:job-controller")?.subjects).toEqual([{ kind: "ServiceAccount", name: "job-controller", namespace: "kube-system" }]);
    expect(bindings.find((b) => b.metadata?.name === "system:node")?.subjects).toBeUndefined();
  });

  it("aggregates view into edit into admin", () => {
    const roles = bootstrapClusterRoles();
    const view = roles.find((r) => r.metadata?.name === "view")!;
    const viewRules = aggregatedRules(view, roles)!;
    expect(viewRules.some((x) => x.resources?.includes("configmaps") && x.verbs.includes("list"))).toBe(true);
    const withView = roles.map((r) => (r.metadata?.name === "view" ? { ...r, rules: viewRules } : r));
    const edit = aggregatedRules(roles.find((r) => r.metadata?.name === "edit")!, withView)!;
    expect(edit.some((x) => x.resources?.includes("secrets") && x.verbs.includes("create"))).toBe(true);
    expect(edit.some((x) => x.resources?.includes("configmaps") && x.verbs.includes("list"))).toBe(true);
    expect(aggregatedRules(roles.find((r) => r.metadata?.name === "cluster-admin")!, roles)).toBeUndefined();
  });
});

describe("reconciliation (union mode)", () => {
  const expected: ClusterRole = { metadata: { name: "r", labels: { a: "1" }, annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" } }, rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }] };

  it("adds missing rules and metadata, keeps user additions and values", () => {
    const existing: ClusterRole = { metadata: { name: "r", labels: { a: "mine" } }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }, { verbs: ["get"], apiGroups: [""], resources: ["secrets"] }] };
    const r = computeReconciledRole(existing, expected);
    expect(r.changed).toBe(true);
    expect(r.role.metadata?.labels).toEqual({ a: "mine" });
    expect(r.role.metadata?.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true" });
    expect(r.role.rules).toEqual([...existing.rules!, { apiGroups: [""], resources: ["pods"], verbs: ["list"] }]);
    expect(computeReconciledRole(r.role, expected).changed).toBe(false);
  });

  it("marks an autoupdate=false role protected, and recreates a binding with another roleRef", () => {
    const mine: ClusterRole = { metadata: { name: "r", annotations: { "rbac.authorization.kubernetes.io/autoupdate": "false" } }, rules: [] };
    expect(computeReconciledRole(mine, expected)).toMatchObject({ changed: true, protected: true });
    const want: ClusterRoleBinding = { metadata: { name: "b" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "x" }, subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "g" }] };
    expect(computeReconciledBinding({ ...want, roleRef: { ...want.roleRef, name: "y" } }, want).operation).toBe("recreate");
    const more = computeReconciledBinding({ ...want, subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "u" }] }, want);
    expect(more.operation).toBe("update");
    expect(more.binding.subjects).toHaveLength(2);
  });
});
