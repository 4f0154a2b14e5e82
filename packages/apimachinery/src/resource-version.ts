/**
 * `metadata.resourceVersion` values and list `continue` tokens, encoded exactly as the Kubernetes
 * etcd3 storage encodes them (so tokens look the same to clients).
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/api_object_versioner.go
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (`encodeContinue`, `decodeContinue`)
 */

import { formatFieldErrors, invalid } from "./field-errors.js";
import { goQuote } from "./internal/go-format.js";
import { isObject } from "./internal/json.js";

const maxUint64 = 18446744073709551615n;

/** Why a resource version could not be parsed or formatted. */
export type ResourceVersionErrorReason = "InvalidSyntax" | "OutOfRange";

/**
 * A malformed resource version. The message is Kubernetes' storage message, e.g.
 * `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`;
 * the apiserver answers 400 with `invalid resource version: <message>`.
 */
export class ResourceVersionError extends Error {
  override readonly name = "ResourceVersionError";
  constructor(
    readonly reason: ResourceVersionErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Parses a resource version: a decimal unsigned 64-bit integer (leading zeros allowed, no sign,
 * no spaces). `""` and `"0"` both give `0n`, which means "any version" / "not set" to callers.
 *
 * @throws {ResourceVersionError} `InvalidSyntax` or `OutOfRange`, worded as Kubernetes words it.
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/api_object_versioner.go `ParseResourceVersion`
 * @example
 * parseResourceVersion("12345") // 12345n
 */
export function parseResourceVersion(s: string): bigint {
  if (s === "" || s === "0") return 0n;
  const fail = (reason: ResourceVersionErrorReason, what: string) =>
    new ResourceVersionError(reason, formatFieldErrors([invalid("resourceVersion", s, `strconv.ParseUint: parsing ${goQuote(s)}: ${what}`)]));
  if (!/^[0-9]+$/.test(s)) throw fail("InvalidSyntax", "invalid syntax");
  const n = BigInt(s);
  if (n > maxUint64) throw fail("OutOfRange", "value out of range");
  return n;
}

/**
 * Formats a resource version as its decimal string (`0` as `"0"`).
 *
 * @throws {ResourceVersionError} `OutOfRange` for a negative, non-integer or above-uint64 value.
 * @example
 * formatResourceVersion(42n) // "42"
 */
export function formatResourceVersion(rv: bigint | number): string {
  if (typeof rv === "number" && !Number.isSafeInteger(rv)) {
    throw new ResourceVersionError("OutOfRange", `resource version ${rv} is not an integer within the safe range`);
  }
  const n = BigInt(rv);
  if (n < 0n || n > maxUint64) throw new ResourceVersionError("OutOfRange", `resource version ${n} is out of the uint64 range`);
  return n.toString();
}

/**
 * Where a paged list continues: the revision the first page was read at (all pages read at it)
 * and the storage key, relative to the resource's key prefix, to start from.
 */
export interface ContinueToken {
  /**
   * The list revision. Kubernetes encodes it as int64 and rejects 0; a negative value is the
   * "inconsistent continuation" marker Kubernetes uses after a 410.
   */
  readonly resourceVersion: bigint;
  /** Relative key to start at (inclusive), e.g. `default/pi\u0000` to start after `default/pi`. */
  readonly startKey: string;
}

/** A `continue` token could not be decoded (or encoded). Answer 400 `invalid continue token: <message>`. */
export class ContinueTokenError extends Error {
  override readonly name = "ContinueTokenError";
  readonly reason = "InvalidContinueToken";
}

const continueAPIVersion = "meta.k8s.io/v1";

// Go's json.Marshal escapes <, > and & (and U+2028/9) in strings; JSON.stringify does not.
function goJSONString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}

// Go's path.Clean for a path that starts with "/".
function cleanAbsolutePath(p: string): string {
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

/**
 * Encodes a continue token: unpadded base64url of
 * `{"v":"meta.k8s.io/v1","rv":<resourceVersion>,"start":"<startKey>"}`, byte for byte what
 * Kubernetes produces.
 *
 * @throws {ContinueTokenError} when the token would not decode: a zero or out-of-int64 revision,
 * an empty start key, or a start key that is not a clean relative path (see {@link decodeContinue}).
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go `encodeContinue`
 * @example
 * encodeContinue({ resourceVersion: 42n, startKey: "default/pi\u0000" })
 */
export function encodeContinue(token: ContinueToken): string {
  const { resourceVersion: rv, startKey } = token;
  if (rv === 0n || rv > 9223372036854775807n || rv < -9223372036854775808n) {
    throw new ContinueTokenError(`continue token resource version ${rv} must be a non-zero int64`);
  }
  checkStartKey(startKey, startKey);
  const json = `{"v":"${continueAPIVersion}","rv":${rv},"start":${goJSONString(startKey)}}`;
  return Buffer.from(json, "utf8").toString("base64url");
}

function checkStartKey(startKey: string, original: string): string {
  if (startKey.length === 0) throw new ContinueTokenError(`continue key is not valid: encoded start key empty (version ${continueAPIVersion})`);
  const key = startKey.startsWith("/") ? startKey : `/${startKey}`;
  if (cleanAbsolutePath(key) !== key) throw new ContinueTokenError(`continue key is not valid: ${original}`);
  return key.slice(1);
}

/**
 * Decodes a continue token produced by {@link encodeContinue} (or by Kubernetes).
 *
 * Validation and messages follow Kubernetes 1.23: base64url without padding (CR/LF ignored);
 * a JSON object whose `v` must be `meta.k8s.io/v1` (`continue key is not valid: server does not
 * recognize this encoded version "x"`), `rv` a non-zero integer (`continue key is not valid:
 * incorrect encoded start resourceVersion (version meta.k8s.io/v1)`), `start` non-empty
 * (`... encoded start key empty ...`). The start key is made absolute and cleaned like a path;
 * if cleaning changes it (`..`, `.`, `//`, trailing `/`) the token is rejected as
 * `continue key is not valid: <start>`. A leading `/` is accepted and removed, as Kubernetes
 * does; the returned key is relative to the resource prefix.
 *
 * @throws {ContinueTokenError} with the messages above, or `continue key is not valid: <cause>`
 * for bad base64 or JSON. Never returns a key that escapes the prefix.
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go `decodeContinue`
 */
export function decodeContinue(token: string): ContinueToken {
  const data = token.replace(/[\r\n]/g, "");
  const badChar = data.search(/[^A-Za-z0-9_-]/);
  if (badChar >= 0) throw new ContinueTokenError(`continue key is not valid: illegal base64 data at input byte ${badChar}`);
  if (data.length % 4 === 1) throw new ContinueTokenError(`continue key is not valid: illegal base64 data at input byte ${data.length - 1}`);
  const text = Buffer.from(data, "base64url").toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ContinueTokenError(`continue key is not valid: ${(e as Error).message}`);
  }
  if (!isObject(parsed)) throw new ContinueTokenError("continue key is not valid: the token is not a JSON object");
  const { v = "", rv = 0, start = "" } = parsed;
  if (typeof v !== "string") throw new ContinueTokenError("continue key is not valid: field v is not a string");
  if (typeof rv !== "number" || !Number.isInteger(rv)) throw new ContinueTokenError("continue key is not valid: field rv is not an integer");
  if (!Number.isSafeInteger(rv)) throw new ContinueTokenError("continue key is not valid: field rv is out of range");
  if (typeof start !== "string") throw new ContinueTokenError("continue key is not valid: field start is not a string");
  if (v !== continueAPIVersion) {
    throw new ContinueTokenError(`continue key is not valid: server does not recognize this encoded version ${goQuote(v)}`);
  }
  if (rv === 0) throw new ContinueTokenError(`continue key is not valid: incorrect encoded start resourceVersion (version ${continueAPIVersion})`);
  return { resourceVersion: BigInt(rv), startKey: checkStartKey(start, start) };
}
