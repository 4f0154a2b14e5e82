import { errorToStatus } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { abacAuthorizer, parseABACPolicies } from "../auth/abac.js";
import type { AuthorizationAttributes, Authorizer } from "../auth/auth.js";
import type { UserInfo } from "../registry/strategy.js";
import { impersonateUser, isImpersonationHeader, parseImpersonationHeaders } from "./impersonation.js";
import type { ImpersonationTarget } from "./impersonation.js";

const alice: UserInfo = { username: "alice", groups: ["admins", "system:authenticated"] };
const allowAll: Authorizer = () => ({ allowed: true, reason: "" });

function targets(raw: string[]): ImpersonationTarget[] {
  const r = parseImpersonationHeaders(raw);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.value;
}

async function forbidden(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string; details?: unknown }> {
  try {
    await p;
  } catch (e) {
    return errorToStatus(e) as unknown as { code: number; reason: string; message: string };
  }
  throw new Error("expected a rejection");
}

describe("parseImpersonationHeaders", () => {
  it("no impersonation headers → no targets", () => {
    expect(parseImpersonationHeaders(["Authorization", "Bearer x", "Host", "h"])).toEqual({ ok: true, value: [] });
    expect(parseImpersonationHeaders([])).toEqual({ ok: true, value: [] });
  });

  it("user, repeated groups, uid and extras, header names in any case", () => {
    const t = targets([
      "impersonate-user", "bob",
      "Impersonate-Group", "devs",
      "IMPERSONATE-GROUP", "qa, testers",
      "Impersonate-Uid", "1234",
      "Impersonate-Extra-Scopes", "openid",
      "impersonate-extra-scopes", "profile",
      "Impersonate-Extra-acme.com%2Fproject", "p1",
    ]);
    expect(t).toEqual([
      { kind: "User", apiGroup: "", resource: "users", subresource: "", namespace: "", name: "bob" },
      { kind: "Group", apiGroup: "", resource: "groups", subresource: "", namespace: "", name: "devs" },
      // A repeated header stays two values; a comma inside one value is not a separator.
      { kind: "Group", apiGroup: "", resource: "groups", subresource: "", namespace: "", name: "qa, testers" },
      { kind: "UserExtra", apiGroup: "authentication.k8s.io", resource: "userextras", subresource: "scopes", namespace: "", name: "openid" },
      { kind: "UserExtra", apiGroup: "authentication.k8s.io", resource: "userextras", subresource: "scopes", namespace: "", name: "profile" },
      { kind: "UserExtra", apiGroup: "authentication.k8s.io", resource: "userextras", subresource: "acme.com/project", namespace: "", name: "p1" },
      { kind: "UID", apiGroup: "authentication.k8s.io", resource: "uids", subresource: "", namespace: "", name: "1234" },
    ]);
  });

  it("a malformed percent-encoding in an extra key is kept as sent", () => {
    expect(targets(["Impersonate-User", "bob", "Impersonate-Extra-a%zzb", "v"])[1]).toMatchObject({ subresource: "a%zzb" });
  });

  it("service account users become serviceaccounts targets; invalid names stay users", () => {
    expect(targets(["Impersonate-User", "system:serviceaccount:kube-system:default"])).toEqual([
      { kind: "ServiceAccount", apiGroup: "", resource: "serviceaccounts", subresource: "", namespace: "kube-system", name: "default" },
    ]);
    for (const u of ["system:serviceaccount:ns", "system:serviceaccount:ns:a:b", "system:serviceaccount:NS:x", "system:serviceaccount::x"]) {
      expect(targets(["Impersonate-User", u])).toMatchObject([{ kind: "User", name: u }]);
    }
  });

  it("the first user header wins; an empty user header is no user", () => {
    expect(targets(["Impersonate-User", "bob", "Impersonate-User", "carl"])).toMatchObject([{ kind: "User", name: "bob" }]);
    expect(targets(["Impersonate-User", ""])).toEqual([]);
  });

  it("groups, extras or a uid without a user are an error", () => {
    for (const raw of [["Impersonate-Group", "devs"], ["Impersonate-Extra-k", "v"], ["Impersonate-Uid", "1"], ["Impersonate-User", "", "Impersonate-Group", "g"]]) {
      const r = parseImpersonationHeaders(raw);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0]).toMatch(/without impersonating a user$/);
    }
    expect(parseImpersonationHeaders(["Impersonate-Group", "devs"])).toEqual({ ok: false, errors: ['requested [Group "devs"] without impersonating a user'] });
  });

  it("isImpersonationHeader", () => {
    expect(["Impersonate-User", "impersonate-uid", "IMPERSONATE-GROUP", "impersonate-extra-x"].every(isImpersonationHeader)).toBe(true);
    expect(["impersonate-extra", "authorization", "impersonate-users"].some(isImpersonationHeader)).toBe(false);
  });
});

describe("impersonateUser", () => {
  it("no targets → the requestor unchanged (and the authorizer is not asked)", async () => {
    const never: Authorizer = () => {
      throw new Error("asked");
    };
    expect(await impersonateUser(alice, [], never)).toBe(alice);
  });

  it("asks impersonate on every target with 1.23's attributes, as the requestor", async () => {
    const asked: AuthorizationAttributes[] = [];
    const rec: Authorizer = (a) => {
      asked.push(a);
      return { allowed: true, reason: "" };
    };
    await impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Group", "devs", "Impersonate-Uid", "u1", "Impersonate-Extra-Scopes", "openid"]), rec);
    expect(asked.map((a) => [a.user.username, a.verb, a.resourceRequest, a.apiGroup, a.resource, a.subresource, a.namespace, a.name])).toEqual([
      ["alice", "impersonate", true, "", "users", "", "", "bob"],
      ["alice", "impersonate", true, "", "groups", "", "", "devs"],
      ["alice", "impersonate", true, "authentication.k8s.io", "userextras", "scopes", "", "openid"],
      ["alice", "impersonate", true, "authentication.k8s.io", "uids", "", "", "u1"],
    ]);
    const sa: AuthorizationAttributes[] = [];
    await impersonateUser(alice, targets(["Impersonate-User", "system:serviceaccount:ns1:robot"]), (a) => (sa.push(a), { allowed: true, reason: "" }));
    expect(sa.map((a) => [a.resource, a.namespace, a.name])).toEqual([["serviceaccounts", "ns1", "robot"]]);
  });

  it("builds the impersonated user; system:authenticated is added unless anonymous", async () => {
    expect(await impersonateUser(alice, targets(["Impersonate-User", "bob"]), allowAll)).toEqual({ username: "bob", groups: ["system:authenticated"] });
    expect(
      await impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Group", "devs", "Impersonate-Group", "qa", "Impersonate-Uid", "u1", "Impersonate-Extra-Scopes", "a", "Impersonate-Extra-Scopes", "b"]), allowAll),
    ).toEqual({ username: "bob", uid: "u1", groups: ["devs", "qa", "system:authenticated"], extra: { scopes: ["a", "b"] } });
    // Never twice, and not next to system:unauthenticated.
    expect((await impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Group", "system:authenticated"]), allowAll)).groups).toEqual(["system:authenticated"]);
    expect((await impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Group", "system:unauthenticated"]), allowAll)).groups).toEqual(["system:unauthenticated"]);
    expect(await impersonateUser(alice, targets(["Impersonate-User", "system:anonymous"]), allowAll)).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    // The impersonated user never inherits the requestor's groups.
    expect((await impersonateUser(alice, targets(["Impersonate-User", "bob"]), allowAll)).groups).not.toContain("admins");
  });

  it("service accounts get their fixed groups unless groups are asked for", async () => {
    expect(await impersonateUser(alice, targets(["Impersonate-User", "system:serviceaccount:ns1:robot"]), allowAll)).toEqual({
      username: "system:serviceaccount:ns1:robot",
      groups: ["system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"],
    });
    expect((await impersonateUser(alice, targets(["Impersonate-User", "system:serviceaccount:ns1:robot", "Impersonate-Group", "g"]), allowAll)).groups).toEqual(["g", "system:authenticated"]);
  });

  it("a denied target → 403 in 1.23's words, naming the first denied thing", async () => {
    const onlyUsers: Authorizer = (a) => ({ allowed: a.resource === "users", reason: a.resource === "users" ? "" : "no groups for you" });
    expect(await forbidden(impersonateUser(alice, targets(["Impersonate-User", "bob"]), () => ({ allowed: false, reason: "" })))).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    });
    expect((await forbidden(impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Group", "devs"]), onlyUsers))).message).toBe(
      'groups "devs" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope: no groups for you',
    );
    expect((await forbidden(impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Extra-Scopes", "x"]), onlyUsers))).message).toBe(
      'userextras.authentication.k8s.io "x" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope: no groups for you',
    );
    expect((await forbidden(impersonateUser(alice, targets(["Impersonate-User", "system:serviceaccount:ns1:robot"]), () => ({ allowed: false, reason: "" })))).message).toBe(
      'serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
    );
  });

  it("an authorizer error is a denial, not a crash", async () => {
    const boom: Authorizer = () => {
      throw new Error("webhook down");
    };
    expect(await forbidden(impersonateUser(alice, targets(["Impersonate-User", "bob"]), boom))).toMatchObject({ code: 403, message: expect.stringMatching(/: webhook down$/) as unknown as string });
  });

  it("ABAC policies grant impersonate by resource, name-agnostic", async () => {
    const parsed = parseABACPolicies(
      [
        JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec: { user: "alice", resource: "users", apiGroup: "" } }),
        JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec: { user: "alice", resource: "groups", apiGroup: "" } }),
        JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec: { user: "carol", resource: "users", apiGroup: "", readonly: true } }),
      ].join("\n"),
    );
    if (!parsed.ok) throw new Error("bad policy");
    const abac = abacAuthorizer(parsed.value);
    expect(await impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Group", "devs"]), abac)).toEqual({ username: "bob", groups: ["devs", "system:authenticated"] });
    expect((await forbidden(impersonateUser(alice, targets(["Impersonate-User", "bob", "Impersonate-Uid", "1"]), abac))).message).toBe(
      'uids.authentication.k8s.io "1" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: No policy matched.',
    );
    // impersonate is not a read-only verb.
    const carol: UserInfo = { username: "carol", groups: ["system:authenticated"] };
    expect((await forbidden(impersonateUser(carol, targets(["Impersonate-User", "bob"]), abac))).code).toBe(403);
  });
});
