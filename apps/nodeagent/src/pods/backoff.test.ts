import { describe, expect, it } from "vitest";
import { BackOff } from "./backoff.js";
import { ImagePuller, TokenBucket } from "./image-puller.js";
import { expandVars } from "./expand.js";

describe("BackOff (crash loop)", () => {
  it("starts at 10 s, doubles to 300 s, and resets after 10 min of running", () => {
    let now = 1_000_000;
    const b = new BackOff(10_000, 300_000, () => now);
    expect(b.isInBackOffSince("c", now)).toBe(false);
    b.next("c", now);
    expect(b.get("c")).toBe(10_000);
    const seen = [b.get("c")];
    for (let i = 0; i < 8; i++) {
      const finished = now;
      expect(b.isInBackOffSince("c", finished)).toBe(true);
      now += b.get("c");
      expect(b.isInBackOffSince("c", finished)).toBe(false);
      b.next("c", finished);
      seen.push(b.get("c"));
    }
    expect(seen).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000, 300_000]);
    // The container then ran for more than 2 × max (10 min) before failing again.
    now += 600_001;
    expect(b.isInBackOffSince("c", now)).toBe(false);
    b.next("c", now);
    expect(b.get("c")).toBe(10_000);
  });

  it("gc drops stale entries", () => {
    let now = 0;
    const b = new BackOff(10, 100, () => now);
    b.next("k", 0);
    now = 1_000;
    b.gc();
    expect(b.get("k")).toBe(0);
  });
});

describe("TokenBucket and ImagePuller", () => {
  it("allows a burst, then qps", () => {
    let now = 0;
    const t = new TokenBucket(5, 10, () => now);
    const burst = Array.from({ length: 11 }, () => t.tryAccept());
    expect(burst.filter(Boolean)).toHaveLength(10);
    now += 200;
    expect(t.tryAccept()).toBe(true);
    expect(t.tryAccept()).toBe(false);
    expect(new TokenBucket(0, 0).tryAccept()).toBe(true);
  });

  it("fails a pull without a token with 'pull QPS exceeded'", async () => {
    const p = new ImagePuller(true, new TokenBucket(1, 1, () => 0));
    await expect(p.pull(async () => "ok")).resolves.toBe("ok");
    await expect(p.pull(async () => "ok")).rejects.toMatchObject({ code: "QPSExceeded", message: "pull QPS exceeded" });
  });

  it("serializes pulls when asked, runs them in parallel otherwise", async () => {
    for (const serialize of [true, false]) {
      const p = new ImagePuller(serialize, new TokenBucket(0, 0));
      let active = 0;
      let maxActive = 0;
      const job = () =>
        p.pull(async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await new Promise((r) => setTimeout(r, 5));
          active--;
        });
      await Promise.all([job(), job(), job()]);
      expect(maxActive).toBe(serialize ? 1 : 3);
    }
  });

  it("wraps runtime failures as PullFailed and keeps serializing after one", async () => {
    const p = new ImagePuller(true, new TokenBucket(0, 0));
    await expect(p.pull(async () => Promise.reject(new Error("no registry")))).rejects.toMatchObject({ code: "PullFailed", message: "no registry" });
    await expect(p.pull(async () => 1)).resolves.toBe(1);
  });
});

describe("expandVars", () => {
  const env: Record<string, string> = { A: "x", B: "y z" };
  const lookup = (n: string) => env[n];
  it.each([
    ["$(A)", "x"],
    ["echo $(A) $(B)", "echo x y z"],
    ["$(C)", "$(C)"],
    ["$$(A)", "$(A)"],
    ["$$$(A)", "$x"],
    ["a$b", "a$b"],
    ["$(A", "$(A"],
    ["$()", "$()"],
    ["end$", "end$"],
  ])("%s → %s", (input, want) => {
    expect(expandVars(input, lookup)).toBe(want);
  });
});
