import { MemoryStorage } from "@skiff/storage";
import type { RoleBinding } from "@skiff/api-types";
import { rbacAuthorizer } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { startRBACPolicyCache } from "./rbac-policy-cache.js";
import { confirmNoEscalation } from "../admission/rbac-escalation.js";

const rbac = "rbac.authorization.k8s.io";
const prefix = "/registry/rbac.authorization.k8s.io";
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe("RBAC policy cache", () => {
  it("lists at start, follows watch events, and indexes bindings by subject", async () => {
    const storage = new MemoryStorage();
    await storage.create(`${prefix}/roles/ns/reader`, { metadata: { name: "reader", namespace: "ns" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    const rb: RoleBinding = { metadata: { name: "b", namespace: "ns" }, roleRef: { apiGroup: rbac, kind: "Role", name: "reader" }, subjects: [{ kind: "ServiceAccount", name: "robot" }] };
    await storage.create(`${prefix}/rolebindings/ns/b`, rb as never);
    const cache = await startRBACPolicyCache(storage);
    try {
      const robot = { username: "system:serviceaccount:ns:robot", groups: ["system:serviceaccounts"] };
      const bob = { username: "bob", groups: ["devs"] };
      expect(cache.getRole("ns", "reader")?.rules).toHaveLength(1);
      expect([...cache.roleBindingsFor(robot, "ns")].map((b) => b.metadata?.name)).toEqual(["b"]);
      expect([...cache.roleBindingsFor(bob, "ns")]).toEqual([]);
      const authorize = rbacAuthorizer(cache);
      const attrs = { verb: "get", resourceRequest: true, path: "", apiGroup: "", apiVersion: "v1", namespace: "ns", resource: "pods", subresource: "", name: "" };
      expect((await authorize({ ...attrs, user: robot })).allowed).toBe(true);

      // A new binding for a group arrives through the watch; a deleted role leaves a reason.
      await storage.create(`${prefix}/clusterrolebindings/devs`, { metadata: { name: "devs" }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "missing" }, subjects: [{ kind: "Group", apiGroup: rbac, name: "devs" }] });
      await until(() => [...cache.clusterRoleBindingsFor(bob)].length === 1);
      expect(await authorize({ ...attrs, user: bob })).toEqual({ allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found' });
      await storage.delete(`${prefix}/roles/ns/reader`);
      await until(() => cache.getRole("ns", "reader") === undefined);
      expect((await authorize({ ...attrs, user: robot })).allowed).toBe(false);
      // Updating a binding's subjects re-indexes it.
      const cur = await storage.get(`${prefix}/rolebindings/ns/b`);
      await storage.guaranteedUpdate(`${prefix}/rolebindings/ns/b`, () => ({ ...cur, subjects: [{ kind: "User", apiGroup: rbac, name: "bob" }] }));
      await until(() => [...cache.roleBindingsFor(bob, "ns")].length === 1 && [...cache.roleBindingsFor(robot, "ns")].length === 0);
    } finally {
      cache.stop();
      await storage.close();
    }
  });

  it("words a refused escalation as 1.23", async () => {
    const storage = new MemoryStorage();
    await storage.create(`${prefix}/clusterroles/gone-soon`, { metadata: { name: "x" }, rules: [] });
    await storage.create(`${prefix}/clusterrolebindings/b`, { metadata: { name: "b" }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "nope" }, subjects: [{ kind: "User", apiGroup: rbac, name: "bob" }] });
    const cache = await startRBACPolicyCache(storage);
    try {
      const msg = confirmNoEscalation(cache, { username: "bob", groups: ["devs", "system:authenticated"] }, "ns", [{ verbs: ["get", "delete"], apiGroups: [""], resources: ["pods"] }, { verbs: ["get"], nonResourceURLs: ["/x"] }]);
      expect(msg).toBe(
        'user "bob" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get" "delete"]}\n{NonResourceURLs:["/x"], Verbs:["get"]}; resolution errors: [clusterrole.rbac.authorization.k8s.io "nope" not found]',
      );
    } finally {
      cache.stop();
      await storage.close();
    }
  });
});
