import { describe, expect, it } from "vitest";
import { IndexFormatError, formatIndexes, isIndexFormatError } from "./index.js";

describe("formatIndexes", () => {
  it.each<[number[], string]>([
    [[], ""],
    [[0], "0"],
    [[0, 1], "0,1"],
    [[0, 1, 2], "0-2"],
    [[1, 3, 4, 5, 7], "1,3-5,7"], // the spec's example
    [[1, 2, 4, 5, 6, 9, 10], "1,2,4-6,9,10"],
    [[5, 10], "5,10"],
    [[2, 3, 5, 6, 7], "2,3,5-7"],
    [[0, 2, 4, 6], "0,2,4,6"],
    [[9007199254740990, 9007199254740991], "9007199254740990,9007199254740991"],
  ])("formats %j as %j", (indexes, want) => {
    expect(formatIndexes(indexes)).toBe(want);
  });

  it("sorts unordered input and drops duplicates", () => {
    expect(formatIndexes([7, 5, 1, 4, 3, 5, 3, 7])).toBe("1,3-5,7");
    expect(formatIndexes([2, 2, 2])).toBe("2");
    expect(formatIndexes([1, 0, 1, 0])).toBe("0,1");
  });

  it("accepts any iterable and does not mutate an array argument", () => {
    const input = [3, 1, 2];
    expect(formatIndexes(input)).toBe("1-3");
    expect(input).toEqual([3, 1, 2]);
    expect(formatIndexes(new Set([4, 0, 2]))).toBe("0,2,4");
    function* gen(): Generator<number> {
      yield 10;
      yield 11;
      yield 12;
    }
    expect(formatIndexes(gen())).toBe("10-12");
  });

  it("prints -0 as 0", () => {
    expect(formatIndexes([-0, 1])).toBe("0,1");
  });

  it("writes a dense 100,000-index run as one interval and a sparse one as single indexes", () => {
    const dense = Array.from({ length: 100_000 }, (_, i) => i);
    expect(formatIndexes(dense)).toBe("0-99999");
    const sparse = Array.from({ length: 50_000 }, (_, i) => 2 * i);
    const text = formatIndexes(sparse.slice().reverse());
    expect(text.split(",")).toHaveLength(50_000);
    expect(text.startsWith("0,2,4,")).toBe(true);
    expect(text.endsWith(",99996,99998")).toBe(true);
  });

  it.each<[string, unknown]>([
    ["negative", -1],
    ["fractional", 1.5],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["unsafe integer", 2 ** 53],
    ["string", "3"],
    ["bigint", 3n],
    ["null", null],
  ])("throws IndexFormatError InvalidIndex for a %s index", (_label, bad) => {
    let caught: unknown;
    try {
      formatIndexes([0, bad as number, 2]);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(IndexFormatError);
    expect(caught).toBeInstanceOf(RangeError);
    expect(isIndexFormatError(caught)).toBe(true);
    const err = caught as IndexFormatError;
    expect(err.reason).toBe("InvalidIndex");
    expect(err.name).toBe("IndexFormatError");
    expect(Object.is(err.value, bad)).toBe(true);
    expect(err.message).toMatch(/^invalid index .+: indexes must be non-negative safe integers$/);
  });
});

describe("isIndexFormatError", () => {
  it("recognises look-alikes from another copy of the package by name and reason", () => {
    expect(isIndexFormatError({ name: "IndexFormatError", reason: "InvalidIndex" })).toBe(true);
    expect(isIndexFormatError({ name: "IndexFormatError", reason: "Other" })).toBe(false);
    expect(isIndexFormatError(new RangeError("x"))).toBe(false);
    expect(isIndexFormatError(null)).toBe(false);
    expect(isIndexFormatError("IndexFormatError")).toBe(false);
  });
});
