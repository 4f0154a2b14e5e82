// The HTTP server's own timeouts, measured on real loopback connections. Short values keep the
// test fast; the check is that each fires within a second of its value (Node's default 30 s
// connection check made a 32 s header timeout fire after up to 62 s).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStorage } from "@skiff/storage";
import { alwaysAllowAuthorizer } from "../auth/auth.js";
import type { Authenticator } from "../auth/auth.js";
import type { RequestLimits } from "../filters/filters.js";
import { createAPIServer } from "./server.js";
import type { APIServer } from "./server.js";

const auth: Authenticator = (req) => (req.headers["authorization"] === "Bearer good" ? { username: "alice", groups: ["system:authenticated"] } : null);

let server: APIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(limits: RequestLimits, tls?: { cert: string; key: string }): Promise<number> {
  server = createAPIServer({ strategies: [], storage: new MemoryStorage(), authenticator: auth, authorizer: alwaysAllowAuthorizer, limits, ...(tls ? { tls } : { insecureHTTP: true }) });
  const url = await server.listen({ host: "127.0.0.1", port: 0 });
  return Number(new URL(url).port);
}

/** Opens a connection, runs `send` on it, and resolves with what came back and when the server closed it. */
function probe(port: number, send: (write: (s: string) => void) => void): Promise<{ closedAfterMs: number; received: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("connect", () => send((s) => socket.write(s)));
    socket.on("data", (d: Buffer) => (received += d.toString()));
    socket.on("error", reject);
    socket.on("close", () => resolve({ closedAfterMs: Date.now() - started, received }));
    socket.setTimeout(15_000, () => {
      socket.destroy();
      reject(new Error("the server never closed the connection"));
    });
  });
}

const get = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

describe("HTTP server timeouts", () => {
  it("defaults: 32 s header, 90 s idle, request-timeout + 30 s request read, checked every 250 ms", async () => {
    await start({});
    const srv = server!.app.server as Server & { connectionsCheckingInterval?: number; keepAliveTimeoutBuffer?: number };
    const buffer = srv.keepAliveTimeoutBuffer ?? 1000;
    expect([srv.headersTimeout, srv.requestTimeout, srv.keepAliveTimeout + buffer]).toEqual([32_000, 90_000, 90_000]);
    expect(srv.connectionsCheckingInterval).toBe(250);
  });

  it("closes a connection whose headers are not complete after readHeaderTimeoutMs, without an answer (Go's ReadHeaderTimeout)", async () => {
    const port = await start({ readHeaderTimeoutMs: 2000, idleTimeoutMs: 5000, requestReadTimeoutMs: 6000 });
    const [silent, partial, trickle, second] = await Promise.all([
      probe(port, () => undefined),
      probe(port, (w) => w("GET /healthz HTTP/1.1\r\nHost: x\r\n")),
      // One header line every 300 ms: never complete, always sending.
      probe(port, (w) => {
        w("GET /healthz HTTP/1.1\r\n");
        const t = setInterval(() => {
          try {
            w("X-Slow: 1\r\n");
          } catch {
            clearInterval(t);
          }
        }, 300);
        setTimeout(() => clearInterval(t), 4000);
      }),
      // A keep-alive connection: the header timeout of its second request counts from that request.
      probe(port, (w) => {
        w(get);
        setTimeout(() => w("GET /healthz HTTP/1.1\r\n"), 1000);
      }),
    ]);
    for (const r of [silent, partial, trickle]) {
      expect(r.closedAfterMs).toBeGreaterThanOrEqual(1950);
      expect(r.closedAfterMs).toBeLessThan(3000);
      expect(r.received).toBe("");
    }
    expect(second.received).toMatch(/^HTTP\/1\.1 404 Not Found/);
    expect(second.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(second.closedAfterMs).toBeGreaterThanOrEqual(2950);
    expect(second.closedAfterMs).toBeLessThan(4000);
  });

  it("closes a keep-alive connection idle for idleTimeoutMs (Go's IdleTimeout)", async () => {
    const port = await start({ readHeaderTimeoutMs: 5000, idleTimeoutMs: 2000 });
    const r = await probe(port, (w) => w(get));
    expect(r.received).toMatch(/^HTTP\/1\.1 404 Not Found/);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(1950);
    expect(r.closedAfterMs).toBeLessThan(3000);
  });

  it("answers 408 Timeout and closes when a body does not arrive within requestReadTimeoutMs", async () => {
    const port = await start({ readHeaderTimeoutMs: 1000, idleTimeoutMs: 5000, requestReadTimeoutMs: 2000 });
    const r = await probe(port, (w) =>
      w("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"),
    );
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(1950);
    expect(r.closedAfterMs).toBeLessThan(3000);
    expect(r.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(r.received).toContain('"reason":"Timeout"');
  });

  it("closes a connection whose TLS handshake is not done after readHeaderTimeoutMs (Go's tlsHandshakeTimeout), without an answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-tls-"));
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
      const port = await start({ readHeaderTimeoutMs: 2000, idleTimeoutMs: 5000, requestReadTimeoutMs: 6000 }, { cert: readFileSync(join(dir, "c.pem"), "utf8"), key: readFileSync(join(dir, "k.pem"), "utf8") });
      const r = await probe(port, () => undefined);
      expect(r.closedAfterMs).toBeGreaterThanOrEqual(1950);
      expect(r.closedAfterMs).toBeLessThan(3000);
      expect(r.received).toBe("");
      // The HTTPS server checks its header and request read timeouts as often as the HTTP one.
      expect((server!.app.server as Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval).toBe(250);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
