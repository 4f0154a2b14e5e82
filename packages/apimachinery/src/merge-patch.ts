/**
 * JSON merge patch (RFC 7386), the `application/merge-patch+json` PATCH body: objects merge key by
 * key, `null` deletes a key, anything else (arrays included) replaces.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7386
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (`MergePatchType`)
 */

import { cloneJSON, deepEqual, hasOwn, isObject, setOwn } from "./internal/json.js";
import type { JSONObject } from "./internal/json.js";

function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJSON(patch);
  const base: JSONObject = isObject(target) ? target : {};
  const out: JSONObject = {};
  for (const k of Object.keys(base)) {
    if (!hasOwn(patch, k)) setOwn(out, k, cloneJSON(base[k]));
    else if (patch[k] !== null) setOwn(out, k, merge(base[k], patch[k]));
  }
  for (const k of Object.keys(patch)) {
    if (!hasOwn(base, k) && patch[k] !== null) setOwn(out, k, merge(undefined, patch[k]));
  }
  return out;
}

/**
 * Applies a JSON merge patch to a decoded JSON document: if `patch` is an object, each of its keys
 * is merged into `doc` (a non-object `doc` counts as `{}`), `null` values delete, nested objects
 * merge recursively; any other `patch` value replaces `doc` entirely. Keys absent from the patch
 * are kept.
 *
 * Never mutates `doc` or `patch`; the result shares no objects with either. Never throws.
 * @see https://www.rfc-editor.org/rfc/rfc7386#section-2
 * @example
 * applyMergePatch({ spec: { parallelism: 1, completions: 3 } }, { spec: { parallelism: null, suspend: true } })
 * // { spec: { completions: 3, suspend: true } }
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  return merge(doc, patch);
}

/**
 * Creates the merge patch that turns `original` into `modified`: keys removed are `null`, keys
 * added or changed carry the new value, objects on both sides are diffed recursively, everything
 * else (arrays included) is replaced whole. If either side is not an object, the patch is
 * `modified` itself. `applyMergePatch(original, createMergePatch(original, modified))` equals
 * `modified` whenever `modified` holds no `null` object values (a merge patch cannot set a key to
 * `null`).
 *
 * Never mutates its inputs. Never throws.
 * @see staging/src/k8s.io/apimachinery/pkg/util/jsonmergepatch/patch.go
 * @example
 * createMergePatch({ a: 1, b: { c: 2 } }, { b: { c: 3 } }) // { a: null, b: { c: 3 } }
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isObject(original) || !isObject(modified)) return cloneJSON(modified);
  const patch: JSONObject = {};
  for (const k of Object.keys(original)) {
    if (!hasOwn(modified, k)) setOwn(patch, k, null);
  }
  for (const k of Object.keys(modified)) {
    const b = modified[k];
    if (!hasOwn(original, k)) {
      setOwn(patch, k, cloneJSON(b));
      continue;
    }
    const a = original[k];
    if (deepEqual(a, b)) continue;
    setOwn(patch, k, isObject(a) && isObject(b) ? createMergePatch(a, b) : cloneJSON(b));
  }
  return patch;
}
