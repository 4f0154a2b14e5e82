/**
 * A JSON syntax error worded like Go's encoding/json, without quoting the input: V8's messages
 * repeat the text (`"{"a":s3cret}" is not valid JSON`), and docker configs and plugin responses
 * hold credentials. At most the offending character is shown, as Go does.
 */
export function jsonSyntaxMessage(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/Unexpected end of JSON input/i.test(message) || text.trim() === "") return "unexpected end of JSON input";
  const token = /^Unexpected token '(.)'/.exec(message);
  if (token) return `invalid character '${token[1] ?? ""}' looking for beginning of value`;
  const at = /at position (\d+)/.exec(message);
  if (at) {
    const offset = Number(at[1]);
    if (offset >= text.length) return "unexpected end of JSON input";
    return `invalid character '${text[offset] ?? ""}' at offset ${offset}`;
  }
  return "invalid JSON";
}
