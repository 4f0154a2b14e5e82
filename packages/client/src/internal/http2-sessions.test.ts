import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createSecureServer } from "node:http2";
import { createServer, connect } from "node:net";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { Http2Sessions, Http2UnsentError } from "./http2-sessions.js";

// The PING health check of the client's HTTP/2 connections, through a TCP proxy that can stop
// forwarding: a connection that died without a FIN or RST (a peer gone, a partition).
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A self-signed certificate for CN=localhost in a temp dir removed after the test. */
function certificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "skiff-h2-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
  return { cert: readFileSync(join(dir, "c.pem"), "utf8"), key: readFileSync(join(dir, "k.pem"), "utf8") };
}

describe("Http2Sessions lifecycle", () => {
  it("closing while a connection is being set up throws nothing later (a session destroyed before its connect event)", async () => {
    const { cert, key } = certificate();
    const server = createSecureServer({ cert, key }, (_req, res) => res.end("ok"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanups.push(() => server.close());
    const url = new URL(`https://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown): void => void uncaught.push(e);
    process.on("uncaughtException", onUncaught);
    cleanups.push(() => process.off("uncaughtException", onUncaught));
    const outcomes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const sessions = new Http2Sessions(url, { secureContext: createSecureContext({ ca: cert }), rejectUnauthorized: true, servername: "localhost" });
      const pending = sessions.request("GET", "/", {}, undefined, undefined).then(
        (r) => (r?.body.resume(), "answered"),
        (e: Error) => e.message,
      );
      // Close at every point of the dial: before the TLS handshake ends, just after, or later.
      await new Promise((r) => setTimeout(r, i % 8));
      sessions.close();
      outcomes.add(await pending);
      await new Promise((r) => setImmediate(r));
    }
    expect(uncaught).toEqual([]);
    expect(outcomes.size).toBeGreaterThan(0);
  });
});

describe("Http2Sessions dial deadlines", () => {
  it("fails every request waiting on a dial whose TLS handshake never ends (a server that accepts and stays silent), then dials again", async () => {
    const sockets: Socket[] = [];
    const server = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      server.close();
    });
    const url = new URL(`https://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    const sessions = new Http2Sessions(url, { secureContext: createSecureContext(), rejectUnauthorized: true, servername: "localhost" }, { pingIntervalMs: 30_000, pingTimeoutMs: 15_000, handshakeTimeoutMs: 200 });
    cleanups.push(() => sessions.close());
    const attempt = () => sessions.request("GET", "/", {}, undefined, undefined).then(() => "answered", (e: Error) => e.message);
    const started = Date.now();
    expect(await Promise.all([attempt(), attempt()])).toEqual(["dial 127.0.0.1:" + url.port + ": TLS handshake timeout (200 ms)", "dial 127.0.0.1:" + url.port + ": TLS handshake timeout (200 ms)"]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(sockets).toHaveLength(1);
    expect(await attempt()).toMatch(/TLS handshake timeout/);
    expect(sockets).toHaveLength(2);
  });
});

describe("Http2Sessions health check", () => {
  it("closes a connection whose PING goes unanswered, failing its open streams; the next request dials again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-h2-ping-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
    const cert = readFileSync(join(dir, "c.pem"), "utf8");
    const server = createSecureServer({ cert, key: readFileSync(join(dir, "k.pem"), "utf8") }, (req, res) => {
      res.writeHead(200);
      if (req.url === "/watch") res.write("open\n"); // and stays open
      else res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanups.push(() => server.close());
    // A proxy whose connections can be frozen: bytes stop flowing both ways, nothing is closed.
    let frozen = false;
    const pairs: Socket[] = [];
    const proxy = createServer((client) => {
      const upstream = connect((server.address() as AddressInfo).port, "127.0.0.1");
      pairs.push(client, upstream);
      client.on("data", (d: Buffer) => void (frozen || upstream.write(d)));
      upstream.on("data", (d: Buffer) => void (frozen || client.write(d)));
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    cleanups.push(() => {
      for (const p of pairs) p.destroy();
      proxy.close();
    });
    const url = new URL(`https://127.0.0.1:${String((proxy.address() as AddressInfo).port)}`);
    const sessions = new Http2Sessions(url, { secureContext: createSecureContext({ ca: cert }), rejectUnauthorized: true, servername: "localhost" }, { pingIntervalMs: 100, pingTimeoutMs: 300 });
    cleanups.push(() => sessions.close());

    const watch = await sessions.request("GET", "/watch", {}, undefined, undefined);
    expect(watch?.statusCode).toBe(200);
    const it = watch!.body[Symbol.asyncIterator]();
    expect(String((await it.next()).value)).toBe("open\n");
    // Healthy: PINGs are answered, the watch stays open past several periods.
    await new Promise((r) => setTimeout(r, 600));
    frozen = true;
    const started = Date.now();
    await expect(it.next()).rejects.toThrow(/no answer to PING within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
    frozen = false;
    const again = await sessions.request("GET", "/", {}, undefined, undefined);
    expect(again?.statusCode).toBe(200);
    expect(pairs.length).toBe(4);
  });
});

describe("Http2Sessions after a connection reset", () => {
  it("sends a cut GET again but fails a cut POST: a sent write may have reached the server", async () => {
    const { cert, key } = certificate();
    const seen: string[] = [];
    const server = createSecureServer({ cert, key }, (req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === "/hang") return; // never answered: the connection is reset under it
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanups.push(() => server.close());
    // A proxy whose client-side sockets can be reset (RST): the client reads ECONNRESET.
    const clientSides: Socket[] = [];
    const proxy = createServer((client) => {
      const upstream = connect((server.address() as AddressInfo).port, "127.0.0.1");
      clientSides.push(client);
      client.pipe(upstream).pipe(client);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    cleanups.push(() => {
      for (const s of clientSides) s.destroy();
      proxy.close();
    });
    const url = new URL(`https://127.0.0.1:${String((proxy.address() as AddressInfo).port)}`);
    const sessions = new Http2Sessions(url, { secureContext: createSecureContext({ ca: cert }), rejectUnauthorized: true, servername: "localhost" });
    cleanups.push(() => sessions.close());

    const first = await sessions.request("GET", "/", {}, undefined, undefined);
    first?.body.resume();
    // Both reach the server on the now reused connection; then it is reset.
    const get = sessions.request("GET", "/hang", {}, undefined, undefined).then(
      () => "answered",
      (e: unknown) => e,
    );
    const post = sessions.request("POST", "/hang", { "content-type": "application/json" }, "{}", undefined).then(
      () => "answered",
      (e: unknown) => e,
    );
    for (let i = 0; i < 200 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.sort()).toEqual(["GET /", "GET /hang", "POST /hang"]);
    clientSides[0]!.resetAndDestroy();
    const [g, p] = await Promise.all([get, post]);
    expect(g).toBeInstanceOf(Http2UnsentError);
    expect((g as Http2UnsentError).error).toMatchObject({ code: "ECONNRESET" });
    expect(p).not.toBeInstanceOf(Http2UnsentError);
    expect(p).toMatchObject({ code: "ECONNRESET" });
  });
});
