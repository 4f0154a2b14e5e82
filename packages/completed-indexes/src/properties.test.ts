import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { IndexInterval } from "./index.js";
import { countIndexes, formatIndexes, formatIntervals, intervalsContain, mergeIndexes, parseIndexes, validateIndexes, withOrderedIndexes } from "./index.js";

const indexArb = fc.integer({ min: 0, max: 300 });
const indexesArb = fc.array(indexArb, { maxLength: 200 });
const intervalArb = fc.tuple(indexArb, fc.integer({ min: 0, max: 20 })).map(([first, len]): IndexInterval => ({ first, last: first + len }));

/** Reference model: the sorted distinct members of a set of indexes. */
function members(indexes: Iterable<number>): number[] {
  return [...new Set(indexes)].sort((a, b) => a - b);
}

function expand(intervals: readonly IndexInterval[]): number[] {
  const out: number[] = [];
  for (const { first, last } of intervals) for (let i = first; i <= last; i++) out.push(i);
  return out;
}

function isCanonical(intervals: readonly IndexInterval[]): boolean {
  return intervals.every((iv, k) => iv.first <= iv.last && (k === 0 || iv.first > intervals[k - 1]!.last + 1));
}

describe("properties", () => {
  it("parse(format(xs)) covers exactly the distinct xs, canonically", () => {
    fc.assert(
      fc.property(indexesArb, (xs) => {
        const intervals = parseIndexes(formatIndexes(xs), 301);
        expect(isCanonical(intervals)).toBe(true);
        expect(expand(intervals)).toEqual(members(xs));
        expect(countIndexes(intervals)).toBe(new Set(xs).size);
      }),
    );
  });

  it("format∘parse is the identity on formatted text", () => {
    fc.assert(
      fc.property(indexesArb, (xs) => {
        const text = formatIndexes(xs);
        expect(formatIntervals(parseIndexes(text, 301))).toBe(text);
      }),
    );
  });

  it("formatIndexes matches a naive reference formatter", () => {
    fc.assert(
      fc.property(indexesArb, (xs) => {
        const sorted = members(xs);
        const parts: string[] = [];
        for (let k = 0; k < sorted.length; ) {
          let end = k;
          while (end + 1 < sorted.length && sorted[end + 1] === sorted[end]! + 1) end++;
          const run = end - k + 1;
          if (run >= 3) parts.push(`${sorted[k]}-${sorted[end]}`);
          else parts.push(...sorted.slice(k, end + 1).map(String));
          k = end + 1;
        }
        expect(formatIndexes(xs)).toBe(parts.join(","));
      }),
    );
  });

  it("mergeIndexes is set union and stays canonical", () => {
    fc.assert(
      fc.property(fc.array(intervalArb, { maxLength: 20 }), indexesArb, (intervals, xs) => {
        const merged = mergeIndexes(intervals, xs);
        expect(isCanonical(merged)).toBe(true);
        expect(expand(merged)).toEqual(members([...expand(intervals), ...xs]));
      }),
    );
  });

  it("formatIntervals equals formatIndexes of the expanded members", () => {
    fc.assert(
      fc.property(fc.array(intervalArb, { maxLength: 20 }), (intervals) => {
        expect(formatIntervals(intervals)).toBe(formatIndexes(expand(intervals)));
      }),
    );
  });

  it("strict validation accepts every formatted output and agrees with the lenient parse", () => {
    fc.assert(
      fc.property(indexesArb, (xs) => {
        const text = formatIndexes(xs);
        const completions = xs.length === 0 ? 0 : Math.max(...xs) + 1;
        expect(validateIndexes(text, completions)).toEqual({ ok: true, intervals: parseIndexes(text, completions) });
      }),
    );
  });

  it("strict validation rejects formatted output whose largest index reaches completions", () => {
    fc.assert(
      fc.property(fc.array(indexArb, { minLength: 1, maxLength: 50 }), (xs) => {
        const result = validateIndexes(formatIndexes(xs), Math.max(...xs));
        expect(result.ok).toBe(false);
      }),
    );
  });

  it("intervalsContain agrees with membership", () => {
    fc.assert(
      fc.property(indexesArb, indexArb, (xs, probe) => {
        const intervals = parseIndexes(formatIndexes(xs), 301);
        expect(intervalsContain(intervals, probe)).toBe(xs.includes(probe));
      }),
    );
  });

  const textArb = fc.oneof(
    fc.string(),
    fc.string({ unit: fc.constantFrom("0", "1", "2", "9", ",", "-", "+", " ", "x") }),
    fc.array(fc.oneof(fc.nat(40).map(String), fc.tuple(fc.nat(40), fc.nat(40)).map(([a, b]) => `${a}-${b}`)), { maxLength: 20 }).map((p) => p.join(",")),
  );

  it("lenient parse never throws, returns well-formed intervals below completions, and the controller's merge makes them canonical", () => {
    fc.assert(
      fc.property(textArb, fc.oneof(fc.integer({ min: -5, max: 50 }), fc.double()), (text, completions) => {
        const intervals = parseIndexes(text, completions);
        for (const { first, last } of intervals) {
          expect(Number.isSafeInteger(first) && Number.isSafeInteger(last) && first >= 0 && first <= last).toBe(true);
          expect(last < completions).toBe(true);
        }
        expect(isCanonical(withOrderedIndexes(intervals, []))).toBe(true);
      }),
    );
  });

  it("strict validation never throws on arbitrary text and, when it accepts, matches the lenient parse", () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 0, max: 50 }), (text, completions) => {
        const result = validateIndexes(text, completions);
        if (result.ok) {
          expect(isCanonical(result.intervals)).toBe(true);
          expect(result.intervals).toEqual(parseIndexes(text, completions));
        } else {
          expect(result.errors.length).toBeGreaterThan(0);
          const pieces = text.split(",");
          for (const e of result.errors) expect(pieces[e.position]).toBe(e.text);
        }
      }),
    );
  });
});
