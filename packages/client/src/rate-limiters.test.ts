import { describe, expect, it } from "vitest";
import { FakeClock } from "./clock.js";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, newDefaultControllerRateLimiter } from "./rate-limiters.js";

describe("ItemExponentialFailureRateLimiter", () => {
  it("doubles from the base per item up to the cap", () => {
    const r = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(() => r.when("a"))).toEqual([5, 10, 20, 40, 80, 160, 320, 640]);
    expect(r.when("a")).toBe(1000);
    expect(r.when("b")).toBe(5);
    expect(r.numRequeues("a")).toBe(9);
    r.forget("a");
    expect(r.when("a")).toBe(5);
  });
  it("never overflows to Infinity", () => {
    const r = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    for (let i = 0; i < 2000; i++) r.when("x");
    expect(r.when("x")).toBe(1_000_000);
  });
});

describe("BucketRateLimiter and the default controller limiter", () => {
  it("allows a burst, then spaces items at 1/qps", () => {
    const clock = new FakeClock();
    const r = new BucketRateLimiter<string>(10, 2, clock);
    expect(r.when("a")).toBe(0);
    expect(r.when("b")).toBe(0);
    expect(r.when("c")).toBeCloseTo(100);
    expect(r.when("d")).toBeCloseTo(200);
    clock.advance(1000);
    expect(r.when("e")).toBe(0);
  });
  it("MaxOf takes the largest delay", () => {
    const r = new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter(5, 100), new ItemExponentialFailureRateLimiter(1, 3));
    expect(r.when("a")).toBe(5);
    expect(r.numRequeues("a")).toBe(1);
  });
  it("default: 5 ms doubling per item, 1000 s cap, bucket 10 qps / burst 100", () => {
    const clock = new FakeClock();
    const r = newDefaultControllerRateLimiter<string>(clock);
    expect(r.when("a")).toBe(5);
    expect(r.when("a")).toBe(10);
    for (let i = 0; i < 98; i++) r.when(`k${i}`);
    // burst of 100 used up: the next new item waits for the bucket (100 ms) rather than 5 ms
    expect(r.when("z")).toBeCloseTo(100);
    const slow = newDefaultControllerRateLimiter<string>(clock);
    let last = 0;
    for (let i = 0; i < 40; i++) last = slow.when("same");
    expect(last).toBe(1_000_000);
  });
});
