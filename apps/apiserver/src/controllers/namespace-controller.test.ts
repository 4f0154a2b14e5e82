import { describe, expect, it } from "vitest";
import { namespaceControllerRateLimiter } from "./namespace-controller.js";

describe("namespaceControllerRateLimiter", () => {
  it("backs a namespace off from 5 ms, doubling, to at most 60 s, as 1.23's nsControllerRateLimiter", () => {
    const l = namespaceControllerRateLimiter();
    const delays = Array.from({ length: 16 }, () => l.when("ns"));
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(Math.max(...delays)).toBe(60_000);
    expect(delays.at(-1)).toBe(60_000);
    expect(l.numRequeues("ns")).toBe(16);
    // Per item: another namespace starts at 5 ms; forget resets.
    expect(l.when("other")).toBe(5);
    l.forget("ns");
    expect(l.numRequeues("ns")).toBe(0);
    expect(l.when("ns")).toBe(5);
  });
});
