// Ports of the Go strconv parsers pflag's value types call, with Go's error texts
// (`strconv.ParseInt: parsing "x": invalid syntax`). Integers are computed as bigint so the
// 64-bit range checks are exact.
import { formatGoQuoted } from "./go-quote.js";

export type GoParsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

function syntaxError(fn: string, num: string): { ok: false; error: string } {
  return { ok: false, error: `strconv.${fn}: parsing ${formatGoQuoted(num)}: invalid syntax` };
}

function rangeError(fn: string, num: string): { ok: false; error: string } {
  return { ok: false, error: `strconv.${fn}: parsing ${formatGoQuoted(num)}: value out of range` };
}

const boolValues: Readonly<Record<string, boolean>> = {
  "1": true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  "0": false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false,
};

/** Go's `strconv.ParseBool`. */
export function parseGoBool(s: string): GoParsed<boolean> {
  const v = Object.hasOwn(boolValues, s) ? boolValues[s] : undefined;
  return v === undefined ? syntaxError("ParseBool", s) : { ok: true, value: v };
}

function lower(c: number): number {
  return c | 0x20;
}

/**
 * Go's `underscoreOK`: underscores may only separate digits, or a base prefix from a digit.
 */
export function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s.length >= 1 && (s[0] === "-" || s[0] === "+")) s = s.slice(1);
  let hexDigits = false;
  if (s.length >= 2 && s[0] === "0") {
    const p = lower(s.charCodeAt(1));
    if (p === 0x62 || p === 0x6f || p === 0x78) {
      i = 2;
      saw = "0";
      hexDigits = p === 0x78;
    }
  }
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (hexDigits && lower(c) >= 0x61 && lower(c) <= 0x66)) {
      saw = "0";
      continue;
    }
    if (c === 0x5f) {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

const maxUint64 = (1n << 64n) - 1n;

type UintOutcome = { kind: "ok"; value: bigint } | { kind: "syntax" } | { kind: "range"; value: bigint };

function parseUintCore(s: string, base: number, bitSize: number): UintOutcome {
  if (s === "") return { kind: "syntax" };
  const base0 = base === 0;
  const s0 = s;
  if (base === 0) {
    base = 10;
    if (s[0] === "0") {
      const p = s.length >= 3 ? lower(s.charCodeAt(1)) : 0;
      if (p === 0x62) {
        base = 2;
        s = s.slice(2);
      } else if (p === 0x6f) {
        base = 8;
        s = s.slice(2);
      } else if (p === 0x78) {
        base = 16;
        s = s.slice(2);
      } else {
        base = 8;
        s = s.slice(1);
      }
    }
  }
  const maxVal = (1n << BigInt(bitSize)) - 1n;
  // Plain decimal numbers short enough to be exact as doubles skip the bigint loop.
  if (base === 10 && s.length <= 15 && /^[0-9]+$/.test(s)) {
    const n = BigInt(Number(s));
    return n > maxVal ? { kind: "range", value: maxVal } : { kind: "ok", value: n };
  }
  const bigBase = BigInt(base);
  const cutoff = maxUint64 / bigBase + 1n;
  let underscores = false;
  let n = 0n;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let d: number;
    if (c === 0x5f && base0) {
      underscores = true;
      continue;
    } else if (c >= 0x30 && c <= 0x39) {
      d = c - 0x30;
    } else if (lower(c) >= 0x61 && lower(c) <= 0x7a) {
      d = lower(c) - 0x61 + 10;
    } else {
      return { kind: "syntax" };
    }
    if (d >= base) return { kind: "syntax" };
    if (n >= cutoff) return { kind: "range", value: maxVal };
    n *= bigBase;
    const n1 = n + BigInt(d);
    if (n1 > maxVal) return { kind: "range", value: maxVal };
    n = n1;
  }
  if (underscores && !underscoreOK(s0)) return { kind: "syntax" };
  return { kind: "ok", value: n };
}

/** Go's `strconv.ParseUint(s, base, bitSize)`. */
export function parseGoUint(s: string, base: number, bitSize: number): GoParsed<bigint> {
  const r = parseUintCore(s, base, bitSize);
  if (r.kind === "syntax") return syntaxError("ParseUint", s);
  if (r.kind === "range") return rangeError("ParseUint", s);
  return { ok: true, value: r.value };
}

/** Go's `strconv.ParseInt(s, base, bitSize)`. */
export function parseGoInt(s: string, base: number, bitSize: number): GoParsed<bigint> {
  if (s === "") return syntaxError("ParseInt", s);
  const s0 = s;
  let neg = false;
  if (s[0] === "+") s = s.slice(1);
  else if (s[0] === "-") {
    neg = true;
    s = s.slice(1);
  }
  const r = parseUintCore(s, base, bitSize);
  if (r.kind === "syntax") return syntaxError("ParseInt", s0);
  const un = r.value;
  const cutoff = 1n << BigInt(bitSize - 1);
  if (!neg && un >= cutoff) return rangeError("ParseInt", s0);
  if (neg && un > cutoff) return rangeError("ParseInt", s0);
  return { ok: true, value: neg ? -un : un };
}

function commonPrefixLenIgnoreCase(s: string, prefix: string): number {
  const n = Math.min(prefix.length, s.length);
  for (let i = 0; i < n; i++) {
    if (lower(s.charCodeAt(i)) !== prefix.charCodeAt(i)) return i;
  }
  return n;
}

function parseSpecial(s: string): number | undefined {
  if (s.length === 0) return undefined;
  let sign = 1;
  let rest = s;
  const c = s[0];
  if (c === "+" || c === "-") {
    if (c === "-") sign = -1;
    rest = s.slice(1);
  } else if (c === "n" || c === "N") {
    return commonPrefixLenIgnoreCase(s, "nan") === 3 && s.length === 3 ? Number.NaN : undefined;
  } else if (c !== "i" && c !== "I") {
    return undefined;
  }
  let n = commonPrefixLenIgnoreCase(rest, "infinity");
  if (n > 3 && n < 8) n = 3;
  if ((n === 3 || n === 8) && n === rest.length) return sign * Number.POSITIVE_INFINITY;
  return undefined;
}

function hexToDouble(mant: bigint, binExp: number): number {
  if (mant === 0n) return 0;
  const bitLen = mant.toString(2).length;
  const topExp = bitLen - 1 + binExp;
  if (topExp > 1024) return Number.POSITIVE_INFINITY;
  const precBits = topExp >= -1022 ? 53 : topExp + 1075;
  const shift = bitLen - precBits;
  let q = mant;
  if (shift > 0) {
    const sh = BigInt(shift);
    q = mant >> sh;
    const rem = mant & ((1n << sh) - 1n);
    const half = 1n << (sh - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  } else if (shift < 0) {
    // Fewer bits than the precision: exact.
    return Number(mant) * 2 ** binExp;
  }
  // q has at most 53 bits and its lowest bit sits at 2^k with k in [-1074, 972]: one exact scaling.
  return Number(q) * 2 ** (binExp + Math.max(shift, 0));
}

/** Go's `strconv.ParseFloat(s, 64)`: decimal and hexadecimal syntax, underscores, Inf, NaN. */
export function parseGoFloat(s: string): GoParsed<number> {
  const fn = "ParseFloat";
  const special = parseSpecial(s);
  if (special !== undefined) return { ok: true, value: special };
  let i = 0;
  let neg = false;
  if (s[i] === "+") i++;
  else if (s[i] === "-") {
    neg = true;
    i++;
  }
  let isHex = false;
  if (i + 2 < s.length && s[i] === "0" && lower(s.charCodeAt(i + 1)) === 0x78) {
    isHex = true;
    i += 2;
  }
  let underscores = false;
  let sawdot = false;
  let sawdigits = false;
  let digits = "";
  let fracDigits = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5f) {
      underscores = true;
      continue;
    }
    if (c === 0x2e) {
      if (sawdot) break;
      sawdot = true;
      continue;
    }
    if ((c >= 0x30 && c <= 0x39) || (isHex && lower(c) >= 0x61 && lower(c) <= 0x66)) {
      sawdigits = true;
      digits += s[i];
      if (sawdot) fracDigits++;
      continue;
    }
    break;
  }
  if (!sawdigits) return syntaxError(fn, s);
  let exp = 0;
  let hasExp = false;
  if (i < s.length && lower(s.charCodeAt(i)) === (isHex ? 0x70 : 0x65)) {
    hasExp = true;
    i++;
    if (i >= s.length) return syntaxError(fn, s);
    let esign = 1;
    if (s[i] === "+") i++;
    else if (s[i] === "-") {
      i++;
      esign = -1;
    }
    if (i >= s.length || s.charCodeAt(i) < 0x30 || s.charCodeAt(i) > 0x39) return syntaxError(fn, s);
    let e = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x5f) {
        underscores = true;
        continue;
      }
      if (c < 0x30 || c > 0x39) break;
      if (e < 10000) e = e * 10 + (c - 0x30);
    }
    exp = e * esign;
  } else if (isHex) {
    return syntaxError(fn, s);
  }
  if (underscores && !underscoreOK(s.slice(0, i))) return syntaxError(fn, s);
  if (i !== s.length) return syntaxError(fn, s);
  let value: number;
  if (isHex) {
    value = hexToDouble(BigInt(`0x${digits}`), exp - 4 * fracDigits);
  } else {
    const intPart = digits.slice(0, digits.length - fracDigits) || "0";
    const fracPart = digits.slice(digits.length - fracDigits);
    value = Number(`${intPart}.${fracPart}e${hasExp ? exp : 0}`);
  }
  if (!Number.isFinite(value)) return rangeError(fn, s);
  return { ok: true, value: neg ? -value : value };
}

/** Go's `strconv.FormatFloat(f, 'g', -1, 64)`: shortest digits, exponent form outside [1e-4, 1e6). */
export function formatGoFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "+Inf";
  if (x === Number.NEGATIVE_INFINITY) return "-Inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const sign = x < 0 ? "-" : "";
  const [mant = "", expText = "0"] = Math.abs(x).toExponential().split("e");
  const digits = mant.replace(".", "");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const ae = Math.abs(exp);
    return `${sign}${digits[0] ?? "0"}${frac}e${exp < 0 ? "-" : "+"}${ae < 10 ? `0${ae}` : String(ae)}`;
  }
  const dp = exp + 1;
  const intPart = dp > 0 ? digits.slice(0, dp).padEnd(dp, "0") : "0";
  const prec = Math.max(digits.length - dp, 0);
  let frac = "";
  for (let k = 1; k <= prec; k++) {
    const j = dp + k - 1;
    frac += j >= 0 && j < digits.length ? digits[j] : "0";
  }
  return `${sign}${intPart}${prec > 0 ? `.${frac}` : ""}`;
}
