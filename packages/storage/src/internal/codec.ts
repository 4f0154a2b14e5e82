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

// Index just past the JSON string starting at `i` (a `"`).
function skipString(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) return i + 1;
    if (c === 92) i++;
  }
  return -1;
}

// Index just past the JSON value starting at `i` (no whitespace before it).
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
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === 34) {
      i = skipString(text, i) - 1;
      if (i < 0) return -1;
    } else if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The keys of the compact JSON object starting at `start` (a `{`), each with where its value
 * starts and ends; undefined when the text is not compact JSON (whitespace) or is malformed.
 */
function objectMembers(text: string, start: number): { members: { key: string; from: number; to: number }[]; end: number } | undefined {
  const members: { key: string; from: number; to: number }[] = [];
  let i = start + 1;
  if (text.charCodeAt(i) === 125) return { members, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) !== 34) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0 || text.charCodeAt(keyEnd) !== 58) return undefined;
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
    const from = keyEnd + 1;
    const to = skipValue(text, from);
    if (to < 0) return undefined;
    members.push({ key, from, to });
    const c = text.charCodeAt(to);
    if (c === 125) return { members, end: to + 1 };
    if (c !== 44) return undefined;
    i = to + 1;
  }
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
  const top = value.charCodeAt(0) === 123 ? objectMembers(value, 0) : undefined;
  if (top !== undefined && top.end === value.length) {
    const meta = top.members.filter((m) => m.key === "metadata");
    if (meta.length === 0) {
      const at = value.length - 1;
      return `${value.slice(0, at)}${top.members.length > 0 ? "," : ""}"metadata":{${rv}}}`;
    }
    const m = meta[meta.length - 1]!;
    if (meta.length === 1 && value.charCodeAt(m.from) === 123) {
      const inner = objectMembers(value, m.from);
      if (inner !== undefined && inner.end === m.to && !inner.members.some((x) => x.key === "resourceVersion")) {
        const at = m.to - 1;
        return `${value.slice(0, at)}${inner.members.length > 0 ? "," : ""}${rv}${value.slice(at)}`;
      }
    }
  }
  return JSON.stringify(decodeObject(value, revision));
}
