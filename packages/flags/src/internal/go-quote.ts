// Go's quoting rules, so that error texts match the Go programs byte for byte (ASCII inputs) and
// character for character (other inputs).

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function isGoPrint(ch: string, cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  return printable.test(ch);
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

function escapeRune(ch: string, cp: number, quote: number): string {
  if (cp === quote || cp === 0x5c) return `\\${ch}`;
  if (isGoPrint(ch, cp)) return ch;
  switch (cp) {
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x0b:
      return "\\v";
  }
  if (cp < 0x20 || cp === 0x7f) return `\\x${hex(cp, 2)}`;
  // A lone surrogate reaches a Go peer as U+FFFD once encoded to UTF-8, and Go prints that
  // (printable) rune as it is.
  if (cp >= 0xd800 && cp <= 0xdfff) return "\ufffd";
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
  return `\\U${hex(cp, 8)}`;
}

/**
 * Go's `strconv.Quote` (what `%q` prints for a string): double quotes; `\"`, `\\` and the C escapes;
 * other control characters as `\xNN`; printable Unicode kept; other runes as `\uNNNN`/`\UNNNNNNNN`;
 * a lone UTF-16 surrogate as U+FFFD itself (what it becomes in UTF-8). Pure.
 * @see strconv/quote.go in the Go standard library
 * @example formatGoQuoted('say "hi"\n') // '"say \\"hi\\"\\n"'
 */
export function formatGoQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    // Fast path for the common printable ASCII characters.
    if (cp >= 0x20 && cp < 0x7f && cp !== 0x22 && cp !== 0x5c) out += ch;
    else out += escapeRune(ch, cp, 0x22);
  }
  return `${out}"`;
}


/** Go's `strconv.QuoteRune` (what `%q` prints for a byte or rune). */
export function goQuoteRune(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return `'${escapeRune(String.fromCodePoint(cp), cp, 0x27)}'`;
}

/**
 * The `time` package's own `quote`: every byte of a non-ASCII or control character is written
 * as `\xHH`; `"` and `\` are backslash-escaped.
 */
export function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of new TextEncoder().encode(ch)) out += `\\x${hex(b, 2)}`;
    } else {
      if (cp === 0x22 || cp === 0x5c) out += "\\";
      out += ch;
    }
  }
  return `${out}"`;
}
