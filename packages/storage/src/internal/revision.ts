import { StorageError } from "../errors.js";
import type { ListOptions } from "../types.js";
import { inRange } from "./keys.js";
import type { KeyRange } from "./keys.js";

/**
 * Parses a resourceVersion option: `undefined` for unset or `""`, else a non-negative safe integer
 * (`"0"` → 0).
 */
export function parseRevisionOption(value: string | number | undefined, key: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return value;
  } else if (/^[0-9]{1,16}$/.test(value)) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
  }
  throw new StorageError("InvalidError", { key, detail: `invalid resource version: ${JSON.stringify(String(value))}` });
}

/** Where a list starts, from its options (limit, continue token), checked the same way by every backend. */
export interface ListStart {
  readonly limit: number;
  readonly start: string;
  /** The revision a continue token pins the read to; `undefined` for a first page. */
  readonly continueRevision: number | undefined;
}

/**
 * Checks a list's `limit` and `continue` options: a non-negative integer limit; a continue token
 * whose key lies under the listed prefix and whose revision is positive, and no resourceVersion
 * beside it (as Kubernetes' storage rejects both together).
 * @throws StorageError `InvalidError` naming the bad option.
 */
export function resolveListStart(prefix: string, range: KeyRange, options: Pick<ListOptions, "limit" | "continue" | "resourceVersion">): ListStart {
  const limit = options.limit ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new StorageError("InvalidError", { key: prefix, detail: `invalid limit: ${limit}` });
  const cont = options.continue;
  if (cont === undefined) return { limit, start: range.start, continueRevision: undefined };
  const rv = parseRevisionOption(options.resourceVersion, prefix);
  if (rv !== undefined && rv !== 0) {
    throw new StorageError("InvalidError", { key: prefix, detail: "specifying resource version is not allowed when using continue" });
  }
  if (typeof cont.startKey !== "string" || !inRange(cont.startKey, range) || !Number.isSafeInteger(cont.revision) || cont.revision <= 0) {
    throw new StorageError("InvalidError", { key: prefix, detail: `continue key is not valid: ${JSON.stringify(cont.startKey)}` });
  }
  return { limit, start: cont.startKey, continueRevision: cont.revision };
}
