/**
 * Query parameters as 1.23 reads them: Go's `url.ParseQuery` (Go 1.17 rules) into a map of value
 * lists, then the `runtime` string conversions the generated `url.Values → *Options` conversions
 * call for each field — a string or integer field takes the FIRST value, a list field (`dryRun`)
 * takes every value, a boolean is false only for `0` or (case-insensitively) `false`, and an
 * integer that does not parse is a 400 whose message is `strconv.ParseInt`'s error.
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go in kubernetes/kubernetes v1.23
 *   (Convert_Slice_string_To_bool, Convert_Slice_string_To_Pointer_bool, Convert_Slice_string_To_int64)
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/zz_generated.conversion.go (url.Values → ListOptions, …)
 */
import { goQuote, newBadRequest } from "@skiff/apimachinery";

/** A parsed query: each key's values in order (a key given with no `=` has one empty value). */
export type QueryValues = Readonly<Record<string, readonly string[]>>;

/**
 * Parses a raw query string as Go 1.17's `url.URL.Query()`: pairs split on `&`, a pair holding a
 * `;` or a malformed escape dropped (as `ParseQuery` reports and `Query()` ignores), `+` is a space.
 * Does not throw. @example parseQueryValues("watch=1&watch=0") // { watch: ["1", "0"] }
 */
export function parseQueryValues(rawQuery: string): QueryValues {
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const pair of rawQuery.split("&")) {
    if (pair === "" || pair.includes(";")) continue;
    const eq = pair.indexOf("=");
    const key = unescapeQuery(eq < 0 ? pair : pair.slice(0, eq));
    const value = unescapeQuery(eq < 0 ? "" : pair.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    (out[key] ??= []).push(value);
  }
  return out;
}

// Go's url.QueryUnescape: `+` → space, `%XX` → byte; any other `%` is an error. Bytes that are
// not UTF-8 become U+FFFD here (Go keeps them; no parameter of ours can hold them usefully).
function unescapeQuery(s: string): string | undefined {
  if (!s.includes("%")) return s.replaceAll("+", " ");
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "%") {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === "+") bytes.push(0x20);
    else for (const b of Buffer.from(c)) bytes.push(b);
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The first value of each key (what every string and integer option field converts from). */
export function firstQueryValues(q: QueryValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) if (v[0] !== undefined) out[k] = v[0];
  return out;
}

/**
 * A boolean option from its first query value (`Convert_Slice_string_To_bool`): absent → `undefined`;
 * `0` and `false` in any letter case → false; anything else, the empty value included → true.
 * @example convertQueryBool("False") // false
 * @example convertQueryBool("") // true
 */
export function convertQueryBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return !(value === "0" || value.toLowerCase() === "false");
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/**
 * An int64 option from its first query value (`Convert_Slice_string_To_int64` / `…Pointer_int64`,
 * i.e. Go's `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits, nothing else).
 * Absent → `undefined`. Values beyond ±2^53 keep their magnitude, not every digit.
 * @throws StatusError 400 `strconv.ParseInt: parsing "<value>": invalid syntax` (the empty value
 *   included) or `…: value out of range`, as 1.23's handlers answer a failed DecodeParameters
 * @example convertQueryInt64("-5") // -5
 */
export function convertQueryInt64(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[+-]?[0-9]+$/.test(value)) throw newBadRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  const n = BigInt(value);
  if (n < int64Min || n > int64Max) throw newBadRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  return Number(n);
}

/**
 * Go's `strconv.ParseBool`: `1 t T TRUE true True` and `0 f F FALSE false False`; anything else
 * is not a boolean (`undefined`).
 */
export function parseGoBool(value: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

/**
 * Whether a response is indented (1.23's `isPrettyPrint`): a non-empty first `pretty` value decides
 * through `strconv.ParseBool` (a value it does not parse is false); otherwise a User-Agent starting
 * with `curl`, `Wget` or `Mozilla/5.0` gets indented output.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go (isPrettyPrint)
 */
export function isPrettyPrint(pretty: string | undefined, userAgent: string | undefined): boolean {
  if (pretty !== undefined && pretty !== "") return parseGoBool(pretty) ?? false;
  const ua = userAgent ?? "";
  return ua.startsWith("curl") || ua.startsWith("Wget") || ua.startsWith("Mozilla/5.0");
}
