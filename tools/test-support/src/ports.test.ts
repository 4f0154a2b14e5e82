import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, freePortRange } from "./ports.js";

const ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });
}

describe("freePort", () => {
  it("hands out distinct ports below the kernel's ephemeral range that can be listened on", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(20);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(11_000);
      expect(p).toBeLessThan(ephemeralLow);
    }
    const s = await listen(ports[19] ?? 0);
    await new Promise((r) => s.close(r));
  });

  it("skips a port another server listens on", async () => {
    const p = await freePort();
    // The walk goes upwards: hold the next two numbers (unless the walk wraps here).
    const held = await Promise.all([listen(p + 1), listen(p + 2)].map((x) => x.catch(() => undefined)));
    try {
      const q = await freePort();
      for (const s of held) if (s) expect(q).not.toBe((s.address() as { port: number }).port);
      await listen(q).then((s) => new Promise((r) => s.close(r)));
    } finally {
      for (const s of held) if (s) await new Promise((r) => s.close(r));
    }
  });
});

describe("freePortRange", () => {
  it("hands out a run of free ports that overlaps no port handed out before", async () => {
    const single = await freePort();
    const first = await freePortRange(3);
    expect([first, first + 1, first + 2]).not.toContain(single);
    const next = await freePort();
    expect([first, first + 1, first + 2]).not.toContain(next);
    for (const p of [first, first + 1, first + 2]) await listen(p).then((s) => new Promise((r) => s.close(r)));
    await expect(freePortRange(0)).rejects.toThrow(RangeError);
  });
});
