/**
 * The error Go's `json.Unmarshal(data, &map[string]interface{}{})` returns for `data`, worded as
 * Go words it, or `undefined` when it succeeds (an object or `null`). Syntax errors come from
 * Go's scanner (`invalid character 'x' looking for beginning of value`, `unexpected end of JSON
 * input`); a valid non-object value gives `json: cannot unmarshal array into Go value of type
 * map[string]interface {}`. Never throws.
 * @see encoding/json/scanner.go, encoding/json/decode.go in the Go standard library
 */
export function goUnmarshalMapError(data: Uint8Array): string | undefined {
  const s = new Scanner(data);
  const syntax = s.checkValid();
  if (syntax !== undefined) return syntax;
  const first = data[s.firstNonSpace()];
  const kind = first === 0x7b ? "object" : first === 0x5b ? "array" : first === 0x22 ? "string" : first === 0x74 || first === 0x66 ? "bool" : first === 0x6e ? "null" : "number";
  if (kind === "object" || kind === "null") return undefined;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  // strconv.Quote of the byte as a rune: Go's escapes for control characters, else the character.
  const named: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x5c: "\\\\" };
  if (named[c] !== undefined) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  if (c >= 0x80 && c < 0xa0) return `'\\u00${c.toString(16).padStart(2, "0")}'`;
  return `'${String.fromCharCode(c)}'`;
}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined) => c !== undefined && (isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));

class SyntaxError_ extends Error {}

class Scanner {
  private i = 0;
  constructor(private readonly d: Uint8Array) {}

  firstNonSpace(): number {
    let i = 0;
    while (isSpace(this.d[i])) i++;
    return i;
  }

  checkValid(): string | undefined {
    try {
      this.skip();
      this.value("looking for beginning of value");
      this.skip();
      if (this.i < this.d.length) this.fail("after top-level value");
      return undefined;
    } catch (e) {
      if (e instanceof SyntaxError_) return e.message;
      throw e;
    }
  }

  private fail(context: string): never {
    if (this.i >= this.d.length) throw new SyntaxError_("unexpected end of JSON input");
    throw new SyntaxError_(`invalid character ${quoteChar(this.d[this.i]!)} ${context}`);
  }

  private skip(): void {
    while (isSpace(this.d[this.i])) this.i++;
  }

  private value(context: string): void {
    const c = this.d[this.i];
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return this.string();
    if (c === 0x2d || isDigit(c)) return this.number();
    if (c === 0x74) return this.literal("true");
    if (c === 0x66) return this.literal("false");
    if (c === 0x6e) return this.literal("null");
    this.fail(context);
  }

  private literal(word: string): void {
    this.i++;
    for (let k = 1; k < word.length; k++) {
      if (this.d[this.i] !== word.charCodeAt(k)) this.fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      this.i++;
    }
  }

  private number(): void {
    if (this.d[this.i] === 0x2d) {
      this.i++;
      if (!isDigit(this.d[this.i])) this.fail("in numeric literal");
    }
    if (this.d[this.i] === 0x30) this.i++;
    else while (isDigit(this.d[this.i])) this.i++;
    if (this.d[this.i] === 0x2e) {
      this.i++;
      if (!isDigit(this.d[this.i])) this.fail("after decimal point in numeric literal");
      while (isDigit(this.d[this.i])) this.i++;
    }
    if (this.d[this.i] === 0x65 || this.d[this.i] === 0x45) {
      this.i++;
      if (this.d[this.i] === 0x2b || this.d[this.i] === 0x2d) this.i++;
      if (!isDigit(this.d[this.i])) this.fail("in exponent of numeric literal");
      while (isDigit(this.d[this.i])) this.i++;
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.d[this.i];
      if (c === undefined) this.fail("in string literal");
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) this.fail("in string literal");
      if (c === 0x5c) {
        this.i++;
        const e = this.d[this.i];
        if (e === 0x75) {
          this.i++;
          for (let k = 0; k < 4; k++, this.i++) if (!isHex(this.d[this.i])) this.fail("in \\u hexadecimal character escape");
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(String.fromCharCode(e))) this.fail("in string escape code");
      }
      this.i++;
    }
  }

  private object(): void {
    this.i++;
    this.skip();
    if (this.d[this.i] === 0x7d) {
      this.i++;
      return;
    }
    for (;;) {
      if (this.d[this.i] !== 0x22) this.fail("looking for beginning of object key string");
      this.string();
      this.skip();
      if (this.d[this.i] !== 0x3a) this.fail("after object key");
      this.i++;
      this.skip();
      this.value("looking for beginning of value");
      this.skip();
      const c = this.d[this.i];
      if (c === 0x2c) {
        this.i++;
        this.skip();
        continue;
      }
      if (c === 0x7d) {
        this.i++;
        return;
      }
      this.fail("after object key:value pair");
    }
  }

  private array(): void {
    this.i++;
    this.skip();
    if (this.d[this.i] === 0x5d) {
      this.i++;
      return;
    }
    for (;;) {
      this.value("looking for beginning of value");
      this.skip();
      const c = this.d[this.i];
      if (c === 0x2c) {
        this.i++;
        this.skip();
        continue;
      }
      if (c === 0x5d) {
        this.i++;
        return;
      }
      this.fail("after array element");
    }
  }
}
