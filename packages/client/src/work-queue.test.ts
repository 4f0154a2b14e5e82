import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock } from "./clock.js";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.js";
import { RateLimitingQueue } from "./work-queue.js";

const flush = () => new Promise((r) => setImmediate(r));

describe("RateLimitingQueue", () => {
  it("dedupes an item added twice while waiting and keeps FIFO order", async () => {
    const q = new RateLimitingQueue<string>({ clock: new FakeClock() });
    q.add("a");
    q.add("b");
    q.add("a");
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
    expect(q.len()).toBe(0);
  });

  it("re-queues an item added while processing only after done", async () => {
    const q = new RateLimitingQueue<string>({ clock: new FakeClock() });
    q.add("a");
    const item = await q.get();
    q.add("a");
    q.add("a");
    expect(q.len()).toBe(0); // not handed to a second worker
    q.done(item as string);
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.len()).toBe(0);
  });

  it("a waiting get resolves on add", async () => {
    const q = new RateLimitingQueue<string>({ clock: new FakeClock() });
    const p = q.get();
    q.add("x");
    expect(await p).toBe("x");
    // it is processing now: a second add waits for done
    q.add("x");
    let second: string | undefined;
    void q.get().then((v) => (second = v));
    await flush();
    expect(second).toBeUndefined();
    q.done("x");
    await flush();
    expect(second).toBe("x");
  });

  it("addAfter delays; the earlier of two delays wins", async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addAfter("a", 100);
    q.addAfter("a", 50);
    q.addAfter("a", 500);
    q.addAfter("b", 0);
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe("b");
    clock.advance(49);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    clock.advance(1000);
    expect(q.len()).toBe(1); // not added twice
  });

  it("addRateLimited backs off exponentially per item; forget resets", () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000) });
    q.addRateLimited("a");
    expect(q.numRequeues("a")).toBe(1);
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    q.addRateLimited("b");
    q.addRateLimited("b");
    expect(q.numRequeues("b")).toBe(2);
    q.forget("b");
    expect(q.numRequeues("b")).toBe(0);
  });

  it("shutDown ignores adds, drops delayed items, drains then resolves undefined", async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.add("a");
    q.addAfter("later", 10);
    q.shutDown();
    q.add("b");
    clock.advance(100);
    expect(q.isShuttingDown()).toBe(true);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBeUndefined();
  });

  it("shutDown wakes idle getters", async () => {
    const q = new RateLimitingQueue<string>({ clock: new FakeClock() });
    const p = Promise.all([q.get(), q.get()]);
    q.shutDown();
    expect(await p).toEqual([undefined, undefined]);
  });

  it("never hands one item to two workers (random operation sequences)", async () => {
    const q = new RateLimitingQueue<number>({ clock: new FakeClock() });
    const inFlight = new Set<number>();
    let processed = 0;
    for (let i = 0; i < 200; i++) q.add(i % 7);
    const worker = async () => {
      for (;;) {
        const item = await q.get();
        if (item === undefined) return;
        expect(inFlight.has(item)).toBe(false);
        inFlight.add(item);
        await flush();
        if (processed++ < 30) q.add(item);
        inFlight.delete(item);
        q.done(item);
      }
    };
    const workers = [worker(), worker(), worker()];
    while (processed < 30 || q.len() > 0) await flush();
    q.shutDown();
    await Promise.all(workers);
  });

  it("priorityOf hands out higher priorities first and equal ones in arrival order", async () => {
    const priority = new Map<string, number>([["low", 0], ["high", 10], ["mid", 5], ["high2", 10]]);
    const q = new RateLimitingQueue<string>({ clock: new FakeClock(), priorityOf: (k) => priority.get(k) ?? 0 });
    for (const k of ["low", "high", "mid", "high2", "high"]) q.add(k);
    expect(q.len()).toBe(4);
    const out: Array<string | undefined> = [];
    for (let i = 0; i < 4; i++) out.push(await q.get());
    expect(out).toEqual(["high", "high2", "mid", "low"]);
    // re-added after done: it queues behind its equals already waiting
    q.add("x");
    q.add("high");
    q.done("high");
    q.add("high");
    expect(await q.get()).toBe("high");
    expect(await q.get()).toBe("x");
  });

  it("priorityOf orders any sequence as a stable sort by descending priority", async () => {
    fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: -3, max: 3 })), { maxLength: 120 }), async (adds) => {
        const prio = new Map<number, number>();
        const q = new RateLimitingQueue<number>({ clock: new FakeClock(), priorityOf: (k) => prio.get(k) ?? 0 });
        const expected: Array<{ k: number; p: number; i: number }> = [];
        adds.forEach(([k, p], i) => {
          if (prio.has(k)) return; // an item waiting is queued once, with its first priority
          prio.set(k, p);
          q.add(k);
          expected.push({ k, p, i });
        });
        expected.sort((a, b) => b.p - a.p || a.i - b.i);
        const got: number[] = [];
        while (q.len() > 0) got.push((await q.get()) as number);
        expect(got).toEqual(expected.map((e) => e.k));
        q.shutDown();
        expect(await q.get()).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
