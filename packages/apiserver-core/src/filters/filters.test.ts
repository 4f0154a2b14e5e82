import { request } from "node:http";
import type { ClientRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { ResourceInfo } from "@skiff/api-types";
import { MemoryStorage } from "@skiff/storage";
import type { TraceFields, Tracer } from "@skiff/apimachinery";
import { abacAuthorizer, parseABACPolicies } from "../auth/abac.js";
import { bearerTokenAuthenticator, createAuthenticationChain } from "../auth/authenticators.js";
import { privilegedGroupsAuthorizer, unionAuthorizers } from "../auth/authorizers.js";
import { reviewRoutes } from "../auth/reviews.js";
import type { APIObject, ResourceStrategy, UserInfo } from "../registry/strategy.js";
import { parseRequestInfo } from "../request/request-info.js";
import { createAPIServer } from "../server/server.js";
import type { APIServer } from "../server/server.js";
import type { RequestLimits } from "./filters.js";
import { createServer } from "node:http";
import { InFlightLimiter, applyServerTimeouts, isLongRunningRequest, resolveWatchTimeoutSeconds } from "./filters.js";

describe("InFlightLimiter", () => {
  it("limits each bucket separately; 0 is unlimited; release is idempotent", () => {
    const l = new InFlightLimiter({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 0 });
    const r1 = l.tryAcquire("get");
    expect(r1).toBeDefined();
    expect(l.tryAcquire("list")).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(l.tryAcquire("create")).toBeDefined();
    r1!();
    r1!();
    expect(l.inFlight()).toEqual({ readonly: 0, mutating: 5 });
    expect(l.tryAcquire("watch")).toBeDefined();
  });
});

describe("applyServerTimeouts", () => {
  it("sets header, request and keep-alive timeouts; headers never exceed the request timeout", () => {
    const srv = createServer();
    applyServerTimeouts(srv);
    // Node ≥ 20 keeps an idle connection 1 s (its keep-alive buffer) past keepAliveTimeout: the
    // effective idle timeout is 90 s.
    const buffer = (srv as { keepAliveTimeoutBuffer?: number }).keepAliveTimeoutBuffer ?? 1000;
    expect([srv.headersTimeout, srv.requestTimeout, srv.keepAliveTimeout + buffer]).toEqual([32_000, 90_000, 90_000]);
    applyServerTimeouts(srv, 1000);
    expect([srv.headersTimeout, srv.requestTimeout]).toEqual([31_000, 31_000]);
    applyServerTimeouts(srv, { requestTimeoutMs: 1000, readHeaderTimeoutMs: 2000, idleTimeoutMs: 3000, requestReadTimeoutMs: 4000 });
    expect([srv.headersTimeout, srv.requestTimeout, srv.keepAliveTimeout + buffer]).toEqual([2000, 4000, 3000]);
  });
});

describe("resolveWatchTimeoutSeconds", () => {
  it("uses timeoutSeconds when positive, else min × [1, 2)", () => {
    expect(resolveWatchTimeoutSeconds("5", 1800)).toBe(5);
    expect(resolveWatchTimeoutSeconds(undefined, 1800, () => 0)).toBe(1800);
    expect(resolveWatchTimeoutSeconds("0", 1800, () => 0.5)).toBe(2700);
    expect(resolveWatchTimeoutSeconds("junk", 100, () => 0.999)).toBeCloseTo(199.9);
    for (let i = 0; i < 100; i++) {
      const t = resolveWatchTimeoutSeconds(undefined, 1800);
      expect(t >= 1800 && t < 3600).toBe(true);
    }
  });
  it("watches are long-running, lists are not", () => {
    expect(isLongRunningRequest(parseRequestInfo("GET", "/api/v1/pods", { watch: "true" }))).toBe(true);
    expect(isLongRunningRequest(parseRequestInfo("GET", "/api/v1/watch/pods", {}))).toBe(true);
    expect(isLongRunningRequest(parseRequestInfo("GET", "/api/v1/pods", {}))).toBe(false);
    expect(isLongRunningRequest(parseRequestInfo("GET", "/version", {}))).toBe(false);
  });
});

const resource: ResourceInfo = {
  group: "example.io", version: "v1", kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget",
  namespaced: true, shortNames: [], categories: [], subresources: [], verbs: ["create", "delete", "get", "list", "watch"],
};
const widgets: ResourceStrategy = {
  resource,
  applyDefaults() {},
  prepareForCreate() {},
  validate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForUpdate() {},
  validateUpdate: () => [],
  getAttrs: (obj) => ({ labels: obj.metadata?.labels ?? {}, fields: {} }),
  fieldSelectorKeys: [],
  defaultGarbageCollectionPolicy: () => "Background",
  returnDeletedObject: false,
  table: { columns: [{ name: "Name", type: "string", format: "name", description: "", priority: 0 }], cells: (o: APIObject) => [o.metadata?.name] },
};

const tokens = new Map<string, UserInfo>([
  ["admin", { username: "admin", groups: ["system:masters"] }],
  ["alice", { username: "alice", groups: [] }],
  ["bob", { username: "bob", groups: [] }],
]);
const policy = [
  { user: "alice", namespace: "*", resource: "*", apiGroup: "*" },
  { user: "alice", nonResourcePath: "*" },
  { user: "bob", namespace: "default", resource: "widgets", apiGroup: "example.io", readonly: true },
  { user: "bob", namespace: "*", resource: "selfsubjectreviews", apiGroup: "authentication.k8s.io" },
].map((spec) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec })).join("\n");

let server: APIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(limits?: RequestLimits, tracer?: Tracer): Promise<number> {
  const parsed = parseABACPolicies(policy);
  if (!parsed.ok) throw new Error("policy");
  const authenticator = createAuthenticationChain({ authenticators: [bearerTokenAuthenticator((t) => tokens.get(t))], anonymous: false });
  const authorizer = unionAuthorizers(privilegedGroupsAuthorizer(), abacAuthorizer(parsed.value));
  server = createAPIServer({
    strategies: [widgets], storage: new MemoryStorage(), authenticator, authorizer, insecureHTTP: true,
    ...(limits ? { limits } : {}),
    ...(tracer ? { tracer } : {}),
    extraRoutes: [
      { method: "GET", url: "/version", handler: () => ({ major: "1" }) },
      { method: "GET", url: "/healthz", public: true, handler: (_req, reply) => reply.send("ok") },
      ...reviewRoutes({ authenticator, authorizer }),
    ],
  });
  const addr = await server.listen({ host: "127.0.0.1", port: 0 });
  return Number(new URL(addr).port);
}

interface Res { status: number; headers: Record<string, string | string[] | undefined>; json: Record<string, unknown> }

function call(port: number, method: string, path: string, token: string | undefined, body?: unknown): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => {
        let json: Record<string, unknown> = {};
        try { json = JSON.parse(text) as Record<string, unknown>; } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    req.on("error", reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

// A POST whose body never finishes arriving: it holds a mutating in-flight slot until aborted.
function slowPost(port: number, path: string, token: string): { req: ClientRequest; response: Promise<Res> } {
  let req!: ClientRequest;
  const response = new Promise<Res>((resolve) => {
    req = request({ host: "127.0.0.1", port, method: "POST", path, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": "1000" } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on("error", () => resolve({ status: 0, headers: {}, json: {} }));
    req.write("{");
  });
  return { req, response };
}

async function until(f: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("condition never held");
}

const ns = "/apis/example.io/v1/namespaces/default/widgets";
const widget = (name: string) => ({ apiVersion: "example.io/v1", kind: "Widget", metadata: { name } });

describe("filters on a server", () => {
  it("401 Unauthorized Status on every route without or with bad credentials; health stays public", async () => {
    const port = await start();
    for (const path of [ns, `${ns}/a`, `${ns}?watch=true`, "/version", "/apis/authentication.k8s.io/v1/selfsubjectreviews"]) {
      for (const token of [undefined, "wrong"]) {
        const r = await call(port, path.includes("selfsubject") ? "POST" : "GET", path, token);
        expect(r.status, `${path} ${String(token)}`).toBe(401);
        expect(r.json).toMatchObject({ kind: "Status", status: "Failure", reason: "Unauthorized", message: "Unauthorized", code: 401 });
      }
    }
    expect((await call(port, "GET", "/healthz", undefined)).status).toBe(200);
  });

  it("403 in 1.23's words, for resource and non-resource requests; nothing written", async () => {
    const port = await start();
    const r = await call(port, "POST", ns, "bob", widget("x"));
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      kind: "Status", reason: "Forbidden", code: 403, details: { group: "example.io", kind: "widgets" },
      message: 'widgets.example.io is forbidden: User "bob" cannot create resource "widgets" in API group "example.io" in the namespace "default": No policy matched.',
    });
    expect((await call(port, "GET", "/version", "bob")).json["message"]).toBe('forbidden: User "bob" cannot get path "/version": No policy matched.');
    expect((await call(port, "GET", "/apis/example.io/v1/widgets", "bob")).json["message"]).toContain("at the cluster scope");
    expect((await call(port, "GET", ns, "bob")).json["items"]).toEqual([]);
    expect((await call(port, "GET", "/version", "alice")).status).toBe(200);
  });

  it("without priority and fairness: 429 with Retry-After beyond the mutating limit, system:masters exempt, reads unaffected, then full service", async () => {
    const port = await start({ priorityAndFairness: false, maxMutatingRequestsInFlight: 2, maxRequestsInFlight: 1 });
    const held = [slowPost(port, ns, "alice"), slowPost(port, ns, "alice")];
    await until(async () => (await call(port, "DELETE", `${ns}/nope`, "alice")).status === 429);
    const r = await call(port, "DELETE", `${ns}/nope`, "alice");
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe("1");
    expect(r.json).toMatchObject({ kind: "Status", reason: "TooManyRequests", code: 429, message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } });
    expect((await call(port, "DELETE", `${ns}/nope`, "admin")).status).toBe(404);
    expect((await call(port, "GET", ns, "alice")).status).toBe(200);
    for (const h of held) h.req.destroy();
    await until(async () => (await call(port, "DELETE", `${ns}/nope`, "alice")).status === 404);
    expect((await call(port, "POST", ns, "alice", widget("after"))).status).toBe(201);
  }, 60_000); // real sockets held open; generous for a loaded 2-core CI machine

  it("priority and fairness: a request over its level's concurrency waits for a seat, 429 once it waited a quarter of the request timeout; system:masters exempt", async () => {
    // A total of 2: every limited level gets ceil(2 × shares / 245) = 1 seat. alice and bob are
    // both in global-default.
    const spans: Array<{ span: string; start: number; end: number; attrs: TraceFields["attrs"] }> = [];
    const tracer: Tracer = { enabled: true, now: () => performance.now(), flush: () => undefined, record: (span, start, end, fields) => void spans.push({ span, start, end, attrs: fields?.attrs }) };
    const port = await start({ maxMutatingRequestsInFlight: 1, maxRequestsInFlight: 1, requestTimeoutMs: 2000 }, tracer);
    const held = slowPost(port, ns, "alice");
    await until(async () => {
      const t0 = performance.now();
      const r = await call(port, "GET", ns, "bob");
      return r.status === 429 && performance.now() - t0 >= 400;
    });
    const refused = await call(port, "GET", ns, "alice");
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.json).toMatchObject({ kind: "Status", reason: "TooManyRequests", code: 429, message: "Too many requests, please try again later." });
    expect((await call(port, "DELETE", `${ns}/nope`, "admin")).status).toBe(404);
    // Queued, then served when the seat is given back.
    const queued = call(port, "DELETE", `${ns}/nope`, "bob");
    await new Promise((r) => setTimeout(r, 100));
    held.req.destroy();
    expect((await queued).status).toBe(403);
    expect((await call(port, "POST", ns, "alice", widget("after"))).status).toBe(201);
    // The tracer saw the waits: a 429 after waiting (time-out), the queued DELETE dispatched.
    const timedOut = spans.find((x) => x.span === "apf-reject" && x.attrs?.["request"] === "list widgets");
    expect(timedOut?.attrs).toEqual({ request: "list widgets", priorityLevel: "global-default", user: "bob", outcome: "time-out" });
    expect((timedOut?.end ?? 0) - (timedOut?.start ?? 0)).toBeGreaterThanOrEqual(400);
    expect(spans.filter((x) => x.span === "apf-wait").map((x) => x.attrs)).toContainEqual({ request: "delete widgets", priorityLevel: "global-default", user: "bob", outcome: "dispatched" });
    expect(spans.some((x) => x.attrs?.["user"] === "admin")).toBe(false);
  }, 60_000);

  it("504 Timeout Status when a request outlives the request timeout", async () => {
    const port = await start({ requestTimeoutMs: 200 });
    const r = await slowPost(port, ns, "alice").response;
    expect(r.status).toBe(504);
    expect(r.json).toMatchObject({ kind: "Status", reason: "Timeout", code: 504, message: "Timeout: request did not complete within requested timeout - context deadline exceeded" });
  });
});

describe("review APIs", () => {
  it("SelfSubjectReview in v1, v1beta1 and v1alpha1 answer the caller", async () => {
    const port = await start();
    for (const v of ["v1", "v1beta1", "v1alpha1"]) {
      const r = await call(port, "POST", `/apis/authentication.k8s.io/${v}/selfsubjectreviews`, "bob", { apiVersion: `authentication.k8s.io/${v}`, kind: "SelfSubjectReview", metadata: {} });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ apiVersion: `authentication.k8s.io/${v}`, kind: "SelfSubjectReview", status: { userInfo: { username: "bob", groups: ["system:authenticated"] } } });
    }
    expect((await call(port, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "bob", { apiVersion: "v1", kind: "Pod" })).status).toBe(400);
  });

  it("TokenReview authenticates a token through the chain", async () => {
    const port = await start();
    const tr = (token: string) => ({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } });
    const path = "/apis/authentication.k8s.io/v1/tokenreviews";
    expect((await call(port, "POST", path, "admin", tr("alice"))).json["status"]).toEqual({ authenticated: true, user: { username: "alice", groups: ["system:authenticated"] } });
    expect((await call(port, "POST", path, "admin", tr("nope"))).json["status"]).toEqual({ authenticated: false, user: {}, error: "invalid bearer token" });
    expect((await call(port, "POST", path, "admin", tr(""))).json).toMatchObject({ code: 400, message: "token is required for TokenReview in authentication" });
    expect((await call(port, "POST", path, "bob", tr("alice"))).status).toBe(403);
  });

  it("SubjectAccessReview and SelfSubjectAccessReview ask the authorizer", async () => {
    const port = await start();
    const sar = (spec: Record<string, unknown>) => ({ apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec });
    const path = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    const ra = { namespace: "default", verb: "list", group: "example.io", resource: "widgets" };
    expect((await call(port, "POST", path, "admin", sar({ user: "bob", resourceAttributes: ra }))).json["status"]).toEqual({ allowed: true });
    expect((await call(port, "POST", path, "admin", sar({ user: "bob", resourceAttributes: { ...ra, verb: "create" } }))).json["status"]).toEqual({ allowed: false, reason: "No policy matched." });
    expect((await call(port, "POST", path, "admin", sar({ user: "x", groups: ["system:masters"], nonResourceAttributes: { path: "/x", verb: "get" } }))).json["status"]).toEqual({ allowed: true });
    const bad = await call(port, "POST", path, "admin", sar({ resourceAttributes: ra, nonResourceAttributes: { path: "/" } }));
    expect(bad.status).toBe(422);
    expect(bad.json["message"]).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.nonResourceAttributes: Invalid value: {"path":"/"}: cannot be specified in combination with resourceAttributes, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
    const ssar = await call(port, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "alice", { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes: ra } });
    expect(ssar.status).toBe(201);
    expect(ssar.json["status"]).toEqual({ allowed: true });
  });
});
