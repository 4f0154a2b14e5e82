import { describe, expect, it } from "vitest";
import { CpuUsageCache, usageNanoCoresBetween } from "./cpu-usage-cache.js";

describe("usageNanoCores", () => {
  it("is the CPU time added per second of wall time between two samples", () => {
    expect(usageNanoCoresBetween({ timestampNs: 0, usageCoreNanoSeconds: 0 }, { timestampNs: 2e9, usageCoreNanoSeconds: 1e9 })).toBe(5e8);
    expect(usageNanoCoresBetween({ timestampNs: 1e9, usageCoreNanoSeconds: 5e9 }, { timestampNs: 1e9, usageCoreNanoSeconds: 6e9 })).toBeUndefined();
    expect(usageNanoCoresBetween({ timestampNs: 0, usageCoreNanoSeconds: 5e9 }, { timestampNs: 1e9, usageCoreNanoSeconds: 1e9 })).toBeUndefined();
  });

  it("caches per id: no value for a first sample or a counter that went back, the last value on read", () => {
    let now = 0;
    const cache = new CpuUsageCache(() => now);
    expect(cache.update("c1", { timestampNs: 0, usageCoreNanoSeconds: 1e9 })).toBeUndefined();
    expect(cache.update("c1", { timestampNs: 10e9, usageCoreNanoSeconds: 3e9 })).toBe(2e8);
    expect(cache.cached("c1")).toBe(2e8);
    // A restarted container's counter starts again: nothing to compute, the sample is kept.
    expect(cache.update("c1", { timestampNs: 11e9, usageCoreNanoSeconds: 1e8 })).toBeUndefined();
    expect(cache.update("c1", { timestampNs: 12e9, usageCoreNanoSeconds: 11e8 })).toBe(1e9);
    now = 11 * 60_000;
    cache.cleanup();
    expect(cache.cached("c1")).toBeUndefined();
  });
});
