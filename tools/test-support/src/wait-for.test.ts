import { describe, expect, it } from "vitest";
import { waitFor } from "./wait-for.js";

describe("waitFor", () => {
  it("resolves with the first value that is neither undefined nor false", async () => {
    const seen = [undefined, false, 0, 5];
    let i = 0;
    await expect(waitFor(() => seen[i++], { intervalMs: 1 })).resolves.toBe(0);
    expect(i).toBe(3);
  });

  it("treats a throw as not yet and names the last error on timeout, with context", async () => {
    await expect(
      waitFor(
        () => {
          throw new Error("boom");
        },
        { timeoutMs: 20, intervalMs: 5, what: "the thing", context: () => "log tail" },
      ),
    ).rejects.toThrow("timed out waiting for the thing: boom\nlog tail");
  });

  it("keeps polling async functions until they succeed", async () => {
    let n = 0;
    await expect(waitFor(async () => (++n >= 3 ? "ok" : undefined), { intervalMs: 1 })).resolves.toBe("ok");
    await expect(waitFor(async () => undefined, { timeoutMs: 5, intervalMs: 1 })).rejects.toThrow(/^timed out waiting for condition$/);
  });
});
