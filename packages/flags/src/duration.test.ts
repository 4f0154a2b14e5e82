import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Duration, formatDuration, mustParseDuration, parseDuration } from "./duration.js";
import { ValueParseError, ValueRangeError } from "./errors.js";

const ns = 1n;
const us = 1000n;
const ms = 1000n * us;
const s = 1000n * ms;
const m = 60n * s;
const h = 60n * m;
const maxInt64 = (1n << 63n) - 1n;

function nanos(text: string): bigint {
  const r = parseDuration(text);
  if (!r.ok) throw new Error(`unexpected failure for ${text}: ${r.errors[0]?.message}`);
  return r.value.nanoseconds;
}

describe("parseDuration", () => {
  // The valid cases of Go's time/format_test.go parseDurationTests, plus the brief's examples.
  it.each([
    ["0", 0n],
    ["5s", 5n * s],
    ["30s", 30n * s],
    ["1478s", 1478n * s],
    ["-5s", -5n * s],
    ["+5s", 5n * s],
    ["-0", 0n],
    ["+0", 0n],
    ["5.0s", 5n * s],
    ["5.6s", 5n * s + 600n * ms],
    ["5.s", 5n * s],
    [".5s", 500n * ms],
    ["1.0s", 1n * s],
    ["1.00s", 1n * s],
    ["1.004s", 1n * s + 4n * ms],
    ["1.0040s", 1n * s + 4n * ms],
    ["100.00100s", 100n * s + 1n * ms],
    ["10ns", 10n * ns],
    ["11us", 11n * us],
    ["12µs", 12n * us],
    ["12μs", 12n * us],
    ["13ms", 13n * ms],
    ["14s", 14n * s],
    ["15m", 15n * m],
    ["16h", 16n * h],
    ["3h30m", 3n * h + 30n * m],
    ["10.5s4m", 4n * m + 10n * s + 500n * ms],
    ["-2m3.4s", -(2n * m + 3n * s + 400n * ms)],
    ["1h2m3s4ms5us6ns", h + 2n * m + 3n * s + 4n * ms + 5n * us + 6n * ns],
    ["39h9m14.425s", 39n * h + 9n * m + 14n * s + 425n * ms],
    ["52763797000ns", 52763797000n],
    ["0.3333333333333333333h", 20n * m],
    ["9007199254740993ns", (1n << 53n) + 1n],
    ["9223372036854775807ns", maxInt64],
    ["9223372036854775.807us", maxInt64],
    ["9223372036s854ms775us807ns", maxInt64],
    ["-9223372036854775807ns", -maxInt64],
    ["0.100000000000000000000h", 6n * m],
    ["0.830103483285477580700h", 49n * m + 48n * s + 372539827n],
    ["300ms", 300n * ms],
    ["-1.5h", -(h + 30n * m)],
    ["2h45m", 2n * h + 45n * m],
    ["1h2m3.5s", h + 2n * m + 3n * s + 500n * ms],
    ["10us", 10n * us],
    ["10µs", 10n * us],
  ])("%s = %i ns", (text, want) => {
    expect(nanos(text)).toBe(want);
  });

  it.each([
    ["", "InvalidDuration", 'time: invalid duration ""'],
    ["3", "MissingUnit", 'time: missing unit in duration "3"'],
    ["10", "MissingUnit", 'time: missing unit in duration "10"'],
    ["-", "InvalidDuration", 'time: invalid duration "-"'],
    ["s", "InvalidDuration", 'time: invalid duration "s"'],
    [".", "InvalidDuration", 'time: invalid duration "."'],
    ["-.", "InvalidDuration", 'time: invalid duration "-."'],
    [".s", "InvalidDuration", 'time: invalid duration ".s"'],
    ["+.s", "InvalidDuration", 'time: invalid duration "+.s"'],
    ["1d", "UnknownUnit", 'time: unknown unit "d" in duration "1d"'],
    ["1hour", "UnknownUnit", 'time: unknown unit "hour" in duration "1hour"'],
    ["5m x", "UnknownUnit", 'time: unknown unit "m x" in duration "5m x"'],
    ["1µx", "UnknownUnit", 'time: unknown unit "\\xc2\\xb5x" in duration "1\\xc2\\xb5x"'],
    ["3000000h", "InvalidDuration", 'time: invalid duration "3000000h"'],
    ["9223372036854775808ns", "InvalidDuration", 'time: invalid duration "9223372036854775808ns"'],
    ["9223372036854775.808us", "InvalidDuration", 'time: invalid duration "9223372036854775.808us"'],
    ["9223372036854ms775us808ns", "InvalidDuration", 'time: invalid duration "9223372036854ms775us808ns"'],
    // Go 1.17 cannot parse the minimum duration (fixed in later Go releases).
    ["-9223372036854775808ns", "InvalidDuration", 'time: invalid duration "-9223372036854775808ns"'],
    ["1s-1s", "UnknownUnit", 'time: unknown unit "s-" in duration "1s-1s"'],
    ["1s.", "InvalidDuration", 'time: invalid duration "1s."'],
    ['1"s', "UnknownUnit", 'time: unknown unit "\\"s" in duration "1\\"s"'],
  ])("%j fails: %s", (text, code, message) => {
    expect(parseDuration(text)).toEqual({ ok: false, errors: [{ code, message }] });
  });

  it("mustParseDuration throws a typed error", () => {
    expect(mustParseDuration("20s").nanoseconds).toBe(20n * s);
    expect(() => mustParseDuration("1d")).toThrow(ValueParseError);
    try {
      mustParseDuration("1d");
    } catch (e) {
      expect(e).toMatchObject({ code: "UnknownUnit", input: "1d" });
    }
  });
});

describe("formatDuration (Duration.String)", () => {
  it.each([
    [0n, "0s"],
    [1n, "1ns"],
    [1100n, "1.1µs"],
    [1500n, "1.5µs"],
    [2200n * us, "2.2ms"],
    [300n * ms, "300ms"],
    [3300n * ms, "3.3s"],
    [m, "1m0s"],
    [4n * m + 5n * s, "4m5s"],
    [4n * m + 5001n * ms, "4m5.001s"],
    [5n * h + 6n * m + 7001n * ms, "5h6m7.001s"],
    [8n * m + 1n, "8m0.000000001s"],
    [2n * h + 45n * m, "2h45m0s"],
    [4n * h, "4h0m0s"],
    [maxInt64, "2562047h47m16.854775807s"],
    [-(1n << 63n), "-2562047h47m16.854775808s"],
    [-1500n * ms, "-1.5s"],
    [-1n, "-1ns"],
  ])("%i ns → %s", (n, want) => {
    expect(formatDuration(n)).toBe(want);
    expect(formatDuration(Duration.fromNanoseconds(n))).toBe(want);
  });

  it("parse(format(d)) == d for every int64 above the minimum", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -maxInt64, max: maxInt64 }), (n) => {
        expect(nanos(formatDuration(n))).toBe(n);
      }),
    );
  });

  it("parse(format(d)) == d for small durations (every unit branch)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -10n * h, max: 10n * h }), (n) => {
        expect(nanos(formatDuration(n))).toBe(n);
      }),
    );
  });

  it("format(parse(x)) is stable for generated duration texts", () => {
    const unit = fc.constantFrom("ns", "us", "µs", "μs", "ms", "s", "m", "h");
    const num = fc.tuple(fc.nat({ max: 99999 }), fc.option(fc.stringMatching(/^[0-9]{0,12}$/), { nil: undefined }));
    const term = fc.tuple(num, unit).map(([[i, f], u]) => `${i}${f === undefined ? "" : `.${f}`}${u}`);
    const text = fc
      .tuple(fc.constantFrom("", "-", "+"), fc.array(term, { minLength: 1, maxLength: 4 }))
      .map(([sign, terms]) => sign + terms.join(""));
    fc.assert(
      fc.property(text, (t) => {
        const r = parseDuration(t);
        if (!r.ok) {
          expect(r.errors[0]?.code).toBe("InvalidDuration");
          return;
        }
        const canonical = formatDuration(r.value);
        expect(formatDuration(mustParseDuration(canonical))).toBe(canonical);
        expect(mustParseDuration(canonical).nanoseconds).toBe(r.value.nanoseconds);
      }),
    );
  });
});

describe("Duration", () => {
  it("exposes milliseconds and seconds", () => {
    const d = mustParseDuration("1m30.5s");
    expect(d.ms).toBe(90500);
    expect(d.seconds).toBe(90.5);
    expect(String(d)).toBe("1m30.5s");
    expect(JSON.stringify({ d })).toBe('{"d":"1m30.5s"}');
    expect(d.equals(Duration.fromSeconds(90.5))).toBe(true);
    expect(Duration.fromMilliseconds(1.5).nanoseconds).toBe(1500000n);
    expect(Duration.fromMilliseconds(0.1).nanoseconds).toBe(100000n);
  });

  it("rejects values outside the int64 nanosecond range", () => {
    expect(() => Duration.fromNanoseconds(1n << 63n)).toThrow(ValueRangeError);
    expect(() => Duration.fromSeconds(1e10)).toThrow(ValueRangeError);
    expect(() => Duration.fromMilliseconds(Number.NaN)).toThrow(ValueRangeError);
    expect(() => Duration.fromSeconds(Number.POSITIVE_INFINITY)).toThrow(ValueRangeError);
    expect(Duration.fromNanoseconds(-(1n << 63n)).nanoseconds).toBe(-(1n << 63n));
  });
});
