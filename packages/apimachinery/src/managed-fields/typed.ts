/**
 * Operations on objects read through a {@link TypeSchema}: the field set of a value, the apply
 * merge, the comparison of two versions, and the removal of owned fields.
 *
 * `null` map values count as absent (they never survive decoding into Kubernetes' typed
 * objects); a `null` in an applied configuration removes the field.
 *
 * @see sigs.k8s.io/structured-merge-diff/v4/typed/tofieldset.go
 * @see sigs.k8s.io/structured-merge-diff/v4/typed/merge.go
 * @see sigs.k8s.io/structured-merge-diff/v4/typed/remove.go
 */

import { cloneJSON, deepEqual, hasOwn, isObject, setOwn } from "../internal/json.js";
import type { JSONObject } from "../internal/json.js";
import { FieldSet, fieldElement, formatFieldPath, indexElement, keyElement, valueElement } from "./field-set.js";
import type { FieldSetPath, PathElement } from "./field-set.js";
import type { TypeSchema } from "./type-schema.js";

/** A value does not fit its schema (a duplicate or key-less item of an associative list). */
export class TypedValueError extends Error {
  override readonly name = "TypedValueError";
  readonly reason = "Invalid";
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path || "."}: ${detail}`);
  }
}

/** The changes between two versions of an object, as field sets. */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

type Shape = "leaf" | "map" | "list";

function shapeOf(schema: TypeSchema, v: unknown): Shape {
  if (Array.isArray(v)) {
    if (schema.kind === "list" && schema.listType !== "atomic") return "list";
    return "leaf";
  }
  if (isObject(v)) {
    if ((schema.kind === "struct" || schema.kind === "map" || schema.kind === "deduced") && !schema.atomic) return "map";
    return "leaf";
  }
  return "leaf";
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * The path element of item `index` of a non-atomic list.
 * @throws {TypedValueError} when an associative-list item lacks a key field.
 */
function itemElement(schema: TypeSchema, item: unknown, index: number, path: FieldSetPath): PathElement {
  if (schema.listType === "set" || (schema.listType === "map" && schema.listKeys.length === 0 && !isObject(item))) return valueElement(item);
  if (schema.listType === "map") {
    if (!isObject(item)) throw new TypedValueError(formatFieldPath(path), `associative list with keys may not have non-map elements`);
    const key: Record<string, unknown> = {};
    for (const k of schema.listKeys) {
      const v = present(item[k]) ? item[k] : schema.element().fieldDefault(k);
      if (!present(v)) throw new TypedValueError(formatFieldPath(path), `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
      key[k] = v;
    }
    return keyElement(key);
  }
  return indexElement(index);
}

/** Items of a non-atomic list by path element, in list order; later duplicates win unless `strict`. */
function indexItems(schema: TypeSchema, list: readonly unknown[], path: FieldSetPath, strict: boolean): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  list.forEach((item, i) => {
    const pe = itemElement(schema, item, i, path);
    if (strict && out.has(pe)) throw new TypedValueError(formatFieldPath(path), `duplicate entries for key ${formatFieldPath([pe])}`);
    out.set(pe, item);
  });
  return out;
}

/**
 * The set of fields `value` sets: every scalar and atomic value, and every item of a granular
 * list; maps and structs are only the paths to their fields.
 * @throws {TypedValueError} on duplicate or key-less items of associative lists.
 * @see sigs.k8s.io/structured-merge-diff/v4/typed/tofieldset.go
 */
export function toFieldSet(value: unknown, schema: TypeSchema): FieldSet {
  const set = new FieldSet();
  const walk = (v: unknown, s: TypeSchema, path: PathElement[]) => {
    const shape = shapeOf(s, v);
    if (shape === "leaf") {
      set.insert(path);
    } else if (shape === "map") {
      const o = v as JSONObject;
      for (const k of Object.keys(o)) if (present(o[k])) walk(o[k], s.field(k), [...path, fieldElement(k)]);
    } else {
      for (const [pe, item] of indexItems(s, v as unknown[], path, true)) {
        const p = [...path, pe];
        set.insert(p);
        if (shapeOf(s.element(), item) !== "leaf") walk(item, s.element(), p);
      }
    }
  };
  if (isObject(value)) walk(value, schema, []);
  return set;
}

/**
 * The apply merge: `config` over `live`. Granular maps merge key by key (a `null` removes the
 * key), sets and associative lists merge by item (live-only items keep their place, applied
 * items follow the configuration's order), atomic values and scalars are replaced.
 * Never mutates its inputs; the result shares nothing with them.
 * @throws {TypedValueError} on duplicate or key-less items of associative lists in `config`.
 * @see sigs.k8s.io/structured-merge-diff/v4/typed/merge.go
 */
export function mergeApplied(live: unknown, config: unknown, schema: TypeSchema): unknown {
  const merge = (l: unknown, r: unknown, s: TypeSchema, path: PathElement[]): unknown => {
    if (r === undefined) return cloneJSON(l);
    if (!present(l) || !present(r)) return cloneJSON(r);
    const shape = shapeOf(s, r);
    if (shape !== shapeOf(s, l) || shape === "leaf") return cloneJSON(r);
    if (shape === "map") {
      const lo = l as JSONObject;
      const ro = r as JSONObject;
      const out: JSONObject = {};
      for (const k of Object.keys(lo)) if (!hasOwn(ro, k)) setOwn(out, k, cloneJSON(lo[k]));
      const keys = [...Object.keys(lo).filter((k) => hasOwn(ro, k)), ...Object.keys(ro).filter((k) => !hasOwn(lo, k))];
      const ordered: JSONObject = {};
      for (const k of Object.keys(lo)) {
        if (hasOwn(out, k)) setOwn(ordered, k, out[k]);
        else if (keys.includes(k)) {
          const m = merge(lo[k], ro[k], s.field(k), [...path, fieldElement(k)]);
          if (present(m)) setOwn(ordered, k, m);
        }
      }
      for (const k of Object.keys(ro)) {
        if (hasOwn(lo, k)) continue;
        const m = merge(undefined, ro[k], s.field(k), [...path, fieldElement(k)]);
        if (present(m)) setOwn(ordered, k, m);
      }
      return ordered;
    }
    return mergeList(l as unknown[], r as unknown[], s, path, merge);
  };
  return merge(live, config, schema, []);
}

type MergeFn = (l: unknown, r: unknown, s: TypeSchema, path: PathElement[]) => unknown;

// structured-merge-diff's list merge: live-only items stay where they are; shared and new
// items come in the configuration's order.
function mergeList(l: unknown[], r: unknown[], s: TypeSchema, path: PathElement[], merge: MergeFn): unknown[] {
  const lhs = indexItems(s, l, path, false);
  const rhs = indexItems(s, r, path, true);
  const lPEs = [...lhs.keys()];
  const rPEs = [...rhs.keys()];
  const sharedOrder = rPEs.filter((pe) => lhs.has(pe));
  let next = 0;
  const emitted = new Set<PathElement>();
  const out: unknown[] = [];
  const elem = s.element();
  const emit = (pe: PathElement, v: unknown) => {
    if (emitted.has(pe)) return;
    emitted.add(pe);
    if (present(v)) out.push(v);
    if (sharedOrder[next] === pe) next++;
  };
  let li = 0;
  let ri = 0;
  while (li < lPEs.length || ri < rPEs.length) {
    if (li < lPEs.length && ri < rPEs.length) {
      const pe = lPEs[li]!;
      if (pe === rPEs[ri]) {
        emit(pe, merge(lhs.get(pe), rhs.get(pe), elem, [...path, pe]));
        li++;
        ri++;
        continue;
      }
      if (rhs.has(pe) && next < sharedOrder.length && sharedOrder[next] !== pe) {
        li++;
        continue;
      }
    }
    if (li < lPEs.length && !rhs.has(lPEs[li]!)) {
      const pe = lPEs[li]!;
      emit(pe, cloneJSON(lhs.get(pe)));
      li++;
      continue;
    }
    if (ri < rPEs.length) {
      const pe = rPEs[ri]!;
      emit(pe, merge(lhs.get(pe), rhs.get(pe), elem, [...path, pe]));
      ri++;
      continue;
    }
    li++;
  }
  return out;
}

/**
 * The struct fields that are values, not pointers, in the Go types of the served kinds (ObjectMeta,
 * specs and statuses, PodTemplateSpec and its parts, Node's daemon endpoints and system info,
 * Event's involved object and source). Kubernetes compares a create with the zero object, where
 * these are present as `{}` when reached from the root through values only; every other struct
 * field (`securityContext`, `affinity`, `selector`...) is a nil pointer there.
 */
const goValueStructFields = new Set(["metadata", "spec", "status", "template", "daemonEndpoints", "kubeletEndpoint", "nodeInfo", "involvedObject", "source"]);

/**
 * What changed from `before` to `after`: scalars and atomic values added, modified or removed;
 * granular maps and list items added or removed. Value struct fields reached from the root
 * through value structs only (see `goValueStructFields`), and required fields of a struct present
 * in both versions, exist in every object (Kubernetes' typed zero values), so they are never added
 * or removed themselves — only their contents; a pointer struct set to `{}` is a field of its own.
 * Lenient: duplicate list items in either version are compared last-wins.
 * @see sigs.k8s.io/structured-merge-diff/v4/typed/typed.go (`Compare`)
 */
export function compareObjects(before: unknown, after: unknown, schema: TypeSchema): Comparison {
  const added = new FieldSet();
  const modified = new FieldSet();
  const removed = new FieldSet();
  const walk = (l: unknown, r: unknown, s: TypeSchema, path: PathElement[], skeleton: boolean, alwaysThere = false) => {
    const lp = present(l);
    const rp = present(r);
    if (!lp && !rp) return;
    const ls = lp ? shapeOf(s, l) : undefined;
    const rs = rp ? shapeOf(s, r) : undefined;
    const shape = ls ?? rs;
    const emptyMap = shape === "map" && (!lp || Object.keys(l as JSONObject).length === 0) && (!rp || Object.keys(r as JSONObject).length === 0);
    if ((ls && rs && ls !== rs) || shape === "leaf" || emptyMap) {
      if (emptyMap && skeleton && s.kind === "struct") return;
      if (!lp) added.insert(path);
      else if (!rp) removed.insert(path);
      else if (!deepEqual(l, r)) modified.insert(path);
      return;
    }
    // A subtree equal on both sides adds, modifies and removes nothing: a status write compares
    // the spec and metadata it leaves as they were without walking them.
    if (lp && rp && deepEqual(l, r)) return;
    if (path.length > 0 && !(skeleton && s.kind === "struct") && !alwaysThere) {
      if (!lp) added.insert(path);
      else if (!rp) removed.insert(path);
    }
    // `path` is one array pushed and popped on the way down (FieldSet.insert keeps no reference).
    if (shape === "map") {
      const lo = lp ? (l as JSONObject) : {};
      const ro = rp ? (r as JSONObject) : {};
      const structSkeleton = skeleton && s.kind === "struct";
      const lk = Object.keys(lo);
      const rk = Object.keys(ro);
      for (let i = 0; i < lk.length + rk.length; i++) {
        const k = i < lk.length ? lk[i]! : rk[i - lk.length]!;
        if (i >= lk.length && hasOwn(lo, k)) continue;
        const childSkeleton = structSkeleton && goValueStructFields.has(k);
        path.push(fieldElement(k));
        walk(hasOwn(lo, k) ? lo[k] : undefined, hasOwn(ro, k) ? ro[k] : undefined, s.field(k), path, childSkeleton, (lp || structSkeleton) && (rp || structSkeleton) && s.isRequired(k));
        path.pop();
      }
      return;
    }
    const li = lp ? indexItems(s, l as unknown[], path, false) : undefined;
    const ri = rp ? indexItems(s, r as unknown[], path, false) : undefined;
    const elem = s.element();
    const pes = [...(li?.keys() ?? []), ...[...(ri?.keys() ?? [])].filter((pe) => !li?.has(pe))];
    for (const pe of pes) {
      const a = li?.get(pe);
      const b = ri?.get(pe);
      path.push(pe);
      if (shapeOf(elem, a ?? b) === "leaf") {
        if (a === undefined) added.insert(path);
        else if (b === undefined) removed.insert(path);
        else if (!deepEqual(a, b)) modified.insert(path);
      } else {
        walk(a, b, elem, path, false);
      }
      path.pop();
    }
  };
  walk(before, after, schema, [], true);
  return { added, modified, removed };
}

/**
 * A copy of `value` without the member paths of `set` (map keys deleted, list items dropped).
 * Does not mutate `value`.
 * @see sigs.k8s.io/structured-merge-diff/v4/typed/remove.go
 */
export function removeFields(value: unknown, set: FieldSet, schema: TypeSchema): unknown {
  const remove = (v: unknown, s: TypeSchema, node: FieldSet, path: PathElement[]): unknown => {
    const shape = shapeOf(s, v);
    if (shape === "map") {
      const o = v as JSONObject;
      const out: JSONObject = {};
      for (const k of Object.keys(o)) {
        const pe = fieldElement(k);
        if (node.members.has(pe)) continue;
        const c = node.children.get(pe);
        setOwn(out, k, c ? remove(o[k], s.field(k), c, [...path, pe]) : cloneJSON(o[k]));
      }
      return out;
    }
    if (shape === "list") {
      const out: unknown[] = [];
      (v as unknown[]).forEach((item, i) => {
        const pe = itemElement(s, item, i, path);
        if (node.members.has(pe)) return;
        const c = node.children.get(pe);
        out.push(c ? remove(item, s.element(), c, [...path, pe]) : cloneJSON(item));
      });
      return out;
    }
    return cloneJSON(v);
  };
  return remove(value, schema, set, []);
}
