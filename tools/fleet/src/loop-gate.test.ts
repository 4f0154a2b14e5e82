import { afterEach, describe, expect, it } from "vitest";
import { LoopDelayGate } from "./loop-gate.js";

const gates: LoopDelayGate[] = [];
afterEach(() => {
  for (const g of gates.splice(0)) g.close();
});
const newGate = (...a: ConstructorParameters<typeof LoopDelayGate>): LoopDelayGate => {
  const g = new LoopDelayGate(...a);
  gates.push(g);
  return g;
};

/** Blocks the event loop for `ms` (work that keeps the loop from its timers). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

describe("LoopDelayGate", () => {
  it("admits at once while the loop keeps up", async () => {
    const g = newGate({ tickMs: 5, maxDelayMs: 10_000 });
    await new Promise((r) => setTimeout(r, 30));
    await Promise.all(Array.from({ length: 100 }, () => g.admit()));
    expect(g.stats()).toMatchObject({ admitted: 100, queued: 0 });
  });

  it("holds work back after the loop ran late, lets it through in order as the loop catches up, and halves the batch while late", async () => {
    const g = newGate({ tickMs: 5, maxDelayMs: 20, maxBatch: 4 });
    await new Promise((r) => setTimeout(r, 20));
    busy(80); // the next tick fires ~75 ms late
    await new Promise((r) => setTimeout(r, 0));
    const order: number[] = [];
    const all = Array.from({ length: 20 }, (_, i) => g.admit().then(() => order.push(i)));
    expect(g.stats().queued).toBe(20);
    // While each admitted piece of work keeps the loop late, few go through per tick.
    const released: number[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 5));
      released.push(order.length);
      busy(30);
    }
    expect(released[2]).toBeLessThan(12);
    await Promise.all(all);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(g.stats().peakQueue).toBe(20);
    expect(g.stats().maxDelayMs).toBeGreaterThan(20);
  });

  it("lets every waiter through at once when closed", async () => {
    const g = newGate({ tickMs: 5, maxDelayMs: 1 });
    await new Promise((r) => setTimeout(r, 20));
    busy(40);
    await new Promise((r) => setTimeout(r, 0));
    let done = 0;
    const waiting = Array.from({ length: 50 }, () => g.admit().then(() => done++));
    expect(g.stats().queued).toBe(50);
    g.close();
    // No timer runs between here and the check: only the close let them through.
    for (let i = 0; i < 3; i++) await Promise.resolve();
    expect(done).toBe(50);
    await Promise.all(waiting);
    await expect(g.admit()).resolves.toBeUndefined();
  });
});
