// In-flight limits of the real skiff-apiserver process: with API Priority and Fairness (the
// default) a request over its level's seats waits, then 429; without it
// (--max-requests-inflight=2, --max-mutating-requests-inflight=2) 429 at once. Requests are held honestly, by clients that are slow the
// way real slow clients are: a POST whose body never finishes arriving holds a mutating slot; a
// large list whose response the client does not read holds a read-only slot (the server cannot
// finish sending it). Beyond the limits: 429 + Retry-After: 1 + a TooManyRequests Status; once
// the slow clients go away: full service again.
import { mkdtemp, writeFile } from "node:fs/promises";
import { request } from "node:https";
import type { ClientRequest, IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, startServer, removeWhenDone } from "./harness.js";
import type { RunningServer } from "./harness.js";

const loader = "loader-token";

interface Res { status: number; headers: Record<string, string | string[] | undefined>; json: Record<string, unknown> }

function call(s: RunningServer, method: string, path: string, token: string, body?: unknown): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", servername: "localhost", port: s.port, path, method, ca: s.ca, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } }, (res) => {
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

// A create whose body trickles: headers and one byte, then nothing.
function slowCreate(s: RunningServer): ClientRequest {
  const req = request({
    host: "127.0.0.1", servername: "localhost", port: s.port, method: "POST", path: "/api/v1/namespaces/default/podtemplates", ca: s.ca,
    headers: { authorization: `Bearer ${loader}`, "content-type": "application/json", "content-length": "100000" },
  });
  req.on("error", () => undefined);
  req.write("{");
  return req;
}

// A big list whose response is never read (until `drain`).
function unreadList(s: RunningServer): { req: ClientRequest; response: Promise<IncomingMessage> } {
  let req!: ClientRequest;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req = request({ host: "127.0.0.1", servername: "localhost", port: s.port, method: "GET", path: "/api/v1/namespaces/default/podtemplates", ca: s.ca, headers: { authorization: `Bearer ${loader}` } }, resolve);
    req.on("error", reject);
    req.end();
  });
  return { req, response };
}

async function until(what: string, f: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

function expectTooMany(r: Res): void {
  expect(r.status).toBe(429);
  expect(r.headers["retry-after"]).toBe("1");
  expect(r.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "TooManyRequests", code: 429, message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } });
}

describe("overload (real process, in-flight limits of 2)", () => {
  let s: RunningServer;
  beforeAll(async () => {
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-overload-")));
    await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\n${loader},loader,2\n`);
    s = await startServer({ extraArgs: [`--token-auth-file=${join(dir, "tokens.csv")}`, "--enable-priority-and-fairness=false", "--max-requests-inflight=2", "--max-mutating-requests-inflight=2"] });
  }, 120_000);
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("mutating requests beyond the limit get 429, reads and system:masters still pass, then full service", async () => {
    const held = [slowCreate(s), slowCreate(s)];
    await until("mutating slots full", async () => (await call(s, "DELETE", "/api/v1/namespaces/default/podtemplates/nope", loader)).status === 429);
    expectTooMany(await call(s, "POST", "/api/v1/namespaces/default/podtemplates", loader, { apiVersion: "v1", kind: "PodTemplate", metadata: { name: "refused" } }));
    expect((await call(s, "GET", "/api/v1/namespaces/default/podtemplates/refused", adminToken)).status).toBe(404);
    expect((await call(s, "GET", "/api/v1/namespaces/default/podtemplates", loader)).status).toBe(200);
    expect((await call(s, "DELETE", "/api/v1/namespaces/default/podtemplates/nope", adminToken)).status).toBe(404);
    for (const h of held) h.destroy();
    await until("mutating slots free", async () => (await call(s, "DELETE", "/api/v1/namespaces/default/podtemplates/nope", loader)).status === 404);
    const ok = await Promise.all([1, 2].map((i) => call(s, "POST", "/api/v1/namespaces/default/podtemplates", loader, { apiVersion: "v1", kind: "PodTemplate", metadata: { name: `after-${String(i)}` }, template: { spec: { containers: [{ name: "c", image: "busybox" }] } } })));
    expect(ok.map((r) => r.status)).toEqual([201, 201]);
  }, 60_000);

  it("read-only requests beyond the limit get 429 while big responses are stuck, watches are not counted, then full service", async () => {
    // ~25 MB of pod templates: more than the kernel buffers between server and client can absorb.
    const pad = "x".repeat(200_000);
    for (let i = 0; i < 125; i += 5) {
      const rs = await Promise.all(
        [0, 1, 2, 3, 4].map((j) => call(s, "POST", "/api/v1/namespaces/default/podtemplates", adminToken, {
          apiVersion: "v1", kind: "PodTemplate", metadata: { name: `big-${String(i + j)}`, annotations: { pad } }, template: { spec: { containers: [{ name: "c", image: "busybox" }] } },
        })),
      );
      expect(rs.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    }
    const held = [unreadList(s), unreadList(s)];
    const responses = await Promise.all(held.map((h) => h.response));
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200]);
    await until("read-only slots full", async () => (await call(s, "GET", "/version", loader)).status === 429);
    expectTooMany(await call(s, "GET", "/api/v1/namespaces", loader));
    // A watch is long-running: not counted, not refused.
    const w = await call(s, "GET", "/api/v1/namespaces?watch=true&timeoutSeconds=1", loader);
    expect(w.status).toBe(200);
    // Mutations have their own bucket.
    expect((await call(s, "DELETE", "/api/v1/namespaces/default/podtemplates/nope", loader)).status).toBe(404);
    expect((await call(s, "GET", "/version", adminToken)).status).toBe(200);
    // The slow clients read their responses at last: the slots come back.
    const sizes = await Promise.all(responses.map((r) => new Promise<number>((resolve) => {
      let n = 0;
      r.on("data", (d: Buffer) => (n += d.length));
      r.on("end", () => resolve(n));
    })));
    for (const n of sizes) expect(n).toBeGreaterThan(25_000_000);
    await until("read-only slots free", async () => (await call(s, "GET", "/version", loader)).status === 200);
    const again = await Promise.all([1, 2].map(() => call(s, "GET", "/api/v1/namespaces", loader)));
    expect(again.map((r) => r.status)).toEqual([200, 200]);
  }, 120_000);
});

describe("overload with API Priority and Fairness (real process, 1 + 1 seats: one per level)", () => {
  let s: RunningServer;
  const nodeToken = "node-token";
  beforeAll(async () => {
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-overload-apf-")));
    await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\n${loader},loader,2\n${nodeToken},system:node:n1,3,"system:nodes"\n`);
    s = await startServer({ extraArgs: [`--token-auth-file=${join(dir, "tokens.csv")}`, "--max-requests-inflight=1", "--max-mutating-requests-inflight=1", "--request-timeout=4s"] });
  }, 120_000);
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("a request over its level's seat waits and is served when the seat comes back; 429 after a quarter of --request-timeout; other levels and system:masters unaffected", async () => {
    // loader is in global-default (1 seat): a create whose body never arrives holds it.
    const held = slowCreate(s);
    await until("global-default's seat taken", async () => {
      const t0 = performance.now();
      const r = await call(s, "GET", "/api/v1/namespaces/default/podtemplates", loader);
      return r.status === 429 && performance.now() - t0 >= 900;
    });
    const t0 = performance.now();
    expectTooMany(await call(s, "GET", "/version", loader));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(900);
    // Another priority level (a node's own Node object: node-high) and the exempt level still pass.
    const nodeGet = await call(s, "GET", "/api/v1/nodes/n1", nodeToken);
    expect(nodeGet.status).not.toBe(429);
    expect((await call(s, "GET", "/api/v1/namespaces/default/podtemplates", adminToken)).status).toBe(200);
    // Queued, then served once the seat is given back.
    const queued = call(s, "GET", "/api/v1/namespaces/default/podtemplates", loader);
    await new Promise((r) => setTimeout(r, 200));
    held.destroy();
    expect((await queued).status).toBe(200);
    const ok = await Promise.all([1, 2, 3].map((i) => call(s, "POST", "/api/v1/namespaces/default/podtemplates", loader, { apiVersion: "v1", kind: "PodTemplate", metadata: { name: `apf-${String(i)}` }, template: { spec: { containers: [{ name: "c", image: "busybox" }] } } })));
    expect(ok.map((r) => r.status)).toEqual([201, 201, 201]);
  }, 60_000);
});
