import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect as http2Connect } from "node:http2";
import type { ClientHttp2Session } from "node:http2";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { invalid } from "@skiff/apimachinery";
import type { TraceFields, Tracer } from "@skiff/apimachinery";
import { MemoryStorage } from "@skiff/storage";
import type { ResourceInfo } from "@skiff/api-types";
import { alwaysAllowAuthorizer } from "../auth/auth.js";
import type { Authenticator } from "../auth/auth.js";
import type { RequestLimits } from "../filters/filters.js";
import type { APIObject, ResourceStrategy } from "../registry/strategy.js";
import { namespaceLifecycle } from "../handlers/admission.js";
import { createAPIServer } from "./server.js";
import type { APIServer } from "./server.js";

const resource: ResourceInfo = {
  group: "example.io", version: "v1", kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget",
  namespaced: true, shortNames: [], categories: [], subresources: ["status"],
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
};

const widgets: ResourceStrategy = {
  resource,
  applyDefaults(obj) { (obj["spec"] as Record<string, unknown> | undefined) ??= {}; if (!obj["spec"]) obj["spec"] = {}; },
  prepareForCreate(_ctx, obj) { delete obj["status"]; obj.metadata!.generation = 1; },
  validate(_ctx, obj) {
    const size = (obj["spec"] as { size?: unknown } | undefined)?.size;
    return typeof size === "number" && size < 0 ? [invalid("spec.size", size, "must be >= 0")] : [];
  },
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForUpdate(_ctx, obj, old) { obj["status"] = old["status"]; if (obj["status"] === undefined) delete obj["status"]; },
  validateUpdate() { return []; },
  status: { prepareForUpdate(_ctx, obj, old) { obj["spec"] = old["spec"]; }, validateUpdate() { return []; } },
  getAttrs(obj) { return { labels: obj.metadata?.labels ?? {}, fields: { "spec.color": String((obj["spec"] as { color?: string } | undefined)?.color ?? "") } }; },
  fieldSelectorKeys: ["spec.color"],
  defaultGarbageCollectionPolicy() { return "Background"; },
  returnDeletedObject: false,
  table: { columns: [{ name: "Name", type: "string", format: "name", description: "", priority: 0 }], cells: (o: APIObject) => [o.metadata?.name] },
};

const auth: Authenticator = (req) => (req.headers["authorization"] === "Bearer good" ? { username: "alice", groups: ["system:authenticated"] } : null);

let server: APIServer;
let base: string;
beforeEach(async () => {
  server = createAPIServer({ strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true });
  base = await server.listen({ host: "127.0.0.1", port: 0 });
});
afterEach(async () => { await server.close(); });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test JSON bodies are probed freely
type Json = Record<string, any>;

const path = "/apis/example.io/v1/namespaces/default/widgets";
async function call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: "Bearer good", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: Json = {};
  try { json = JSON.parse(text) as Json; } catch { /* not JSON */ }
  return { status: res.status, json, text, headers: res.headers };
}
const widget = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: "example.io/v1", kind: "Widget", metadata: { name }, spec: { color: "red" }, ...extra });

describe("authentication", () => {
  it("401 Status without credentials", async () => {
    const r = await call("GET", path, undefined, { authorization: "Bearer bad" });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
  });
});

describe("routing", () => {
  it("404 for unknown resources", async () => {
    const r = await call("GET", "/apis/example.io/v1/namespaces/default/gadgets");
    expect(r.status).toBe(404);
    expect(r.json["message"]).toBe("the server could not find the requested resource");
  });
  it("405 for a method not allowed", async () => {
    const r = await call("POST", `${path}/a`, widget("a"));
    expect(r.status).toBe(405);
    expect(r.json["reason"]).toBe("MethodNotAllowed");
  });
});

describe("CRUD", () => {
  it("creates, gets, conflicts and deletes", async () => {
    const c = await call("POST", path, widget("a"));
    expect(c.status).toBe(201);
    expect(c.json["metadata"]).toMatchObject({ name: "a", namespace: "default", generation: 1 });
    expect(c.json["metadata"]["uid"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.json["metadata"]["managedFields"]).toMatchObject([{ manager: "node", operation: "Update", fieldsType: "FieldsV1" }]);
    expect((await call("POST", `${path}?fieldManager=${"x".repeat(129)}`, widget("z"))).status).toBe(400);
    const dup = await call("POST", path, widget("a"));
    expect(dup.status).toBe(409);
    expect(dup.json["message"]).toBe('widgets.example.io "a" already exists');
    const g = await call("GET", `${path}/a`);
    expect(g.json["metadata"]["resourceVersion"]).toBe(c.json["metadata"]["resourceVersion"]);
    const stale = await call("PUT", `${path}/a`, { ...widget("a"), metadata: { name: "a", resourceVersion: "999" } });
    expect(stale.status).toBe(409);
    expect(stale.json["message"]).toContain("the object has been modified");
    const u = await call("PUT", `${path}/a`, { ...widget("a"), spec: { color: "blue" } });
    expect(u.status).toBe(200);
    expect(u.json["spec"]).toEqual({ color: "blue" });
    const d = await call("DELETE", `${path}/a`);
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "a" } });
    expect((await call("GET", `${path}/a`)).status).toBe(404);
  });
  it("generateName gives 5 characters from the Kubernetes alphabet", async () => {
    const c = await call("POST", path, { ...widget(""), metadata: { generateName: "w-" } });
    expect(c.json["metadata"]["name"]).toMatch(/^w-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
  it("400 on name mismatch, wrong kind, malformed JSON; 415 on unknown media type", async () => {
    await call("POST", path, widget("a"));
    expect((await call("PUT", `${path}/a`, widget("b"))).json["message"]).toBe("the name of the object (b) does not match the name on the URL (a)");
    expect((await call("POST", path, { ...widget("x"), kind: "Gadget" })).status).toBe(400);
    expect((await call("POST", path, "{bad")).status).toBe(400);
    const m = await call("POST", path, "x", { "content-type": "text/plain" });
    expect(m.status).toBe(415);
    expect(m.json["reason"]).toBe("UnsupportedMediaType");
  });
  it("422 Invalid from strategy validation", async () => {
    const r = await call("POST", path, { ...widget("a"), spec: { size: -1 } });
    expect(r.status).toBe(422);
    expect(r.json["reason"]).toBe("Invalid");
  });
  it("strict field validation rejects duplicate fields", async () => {
    const body = '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a","name":"b"}}';
    const r = await call("POST", `${path}?fieldValidation=Strict`, body);
    expect(r.status).toBe(400);
    expect(r.json["message"]).toBe('strict decoding error: duplicate field "metadata.name"');
  });
  it("dryRun=All stores nothing; bad dryRun is 400", async () => {
    expect((await call("POST", `${path}?dryRun=All`, widget("a"))).status).toBe(201);
    expect((await call("GET", `${path}/a`)).status).toBe(404);
    expect((await call("POST", `${path}?dryRun=Some`, widget("a"))).status).toBe(400);
  });
  it("patches with merge and JSON patch", async () => {
    await call("POST", path, widget("a"));
    const m = await call("PATCH", `${path}/a`, { spec: { color: "green" } }, { "content-type": "application/merge-patch+json" });
    expect(m.json["spec"]).toEqual({ color: "green" });
    const j = await call("PATCH", `${path}/a`, [{ op: "replace", path: "/spec/color", value: "pink" }], { "content-type": "application/json-patch+json" });
    expect(j.json["spec"]).toEqual({ color: "pink" });
  });
  it("status subresource keeps spec", async () => {
    await call("POST", path, widget("a"));
    const r = await call("PUT", `${path}/a/status`, { ...widget("a"), spec: { color: "x" }, status: { ok: true } });
    expect(r.json["spec"]).toEqual({ color: "red" });
    expect(r.json["status"]).toEqual({ ok: true });
  });
  it("finalizers keep the object until removed (200 with the marked object, as 1.23)", async () => {
    await call("POST", path, { ...widget("a"), metadata: { name: "a", finalizers: ["example.io/x"] } });
    const d = await call("DELETE", `${path}/a`);
    expect(d.status).toBe(200);
    expect(d.json["metadata"]["deletionTimestamp"]).toBeDefined();
    await call("PATCH", `${path}/a`, { metadata: { finalizers: null } }, { "content-type": "application/merge-patch+json" });
    expect((await call("GET", `${path}/a`)).status).toBe(404);
  });
});

describe("list", () => {
  it("selectors, unsupported field labels, pagination", async () => {
    for (const n of ["a", "b", "c"]) await call("POST", path, { ...widget(n), metadata: { name: n, labels: { n } } });
    const l = await call("GET", `${path}?labelSelector=n%3Db`);
    expect(l.json["kind"]).toBe("WidgetList");
    expect(l.json["items"].map((i: APIObject) => i.metadata?.name)).toEqual(["b"]);
    expect((await call("GET", `${path}?fieldSelector=spec.size%3D1`)).json["message"]).toBe("field label not supported: spec.size");
    const p1 = await call("GET", `${path}?limit=2`);
    expect(p1.json["items"]).toHaveLength(2);
    expect(p1.json["metadata"]["remainingItemCount"]).toBe(1);
    const p2 = await call("GET", `${path}?limit=2&continue=${encodeURIComponent(p1.json["metadata"]["continue"] as string)}`);
    expect(p2.json["items"].map((i: APIObject) => i.metadata?.name)).toEqual(["c"]);
    expect((await call("GET", `${path}?continue=!!`)).status).toBe(400);
    expect((await call("GET", `${path}?resourceVersionMatch=Exact`)).status).toBe(422);
  });
  it("timeoutSeconds ends a watch cleanly; Table watch rows", async () => {
    await call("POST", path, widget("a"));
    const r = await call("GET", `${path}?watch=1&timeoutSeconds=1`, undefined, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(r.status).toBe(200);
    const ev = JSON.parse(r.text.trim().split("\n")[0]!) as { type: string; object: Json };
    expect(ev.type).toBe("ADDED");
    expect(ev.object["kind"]).toBe("Table");
    expect(ev.object["rows"][0].cells).toEqual(["a"]);
  });
  it("Table and 406", async () => {
    await call("POST", path, widget("a"));
    const t = await call("GET", path, undefined, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(t.headers.get("content-type")).toBe("application/json;as=Table;v=v1;g=meta.k8s.io");
    expect(t.json["rows"][0].cells).toEqual(["a"]);
    expect((await call("GET", path, undefined, { accept: "application/vnd.kubernetes.protobuf" })).status).toBe(406);
  });
});

describe("watch", () => {
  it("streams ADDED for current state then live events", async () => {
    await call("POST", path, widget("a"));
    const res = await fetch(`${base}${path}?watch=true&timeoutSeconds=5`, { headers: { authorization: "Bearer good" } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const lines: string[] = [];
    let buf = "";
    const readLine = async () => {
      while (!buf.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("ended");
        buf += new TextDecoder().decode(value);
      }
      const i = buf.indexOf("\n");
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
      return JSON.parse(lines.at(-1)!) as { type: string; object: APIObject };
    };
    expect((await readLine()).type).toBe("ADDED");
    await call("POST", path, widget("b"));
    const ev = await readLine();
    expect(ev).toMatchObject({ type: "ADDED", object: { metadata: { name: "b" } } });
    await reader.cancel();
  });
  it("too old resourceVersion: 200 then one ERROR event with a 410 Status", async () => {
    await server.close();
    const storage = new MemoryStorage();
    server = createAPIServer({ strategies: [widgets], storage, authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    for (const n of ["a", "b", "c"]) await call("POST", path, widget(n));
    await storage.compact(await storage.currentRevision());
    const r = await call("GET", `${path}?watch=true&resourceVersion=1`);
    expect(r.status).toBe(200);
    const ev = JSON.parse(r.text.trim()) as { type: string; object: { code: number; reason: string } };
    expect(ev.type).toBe("ERROR");
    expect(ev.object).toMatchObject({ code: 410, reason: "Expired" });
    expect((ev.object as unknown as { message: string }).message).toMatch(/^too old resource version: 1 \(\d+\)$/);
  });
});

describe("more behaviours", () => {
  it("fieldValidation: Strict rejects unknown and duplicate fields, Warn warns", async () => {
    await server.close();
    server = createAPIServer({
      strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true,
      decode: (_r, raw) => {
        const spec = { ...(raw["spec"] as Record<string, unknown>) };
        const unknown = Object.keys(spec).filter((k) => k !== "color" && k !== "size").map((k) => `spec.${k}`);
        for (const k of unknown) delete spec[k.slice(5)];
        return { ok: true, value: { ...raw, spec }, unknownFields: unknown };
      },
    });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    const body = '{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"a","name":"a"},"spec":{"foo":1}}';
    const strict = await call("POST", `${path}?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(strict.json["message"]).toBe('strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"');
    const warn = await call("POST", `${path}?fieldValidation=Warn`, body);
    expect(warn.status).toBe(201);
    expect(warn.headers.get("warning")).toBe('299 - "unknown field \\"spec.foo\\"", 299 - "duplicate field \\"metadata.name\\""');
    expect(warn.json["spec"]).toEqual({});
    expect((await call("POST", `${path}?fieldValidation=Bogus`, body)).status).toBe(400);
  });
  it("strategic merge patch, YAML bodies and YAML responses", async () => {
    const y = "apiVersion: example.io/v1\nkind: Widget\nmetadata:\n  name: y\nspec:\n  color: red\n";
    expect((await call("POST", path, y, { "content-type": "application/yaml" })).status).toBe(201);
    const s = await call("PATCH", `${path}/y`, { spec: { color: "teal" } }, { "content-type": "application/strategic-merge-patch+json" });
    expect(s.json["spec"]).toEqual({ color: "teal" });
    const g = await call("GET", `${path}/y`, undefined, { accept: "application/yaml" });
    expect(g.headers.get("content-type")).toBe("application/yaml");
    expect(g.text).toContain("color: teal");
    // Server-side apply without fieldManager: 422 PatchOptions invalid, as 1.23.
    const a = await call("PATCH", `${path}/y`, "{}", { "content-type": "application/apply-patch+yaml" });
    expect(a.status).toBe(422);
    expect(a.json["message"]).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  });
  it("a non-Status error is a 500 Status without a stack", async () => {
    await server.close();
    server = createAPIServer({
      strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true,
      decode: () => { throw new TypeError("boom"); },
    });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    const r = await call("POST", path, widget("a"));
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ kind: "Status", reason: "InternalError", code: 500 });
    expect(r.text).not.toContain("at ");
  });
  it("403 from the authorizer", async () => {
    await server.close();
    server = createAPIServer({ strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: () => ({ allowed: false, reason: "" }), insecureHTTP: true });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    const r = await call("GET", path);
    expect(r.status).toBe(403);
    expect(r.json["reason"]).toBe("Forbidden");
  });
  it("413 for bodies over the limit", async () => {
    await server.close();
    server = createAPIServer({ strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true, maxRequestBodyBytes: 100 });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    const r = await call("POST", path, { ...widget("a"), spec: { pad: "x".repeat(200) } });
    expect(r.status).toBe(413);
    expect(r.json["reason"]).toBe("RequestEntityTooLarge");
  });
  it("NamespaceLifecycle: 404 for a missing namespace, 403 for a terminating one", async () => {
    await server.close();
    const storage = new MemoryStorage();
    server = createAPIServer({ strategies: [widgets], storage, authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true, admission: [namespaceLifecycle(storage)] });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    const r = await call("POST", path, widget("a"));
    expect(r.status).toBe(404);
    expect(r.json["message"]).toBe('namespaces "default" not found');
    await storage.create("/registry/core/namespaces/default", { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" }, status: { phase: "Terminating" } });
    expect((await call("POST", path, widget("a"))).status).toBe(403);
  });
  it("deletecollection returns the deleted objects", async () => {
    for (const n of ["a", "b"]) await call("POST", path, widget(n));
    const d = await call("DELETE", path);
    expect(d.status).toBe(200);
    expect(d.json["items"]).toHaveLength(2);
    expect((await call("GET", path)).json["items"]).toHaveLength(0);
  });
  it("delete preconditions and Orphan propagation", async () => {
    await call("POST", path, widget("a"));
    const bad = await call("DELETE", `${path}/a`, { preconditions: { uid: "nope" } });
    expect(bad.status).toBe(409);
    const o = await call("DELETE", `${path}/a?propagationPolicy=Orphan`);
    expect(o.status).toBe(200);
    expect(o.json["metadata"]["finalizers"]).toEqual(["orphan"]);
  });
});

describe("errors before routing are Status objects", () => {
  it("a malformed percent-escape in the path answers 400 with Go's words; a well-formed non-UTF-8 escape 404", async () => {
    const { request } = await import("node:http");
    const port = Number(new URL(base).port);
    const raw = (p: string) =>
      new Promise<{ status: number; body: Json }>((resolve, reject) => {
        const r = request({ host: "127.0.0.1", port, path: p, headers: { authorization: "Bearer good" } }, (res) => {
          let d = "";
          res.on("data", (c: Buffer) => (d += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(d) as Json }));
        });
        r.on("error", reject);
        r.end();
      });
    const bad = await raw(`${path}/%zz`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "BadRequest", code: 400, details: {}, message: `parse "${path}/%zz": invalid URL escape "%zz"` });
    const truncated = await raw("/apis/%E0%A4%A");
    expect(truncated.body).toMatchObject({ kind: "Status", code: 400, message: 'parse "/apis/%E0%A4%A": invalid URL escape "%A"' });
    const nonUTF8 = await raw(`${path}/%FF`);
    expect(nonUTF8.body).toMatchObject({ kind: "Status", code: 404, reason: "NotFound" });
  });
});

describe("tracer", () => {
  it("records one span per mutating request with the object and the code; reads are not traced", async () => {
    await server.close();
    const spans: Array<{ span: string; start: number; end: number; fields?: TraceFields }> = [];
    const tracer: Tracer = { enabled: true, now: () => performance.now(), flush: () => undefined, record: (span, start, end, fields) => void spans.push({ span, start, end, ...(fields ? { fields } : {}) }) };
    server = createAPIServer({ strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true, tracer });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    const created = await call("POST", path, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "w" }, spec: {} });
    expect(created.status).toBe(201);
    await call("GET", `${path}/w`);
    await call("POST", path, { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "w" }, spec: {} });
    await call("PUT", `${path}/w/status`, { ...created.json, status: { ok: true } });
    expect(spans.map((s) => [s.span, s.fields?.pod, s.fields?.attrs?.["code"]])).toEqual([
      ["create widgets", "default/w", 201],
      ["create widgets", undefined, 409],
      ["update widgets/status", "default/w", 200],
    ]);
    expect(spans[0]?.fields?.uid).toBe(created.json["metadata"]["uid"]);
    for (const s of spans) expect(s.end).toBeGreaterThanOrEqual(s.start);
  });

  it("records mutating requests on an app's extra resource routes (e.g. serviceaccounts/token) with their code; reads and streaming subresources are not traced", async () => {
    await server.close();
    const spans: Array<{ span: string; code: unknown }> = [];
    const tracer: Tracer = { enabled: true, now: () => performance.now(), flush: () => undefined, record: (span, _start, _end, fields) => void spans.push({ span, code: fields?.attrs?.["code"] }) };
    const token = "/api/v1/namespaces/default/serviceaccounts/:name/token";
    server = createAPIServer({
      strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, insecureHTTP: true, tracer,
      extraRoutes: [
        { method: "POST", url: token, handler: async (req, reply) => reply.code((req.params as { name: string }).name === "bad" ? 404 : 201).send("{}") },
        { method: "GET", url: "/api/v1/namespaces/default/pods/:name/log", handler: async (_req, reply) => reply.send("log") },
        { method: "POST", url: "/api/v1/namespaces/default/pods/:name/exec", handler: async (_req, reply) => reply.code(400).send("{}") },
        { method: "GET", url: "/version", handler: () => ({ major: "1" }) },
      ],
    });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
    await call("POST", "/api/v1/namespaces/default/serviceaccounts/default/token", {});
    await call("POST", "/api/v1/namespaces/default/serviceaccounts/bad/token", {});
    await call("GET", "/api/v1/namespaces/default/pods/p/log");
    await call("POST", "/api/v1/namespaces/default/pods/p/exec", {});
    await call("GET", "/version");
    expect(spans).toEqual([
      { span: "create serviceaccounts/token", code: 201 },
      { span: "create serviceaccounts/token", code: 404 },
    ]);
  });
});

describe("HTTPS serves HTTP/2 (ALPN h2) beside HTTP/1.1, as 1.23's Go server", () => {
  let dir = "";
  let tls = { cert: "", key: "" };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "skiff-h2-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
    tls = { cert: readFileSync(join(dir, "c.pem"), "utf8"), key: readFileSync(join(dir, "k.pem"), "utf8") };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function startTLS(limits: RequestLimits = {}): Promise<string> {
    await server.close();
    server = createAPIServer({ strategies: [widgets], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, tls, limits });
    return server.listen({ host: "127.0.0.1", port: 0 });
  }

  /** One HTTP/2 request: status, headers and body text. */
  function h2call(session: ClientHttp2Session, method: string, p: string, body?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
    return new Promise((resolve, reject) => {
      const s = session.request({ ":method": method, ":path": p, authorization: "Bearer good", ...(body !== undefined ? { "content-type": "application/json" } : {}) }, { endStream: body === undefined });
      let text = "";
      let headers: Record<string, unknown> = {};
      s.on("response", (h) => (headers = h));
      s.on("data", (d: Buffer) => (text += d.toString()));
      s.on("end", () => resolve({ status: Number(headers[":status"]), headers, text }));
      s.on("error", reject);
      if (body !== undefined) s.end(body);
    });
  }

  it("answers requests and bad input with Status over HTTP/2, streams a watch, and serves HTTP/1.1 on the same port", async () => {
    const url = await startTLS();
    const session = http2Connect(url, { rejectUnauthorized: false });
    try {
      const watch = session.request({ ":method": "GET", ":path": `${path}?watch=true`, authorization: "Bearer good" });
      let events = "";
      watch.on("data", (d: Buffer) => (events += d.toString()));
      const head = await new Promise<Record<string, unknown>>((r) => watch.once("response", r));
      expect(head[":status"]).toBe(200);
      // No connection-specific header (`transfer-encoding`) on an HTTP/2 response.
      expect(head["transfer-encoding"]).toBeUndefined();
      const created = await h2call(session, "POST", path, JSON.stringify({ apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "w" } }));
      expect(created.status).toBe(201);
      for (let i = 0; i < 100 && !events.includes("\n"); i++) await new Promise((r) => setTimeout(r, 20));
      expect(JSON.parse(events.split("\n")[0] ?? "")).toMatchObject({ type: "ADDED", object: { metadata: { name: "w" } } });
      watch.close();
      const bad = await h2call(session, "POST", path, "{not json");
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.text)).toMatchObject({ kind: "Status", reason: "BadRequest" });
      const invalidSize = await h2call(session, "POST", path, JSON.stringify({ apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "v" }, spec: { size: -1 } }));
      expect(invalidSize.status).toBe(422);
      expect(JSON.parse(invalidSize.text)).toMatchObject({ reason: "Invalid", details: { causes: [{ field: "spec.size" }] } });
      const anonymous = await new Promise<number>((resolve, reject) => {
        const s = session.request({ ":path": path });
        s.on("response", (h) => resolve(Number(h[":status"])));
        s.on("error", reject);
        s.resume();
      });
      expect(anonymous).toBe(401);
    } finally {
      session.close();
    }
    const overHttp1 = await new Promise<{ status: number; version: string }>((resolve, reject) => {
      const req = httpsRequest(`${url}${path}/w`, { headers: { authorization: "Bearer good" }, rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, version: res.httpVersion });
      });
      req.on("error", reject);
      req.end();
    });
    expect(overHttp1).toEqual({ status: 200, version: "1.1" });
  });

  it("gives a priority level's seat back when its HTTP/2 stream ends: 60 requests through 2 seats all answer", async () => {
    const url = await startTLS({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 });
    const session = http2Connect(url, { rejectUnauthorized: false });
    try {
      const codes = await Promise.all(Array.from({ length: 60 }, (_, i) => h2call(session, i % 2 ? "GET" : "POST", path, i % 2 ? undefined : JSON.stringify({ apiVersion: "example.io/v1", kind: "Widget", metadata: { name: `w${String(i)}` } })).then((r) => r.status)));
      expect(codes.filter((c) => c === 200)).toHaveLength(30);
      expect(codes.filter((c) => c === 201)).toHaveLength(30);
    } finally {
      session.close();
    }
  });

  it("limits streams per connection to Go's 250 and sends GOAWAY to a connection idle for idleTimeoutMs", async () => {
    const url = await startTLS({ idleTimeoutMs: 1000 });
    const session = http2Connect(url, { rejectUnauthorized: false });
    try {
      const settings = await new Promise<{ maxConcurrentStreams?: number }>((r) => session.once("remoteSettings", r));
      expect(settings.maxConcurrentStreams).toBe(250);
      expect((await h2call(session, "GET", path)).status).toBe(200);
      const started = Date.now();
      await new Promise((r) => session.once("goaway", r));
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      session.destroy();
    }
  });
});
