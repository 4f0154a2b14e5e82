/**
 * The structural type of an object for server-side apply: which values are maps (granular or
 * atomic), which are lists (atomic, sets, or associative lists with key fields) and which are
 * scalars, read from an OpenAPI document's Kubernetes extensions.
 *
 * Lists: `x-kubernetes-list-type` decides (`atomic`, `set`, `map` + `x-kubernetes-list-map-keys`);
 * without it, `x-kubernetes-patch-strategy: merge` makes the list associative by
 * `x-kubernetes-patch-merge-key` (a set when there is no merge key); anything else is atomic.
 * Maps: `x-kubernetes-map-type: atomic` makes a struct or map one leaf; otherwise granular.
 * Values the schema does not describe are "deduced" from their shape: objects are granular
 * maps, lists atomic.
 *
 * @see k8s.io/kube-openapi/pkg/schemaconv/smd.go (the OpenAPI → structured-merge-diff conversion)
 */

import { hasOwn, isObject } from "../internal/json.js";
import type { JSONObject } from "../internal/json.js";

/** How the items of a list relate: replaced whole, a set of scalars, or keyed by fields. */
export type ListType = "atomic" | "set" | "map";

/**
 * One node of a type schema. `kind` `"struct"` has named fields; `"map"` has arbitrary keys
 * of one element type; `"list"`, `"scalar"`, and `"deduced"` (unknown: follow the value's shape).
 */
export interface TypeSchema {
  readonly kind: "struct" | "map" | "list" | "scalar" | "deduced";
  /** Maps and structs: the whole value is one leaf (`x-kubernetes-map-type: atomic`). */
  readonly atomic: boolean;
  /** Lists only. */
  readonly listType: ListType;
  /** `listType` `map`: the key fields of each item. */
  readonly listKeys: readonly string[];
  /** The schema of a field (struct) or of any key (map); `deduced` for unknown fields. */
  field(name: string): TypeSchema;
  /** Lists: the item schema. */
  element(): TypeSchema;
  /** A struct field's OpenAPI `default`, if any (used for omitted list-map key fields). */
  fieldDefault(name: string): unknown;
  /**
   * Whether a struct lists the field as `required` (Go serializes it even when empty, so it
   * exists, as `null`, in every object of the type).
   */
  isRequired(name: string): boolean;
}

/** The schema that knows nothing: every value is read by its shape. */
export const deducedTypeSchema: TypeSchema = {
  kind: "deduced",
  atomic: false,
  listType: "atomic",
  listKeys: [],
  field: () => deducedTypeSchema,
  element: () => deducedTypeSchema,
  fieldDefault: () => undefined,
  isRequired: () => false,
};

interface Merged {
  properties: Map<string, unknown>;
  items: unknown;
  additionalProperties: unknown;
  type: string | undefined;
  required: Set<string>;
  ext: Record<string, unknown>;
  intOrString: boolean;
}

class Resolver {
  private readonly cache = new WeakMap<object, TypeSchema>();
  constructor(private readonly definitions: JSONObject) {}

  private deref(ref: string): unknown {
    const m = /^#\/(?:components\/schemas|definitions)\/(.+)$/.exec(ref);
    const name = (m?.[1] ?? "").replace(/~1/g, "/").replace(/~0/g, "~");
    return hasOwn(this.definitions, name) ? this.definitions[name] : undefined;
  }

  private merged(node: JSONObject): Merged {
    const acc: Merged = { properties: new Map(), items: undefined, additionalProperties: undefined, type: undefined, required: new Set(), ext: {}, intOrString: false };
    const seen = new Set<object>();
    const visit = (n: unknown) => {
      if (!isObject(n) || seen.has(n)) return;
      seen.add(n);
      if (isObject(n.properties)) for (const [k, v] of Object.entries(n.properties)) if (!acc.properties.has(k)) acc.properties.set(k, v);
      if (acc.items === undefined && isObject(n.items)) acc.items = n.items;
      if (acc.additionalProperties === undefined && isObject(n.additionalProperties)) acc.additionalProperties = n.additionalProperties;
      if (acc.type === undefined && typeof n.type === "string") acc.type = n.type;
      if (Array.isArray(n.required)) for (const r of n.required) if (typeof r === "string") acc.required.add(r);
      if (n["x-kubernetes-int-or-string"] === true) acc.intOrString = true;
      for (const k of Object.keys(n)) if (k.startsWith("x-kubernetes-") && !(k in acc.ext)) acc.ext[k] = n[k];
      if (typeof n.$ref === "string") visit(this.deref(n.$ref));
      if (Array.isArray(n.allOf)) n.allOf.forEach(visit);
    };
    visit(node);
    return acc;
  }

  schema(node: unknown): TypeSchema {
    if (!isObject(node)) return deducedTypeSchema;
    const cached = this.cache.get(node);
    if (cached) return cached;
    const m = this.merged(node);
    let kind: TypeSchema["kind"];
    if (m.intOrString) kind = "scalar";
    else if (m.type === "array" || m.items !== undefined) kind = "list";
    else if (m.properties.size > 0) kind = "struct";
    else if (m.additionalProperties !== undefined) kind = "map";
    else if (m.type === "object") kind = "deduced";
    else if (m.type !== undefined) kind = "scalar";
    else kind = "deduced";
    let listType: ListType = "atomic";
    let listKeys: readonly string[] = [];
    const lt = m.ext["x-kubernetes-list-type"];
    if (kind === "list") {
      if (lt === "set") listType = "set";
      else if (lt === "map") {
        const keys = m.ext["x-kubernetes-list-map-keys"];
        listType = "map";
        listKeys = Array.isArray(keys) ? keys.filter((k): k is string => typeof k === "string") : [];
      } else if (lt === undefined) {
        const strategy = String(m.ext["x-kubernetes-patch-strategy"] ?? "").split(",").map((s) => s.trim());
        if (strategy.includes("merge")) {
          const key = m.ext["x-kubernetes-patch-merge-key"];
          if (typeof key === "string") {
            listType = "map";
            listKeys = [key];
          } else {
            listType = "set";
          }
        }
      }
    }
    const fieldCache = new Map<string, TypeSchema>();
    const self: TypeSchema = {
      kind,
      atomic: m.ext["x-kubernetes-map-type"] === "atomic",
      listType,
      listKeys,
      field: (name) => {
        if (kind !== "struct" && kind !== "map") return deducedTypeSchema;
        let s = fieldCache.get(name);
        if (!s) {
          const f = kind === "struct" ? m.properties.get(name) : m.additionalProperties;
          s = f === undefined ? deducedTypeSchema : this.schema(f);
          fieldCache.set(name, s);
        }
        return s;
      },
      element: () => (kind === "list" ? this.schema(m.items) : deducedTypeSchema),
      fieldDefault: (name) => {
        const f = m.properties.get(name);
        return isObject(f) ? f["default"] : undefined;
      },
      isRequired: (name) => kind === "struct" && m.required.has(name),
    };
    this.cache.set(node, self);
    return self;
  }
}

/**
 * Builds the type schema of one type of an OpenAPI document (v3 `components.schemas` or v2
 * `definitions`), resolving `$ref`/`allOf` lazily. An unknown `schemaName` gives
 * {@link deducedTypeSchema}. The document is read, never modified.
 * @see k8s.io/kube-openapi/pkg/schemaconv/smd.go
 * @example
 * const jobType = typeSchemaFromOpenAPI(openapi, "io.example.api.batch.v1.Job");
 * jobType.field("spec").field("template").field("spec").field("containers").listKeys; // ["name"]
 */
export function typeSchemaFromOpenAPI(document: unknown, schemaName: string): TypeSchema {
  const doc = isObject(document) ? document : {};
  const components = isObject(doc.components) ? doc.components : {};
  const definitions = isObject(components.schemas) ? components.schemas : isObject(doc.definitions) ? doc.definitions : {};
  if (!hasOwn(definitions, schemaName)) return deducedTypeSchema;
  return new Resolver(definitions).schema(definitions[schemaName]);
}
