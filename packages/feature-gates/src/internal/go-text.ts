/** Go's `strconv.ParseBool`: exactly these spellings, case as listed; anything else is undefined. */
export function parseGoBool(text: string): boolean | undefined {
  switch (text) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
    default:
      return undefined;
  }
}

const escapes: Readonly<Record<string, string>> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

/**
 * Go's `%q` / `strconv.Quote` for the strings a gate value can hold: printable characters as
 * they are, the usual backslash escapes, other control characters as `\xNN` (C0, DEL) or
 * `\u00NN` (C1), and a lone surrogate as `\ufffd` (Go would see invalid UTF-8).
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const esc = escapes[ch];
    if (esc !== undefined) out += esc;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += "\\ufffd";
    else out += ch;
  }
  return `${out}"`;
}
