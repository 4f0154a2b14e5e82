// Every query parameter of every resource route, converted as 1.23's ParameterCodec converts it
// (runtime's Convert_Slice_string_To_* functions; see request/query-params.ts): booleans are false
// only for 0/false in any case, int64s fail with strconv.ParseInt's error as a 400, the first
// value of a repeated parameter wins, list parameters (dryRun) take every value, and a DELETE
// body replaces the query's options entirely.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStorage } from "@skiff/storage";
import type { ResourceInfo } from "@skiff/api-types";
import { alwaysAllowAuthorizer } from "../auth/auth.js";
import type { APIObject, ResourceStrategy } from "../registry/strategy.js";
import { createAPIServer } from "./server.js";
import type { APIServer } from "./server.js";

const resource: ResourceInfo = {
  group: "example.io", version: "v1", kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget",
  namespaced: true, shortNames: [], categories: [], subresources: ["status"],
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
};

const widgets: ResourceStrategy = {
  resource,
  applyDefaults(obj) { if (!obj["spec"]) obj["spec"] = {}; },
  prepareForCreate(_ctx, obj) { delete obj["status"]; obj.metadata!.generation = 1; },
  validate() { return []; },
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForUpdate(_ctx, obj, old) { obj["status"] = old["status"]; if (obj["status"] === undefined) delete obj["status"]; },
  validateUpdate() { return []; },
  getAttrs(obj) { return { labels: obj.metadata?.labels ?? {}, fields: {} }; },
  fieldSelectorKeys: [],
  defaultGarbageCollectionPolicy() { return "Background"; },
  returnDeletedObject: false,
  table: { columns: [{ name: "Name", type: "string", format: "name", description: "", priority: 0 }], cells: (o: APIObject) => [o.metadata?.name] },
};

let server: APIServer;
let base: string;
beforeAll(async () => {
  server = createAPIServer({ strategies: [widgets], storage: new MemoryStorage(), authenticator: () => ({ username: "alice", groups: [] }), authorizer: alwaysAllowAuthorizer, insecureHTTP: true });
  base = await server.listen({ host: "127.0.0.1", port: 0 });
  for (const [name, tier] of [["a", "1"], ["b", "2"], ["c", "2"]] as const) {
    await call("POST", path, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name, labels: { tier } }, spec: { size: 1 } });
  }
});
afterAll(async () => {
  await server.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test JSON bodies are probed freely
type Json = Record<string, any>;
const path = "/apis/example.io/v1/namespaces/default/widgets";

async function call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + p, {
    method,
    headers: { "user-agent": "query-test", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: Json = {};
  try { json = JSON.parse(text) as Json; } catch { /* a watch stream or not JSON */ }
  return { status: res.status, json, text };
}

const parseError = (v: string, what = "invalid syntax") => ({ code: 400, reason: "BadRequest", message: `strconv.ParseInt: parsing ${JSON.stringify(v)}: ${what}` });

describe("list and watch (ListOptions)", () => {
  // A watch that ends at once (a negative timeoutSeconds fires Go's timer at once) streams events; a list answers a WidgetList.
  it.each([
    ["watch=true", "watch"], ["watch=True", "watch"], ["watch=1", "watch"], ["watch=", "watch"], ["watch", "watch"], ["watch=yes", "watch"],
    ["watch=false", "list"], ["watch=False", "list"], ["watch=FALSE", "list"], ["watch=0", "list"],
    ["watch=1&watch=0", "watch"], ["watch=0&watch=1", "list"],
  ])("?%s → %s", async (q, want) => {
    const r = await call("GET", `${path}?${q}&timeoutSeconds=-1`);
    expect(r.status).toBe(200);
    expect(r.json["kind"] === "WidgetList" ? "list" : "watch").toBe(want);
  });

  it.each([
    ["limit=1", 1], ["limit=%2B1", 1], ["limit=01", 1], ["limit=0", 3], ["limit=-1", 3], ["limit=1&limit=x", 1], ["limit=5", 3],
  ])("?%s → %d items", async (q, n) => {
    const r = await call("GET", `${path}?${q}`);
    expect(r.status).toBe(200);
    expect(r.json["items"]).toHaveLength(n);
  });

  it.each([
    ["limit", ""], ["limit", "x"], ["limit", "1.0"], ["limit", "9223372036854775808"], ["timeoutSeconds", ""], ["timeoutSeconds", "1s"],
  ])("%s=%j → 400 (list, watch and deletecollection)", async (name, v) => {
    const what = v.length > 18 ? "value out of range" : "invalid syntax";
    for (const [method, extra] of [["GET", ""], ["GET", "&watch=1"], ["DELETE", "&dryRun=All"]] as const) {
      const r = await call(method, `${path}?${name}=${encodeURIComponent(v)}${extra}`);
      expect(r.json).toMatchObject(parseError(v, what));
    }
  });

  it("string parameters take the first value", async () => {
    const r = await call("GET", `${path}?labelSelector=tier%3D1&labelSelector=tier%3D2`);
    expect(r.json["items"].map((i: Json) => i["metadata"]["name"])).toEqual(["a"]);
  });

  it.each([
    ["pretty=true", true], ["pretty=True", true], ["pretty=1", true], ["pretty=t", true],
    ["pretty=yes", false], ["pretty=false", false], ["pretty=", false], ["", false], ["pretty=1&pretty=0", true],
  ])("?%s → indented %j (list and get)", async (q, indented) => {
    for (const p of [path, `${path}/a`]) {
      const r = await call("GET", `${p}?${q}`);
      expect(r.status).toBe(200);
      expect(r.text.includes("\n  ")).toBe(indented);
    }
  });

  it("a curl User-Agent gets indented output unless pretty says otherwise", async () => {
    expect((await call("GET", `${path}/a`, undefined, { "user-agent": "curl/8.1" })).text).toContain("\n  ");
    expect((await call("GET", `${path}/a?pretty=0`, undefined, { "user-agent": "curl/8.1" })).text).not.toContain("\n  ");
  });
});

describe("create and update (CreateOptions, UpdateOptions)", () => {
  it("fieldManager takes the first value; dryRun takes every value", async () => {
    const c = await call("POST", `${path}?fieldManager=first&fieldManager=second`, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "fm" }, spec: {} });
    expect(c.status).toBe(201);
    expect(c.json["metadata"]["managedFields"][0]["manager"]).toBe("first");
    const u = await call("PUT", `${path}/fm?fieldManager=up&fieldManager=down`, { ...c.json, spec: { size: 2 } });
    expect(u.json["metadata"]["managedFields"].map((m: Json) => m["manager"])).toContain("up");
    const bad = await call("POST", `${path}?dryRun=All&dryRun=Some`, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "dr" }, spec: {} });
    expect(bad.json).toMatchObject({ code: 400, message: "Invalid dryRun value: Some. Valid values: All" });
    const dry = await call("POST", `${path}?dryRun=All`, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "dr" }, spec: {} });
    expect(dry.status).toBe(201);
    expect((await call("GET", `${path}/dr`)).status).toBe(404);
  });
});

describe("patch (PatchOptions)", () => {
  const apply = (name: string, size: number, q: string) =>
    call("PATCH", `${path}/${name}?${q}`, JSON.stringify({ apiVersion: "example.io/v1", kind: "Widget", metadata: { name }, spec: { size } }), { "content-type": "application/apply-patch+yaml" });

  it.each(["force=true", "force=false", "force=", "force=yes", "force=0"])("?%s on a merge patch → 422 force Forbidden", async (q) => {
    const r = await call("PATCH", `${path}/a?${q}`, "{}", { "content-type": "application/merge-patch+json" });
    expect(r.json).toMatchObject({ code: 422, details: { causes: [{ field: "force", reason: "FieldValueForbidden" }] } });
  });

  it.each([
    ["force=True", 200], ["force=1", 200], ["force=", 200], ["force=on", 200],
    ["force=False", 409], ["force=0", 409], ["force=false&force=true", 409],
  ])("apply over another manager's field with ?%s → %d", async (q, code) => {
    const name = `ap-${code}-${q.replace(/[^a-z0-9]/gi, "")}`.toLowerCase();
    expect((await apply(name, 1, "fieldManager=one")).status).toBe(201);
    expect((await apply(name, 2, `fieldManager=two&${q}`)).status).toBe(code);
  });
});

describe("delete and deletecollection (DeleteOptions)", () => {
  it.each(["", "x", "1.5", "99999999999999999999"])("gracePeriodSeconds=%j → 400", async (v) => {
    const what = v.length > 18 ? "value out of range" : "invalid syntax";
    expect((await call("DELETE", `${path}/a?gracePeriodSeconds=${v}`)).json).toMatchObject(parseError(v, what));
    expect((await call("DELETE", `${path}?gracePeriodSeconds=${v}`)).json).toMatchObject(parseError(v, what));
  });

  it.each(["orphanDependents=true", "orphanDependents=True", "orphanDependents=", "orphanDependents=no", "orphanDependents=false", "orphanDependents=0"])(
    "?%s with propagationPolicy → 422 (orphanDependents is set whatever its value)",
    async (q) => {
      const r = await call("DELETE", `${path}/a?${q}&propagationPolicy=Background&dryRun=All`);
      expect(r.json).toMatchObject({ code: 422, message: expect.stringContaining("orphanDependents and deletionPropagation cannot be both set") });
    },
  );

  it("a DeleteOptions body replaces the query: its bad values are not read", async () => {
    const r = await call("DELETE", `${path}/a?gracePeriodSeconds=x&dryRun=All`, { kind: "DeleteOptions", apiVersion: "v1" });
    expect(r.status).toBe(200);
  });
});
