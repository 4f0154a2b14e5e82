import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareQuantities, parseQuantity, quantityCeil, quantityMilliCeil, quantitySign } from "./quantity.js";

const q = (v: unknown) => {
  const r = parseQuantity(v);
  if (r === undefined) throw new Error(`not a quantity: ${String(v)}`);
  return r;
};

describe("parseQuantity", () => {
  it("reads decimal and binary suffixes, exponents and numbers", () => {
    expect(compareQuantities(q("100m"), q("0.1"))).toBe(0);
    expect(compareQuantities(q("1Ki"), q(1024))).toBe(0);
    expect(compareQuantities(q("1k"), q("1e3"))).toBe(0);
    expect(compareQuantities(q("1E"), q("1e18"))).toBe(0);
    expect(compareQuantities(q("1Ei"), q(String(2n ** 60n)))).toBe(0);
    expect(compareQuantities(q(".5"), q("500m"))).toBe(0);
    expect(compareQuantities(q("1."), q("1"))).toBe(0);
    expect(compareQuantities(q("+2"), q("2"))).toBe(0);
    expect(compareQuantities(q("1n"), q("1u"))).toBe(-1);
    expect(compareQuantities(q("2Gi"), q("2G"))).toBe(1);
    expect(compareQuantities(q(1e21), q("1e21"))).toBe(0);
  });

  it("rejects malformed quantities without throwing", () => {
    for (const bad of ["", "abc", "1.2.3", "1KiB", "1e", "--1", "1 Gi", "Ki", "1ki", "1e1001", null, undefined, {}, Number.NaN]) {
      expect(parseQuantity(bad)).toBeUndefined();
    }
  });

  it("reports sign, ceilings and milli ceilings", () => {
    expect(quantitySign(q("-1m"))).toBe(-1);
    expect(quantitySign(q("0"))).toBe(0);
    expect(quantityCeil(q("1.2"))).toBe(2n);
    expect(quantityCeil(q("-1.2"))).toBe(-1n);
    expect(quantityMilliCeil(q("0.0001"))).toBe(1n);
  });

  it("orders like the numbers it denotes (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -1e9, max: 1e9 }), (a, b) => {
        expect(compareQuantities(q(`${a}m`), q(`${b}m`))).toBe(Math.sign(a - b));
        expect(compareQuantities(q(`${a}Ki`), q(a * 1024))).toBe(0);
      }),
    );
  });
});
