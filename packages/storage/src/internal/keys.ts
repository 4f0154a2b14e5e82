import { StorageError } from "../errors.js";

/** A half-open key interval `[start, end)` in byte order of the UTF-8 key. */
export interface KeyRange {
  readonly start: string;
  readonly end: string;
}

export function assertKey(key: string): void {
  if (typeof key !== "string" || key === "" || key.includes("\u0000")) {
    throw new StorageError("InvalidError", { key: String(key), detail: `invalid storage key ${JSON.stringify(key)}` });
  }
}

/** Kubernetes' etcd3 store lists `key + "/"`, so `/a/b` never covers `/a/bc`. */
export function directoryPrefix(key: string): string {
  assertKey(key);
  return key.endsWith("/") ? key : `${key}/`;
}

/** The prefix ends in `/` (0x2f), so bumping that last character bounds every key under it. */
export function prefixRange(prefix: string): KeyRange {
  const last = prefix.charCodeAt(prefix.length - 1);
  return { start: prefix, end: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}

/** Exactly one key: "key\0" is the smallest string above it. */
export function exactRange(key: string): KeyRange {
  assertKey(key);
  return { start: key, end: `${key}\u0000` };
}

export function inRange(key: string, range: KeyRange): boolean {
  return key >= range.start && key < range.end;
}
