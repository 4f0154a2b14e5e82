// Watch and read semantics against the real apiserver: selector transitions, server bookmarks,
// timeoutSeconds, resourceVersion="0" reads from the watch cache, resourceVersionMatch; and the
// per-request JSON log line, the missing FSTDEP023 warning, and 401 without credentials.
import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

interface WatchEvent {
  type: string;
  object: { kind?: string; metadata: { name?: string; resourceVersion?: string; labels?: Record<string, string> }; spec?: { nodeName?: string } };
}

interface OpenWatch {
  readonly events: WatchEvent[];
  /** Resolves when `n` events arrived (or the stream ended). */
  waitFor(n: number): Promise<WatchEvent[]>;
  /** Resolves with every event when the server ends the stream. */
  readonly ended: Promise<WatchEvent[]>;
  close(): void;
}

function openWatch(s: RunningServer, path: string): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const events: WatchEvent[] = [];
    const waiters: { n: number; resolve: (e: WatchEvent[]) => void }[] = [];
    let done = false;
    let endResolve: (e: WatchEvent[]) => void = () => undefined;
    const ended = new Promise<WatchEvent[]>((r) => (endResolve = r));
    const flush = () => {
      for (const w of [...waiters]) {
        if (events.length >= w.n || done) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(events);
        }
      }
    };
    const req = request(
      { host: "127.0.0.1", servername: "localhost", port: s.port, path, method: "GET", ca: s.ca, headers: { authorization: `Bearer ${adminToken}` } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch answered ${String(res.statusCode)}`));
          return;
        }
        let buf = "";
        res.on("data", (d: Buffer) => {
          buf += d.toString();
          let i;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line) events.push(JSON.parse(line) as WatchEvent);
          }
          flush();
        });
        res.on("end", () => {
          done = true;
          flush();
          endResolve(events);
        });
        res.on("error", () => undefined);
        resolve({
          events,
          ended,
          waitFor: (n) => new Promise((r) => {
            waiters.push({ n, resolve: r });
            flush();
          }),
          close: () => req.destroy(),
        });
      },
    );
    req.on("error", (e) => {
      if (!done) reject(e);
    });
    req.end();
  });
}

const pts = "/api/v1/namespaces/default/podtemplates";
const template = (name: string, labels: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "PodTemplate",
  metadata: { name, labels },
  template: { spec: { containers: [{ name: "c", image: "busybox" }] } },
});

describe("watch and reads", () => {
  let s: RunningServer;
  beforeAll(async () => {
    process.env["SKIFF_WATCH_BOOKMARK_INTERVAL_MS"] = "200";
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    delete process.env["SKIFF_WATCH_BOOKMARK_INTERVAL_MS"];
    await s.stop();
  });

  const rvNow = async () => ((await call(s, "GET", pts)).json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const relabel = async (name: string, labels: Record<string, string>) => {
    const r = await call(s, "PATCH", `${pts}/${name}`, { metadata: { labels } }, { "content-type": "application/merge-patch+json" });
    expect(r.status).toBe(200);
  };

  it("label selector transitions: entering is ADDED, leaving is DELETED (previous state, new resourceVersion)", async () => {
    const from = await rvNow();
    const w = await openWatch(s, `${pts}?watch=true&labelSelector=tier%3Dfront&resourceVersion=${from}`);
    let evs: WatchEvent[];
    try {
      expect((await call(s, "POST", pts, template("sel", { tier: "back" }))).status).toBe(201);
      await relabel("sel", { tier: "front" });
      await relabel("sel", { tier: "front", extra: "x" });
      await relabel("sel", { tier: "back", extra: "x" });
      evs = await w.waitFor(3);
    } finally {
      w.close();
    }
    expect(evs.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(evs[0]?.object.metadata.labels).toEqual({ tier: "front" });
    // As 1.23's cacher: the object as it was last seen matching, at the event's resourceVersion.
    expect(evs[2]?.object.metadata.labels).toEqual({ tier: "front", extra: "x" });
    const cur = (await call(s, "GET", `${pts}/sel`)).json() as WatchEvent["object"];
    expect(evs[2]?.object.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });

  it("field selector transitions: a pod bound to the watched node is ADDED", async () => {
    const pods = "/api/v1/namespaces/default/pods";
    expect((await call(s, "POST", pods, { apiVersion: "v1", kind: "Pod", metadata: { name: "w-pod" }, spec: { containers: [{ name: "c", image: "busybox" }] } })).status).toBe(201);
    const onNode = await openWatch(s, `${pods}?watch=true&fieldSelector=spec.nodeName%3Dwatch-node`);
    const unbound = await openWatch(s, `${pods}?watch=true&fieldSelector=spec.nodeName%3D`);
    try {
    expect((await unbound.waitFor(1))[0]).toMatchObject({ type: "ADDED", object: { metadata: { name: "w-pod" } } });
    const b = await call(s, "POST", `${pods}/w-pod/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name: "w-pod" }, target: { apiVersion: "v1", kind: "Node", name: "watch-node" } });
    expect(b.status).toBe(201);
    const added = await onNode.waitFor(1);
    expect(added[0]).toMatchObject({ type: "ADDED", object: { metadata: { name: "w-pod" }, spec: { nodeName: "watch-node" } } });
    const left = await unbound.waitFor(2);
    expect(left[1]).toMatchObject({ type: "DELETED", object: { metadata: { name: "w-pod" } } });
    } finally {
      onNode.close();
      unbound.close();
    }
  });

  it("sends periodic BOOKMARKs only when allowWatchBookmarks=true, and ends at timeoutSeconds", async () => {
    const from = await rvNow();
    // timeoutSeconds=3: 1.23 sends bookmarks only up to 2 s before the deadline (none at all at 2 s or less).
    const withBookmarks = await openWatch(s, `${pts}?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${from}`);
    const without = await openWatch(s, `${pts}?watch=true&timeoutSeconds=3&resourceVersion=${from}`);
    // A write the watches do not select (another kind) moves the cache past their revision:
    // 1.23 sends a bookmark only when it is newer than the revision a watch started from.
    expect((await call(s, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "bookmark-bump" } })).status).toBe(201);
    const a = await withBookmarks.ended;
    const b = await without.ended;
    const marks = a.filter((e) => e.type === "BOOKMARK");
    expect(marks.length).toBeGreaterThan(0);
    expect(marks[0]?.object).toMatchObject({ kind: "PodTemplate", apiVersion: "v1" });
    expect(Number(marks[0]?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(from));
    expect(b.filter((e) => e.type === "BOOKMARK")).toEqual([]);
  });

  it("sends no BOOKMARK while nothing newer than the watch's revision happened, one once something did (asked as True)", async () => {
    // The deadline rule (a bookmark 2 s before timeoutSeconds with the default one-minute period)
    // is checked over HTTP by tools/e2e's client-library suite, whose server keeps the default.
    const from = await rvNow();
    const idle = await openWatch(s, `${pts}?watch=True&allowWatchBookmarks=True&timeoutSeconds=3&resourceVersion=${from}`);
    expect((await idle.ended).filter((e) => e.type === "BOOKMARK")).toEqual([]);
    const from2 = await rvNow();
    const busy = await openWatch(s, `${pts}?watch=True&allowWatchBookmarks=True&timeoutSeconds=3&resourceVersion=${from2}`);
    expect((await call(s, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "bookmark-deadline" } })).status).toBe(201);
    const marks = (await busy.ended).filter((e) => e.type === "BOOKMARK");
    expect(marks.length).toBeGreaterThan(0);
    expect(Number(marks[0]?.object.metadata.resourceVersion)).toBeGreaterThan(Number(from2));
  });

  it("resourceVersion=0 reads come from the watch cache; unset is a consistent read", async () => {
    for (const n of ["rv0-a", "rv0-b", "rv0-c"]) expect((await call(s, "POST", pts, template(n, { rv0: "yes" }))).status).toBe(201);
    const latest = await rvNow();
    const cached = (await call(s, "GET", `${pts}?labelSelector=rv0%3Dyes&resourceVersion=0&limit=1`)).json() as { metadata: { resourceVersion: string; continue?: string }; items: unknown[] };
    // The cache ignores limit at resourceVersion 0 (1.23 cacher), and answers at its own revision.
    expect(cached.items).toHaveLength(3);
    expect(cached.metadata.continue).toBeUndefined();
    expect(Number(cached.metadata.resourceVersion)).toBeLessThanOrEqual(Number(latest));
    const paged = (await call(s, "GET", `${pts}?labelSelector=rv0%3Dyes&limit=1`)).json() as { metadata: { continue?: string }; items: unknown[] };
    expect(paged.items).toHaveLength(1);
    expect(paged.metadata.continue).toBeDefined();
    const one = await call(s, "GET", `${pts}/rv0-a?resourceVersion=0`);
    expect(one.status).toBe(200);
    expect((await call(s, "GET", `${pts}/missing?resourceVersion=0`)).status).toBe(404);
    expect((await call(s, "GET", `${pts}/rv0-a?resourceVersion=abc`)).status).toBe(400);
    // NotOlderThan at a known revision works; Exact at one too.
    expect((await call(s, "GET", `${pts}?resourceVersion=${latest}&resourceVersionMatch=NotOlderThan`)).status).toBe(200);
    expect((await call(s, "GET", `${pts}?resourceVersion=${latest}&resourceVersionMatch=Exact`)).status).toBe(200);
    const tooNew = await call(s, "GET", `${pts}?resourceVersion=999999&resourceVersionMatch=Exact`);
    expect(tooNew.status).toBe(504);
    expect(tooNew.json()).toMatchObject({ reason: "Timeout", details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 } });
  });

  it("resourceVersionMatch errors are 422 on ListOptions.meta.k8s.io, as 1.23", async () => {
    const cases: [string, string][] = [
      ["resourceVersionMatch=NotOlderThan", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ["resourceVersion=1&resourceVersionMatch=Sometimes", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""'],
      ["resourceVersion=0&resourceVersionMatch=Exact", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ];
    for (const [q, message] of cases) {
      const r = await call(s, "GET", `${pts}?${q}`);
      expect(r.status, q).toBe(422);
      expect((r.json() as { message: string }).message, q).toBe(message);
    }
    const bad = await call(s, "GET", `${pts}?resourceVersion=x1`);
    expect(bad.status).toBe(400);
  });
});

describe("request log and startup", () => {
  let s: RunningServer;
  let stdout = "";
  beforeAll(async () => {
    s = await startServer({ extraArgs: ["-v=2", "--logging-format=json", "--anonymous-auth=false"] });
    s.proc.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  it("logs one JSON line per request with verb, path, code, latency and user", async () => {
    expect((await call(s, "GET", "/api/v1/namespaces/default/podtemplates?limit=5")).status).toBe(200);
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const all = [...stdout.split("\n"), ...s.stderr().split("\n")];
      const hit = all.find((l) => l.includes('"msg":"request"') && l.includes("/api/v1/namespaces/default/podtemplates?limit=5"));
      if (hit) line = JSON.parse(hit) as Record<string, unknown>;
    }
    expect(line).toMatchObject({ verb: "GET", path: "/api/v1/namespaces/default/podtemplates?limit=5", code: 200, user: "admin" });
    expect(typeof line?.["latencyMs"]).toBe("number");
  });

  it("starts without fastify deprecation warnings", () => {
    expect(s.stderr()).not.toContain("FSTDEP");
    expect(stdout).not.toContain("FSTDEP");
  });

  it("answers 401 on /api and on resources without credentials when anonymous auth is off", async () => {
    for (const path of ["/api", "/api/v1/namespaces/default/pods", "/api/v1/namespaces/default/pods/x/binding", "/api/v1/namespaces/default/finalize"]) {
      const r = await call(s, "GET", path, undefined, { authorization: "" });
      expect(r.status, path).toBe(401);
      expect(r.json()).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    }
  });
});
