import { StorageError } from "../errors.js";
import type { StoredObject } from "../types.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Serialises an object for storage with `metadata.resourceVersion` removed (key order kept, so
 * equal objects give equal bytes). On create a non-empty resourceVersion is an error, as in
 * Kubernetes' etcd3 store.
 */
export function encodeObject(key: string, object: StoredObject, forCreate: boolean): string {
  if (!isPlainObject(object)) {
    throw new StorageError("InvalidObj", { key, detail: "object must be a JSON object" });
  }
  let value: unknown = object;
  const meta = object.metadata;
  if (meta !== undefined) {
    if (!isPlainObject(meta)) throw new StorageError("InvalidObj", { key, detail: "metadata must be a JSON object" });
    if ("resourceVersion" in meta) {
      const rv = meta.resourceVersion;
      if (forCreate && rv !== undefined && rv !== "" && rv !== "0") {
        throw new StorageError("InvalidObj", { key, detail: "resourceVersion should not be set on objects to be created" });
      }
      const { resourceVersion: _rv, ...rest } = meta;
      value = { ...object, metadata: rest };
    }
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new StorageError("InvalidObj", { key, detail: `object cannot be serialised: ${String(cause)}`, cause });
  }
  return text;
}

/** Parses a stored value and sets `metadata.resourceVersion` to `revision`. */
export function decodeObject(value: string, revision: number): StoredObject {
  const object = JSON.parse(value) as StoredObject;
  const rv = String(revision);
  if (isPlainObject(object.metadata)) object.metadata.resourceVersion = rv;
  else object.metadata = { resourceVersion: rv };
  return object;
}

// Index just past the JSON string starting at `i` (a `"`), or -1. Jumps quote to quote.
function skipString(text: string, i: number): number {
  for (let from = i + 1; ; ) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

// Index just past the compact JSON value starting at `i`, or -1.
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34) return skipString(text, i);
  if (c !== 123 && c !== 91) {
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === 44 || d === 125 || d === 93) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 34) {
      i = skipString(text, i);
      if (i < 0) return -1;
      continue;
    }
    if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/**
 * Walks the members of the compact JSON object starting at `start` (a `{`): `visit` gets each
 * member's key (still quoted, escapes and all) and where its value starts and ends. Returns the
 * index past the object, or -1 when the text is not compact JSON (whitespace) or malformed.
 */
function eachMember(text: string, start: number, visit: (keyFrom: number, keyTo: number, from: number, to: number) => void): number {
  let i = start + 1;
  if (text.charCodeAt(i) === 125) return i + 1;
  for (;;) {
    if (text.charCodeAt(i) !== 34) return -1;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0 || text.charCodeAt(keyEnd) !== 58) return -1;
    const to = skipValue(text, keyEnd + 1);
    if (to < 0) return -1;
    visit(i, keyEnd, keyEnd + 1, to);
    const c = text.charCodeAt(to);
    if (c === 125) return to + 1;
    if (c !== 44) return -1;
    i = to + 1;
  }
}

// Whether the quoted key at [from, to) is `name` (written without escapes, as JSON.stringify
// writes these names; an escaped spelling sends the caller the long way).
function isKey(text: string, from: number, to: number, name: string): boolean {
  return to - from === name.length + 2 && text.startsWith(name, from + 1);
}

function hasEscape(text: string, from: number, to: number): boolean {
  const b = text.indexOf("\\", from);
  return b >= 0 && b < to;
}

/**
 * The JSON text of the stored object `value` at `revision`, exactly as
 * `JSON.stringify(decodeObject(value, revision))` writes it, without building the object: the
 * stored text is `JSON.stringify` output (a fixed point of parse and stringify) without
 * `metadata.resourceVersion`, so the revision is spliced in where `decodeObject` appends it (last
 * in `metadata`, or a `metadata` appended to the object). Text of another shape is decoded and
 * encoded the long way.
 */
export function encodedWithRevision(value: string, revision: number): string {
  const rv = `"resourceVersion":${JSON.stringify(String(revision))}`;
  if (value.charCodeAt(0) === 123) {
    let metas = 0;
    let escapedKey = false;
    let meta: { from: number; to: number } | undefined;
    let members = 0;
    const end = eachMember(value, 0, (kf, kt, from, to) => {
      members++;
      if (hasEscape(value, kf, kt)) escapedKey = true;
      else if (isKey(value, kf, kt, "metadata")) {
        metas++;
        meta = { from, to };
      }
    });
    if (end === value.length && !escapedKey) {
      if (metas === 0) return `${value.slice(0, -1)}${members > 0 ? "," : ""}"metadata":{${rv}}}`;
      if (metas === 1 && meta !== undefined && value.charCodeAt(meta.from) === 123) {
        let inner = 0;
        let clash = false;
        const innerEnd = eachMember(value, meta.from, (kf, kt) => {
          inner++;
          if (hasEscape(value, kf, kt) || isKey(value, kf, kt, "resourceVersion")) clash = true;
        });
        if (innerEnd === meta.to && !clash) {
          const at = meta.to - 1;
          return `${value.slice(0, at)}${inner > 0 ? "," : ""}${rv}${value.slice(at)}`;
        }
      }
    }
  }
  return JSON.stringify(decodeObject(value, revision));
}
