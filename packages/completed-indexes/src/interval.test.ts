import { describe, expect, it } from "vitest";
import type { IndexInterval } from "./index.js";
import { IndexFormatError, countIndexes, formatIntervals, intervalsContain, mergeIndexes, withOrderedIndexes } from "./index.js";

const iv = (first: number, last: number = first): IndexInterval => ({ first, last });

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(IndexFormatError);
    return (e as IndexFormatError).reason;
  }
  return undefined;
}

describe("formatIntervals", () => {
  it.each<[IndexInterval[], string]>([
    [[], ""],
    [[iv(1), iv(3, 5), iv(7)], "1,3-5,7"],
    [[iv(0, 1)], "0,1"],
    [[iv(4, 6), iv(9, 10)], "4-6,9,10"],
    [[iv(0, 2), iv(3, 4)], "0-4"], // adjacent intervals are joined
    [[iv(5, 7), iv(0, 1)], "0,1,5-7"], // unordered input is sorted
    [[iv(0, 5), iv(2, 3), iv(4, 9)], "0-9"], // overlaps merge
    [[iv(3), iv(3)], "3"],
  ])("formats %j as %j", (intervals, want) => {
    expect(formatIntervals(intervals)).toBe(want);
  });

  it("does not mutate its input", () => {
    const input = [iv(5, 7), iv(0, 6)];
    formatIntervals(input);
    expect(input).toEqual([iv(5, 7), iv(0, 6)]);
  });

  it.each<[string, unknown]>([
    ["inverted", { first: 3, last: 2 }],
    ["negative", { first: -1, last: 2 }],
    ["fractional", { first: 0, last: 2.5 }],
    ["missing last", { first: 0 }],
    ["null", null],
  ])("throws InvalidInterval for a %s interval", (_label, bad) => {
    expect(reasonOf(() => formatIntervals([iv(0), bad as IndexInterval]))).toBe("InvalidInterval");
  });
});

describe("countIndexes", () => {
  it("counts indexes covered by the intervals (status.succeeded)", () => {
    expect(countIndexes([])).toBe(0);
    expect(countIndexes([iv(1), iv(3, 5), iv(7)])).toBe(5);
    expect(countIndexes([iv(0, 99_999)])).toBe(100_000);
  });
});

describe("intervalsContain", () => {
  // Vectors of kubernetes v1.23 TestIntervalsHaveIndex.
  it.each<[string, IndexInterval[], number, boolean]>([
    ["empty", [], 4, false],
    ["before all", [iv(2, 4), iv(5, 7)], 1, false],
    ["after all", [iv(2, 4), iv(6, 8)], 9, false],
    ["in between", [iv(2, 4), iv(6, 8)], 5, false],
    ["in first", [iv(2, 4), iv(6, 8)], 2, true],
    ["in second", [iv(2, 4), iv(6, 8)], 8, true],
    ["single", [iv(3)], 3, true],
    ["fractional index", [iv(2, 4)], 2.5, false],
  ])("%s", (_name, intervals, index, want) => {
    expect(intervalsContain(intervals, index)).toBe(want);
  });

  it("finds every member of many intervals", () => {
    const many = Array.from({ length: 1000 }, (_, k) => iv(3 * k, 3 * k + 1));
    for (let i = 0; i < 3000; i++) expect(intervalsContain(many, i)).toBe(i % 3 !== 2);
  });
});

describe("mergeIndexes", () => {
  // Vectors of kubernetes v1.23 TestCalculateSucceededIndexes (previous intervals + new indexes).
  it.each<[string, IndexInterval[], number[], IndexInterval[]]>([
    ["one index", [], [1], [iv(1)]],
    ["two separate", [], [5, 5, 10], [iv(5), iv(10)]],
    ["two intervals", [], [2, 3, 5, 6, 7], [iv(2, 3), iv(5, 7)]],
    ["prev and new separate", [iv(0), iv(4, 5), iv(10, 12)], [2, 7, 8], [iv(0), iv(2), iv(4, 5), iv(7, 8), iv(10, 12)]],
    ["prev between new", [iv(3, 4), iv(6)], [2, 7, 8], [iv(2, 4), iv(6, 8)]],
    ["new between prev", [iv(2), iv(7, 8)], [3, 4, 6], [iv(2, 4), iv(6, 8)]],
    ["new within prev", [iv(2, 7)], [0, 3, 5, 9], [iv(0), iv(2, 7), iv(9)]],
    ["corrupted interval", [iv(0)], [3], [iv(0), iv(3)]],
  ])("%s", (_name, prev, added, want) => {
    expect(mergeIndexes(prev, added)).toEqual(want);
  });

  it("accepts unordered new indexes and unordered or overlapping intervals", () => {
    expect(mergeIndexes([iv(8, 9), iv(0, 2), iv(1, 3)], [6, 4, 5, 4])).toEqual([iv(0, 6), iv(8, 9)]);
  });

  it("joins adjacent intervals even when nothing is added", () => {
    expect(mergeIndexes([iv(0, 2), iv(3, 4), iv(6)], [])).toEqual([iv(0, 4), iv(6)]);
  });

  it("mutates neither argument and returns fresh interval objects", () => {
    const prev = [iv(0, 2), iv(5)];
    const added = [4, 3];
    const out = mergeIndexes(prev, added);
    expect(out).toEqual([iv(0, 5)]);
    expect(prev).toEqual([iv(0, 2), iv(5)]);
    expect(added).toEqual([4, 3]);
    const same = mergeIndexes(prev, []);
    expect(same).toEqual(prev);
    expect(same[0]).not.toBe(prev[0]);
  });

  it("throws InvalidIndex or InvalidInterval for bad input", () => {
    expect(reasonOf(() => mergeIndexes([], [-1]))).toBe("InvalidIndex");
    expect(reasonOf(() => mergeIndexes([], [Number.NaN]))).toBe("InvalidIndex");
    expect(reasonOf(() => mergeIndexes([iv(2, 1)], [1]))).toBe("InvalidInterval");
  });
});

describe("withOrderedIndexes (the controller's merge, as upstream)", () => {
  it.each<[string, IndexInterval[], number[], IndexInterval[]]>([
    ["prev and new separate", [iv(0), iv(4, 5), iv(10, 12)], [2, 7, 8], [iv(0), iv(2), iv(4, 5), iv(7, 8), iv(10, 12)]],
    ["new joins prev", [iv(0, 2), iv(5)], [3, 4, 6], [iv(0, 6)]],
    ["new within prev", [iv(2, 7)], [3, 4], [iv(2, 7)]],
    ["nothing new", [iv(1), iv(3, 5)], [], [iv(1), iv(3, 5)]],
    // Out-of-order intervals (from unordered text) are absorbed or dropped, not sorted in.
    ["out of order dropped", [iv(5), iv(1), iv(3)], [], [iv(5)]],
    ["out of order, new after", [iv(5), iv(1)], [6], [iv(5, 6)]],
    ["overlap absorbed", [iv(0, 3), iv(2, 6)], [], [iv(0, 6)]],
  ])("%s", (_name, prev, added, want) => {
    expect(withOrderedIndexes(prev, added)).toEqual(want);
  });
});
