/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), applied the way the
 * Kubernetes apiserver applies it (`StrategicMergeMapPatch`), driven by a {@link PatchSchema}.
 *
 * Semantics, as in Kubernetes:
 * - Maps merge key by key; `null` deletes a key; fields with strategy `replace` are replaced.
 * - Lists are replaced, unless the field's strategy is `merge`: lists of objects then merge by the
 *   field's merge key (an element whose key matches is merged, others are added), lists of
 *   scalars merge as sets.
 * - Directives: `$patch: replace` (a map: replace it with the patch's map; a list element:
 *   replace the list with the patch's other elements), `$patch: delete` (a map: make it `{}`; a
 *   list element: remove every element with its merge key); `$retainKeys: [...]` (drop every key of the map
 *   not listed); `$setElementOrder/<list>: [...]` (order of the merged list);
 *   `$deleteFromPrimitiveList/<list>: [...]` (remove these scalars from a merged list).
 *   `$patch: merge` is rejected, as Kubernetes rejects it.
 * - Element order: patch elements keep the patch's order (or the `$setElementOrder` order);
 *   each server-only element keeps its server order and is placed before the first patch
 *   element it precedes on the server. Elements new to the server are thus placed before the
 *   server-only elements still to come (`[a, b]` patched with `[c]` gives `[c, a, b]`).
 *
 * Choices where Kubernetes 1.23 gives no useful answer (documented divergences):
 * - Values the patch introduces (new keys, type changes, replaced maps and lists) carry no
 *   directives and no `null` map values into the result; elements marked `$patch` are dropped
 *   from such lists (newer Kubernetes does the same through `removeDirectives`).
 * - `$deleteFromPrimitiveList/<list>` removes scalars whatever the list's strategy, and is an
 *   error for non-list values or lists of objects.
 * - Deletion lists apply after the other keys of the same map (Kubernetes' order is random).
 * - Failures Kubernetes answers with a bare 500 (missing merge keys, mixed element types) are
 *   `PatchError` `Invalid` (422).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go
 */

import { PatchError } from "./patch-error.js";
import { PatchSchemaError } from "./patch-schema.js";
import type { PatchSchema } from "./patch-schema.js";
import { goTypeName, goValue } from "./internal/go-format.js";
import { goSliceStable } from "./internal/go-sort.js";
import { cloneJSON, deepEqual, hasOwn, isObject, jsonKind, setOwn } from "./internal/json.js";
import type { JSONObject } from "./internal/json.js";

const directiveMarker = "$patch";
const retainKeysDirective = "$retainKeys";
const deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
const setElementOrderPrefix = "$setElementOrder";

const errBadJSONDoc = "invalid JSON document";
const errNoListOfLists = "lists of lists are not supported";
const errBadPrimitiveList = "invalid patch format of primitive list";
const errBadRetainKeys = "invalid patch format of retainKeys";
const errBadSetElementOrder = "invalid patch format of setElementOrder list";

type Kind = ReturnType<typeof jsonKind>;

const badRequest = (message: string) => new PatchError("BadRequest", message);
const invalid = (message: string) => new PatchError("Invalid", message);
const noMergeKey = (m: JSONObject, key: string) => invalid(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
const badArgType = (expected: string, actual: unknown) => invalid(`expected a ${expected}, but received a ${goTypeName(actual)}`);

function goString(v: unknown): string {
  return typeof v === "string" ? v : `%!s(${goTypeName(v)}=${goValue(v)})`;
}

const badPatchType = (t: unknown, m: JSONObject) => badRequest(`unknown patch type: ${goString(t)} in map: ${goValue(m)}`);

// Go's == on decoded JSON values; objects and arrays (which Go cannot compare) compare deeply.
function goEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (typeof a === "object" && a !== null) return deepEqual(a, b);
  return a === b;
}

function isDirectiveKey(k: string): boolean {
  return k === directiveMarker || k === retainKeysDirective || k.startsWith(setElementOrderPrefix) || k.startsWith(deleteFromPrimitiveListPrefix);
}

// A value the patch introduces as a whole: nulls in maps, directive keys and $patch-marked list
// elements do not reach the result. `undefined` means "leave the key out".
function clean(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const e of v) {
      if (isObject(e) && hasOwn(e, directiveMarker)) {
        const d = e[directiveMarker];
        if (d === "merge") throw badRequest("merging lists cannot yet be specified in the patch");
        if (d !== "delete" && d !== "replace") throw badPatchType(d, e);
        continue;
      }
      out.push(clean(e));
    }
    return out;
  }
  if (isObject(v)) {
    if (hasOwn(v, directiveMarker)) {
      const d = v[directiveMarker];
      if (d === "delete") return undefined;
      if (d !== "replace") throw badPatchType(d, v);
    }
    const out: JSONObject = {};
    for (const k of Object.keys(v)) {
      if (v[k] === null || isDirectiveKey(k)) continue;
      const c = clean(v[k]);
      if (c !== undefined) setOwn(out, k, c);
    }
    return out;
  }
  return v;
}

function setOrDelete(o: JSONObject, k: string, v: unknown): void {
  if (v === undefined) delete o[k];
  else setOwn(o, k, v);
}

function extractKey(s: string, prefix: string, message: string): string {
  const slash = s.indexOf("/");
  if (slash < 0 || s.slice(0, slash) !== prefix) throw badRequest(message);
  return s.slice(slash + 1);
}

function patchStrategy(strategies: readonly string[]): string {
  const fail = () => new PatchSchemaError("InvalidPatchStrategy", `unexpected patch strategy: ${goValue(strategies)}`);
  if (strategies.length === 0) return "";
  if (strategies.length === 1) return strategies[0] === "retainKeys" ? "" : (strategies[0] ?? "");
  if (strategies.length === 2) {
    if (strategies[0] === "retainKeys") return strategies[1] ?? "";
    if (strategies[1] === "retainKeys") return strategies[0] ?? "";
  }
  throw fail();
}

// All elements of the lists must share one JSON type, which must not be "array".
function elementKind(...lists: readonly (readonly unknown[])[]): Kind | undefined {
  let kind: Kind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = jsonKind(v);
      if (kind === undefined) {
        if (k === "array") throw invalid(errNoListOfLists);
        kind = k;
      } else if (k !== kind) {
        throw invalid(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  return kind;
}

function mergeKeyValue(item: unknown, mergeKey: string): unknown {
  return isObject(item) ? item[mergeKey] : undefined;
}

function indexOf(list: readonly unknown[], item: unknown, mergeKey: string, kind: Kind | undefined): number {
  const get = kind === "object" ? (x: unknown) => mergeKeyValue(x, mergeKey) : (x: unknown) => x;
  const want = get(item);
  return list.findIndex((x) => goEqual(get(x), want));
}

function requireMap(v: unknown): JSONObject {
  if (!isObject(v)) throw badArgType("map[string]interface {}", v);
  return v;
}

function validateMergeKeyInLists(mergeKey: string, ...lists: readonly (readonly unknown[])[]): void {
  for (const list of lists) {
    for (const item of list) {
      const m = requireMap(item);
      if (!hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
    }
  }
}

function splitDeleteItems(list: readonly unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const del: unknown[] = [];
  for (const v of list) {
    const m = requireMap(v);
    if (hasOwn(m, directiveMarker) && m[directiveMarker] === "delete") del.push(v);
    else keep.push(v);
  }
  return [keep, del];
}

function normalizeSliceOrder(toSort: readonly unknown[], order: readonly unknown[], mergeKey: string, kind: Kind | undefined): unknown[] {
  let items = [...toSort];
  let toDelete: unknown[] = [];
  if (kind === "object") {
    validateMergeKeyInLists(mergeKey, items, order);
    [items, toDelete] = splitDeleteItems(items);
  }
  // Kubernetes' comparator: by position in `order` when both are found there, else "less".
  goSliceStable(items, (a, b) => {
    const ia = indexOf(order, a, mergeKey, kind);
    if (ia < 0) return true;
    const ib = indexOf(order, b, mergeKey, kind);
    return ib < 0 || ia < ib;
  });
  return [...items, ...toDelete];
}

// Interleaves the server-only items (left) with the patch items (right), both already ordered:
// a server-only item goes first only when both are on the server and it precedes there.
function mergeSorted(left: readonly unknown[], right: readonly unknown[], serverOrder: readonly unknown[], mergeKey: string, kind: Kind | undefined): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function normalizeElementOrder(
  patchItems: readonly unknown[],
  serverOnly: readonly unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: Kind | undefined,
): unknown[] {
  const p = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSorted(s, p, serverOrder, mergeKey, kind);
}

function partition(merged: readonly unknown[], by: readonly unknown[], mergeKey: string, kind: Kind | undefined): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of merged) {
    let found: boolean;
    if (kind === "object") {
      const m = requireMap(v);
      if (!hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
      found = by.some((x, i) => {
        if (!isObject(x)) throw invalid(`value for key ${i} is not a map.`);
        return hasOwn(x, mergeKey) && goEqual(x[mergeKey], m[mergeKey]);
      });
    } else {
      found = by.some((x) => goEqual(x, v));
    }
    (found ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

function dedupe(list: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of list) if (!out.some((x) => goEqual(x, v))) out.push(v);
  return out;
}

class Merger {
  mergeMap(original: JSONObject, patch: JSONObject, schema: PatchSchema, path: string): JSONObject {
    if (hasOwn(patch, directiveMarker)) {
      const d = patch[directiveMarker];
      if (d === "replace") return clean(patch) as JSONObject;
      if (d === "delete") return {};
      throw badPatchType(d, patch);
    }
    this.applyRetainKeys(original, patch);
    this.mergeOrderedLists(original, patch, schema, path);

    const keys = Object.keys(patch);
    const ordered = [...keys.filter((k) => !k.startsWith(deleteFromPrimitiveListPrefix)), ...keys.filter((k) => k.startsWith(deleteFromPrimitiveListPrefix))];
    for (const k of ordered) {
      const patchV = patch[k];
      if (k.startsWith(deleteFromPrimitiveListPrefix)) {
        this.applyDeletionList(original, extractKey(k, deleteFromPrimitiveListPrefix, errBadPrimitiveList), patchV);
        continue;
      }
      if (patchV === null) {
        delete original[k];
        continue;
      }
      const childPath = path ? `${path}.${k}` : k;
      const origV = hasOwn(original, k) ? original[k] : undefined;
      const kind = jsonKind(patchV);
      if (origV === undefined || jsonKind(origV) !== kind) {
        setOrDelete(original, k, clean(patchV));
        continue;
      }
      if (kind === "object") {
        const { schema: sub, meta } = schema.lookup(k);
        const strategy = patchStrategy(meta.strategies);
        const merged = strategy === "replace" ? clean(patchV) : this.mergeMap(origV as JSONObject, patchV as JSONObject, sub, childPath);
        setOrDelete(original, k, merged);
      } else if (kind === "array") {
        const { schema: sub, meta } = schema.lookup(k);
        const strategy = patchStrategy(meta.strategies);
        setOwn(original, k, this.mergeList(origV as unknown[], patchV as unknown[], sub, strategy, meta.mergeKey ?? "", childPath));
      } else {
        setOwn(original, k, patchV);
      }
    }
    return original;
  }

  private applyRetainKeys(original: JSONObject, patch: JSONObject): void {
    if (!hasOwn(patch, retainKeysDirective)) return;
    const list = patch[retainKeysDirective];
    delete patch[retainKeysDirective];
    if (!Array.isArray(list)) throw badRequest(errBadRetainKeys);
    const retain = new Set<unknown>(list);
    for (const k of Object.keys(patch)) {
      if (patch[k] === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue;
      if (!retain.has(k)) throw badRequest(errBadRetainKeys);
    }
    for (const k of Object.keys(original)) if (!retain.has(k)) delete original[k];
  }

  private applyDeletionList(original: JSONObject, key: string, toDelete: unknown): void {
    if (!Array.isArray(toDelete) || toDelete.some((v) => typeof v === "object" && v !== null)) throw badRequest(errBadPrimitiveList);
    const current = hasOwn(original, key) ? original[key] : undefined;
    if (!Array.isArray(current)) return;
    if (current.some((v) => typeof v === "object" && v !== null)) throw badRequest(errBadPrimitiveList);
    setOwn(
      original,
      key,
      current.filter((v) => !toDelete.some((d) => goEqual(d, v))),
    );
  }

  private mergeList(original: unknown[], patch: unknown[], schema: PatchSchema, strategy: string, mergeKey: string, path: string): unknown[] {
    if (strategy !== "merge") return clean(patch) as unknown[];
    return this.mergeSlice(original, patch, schema, mergeKey, path);
  }

  private mergeSlice(original: unknown[], patch: unknown[], schema: PatchSchema, mergeKey: string, path: string): unknown[] {
    if (original.length === 0 && patch.length === 0) return original;
    const kind = elementKind(original, patch);
    let merged: unknown[];
    let server = original;
    let patchItems = patch;
    if (kind !== "object") {
      merged = dedupe([...original, ...patch]);
      return normalizeElementOrder(...partition(merged, patch, "", kind), patch, original, "", kind);
    }
    if (!mergeKey) throw invalid(`cannot merge lists without merge key for ${path}`);
    [server, patchItems] = this.applySpecialElements(original, patch as JSONObject[], mergeKey);
    merged = [...server];
    for (const v of patchItems as JSONObject[]) {
      if (!hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
      const at = merged.findIndex((x) => isObject(x) && hasOwn(x, mergeKey) && goEqual(x[mergeKey], v[mergeKey]));
      if (at >= 0) merged[at] = this.mergeMap(merged[at] as JSONObject, v, schema, path);
      else {
        const c = clean(v);
        if (c !== undefined) merged.push(c);
      }
    }
    return normalizeElementOrder(...partition(merged, patchItems, mergeKey, kind), patchItems, server, mergeKey, kind);
  }

  // Handles `$patch` elements of a list of objects: deletions remove matching server elements,
  // a replace marker makes the patch's other elements the whole list.
  private applySpecialElements(original: unknown[], patch: JSONObject[], mergeKey: string): [unknown[], unknown[]] {
    const plain: JSONObject[] = [];
    let server = original;
    let replace = false;
    for (const v of patch) {
      if (!hasOwn(v, directiveMarker)) {
        plain.push(v);
        continue;
      }
      const d = v[directiveMarker];
      if (d === "delete") {
        if (!hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
        server = server.filter((x) => !(isObject(x) && hasOwn(x, mergeKey) && goEqual(x[mergeKey], v[mergeKey])));
      } else if (d === "replace") {
        replace = true;
      } else if (d === "merge") {
        throw badRequest("merging lists cannot yet be specified in the patch");
      } else {
        throw badPatchType(d, v);
      }
    }
    if (replace) return [plain.map((v) => clean(v)).filter((v) => v !== undefined), []];
    return [server, plain];
  }

  // Processes every `$setElementOrder/<list>` of this map together with the patch's `<list>`.
  private mergeOrderedLists(original: JSONObject, patch: JSONObject, schema: PatchSchema, path: string): void {
    for (const key of Object.keys(patch)) {
      if (!key.startsWith(setElementOrderPrefix)) continue;
      const order = patch[key];
      delete patch[key];
      if (!Array.isArray(order)) throw badRequest(errBadSetElementOrder);
      const listKey = extractKey(key, setElementOrderPrefix, errBadSetElementOrder);
      const foundOriginal = hasOwn(original, listKey);
      const foundPatch = hasOwn(patch, listKey);
      const originalList = foundOriginal ? original[listKey] : undefined;
      const patchList = foundPatch ? patch[listKey] : undefined;
      if (foundOriginal && !Array.isArray(originalList)) throw badArgType("[]interface {}", originalList);
      if (foundPatch && !Array.isArray(patchList)) throw badRequest(errBadSetElementOrder);
      const originalValue = (originalList ?? []) as unknown[];
      const patchValue = (patchList ?? []) as unknown[];
      const { schema: sub, meta } = schema.lookup(listKey);
      const strategy = patchStrategy(meta.strategies);
      const mergeKey = meta.mergeKey ?? "";
      this.validateOrder(patchValue, order, mergeKey);
      let merged: unknown[];
      if (foundOriginal && !foundPatch) merged = originalValue;
      else if (!foundOriginal && foundPatch) merged = clean(patchValue) as unknown[];
      else if (foundOriginal && foundPatch) merged = this.mergeList(originalValue, patchValue, sub, strategy, mergeKey, path ? `${path}.${listKey}` : listKey);
      else continue;
      // Kubernetes fails with "no elements in any of the given slices" when both lists are
      // empty; the (empty) merged list is kept instead.
      const kind = elementKind(originalValue, patchValue);
      if (kind === undefined) {
        setOwn(original, listKey, merged);
      } else {
        const byKey = kind === "object" ? mergeKey : "";
        setOwn(original, listKey, normalizeElementOrder(...partition(merged, order, byKey, kind), order, originalValue, byKey, kind));
      }
      delete patch[listKey];
    }
  }

  // The patch list's (non-deleting) elements must appear in the order list, in the same order.
  private validateOrder(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string): void {
    if (order.length === 0 || patchList.length === 0) return;
    const items = mergeKey ? splitDeleteItems(patchList)[0] : [...patchList];
    const keyEqual = (l: unknown, r: unknown): boolean => {
      if (!mergeKey) return goEqual(l, r);
      const lm = requireMap(l);
      const rm = requireMap(r);
      if (!hasOwn(lm, mergeKey)) throw noMergeKey(lm, mergeKey);
      if (!hasOwn(rm, mergeKey)) throw noMergeKey(rm, mergeKey);
      return goEqual(lm[mergeKey], rm[mergeKey]);
    };
    let pi = 0;
    let si = 0;
    while (pi < items.length && si < order.length) {
      const item = items[pi];
      if (isObject(item) && hasOwn(item, directiveMarker)) {
        pi++;
        continue;
      }
      if (keyEqual(item, order[si])) pi++;
      si++;
    }
    if (pi < items.length && si >= order.length) {
      throw badRequest(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goValue(order)}\n`);
    }
  }
}

/**
 * Applies a strategic merge patch to a decoded JSON object, using `schema` for each field's patch
 * metadata (see the module comment for the full semantics and the few documented divergences
 * from Kubernetes 1.23). With {@link emptyPatchSchema} and a patch without directives this is the
 * JSON merge patch, except that lists nested in new values lose their `null` map values.
 *
 * @throws {PatchError} `BadRequest` when the patch is not an object or a directive is malformed
 * (`unknown patch type: x in map: ...`, `invalid patch format of retainKeys`, `invalid patch format
 * of setElementOrder list`, `invalid patch format of primitive list`, `merging lists cannot yet be
 * specified in the patch`, `The order in patch list: ...`); `Invalid` when the patch cannot be
 * applied to this document (`map: ... does not contain declared merge key: name`, `lists of lists
 * are not supported`, `list element types are not identical: ...`, `cannot merge lists without
 * merge key for <path>`).
 * @throws {PatchSchemaError} `InvalidPatchStrategy` when the schema declares an impossible
 * strategy combination.
 *
 * Never mutates `doc`, `patch` or the schema; the result shares no objects with the inputs. A
 * `null`/`undefined` doc counts as `{}`.
 * @see staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go `StrategicMergeMapPatch`
 * @example
 * applyStrategicMergePatch(
 *   { spec: { containers: [{ name: "a", image: "x:1" }, { name: "b", image: "y:1" }] } },
 *   { spec: { containers: [{ name: "b", image: "y:2" }] } },
 *   podSchema, // containers: x-kubernetes-patch-strategy merge, merge key name
 * ) // { spec: { containers: [{ name: "a", image: "x:1" }, { name: "b", image: "y:2" }] } }
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: PatchSchema): unknown {
  if (!isObject(patch)) throw badRequest("invalid strategic merge patch: the patch must be a JSON object");
  if (doc !== null && doc !== undefined && !isObject(doc)) throw badRequest(errBadJSONDoc);
  const original: JSONObject = isObject(doc) ? cloneJSON(doc) : {};
  return new Merger().mergeMap(original, cloneJSON(patch), schema, "");
}
