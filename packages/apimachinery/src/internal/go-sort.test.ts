import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goSliceStable } from "./go-sort.js";

describe("goSliceStable", () => {
  it("sorts stably with a proper comparator, whatever the size", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ k: fc.integer({ min: 0, max: 5 }), id: fc.integer() }), { maxLength: 120 }), (items) => {
        const data = [...items];
        goSliceStable(data, (a, b) => a.k < b.k);
        const expected = items.map((x, i) => ({ x, i })).sort((a, b) => a.x.k - b.x.k || a.i - b.i).map(({ x }) => x);
        expect(data).toEqual(expected);
      }),
    );
  });

  it("follows Go's insertion steps for a comparator that is always true", () => {
    // Go's insertion sort moves each element to the front when less() is always true.
    const small = [1, 2, 3, 4];
    goSliceStable(small, () => true);
    expect(small).toEqual([4, 3, 2, 1]);
    const none = [1, 2, 3];
    goSliceStable(none, () => false);
    expect(none).toEqual([1, 2, 3]);
  });

  it("handles the merge phase for more than one block", () => {
    const data = Array.from({ length: 45 }, (_, i) => 44 - i);
    goSliceStable(data, (a, b) => a < b);
    expect(data).toEqual(Array.from({ length: 45 }, (_, i) => i));
  });
});
