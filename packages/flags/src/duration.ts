/**
 * Go `time.Duration`: a signed int64 count of nanoseconds, parsed with `time.ParseDuration`'s
 * grammar and printed as `Duration.String()` prints it.
 *
 * @see go/src/time/format.go (`ParseDuration`, Go 1.17) and go/src/time/time.go (`Duration.String`)
 */
import type { Result, ValueError } from "./errors.js";
import { ValueParseError, ValueRangeError } from "./errors.js";
import { timeQuote } from "./internal/go-quote.js";

const maxInt64 = (1n << 63n) - 1n;
const minInt64 = -(1n << 63n);

/**
 * An immutable Go duration: `nanoseconds` is an integer in the int64 range
 * [-2^63, 2^63-1]. Build one with {@link parseDuration}, {@link mustParseDuration} or the static
 * `from*` constructors; `toString()`/`toJSON()` give Go's text (`1m30s`), as `metav1.Duration`
 * serialises in JSON.
 *
 * @example
 * ```ts
 * const d = mustParseDuration("1h2m3.5s");
 * d.seconds; // 3723.5
 * String(d); // "1h2m3.5s"
 * ```
 */
export class Duration {
  /** The value in nanoseconds (int64 range). */
  readonly nanoseconds: bigint;

  private constructor(nanoseconds: bigint) {
    this.nanoseconds = nanoseconds;
  }

  /**
   * @throws {@link ValueRangeError} (`DurationOutOfRange`) outside the int64 range.
   */
  static fromNanoseconds(nanoseconds: bigint): Duration {
    if (nanoseconds > maxInt64 || nanoseconds < minInt64) {
      throw new ValueRangeError("DurationOutOfRange", `duration ${nanoseconds}ns is outside the int64 range`);
    }
    return new Duration(nanoseconds);
  }

  /**
   * Milliseconds (fractions allowed), rounded to the nearest nanosecond.
   *
   * @throws {@link ValueRangeError} for non-finite input or outside the int64 nanosecond range.
   */
  static fromMilliseconds(ms: number): Duration {
    if (!Number.isFinite(ms)) throw new ValueRangeError("DurationOutOfRange", `duration ${ms}ms is not finite`);
    return Duration.fromNanoseconds(BigInt(Math.round(ms * 1e6)));
  }

  /**
   * Seconds (fractions allowed), rounded to the nearest nanosecond.
   *
   * @throws {@link ValueRangeError} for non-finite input or outside the int64 nanosecond range.
   */
  static fromSeconds(seconds: number): Duration {
    if (!Number.isFinite(seconds)) throw new ValueRangeError("DurationOutOfRange", `duration ${seconds}s is not finite`);
    return Duration.fromNanoseconds(BigInt(Math.round(seconds * 1e9)));
  }

  /** Milliseconds as a number (fractional below 1ms; inexact beyond 2^53 ns ≈ 104 days). */
  get ms(): number {
    return Number(this.nanoseconds) / 1e6;
  }

  /** Seconds as a number (fractional; same precision note as {@link Duration.ms}). */
  get seconds(): number {
    return Number(this.nanoseconds) / 1e9;
  }

  /** Whether both hold the same number of nanoseconds. */
  equals(other: Duration): boolean {
    return this.nanoseconds === other.nanoseconds;
  }

  /** Go's `Duration.String()`, see {@link formatDuration}. */
  toString(): string {
    return formatDuration(this);
  }

  /** The JSON form `metav1.Duration` uses: the Go string. */
  toJSON(): string {
    return formatDuration(this);
  }
}

const nanosecond = 1n;
const microsecond = 1000n * nanosecond;
const millisecond = 1000n * microsecond;
const second = 1000n * millisecond;
const minute = 60n * second;
const hour = 60n * minute;

const unitMap: ReadonlyMap<string, bigint> = new Map([
  ["ns", nanosecond],
  ["us", microsecond],
  ["µs", microsecond], // U+00B5 micro sign
  ["μs", microsecond], // U+03BC Greek letter mu
  ["ms", millisecond],
  ["s", second],
  ["m", minute],
  ["h", hour],
]);

function fail(code: ValueError["code"], message: string): { ok: false; errors: readonly ValueError[] } {
  return { ok: false, errors: [{ code, message }] };
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Parses Go duration text: an optional sign, then one or more `<decimal><unit>` terms with units
 * `ns`, `us` (`µs`, `μs`), `ms`, `s`, `m`, `h` — `300ms`, `-1.5h`, `2h45m`, `1h2m3.5s`. `0` (with
 * an optional sign) needs no unit; any other bare number does.
 *
 * Errors carry Go 1.17's messages: `time: invalid duration "x"` (`InvalidDuration`, also for
 * values outside the int64 nanosecond range), `time: missing unit in duration "10"`
 * (`MissingUnit`), `time: unknown unit "d" in duration "1d"` (`UnknownUnit`). Fractions are
 * applied with float64 arithmetic exactly as Go does, so results agree to the nanosecond.
 *
 * @see go/src/time/format.go `ParseDuration`
 * @example
 * ```ts
 * const r = parseDuration("2h45m");
 * if (r.ok) r.value.seconds; // 9900
 * ```
 */
export function parseDuration(text: string): Result<Duration, ValueError> {
  const invalid = (): { ok: false; errors: readonly ValueError[] } =>
    fail("InvalidDuration", `time: invalid duration ${timeQuote(text)}`);
  let s = text;
  let neg = false;
  if (s !== "") {
    const c = s[0];
    if (c === "-" || c === "+") {
      neg = c === "-";
      s = s.slice(1);
    }
  }
  if (s === "0") return { ok: true, value: Duration.fromNanoseconds(0n) };
  if (s === "") return invalid();
  let d = 0n;
  let i = 0;
  while (i < s.length) {
    let c = s.charCodeAt(i);
    if (!(c === 0x2e || isDigit(c))) return invalid();
    // Integer part; more than 2^63-1 is an overflow.
    const intStart = i;
    let v = 0n;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    if (i > intStart) {
      v = BigInt(s.slice(intStart, i));
      if (v > maxInt64) return invalid();
    }
    const pre = i > intStart;
    // Fraction: digits accumulate until the next one would overflow int64; later ones are skipped.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (i < s.length && s.charCodeAt(i) === 0x2e) {
      i++;
      const fracStart = i;
      let overflow = false;
      for (; i < s.length; i++) {
        c = s.charCodeAt(i);
        if (!isDigit(c)) break;
        if (overflow) continue;
        if (f > maxInt64 / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(c - 0x30);
        if (y > maxInt64) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i > fracStart;
    }
    if (!pre && !post) return invalid();
    const unitStart = i;
    for (; i < s.length; i++) {
      c = s.charCodeAt(i);
      if (c === 0x2e || isDigit(c)) break;
    }
    if (i === unitStart) return fail("MissingUnit", `time: missing unit in duration ${timeQuote(text)}`);
    const u = s.slice(unitStart, i);
    const unit = unitMap.get(u);
    if (unit === undefined) {
      return fail("UnknownUnit", `time: unknown unit ${timeQuote(u)} in duration ${timeQuote(text)}`);
    }
    if (v > maxInt64 / unit) return invalid();
    v *= unit;
    if (f > 0n) {
      // Go: v += int64(float64(f) * (float64(unit) / scale)), the same float64 operations.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > maxInt64) return invalid();
    }
    d += v;
    if (d > maxInt64) return invalid();
  }
  return { ok: true, value: Duration.fromNanoseconds(neg ? -d : d) };
}

/**
 * Like {@link parseDuration}, for constants (flag defaults, tests).
 *
 * @throws {@link ValueParseError} when `text` is not a valid duration.
 */
export function mustParseDuration(text: string): Duration {
  const r = parseDuration(text);
  if (r.ok) return r.value;
  throw new ValueParseError(text, r.errors[0] ?? { code: "InvalidDuration", message: "invalid duration" });
}

function fmtFrac(v: bigint, prec: number): { text: string; rest: bigint } {
  let text = "";
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) text = `${digit}${text}`;
    v /= 10n;
  }
  return { text: print ? `.${text}` : "", rest: v };
}

/**
 * Go's `Duration.String()`: `72h3m0.5s`, `1m0s`, `2h45m0s`; under one second the largest
 * fitting unit of `ms`, `µs` (U+00B5), `ns` (`300ms`, `1.5µs`); zero is `0s`. Trailing
 * fractional zeros are dropped. Accepts a {@link Duration} or a nanosecond count.
 *
 * @see go/src/time/time.go `Duration.String`
 */
export function formatDuration(d: Duration | bigint): string {
  const ns = typeof d === "bigint" ? d : d.nanoseconds;
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < second) {
    let prec: number;
    let unit: string;
    if (u === 0n) return "0s";
    if (u < microsecond) {
      prec = 0;
      unit = "ns";
    } else if (u < millisecond) {
      prec = 3;
      unit = "µs";
    } else {
      prec = 6;
      unit = "ms";
    }
    const f = fmtFrac(u, prec);
    out = `${f.rest}${f.text}${unit}`;
  } else {
    const f = fmtFrac(u, 9);
    u = f.rest;
    out = `${u % 60n}${f.text}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}
