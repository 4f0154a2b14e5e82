import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValueParseError, ValueRangeError } from "./errors.js";
import type { Quantity } from "./quantity.js";
import {
  cmpQuantity,
  formatQuantity,
  mustParseQuantity,
  newMilliQuantity,
  newQuantity,
  parseQuantity,
  quantityMilliValue,
  quantityToNumber,
  quantityValue,
} from "./quantity.js";

const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function q(text: string): Quantity {
  return mustParseQuantity(text);
}

describe("parseQuantity + formatQuantity", () => {
  it.each([
    // text, format, canonical text, value
    ["0", "DecimalSI", "0", "0"],
    ["1", "DecimalSI", "1", "1"],
    ["-1", "DecimalSI", "-1", "-1"],
    ["+5", "DecimalSI", "5", "5"],
    ["0.1", "DecimalSI", "100m", "0.1"],
    ["1.5", "DecimalSI", "1500m", "1.5"],
    ["1.1", "DecimalSI", "1100m", "1.1"],
    ["0.001", "DecimalSI", "1m", "0.001"],
    ["0.0001", "DecimalSI", "100u", "0.0001"],
    ["0.1m", "DecimalSI", "100u", "0.0001"],
    ["100m", "DecimalSI", "100m", "0.1"],
    ["1500m", "DecimalSI", "1500m", "1.5"],
    ["1n", "DecimalSI", "1n", "1e-9"],
    ["0.5n", "DecimalSI", "1n", "1e-9"],
    ["1.5n", "DecimalSI", "2n", "2e-9"],
    ["-1.5n", "DecimalSI", "-2n", "-2e-9"],
    ["1000", "DecimalSI", "1k", "1000"],
    ["1001", "DecimalSI", "1001", "1001"],
    ["1000000", "DecimalSI", "1M", "1000000"],
    ["1k", "DecimalSI", "1k", "1000"],
    ["1.G", "DecimalSI", "1G", "1e9"],
    ["2T", "DecimalSI", "2T", "2e12"],
    ["3P", "DecimalSI", "3P", "3e15"],
    ["4E", "DecimalSI", "4E", "4e18"],
    ["1000E", "DecimalSI", "1000E", "1e21"],
    ["007", "DecimalSI", "7", "7"],
    ["1e3", "DecimalExponent", "1e3", "1000"],
    ["1E3", "DecimalExponent", "1e3", "1000"],
    ["12e6", "DecimalExponent", "12e6", "12e6"],
    ["1e-3", "DecimalExponent", "1e-3", "0.001"],
    ["1e-10", "DecimalExponent", "1e-9", "1e-9"],
    ["1.5e+2", "DecimalExponent", "150", "150"],
    ["10Mi", "BinarySI", "10Mi", "10485760"],
    ["1Ki", "BinarySI", "1Ki", "1024"],
    ["1024Ki", "BinarySI", "1Mi", "1048576"],
    ["1000Ki", "BinarySI", "1000Ki", "1024000"],
    ["1.5Gi", "BinarySI", "1536Mi", "1610612736"],
    ["0.5Gi", "BinarySI", "512Mi", "536870912"],
    ["1.5Ki", "BinarySI", "1536", "1536"],
    ["0.1Ki", "BinarySI", "102400m", "102.4"],
    ["1.1Ki", "BinarySI", "1126400m", "1126.4"],
    ["0.5Ki", "BinarySI", "512", "512"],
    ["7Ei", "BinarySI", "7Ei", "8070450532247928832"],
    ["8Ei", "BinarySI", "9223372036854775807", "9223372036854775807"],
    ["-8Ei", "BinarySI", "-9223372036854775807", "-9223372036854775807"],
    ["0Ki", "BinarySI", "0", "0"],
    // Kubernetes' scanner accepts a suffix without digits as zero, and a lone sign.
    ["Ki", "BinarySI", "0", "0"],
    ["m", "DecimalSI", "0", "0"],
    ["-", "DecimalSI", "0", "0"],
    ["000", "DecimalSI", "0", "0"],
    [".", "DecimalSI", "0", "0"],
  ] as const)("%s → %s %s", (text, format, canonical, value) => {
    const r = parseQuantity(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.format).toBe(format);
    expect(formatQuantity(r.value)).toBe(canonical);
    expect(String(r.value)).toBe(canonical);
    expect(quantityToNumber(r.value)).toBe(Number(value));
  });

  it("a fraction of a binary quantity below one becomes DecimalSI", () => {
    expect(q("0.0001Ki").format).toBe("DecimalSI");
    expect(formatQuantity(q("0.0001Ki"))).toBe("102400u");
  });

  it.each([
    ["", formatWrong],
    ["abc", formatWrong],
    ["1.5.5", formatWrong],
    ["1Kix", formatWrong],
    ["1 ", formatWrong],
    [" 1", formatWrong],
    ["1e3.5", formatWrong],
    ["--1", "unable to parse quantity's suffix"],
    ["1K", "unable to parse quantity's suffix"],
    ["5i", "unable to parse quantity's suffix"],
    ["1e", "unable to parse quantity's suffix"],
    ["1ee5", "unable to parse quantity's suffix"],
    ["1Ki5", "unable to parse quantity's suffix"],
    ["1e99999999999999999999", "unable to parse quantity's suffix"],
    ["1MB", formatWrong],
    ["Pi", "unable to parse numeric part of quantity"],
    [".Ei", "unable to parse numeric part of quantity"],
    [".e-10", "unable to parse numeric part of quantity"],
  ])("%j fails: %s", (text, message) => {
    const r = parseQuantity(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.message)).toEqual([message]);
  });

  it("keeps Kubernetes' int32 wrap-around of huge exponents", () => {
    expect(formatQuantity(q("1e4294967296"))).toBe("1");
  });

  it("mustParseQuantity throws a typed error", () => {
    expect(() => mustParseQuantity("1K")).toThrow(ValueParseError);
    expect(() => mustParseQuantity("")).toThrow(/quantities must match/);
  });
});

describe("conversions", () => {
  it.each([
    ["10Mi", 10485760n, 10485760000n],
    ["100m", 1n, 100n],
    ["1.5", 2n, 1500n],
    ["-1.5", -2n, -1500n],
    ["0.1m", 1n, 1n],
    ["2", 2n, 2000n],
    ["1e3", 1000n, 1000000n],
    ["0", 0n, 0n],
  ])("%s: value %i, milli %i", (text, value, milli) => {
    expect(quantityValue(q(text))).toBe(value);
    expect(quantityMilliValue(q(text))).toBe(milli);
  });

  it("refuses to materialise absurd exponents", () => {
    expect(() => quantityValue(q("1e20000"))).toThrow(ValueRangeError);
  });

  it("builds quantities from integers and milli-units", () => {
    expect(formatQuantity(newQuantity(1024, "BinarySI"))).toBe("1Ki");
    expect(formatQuantity(newQuantity(5n))).toBe("5");
    expect(formatQuantity(newMilliQuantity(1500))).toBe("1500m");
    expect(formatQuantity(newMilliQuantity(2000))).toBe("2");
    expect(() => newQuantity(1.5)).toThrow(ValueRangeError);
    expect(JSON.stringify({ size: newQuantity(2048, "BinarySI") })).toBe('{"size":"2Ki"}');
  });
});

describe("cmpQuantity", () => {
  it.each([
    ["1Ki", "1024", 0],
    ["1k", "1Ki", -1],
    ["1Gi", "1G", 1],
    ["-1", "1", -1],
    ["0", "-0.5", 1],
    ["100m", "0.1", 0],
    ["1e3", "1k", 0],
    ["999m", "1", -1],
    ["-2", "-3", 1],
    ["1000E", "1e21", 0],
    ["1n", "0", 1],
  ] as const)("cmp(%s, %s) = %i", (a, b, want) => {
    expect(cmpQuantity(q(a), q(b))).toBe(want);
    expect(cmpQuantity(q(b), q(a))).toBe(-want === 0 ? 0 : -want);
  });
});

const digits = fc.stringMatching(/^[0-9]{1,12}$/);
const suffix = fc.constantFrom("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-2", "e+5", "e-12", "e0");
const quantityText = fc
  .tuple(fc.constantFrom("", "-", "+"), digits, fc.option(fc.stringMatching(/^[0-9]{0,10}$/), { nil: undefined }), suffix)
  .map(([sign, int, frac, suf]) => `${sign}${int}${frac === undefined ? "" : `.${frac}`}${suf}`);

describe("round trips", () => {
  it("parse(format(q)) has the same value and format(parse(format(q))) is stable", () => {
    fc.assert(
      fc.property(quantityText, (text) => {
        const r = parseQuantity(text);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const canonical = formatQuantity(r.value);
        const again = mustParseQuantity(canonical);
        expect(cmpQuantity(again, r.value)).toBe(0);
        expect(formatQuantity(again)).toBe(canonical);
      }),
    );
  });

  it("cmpQuantity agrees with exact rational comparison", () => {
    fc.assert(
      fc.property(quantityText, quantityText, (a, b) => {
        const qa = q(a);
        const qb = q(b);
        // Compare coefficient × 10^exponent exactly by scaling both to the smaller exponent.
        const e = Math.min(qa.exponent, qb.exponent);
        const x = qa.coefficient * 10n ** BigInt(qa.exponent - e);
        const y = qb.coefficient * 10n ** BigInt(qb.exponent - e);
        expect(cmpQuantity(qa, qb)).toBe(x === y ? 0 : x < y ? -1 : 1);
      }),
    );
  });
});
