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
