import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AuthorizationAttributes } from "./auth.js";
import { abacAuthorizer, formatABACErrors, parseABACPolicies } from "./abac.js";

const v1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec });

function attrs(over: Partial<AuthorizationAttributes> & { username?: string; groups?: string[] }): AuthorizationAttributes {
  const { username = "bob", groups = ["system:authenticated"], ...rest } = over;
  return {
    user: { username, groups }, verb: "list", resourceRequest: true, path: "/apis/batch/v1/namespaces/default/jobs",
    apiGroup: "batch", apiVersion: "v1", namespace: "default", resource: "jobs", subresource: "", name: "", ...rest,
  };
}

function authorizerOf(...lines: string[]) {
  const r = parseABACPolicies(lines.join("\n"));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return abacAuthorizer(r.value);
}

describe("parseABACPolicies", () => {
  it("reads v1beta1 lines, skipping blanks and comments", () => {
    const r = parseABACPolicies(`# admins\n\n${v1({ user: "alice", namespace: "*", resource: "*", apiGroup: "*" })}\n  \n${v1({ group: "dev", readonly: true, nonResourcePath: "/apis/*" })}\n`);
    expect(r).toEqual({
      ok: true,
      unversionedLines: 0,
      value: [
        { user: "alice", group: "", readonly: false, apiGroup: "*", resource: "*", namespace: "*", nonResourcePath: "" },
        { user: "", group: "dev", readonly: true, apiGroup: "", resource: "", namespace: "", nonResourcePath: "/apis/*" },
      ],
    });
  });

  it("turns user or group * into system:authenticated (v1beta1 conversion)", () => {
    const r = parseABACPolicies(`${v1({ user: "*", namespace: "*" })}\n${v1({ group: "*", user: "x" })}`);
    expect(r.ok && r.value.map((p) => [p.user, p.group])).toEqual([["", "system:authenticated"], ["", "system:authenticated"]]);
  });

  it("converts legacy unversioned lines as v0", () => {
    const r = parseABACPolicies(`{"user":"alice"}\n{"readonly":true}\n{"user":"bob","namespace":"ns1","resource":"pods"}`);
    expect(r).toMatchObject({
      ok: true,
      unversionedLines: 3,
      value: [
        { user: "alice", group: "", namespace: "*", resource: "*", apiGroup: "*", nonResourcePath: "*" },
        { user: "", group: "system:authenticated", readonly: true, namespace: "*", nonResourcePath: "*" },
        { user: "bob", namespace: "ns1", resource: "pods", apiGroup: "*", nonResourcePath: "" },
      ],
    });
  });

  it("reports every bad line with its number", () => {
    const text = [v1({ user: "a" }), "{not json", v1({ user: 5 }), '{"apiVersion":"v1","kind":"Pod"}', "[1]", `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":"x"}`].join("\n");
    const r = parseABACPolicies(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6]);
    expect(r.errors[1]!.message).toContain("user: expected a string");
    expect(r.errors[2]!.message).toContain('no kind "Pod" is registered for version "v1"');
    expect(formatABACErrors("/p.jsonl", r.errors)).toMatch(/^error reading policy file \/p\.jsonl, line 2: \{not json: invalid JSON/);
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.json(), fc.constant(v1({ user: "a" })))), (lines) => {
        const r = parseABACPolicies(lines.join("\n"));
        expect(typeof r.ok).toBe("boolean");
      }),
    );
  });
});

describe("abacAuthorizer (pkg/auth/authorizer/abac matching)", () => {
  const rw = v1({ user: "alice", namespace: "*", resource: "*", apiGroup: "*" });
  const ro = v1({ user: "bob", namespace: "default", resource: "jobs", apiGroup: "batch", readonly: true });
  const grp = v1({ group: "ops", namespace: "*", resource: "pods", apiGroup: "" });
  const anyone = v1({ user: "*", nonResourcePath: "*", readonly: true });
  const anon = v1({ group: "system:unauthenticated", nonResourcePath: "/version" });
  const prefix = v1({ user: "carol", nonResourcePath: "/apis/*" });
  const a = authorizerOf(rw, ro, grp, anyone, anon, prefix);

  const cases: Array<[string, Parameters<typeof attrs>[0], boolean]> = [
    ["alice writes anything", { username: "alice", verb: "delete" }, true],
    ["bob reads jobs in default", { verb: "get" }, true],
    ["bob cannot write (readonly)", { verb: "create" }, false],
    ["bob cannot read jobs elsewhere", { namespace: "other" }, false],
    ["bob cannot read pods", { resource: "pods", apiGroup: "" }, false],
    ["bob cannot read jobs in another group", { apiGroup: "batch.example.io" }, false],
    ["group ops writes pods", { username: "dave", groups: ["ops", "system:authenticated"], verb: "create", resource: "pods", apiGroup: "" }, true],
    ["group ops not jobs", { username: "dave", groups: ["ops"], verb: "get" }, false],
    ["user * reads any non-resource path when authenticated", { resourceRequest: false, verb: "get", path: "/apis" }, true],
    ["user * does not write non-resource paths", { resourceRequest: false, verb: "post", path: "/apis" }, false],
    ["user * does not match anonymous", { username: "system:anonymous", groups: ["system:unauthenticated"], resourceRequest: false, verb: "get", path: "/apis" }, false],
    ["anonymous gets /version by its group", { username: "system:anonymous", groups: ["system:unauthenticated"], resourceRequest: false, verb: "get", path: "/version" }, true],
    ["a resource policy never matches a non-resource request", { username: "alice", groups: [], resourceRequest: false, verb: "get", path: "/x" }, false],
    ["a non-resource policy never matches a resource request", { username: "carol", verb: "get" }, false],
    ["trailing * matches a prefix", { username: "carol", groups: [], resourceRequest: false, verb: "get", path: "/apis/batch/v1" }, true],
    ["trailing * does not match outside the prefix", { username: "carol", groups: [], resourceRequest: false, verb: "get", path: "/api" }, false],
  ];
  for (const [name, over, allowed] of cases) {
    it(name, async () => {
      const d = await a(attrs(over));
      expect(d.allowed).toBe(allowed);
      expect(d.reason).toBe(allowed ? "" : "No policy matched.");
    });
  }

  it("a policy with neither user nor group matches nobody", async () => {
    expect((await authorizerOf(v1({ namespace: "*", resource: "*", apiGroup: "*" }))(attrs({}))).allowed).toBe(false);
  });
  it("a user policy also requires its group when both are set", async () => {
    const b = authorizerOf(v1({ user: "bob", group: "ops", namespace: "*", resource: "*", apiGroup: "*" }));
    expect((await b(attrs({}))).allowed).toBe(false);
    expect((await b(attrs({ groups: ["ops"] }))).allowed).toBe(true);
  });
});
