import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStorage } from "@skiff/storage";
import type { ResourceInfo } from "@skiff/api-types";
import { alwaysAllowAuthorizer } from "../auth/auth.js";
import type { ResourceStrategy } from "../registry/strategy.js";
import { createAPIServer } from "../server/server.js";
import type { APIServer } from "../server/server.js";
import { checkApplyConfiguration, defaultPatchSchemaFor, defaultTypeSchemaFor, fieldManagerOptionsFor, schemaNameFor, validatePatchOptions, withPatchErrors } from "./apply.js";
import { PatchError, isStatusError } from "@skiff/apimachinery";

const resource: ResourceInfo = {
  group: "example.io", version: "v1", kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget",
  namespaced: true, shortNames: [], categories: [], subresources: ["status"],
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
};

const widgets: ResourceStrategy = {
  resource,
  applyDefaults() {},
  prepareForCreate(_ctx, obj) { delete obj["status"]; },
  validate() { return []; },
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForUpdate(_ctx, obj, old) { obj["status"] = old["status"]; if (obj["status"] === undefined) delete obj["status"]; },
  validateUpdate() { return []; },
  status: { prepareForUpdate(_ctx, obj, old) { obj["spec"] = old["spec"]; }, validateUpdate() { return []; } },
  getAttrs(obj) { return { labels: obj.metadata?.labels ?? {}, fields: {} }; },
  fieldSelectorKeys: [],
  defaultGarbageCollectionPolicy() { return "Background"; },
  returnDeletedObject: false,
  table: { columns: [{ name: "Name", type: "string", format: "name", description: "", priority: 0 }], cells: (o) => [o.metadata?.name] },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test JSON bodies are probed freely
type Json = Record<string, any>;
let server: APIServer;
let base: string;
beforeEach(async () => {
  server = createAPIServer({
    strategies: [widgets], storage: new MemoryStorage(), insecureHTTP: true, authorizer: alwaysAllowAuthorizer,
    authenticator: () => ({ username: "alice", groups: [] }),
    now: () => new Date("2026-03-04T05:06:07.890Z"),
  });
  base = await server.listen({ host: "127.0.0.1", port: 0 });
});
afterEach(async () => { await server.close(); });

const path = "/apis/example.io/v1/namespaces/default/widgets";
async function call(method: string, p: string, body: unknown, contentType: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + p, { method, headers: { "content-type": contentType, ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Json };
}
const apply = "application/apply-patch+yaml";
const widget = (size: number) => `apiVersion: example.io/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: ${String(size)}\n  tags: [a]\n`;

describe("server-side apply and managedFields over HTTP (deduced schema)", () => {
  it("apply creates (201), updates (200), conflicts (409) and forces", async () => {
    const c = await call("PATCH", `${path}/w?fieldManager=a`, widget(1), apply);
    expect(c.status).toBe(201);
    expect(c.json["metadata"]["managedFields"]).toEqual([
      { manager: "a", operation: "Apply", apiVersion: "example.io/v1", time: "2026-03-04T05:06:07Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:size": {}, "f:tags": {} } } },
    ]);
    expect((await call("PATCH", `${path}/w?fieldManager=a`, widget(2), apply)).status).toBe(200);
    const conflict = await call("PATCH", `${path}/w?fieldManager=b`, widget(3), apply);
    expect(conflict.status).toBe(409);
    expect(conflict.json["message"]).toBe('Apply failed with 1 conflict: conflict with "a": .spec.size');
    const forced = await call("PATCH", `${path}/w?fieldManager=b&force=true`, widget(3), apply);
    expect(forced.status).toBe(200);
    expect(forced.json["spec"]["size"]).toBe(3);
  });

  it("status writes record subresource: status and never own spec", async () => {
    await call("PATCH", `${path}/w?fieldManager=a`, widget(1), apply);
    const st = await call("PATCH", `${path}/w/status?fieldManager=ctl`, { spec: { size: 9 }, status: { ready: true } }, "application/merge-patch+json");
    expect(st.status).toBe(200);
    expect(st.json["spec"]["size"]).toBe(1);
    const e = (st.json["metadata"]["managedFields"] as Json[]).find((x) => x["manager"] === "ctl");
    expect(e).toEqual({ manager: "ctl", operation: "Update", apiVersion: "example.io/v1", time: "2026-03-04T05:06:07Z", fieldsType: "FieldsV1", fieldsV1: { "f:status": { ".": {}, "f:ready": {} } }, subresource: "status" });
  });

  it("create and update record Update entries; PUT keeps live managedFields when the body has none", async () => {
    // A kind without a schema is read like an unstructured object: the create adds `.spec` itself.
    const c = await call("POST", `${path}?fieldManager=maker`, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "u" }, spec: { size: 1 } }, "application/json");
    expect(c.status).toBe(201);
    expect(c.json["metadata"]["managedFields"][0]).toMatchObject({ manager: "maker", operation: "Update", fieldsV1: { "f:spec": { ".": {}, "f:size": {} } } });
    const u = await call("PUT", `${path}/u`, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "u" }, spec: { size: 2 } }, "application/json", { "user-agent": "kubectl-edit/v1.32" });
    expect(u.status).toBe(200);
    expect((u.json["metadata"]["managedFields"] as Json[]).map((x) => [x["manager"], x["fieldsV1"]])).toEqual([
      ["kubectl-edit", { "f:spec": { "f:size": {} } }],
      ["maker", { "f:spec": {} }],
    ]);
  });

  it("malformed patches answer their Status, not 500", async () => {
    await call("PATCH", `${path}/w?fieldManager=a`, widget(1), apply);
    expect((await call("PATCH", `${path}/w`, { op: "x" }, "application/json-patch+json")).status).toBe(400);
    expect((await call("PATCH", `${path}/w`, [{ op: "test", path: "/spec/size", value: 5 }], "application/json-patch+json")).status).toBe(422);
    expect((await call("PATCH", `${path}/w`, { $patch: "bogus" }, "application/strategic-merge-patch+json")).status).toBe(400);
    expect((await call("PATCH", `${path}/w?fieldManager=a`, "- not a map", apply)).status).toBe(400);
    expect((await call("PATCH", `${path}/w?fieldManager=a`, "apiVersion: example.io/v1\nkind: Gadget\n", apply)).status).toBe(400);
    expect((await call("PATCH", `${path}/w?fieldManager=a`, "apiVersion: example.io/v1\nkind: Widget\nmetadata:\n  name: other\n", apply)).status).toBe(400);
    // force converts as every query boolean (1.23's Convert_Slice_string_To_Pointer_bool): "maybe" is true, never a 400.
    expect((await call("PATCH", `${path}/w?fieldManager=a&force=maybe`, widget(1), apply)).status).toBe(200);
  });
});

describe("helpers", () => {
  it("validatePatchOptions mirrors 1.23's PatchOptions validation", () => {
    expect(() => validatePatchOptions(true, {})).toThrow('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    expect(() => validatePatchOptions(false, { force: "true" })).toThrow("force: Forbidden: may not be specified for non-apply patch");
    expect(() => validatePatchOptions(true, { fieldManager: "x", force: "false" })).not.toThrow();
  });
  it("finds the OpenAPI schema of a served kind, and falls back for unknown kinds", () => {
    const job: ResourceInfo = { ...resource, group: "batch", version: "v1", kind: "Job", plural: "jobs" };
    expect(schemaNameFor({ components: { schemas: { J: { "x-kubernetes-group-version-kind": [{ group: "batch", version: "v1", kind: "Job" }] } } } }, job)).toBe("J");
    expect(defaultTypeSchemaFor(job).field("spec").field("template").field("spec").field("containers").listKeys).toEqual(["name"]);
    expect(defaultPatchSchemaFor(job).lookup("spec").schema.lookup("template").schema.lookup("spec").schema.lookup("containers").meta.mergeKey).toBe("name");
    expect(defaultTypeSchemaFor(resource).kind).toBe("deduced");
    expect(fieldManagerOptionsFor(resource, "status", new Date(0)).ignoredFields).toEqual([["f:spec"]]);
    expect(fieldManagerOptionsFor(resource, "", new Date(0)).ignoredFields).toEqual([["f:status"]]);
  });
  it("checkApplyConfiguration and withPatchErrors", () => {
    expect(() => checkApplyConfiguration([], resource, "w")).toThrow(/must be an object/);
    expect(checkApplyConfiguration({ apiVersion: "example.io/v1", kind: "Widget" }, resource, "w")).toMatchObject({ kind: "Widget" });
    let err: unknown;
    try { withPatchErrors(() => { throw new PatchError("Invalid", "nope"); }); } catch (e) { err = e; }
    expect(isStatusError(err) && err.code).toBe(422);
    expect(() => withPatchErrors(() => { throw new TypeError("x"); })).toThrow(TypeError);
  });
});
