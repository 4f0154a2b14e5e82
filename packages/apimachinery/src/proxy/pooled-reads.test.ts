import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createServer as createTLSServer } from "node:tls";
import type { TLSSocket } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectWithLargeReads, releaseLargeRead, tlsConnectWithPooledReads } from "./pooled-reads.js";

const servers: Array<Pick<Server, "close">> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that runs `onConnection` for each connection; resolves with its port. */
async function serve(onConnection: (s: Socket) => void): Promise<number> {
  const server = createServer(onConnection);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

function pattern(bytes: number): Buffer {
  const b = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i++) b[i] = (i * 7919 + (i >> 16)) & 0xff;
  return b;
}

/**
 * A consumer with a 1 KiB high-water mark that hashes and counts what it gets and hands each
 * chunk (and its 1-based number) to `each`, which calls `cb` when the chunk is done.
 */
function hashingConsumer(each: (chunk: Buffer, n: number, cb: () => void) => void): { writable: Writable; received: () => number; hash: () => string } {
  const hash = createHash("sha256");
  let received = 0;
  let n = 0;
  const writable = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      received += chunk.length;
      each(chunk, ++n, () => cb());
    },
  });
  return { writable, received: () => received, hash: () => hash.digest("hex") };
}

/**
 * Reads `sock` to its end through a hashing consumer that releases each chunk once consumed, as a
 * relay does from its write's callback (every `lateEvery`th chunk a millisecond later); checks
 * every byte of `data` arrived in order. Resolves with the memories of chunks of `viewBytes` or more.
 */
async function drainReleasing(sock: Socket, data: Buffer, viewBytes: number, lateEvery: number): Promise<Set<ArrayBufferLike>> {
  const memories = new Set<ArrayBufferLike>();
  const consumer = hashingConsumer((chunk, n, cb) => {
    if (chunk.length >= viewBytes) memories.add(chunk.buffer);
    const done = () => {
      releaseLargeRead(chunk);
      cb();
    };
    if (n % lateEvery === 0) setTimeout(done, 1);
    else done();
  });
  await pipeline(sock, consumer.writable);
  expect(consumer.received()).toBe(data.length);
  expect(consumer.hash()).toBe(createHash("sha256").update(data).digest("hex"));
  return memories;
}

describe("connectWithLargeReads", () => {
  it("delivers every byte in order and then ends, through pipe() with a slow consumer (backpressure)", async () => {
    const data = pattern(24 << 20);
    const port = await serve((s) => s.end(data));
    const sock = connectWithLargeReads({ host: "127.0.0.1", port });
    let largest = 0;
    const slow = hashingConsumer((chunk, n, cb) => {
      largest = Math.max(largest, chunk.length);
      // Every 8th chunk completes later: the socket must stop reading meanwhile and go on after.
      if (n % 8 === 0) setTimeout(cb, 5);
      else cb();
    });
    await pipeline(sock, slow.writable);
    expect(slow.received()).toBe(data.length);
    expect(slow.hash()).toBe(createHash("sha256").update(data).digest("hex"));
    // Reads larger than Node's default 64 KiB happen (the kernel queues more while the consumer waits).
    expect(largest).toBeGreaterThan(64 * 1024);
  });

  it("reuses the memory of released chunks: a long transfer reads into a few slabs, every byte intact", async () => {
    const data = pattern(96 << 20);
    const port = await serve((s) => s.end(data));
    const memories = await drainReleasing(connectWithLargeReads({ host: "127.0.0.1", port }), data, 64 * 1024, 3);
    // 96 MiB through 4 MiB slabs: 24 without reuse; with it, the pool of four.
    expect(memories.size).toBeGreaterThan(0);
    expect(memories.size).toBeLessThanOrEqual(4);
  });

  it("never reuses the memory of a chunk still held: unreleased chunks keep their bytes, repeated releases change nothing", async () => {
    const data = pattern(48 << 20);
    const port = await serve((s) => s.end(data));
    const sock = connectWithLargeReads({ host: "127.0.0.1", port });
    const held: Array<{ view: Buffer; copy: Buffer }> = [];
    let n = 0;
    sock.on("data", (chunk: Buffer) => {
      const i = chunk.length >= 64 * 1024 ? ++n : 0;
      if (i % 5 === 0 && i > 0) {
        held.push({ view: chunk, copy: Buffer.from(chunk) });
        return;
      }
      releaseLargeRead(chunk);
      // The chunk after a held one is released twice: the second must not count for the held one.
      if (i % 5 === 1) releaseLargeRead(chunk);
    });
    await new Promise((r) => sock.once("end", r));
    expect(held.length).toBeGreaterThan(0);
    for (const h of held) expect(h.view.equals(h.copy)).toBe(true);
  });

  it("copies small reads out, so a small chunk does not keep the 1 MiB read buffer alive", async () => {
    let peer: Socket | undefined;
    const port = await serve((s) => {
      peer = s;
    });
    const sock = connectWithLargeReads({ host: "127.0.0.1", port });
    await new Promise((r) => sock.once("connect", r));
    const chunks: Buffer[] = [];
    const first = new Promise((r) => sock.once("data", r));
    sock.on("data", (c: Buffer) => chunks.push(c));
    peer?.write("hello");
    await first;
    peer?.end("world");
    await new Promise((r) => sock.once("end", r));
    expect(Buffer.concat(chunks).toString()).toBe("helloworld");
    for (const c of chunks) expect(c.buffer.byteLength).toBeLessThan(64 * 1024);
  });

  it("reports a refused connection as an error event, as net.connect does", async () => {
    const port = await serve(() => undefined);
    await new Promise((r) => servers.pop()?.close(r));
    const sock = connectWithLargeReads({ host: "127.0.0.1", port });
    const err = await new Promise<NodeJS.ErrnoException>((r) => sock.once("error", r));
    expect(err.code).toBe("ECONNREFUSED");
  });

  it("refuses a read size below 64 KiB", () => {
    expect(() => connectWithLargeReads({ host: "127.0.0.1", port: 1 }, 1024)).toThrow(/at least 65536/);
  });
});

describe("tlsConnectWithPooledReads", () => {
  let dir = "";
  let tlsOptions: { key: string; cert: string } = { key: "", cert: "" };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "skiff-pooled-tls-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
    tlsOptions = { key: readFileSync(join(dir, "k.pem"), "utf8"), cert: readFileSync(join(dir, "c.pem"), "utf8") };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function serveTLS(onConnection: (s: TLSSocket) => void): Promise<number> {
    const server = createTLSServer(tlsOptions, onConnection);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return (server.address() as AddressInfo).port;
  }

  it("reads records into a few pooled slabs when chunks are released, every byte intact (slow consumer)", async () => {
    const data = pattern(32 << 20);
    const port = await serveTLS((s) => s.end(data));
    const memories = await drainReleasing(tlsConnectWithPooledReads({ host: "127.0.0.1", port, rejectUnauthorized: false }), data, 4096, 7);
    // 32 MiB through 256 KiB slabs: 128 without reuse; with it, at most the pool of four.
    expect(memories.size).toBeGreaterThan(0);
    expect(memories.size).toBeLessThanOrEqual(4);
  });

  it("never reuses a held chunk's memory, and copies small records out", async () => {
    const data = pattern(8 << 20);
    const port = await serveTLS((s) => {
      s.write("hi");
      setTimeout(() => s.end(data), 20);
    });
    const sock = tlsConnectWithPooledReads({ host: "127.0.0.1", port, rejectUnauthorized: false });
    const held: Array<{ view: Buffer; copy: Buffer }> = [];
    const chunks: Buffer[] = [];
    let n = 0;
    sock.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (++n % 5 === 0) held.push({ view: chunk, copy: Buffer.from(chunk) });
      else releaseLargeRead(chunk);
    });
    await new Promise((r) => sock.once("end", r));
    expect(chunks[0]?.toString()).toBe("hi");
    // Copied: its memory is Node's small-buffer pool (8 KiB), not a 256 KiB slab.
    expect(chunks[0]?.buffer.byteLength).toBeLessThanOrEqual(8192);
    expect(Buffer.concat(chunks.slice(1)).equals(data)).toBe(true);
    expect(held.length).toBeGreaterThan(10);
    for (const h of held) expect(h.view.equals(h.copy)).toBe(true);
  });
});
