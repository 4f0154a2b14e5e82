/**
 * Field sets: which fields of an object a manager owns, and their `FieldsV1` wire encoding.
 *
 * A path is a list of path elements, each in its serialized `FieldsV1` form:
 * `f:<name>` (a field of a struct or a key of a map), `k:<json object>` (the item of an
 * associative list with these key-field values, keys sorted), `v:<json>` (the item of a set),
 * `i:<n>` (a list index). A set holds paths; `FieldsV1` writes the tree of their elements, with
 * `".": {}` marking a path that is a member and also has members below it.
 *
 * @see sigs.k8s.io/structured-merge-diff/v4/fieldpath/set.go
 * @see sigs.k8s.io/structured-merge-diff/v4/fieldpath/serialize.go
 * @see sigs.k8s.io/structured-merge-diff/v4/fieldpath/element.go
 */

import { hasOwn, isObject } from "../internal/json.js";

/** One serialized path element (`f:name`, `k:{"name":"a"}`, `v:"x"`, `i:0`). */
export type PathElement = string;

/** A path from the object root, as serialized path elements. */
export type FieldSetPath = readonly PathElement[];

/** Why a `FieldsV1` value could not be read. */
export class FieldsV1Error extends Error {
  override readonly name = "FieldsV1Error";
  readonly reason = "InvalidFieldsV1";
}

/** The `f:` element of a field name. */
export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** The `k:` element of an associative-list item with these key-field values (sorted by name). */
export function keyElement(key: Readonly<Record<string, unknown>>): PathElement {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(key).sort()) out[k] = key[k];
  return `k:${JSON.stringify(out)}`;
}

/** The `v:` element of a set item. */
export function valueElement(value: unknown): PathElement {
  return `v:${JSON.stringify(value)}`;
}

/** The `i:` element of a list index. */
export function indexElement(index: number): PathElement {
  return `i:${String(index)}`;
}

const categoryOrder: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/**
 * Orders path elements as structured-merge-diff does: fields (by name) before keys before
 * values before indexes. Used for the `FieldsV1` key order and for conflict listings.
 */
export function comparePathElements(a: PathElement, b: PathElement): number {
  // Fields are most elements: compare them as strings, without slicing.
  if (a.charCodeAt(0) === 102 && b.charCodeAt(0) === 102) return a < b ? -1 : a > b ? 1 : 0;
  const ca = categoryOrder[a.slice(0, 1)] ?? 9;
  const cb = categoryOrder[b.slice(0, 1)] ?? 9;
  if (ca !== cb) return ca - cb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  if (ca === 0) return ra < rb ? -1 : ra > rb ? 1 : 0;
  if (ca === 3) return Number(ra) - Number(rb);
  const va = JSON.parse(ra) as unknown;
  const vb = JSON.parse(rb) as unknown;
  if (ca === 2) return compareValues(va, vb);
  const ea = Object.entries(va as Record<string, unknown>);
  const eb = Object.entries(vb as Record<string, unknown>);
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
    const [na, xa] = ea[i]!;
    const [nb, xb] = eb[i]!;
    if (na !== nb) return na < nb ? -1 : 1;
    const c = compareValues(xa, xb);
    if (c !== 0) return c;
  }
  return ea.length - eb.length;
}

/**
 * A path in the human form Kubernetes prints in conflicts: `.spec.containers[name="a"].image`,
 * `.spec.volumeLifecycleModes[="Ephemeral"]`, `.items[0]`.
 * @see sigs.k8s.io/structured-merge-diff/v4/fieldpath/path.go (`Path.String`)
 */
export function formatFieldPath(path: FieldSetPath): string {
  let s = "";
  for (const pe of path) {
    const body = pe.slice(2);
    switch (pe.slice(0, 2)) {
      case "f:":
        s += `.${body}`;
        break;
      case "k:": {
        const key = JSON.parse(body) as Record<string, unknown>;
        s += `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}]`;
        break;
      }
      case "v:":
        s += `[=${body}]`;
        break;
      default:
        s += `[${body}]`;
    }
  }
  return s;
}

/**
 * A set of field paths (a tree: `members` are the paths ending at this node, `children` the
 * sets below each element). Mutable; the set operations return new sets and never mutate
 * their inputs.
 * @example
 * const s = new FieldSet(); s.insert(["f:spec", "f:parallelism"]);
 * s.toFieldsV1(); // { "f:spec": { "f:parallelism": {} } }
 */
export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  /** Adds `path` (the empty path is ignored). Mutates the set. */
  insert(path: FieldSetPath): void {
    if (path.length === 0) return;
    parsedFrom.delete(this);
    let node = path.length > 1 ? this.child(path[0]!) : this;
    for (let i = 1; i < path.length - 1; i++) node = node.child(path[i]!);
    node.members.add(path[path.length - 1]!);
  }

  /** Whether `path` is a member. */
  has(path: FieldSetPath): boolean {
    if (path.length === 0) return false;
    const node = path.slice(0, -1).reduce<FieldSet | undefined>((n, pe) => n?.children.get(pe), this);
    return node?.members.has(path[path.length - 1]!) ?? false;
  }

  /** Whether some member starts with `prefix` (or is `prefix`). */
  hasPrefix(prefix: FieldSetPath): boolean {
    const node = prefix.slice(0, -1).reduce<FieldSet | undefined>((n, pe) => n?.children.get(pe), this);
    if (!node) return false;
    if (prefix.length === 0) return !node.empty();
    const last = prefix[prefix.length - 1]!;
    return node.members.has(last) || !(node.children.get(last)?.empty() ?? true);
  }

  /** Whether the set has no member. */
  empty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  /** Every member path, in element order (depth-first, a path before the paths below it). */
  paths(): FieldSetPath[] {
    const out: FieldSetPath[] = [];
    const walk = (node: FieldSet, prefix: PathElement[]) => {
      const keys = [...new Set([...node.members, ...node.children.keys()])].sort(comparePathElements);
      for (const k of keys) {
        if (node.members.has(k)) out.push([...prefix, k]);
        const c = node.children.get(k);
        if (c) walk(c, [...prefix, k]);
      }
    };
    walk(this, []);
    return out;
  }

  /** A deep copy. */
  clone(): FieldSet {
    return copyOf(this) ?? new FieldSet();
  }

  /** Members of either set. */
  union(other: FieldSet): FieldSet {
    return unionOf(this, other) ?? new FieldSet();
  }

  /** Members of both sets. */
  intersection(other: FieldSet): FieldSet {
    return intersectionOf(this, other) ?? new FieldSet();
  }

  /** Members of this set that are not members of `other`. */
  difference(other: FieldSet): FieldSet {
    return differenceOf(this, other, false) ?? new FieldSet();
  }

  /** Members of this set with no prefix (or equal path) among the members of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    return differenceOf(this, other, true) ?? new FieldSet();
  }

  /**
   * Whether the sets share a member (their {@link intersection} is not empty), without building
   * the intersection.
   */
  overlaps(other: FieldSet): boolean {
    return overlapping(this, other);
  }

  /** Whether both sets hold the same members. */
  equals(other: FieldSet): boolean {
    return this.difference(other).empty() && other.difference(this).empty();
  }

  /**
   * The `FieldsV1` JSON of the set (elements in structured-merge-diff order). Does not mutate.
   * A set read by {@link parseFieldsV1} from JSON already in that form, and not changed since,
   * answers that very JSON (no copy): treat the result as read-only.
   */
  toFieldsV1(): Record<string, unknown> {
    return parsedFrom.get(this) ?? this.encodeFieldsV1() ?? {};
  }

  // The FieldsV1 object, or undefined when the set is empty (one pass: no emptiness re-checks).
  // Elements all start with "f:", "k:", "v:" or "i:", so plain assignment never meets __proto__.
  private encodeFieldsV1(): Record<string, unknown> | undefined {
    const keys: PathElement[] = [...this.members];
    for (const k of this.children.keys()) if (!this.members.has(k)) keys.push(k);
    if (keys.length > 1) keys.sort(comparePathElements);
    let out: Record<string, unknown> | undefined;
    for (const k of keys) {
      const sub = this.children.get(k)?.encodeFieldsV1();
      const member = this.members.has(k);
      if (sub === undefined && !member) continue;
      out ??= {};
      out[k] = sub === undefined ? {} : member ? { ".": {}, ...sub } : sub;
    }
    return out;
  }

  /** The child set below `pe`, created when missing. Mutates the set. */
  child(pe: PathElement): FieldSet {
    parsedFrom.delete(this);
    let c = this.children.get(pe);
    if (!c) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }
}

function checkElement(k: string): void {
  const prefix = k.slice(0, 2);
  const body = k.slice(2);
  if (prefix === "f:") return;
  if (prefix === "i:" && /^(0|[1-9][0-9]*)$/.test(body)) return;
  if (prefix === "k:" || prefix === "v:") {
    let v: unknown;
    try {
      v = JSON.parse(body);
    } catch {
      throw new FieldsV1Error(`invalid path element ${JSON.stringify(k)}: not JSON`);
    }
    if (prefix === "k:" && (!isObject(v) || Object.keys(v).length === 0)) throw new FieldsV1Error(`invalid path element ${JSON.stringify(k)}: key must be a non-empty object`);
    return;
  }
  throw new FieldsV1Error(`invalid path element ${JSON.stringify(k)}: unknown prefix`);
}

/**
 * Reads a `FieldsV1` JSON value into a {@link FieldSet}.
 * @throws {FieldsV1Error} when the value is not an object tree of valid path elements.
 * Does not mutate its input.
 * @see sigs.k8s.io/structured-merge-diff/v4/fieldpath/serialize.go (`FromJSON`)
 */
export function parseFieldsV1(fieldsV1: unknown): FieldSet {
  // Whether the JSON read so far is exactly what `toFieldsV1` writes for the set it holds: each
  // node's elements in order, a "." marker only first, as `{}`, and beside other elements.
  let canonical = true;
  const read = (node: unknown, root = false): FieldSet => {
    if (!isObject(node)) throw new FieldsV1Error("fieldsV1 must be a JSON object");
    const set = new FieldSet();
    let previous: string | undefined;
    let index = 0;
    for (const k of Object.keys(node)) {
      index++;
      if (k === ".") {
        // The top has no membership to mark.
        if (canonical && (root || index !== 1 || !isObject(node[k]) || Object.keys(node[k]).length > 0 || Object.keys(node).length === 1)) canonical = false;
        continue;
      }
      checkElement(k);
      if (canonical && previous !== undefined && comparePathElements(previous, k) >= 0) canonical = false;
      previous = k;
      const v = node[k];
      if (!isObject(v)) throw new FieldsV1Error(`fieldsV1 value at ${JSON.stringify(k)} must be an object`);
      const keys = Object.keys(v);
      if (keys.length === 0 || hasOwn(v, ".")) set.members.add(k);
      if (keys.some((x) => x !== ".")) {
        const c = read(v);
        if (!c.empty()) set.children.set(k, c);
      } else if (keys.length > 0) canonical = false;
    }
    return set;
  };
  const set = read(fieldsV1, true);
  if (canonical && !set.empty()) parsedFrom.set(set, fieldsV1 as Record<string, unknown>);
  return set;
}

// The JSON a set was parsed from, when `toFieldsV1` would write exactly that (see parseFieldsV1):
// encoding such a set again is a lookup. Mutating the set (`insert`, `child`) forgets it.
const parsedFrom = new WeakMap<FieldSet, Record<string, unknown>>();

function overlapping(a: FieldSet, b: FieldSet): boolean {
  for (const m of a.members) if (b.members.has(m)) return true;
  for (const [k, c] of a.children) {
    const o = b.children.get(k);
    if (o && overlapping(c, o)) return true;
  }
  return false;
}

// The set operations build their results bottom-up and answer undefined for an empty result, so
// no subtree is walked twice (once to build, once more to ask whether it is empty).

function nonEmpty(s: FieldSet): FieldSet | undefined {
  return s.members.size > 0 || s.children.size > 0 ? s : undefined;
}

function copyOf(a: FieldSet): FieldSet | undefined {
  const out = new FieldSet();
  for (const m of a.members) out.members.add(m);
  for (const [k, c] of a.children) {
    const d = copyOf(c);
    if (d) out.children.set(k, d);
  }
  return nonEmpty(out);
}

function unionOf(a: FieldSet, b: FieldSet): FieldSet | undefined {
  const out = new FieldSet();
  for (const m of a.members) out.members.add(m);
  for (const m of b.members) out.members.add(m);
  for (const [k, c] of a.children) {
    const o = b.children.get(k);
    const u = o ? unionOf(c, o) : copyOf(c);
    if (u) out.children.set(k, u);
  }
  for (const [k, c] of b.children) {
    if (a.children.has(k)) continue;
    const u = copyOf(c);
    if (u) out.children.set(k, u);
  }
  return nonEmpty(out);
}

function intersectionOf(a: FieldSet, b: FieldSet): FieldSet | undefined {
  const out = new FieldSet();
  for (const m of a.members) if (b.members.has(m)) out.members.add(m);
  for (const [k, c] of a.children) {
    const o = b.children.get(k);
    const i = o ? intersectionOf(c, o) : undefined;
    if (i) out.children.set(k, i);
  }
  return nonEmpty(out);
}

// `recursive`: a member of `b` also removes everything below it.
function differenceOf(a: FieldSet, b: FieldSet, recursive: boolean): FieldSet | undefined {
  const out = new FieldSet();
  for (const m of a.members) if (!b.members.has(m)) out.members.add(m);
  for (const [k, c] of a.children) {
    if (recursive && b.members.has(k)) continue;
    const o = b.children.get(k);
    const d = o ? differenceOf(c, o, recursive) : copyOf(c);
    if (d) out.children.set(k, d);
  }
  return nonEmpty(out);
}
