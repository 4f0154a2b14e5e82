import { createServer, request } from "node:http";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { watchSink, watchWriteBufferBytes } from "./watch-sink.js";
import type { WatchSink } from "../handlers/response.js";

describe("watchSink (real HTTP on loopback)", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  // A watch response whose client reads the headers and then stops reading.
  async function stalledWatch(): Promise<{ sink: WatchSink; pending: () => number; resume: () => Promise<number> }> {
    let sink: WatchSink | undefined;
    let raw: { writableLength: number } | undefined;
    const server = createServer((req, res) => {
      raw = res;
      sink = watchSink(req, res);
      sink.start("application/json");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanups.push(() => server.close());
    const { port } = server.address() as AddressInfo;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/watch" }, resolve);
      req.on("error", reject);
      req.end();
    });
    response.pause();
    cleanups.push(() => response.destroy());
    return {
      sink: sink as WatchSink,
      pending: () => (raw as { writableLength: number }).writableLength,
      resume: () =>
        new Promise<number>((resolve) => {
          let bytes = 0;
          response.on("data", (c: Buffer) => (bytes += c.length));
          response.resume();
          setTimeout(() => resolve(bytes), 200);
        }),
    };
  }

  it(`writes on while fewer than ${watchWriteBufferBytes / 1024} KiB wait for the socket (not the socket's 16 KiB high-water mark), then waits for the client to read`, async () => {
    const { sink, pending, resume } = await stalledWatch();
    const line = `${JSON.stringify({ type: "ADDED", object: { pad: "x".repeat(4000) } })}\n`;
    let blocked: Promise<void> | undefined;
    let resolvedAtOnce = 0;
    // The client reads nothing: the kernel's socket buffers fill, then the process's.
    for (let i = 0; i < 100_000 && blocked === undefined; i++) {
      const w = sink.write(line);
      const first = await Promise.race([w.then(() => "written" as const), new Promise<"waiting">((r) => setTimeout(() => r("waiting"), 50))]);
      if (first === "waiting") blocked = w;
      else resolvedAtOnce++;
    }
    expect(blocked).toBeDefined();
    // It waited only once the bytes held in the process reached the bound.
    expect(pending()).toBeGreaterThanOrEqual(watchWriteBufferBytes);
    expect(pending()).toBeLessThan(watchWriteBufferBytes + 2 * line.length + 64);
    expect(resolvedAtOnce).toBeGreaterThan(watchWriteBufferBytes / line.length);
    // The client reads: the waiting write resolves.
    expect(await resume()).toBeGreaterThan(watchWriteBufferBytes);
    await blocked;
    sink.end();
  });

  it("a write waiting for the socket resolves when the client goes; later writes return at once", async () => {
    const { sink } = await stalledWatch();
    const line = `${"y".repeat(8000)}\n`;
    let waiting: Promise<void> | undefined;
    for (let i = 0; i < 100_000 && waiting === undefined; i++) {
      const w = sink.write(line);
      if ((await Promise.race([w.then(() => 1), new Promise<0>((r) => setTimeout(() => r(0), 50))])) === 0) waiting = w;
    }
    expect(waiting).toBeDefined();
    for (const c of cleanups.splice(0)) c();
    await waiting;
    await new Promise((r) => setTimeout(r, 50));
    expect(sink.closed).toBe(true);
    await sink.write(line);
  });
});
