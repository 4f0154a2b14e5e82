/**
 * Patch metadata for strategic merge patch: for each field, how lists merge (by which key) and
 * whether maps and lists are replaced whole, read from an OpenAPI document's Kubernetes
 * extensions.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/meta.go (`PatchMetaFromOpenAPI`)
 */

import { hasOwn, isObject } from "./internal/json.js";
import type { JSONObject } from "./internal/json.js";

/**
 * How one field patches.
 *
 * - `strategies`: `x-kubernetes-patch-strategy` split on commas: `merge` (lists merge; by
 *   `mergeKey` for lists of objects, as sets for lists of scalars), `replace` (maps and lists are
 *   replaced whole), `retainKeys`. Empty: maps merge key by key, lists are replaced.
 * - `mergeKey`: `x-kubernetes-patch-merge-key`, the key identifying elements of a merged list of
 *   objects (`name` for containers).
 */
export interface PatchMeta {
  readonly strategies: readonly string[];
  readonly mergeKey?: string;
}

/** A field's patch metadata and the schema of its value (of its elements, for a list). */
export interface PatchField {
  readonly schema: PatchSchema;
  readonly meta: PatchMeta;
}

/**
 * The patch metadata of an object type. `lookup(key)` answers for any field name; fields the
 * schema does not know get no metadata and an empty schema (maps then merge, lists replace).
 * For a map type (`additionalProperties`) every key answers with the value schema.
 */
export interface PatchSchema {
  lookup(key: string): PatchField;
}

const noMeta: PatchMeta = { strategies: [] };

/**
 * The schema that knows no field: maps merge recursively and lists are replaced, as for
 * unknown fields in Kubernetes.
 */
export const emptyPatchSchema: PatchSchema = {
  lookup: () => ({ schema: emptyPatchSchema, meta: noMeta }),
};

/** Why a patch schema could not be built or used. */
export type PatchSchemaErrorReason = "SchemaNotFound" | "UnresolvableReference" | "InvalidPatchStrategy";

/**
 * The OpenAPI document does not hold what was asked for, or declares patch metadata Kubernetes
 * cannot use. A server-side defect, not a client error (answer 500).
 */
export class PatchSchemaError extends Error {
  override readonly name = "PatchSchemaError";
  constructor(
    readonly reason: PatchSchemaErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** Options of {@link patchSchemaFromOpenAPI}. */
export interface PatchSchemaOptions {
  /**
   * When a list has no `x-kubernetes-patch-strategy`, derive one from `x-kubernetes-list-type`:
   * `set` merges as a set of scalars, `map` with exactly one `x-kubernetes-list-map-keys` entry
   * merges by that key, `atomic` (and `map` with several keys) replaces.
   *
   * Off by default, because Kubernetes 1.23's strategic merge patch reads only the patch-strategy
   * extensions: a list that declares a list type but no patch strategy (Job
   * `status.uncountedTerminatedPods.succeeded`, CSIDriver `spec.volumeLifecycleModes`) is
   * replaced by a patch, and clients rely on that to remove entries.
   * @defaultValue false
   */
  readonly inferFromListType?: boolean;
}

interface View {
  readonly properties: ReadonlyMap<string, unknown>;
  readonly items: unknown;
  readonly additionalProperties: unknown;
  readonly isArray: boolean;
  readonly ext: {
    patchStrategy?: string;
    mergeKey?: string;
    listType?: string;
    listMapKeys?: readonly string[];
  };
}

class OpenAPIResolver {
  private readonly views = new WeakMap<object, View>();
  private readonly schemas = new WeakMap<object, PatchSchema>();

  constructor(
    private readonly definitions: JSONObject,
    private readonly inferFromListType: boolean,
  ) {}

  definition(name: string): unknown {
    if (!hasOwn(this.definitions, name) || !isObject(this.definitions[name])) {
      throw new PatchSchemaError("SchemaNotFound", `schema ${JSON.stringify(name)} not found in the OpenAPI document`);
    }
    return this.definitions[name];
  }

  private deref(ref: string): unknown {
    const m = /^#\/(?:components\/schemas|definitions)\/(.+)$/.exec(ref);
    if (!m) throw new PatchSchemaError("UnresolvableReference", `cannot resolve $ref ${JSON.stringify(ref)}`);
    const name = (m[1] ?? "").replace(/~1/g, "/").replace(/~0/g, "~");
    if (!hasOwn(this.definitions, name) || !isObject(this.definitions[name])) {
      throw new PatchSchemaError("UnresolvableReference", `cannot resolve $ref ${JSON.stringify(ref)}`);
    }
    return this.definitions[name];
  }

  // Merges a schema node with what its $ref and allOf members say; the node's own values win.
  view(node: unknown): View {
    if (!isObject(node)) return { properties: new Map(), items: undefined, additionalProperties: undefined, isArray: false, ext: {} };
    const cached = this.views.get(node);
    if (cached) return cached;
    const properties = new Map<string, unknown>();
    const acc: { items?: unknown; additionalProperties?: unknown; isArray: boolean; ext: View["ext"] } = { isArray: false, ext: {} };
    const visited = new Set<object>();
    const visit = (n: unknown): void => {
      if (!isObject(n) || visited.has(n)) return;
      visited.add(n);
      if (isObject(n.properties)) {
        for (const [k, v] of Object.entries(n.properties)) if (!properties.has(k)) properties.set(k, v);
      }
      if (acc.items === undefined && isObject(n.items)) acc.items = n.items;
      if (acc.additionalProperties === undefined && isObject(n.additionalProperties)) acc.additionalProperties = n.additionalProperties;
      if (n.type === "array") acc.isArray = true;
      const s = n["x-kubernetes-patch-strategy"];
      if (acc.ext.patchStrategy === undefined && typeof s === "string") acc.ext.patchStrategy = s;
      const k = n["x-kubernetes-patch-merge-key"];
      if (acc.ext.mergeKey === undefined && typeof k === "string") acc.ext.mergeKey = k;
      const lt = n["x-kubernetes-list-type"];
      if (acc.ext.listType === undefined && typeof lt === "string") acc.ext.listType = lt;
      const lk = n["x-kubernetes-list-map-keys"];
      if (acc.ext.listMapKeys === undefined && Array.isArray(lk) && lk.every((x) => typeof x === "string")) acc.ext.listMapKeys = lk;
      if (typeof n.$ref === "string") visit(this.deref(n.$ref));
      if (Array.isArray(n.allOf)) n.allOf.forEach(visit);
    };
    visit(node);
    const view: View = {
      properties,
      items: acc.items,
      additionalProperties: acc.additionalProperties,
      isArray: acc.isArray || acc.items !== undefined,
      ext: acc.ext,
    };
    this.views.set(node, view);
    return view;
  }

  meta(v: View): PatchMeta {
    const strategies = (v.ext.patchStrategy ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (strategies.length > 0 || v.ext.mergeKey !== undefined) {
      return v.ext.mergeKey !== undefined ? { strategies, mergeKey: v.ext.mergeKey } : { strategies };
    }
    if (this.inferFromListType && v.isArray) {
      if (v.ext.listType === "set") return { strategies: ["merge"] };
      const keys = v.ext.listMapKeys ?? [];
      if (v.ext.listType === "map" && keys.length === 1 && keys[0] !== undefined) return { strategies: ["merge"], mergeKey: keys[0] };
    }
    return noMeta;
  }

  schema(node: unknown): PatchSchema {
    if (!isObject(node)) return emptyPatchSchema;
    const cached = this.schemas.get(node);
    if (cached) return cached;
    const s: PatchSchema = {
      lookup: (key: string): PatchField => {
        const v = this.view(node);
        const field = v.properties.has(key) ? v.properties.get(key) : v.additionalProperties;
        if (field === undefined) return { schema: emptyPatchSchema, meta: noMeta };
        const fv = this.view(field);
        return { schema: this.schema(fv.isArray ? fv.items : field), meta: this.meta(fv) };
      },
    };
    this.schemas.set(node, s);
    return s;
  }
}

/**
 * Builds the patch schema of one type of an OpenAPI document (v3 `components.schemas` or v2
 * `definitions`), such as the one `@skiff/api-types` publishes. Resolves `$ref` and `allOf`
 * lazily (recursive types are fine) and reads `x-kubernetes-patch-strategy` and
 * `x-kubernetes-patch-merge-key` (and, with `inferFromListType`, `x-kubernetes-list-type` and
 * `x-kubernetes-list-map-keys`).
 * The document is read, never modified, and must not change while the schema is in use.
 *
 * @throws {PatchSchemaError} `SchemaNotFound` when `schemaName` is not defined; lookups throw
 * `UnresolvableReference` for a `$ref` that points nowhere.
 * @example
 * const jobSchema = patchSchemaFromOpenAPI(openapi, "io.example.api.batch.v1.Job");
 * applyStrategicMergePatch(job, patch, jobSchema);
 */
export function patchSchemaFromOpenAPI(document: unknown, schemaName: string, options: PatchSchemaOptions = {}): PatchSchema {
  const doc = isObject(document) ? document : {};
  const components = isObject(doc.components) ? doc.components : {};
  const definitions = isObject(components.schemas) ? components.schemas : isObject(doc.definitions) ? doc.definitions : {};
  const resolver = new OpenAPIResolver(definitions, options.inferFromListType ?? false);
  return resolver.schema(resolver.definition(schemaName));
}
