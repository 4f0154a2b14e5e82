import { describe, expect, it } from "vitest";
import { FakeClock } from "./clock.js";
import { RateLimiterAbortedError, TokenBucketRateLimiter } from "./token-bucket.js";

const flush = () => new Promise((r) => setImmediate(r));

describe("TokenBucketRateLimiter", () => {
  it("starts full: burst requests pass, then one per 1/qps", async () => {
    const clock = new FakeClock();
    const l = new TokenBucketRateLimiter({ qps: 5, burst: 10, clock });
    for (let i = 0; i < 10; i++) expect(l.tryAccept()).toBe(true);
    expect(l.tryAccept()).toBe(false);
    expect(l.delayMs()).toBeCloseTo(200);
    clock.advance(199);
    expect(l.tryAccept()).toBe(false);
    clock.advance(1);
    expect(l.tryAccept()).toBe(true);
  });

  it("refills to at most burst after idling", () => {
    const clock = new FakeClock();
    const l = new TokenBucketRateLimiter({ qps: 1, burst: 3, clock });
    for (let i = 0; i < 3; i++) l.tryAccept();
    clock.advance(60_000);
    let n = 0;
    while (l.tryAccept()) n++;
    expect(n).toBe(3);
  });

  it("wait() serves waiters in order at the configured rate", async () => {
    const clock = new FakeClock();
    const l = new TokenBucketRateLimiter({ qps: 2, burst: 1, clock });
    const done: number[] = [];
    for (let i = 0; i < 4; i++) void l.wait().then(() => done.push(i));
    await flush();
    expect(done).toEqual([0]);
    clock.advance(500);
    await flush();
    expect(done).toEqual([0, 1]);
    clock.advance(1000);
    await flush();
    expect(done).toEqual([0, 1, 2, 3]);
  });

  it("an aborted wait rejects and returns its token", async () => {
    const clock = new FakeClock();
    const l = new TokenBucketRateLimiter({ qps: 1, burst: 1, clock });
    await l.wait();
    const ac = new AbortController();
    const p = l.wait(ac.signal);
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(RateLimiterAbortedError);
    clock.advance(1000);
    expect(l.tryAccept()).toBe(true);
    await expect(l.wait(ac.signal)).rejects.toThrow(/aborted/);
  });

  it("qps <= 0 disables limiting", async () => {
    const l = new TokenBucketRateLimiter({ qps: 0, burst: 1, clock: new FakeClock() });
    for (let i = 0; i < 100; i++) expect(l.tryAccept()).toBe(true);
    await l.wait();
    expect(l.delayMs()).toBe(0);
  });
});
