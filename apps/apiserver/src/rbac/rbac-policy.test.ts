import type { ClusterRole, ClusterRoleBinding } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { aggregatedRules } from "../controllers/clusterrole-aggregation-controller.js";
import { MemoryStorage } from "@skiff/storage";
import { createAllStrategies } from "../registry/index.js";
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapNamespaceRoleBindings, bootstrapNamespaceRoles, controllerRoles } from "./bootstrap-policy.js";
import { compactRules, compactString, covers } from "./covers.js";
import { computeReconciledBinding, computeReconciledRole, reconcileNamespacedPolicy } from "./reconcile.js";
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

describe("namespaced bootstrap policy (1.23 namespace_policy.go)", () => {
  it("has 1.23's roles and bindings in kube-system and kube-public, valid and labelled", () => {
    const roles = bootstrapNamespaceRoles();
    const bindings = bootstrapNamespaceRoleBindings();
    expect(Object.fromEntries(Object.entries(roles).map(([ns, list]) => [ns, list.map((r) => r.metadata?.name)]))).toEqual({
      "kube-system": [
        "extension-apiserver-authentication-reader",
        "system:controller:bootstrap-signer",
        "system:controller:cloud-provider",
        "system:controller:token-cleaner",
        "system::leader-locking-kube-controller-manager",
        "system::leader-locking-kube-scheduler",
      ],
      "kube-public": ["system:controller:bootstrap-signer"],
    });
    expect(Object.fromEntries(Object.entries(bindings).map(([ns, list]) => [ns, list.map((b) => `${b.metadata?.name ?? ""} -> ${b.roleRef.name}`)]))).toEqual({
      "kube-system": [
        "system::extension-apiserver-authentication-reader -> extension-apiserver-authentication-reader",
        "system::leader-locking-kube-controller-manager -> system::leader-locking-kube-controller-manager",
        "system::leader-locking-kube-scheduler -> system::leader-locking-kube-scheduler",
        "system:controller:bootstrap-signer -> system:controller:bootstrap-signer",
        "system:controller:cloud-provider -> system:controller:cloud-provider",
        "system:controller:token-cleaner -> system:controller:token-cleaner",
      ],
      "kube-public": ["system:controller:bootstrap-signer -> system:controller:bootstrap-signer"],
    });
    for (const [ns, list] of Object.entries(roles)) {
      for (const r of list) {
        expect(r.metadata?.namespace).toBe(ns);
        expect(r.metadata?.labels).toEqual({ "kubernetes.io/bootstrapping": "rbac-defaults" });
        expect(kindValidators.Role.validate(r as never, undefined as never), r.metadata?.name).toEqual([]);
      }
    }
    for (const list of Object.values(bindings)) for (const b of list) expect(kindValidators.RoleBinding.validate(b as never, undefined as never), b.metadata?.name).toEqual([]);
    const kcm = bindings["kube-system"]?.find((b) => b.metadata?.name === "system::leader-locking-kube-controller-manager");
    expect(kcm?.subjects).toEqual([
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "system:kube-controller-manager" },
      { kind: "ServiceAccount", name: "kube-controller-manager", namespace: "kube-system" },
    ]);
    expect(roles["kube-system"]?.find((r) => r.metadata?.name === "system::leader-locking-kube-scheduler")?.rules).toEqual([
      { verbs: ["watch"], apiGroups: [""], resources: ["configmaps"] },
      { verbs: ["get", "update"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["kube-scheduler"] },
    ]);
  });

  it("is reconciled as the cluster policy: created, then untouched, a lost rule restored, user additions and autoupdate=false kept", async () => {
    const storage = new MemoryStorage({ compactionIntervalMs: 0 });
    const strategies = createAllStrategies({ jobReadyPods: false, jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: false });
    try {
      const first = await reconcileNamespacedPolicy(strategies, storage, bootstrapNamespaceRoles(), bootstrapNamespaceRoleBindings());
      expect(first.get("Role/kube-system/extension-apiserver-authentication-reader")).toBe("create");
      expect(first.get("RoleBinding/kube-public/system:controller:bootstrap-signer")).toBe("create");
      expect(first.size).toBe(14);
      const again = await reconcileNamespacedPolicy(strategies, storage, bootstrapNamespaceRoles(), bootstrapNamespaceRoleBindings());
      expect([...again.values()].every((op) => op === "none")).toBe(true);

      // A user edits two roles: one loses a rule and gains another, one is protected.
      const key = (name: string) => `/registry/rbac.authorization.k8s.io/roles/kube-system/${name}`;
      const edit = async (name: string, change: (r: Record<string, unknown>) => void) => {
        await storage.guaranteedUpdate(key(name), (cur) => {
          const next = structuredClone(cur) as Record<string, unknown>;
          change(next);
          return next as typeof cur;
        });
      };
      await edit("system:controller:token-cleaner", (r) => (r["rules"] = [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]));
      await edit("system:controller:cloud-provider", (r) => {
        r["rules"] = [];
        (r["metadata"] as { annotations: Record<string, string> }).annotations["rbac.authorization.kubernetes.io/autoupdate"] = "false";
      });
      const third = await reconcileNamespacedPolicy(strategies, storage, bootstrapNamespaceRoles(), bootstrapNamespaceRoleBindings());
      expect(third.get("Role/kube-system/system:controller:token-cleaner")).toBe("update");
      expect(third.get("Role/kube-system/system:controller:cloud-provider")).toBe("skipped-protected");
      const cleaner = (await storage.get(key("system:controller:token-cleaner"))) as unknown as { rules: unknown[] };
      expect(cleaner.rules).toContainEqual({ verbs: ["get"], apiGroups: [""], resources: ["pods"] });
      expect(covers(cleaner.rules as never, bootstrapNamespaceRoles()["kube-system"]!.find((r) => r.metadata?.name === "system:controller:token-cleaner")!.rules!).covered).toBe(true);
      expect(((await storage.get(key("system:controller:cloud-provider"))) as unknown as { rules: unknown[] }).rules).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});
