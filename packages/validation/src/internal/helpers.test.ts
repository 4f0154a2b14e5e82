import { describe, expect, it } from "vitest";
import { deepEqual, isUnset } from "./deep-equal.js";
import { labelSelectorAsMatcher } from "./label-selector.js";

describe("deepEqual (semantic)", () => {
  it("compares scalars strictly", () => {
    expect(deepEqual(1, 1)).toBe(true);
    expect(deepEqual(0, false)).toBe(false);
    expect(deepEqual("", undefined)).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
  });
  it("treats absent, empty lists and empty objects as unset members", () => {
    expect(deepEqual({ a: [] }, {})).toBe(true);
    expect(deepEqual({ a: { b: {} } }, { c: undefined })).toBe(true);
    expect(deepEqual({ a: false }, {})).toBe(false);
    expect(deepEqual({ a: [1] }, {})).toBe(false);
  });
  it("compares arrays in order", () => {
    expect(deepEqual([1, 2], [1, 2])).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual([], {})).toBe(false);
  });
  it("isUnset", () => {
    expect(isUnset(undefined)).toBe(true);
    expect(isUnset({ a: [] })).toBe(true);
    expect(isUnset(0)).toBe(false);
  });
});

describe("labelSelectorAsMatcher", () => {
  it("undefined selects nothing, {} selects everything", () => {
    expect(labelSelectorAsMatcher(undefined)?.({ a: "b" })).toBe(false);
    expect(labelSelectorAsMatcher({})?.(undefined)).toBe(true);
  });
  it("matchLabels and expressions", () => {
    const m = labelSelectorAsMatcher({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["a", "b"] },
        { key: "env", operator: "NotIn", values: ["prod"] },
        { key: "x", operator: "Exists" },
        { key: "y", operator: "DoesNotExist" },
      ],
    });
    expect(m).not.toBeNull();
    expect(m!({ app: "web", tier: "a", x: "" })).toBe(true);
    expect(m!({ app: "web", tier: "c", x: "" })).toBe(false);
    expect(m!({ app: "web", tier: "a", x: "", env: "prod" })).toBe(false);
    expect(m!({ app: "web", tier: "a", x: "", y: "1" })).toBe(false);
    expect(m!({ app: "web", tier: "a" })).toBe(false);
  });
  it("returns null for selectors that cannot be converted", () => {
    expect(labelSelectorAsMatcher({ matchExpressions: [{ key: "a", operator: "In", values: [] }] })).toBeNull();
    expect(labelSelectorAsMatcher({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] })).toBeNull();
    expect(labelSelectorAsMatcher({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] })).toBeNull();
    expect(labelSelectorAsMatcher({ matchLabels: { "bad key!": "v" } })).toBeNull();
    expect(labelSelectorAsMatcher({ matchLabels: { k: "bad value!" } })).toBeNull();
  });
});
