// Issue 17 item 6 (RBAC): the rbac.authorization.k8s.io/v1 kinds through the real kubectl 1.32
// against the real skiff-apiserver — kubectl create role|clusterrole|rolebinding|clusterrolebinding
// (protobuf bodies), get -o wide with 1.23's columns, 1.23's 422 causes, delete.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, startServer, writeKubeconfig } from "./harness.js";
import type { RunningServer } from "./harness.js";
import { Kubectl, headerColumns, kubectlBuilds } from "./kubectl-helpers.js";

const kubectl132 = kubectlBuilds.find((b) => b.label === "1.32")?.path;

let s: RunningServer;
let k: Kubectl;
beforeAll(async () => {
  s = await startServer();
  k = new Kubectl(kubectl132 ?? "", await writeKubeconfig(s), join(s.dir, "home"));
}, 60_000);
afterAll(async () => {
  await s.stop();
});

const ok = (r: { code: number | null; stderr: string }) => expect(r.code, r.stderr).toBe(0);

describe.skipIf(kubectl132 === undefined)("kubectl 1.32: roles and bindings", () => {
  it("create role|clusterrole|rolebinding|clusterrolebinding, then get -o wide with 1.23's columns", () => {
    ok(k.run("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods,pods/log", "--resource-name=web"));
    ok(k.run("create", "clusterrole", "nodes-reader", "--verb=get", "--resource=nodes", "--non-resource-url=/healthz", "--verb=get"));
    ok(k.run("create", "clusterrole", "agg", "--aggregation-rule=rbac.example.com/aggregate-to-agg=true"));
    ok(k.run("create", "rolebinding", "read-pods", "--role=pod-reader", "--user=bob", "--group=devs", "--serviceaccount=default:builder"));
    ok(k.run("create", "clusterrolebinding", "read-nodes", "--clusterrole=nodes-reader", "--user=alice"));

    const roles = k.run("get", "role,rolebinding", "-o", "wide");
    ok(roles);
    const [roleBlock, bindingBlock] = roles.stdout.trim().split("\n\n") as [string, string];
    expect(headerColumns(roleBlock)).toEqual(["NAME", "CREATED AT"]);
    expect(roleBlock.split("\n")[1]).toMatch(/^role\.rbac\.authorization\.k8s\.io\/pod-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(headerColumns(bindingBlock)).toEqual(["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]);
    expect(bindingBlock.split("\n")[1]?.trim().split(/\s{2,}/)).toEqual(["rolebinding.rbac.authorization.k8s.io/read-pods", "Role/pod-reader", expect.any(String), "bob", "devs", "default/builder"]);

    const role = JSON.parse(k.run("get", "role", "pod-reader", "-o", "json").stdout) as Record<string, unknown>;
    expect(role["rules"]).toEqual([{ apiGroups: [""], resources: ["pods", "pods/log"], resourceNames: ["web"], verbs: ["get", "list", "watch"] }]);
    const agg = JSON.parse(k.run("get", "clusterrole", "agg", "-o", "json").stdout) as Record<string, unknown>;
    expect(agg["aggregationRule"]).toEqual({ clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate-to-agg": "true" } }] });
    const crb = JSON.parse(k.run("get", "clusterrolebinding", "read-nodes", "-o", "json").stdout) as Record<string, unknown>;
    expect(crb["roleRef"]).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "nodes-reader" });
    expect(crb["subjects"]).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }]);
    const crbs = k.run("get", "clusterrolebinding", "read-nodes", "-o", "wide");
    expect(crbs.stdout.split("\n")[1]?.trim().split(/\s{2,}/)).toEqual(["read-nodes", "ClusterRole/nodes-reader", expect.any(String), "alice", "", ""].filter((c) => c !== ""));
  });

  it("describe role|rolebinding reads as on Kubernetes", () => {
    const role = k.run("describe", "role", "pod-reader");
    ok(role);
    expect(role.stdout).toMatch(/^Name:\s+pod-reader$/m);
    expect(role.stdout).toMatch(/^\s+pods\s+\[\]\s+\[web\]\s+\[get list watch\]$/m);
    expect(role.stdout).toMatch(/^\s+pods\/log\s+\[\]\s+\[web\]\s+\[get list watch\]$/m);
    const rb = k.run("describe", "rolebinding", "read-pods");
    ok(rb);
    expect(rb.stdout).toMatch(/^Role:\n\s+Kind:\s+Role\n\s+Name:\s+pod-reader$/m);
    expect(rb.stdout).toMatch(/^\s+User\s+bob\s*$/m);
    expect(rb.stdout).toMatch(/^\s+ServiceAccount\s+builder\s+default$/m);
  });

  it("answers 422 with 1.23's causes and keeps roleRef immutable", async () => {
    const bad = await call(s, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "bad" },
      rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }],
    });
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({
      reason: "Invalid",
      message: 'Role.rbac.authorization.k8s.io "bad" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    });
    const rb = k.run("create", "clusterrolebinding", "sa-no-ns", "--clusterrole=view", "--serviceaccount=:x");
    expect(rb.code).not.toBe(0);
    const patch = await call(s, "PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/read-pods", { roleRef: { name: "other" } }, { "content-type": "application/merge-patch+json" });
    expect(patch.status).toBe(422);
    expect((patch.json() as { message: string }).message).toContain("roleRef: Invalid value:");
    expect((patch.json() as { message: string }).message).toContain("cannot change roleRef");
  });

  it("PUT creates a missing role (AllowCreateOnUpdate) and DELETE answers a Status", async () => {
    const put = await call(s, "PUT", "/apis/rbac.authorization.k8s.io/v1/clusterroles/put-made", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "put-made" },
      rules: [{ verbs: ["get"], nonResourceURLs: ["/version"] }],
    });
    expect(put.status).toBe(201);
    const del = await call(s, "DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterroles/put-made");
    expect(del.status).toBe(200);
    expect(del.json()).toMatchObject({ kind: "Status", status: "Success" });
    ok(k.run("delete", "role", "pod-reader"));
  });
});

// A second apiserver with --authorization-mode=RBAC and users bob and alice (token file).
describe.skipIf(kubectl132 === undefined)("--authorization-mode=RBAC with kubectl 1.32", () => {
  let r: RunningServer;
  let kr: Kubectl;
  beforeAll(async () => {
    const tokens = join(s.dir, "rbac-tokens.csv");
    await writeFile(tokens, `${adminToken},admin,1,"system:masters"\nbob-token,bob,2,"devs"\nalice-token,alice,3\n`);
    r = await startServer({ extraArgs: ["--authorization-mode=RBAC", `--token-auth-file=${tokens}`] });
    kr = new Kubectl(kubectl132 ?? "", await writeKubeconfig(r), join(r.dir, "home"));
  }, 60_000);
  afterAll(async () => {
    await r.stop();
  });
  const until = async (what: string, check: () => boolean): Promise<void> => {
    for (let i = 0; i < 100; i++) {
      if (check()) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`never happened: ${what}`);
  };
  const asBob = (...args: string[]) => kr.run("--token=bob-token", ...args);

  it("the namespaced bootstrap bindings grant what they say: the scheduler may update its ConfigMap lock in kube-system only", () => {
    const canI = (ns: string) => kr.run("auth", "can-i", "update", "configmaps/kube-scheduler", "-n", ns, "--as=system:kube-scheduler").stdout.trim();
    expect(canI("kube-system")).toBe("yes");
    expect(canI("default")).toBe("no");
    expect(kr.run("auth", "can-i", "get", "configmaps/extension-apiserver-authentication", "-n", "kube-system", "--as=system:kube-controller-manager").stdout.trim()).toBe("yes");
  });

  it("reconciles the bootstrap policy: cluster-admin for system:masters, aggregated admin/edit/view, component roles", async () => {
    const names = kr.run("get", "clusterroles", "-o", "name").stdout.split("\n");
    for (const n of ["cluster-admin", "admin", "edit", "view", "system:basic-user", "system:discovery", "system:public-info-viewer", "system:kube-scheduler", "system:kube-controller-manager", "system:node", "system:node-proxier", "system:controller:job-controller"]) {
      expect(names).toContain(`clusterrole.rbac.authorization.k8s.io/${n}`);
    }
    const crb = JSON.parse(kr.run("get", "clusterrolebinding", "cluster-admin", "-o", "json").stdout) as { subjects: unknown[]; metadata: { annotations: Record<string, string>; labels: Record<string, string> } };
    expect(crb.subjects).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:masters" }]);
    expect(crb.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"]).toBe("true");
    expect(crb.metadata.labels["kubernetes.io/bootstrapping"]).toBe("rbac-defaults");
    // The aggregation controller fills admin from system:aggregate-to-admin, edit and view.
    await until("admin aggregated", () => {
      const admin = JSON.parse(kr.run("get", "clusterrole", "admin", "-o", "json").stdout) as { rules?: { resources?: string[] }[] };
      const resources = (admin.rules ?? []).flatMap((x) => x.resources ?? []);
      return resources.includes("rolebindings") && resources.includes("jobs") && resources.includes("configmaps");
    });
  });

  it("answers 403 in 1.23's words, then 200 once a RoleBinding grants access; auth can-i --as agrees", async () => {
    const denied = asBob("get", "pods");
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"');
    expect(kr.run("auth", "can-i", "list", "pods", "--as=bob").stdout.trim()).toBe("no");
    ok(kr.run("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods"));
    ok(kr.run("create", "rolebinding", "bob-reads-pods", "--role=pod-reader", "--user=bob"));
    await until("bob may list pods", () => asBob("get", "pods").code === 0);
    expect(kr.run("auth", "can-i", "list", "pods", "--as=bob").stdout.trim()).toBe("yes");
    expect(kr.run("auth", "can-i", "delete", "pods", "--as=bob").stdout.trim()).toBe("no");
    expect(kr.run("auth", "can-i", "list", "pods", "--as=alice").stdout.trim()).toBe("no");
    expect(kr.run("auth", "can-i", "list", "pods", "--as=carol", "--as-group=devs").stdout.trim()).toBe("no");
    const list = kr.run("auth", "can-i", "--list", "--as=bob");
    ok(list);
    expect(list.stdout.split("\n")[0]?.trim().split(/\s{2,}/)).toEqual(["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]);
    expect(list.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    expect(list.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(list.stdout).toMatch(/^\s+\[\/api\/\*\]\s+\[\]\s+\[get\]$/m);
    const lsar = await call(r, "POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "LocalSubjectAccessReview",
      spec: { user: "bob", resourceAttributes: { namespace: "default", verb: "watch", resource: "pods" } },
    });
    expect(lsar.status).toBe(201);
    expect((lsar.json() as { status: unknown }).status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "bob-reads-pods/default" of Role "pod-reader" to User "bob"' });
    const lsarBad = await call(r, "POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "LocalSubjectAccessReview",
      spec: { user: "bob", resourceAttributes: { namespace: "other", verb: "watch", resource: "pods" } },
    });
    expect(lsarBad.status).toBe(422);
    expect((lsarBad.json() as { message: string }).message).toContain('spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace');
    const cluster = asBob("get", "nodes");
    expect(cluster.stderr).toContain('nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope');
  });

  it("a service-account token gets 403, then 200 after a RoleBinding to the service account", async () => {
    ok(kr.run("create", "serviceaccount", "robot"));
    const token = kr.run("create", "token", "robot");
    ok(token);
    const get = () => call(r, "GET", "/api/v1/namespaces/default/configmaps", undefined, { authorization: `Bearer ${token.stdout.trim()}` });
    const before = await get();
    expect(before.status).toBe(403);
    expect((before.json() as { message: string }).message).toBe(
      'configmaps is forbidden: User "system:serviceaccount:default:robot" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    ok(kr.run("create", "rolebinding", "robot-view", "--clusterrole=view", "--serviceaccount=default:robot"));
    for (let i = 0; i < 100 && (await get()).status !== 200; i++) await new Promise((res) => setTimeout(res, 100));
    expect((await get()).status).toBe(200);
  });

  it("refuses escalation: a role or binding granting more than the user holds is 403 unless escalate/bind is allowed", async () => {
    ok(kr.run("create", "role", "role-maker", "--verb=create,get", "--resource=roles,rolebindings"));
    ok(kr.run("create", "rolebinding", "bob-makes-roles", "--role=role-maker", "--user=bob"));
    await until("bob may create roles", () => kr.run("auth", "can-i", "create", "roles", "--as=bob").stdout.trim() === "yes");
    // Held rules may be granted.
    ok(asBob("create", "role", "pod-lister", "--verb=list", "--resource=pods"));
    const refused = asBob("create", "role", "too-much", "--verb=list,delete", "--resource=pods");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'roles.rbac.authorization.k8s.io "too-much" is forbidden: user "bob" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    );
    const bind = asBob("create", "rolebinding", "bob-edits", "--clusterrole=edit", "--user=alice");
    expect(bind.code).not.toBe(0);
    expect(bind.stderr).toContain('rolebindings.rbac.authorization.k8s.io "bob-edits" is forbidden: user "bob" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:');
    // With `bind` on the ClusterRole, the binding is allowed.
    ok(kr.run("create", "role", "may-bind-edit", "--verb=bind", "--resource=clusterroles", "--resource-name=edit"));
    ok(kr.run("create", "rolebinding", "bob-binds-edit", "--role=may-bind-edit", "--user=bob"));
    await until("bob may bind edit", () => kr.run("auth", "can-i", "bind", "clusterroles/edit", "--as=bob").stdout.trim() === "yes");
    ok(asBob("create", "rolebinding", "bob-edits", "--clusterrole=edit", "--user=alice"));
  });

  it("kubectl auth reconcile -f creates, then adds missing rules and subjects, keeping additions", async () => {
    const file = join(r.dir, "policy.yaml");
    const doc = (verbs: string, subjects: string) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reconciled-reader
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: [${verbs}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: reconciled-role
  namespace: default
rules:
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: reconciled-binding
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: reconciled-reader
subjects:
${subjects}
`;
    await writeFile(file, doc('"get"', "- kind: User\n  apiGroup: rbac.authorization.k8s.io\n  name: alice"));
    const first = kr.run("auth", "reconcile", "-f", file);
    ok(first);
    expect(first.stdout).toContain("clusterrole.rbac.authorization.k8s.io/reconciled-reader reconciled");
    expect(first.stdout).toContain("role.rbac.authorization.k8s.io/reconciled-role reconciled");
    expect(first.stdout).toContain("rolebinding.rbac.authorization.k8s.io/reconciled-binding reconciled");
    await writeFile(file, doc('"get", "list"', "- kind: User\n  apiGroup: rbac.authorization.k8s.io\n  name: carol"));
    ok(kr.run("auth", "reconcile", "-f", file));
    const role = JSON.parse(kr.run("get", "clusterrole", "reconciled-reader", "-o", "json").stdout) as { rules: { verbs: string[] }[] };
    expect(role.rules.flatMap((x) => x.verbs).sort()).toEqual(["get", "list"]);
    const rb = JSON.parse(kr.run("get", "rolebinding", "reconciled-binding", "-o", "json").stdout) as { subjects: { name: string }[] };
    expect(rb.subjects.map((x) => x.name)).toEqual(["alice", "carol"]);
    ok(kr.run("auth", "reconcile", "-f", file, "--remove-extra-subjects"));
    const rb2 = JSON.parse(kr.run("get", "rolebinding", "reconciled-binding", "-o", "json").stdout) as { subjects: { name: string }[] };
    expect(rb2.subjects.map((x) => x.name)).toEqual(["carol"]);
    await until("alice's binding gone", () => kr.run("auth", "can-i", "list", "configmaps", "--as=carol").stdout.trim() === "yes");
  });
});

describe("namespaced bootstrap policy", () => {
  it("the apiserver reconciles 1.23's kube-system and kube-public roles and bindings at start", async () => {
    const names = async (path: string) => ((await call(s, "GET", path)).json() as { items: Array<{ metadata: { namespace: string; name: string } }> }).items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`).sort();
    expect(await names("/apis/rbac.authorization.k8s.io/v1/roles?labelSelector=kubernetes.io%2Fbootstrapping%3Drbac-defaults")).toEqual([
      "kube-public/system:controller:bootstrap-signer",
      "kube-system/extension-apiserver-authentication-reader",
      "kube-system/system::leader-locking-kube-controller-manager",
      "kube-system/system::leader-locking-kube-scheduler",
      "kube-system/system:controller:bootstrap-signer",
      "kube-system/system:controller:cloud-provider",
      "kube-system/system:controller:token-cleaner",
    ]);
    expect(await names("/apis/rbac.authorization.k8s.io/v1/rolebindings?labelSelector=kubernetes.io%2Fbootstrapping%3Drbac-defaults")).toEqual([
      "kube-public/system:controller:bootstrap-signer",
      "kube-system/system::extension-apiserver-authentication-reader",
      "kube-system/system::leader-locking-kube-controller-manager",
      "kube-system/system::leader-locking-kube-scheduler",
      "kube-system/system:controller:bootstrap-signer",
      "kube-system/system:controller:cloud-provider",
      "kube-system/system:controller:token-cleaner",
    ]);
  });
});
