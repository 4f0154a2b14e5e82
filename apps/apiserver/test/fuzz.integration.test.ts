// Property-based fuzzing of the write endpoints (issue 4 acceptance) against the real
// skiff-apiserver: 10,000 mutated bodies, patches of all four patch types and query strings on
// create, replace, patch and delete of Job, CSIDriver, CSINode and PodTemplate.
// Properties: never a 5xx (nor a dropped connection), the server stays up, and every batch whose
// requests were all rejected leaves the store byte-for-byte unchanged (the four lists, contents
// and resourceVersion, dumped before and after the batch).
//
// Half of each batch goes over HTTP/1.1, half as streams of one HTTP/2 connection.
//
// Run size: NUM_RUNS batches × BATCH requests (sent concurrently) = 10,000 requests, fixed seed.
import fc from "fast-check";
import { connect as http2Connect } from "node:http2";
import type { ClientHttp2Session } from "node:http2";
import { Agent, request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

const SEED = 20_231_123;
const BATCH = 10;
const NUM_RUNS = 1000;

const podSpec = { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] };
interface Kind { readonly kind: string; readonly collection: string; readonly seed: string; body(name: string): Record<string, unknown> }
const kinds: readonly Kind[] = [
  { kind: "Job", collection: "/apis/batch/v1/namespaces/default/jobs", seed: "seed", body: (n) => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: n, labels: { a: "b" } }, spec: { parallelism: 2, completions: 4, template: { spec: podSpec } } }) },
  { kind: "CSIDriver", collection: "/apis/storage.example.io/v1/csidrivers", seed: "seed.csi.example.io", body: (n) => ({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: n }, spec: { attachRequired: true, volumeLifecycleModes: ["Persistent"], tokenRequests: [{ audience: "a" }] } }) },
  { kind: "CSINode", collection: "/apis/storage.example.io/v1/csinodes", seed: "seed-node", body: (n) => ({ apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name: n }, spec: { drivers: [{ name: "d.csi.example.io", nodeID: "x", topologyKeys: ["k"], allocatable: { count: 1 } }] } }) },
  { kind: "PriorityClass", collection: "/apis/scheduling.k8s.io/v1/priorityclasses", seed: "seed", body: (n) => ({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: n }, value: 10, description: "d", preemptionPolicy: "Never" }) },
  { kind: "PodTemplate", collection: "/api/v1/namespaces/default/podtemplates", seed: "seed", body: (n) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name: n, finalizers: [] }, template: { metadata: { labels: { app: "x" } }, spec: podSpec } }) },
];

// ---- arbitraries ----
const vocabulary = [
  "apiVersion", "kind", "metadata", "name", "namespace", "labels", "annotations", "uid", "resourceVersion", "generateName",
  "finalizers", "ownerReferences", "managedFields", "generation", "deletionTimestamp", "spec", "template", "containers", "0", "1", "-",
  "image", "parallelism", "completions", "completionMode", "selector", "matchLabels", "matchExpressions", "manualSelector", "suspend",
  "drivers", "nodeID", "topologyKeys", "allocatable", "count", "attachRequired", "podInfoOnMount", "tokenRequests", "audience",
  "expirationSeconds", "volumeLifecycleModes", "fsGroupPolicy", "status", "conditions", "restartPolicy", "ports", "env",
  "lifecycle", "postStart", "preStop", "exec", "command", "httpGet", "tcpSocket", "port", "path", "httpHeaders", "readinessGates",
  "value", "globalDefault", "description", "preemptionPolicy", "priorityClassName", "priority", "runtimeClassName", "overhead",
  "$patch", "$retainKeys", "$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers", "__proto__", "constructor", "",
] as const;
const special = fc.constantFrom<unknown>(
  -1, 0, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, 0.5, "", "\u0000", "x".repeat(300), "Indexed", "Always", "a/b/c", "-bad-",
  [], {}, null, true, false, [null], [{}], { $patch: "delete" }, { $patch: "replace" }, "😀",
);
const value: fc.Arbitrary<unknown> = fc.oneof({ weight: 3, arbitrary: special }, { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });
const path = fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 4 });
const mutation = fc.record({ path, value, remove: fc.boolean() });

function applyMutation(obj: Record<string, unknown>, m: { path: string[]; value: unknown; remove: boolean }): void {
  let cur: Record<string, unknown> = obj;
  for (const key of m.path.slice(0, -1)) {
    // Own properties only: `cur["__proto__"]` would walk into Object.prototype and pollute this
    // process (the key must become an own member, as JSON.parse makes it).
    const own = (o: Record<string, unknown>) => Object.getOwnPropertyDescriptor(o, key)?.value as unknown;
    const next = own(cur);
    if (typeof next !== "object" || next === null) Object.defineProperty(cur, key, { value: {}, enumerable: true, writable: true, configurable: true });
    cur = own(cur) as Record<string, unknown>;
  }
  const last = m.path[m.path.length - 1] ?? "";
  if (m.remove) delete cur[last];
  else Object.defineProperty(cur, last, { value: structuredClone(m.value), enumerable: true, writable: true, configurable: true });
}

const mutated = (base: Record<string, unknown>) =>
  fc.array(mutation, { minLength: 0, maxLength: 4 }).map((ms) => {
    const o = structuredClone(base);
    for (const m of ms) applyMutation(o, m);
    return o;
  });

const pointer = fc.array(fc.constantFrom(...vocabulary), { maxLength: 4 }).map((p) => (p.length === 0 ? "" : `/${p.map((s) => s.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`));
const jsonPatch = fc.oneof(
  fc.array(fc.record({ op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"), path: pointer, value, from: pointer }, { requiredKeys: ["op"] }), { maxLength: 4 }).map((p) => JSON.stringify(p)),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
);

const queryKeys = ["dryRun", "fieldValidation", "fieldManager", "force", "pretty", "gracePeriodSeconds", "propagationPolicy", "resourceVersion", "orphanDependents"] as const;
const queryValue = fc.oneof(fc.constantFrom("All", "Strict", "Warn", "Ignore", "true", "false", "1", "-1", "Foreground", "Orphan", "Background", "", "kubectl", "x".repeat(200)), fc.string({ maxLength: 10 }));
const query = fc.array(fc.tuple(fc.constantFrom(...queryKeys), queryValue), { maxLength: 3 }).map((kv) => (kv.length === 0 ? "" : `?${kv.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`));

interface Req { method: string; path: string; contentType: string; body?: string }
const createNames = fc.constantFrom("fuzz-a", "fuzz-b", "fuzz-c.csi.example.io", "Fuzz_Bad", "");
const textBody = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("{", "[", "null", "1", "\"x\"", "{\"apiVersion\":", "---\n- a\n", "a: [", "\u0000\u0001"));

function requestFor(k: Kind): fc.Arbitrary<Req> {
  const item = `${k.collection}/${k.seed}`;
  const fullBody = fc.oneof(
    { weight: 5, arbitrary: createNames.chain((n) => mutated(k.body(n))).map((o) => JSON.stringify(o)) },
    { weight: 1, arbitrary: mutated(k.body(k.seed)).map((o) => JSON.stringify(o).slice(0, Math.max(1, JSON.stringify(o).length - 7))) },
    { weight: 1, arbitrary: textBody },
  );
  const bodyType = fc.constantFrom("application/json", "application/json", "application/json", "application/yaml", "text/plain", "application/vnd.kubernetes.protobuf");
  const create = fc.record({ q: query, body: fullBody, ct: bodyType }).map(({ q, body, ct }) => ({ method: "POST", path: `${k.collection}${q}`, contentType: ct, body }));
  const replace = fc.record({ q: query, body: fullBody, ct: bodyType }).map(({ q, body, ct }) => ({ method: "PUT", path: `${item}${q}`, contentType: ct, body }));
  const merge = fc.record({ q: query, body: fc.oneof(mutated({}).map((o) => JSON.stringify(o)), textBody), ct: fc.constantFrom("application/merge-patch+json", "application/strategic-merge-patch+json") })
    .map(({ q, body, ct }) => ({ method: "PATCH", path: `${item}${q}`, contentType: ct, body }));
  const jpatch = fc.record({ q: query, body: jsonPatch }).map(({ q, body }) => ({ method: "PATCH", path: `${item}${q}`, contentType: "application/json-patch+json", body }));
  const apply = fc.record({ q: query, body: fc.oneof(mutated(k.body(k.seed)).map((o) => JSON.stringify(o)), textBody), manager: fc.boolean() })
    .map(({ q, body, manager }) => ({ method: "PATCH", path: `${item}${q}${manager ? `${q ? "&" : "?"}fieldManager=fuzz` : ""}`, contentType: "application/apply-patch+yaml", body }));
  const del = fc.record({ q: query, body: fc.oneof(mutated({ kind: "DeleteOptions", apiVersion: "v1" }).map((o) => JSON.stringify(o)), textBody) })
    .map(({ q, body }) => ({ method: "DELETE", path: `${k.collection}/fuzz-missing${q}`, contentType: "application/json", body }));
  return fc.oneof(create, replace, merge, jpatch, apply, del);
}
const anyRequest = fc.oneof(...kinds.map(requestFor));

describe("fuzzing the write endpoints", () => {
  let s: RunningServer;
  let agent: Agent;
  beforeAll(async () => {
    s = await startServer();
    agent = new Agent({ keepAlive: true, maxSockets: BATCH });
    for (const k of kinds) {
      const r = await call(s, "POST", k.collection, k.body(k.seed));
      if (r.status !== 201) throw new Error(`seed ${k.kind}: ${r.body}`);
    }
  }, 60_000);
  afterAll(async () => {
    agent.destroy();
    session?.destroy();
    await s.stop();
  });

  let session: ClientHttp2Session | undefined;
  const send2 = (r: Req) =>
    new Promise<{ status: number; body: string }>((resolve) => {
      if (session === undefined || session.closed || session.destroyed) {
        session = http2Connect(`https://127.0.0.1:${String(s.port)}`, { ca: s.ca, servername: "localhost" });
        session.on("error", () => undefined); // its streams report it
      }
      const headers: Record<string, string> = { ":method": r.method, ":path": r.path, authorization: `Bearer ${adminToken}`, "content-type": r.contentType };
      const stream = session.request(headers, { endStream: r.body === undefined });
      let status = 0;
      let text = "";
      stream.on("response", (h) => (status = Number(h[":status"])));
      stream.on("data", (d: Buffer) => (text += d.toString()));
      stream.on("end", () => resolve({ status, body: text }));
      stream.on("error", (e) => resolve({ status: 0, body: String(e) }));
      if (r.body !== undefined) stream.end(r.body);
    });

  const send = (r: Req) =>
    new Promise<{ status: number; body: string }>((resolve) => {
      const headers: Record<string, string> = { authorization: `Bearer ${adminToken}`, "content-type": r.contentType };
      if (r.body !== undefined) headers["content-length"] = String(Buffer.byteLength(r.body));
      const req = request({ host: "127.0.0.1", servername: "localhost", port: s.port, path: r.path, method: r.method, ca: s.ca, agent, headers }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", (e) => resolve({ status: 0, body: String(e) }));
      });
      req.on("error", (e) => resolve({ status: 0, body: String(e) }));
      req.end(r.body);
    });

  const dump = async () => {
    const lists = await Promise.all(kinds.map((k) => call(s, "GET", k.collection)));
    return lists.map((l) => l.body).join("\n");
  };

  it(`${String(NUM_RUNS * BATCH)} requests: never a 5xx, and all-rejected batches change nothing`, async () => {
    let requests = 0;
    let rejectedBatches = 0;
    const statuses = new Map<number, number>();
    const serverErrors = new Map<string, string>();
    const storeChanges: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(anyRequest, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const before = await dump();
        const results = await Promise.all(batch.map((r, i) => (i % 2 === 0 ? send(r) : send2(r))));
        requests += batch.length;
        results.forEach((r, i) => {
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status === 0 || r.status >= 500) {
            const req = batch[i];
            // One example per (status, method, content type, kind) is enough to act on.
            const key = `${String(r.status)} ${req?.method ?? ""} ${req?.contentType ?? ""} ${req?.path.split("?")[0]?.split("/").slice(-2, -1).join("") ?? ""}`;
            if (!serverErrors.has(key)) serverErrors.set(key, `${JSON.stringify(req)} → ${r.body.slice(0, 300)}`);
          }
        });
        if (results.every((r) => r.status >= 400)) {
          rejectedBatches++;
          const after = await dump();
          if (after !== before && storeChanges.length < 5) storeChanges.push(JSON.stringify(batch));
        }
      }),
      { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true },
    );
    expect(requests).toBe(NUM_RUNS * BATCH);
    expect(Object.fromEntries(serverErrors), "5xx or dropped connections").toEqual({});
    expect(storeChanges, "rejected batches that changed the store").toEqual([]);
    // The byte-for-byte check ran on a good share of batches (it is vacuous otherwise).
    expect(rejectedBatches).toBeGreaterThan(NUM_RUNS / 10);
    // Both outcomes occurred: the fuzzer reaches accepted writes as well as rejections.
    expect([...statuses.keys()].some((c) => c >= 200 && c < 300)).toBe(true);
    expect((await call(s, "GET", "/readyz")).status).toBe(200);
    expect(s.proc.exitCode).toBeNull();
  }, 600_000);
});
