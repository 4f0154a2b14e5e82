import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { constants as http2Constants, createSecureServer } from "node:http2";
import type { Http2SecureServer, Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { createServer as createHttpsServer } from "node:https";
import type { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, createClientConnections } from "./client.js";
import type { ClusterConfig } from "./cluster-config.js";

// The client over HTTPS: requests and watches as streams of one HTTP/2 connection (client-go's
// transport), a second connection only past the server's stream limit, and HTTP/1.1 with a server
// that does not offer h2. Real TLS servers on loopback.
let dir = "";
let tls = { key: "", cert: "" };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "skiff-client-h2-"));
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
  tls = { key: readFileSync(join(dir, "k.pem"), "utf8"), cert: readFileSync(join(dir, "c.pem"), "utf8") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let closeServer: (() => void) | undefined;
afterEach(() => {
  closeServer?.();
  closeServer = undefined;
});

const pod = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", resourceVersion: "1" } });

interface H2Fake {
  readonly config: ClusterConfig;
  readonly server: Http2SecureServer;
  /** TLS connections accepted, HTTP/2 sessions opened, and the HTTP version of each request. */
  readonly stats: { connections: number; sessions: number; versions: string[]; closedWatches: number };
}

/** An HTTP/2 server (HTTP/1.1 beside it) answering pod GETs and holding watches open. */
async function serveH2(maxConcurrentStreams = 250, onRequest?: (req: Http2ServerRequest, res: Http2ServerResponse) => boolean): Promise<H2Fake> {
  const stats = { connections: 0, sessions: 0, versions: [] as string[], closedWatches: 0 };
  const server = createSecureServer({ ...tls, allowHTTP1: true, settings: { maxConcurrentStreams } }, (req, res) => {
    stats.versions.push(req.httpVersion);
    if (onRequest?.(req, res) === true) return;
    const url = new URL(req.url, "https://x");
    if (url.searchParams.get("watch") === "true") {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`${JSON.stringify({ type: "ADDED", object: JSON.parse(pod("w")) as unknown })}\n`);
      req.once("close", () => stats.closedWatches++);
      return; // the watch stays open
    }
    res.setHeader("content-type", "application/json");
    res.end(pod(url.pathname.split("/").pop() ?? ""));
  });
  server.on("secureConnection", () => stats.connections++);
  server.on("session", () => stats.sessions++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closeServer = () => server.close();
  const config = { server: `https://127.0.0.1:${String((server.address() as AddressInfo).port)}`, caPEM: tls.cert, insecureSkipTLSVerify: false } as ClusterConfig;
  return { config, server, stats };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

describe("client over HTTP/2", () => {
  it("sends requests and watches as streams of one connection", async () => {
    const f = await serveH2();
    const client = createClient(f.config, { qps: 0 });
    try {
      const watch = client.pods.watch({ namespace: "default" });
      const it = watch[Symbol.asyncIterator]();
      expect((await it.next()).value).toMatchObject({ type: "ADDED", object: { metadata: { name: "w" } } });
      const pods = await Promise.all(Array.from({ length: 50 }, (_, i) => client.pods.get(`p${String(i)}`, { namespace: "default" })));
      expect(pods.map((p) => p.metadata?.name)).toEqual(Array.from({ length: 50 }, (_, i) => `p${String(i)}`));
      expect(f.stats).toMatchObject({ connections: 1, sessions: 1 });
      expect(new Set(f.stats.versions)).toEqual(new Set(["2.0"]));
      // Stopping a watch resets its stream; the server sees the request close.
      watch.stop();
      await it.return?.(undefined);
      await until(() => f.stats.closedWatches === 1, "the watch's stream to close");
      expect(f.stats.connections).toBe(1);
    } finally {
      client.close();
    }
  });

  it("opens another connection only when one carries the server's stream limit", async () => {
    const f = await serveH2(2);
    const client = createClient(f.config, { qps: 0 });
    try {
      const watches = Array.from({ length: 5 }, () => client.pods.watch({ namespace: "default" })[Symbol.asyncIterator]());
      for (const w of watches) expect((await w.next()).done).toBe(false);
      expect(f.stats.sessions).toBe(3);
      for (const w of watches) await w.return?.(undefined);
    } finally {
      client.close();
    }
  });

  it("clients of shared connections share the HTTP/2 connection", async () => {
    const f = await serveH2();
    const shared = createClientConnections(f.config);
    const a = createClient(f.config, { qps: 0, connections: shared });
    const b = createClient(f.config, { qps: 0, connections: shared });
    try {
      await Promise.all([a.pods.get("a", { namespace: "default" }), b.pods.get("b", { namespace: "default" })]);
      await a.pods.get("a2", { namespace: "default" });
      expect(f.stats.sessions).toBe(1);
    } finally {
      a.close();
      b.close();
      shared.close();
    }
  });

  it("sends a request again on a new connection when the server closed the old one (GOAWAY)", async () => {
    const sessions: { close(): void }[] = [];
    const f = await serveH2();
    f.server.on("session", (s) => sessions.push(s));
    const client = createClient(f.config, { qps: 0 });
    try {
      await client.pods.get("one", { namespace: "default" });
      for (const s of sessions) s.close();
      expect((await client.pods.get("two", { namespace: "default" })).metadata?.name).toBe("two");
      expect(f.stats.sessions).toBe(2);
    } finally {
      client.close();
    }
  });

  it("answers errors with the server's Status, and fails a refused dial as a NetworkError", async () => {
    const f = await serveH2(250, (_req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: 'pods "x" not found', reason: "NotFound", code: 404 }));
      return true;
    });
    const client = createClient(f.config, { qps: 0 });
    try {
      await expect(client.pods.get("x", { namespace: "default" })).rejects.toMatchObject({ code: 404, reason: "NotFound", message: 'pods "x" not found' });
    } finally {
      client.close();
    }
    const port = (f.server.address() as AddressInfo).port;
    closeServer?.();
    closeServer = undefined;
    await new Promise((r) => f.server.once("close", r));
    const gone = createClient({ ...f.config, server: `https://127.0.0.1:${String(port)}` }, { qps: 0 });
    try {
      await expect(gone.pods.get("x", { namespace: "default" })).rejects.toMatchObject({ code: "NetworkError", message: expect.stringContaining("ECONNREFUSED") as string });
    } finally {
      gone.close();
    }
  });

  it("fails a request whose stream the server resets before answering (CANCEL), instead of waiting forever", async () => {
    const f = await serveH2(250, (req) => {
      req.stream.close(http2Constants.NGHTTP2_CANCEL);
      return true;
    });
    const client = createClient(f.config, { qps: 0 });
    try {
      await expect(client.pods.get("x", { namespace: "default" })).rejects.toMatchObject({ code: "NetworkError", message: expect.stringContaining("stream closed before a response (RST_STREAM code 8)") as string });
      // Not sent again: the server may have acted on it.
      expect(f.stats.versions).toEqual(["2.0"]);
    } finally {
      client.close();
    }
  });

  it("refuses a server whose certificate the CA did not sign, as over HTTP/1.1", async () => {
    const f = await serveH2();
    const other = mkdtempSync(join(tmpdir(), "skiff-client-h2-ca-"));
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=other", "-days", "1", "-keyout", join(other, "k.pem"), "-out", join(other, "c.pem")], { stdio: "ignore" });
      const client = createClient({ ...f.config, caPEM: readFileSync(join(other, "c.pem"), "utf8") }, { qps: 0 });
      try {
        await expect(client.pods.get("x", { namespace: "default" })).rejects.toMatchObject({ code: "NetworkError" });
        expect(f.stats.versions).toEqual([]);
      } finally {
        client.close();
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("uses HTTP/1.1 with a server that does not offer h2", async () => {
    const versions: string[] = [];
    const server: HttpsServer = createHttpsServer(tls, (req, res) => {
      versions.push(req.httpVersion);
      res.setHeader("content-type", "application/json");
      res.end(pod(new URL(req.url ?? "/", "https://x").pathname.split("/").pop() ?? ""));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closeServer = () => {
      server.closeAllConnections();
      server.close();
    };
    const client = createClient({ server: `https://127.0.0.1:${String((server.address() as AddressInfo).port)}`, caPEM: tls.cert, insecureSkipTLSVerify: false } as ClusterConfig, { qps: 0 });
    try {
      expect((await client.pods.get("a", { namespace: "default" })).metadata?.name).toBe("a");
      expect((await client.pods.get("b", { namespace: "default" })).metadata?.name).toBe("b");
      expect(versions).toEqual(["1.1", "1.1"]);
    } finally {
      client.close();
    }
  });
});
