import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cloneJSON, deepEqual, hasOwn, isObject, jsonKind, setOwn } from "./json.js";

describe("JSON helpers", () => {
  it("cloneJSON copies deeply and keeps __proto__ keys as data", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const c = cloneJSON(v);
        expect(c).toEqual(v);
        expect(deepEqual(c, v)).toBe(true);
      }),
    );
    const withProto = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    const c = cloneJSON(withProto);
    expect(hasOwn(c, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
  });

  it("deepEqual compares structure, not identity or key order", () => {
    expect(deepEqual({ a: [1, { b: 2 }], c: null }, { c: null, a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
    expect(deepEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(deepEqual(1, "1")).toBe(false);
  });

  it("setOwn defines __proto__ as an own property", () => {
    const o: Record<string, unknown> = {};
    setOwn(o, "__proto__", { polluted: true });
    setOwn(o, "a", 1);
    expect(hasOwn(o, "__proto__")).toBe(true);
    expect(o.a).toBe(1);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("classifies JSON kinds", () => {
    expect([null, undefined, [], {}, "s", true, 1].map(jsonKind)).toEqual(["null", "null", "array", "object", "string", "boolean", "number"]);
    expect([{}, [], null, "x"].map(isObject)).toEqual([true, false, false, false]);
  });
});
