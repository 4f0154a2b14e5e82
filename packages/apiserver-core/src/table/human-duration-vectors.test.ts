import { describe, expect, it } from "vitest";
import { humanDuration, translateTimestampSince } from "./printers.js";

const s = (n: number) => n * 1000;
describe("humanDuration (reference §12 vectors)", () => {
  it.each([
    [-2, "<invalid>"],
    [-0.5, "0s"],
    [0, "0s"],
    [90, "90s"],
    [119, "119s"],
    [120, "2m"],
    [150, "2m30s"],
    [179 * 60, "179m"],
    [181 * 60, "3h1m"],
    [3 * 3600, "3h"],
    [47 * 3600, "47h"],
    [50 * 3600, "2d2h"],
    [8 * 86400, "8d"],
    [(365 * 2 + 3) * 86400, "2y3d"],
    [365 * 9 * 86400, "9y"],
  ])("%s s → %s", (secs, want) => {
    expect(humanDuration(s(secs))).toBe(want);
  });
  it("translates timestamps", () => {
    const now = new Date("2024-01-01T00:10:00Z");
    expect(translateTimestampSince("2024-01-01T00:00:00Z", now)).toBe("10m");
    expect(translateTimestampSince(undefined, now)).toBe("<unknown>");
    expect(translateTimestampSince("garbage", now)).toBe("<unknown>");
  });
});
