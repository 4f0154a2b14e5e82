import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runPeriodically } from "./periodic.js";

describe("runPeriodically", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs one period after the start, then every period; immediate runs at once too", () => {
    const at: number[] = [];
    const loop = runPeriodically(1_000, () => void at.push(Date.now()));
    const now: number[] = [];
    const eager = runPeriodically(1_000, () => void now.push(Date.now()), { immediate: true });
    vi.advanceTimersByTime(3_500);
    expect(at).toEqual([1_000, 2_000, 3_000]);
    expect(now).toEqual([0, 1_000, 2_000, 3_000]);
    loop.stop();
    eager.stop();
    vi.advanceTimersByTime(5_000);
    expect(at).toHaveLength(3);
    expect(now).toHaveLength(4);
  });

  it("never overlaps a slow run, skips the due times it covered and keeps its phase", async () => {
    const starts: number[] = [];
    let running = 0;
    let maxRunning = 0;
    const loop = runPeriodically(1_000, async () => {
      starts.push(Date.now());
      running++;
      maxRunning = Math.max(maxRunning, running);
      // The run at 1000 takes 1.7 s (ends at 2700): 2000 and 3000 are skipped (3000 is under half a period after its end).
      await new Promise((r) => setTimeout(r, starts.length === 1 ? 1_700 : 10));
      running--;
    });
    await vi.advanceTimersByTimeAsync(5_100);
    loop.stop();
    expect(starts).toEqual([1_000, 4_000, 5_000]);
    expect(maxRunning).toBe(1);
  });

  it("runs that a stall delayed (the wall clock ahead of the timers' clock) do not move either loop's phase", () => {
    const a: number[] = [];
    const b: number[] = [];
    const loopA = runPeriodically(1_000, () => {
      a.push(Date.now());
      // The first run of A stalls the loop 3 s: the wall clock moves on, the timers' clock does not.
      if (a.length === 1) vi.setSystemTime(Date.now() + 3_000);
    });
    vi.advanceTimersByTime(500);
    const loopB = runPeriodically(1_000, () => void b.push(Date.now()));
    // A is due at 1000 and stalls to 4000; B (due at 1500) then fires 3 s late, at 4500 on the wall clock.
    vi.advanceTimersByTime(1_000);
    expect(a).toEqual([1_000]);
    expect(b).toEqual([4_500]);
    vi.advanceTimersByTime(3_000);
    loopA.stop();
    loopB.stop();
    // Back on their grids: A at whole seconds, B half a second later.
    expect(a.slice(1).every((t) => t % 1_000 === 0)).toBe(true);
    expect(b.slice(1).every((t) => t % 1_000 === 500)).toBe(true);
    expect(a.length).toBeGreaterThan(1);
    expect(b.length).toBeGreaterThan(1);
  });

  it("adds periodMs × jitterFactor × random() to each due time", () => {
    const at: number[] = [];
    const loop = runPeriodically(1_000, () => void at.push(Date.now()), { jitterFactor: 0.1, random: () => 0.5 });
    vi.advanceTimersByTime(3_100);
    loop.stop();
    expect(at).toEqual([1_050, 2_050, 3_050]);
  });

  it("goes on after a run throws or rejects", async () => {
    let n = 0;
    const loop = runPeriodically(100, () => {
      n++;
      if (n === 1) throw new Error("boom");
      if (n === 2) return Promise.reject(new Error("boom"));
      return undefined;
    });
    await vi.advanceTimersByTimeAsync(450);
    loop.stop();
    expect(n).toBe(4);
  });

  it("a run in flight when stopped finishes and no run follows", async () => {
    let n = 0;
    let release: () => void = () => undefined;
    const loop = runPeriodically(100, () => {
      n++;
      return new Promise<void>((r) => (release = r));
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(n).toBe(1);
    loop.stop();
    loop.stop();
    release();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(n).toBe(1);
  });

  it("starts a new grid when the wall clock goes back, instead of waiting for the old due time", () => {
    const at: number[] = [];
    vi.setSystemTime(3_600_000);
    const loop = runPeriodically(1_000, () => void at.push(Date.now()));
    vi.advanceTimersByTime(1_000);
    expect(at).toEqual([3_601_000]);
    vi.setSystemTime(0);
    vi.advanceTimersByTime(3_000);
    loop.stop();
    expect(at.length).toBeGreaterThanOrEqual(3);
    expect(at.slice(1).every((t) => t < 10_000)).toBe(true);
  });

  it("refuses a period that is not a finite number > 0", () => {
    for (const p of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => runPeriodically(p, () => undefined)).toThrow(RangeError);
  });
});
