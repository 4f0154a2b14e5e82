/**
 * Defensive readers for decoded JSON: validators never throw, even on values of the wrong shape
 * (a number where a string belongs, `null` in a list). Not part of the public API.
 */

/** Plain object check (not array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value as a string, or "" when it is not one (Go's zero value). */
export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The value as an array, or an empty one. */
export function arr<T = unknown>(v: unknown): readonly T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** The value as a string map (non-string values dropped), or an empty one. */
export function strMap(v: unknown): Record<string, string> {
  if (!isRecord(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) if (typeof val === "string") out[k] = val;
  return out;
}

/** The value as an object, or an empty one. */
export function rec(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}

/** The value as a finite number, or undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Length of a string in UTF-8 bytes (Go's `len(string)`). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Go's `%#v` of a `[]string`: `[]string{"a", "b"}`. */
export function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`;
}
