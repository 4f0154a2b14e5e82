// The one-record subset of Go's encoding/csv (Go 1.17) that pflag's string-slice value uses:
// `csv.NewReader(strings.NewReader(v)).Read()` and `csv.NewWriter` + `Write` + `Flush`.
import type { GoParsed } from "./go-strconv.js";

const QUOTE = 0x22;
const COMMA = 0x2c;
const NL = 0x0a;
const CR = 0x0d;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

class LineReader {
  private offset = 0;
  numLine = 0;
  constructor(private readonly bytes: Uint8Array) {}

  /** Next line including its `\n` (normalised from `\r\n`), or undefined at end of input. */
  readLine(): Uint8Array | undefined {
    if (this.offset >= this.bytes.length) return undefined;
    const nl = this.bytes.indexOf(NL, this.offset);
    const end = nl < 0 ? this.bytes.length : nl + 1;
    let line = this.bytes.subarray(this.offset, end);
    this.offset = end;
    this.numLine++;
    if (nl < 0 && line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    const n = line.length;
    if (n >= 2 && line[n - 2] === CR && line[n - 1] === NL) {
      const copy = line.slice(0, n - 1);
      copy[n - 2] = NL;
      line = copy;
    }
    return line;
  }
}

function lengthNL(b: Uint8Array): number {
  return b.length > 0 && b[b.length - 1] === NL ? 1 : 0;
}

function parseError(startLine: number, line: number, column: number, err: string): { ok: false; error: string } {
  const where =
    startLine !== line
      ? `record on line ${startLine}; parse error on line ${line}, column ${column}`
      : `parse error on line ${line}, column ${column}`;
  return { ok: false, error: `${where}: ${err}` };
}

const errBareQuote = 'bare " in non-quoted-field';
const errQuote = 'extraneous or missing " in quoted-field';

function readRecordSlow(input: string): GoParsed<string[]> {
  const r = new LineReader(encoder.encode(input));
  let line: Uint8Array | undefined;
  for (;;) {
    line = r.readLine();
    if (line === undefined) return { ok: false, error: "EOF" };
    if (line.length === lengthNL(line)) continue;
    break;
  }
  const fields: string[] = [];
  let field: number[] = [];
  const recLine = r.numLine;
  let posLine = r.numLine;
  let col = 1;
  let eof = false;
  const push = (bytes: Uint8Array): void => {
    for (const b of bytes) field.push(b);
  };
  const endField = (): void => {
    fields.push(decoder.decode(new Uint8Array(field)));
    field = [];
  };
  for (;;) {
    if (line.length === 0 || line[0] !== QUOTE) {
      const i = line.indexOf(COMMA);
      const content = i >= 0 ? line.subarray(0, i) : line.subarray(0, line.length - lengthNL(line));
      const j = content.indexOf(QUOTE);
      if (j >= 0) return parseError(recLine, r.numLine, col + j, errBareQuote);
      push(content);
      endField();
      if (i >= 0) {
        line = line.subarray(i + 1);
        col += i + 1;
        continue;
      }
      return { ok: true, value: fields };
    }
    line = line.subarray(1);
    col += 1;
    for (;;) {
      const i = line.indexOf(QUOTE);
      if (i >= 0) {
        push(line.subarray(0, i));
        line = line.subarray(i + 1);
        col += i + 1;
        const next = line.length > 0 ? line[0] : -1;
        if (next === QUOTE) {
          field.push(QUOTE);
          line = line.subarray(1);
          col += 1;
        } else if (next === COMMA) {
          line = line.subarray(1);
          col += 1;
          endField();
          break;
        } else if (lengthNL(line) === line.length) {
          endField();
          return { ok: true, value: fields };
        } else {
          return parseError(recLine, r.numLine, col - 1, errQuote);
        }
      } else if (line.length > 0) {
        push(line);
        col += line.length;
        const nextLine = eof ? undefined : r.readLine();
        if (nextLine === undefined) {
          eof = true;
          line = new Uint8Array(0);
        } else {
          line = nextLine;
          posLine++;
          col = 1;
        }
      } else {
        return parseError(recLine, posLine, col, errQuote);
      }
    }
  }
}

/**
 * Reads the first CSV record of `input` as Go's `csv.Reader.Read` does (comma separator, `"`
 * quoting with `""` escapes, quoted fields may span lines, blank lines skipped). Errors carry
 * Go's text, e.g. `parse error on line 1, column 3: bare " in non-quoted-field`, or `EOF`.
 */
export function readCsvRecord(input: string): GoParsed<string[]> {
  if (input === "") return { ok: false, error: "EOF" };
  if (input.indexOf('"') < 0 && input.indexOf("\n") < 0 && input.indexOf("\r") < 0) {
    return { ok: true, value: input.split(",") };
  }
  return readRecordSlow(input);
}

function isGoSpace(cp: number): boolean {
  switch (cp) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return true;
  }
  return cp >= 0x2000 && cp <= 0x200a;
}

function fieldNeedsQuotes(field: string): boolean {
  if (field === "") return false;
  if (field === "\\.") return true;
  if (/[\n\r",]/.test(field)) return true;
  return isGoSpace(field.codePointAt(0) ?? 0);
}

/** Writes one CSV record as Go's `csv.Writer` does, without the trailing newline. */
export function writeCsvRecord(fields: readonly string[]): string {
  return fields.map((f) => (fieldNeedsQuotes(f) ? `"${f.replaceAll('"', '""')}"` : f)).join(",");
}
