import { EventEmitter } from "node:events";
import { request as httpsRequest } from "node:https";
import { createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { armDialDeadlines } from "./dial-deadlines.js";
import { ConnectionPool } from "./transport.js";

// A socket double for the timer logic alone (a real socket cannot be made to hang in TCP connect
// on loopback); the TLS case below uses a real socket and a real silent server.
class FakeSocket extends EventEmitter {
  destroyedWith: Error | undefined;
  keepAlive: [boolean, number] | undefined;
  destroy(err?: Error): void {
    this.destroyedWith = err;
    this.emit("close");
  }
  setKeepAlive(on: boolean, ms: number): void {
    this.keepAlive = [on, ms];
  }
}

describe("armDialDeadlines", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("destroys a socket whose TCP connect takes longer than the connect deadline (default 30 s)", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const s = new FakeSocket();
    armDialDeadlines(s as unknown as Socket, "api:6443", false);
    vi.advanceTimersByTime(29_999);
    expect(s.destroyedWith).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(s.destroyedWith?.message).toBe("dial api:6443: no TCP connection within 30000 ms");
  });

  it("once connected: keep-alive after 30 s idle, and over TLS the handshake deadline starts; secureConnect or close clears it", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const plain = new FakeSocket();
    armDialDeadlines(plain as unknown as Socket, "api:80", false, { connectTimeoutMs: 100 });
    plain.emit("connect");
    vi.advanceTimersByTime(60_000);
    expect(plain.destroyedWith).toBeUndefined();
    expect(plain.keepAlive).toEqual([true, 30_000]);

    const slow = new FakeSocket();
    armDialDeadlines(slow as unknown as Socket, "api:6443", true, { handshakeTimeoutMs: 500 });
    vi.advanceTimersByTime(20_000);
    slow.emit("connect");
    vi.advanceTimersByTime(500);
    expect(slow.destroyedWith?.message).toBe("dial api:6443: TLS handshake timeout (500 ms)");

    const done = new FakeSocket();
    armDialDeadlines(done as unknown as Socket, "api:6443", true, { handshakeTimeoutMs: 500 });
    done.emit("connect");
    done.emit("secureConnect");
    vi.advanceTimersByTime(60_000);
    expect(done.destroyedWith).toBeUndefined();

    const closed = new FakeSocket();
    armDialDeadlines(closed as unknown as Socket, "api:6443", true);
    closed.emit("close");
    vi.advanceTimersByTime(60_000);
    expect(closed.destroyedWith).toBeUndefined();
  });

  it("the pool's HTTP/1.1 agent fails a request whose TLS handshake never ends after 10 s (a real socket and a silent server)", async () => {
    const sockets: Socket[] = [];
    const server = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const pool = new ConnectionPool({ server: `https://127.0.0.1:${String(port)}`, insecureSkipTLSVerify: true });
    try {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      let connected = false;
      const failed = new Promise<Error>((resolve) => {
        const req = httpsRequest({ host: "127.0.0.1", port, path: "/", agent: pool.agent }, () => resolve(new Error("unexpected response")));
        req.on("socket", (s) => s.once("connect", () => (connected = true)));
        req.on("error", resolve);
        req.end();
      });
      // The handshake deadline starts at the client's TCP connect.
      await vi.waitFor(() => expect(connected).toBe(true), { timeout: 5_000, interval: 10 });
      vi.advanceTimersByTime(10_000);
      expect((await failed).message).toBe(`dial 127.0.0.1:${String(port)}: TLS handshake timeout (10000 ms)`);
    } finally {
      vi.useRealTimers();
      pool.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
