import { describe, it, expect } from "vitest";
import { TTLCache } from "./ttl-cache.js";

describe("TTLCache", () => {
  it("expires entries, ignores non-positive TTLs and bounds its size", () => {
    let now = 0;
    const cache = new TTLCache<number>(() => now, 2);
    cache.set("a", 1, 10);
    cache.set("z", 0, 0);
    expect(cache.get("a")).toBe(1);
    expect(cache.get("z")).toBeUndefined();
    cache.set("b", 2, 10);
    cache.set("c", 3, 10);
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    now = 10;
    expect(cache.get("b")).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});
