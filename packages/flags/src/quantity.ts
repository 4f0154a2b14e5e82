/**
 * Kubernetes `resource.Quantity`: exact fixed-point numbers with SI (`k`, `M`, `G`...), binary
 * (`Ki`, `Mi`...) or exponent (`1e3`) suffixes, as used by `--system-reserved` values, container
 * log sizes and the `quantity` flag type.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
 * @see staging/src/k8s.io/apimachinery/pkg/api/resource/suffix.go
 */
import type { Result, ValueError } from "./errors.js";
import { ValueParseError, ValueRangeError } from "./errors.js";
import { parseGoInt } from "./internal/go-strconv.js";

/**
 * How a quantity is written back: `DecimalSI` (`12M`, `100m`), `BinarySI` (`12Mi`) or
 * `DecimalExponent` (`12e6`). Parsing remembers the suffix family that was used.
 */
export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

/**
 * An exact quantity: the value is `coefficient × 10^exponent`, held normalised (`coefficient`
 * has no trailing zero digits; zero is `0n × 10^0`), so equal values built the same way are
 * structurally equal. Values parsed by {@link parseQuantity} are multiples of 10^-9 (rounded up
 * away from zero, as Kubernetes does) and `BinarySI` ones are capped at 2^63-1 in magnitude.
 *
 * Compare with {@link cmpQuantity}; convert with {@link quantityValue} (bytes, cores, counts),
 * {@link quantityMilliValue} (milli-cores) or {@link quantityToNumber}. `toString()`/`toJSON()`
 * give the canonical text ({@link formatQuantity}).
 */
export class Quantity {
  readonly coefficient: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;

  /** Prefer {@link parseQuantity}, {@link newQuantity} or {@link newMilliQuantity}. */
  constructor(coefficient: bigint, exponent: number, format: QuantityFormat) {
    if (coefficient === 0n) {
      exponent = 0;
    } else {
      while (coefficient % 10n === 0n) {
        coefficient /= 10n;
        exponent++;
      }
    }
    this.coefficient = coefficient;
    this.exponent = exponent;
    this.format = format;
  }

  /** The canonical text, see {@link formatQuantity}. */
  toString(): string {
    return formatQuantity(this);
  }

  /** The canonical text, as `resource.Quantity` marshals to JSON. */
  toJSON(): string {
    return formatQuantity(this);
  }
}

const splitREString = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
const errFormatWrong: ValueError = {
  code: "QuantityFormat",
  message: `quantities must match the regular expression '${splitREString}'`,
};
const errNumeric: ValueError = { code: "QuantityNumeric", message: "unable to parse numeric part of quantity" };
const errSuffix: ValueError = { code: "QuantitySuffix", message: "unable to parse quantity's suffix" };

interface Scanned {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

const suffixChars = "eEinumkKMGTP";

// A port of parseQuantityString: returns undefined where Kubernetes returns ErrFormatWrong.
function scanQuantity(str: string): Scanned | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === "-") {
      positive = false;
      pos++;
    } else if (str[0] === "+") {
      pos++;
    }
  }
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
    if (str[i] !== "0") break;
    pos++;
  }
  let num = "";
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: str, num: str.slice(pos), denom: "", suffix: "" };
    if (!isDigitAt(str, i)) {
      num = str.slice(pos, i);
      pos = i;
      break;
    }
  }
  if (num === "") num = "0";
  let denom = "";
  if (pos < end && str[pos] === ".") {
    pos++;
    for (let i = pos; ; i++) {
      if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: "" };
      if (!isDigitAt(str, i)) {
        denom = str.slice(pos, i);
        pos = i;
        break;
      }
    }
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!suffixChars.includes(str[i] ?? "")) {
      pos = i;
      break;
    }
  }
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!isDigitAt(str, i)) return undefined;
  }
}

interface Interpreted {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

const decimalSuffixes: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const binarySuffixes: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const decimalSuffixByExponent: ReadonlyMap<number, string> = new Map([...decimalSuffixes].map(([k, v]) => [v, k]));
const binarySuffixByPower = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;

function interpretSuffix(suffix: string): Interpreted | undefined {
  const dec = decimalSuffixes.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = binarySuffixes.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "E" || suffix[0] === "e")) {
    const parsed = parseGoInt(suffix.slice(1), 10, 64);
    if (!parsed.ok) return undefined;
    // Kubernetes keeps the exponent as an int32 (`int32(parsed)`), wrapping larger values.
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed.value)), format: "DecimalExponent" };
  }
  return undefined;
}

const maxInt64 = (1n << 63n) - 1n;

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

function digitCount(n: bigint): number {
  return n === 0n ? 0 : abs(n).toString().length;
}

/** Whether |c × 10^e| > limit. */
function exceeds(c: bigint, e: number, limit: bigint): boolean {
  const limitDigits = limit.toString().length;
  if (digitCount(c) + e > limitDigits) return true;
  if (digitCount(c) + e < limitDigits) return false;
  return e >= 0 ? abs(c) * pow10(e) > limit : abs(c) > limit * pow10(-e);
}

/** Rounds `c × 10^e` away from zero to a multiple of `10^target` (target > e). */
function roundUpTo(c: bigint, e: number, target: number): { c: bigint; e: number } {
  const drop = target - e;
  const sign = c < 0n ? -1n : 1n;
  const m = abs(c);
  if (drop > digitCount(m)) return { c: sign, e: target };
  const p = pow10(drop);
  let q = m / p;
  if (m % p !== 0n) q += 1n;
  return { c: sign * q, e: target };
}

/**
 * Parses a Kubernetes quantity: `<sign?><digits>[.<digits>]<suffix>` with suffixes `n u m "" k
 * M G T P E` (powers of 1000), `Ki Mi Gi Ti Pi Ei` (powers of 1024) or `e<int>`/`E<int>`
 * (powers of ten): `100m`, `1.5Gi`, `1e3`, `-2k`. `K` alone is not a suffix (`1K` fails with
 * `QuantitySuffix`). The result is exact: fractions below 10^-9 round up away from zero;
 * `BinarySI` values are capped at 2^63-1; a `BinarySI` value strictly between -1 and 1 becomes
 * `DecimalSI`. Quirks of the Kubernetes scanner are kept (`Ki` alone is zero, `Pi` alone fails).
 *
 * Errors (one, with Kubernetes' message): `QuantityFormat` (`quantities must match the regular
 * expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`), `QuantityNumeric` (`unable to
 * parse numeric part of quantity`), `QuantitySuffix` (`unable to parse quantity's suffix`).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go `ParseQuantity`
 * @example
 * ```ts
 * const r = parseQuantity("1.5Gi");
 * if (r.ok) quantityValue(r.value); // 1610612736n
 * ```
 */
export function parseQuantity(text: string): Result<Quantity, ValueError> {
  if (text.length === 0) return { ok: false, errors: [errFormatWrong] };
  if (text === "0") return { ok: true, value: new Quantity(0n, 0, "DecimalSI") };
  const sc = scanQuantity(text);
  if (sc === undefined) return { ok: false, errors: [errFormatWrong] };
  const it = interpretSuffix(sc.suffix);
  if (it === undefined) return { ok: false, errors: [errSuffix] };
  let format = it.format;

  // Which of Kubernetes' two code paths would run decides whether a digit-less number fails.
  let precision: number;
  let scale = 0;
  if (format === "BinarySI") {
    precision = it.exponent >= 0 && sc.denom.length === 0 ? 15 - sc.num.length - Math.trunc((it.exponent * 3) / 10) - 1 : -1;
  } else {
    scale = it.exponent;
    precision = 18 - (sc.num.length + sc.denom.length);
  }
  const fastPath = precision >= 0 && scale - sc.denom.length >= -9;
  if (!fastPath && !/[0-9]/.test(sc.value)) return { ok: false, errors: [errNumeric] };

  let c = BigInt(sc.num + sc.denom);
  let e = -sc.denom.length;
  if (it.base === 10) e += it.exponent;
  else c <<= BigInt(it.exponent);
  if (!sc.positive) c = -c;
  if (c !== 0n && e < -9) ({ c, e } = roundUpTo(c, e, -9));
  let q = new Quantity(c, e, format);
  if (format === "BinarySI" && q.coefficient !== 0n) {
    if (exceeds(q.coefficient, q.exponent, maxInt64)) {
      q = new Quantity(q.coefficient < 0n ? -maxInt64 : maxInt64, 0, format);
    } else if (q.exponent < 0 && digitCount(q.coefficient) <= -q.exponent) {
      format = "DecimalSI";
      q = new Quantity(q.coefficient, q.exponent, format);
    }
  }
  return { ok: true, value: q };
}

/**
 * Like {@link parseQuantity}, for constants (flag defaults, tests).
 *
 * @throws {@link ValueParseError} when `text` is not a valid quantity.
 */
export function mustParseQuantity(text: string): Quantity {
  const r = parseQuantity(text);
  if (r.ok) return r.value;
  throw new ValueParseError(text, r.errors[0] ?? errFormatWrong);
}

function toBigIntValue(value: number | bigint, what: string): bigint {
  if (typeof value === "bigint") return value;
  if (!Number.isSafeInteger(value)) {
    throw new ValueRangeError("QuantityTooLarge", `${what} must be a safe integer or a bigint, got ${value}`);
  }
  return BigInt(value);
}

/**
 * A quantity holding the integer `value` (Kubernetes `NewQuantity`).
 *
 * @defaultValue format `"DecimalSI"`
 * @throws {@link ValueRangeError} if `value` is a number that is not a safe integer.
 */
export function newQuantity(value: number | bigint, format: QuantityFormat = "DecimalSI"): Quantity {
  return new Quantity(toBigIntValue(value, "value"), 0, format);
}

/**
 * A quantity holding `milli / 1000` (Kubernetes `NewMilliQuantity`), e.g. CPU in milli-cores.
 *
 * @defaultValue format `"DecimalSI"`
 * @throws {@link ValueRangeError} if `milli` is a number that is not a safe integer.
 */
export function newMilliQuantity(milli: number | bigint, format: QuantityFormat = "DecimalSI"): Quantity {
  return new Quantity(toBigIntValue(milli, "milli"), -3, format);
}

function mod3(e: number): number {
  return ((e % 3) + 3) % 3;
}

/**
 * The canonical text Kubernetes writes for a quantity (`Quantity.String()`): the suffix family
 * of `format`, the largest suffix that loses no precision, no fractional digits. `1.5Gi` →
 * `1536Mi`, `0.1` → `100m`, `1000000` → `1M`, `1e3` → `1e3`, zero → `0`. A `BinarySI` value
 * below 1024 in magnitude or not an integer is written as `DecimalSI`.
 *
 * One deliberate difference: for `DecimalSI` values of 10^21 and above Kubernetes finds no
 * suffix and prints the bare mantissa (`1000E` comes back as `1`); this writes them with the
 * largest suffix (`1000E`), so the text always parses back to the same value.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go `CanonicalizeBytes`
 */
export function formatQuantity(q: Quantity): string {
  let c = q.coefficient;
  let e = q.exponent;
  if (c === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const small = e < 4 && abs(c) * pow10(Math.max(e, 0)) < 1024n * pow10(Math.max(-e, 0));
    if (small || e < 0 || e > 18) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    let n = c * pow10(e);
    let times = 0;
    while (times < 6 && abs(n) >= 1024n && n % 1024n === 0n) {
      n /= 1024n;
      times++;
    }
    return `${n}${binarySuffixByPower[times]}`;
  }
  const r = mod3(e);
  if (r !== 0) {
    c *= pow10(r);
    e -= r;
  }
  if (format === "DecimalExponent") return e === 0 ? `${c}` : `${c}e${e}`;
  if (e > 18) {
    c *= pow10(e - 18);
    e = 18;
  }
  const suffix = decimalSuffixByExponent.get(e);
  return suffix === undefined ? `${c}e${e}` : `${c}${suffix}`;
}

/**
 * Compares two quantities by value (format is ignored): -1, 0 or 1.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go `Cmp`
 */
export function cmpQuantity(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = a.coefficient > 0n ? 1 : a.coefficient < 0n ? -1 : 0;
  const sb = b.coefficient > 0n ? 1 : b.coefficient < 0n ? -1 : 0;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const ma = digitCount(a.coefficient) + a.exponent;
  const mb = digitCount(b.coefficient) + b.exponent;
  let m: number;
  if (ma !== mb) {
    m = ma > mb ? 1 : -1;
  } else {
    const e = Math.min(a.exponent, b.exponent);
    const x = abs(a.coefficient) * pow10(a.exponent - e);
    const y = abs(b.coefficient) * pow10(b.exponent - e);
    m = x === y ? 0 : x > y ? 1 : -1;
  }
  if (m === 0) return 0;
  return m === sa ? 1 : -1;
}

function scaledValue(q: Quantity, shift: number): bigint {
  const e = q.exponent + shift;
  if (e >= 0) {
    if (e > 10000) {
      throw new ValueRangeError("QuantityTooLarge", `quantity ${formatQuantity(q)} is too large to convert to an integer`);
    }
    return q.coefficient * pow10(e);
  }
  return roundUpTo(q.coefficient, e, 0).c;
}

/**
 * The value as an integer, rounded up away from zero (Kubernetes `Value()`): bytes for memory,
 * whole cores for CPU. Exact (a bigint, no int64 wrap-around).
 *
 * @throws {@link ValueRangeError} (`QuantityTooLarge`) for values of 10^10000 and above.
 */
export function quantityValue(q: Quantity): bigint {
  return scaledValue(q, 0);
}

/**
 * The value times 1000 as an integer, rounded up away from zero (Kubernetes `MilliValue()`):
 * milli-cores for CPU.
 *
 * @throws {@link ValueRangeError} (`QuantityTooLarge`) for values of 10^9997 and above.
 */
export function quantityMilliValue(q: Quantity): bigint {
  return scaledValue(q, 3);
}

/** The nearest float64 to the value (`AsApproximateFloat64`, but correctly rounded). */
export function quantityToNumber(q: Quantity): number {
  return Number(`${q.coefficient}e${q.exponent}`);
}
