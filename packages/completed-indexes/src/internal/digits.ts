export const DASH = 45;
const PLUS = 43;
const ZERO = 48;
const NINE = 57;

/**
 * Reads the decimal integer `text[start, end)`. Returns -1 when the slice is not an unsigned
 * integer (empty, or any character other than 0-9; with `allowPlus` one leading `+` is accepted,
 * as Go's `strconv.Atoi` does). Leading zeros are accepted (`Atoi` does too). A value above
 * `Number.MAX_SAFE_INTEGER` is returned as `Infinity`: it is beyond any completions count.
 */
export function readInteger(text: string, start: number, end: number, allowPlus: boolean): number {
  let i = start;
  if (allowPlus && i < end && text.charCodeAt(i) === PLUS) i++;
  if (i >= end) return -1;
  let value = 0;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < ZERO || c > NINE) return -1;
    value = value * 10 + (c - ZERO);
  }
  // Every partial value up to MAX_SAFE_INTEGER is exact, so the comparison is reliable.
  return value > Number.MAX_SAFE_INTEGER ? Infinity : value;
}
