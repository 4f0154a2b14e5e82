import { describe, expect, it } from "vitest";
import { settle } from "./latency-pods.js";

/** A CPU source whose per-window use follows `cores`, one entry per call after the first. */
function cpuFollowing(cores: readonly number[], windowS: number): () => number {
  let total = 0;
  let call = 0;
  return () => {
    if (call > 0) total += (cores[Math.min(call - 1, cores.length - 1)] ?? 0) * windowS;
    call++;
    return total;
  };
}

describe("settle", () => {
  it("waits while the cluster's CPU use falls and stops once it is quiet", async () => {
    const r = await settle({ cpuSeconds: cpuFollowing([1.8, 1.2, 0.6, 0.1, 0.1], 0.01), windowMs: 10 });
    expect(r.cores).toBeCloseTo(0.1, 5);
    expect(r.seconds).toBeGreaterThanOrEqual(0.035);
  });

  it("stops at a steady state above the quiet level (a fleet's heartbeats)", async () => {
    const r = await settle({ cpuSeconds: cpuFollowing([1.8, 0.9, 0.5, 0.48, 0.47], 0.01), windowMs: 10 });
    expect(r.cores).toBeCloseTo(0.48, 5);
  });

  it("gives up after maxMs while the use keeps falling", async () => {
    const falling = Array.from({ length: 1000 }, (_, i) => 100 / (i + 1) ** 2);
    const r = await settle({ cpuSeconds: cpuFollowing(falling, 0.01), windowMs: 10, maxMs: 50 });
    expect(r.seconds).toBeGreaterThanOrEqual(0.05);
    expect(r.seconds).toBeLessThan(1);
    expect(r.cores).toBeGreaterThan(0.2);
  });
});
