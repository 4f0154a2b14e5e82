import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Duplex } from "node:stream";
import { createServer as createTLSServer } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { dialUpgradeBackend, goDialError, pipeBoth } from "./upgrade-aware.js";

/** A Duplex whose reads the test pushes, whose writes are recorded and complete when `hold` is off. */
function end(hold = false) {
  const written: Buffer[] = [];
  const pending: Array<() => void> = [];
  const d = new Duplex({
    read() {},
    writev(chunks, cb) {
      for (const c of chunks) written.push(c.chunk as Buffer);
      if (hold) pending.push(() => cb());
      else cb();
    },
    write(chunk: Buffer, _enc, cb) {
      written.push(chunk);
      if (hold) pending.push(() => cb());
      else cb();
    },
  });
  let pauses = 0;
  const pause = d.pause.bind(d);
  d.pause = () => {
    pauses++;
    return pause();
  };
  return { d, written, pending, pauses: () => pauses };
}

const tick = () => new Promise((r) => setImmediate(r));
const limits = { idleTimeoutMs: 0, maxDurationMs: 0 };

describe("pipeBoth", () => {
  it("copies 64 KiB reads in order without pausing the source while the destination takes them at once", async () => {
    const client = end();
    const backend = end();
    pipeBoth(client.d, backend.d, limits);
    const chunks = Array.from({ length: 16 }, (_, i) => Buffer.alloc(64 * 1024, i));
    for (const c of chunks) {
      backend.d.push(c);
      await tick();
    }
    expect(Buffer.concat(client.written).equals(Buffer.concat(chunks))).toBe(true);
    expect(backend.pauses()).toBe(0);
  });

  it("pauses the source while the destination holds bytes, and resumes it once they drain", async () => {
    const client = end(true);
    const backend = end();
    pipeBoth(client.d, backend.d, limits);
    backend.d.push(Buffer.alloc(64 * 1024, 1));
    await tick();
    expect(backend.d.isPaused()).toBe(true);
    for (const release of client.pending.splice(0)) release();
    await tick();
    expect(backend.d.isPaused()).toBe(false);
    backend.d.push(Buffer.alloc(10, 2));
    await tick();
    expect(Buffer.concat(client.written).length).toBe(64 * 1024 + 10);
  });
});

describe("goDialError", () => {
  it("words errno failures as Go's net package does, and keeps other messages", () => {
    expect(goDialError("10.0.0.1", 10250, Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:10250"), { code: "ECONNREFUSED" }))).toBe("dial tcp 10.0.0.1:10250: connect: connection refused");
    expect(goDialError("::1", 1, Object.assign(new Error("x"), { code: "EHOSTUNREACH" }))).toBe("dial tcp [::1]:1: connect: no route to host");
    expect(goDialError("h", 1, new Error("something else"))).toBe("something else");
  });
});

describe("dialUpgradeBackend and pipeBoth over real sockets", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  it("relays a 24 MiB TLS download and an upload through a plain front socket byte for byte", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skiff-upgrade-aware-"));
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
      const data = Buffer.alloc(24 << 20);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7919 + (i >> 13)) & 0xff;
      const uploaded = createHash("sha256");
      let uploadedBytes = 0;
      // The backend: sends `data` once it has read the 3 MiB upload.
      const backendServer = createTLSServer({ key: readFileSync(join(dir, "k.pem")), cert: readFileSync(join(dir, "c.pem")) }, (s) => {
        s.on("data", (c: Buffer) => {
          uploaded.update(c);
          uploadedBytes += c.length;
          if (uploadedBytes === 3 << 20) s.end(data);
        });
      });
      servers.push(backendServer);
      await new Promise<void>((r) => backendServer.listen(0, "127.0.0.1", r));
      const backendPort = (backendServer.address() as AddressInfo).port;
      // The front: each connection is relayed to the backend.
      const front = createServer((client) => {
        void dialUpgradeBackend({ host: "127.0.0.1", port: backendPort, tls: {} }).then((backend) => pipeBoth(client, backend), () => client.destroy());
      });
      servers.push(front);
      await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
      const upload = Buffer.alloc(3 << 20, 0x5a);
      const received = createHash("sha256");
      let receivedBytes = 0;
      await new Promise<void>((resolve, reject) => {
        const c: Socket = createConnection((front.address() as AddressInfo).port);
        c.on("data", (d: Buffer) => {
          received.update(d);
          receivedBytes += d.length;
        });
        c.on("end", () => resolve());
        c.on("error", reject);
        c.write(upload);
      });
      expect(uploadedBytes).toBe(upload.length);
      expect(uploaded.digest("hex")).toBe(createHash("sha256").update(upload).digest("hex"));
      expect(receivedBytes).toBe(data.length);
      expect(received.digest("hex")).toBe(createHash("sha256").update(data).digest("hex"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails a refused dial with Go's wording", async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    await expect(dialUpgradeBackend({ host: "127.0.0.1", port, tls: {} })).rejects.toThrow(`error dialing backend: dial tcp 127.0.0.1:${port}: connect: connection refused`);
    await expect(dialUpgradeBackend({ host: "127.0.0.1", port })).rejects.toThrow(`error dialing backend: dial tcp 127.0.0.1:${port}: connect: connection refused`);
  });

  it("fails a backend that never completes the TLS handshake after the connect timeout", async () => {
    const accepted: Socket[] = [];
    const silent = createServer((s) => accepted.push(s));
    servers.push(silent);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as AddressInfo).port;
    await expect(dialUpgradeBackend({ host: "127.0.0.1", port, tls: {}, connectTimeoutMs: 200 })).rejects.toThrow(`error dialing backend: dial tcp 127.0.0.1:${port}: i/o timeout`);
    for (const s of accepted) s.destroy();
  });
});
