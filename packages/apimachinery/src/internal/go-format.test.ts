import { describe, expect, it } from "vitest";
import { formatAggregate, goFloat, goQuote, goTypeName, goValue } from "./go-format.js";

describe("goQuote", () => {
  it("quotes as strconv.Quote", () => {
    expect(goQuote("pi")).toBe('"pi"');
    expect(goQuote('a"b\\')).toBe('"a\\"b\\\\"');
    expect(goQuote("\x07\b\f\n\r\t\v")).toBe('"\\a\\b\\f\\n\\r\\t\\v"');
    expect(goQuote("\x00\x1b\x7f")).toBe('"\\x00\\x1b\\x7f"');
    expect(goQuote("日本 ✓ é")).toBe('"日本 ✓ é"');
    expect(goQuote("\u00ad\u2028")).toBe('"\\u00ad\\u2028"');
    expect(goQuote("\u{e0001}")).toBe('"\\U000e0001"');
    expect(goQuote("\ud800")).toBe('"\ufffd"');
  });
});

describe("goFloat", () => {
  it("prints float64 as %v", () => {
    expect(goFloat(1)).toBe("1");
    expect(goFloat(-1.5)).toBe("-1.5");
    expect(goFloat(0.0001)).toBe("0.0001");
    expect(goFloat(0.00001)).toBe("1e-05");
    expect(goFloat(1e20)).toBe("100000000000000000000");
    expect(goFloat(1e21)).toBe("1e+21");
    expect(goFloat(1.5e300)).toBe("1.5e+300");
    expect(goFloat(0)).toBe("0");
    expect(goFloat(-0)).toBe("-0");
    expect(goFloat(Number.NaN)).toBe("NaN");
    expect(goFloat(Infinity)).toBe("+Inf");
    expect(goFloat(-Infinity)).toBe("-Inf");
  });
});

describe("goValue", () => {
  it("prints decoded JSON as %v", () => {
    expect(goValue(null)).toBe("<nil>");
    expect(goValue(undefined)).toBe("<nil>");
    expect(goValue("s")).toBe("s");
    expect(goValue(true)).toBe("true");
    expect(goValue(3n)).toBe("3");
    expect(goValue([1, "a", [true]])).toBe("[1 a [true]]");
    expect(goValue({ b: 1, a: { c: null } })).toBe("map[a:map[c:<nil>] b:1]");
    expect(goValue(Symbol.for("x"))).toBe("Symbol(x)");
  });
});

describe("goTypeName", () => {
  it("names the Go type of decoded JSON", () => {
    expect([null, "s", 1, true, [], {}].map(goTypeName)).toEqual(["%!s(<nil>)", "string", "float64", "bool", "[]interface {}", "map[string]interface {}"]);
  });
});

describe("formatAggregate", () => {
  it("joins like utilerrors aggregates", () => {
    expect(formatAggregate([])).toBe("");
    expect(formatAggregate(["a"])).toBe("a");
    expect(formatAggregate(["a", "a"])).toBe("a");
    expect(formatAggregate(["a", "b", "a"])).toBe("[a, b]");
  });
});
