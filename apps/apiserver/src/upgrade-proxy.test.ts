import { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { pipeBoth } from "./upgrade-proxy.js";

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
