import { describe, expect, it } from "vitest";
import type { AuthorizationAttributes, Authorizer } from "./auth.js";
import { alwaysAllowAuthorizer } from "./auth.js";
import { formatForbiddenMessage, isReadOnlyVerb, newForbiddenFromDecision, privilegedGroupsAuthorizer, unionAuthorizers } from "./authorizers.js";

const base: AuthorizationAttributes = {
  user: { username: "bob", groups: ["system:authenticated"] }, verb: "list", resourceRequest: true, path: "/apis/batch/v1/namespaces/default/jobs",
  apiGroup: "batch", apiVersion: "v1", namespace: "default", resource: "jobs", subresource: "", name: "",
};

describe("formatForbiddenMessage (1.23 wording)", () => {
  it("namespaced, cluster-scoped, subresource and non-resource forms", () => {
    expect(formatForbiddenMessage(base)).toBe('User "bob" cannot list resource "jobs" in API group "batch" in the namespace "default"');
    expect(formatForbiddenMessage({ ...base, namespace: "", resource: "nodes", apiGroup: "", verb: "get", name: "n1" })).toBe('User "bob" cannot get resource "nodes" in API group "" at the cluster scope');
    expect(formatForbiddenMessage({ ...base, verb: "update", subresource: "status", name: "pi" })).toBe('User "bob" cannot update resource "jobs/status" in API group "batch" in the namespace "default"');
    expect(formatForbiddenMessage({ ...base, resourceRequest: false, verb: "get", path: "/apis" })).toBe('User "bob" cannot get path "/apis"');
  });
  it("builds the 403 Status with the authorizer's reason", () => {
    const e = newForbiddenFromDecision(base, { allowed: false, reason: "No policy matched." });
    expect(e.status).toMatchObject({
      code: 403, reason: "Forbidden", details: { group: "batch", kind: "jobs" },
      message: 'jobs.batch is forbidden: User "bob" cannot list resource "jobs" in API group "batch" in the namespace "default": No policy matched.',
    });
    expect(newForbiddenFromDecision({ ...base, name: "pi", verb: "get" }, { allowed: false, reason: "" }).message).toBe(
      'jobs.batch "pi" is forbidden: User "bob" cannot get resource "jobs" in API group "batch" in the namespace "default"',
    );
    expect(newForbiddenFromDecision({ ...base, resourceRequest: false, resource: "", apiGroup: "", namespace: "", path: "/version", verb: "get" }, { allowed: false, reason: "" }).message).toBe(
      'forbidden: User "bob" cannot get path "/version"',
    );
  });
});

describe("unionAuthorizers", () => {
  const noOpinion = (reason: string): Authorizer => () => ({ allowed: false, reason });
  it("first allow or deny wins; otherwise reasons are joined", async () => {
    expect(await unionAuthorizers(noOpinion("a"), alwaysAllowAuthorizer)(base)).toEqual({ allowed: true, reason: "" });
    expect(await unionAuthorizers(() => ({ allowed: false, denied: true, reason: "no" }), alwaysAllowAuthorizer)(base)).toEqual({ allowed: false, denied: true, reason: "no" });
    expect(await unionAuthorizers(noOpinion("a"), noOpinion(""), noOpinion("b"))(base)).toEqual({ allowed: false, reason: "a\nb" });
    expect(await unionAuthorizers()(base)).toEqual({ allowed: false, reason: "" });
  });
  it("system:masters is always allowed by the privileged-groups authorizer", async () => {
    const p = privilegedGroupsAuthorizer();
    expect((await p({ ...base, user: { username: "root", groups: ["system:masters"] } })).allowed).toBe(true);
    expect((await p(base)).allowed).toBe(false);
  });
  it("read-only verbs", () => {
    expect(["get", "list", "watch"].every(isReadOnlyVerb)).toBe(true);
    expect(["create", "update", "patch", "delete", "deletecollection", "post"].some(isReadOnlyVerb)).toBe(false);
  });
});
