import { createServer } from "node:http";
import type { Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Pod } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, createClientConnections } from "./client.js";
import type { ClusterConfig } from "./cluster-config.js";

// Connection pooling of the client: a bounded keep-alive pool for requests, watches outside it.
let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

interface Fake {
  readonly config: ClusterConfig;
  /** Connections accepted so far, and the most open at once. */
  readonly stats: { accepted: number; open: number; maxOpen: number };
  /** Responses of pending GETs (answered by the test). */
  readonly held: ServerResponse[];
}

async function serve(holdGets: boolean): Promise<Fake> {
  const stats = { accepted: 0, open: 0, maxOpen: 0 };
  const held: ServerResponse[] = [];
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.searchParams.get("watch") === "true") {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`${JSON.stringify({ type: "ADDED", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "w", namespace: "default", resourceVersion: "2" } } })}\n`);
      return; // the watch stays open
    }
    const name = url.pathname.split("/").pop() ?? "";
    const body = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", resourceVersion: "1" } });
    if (holdGets) held.push(res);
    res.setHeader("content-type", "application/json");
    if (!holdGets) res.end(body);
    else (res as ServerResponse & { body?: string }).body = body;
  });
  server.on("connection", (sock) => {
    stats.accepted++;
    stats.open++;
    stats.maxOpen = Math.max(stats.maxOpen, stats.open);
    sock.on("close", () => stats.open--);
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  const config = { server: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, insecureSkipTLSVerify: false } as ClusterConfig;
  return { config, stats, held };
}

const release = (held: ServerResponse[]): void => {
  for (const r of held.splice(0)) r.end((r as ServerResponse & { body?: string }).body);
};

describe("client connection pool", () => {
  it("opens at most maxConnections connections; further requests wait and then reuse them", async () => {
    const f = await serve(true);
    const client = createClient(f.config, { qps: 0, maxConnections: 3 });
    const gets = Array.from({ length: 20 }, (_, i) => client.pods.get(`p${String(i)}`, { namespace: "default" }));
    // Answer whatever is pending until all 20 are done.
    let done = false;
    const all = Promise.all(gets).finally(() => (done = true));
    while (!done) {
      await new Promise((r) => setTimeout(r, 5));
      expect(f.held.length).toBeLessThanOrEqual(3);
      release(f.held);
    }
    const pods: Pod[] = await all;
    expect(pods.map((p) => p.metadata?.name)).toEqual(Array.from({ length: 20 }, (_, i) => `p${String(i)}`));
    expect(f.stats.maxOpen).toBeLessThanOrEqual(3);
    expect(f.stats.accepted).toBeLessThanOrEqual(3); // kept alive and reused, not reopened
    client.close();
  });

  it("gives each watch its own connection outside the pool, so requests still flow", async () => {
    const f = await serve(false);
    const client = createClient(f.config, { qps: 0, maxConnections: 1 });
    const w1 = client.pods.watch({ namespace: "default" });
    const w2 = client.pods.watch({ namespace: "default" });
    const it1 = w1[Symbol.asyncIterator]();
    const it2 = w2[Symbol.asyncIterator]();
    expect((await it1.next()).value).toMatchObject({ type: "ADDED" });
    expect((await it2.next()).value).toMatchObject({ type: "ADDED" });
    // Both watches are open and the pool has one connection: a get still completes.
    const pod = await client.pods.get("x", { namespace: "default" });
    expect(pod.metadata?.name).toBe("x");
    expect(f.stats.maxOpen).toBe(3);
    w1.stop();
    w2.stop();
    client.close();
  });

  it("rejects a maxConnections below 1 or not an integer", async () => {
    const f = await serve(false);
    expect(() => createClient(f.config, { maxConnections: 0 })).toThrow(RangeError);
    expect(() => createClient(f.config, { maxConnections: 1.5 })).toThrow(/maxConnections must be an integer >= 1/);
  });

  it("clients sharing connections use one pool; closing one client leaves the others working", async () => {
    const f = await serve(false);
    const connections = createClientConnections(f.config, { maxConnections: 2 });
    const clients = Array.from({ length: 5 }, () => createClient(f.config, { qps: 0, connections }));
    await Promise.all(clients.flatMap((c, i) => [c.pods.get(`a${String(i)}`, { namespace: "default" }), c.pods.get(`b${String(i)}`, { namespace: "default" })]));
    expect(f.stats.maxOpen).toBeLessThanOrEqual(2);
    clients[0]?.close();
    const pod = await clients[1]?.pods.get("after-close", { namespace: "default" });
    expect(pod?.metadata?.name).toBe("after-close");
    connections.close();
  });

  it("refuses connections made for another server", async () => {
    const f = await serve(false);
    const connections = createClientConnections({ ...f.config, server: "http://127.0.0.1:1" });
    expect(() => createClient(f.config, { connections })).toThrow(/the pool is for http:\/\/127.0.0.1:1/);
    connections.close();
  });
});

describe("typed RBAC clients", () => {
  it("serve the rbac.authorization.k8s.io/v1 resources", async () => {
    const f = await serve(false);
    const client = createClient(f.config, { qps: 0 });
    expect([client.roles, client.clusterRoles, client.roleBindings, client.clusterRoleBindings].map((c) => `${c.info.plural}.${c.info.group}/${c.info.version}`)).toEqual([
      "roles.rbac.authorization.k8s.io/v1",
      "clusterroles.rbac.authorization.k8s.io/v1",
      "rolebindings.rbac.authorization.k8s.io/v1",
      "clusterrolebindings.rbac.authorization.k8s.io/v1",
    ]);
    client.close();
  });
});

describe("tokenSource", () => {
  it("sends the source's token on every request (not config.token), and resets the source after a 401", async () => {
    const seen: string[] = [];
    server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? "");
      res.setHeader("content-type", "application/json");
      if (req.headers.authorization === "Bearer stale") {
        res.statusCode = 401;
        res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Unauthorized", message: "Unauthorized", code: 401 }));
        return;
      }
      res.end(JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } }));
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const config = { server: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, insecureSkipTLSVerify: false, token: "from-kubeconfig" } as ClusterConfig;
    let current = "stale";
    let resets = 0;
    const client = createClient(config, {
      qps: 0,
      tokenSource: {
        token: () => Promise.resolve(current),
        reset: () => {
          resets++;
          current = "fresh";
        },
      },
    });
    await expect(client.pods.get("p", { namespace: "default" })).rejects.toMatchObject({ reason: "Unauthorized" });
    expect(resets).toBe(1);
    await client.pods.get("p", { namespace: "default" });
    expect(seen).toEqual(["Bearer stale", "Bearer fresh"]);
    client.close();
  });

  it("a source that gives no token fails the request with ClientError Unauthenticated", async () => {
    const client = createClient({ server: "http://127.0.0.1:1", insecureSkipTLSVerify: false }, { tokenSource: { token: () => Promise.reject(new Error("no account")) } });
    await expect(client.pods.get("p", { namespace: "default" })).rejects.toMatchObject({ name: "ClientError", code: "Unauthenticated", message: "get pods: no token: no account" });
    client.close();
  });
});

describe("client timeout (timeoutMs, client-go's rest.Config.Timeout)", () => {
  it("fails a request the server never answers with a NetworkError naming the timeout; a caller's abort stays Aborted; watches are not cut", async () => {
    const f = await serve(true);
    const client = createClient(f.config, { qps: 0, timeoutMs: 200 });
    await expect(client.pods.get("slow", { namespace: "default" })).rejects.toMatchObject({ name: "ClientError", code: "NetworkError", message: expect.stringContaining("no answer within 200 ms (the client's timeout)") });
    const caller = new AbortController();
    const aborted = client.pods.get("slow2", { namespace: "default", signal: caller.signal });
    caller.abort();
    await expect(aborted).rejects.toMatchObject({ code: "Aborted" });
    // A watch outlives the timeout.
    const stop = new AbortController();
    const events: string[] = [];
    const done = (async () => {
      for await (const e of client.pods.watch({ namespace: "default", signal: stop.signal })) events.push(e.type);
    })().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(events).toEqual(["ADDED"]);
    stop.abort();
    await done;
    // An answer within the timeout is the answer.
    const quick = client.pods.get("quick", { namespace: "default" });
    await new Promise((r) => setTimeout(r, 20));
    release(f.held);
    await expect(quick).resolves.toMatchObject({ metadata: { name: "quick" } });
    client.close();
  });

  it("an answered request leaves no timeout behind to fire later (the signal is never aborted)", async () => {
    const f = await serve(false);
    const client = createClient(f.config, { qps: 0, timeoutMs: 100 });
    const aborts: string[] = [];
    const dispatch = EventTarget.prototype.dispatchEvent;
    EventTarget.prototype.dispatchEvent = function (this: EventTarget, event: Event): boolean {
      if (event.type === "abort") aborts.push(String((this as AbortSignal).reason));
      return dispatch.call(this, event);
    };
    try {
      for (const name of ["a", "b", "c"]) await expect(client.pods.get(name, { namespace: "default" })).resolves.toMatchObject({ metadata: { name } });
      await new Promise((r) => setTimeout(r, 250));
      expect(aborts).toEqual([]);
    } finally {
      EventTarget.prototype.dispatchEvent = dispatch;
      client.close();
    }
  });

  it("refuses a negative or non-finite timeout", () => {
    const config = { server: "http://127.0.0.1:1", insecureSkipTLSVerify: false } as ClusterConfig;
    expect(() => createClient(config, { timeoutMs: -1 })).toThrow("timeoutMs must be a finite number >= 0, got -1");
    expect(() => createClient(config, { timeoutMs: Number.NaN })).toThrow(RangeError);
  });
});

describe("client keep-alive connections the server closed", () => {
  it("sends a request again on another connection when a reused one is reset before any response (POST too)", async () => {
    let requestsSeen = 0;
    const perSocket = new WeakMap<object, number>();
    server = createServer((req, res) => {
      requestsSeen++;
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // The second request on a connection: the server drops it unanswered (an idle-timeout close
      // racing the client's reuse), with a TCP reset.
      if (n === 2) {
        req.socket.resetAndDestroy();
        return;
      }
      req.resume();
      req.on("end", () => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", resourceVersion: "1" } }));
      });
    });
    let accepted = 0;
    server.on("connection", () => accepted++);
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const config = { server: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, insecureSkipTLSVerify: false } as ClusterConfig;
    const client = createClient(config, { qps: 0, maxConnections: 1 });
    await client.pods.get("p", { namespace: "default" });
    const created = await client.pods.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } } as Pod, { namespace: "default" });
    expect(created.metadata?.name).toBe("p");
    expect(accepted).toBe(2);
    expect(requestsSeen).toBe(3);
    client.close();
  });

  it("does not resend when a fresh connection fails", async () => {
    server = createServer((req) => req.socket.resetAndDestroy());
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    let accepted = 0;
    server.on("connection", () => accepted++);
    const config = { server: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, insecureSkipTLSVerify: false } as ClusterConfig;
    const client = createClient(config, { qps: 0, maxConnections: 1 });
    await expect(client.pods.get("p", { namespace: "default" })).rejects.toMatchObject({ code: "NetworkError" });
    expect(accepted).toBe(1);
    client.close();
  });
});

describe("Retry-After (client-go's request retries)", () => {
  // Answers each request with the next of `answers` (then 200 with a Pod), recording the bodies.
  async function scripted(answers: { code: number; retryAfter?: string }[]): Promise<{ config: ClusterConfig; bodies: string[] }> {
    const bodies: string[] = [];
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        bodies.push(`${req.method ?? ""} ${body}`);
        const a = answers.shift();
        if (a === undefined) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", resourceVersion: "1" } }));
          return;
        }
        res.writeHead(a.code, { "content-type": "application/json", ...(a.retryAfter !== undefined ? { "retry-after": a.retryAfter } : {}) });
        res.end(JSON.stringify({ apiVersion: "v1", kind: "Status", status: "Failure", reason: a.code === 429 ? "TooManyRequests" : "InternalError", code: a.code, message: `answer ${String(a.code)}` }));
      });
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    return { config: { server: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, insecureSkipTLSVerify: false } as ClusterConfig, bodies };
  }
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } } as Pod;

  it("sends a request again after 429 or 5xx with Retry-After, the same body each time", async () => {
    const { config, bodies } = await scripted([{ code: 429, retryAfter: "0" }, { code: 503, retryAfter: "0" }, { code: 500, retryAfter: "-3" }]);
    const client = createClient(config, { qps: 0 });
    const created = await client.pods.create(pod, { namespace: "default" });
    expect(created.metadata?.name).toBe("p");
    expect(bodies).toHaveLength(4);
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]).toMatch(/^POST \{/);
    client.close();
  });

  it("waits the seconds Retry-After gives", async () => {
    const { config } = await scripted([{ code: 429, retryAfter: "1" }]);
    const client = createClient(config, { qps: 0 });
    const t0 = performance.now();
    await client.pods.get("p", { namespace: "default" });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(990);
    client.close();
  });

  it("gives up after 10 retries with the last answer's error", async () => {
    const { config, bodies } = await scripted(Array.from({ length: 12 }, () => ({ code: 429, retryAfter: "0" })));
    const client = createClient(config, { qps: 0 });
    await expect(client.pods.get("p", { namespace: "default" })).rejects.toMatchObject({ status: { code: 429, reason: "TooManyRequests" } });
    expect(bodies).toHaveLength(11);
    client.close();
  });

  it("does not retry without Retry-After, with a date, or for a 4xx other than 429", async () => {
    for (const a of [{ code: 500 }, { code: 503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT" }, { code: 409, retryAfter: "0" }]) {
      const { config, bodies } = await scripted([a]);
      const client = createClient(config, { qps: 0 });
      await expect(client.pods.get("p", { namespace: "default" })).rejects.toMatchObject({ status: { code: a.code } });
      expect(bodies).toHaveLength(1);
      client.close();
      server?.closeAllConnections();
      server?.close();
    }
  });

  it("an abort during the wait ends the request at once; a Retry-After past Node's longest timer still waits", async () => {
    for (const retryAfter of ["30", "99999999999"]) {
      await abortDuringWait(retryAfter);
      server?.closeAllConnections();
      server?.close();
    }
  });

  async function abortDuringWait(retryAfter: string): Promise<void> {
    const { config, bodies } = await scripted([{ code: 429, retryAfter }]);
    const client = createClient(config, { qps: 0 });
    const ac = new AbortController();
    const get = client.pods.get("p", { namespace: "default", signal: ac.signal });
    await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    await expect(get).rejects.toMatchObject({ code: "Aborted" });
    expect(bodies).toHaveLength(1);
    client.close();
  }
});
