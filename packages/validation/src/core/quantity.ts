/**
 * A small, strict reader of Kubernetes resource quantities (`resource.Quantity` syntax), exact
 * enough for validation: sign, comparison, integrality and divisibility. Values are kept as exact
 * fractions of bigints, so `0.1` and `100m` compare equal and `1Ei` does not lose precision.
 * Not part of the public API (the flags package owns the full quantity type).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
 */

/** An exact quantity value `num / den` (`den` > 0), plus the text it was read from. */
export interface QuantityValue {
  readonly num: bigint;
  readonly den: bigint;
  /** The input as text (numbers via `String`), used in error messages. */
  readonly text: string;
}

/** Kubernetes' wording for a malformed quantity (`resource.ErrFormatWrong`). */
export const quantityFormatError =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const quantityRe = /^([+-]?)(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;
const decimalSuffix: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffix: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
// Larger exponents are rejected rather than expanded into huge integers.
const maxExponent = 1000;

/**
 * Reads a quantity (`"500m"`, `"1.5Gi"`, `"1e3"`, or a JSON number). Returns undefined when the
 * text is not a quantity; never throws.
 */
export function parseQuantity(value: unknown): QuantityValue | undefined {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === "string") {
    text = value;
  } else {
    return undefined;
  }
  const m = quantityRe.exec(text);
  if (!m) return undefined;
  const [, sign, digits = "", exp, suffix] = m;
  const dot = digits.indexOf(".");
  const intPart = dot === -1 ? digits : digits.slice(0, dot);
  const fracPart = dot === -1 ? "" : digits.slice(dot + 1);
  let num = BigInt(`${intPart}${fracPart}` || "0");
  let den = 10n ** BigInt(fracPart.length);
  let e10 = 0;
  if (exp !== undefined) e10 = Number(exp);
  else if (suffix !== undefined && suffix in decimalSuffix) e10 = decimalSuffix[suffix] ?? 0;
  if (Math.abs(e10) > maxExponent) return undefined;
  if (e10 >= 0) num *= 10n ** BigInt(e10);
  else den *= 10n ** BigInt(-e10);
  if (suffix !== undefined && suffix in binarySuffix) num *= 1024n ** BigInt(binarySuffix[suffix] ?? 0);
  if (sign === "-") num = -num;
  return { num, den, text };
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: QuantityValue, b: QuantityValue): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** The sign of the quantity: -1, 0 or 1. */
export function quantitySign(q: QuantityValue): number {
  return q.num < 0n ? -1 : q.num > 0n ? 1 : 0;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

/** Kubernetes' `Quantity.Value()`: the value rounded up to an integer. */
export function quantityCeil(q: QuantityValue): bigint {
  return ceilDiv(q.num, q.den);
}

/** Kubernetes' `Quantity.MilliValue()`: the value in thousandths, rounded up. */
export function quantityMilliCeil(q: QuantityValue): bigint {
  return ceilDiv(q.num * 1000n, q.den);
}

/** Whether the quantity equals `num / den` exactly. */
export function quantityEquals(q: QuantityValue, num: bigint, den = 1n): boolean {
  return q.num * den === num * q.den;
}
