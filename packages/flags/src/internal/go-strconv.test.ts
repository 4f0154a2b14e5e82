import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatGoQuoted, goQuoteRune, timeQuote } from "./go-quote.js";
import { formatGoFloat, parseGoBool, parseGoFloat, parseGoInt, parseGoUint, underscoreOK } from "./go-strconv.js";

describe("formatGoQuoted (strconv.Quote)", () => {
  it.each([
    ["plain", '"plain"'],
    ["", '""'],
    ['a"b', '"a\\"b"'],
    ["a\\b", '"a\\\\b"'],
    ["tab\there", '"tab\\there"'],
    ["nl\n", '"nl\\n"'],
    ["\x07\x08\x0c\x0d\x0b", '"\\a\\b\\f\\r\\v"'],
    ["\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'],
    ["µs é 日本", '"µs é 日本"'],
    ["\u00a0", '"\\u00a0"'],
    ["\ufeff", '"\\ufeff"'],
    ["\u{e0001}", '"\\U000e0001"'],
    ["😀", '"😀"'],
  ])("%j → %s", (input, want) => {
    expect(formatGoQuoted(input)).toBe(want);
  });

  it("quotes runes with single quotes", () => {
    expect(goQuoteRune("x")).toBe("'x'");
    expect(goQuoteRune("'")).toBe("'\\''");
    expect(goQuoteRune('"')).toBe("'\"'");
    expect(goQuoteRune("\n")).toBe("'\\n'");
  });

  it("time's quote writes non-ASCII and control bytes as \\x escapes", () => {
    expect(timeQuote("1µx")).toBe('"1\\xc2\\xb5x"');
    expect(timeQuote('a"\\\t')).toBe('"a\\"\\\\\\x09"');
    expect(timeQuote("\x7f")).toBe('"\x7f"');
  });
});

describe("parseGoBool", () => {
  it.each(["1", "t", "T", "TRUE", "true", "True"])("%s is true", (s) => {
    expect(parseGoBool(s)).toEqual({ ok: true, value: true });
  });
  it.each(["0", "f", "F", "FALSE", "false", "False"])("%s is false", (s) => {
    expect(parseGoBool(s)).toEqual({ ok: true, value: false });
  });
  it.each(["", "yes", "tRUE", "maybe", " true", "constructor", "toString"])("%j is a syntax error", (s) => {
    expect(parseGoBool(s)).toEqual({ ok: false, error: `strconv.ParseBool: parsing ${formatGoQuoted(s)}: invalid syntax` });
  });
});

describe("parseGoInt", () => {
  const ok = (value: bigint) => ({ ok: true, value });
  const syntax = (s: string) => ({ ok: false, error: `strconv.ParseInt: parsing ${formatGoQuoted(s)}: invalid syntax` });
  const range = (s: string) => ({ ok: false, error: `strconv.ParseInt: parsing ${formatGoQuoted(s)}: value out of range` });

  it.each([
    ["0", 0, 32, ok(0n)],
    ["-0", 0, 32, ok(0n)],
    ["+12", 0, 32, ok(12n)],
    ["-12", 0, 32, ok(-12n)],
    ["2147483647", 0, 32, ok(2147483647n)],
    ["-2147483648", 0, 32, ok(-2147483648n)],
    ["2147483648", 0, 32, range("2147483648")],
    ["-2147483649", 0, 32, range("-2147483649")],
    ["99999999999", 0, 32, range("99999999999")],
    ["0x1F", 0, 32, ok(31n)],
    ["0X1f", 0, 32, ok(31n)],
    ["017", 0, 32, ok(15n)],
    ["0o17", 0, 32, ok(15n)],
    ["0b101", 0, 32, ok(5n)],
    ["1_000", 0, 32, ok(1000n)],
    ["0x_1f", 0, 32, ok(31n)],
    ["1__0", 0, 32, syntax("1__0")],
    ["_1", 0, 32, syntax("_1")],
    ["1_", 0, 32, syntax("1_")],
    ["1_000", 10, 32, syntax("1_000")],
    ["018", 0, 32, syntax("018")],
    ["0x", 0, 32, syntax("0x")],
    ["0xg", 0, 32, syntax("0xg")],
    ["", 0, 32, syntax("")],
    ["-", 0, 32, syntax("-")],
    ["+-1", 0, 32, syntax("+-1")],
    [" 1", 0, 32, syntax(" 1")],
    ["1.0", 0, 32, syntax("1.0")],
    ["١", 0, 32, syntax("١")],
    ["9223372036854775807", 0, 64, ok(9223372036854775807n)],
    ["-9223372036854775808", 0, 64, ok(-9223372036854775808n)],
    ["9223372036854775808", 0, 64, range("9223372036854775808")],
    ["99999999999999999999999", 0, 64, range("99999999999999999999999")],
    ["0x8000000000000000", 0, 64, range("0x8000000000000000")],
    ["010", 10, 32, ok(10n)],
    ["0x10", 10, 32, syntax("0x10")],
  ] as const)("ParseInt(%j, %i, %i)", (s, base, bits, want) => {
    expect(parseGoInt(s, base, bits)).toEqual(want);
  });

  it("agrees with BigInt for any decimal int64", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (n) => {
        expect(parseGoInt(n.toString(), 0, 64)).toEqual({ ok: true, value: n });
        const hexText = `${n < 0n ? "-" : ""}0x${(n < 0n ? -n : n).toString(16)}`;
        expect(parseGoInt(hexText, 0, 64)).toEqual({ ok: true, value: n });
      }),
    );
  });
});

describe("parseGoUint", () => {
  it("parses unsigned values in Go syntax", () => {
    expect(parseGoUint("18446744073709551615", 0, 64)).toEqual({ ok: true, value: 18446744073709551615n });
    expect(parseGoUint("0xff", 0, 64)).toEqual({ ok: true, value: 255n });
  });
  it.each([
    ["-1", "invalid syntax"],
    ["+1", "invalid syntax"],
    ["18446744073709551616", "value out of range"],
    ["abc", "invalid syntax"],
  ])("%j → %s", (s, why) => {
    expect(parseGoUint(s, 0, 64)).toEqual({ ok: false, error: `strconv.ParseUint: parsing ${formatGoQuoted(s)}: ${why}` });
  });
});

describe("underscoreOK", () => {
  it.each([
    ["1_000", true],
    ["0x_ff", true],
    ["0b_1", true],
    ["_1", false],
    ["1_", false],
    ["1__2", false],
    ["-1_2", true],
    ["0_x1", false],
  ])("%s → %s", (s, want) => {
    expect(underscoreOK(s)).toBe(want);
  });
});

describe("parseGoFloat", () => {
  it.each([
    ["1", 1],
    ["-1.5", -1.5],
    ["+.5", 0.5],
    ["1.", 1],
    ["1e3", 1000],
    ["1E-2", 0.01],
    ["1_000.5", 1000.5],
    ["1e1_0", 1e10],
    ["0x1p-2", 0.25],
    ["0x1.8p1", 3],
    ["-0X.8P1", -1],
    ["0x1fffffffffffffp0", 9007199254740991],
    ["0x20000000000001p0", 9007199254740992],
    ["0x20000000000003p0", 9007199254740996],
    ["0x1p-1074", 5e-324],
    ["0x1p-1075", 0],
    ["0x3p-1076", 5e-324],
    ["1e-400", 0],
    ["inf", Number.POSITIVE_INFINITY],
    ["+Inf", Number.POSITIVE_INFINITY],
    ["-infinity", Number.NEGATIVE_INFINITY],
    ["NaN", Number.NaN],
    ["nan", Number.NaN],
    ["4.9406564584124654e-324", 5e-324],
    ["1.7976931348623157e308", 1.7976931348623157e308],
  ])("%s → %d", (s, want) => {
    expect(parseGoFloat(s)).toEqual({ ok: true, value: want });
  });
  it.each(["", ".", "e1", "1e", "1e+", "0x1", "0x1.p", "1_", "_1", "1__0", "infx", "infin", "+nan", "1.2.3", "1 ", "0x"])(
    "%j is a syntax error",
    (s) => {
      expect(parseGoFloat(s)).toEqual({ ok: false, error: `strconv.ParseFloat: parsing ${formatGoQuoted(s)}: invalid syntax` });
    },
  );
  it.each(["1e309", "-1e400", "0x1p1024", "1.7976931348623159e308"])("%s is out of range", (s) => {
    expect(parseGoFloat(s)).toEqual({ ok: false, error: `strconv.ParseFloat: parsing ${formatGoQuoted(s)}: value out of range` });
  });
});

describe("formatGoFloat ('g', -1)", () => {
  it.each([
    [0, "0"],
    [-0, "-0"],
    [1, "1"],
    [1.5, "1.5"],
    [100000, "100000"],
    [123456, "123456"],
    [1e6, "1e+06"],
    [1234567, "1.234567e+06"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1e21, "1e+21"],
    [1.5e-300, "1.5e-300"],
    [1e100, "1e+100"],
    [Number.NaN, "NaN"],
    [Number.POSITIVE_INFINITY, "+Inf"],
    [Number.NEGATIVE_INFINITY, "-Inf"],
    [-2.5, "-2.5"],
  ])("%d → %s", (x, want) => {
    expect(formatGoFloat(x)).toBe(want);
  });

  it("round-trips every finite double through parseGoFloat", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(parseGoFloat(formatGoFloat(x))).toEqual({ ok: true, value: x });
      }),
    );
  });
});

describe("formatGoQuoted (the public strconv.Quote)", () => {
  it("escapes as Go does and prints a lone surrogate as U+FFFD", async () => {
    const { formatGoQuoted } = await import("../index.js");
    expect(formatGoQuoted('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(formatGoQuoted("a\nb\tc\u0007\u0000\u007f")).toBe('"a\\nb\\tc\\a\\x00\\x7f"');
    expect(formatGoQuoted("héllo 世界 😀")).toBe('"héllo 世界 😀"');
    expect(formatGoQuoted("\u0085\u00a0\u2028\u{e0001}")).toBe('"\\u0085\\u00a0\\u2028\\U000e0001"');
    expect(formatGoQuoted("\ud800")).toBe('"\ufffd"');
  });
});
