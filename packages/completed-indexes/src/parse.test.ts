import { describe, expect, it } from "vitest";
import type { IndexInterval } from "./index.js";
import { IndexFormatError, parseIndexes, validateIndexes } from "./index.js";

const iv = (first: number, last: number = first): IndexInterval => ({ first, last });

describe("parseIndexes (lenient, controller)", () => {
  // Vectors of kubernetes v1.23 pkg/controller/job/indexed_job_utils_test.go (status part).
  it.each<[string, string, number, IndexInterval[]]>([
    ["prev interval out of range", "0-5,8-10", 8, [iv(0, 5)]],
    ["prev interval partially out of range", "0-5,8-10", 10, [iv(0, 5), iv(8, 9)]],
    ["prev and new separate", "0,4,5,10-12", 13, [iv(0), iv(4, 5), iv(10, 12)]],
    ["prev between new", "3,4,6", 9, [iv(3, 4), iv(6)]],
    ["new between prev", "2,7,8", 9, [iv(2), iv(7, 8)]],
    ["new within prev", "2-7", 10, [iv(2, 7)]],
    ["corrupted interval", "0,1-foo,bar", 4, [iv(0)]],
  ])("upstream case %s", (_name, text, completions, want) => {
    expect(parseIndexes(text, completions)).toEqual(want);
  });

  it.each<[string, number, IndexInterval[]]>([
    ["", 10, []],
    ["1,3-5,7", 10, [iv(1), iv(3, 5), iv(7)]],
    ["0,1,2", 10, [iv(0, 2)]], // adjacent single pieces merge
    ["0-2,3-5", 10, [iv(0, 5)]],
    ["0-3,2-6", 10, [iv(0, 3), iv(2, 6)]], // only a piece starting right after the last joins it, as upstream
    ["5,1,3", 10, [iv(5), iv(1), iv(3)]], // text order is kept, as upstream
    ["4-6,0-9", 10, [iv(4, 6), iv(0, 9)]],
    ["7,2-3,4", 10, [iv(7), iv(2, 4)]],
    ["9,10,11", 10, [iv(9)]], // stops at the first piece at/above completions
    ["12,3", 10, []], // stops at 12, as upstream: 3 is not read
    ["0,9,3", 5, [iv(0)]],
    ["9223372036854775807,1", 10, []], // within int64: a number at/above completions, so reading stops
    ["9223372036854775808,1", 10, [iv(1)]], // beyond int64: Atoi fails, the piece is skipped
    ["3-99999999999999999999", 10, []], // an end beyond int64 fails Atoi: the piece is skipped
    ["3-9223372036854775807", 10, [iv(3, 9)]], // an end within int64 is clamped
    ["99999999999999999999,1", 10, [iv(1)]],
    ["+3", 10, [iv(3)]], // strconv.Atoi accepts a leading plus
    ["007,0010", 20, [iv(7), iv(10)]], // and leading zeros
    ["1-3-9", 10, [iv(1, 3)]], // upstream reads only the first two parts
    ["5-3", 10, []], // inverted: skipped
    ["-3", 10, []], // a minus sign makes an empty first part
    [" 1,2 ", 10, []], // spaces are not integers
    ["1,,2", 10, [iv(1, 2)]],
    [",", 10, []],
    ["a,b-c,1-b,2", 10, [iv(2)]],
    ["0-0", 10, [iv(0)]],
    ["1,x", 1, []],
  ])("parses %j with completions %d", (text, completions, want) => {
    expect(parseIndexes(text, completions)).toEqual(want);
  });

  it("returns nothing for non-positive or NaN completions", () => {
    expect(parseIndexes("0,1", 0)).toEqual([]);
    expect(parseIndexes("0,1", -3)).toEqual([]);
    expect(parseIndexes("0,1", Number.NaN)).toEqual([]);
  });

  it("treats a fractional completions as the bound on integer indexes below it", () => {
    expect(parseIndexes("0-9", 2.5)).toEqual([iv(0, 2)]);
  });

  it("never yields Infinity for an unbounded completions", () => {
    expect(parseIndexes("1-99999999999999999999,99999999999999999999,2", Number.POSITIVE_INFINITY)).toEqual([iv(2)]);
  });

  it("does not throw on non-string text at run time", () => {
    expect(parseIndexes(undefined as unknown as string, 3)).toEqual([]);
    expect(parseIndexes("1", "3" as unknown as number)).toEqual([]);
  });
});

describe("validateIndexes (strict, API)", () => {
  it.each<[string, number, IndexInterval[]]>([
    ["", 0, []],
    ["", 5, []],
    ["0", 1, [iv(0)]],
    ["1,3-5,7", 8, [iv(1), iv(3, 5), iv(7)]],
    ["0,1", 2, [iv(0, 1)]],
    ["1-2", 3, [iv(1, 2)]], // `a-b` with b = a+1 is accepted, as upstream
    ["1-3,4", 5, [iv(1, 4)]], // adjacent pieces merge in the result
    ["007", 8, [iv(7)]], // leading zeros accepted, as upstream
    ["0-99999", 100_000, [iv(0, 99_999)]],
  ])("accepts %j with completions %d", (text, completions, want) => {
    expect(validateIndexes(text, completions)).toEqual({ ok: true, intervals: want });
  });

  it.each<[string, number, { position: number; text: string; reason: string; message: string }[]]>([
    ["8", 8, [{ position: 0, text: "8", reason: "IndexTooLarge", message: 'too large index: "8"' }]],
    ["1-8", 8, [{ position: 0, text: "1-8", reason: "IndexTooLarge", message: 'too large index: "8"' }]],
    ["0", 0, [{ position: 0, text: "0", reason: "IndexTooLarge", message: 'too large index: "0"' }]],
    ["3,1", 8, [{ position: 1, text: "1", reason: "NonIncreasingOrder", message: "non-increasing order, previous: 3, current: 1" }]],
    ["1,1", 8, [{ position: 1, text: "1", reason: "NonIncreasingOrder", message: "non-increasing order, previous: 1, current: 1" }]],
    ["1-5,3-7", 8, [{ position: 1, text: "3-7", reason: "NonIncreasingOrder", message: "non-increasing order, previous: 5, current: 3" }]],
    ["5-3", 8, [{ position: 0, text: "5-3", reason: "InvertedInterval", message: "non-increasing order, previous: 5, current: 3" }]],
    ["4-4", 8, [{ position: 0, text: "4-4", reason: "InvertedInterval", message: "non-increasing order, previous: 4, current: 4" }]],
    [
      "1-2-3",
      8,
      [
        {
          position: 0,
          text: "1-2-3",
          reason: "TooManyParts",
          message: `the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by '-'`,
        },
      ],
    ],
    ["+1", 8, [{ position: 0, text: "+1", reason: "InvalidNumber", message: 'cannot convert string to integer for index: "+1"' }]],
    ["-1", 8, [{ position: 0, text: "-1", reason: "InvalidNumber", message: 'cannot convert string to integer for index: ""' }]],
    [" 1", 8, [{ position: 0, text: " 1", reason: "InvalidNumber", message: 'cannot convert string to integer for index: " 1"' }]],
    ["1-", 8, [{ position: 0, text: "1-", reason: "InvalidNumber", message: 'cannot convert string to integer for index: ""' }]],
    ["0x1", 8, [{ position: 0, text: "0x1", reason: "InvalidNumber", message: 'cannot convert string to integer for index: "0x1"' }]],
    ["1,", 8, [{ position: 1, text: "", reason: "InvalidNumber", message: 'cannot convert string to integer for index: ""' }]],
    ["1e3", 8, [{ position: 0, text: "1e3", reason: "InvalidNumber", message: 'cannot convert string to integer for index: "1e3"' }]],
  ])("rejects %j with completions %d", (text, completions, errors) => {
    expect(validateIndexes(text, completions)).toEqual({ ok: false, errors });
  });

  it("reports every problem with its position, comparing order against the last valid piece", () => {
    const result = validateIndexes("2,x,1,4-3,9,5,6-7,5", 8);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.position, e.text, e.reason])).toEqual([
      [1, "x", "InvalidNumber"],
      [2, "1", "NonIncreasingOrder"],
      [3, "4-3", "InvertedInterval"],
      [4, "9", "IndexTooLarge"],
      [7, "5", "NonIncreasingOrder"],
    ]);
    expect(result.errors[4]!.message).toBe("non-increasing order, previous: 7, current: 5");
  });

  it("treats oversized numbers as too large rather than losing precision", () => {
    const result = validateIndexes("123456789012345678901234567890", 10);
    expect(result).toEqual({
      ok: false,
      errors: [
        {
          position: 0,
          text: "123456789012345678901234567890",
          reason: "IndexTooLarge",
          message: 'too large index: "123456789012345678901234567890"',
        },
      ],
    });
  });

  it.each<[unknown]>([[-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], ["3"]])(
    "throws IndexFormatError InvalidCompletions for completions %j",
    (completions) => {
      expect(() => validateIndexes("0", completions as number)).toThrowError(IndexFormatError);
      try {
        validateIndexes("0", completions as number);
      } catch (e) {
        expect((e as IndexFormatError).reason).toBe("InvalidCompletions");
      }
    },
  );

  it("agrees with the lenient parse on valid text", () => {
    for (const text of ["1,3-5,7", "0,1", "0-2,4,6-9", "10"]) {
      const strict = validateIndexes(text, 11);
      expect(strict).toEqual({ ok: true, intervals: parseIndexes(text, 11) });
    }
  });
});
