import type { z } from "zod";
import { goTypeOf } from "../schemas/primitives.js";

/*
 * Walks zod 4 schema definitions (`schema._zod.def`) along an issue path, to name the field the
 * way Kubernetes does (`[i]` for list items, `[key]` for map keys) and to find the Go type names
 * recorded with `withGoType`. Only the definition kinds the schemas of this package use are
 * followed; anything else ends the walk.
 */

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly getter?: () => z.ZodType;
  readonly in?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

function defOf(s: z.ZodType): Def {
  return (s as unknown as { _zod: { def: Def } })._zod.def;
}

/** Strips optional/nullable/default/lazy/pipe wrappers. */
export function unwrapSchema(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let i = 0; i < 32; i++) {
    const d = defOf(cur);
    if (d.innerType && ["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"].includes(d.type)) {
      cur = d.innerType;
    } else if (d.type === "lazy" && d.getter) {
      cur = d.getter();
    } else if (d.type === "pipe" && d.in) {
      cur = d.in;
    } else {
      break;
    }
  }
  return cur;
}

/** The schema's definition kind after unwrapping: `object`, `array`, `record`, `string`, ... */
export function schemaKind(s: z.ZodType): string {
  return defOf(unwrapSchema(s)).type;
}

/** Options of a union schema (after unwrapping); empty for other kinds. */
export function unionOptions(s: z.ZodType): readonly z.ZodType[] {
  const d = defOf(unwrapSchema(s));
  return d.type === "union" ? (d.options ?? []) : [];
}

/** A described issue path. */
export interface PathInfo {
  /** Kubernetes-style field path: `spec.template.spec.containers[0].image`, `metadata.labels[app]`. */
  readonly field: string;
  /** The schema at the end of the path, when the walk reached it. */
  readonly leaf: z.ZodType | undefined;
  /** Go name of the innermost struct holding the last field (`JobSpec`), when known. */
  readonly structName: string | undefined;
  /** Struct-field names from the root, without indexes or map keys (Go's `FieldStack`). */
  readonly fieldStack: readonly string[];
}

function child(s: z.ZodType, seg: PropertyKey): { schema: z.ZodType; kind: "field" | "index" | "key" } | undefined {
  const u = unwrapSchema(s);
  const d = defOf(u);
  switch (d.type) {
    case "object": {
      const c = typeof seg === "string" ? d.shape?.[seg] : undefined;
      return c && Object.prototype.hasOwnProperty.call(d.shape, seg) ? { schema: c, kind: "field" } : undefined;
    }
    case "array":
      return d.element ? { schema: d.element, kind: "index" } : undefined;
    case "record":
      return d.valueType ? { schema: d.valueType, kind: "key" } : undefined;
    case "union":
      for (const o of d.options ?? []) {
        const c = child(o, seg);
        if (c) return c;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The schema of member `seg` (a field name, list index or map key) of values of `s`, if known. */
export function childSchema(s: z.ZodType, seg: PropertyKey): z.ZodType | undefined {
  return child(s, seg)?.schema;
}

/** The schema at `path` below `root` (only the walk of {@link describePath}), if known. */
export function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let cur: z.ZodType | undefined = root;
  for (let i = 0; i < path.length && cur !== undefined; i++) cur = child(cur, path[i]!)?.schema;
  return cur;
}

/** Describes `path` (a zod issue path) against the root schema `root`. */
export function describePath(root: z.ZodType, path: readonly PropertyKey[]): PathInfo {
  let field = "";
  let cur: z.ZodType | undefined = root;
  let structName: string | undefined;
  const fieldStack: string[] = [];
  for (const seg of path) {
    const c: ReturnType<typeof child> = cur ? child(cur, seg) : undefined;
    const kind = c?.kind ?? (typeof seg === "number" ? "index" : "field");
    if (kind === "field") {
      if (cur) structName = goTypeOf(unwrapSchema(cur)) ?? structName;
      fieldStack.push(String(seg));
      field = field ? `${field}.${String(seg)}` : String(seg);
    } else {
      field = `${field}[${String(seg)}]`;
    }
    cur = c?.schema;
  }
  return { field, leaf: cur, structName, fieldStack };
}

/** The Go type name of a schema: recorded name, else derived from its kind. */
export function goTypeName(s: z.ZodType | undefined): string {
  if (!s) return "unknown";
  const u = unwrapSchema(s);
  const named = goTypeOf(u) ?? goTypeOf(s);
  if (named) return named;
  switch (defOf(u).type) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return "float64";
    case "array":
      return "array";
    case "record":
    case "object":
      return "object";
    default:
      return defOf(u).type;
  }
}

/**
 * The zero value Go leaves in a required member that is absent from the JSON: `{}` for structs and
 * maps, `[]` for lists, `""`, `0`, `false`. `undefined` when the schema has no sensible zero.
 */
export function zeroValueOf(s: z.ZodType): unknown {
  const u = unwrapSchema(s);
  const d = defOf(u);
  switch (d.type) {
    case "object":
    case "record":
      return {};
    case "array":
      return [];
    case "string":
      return "";
    case "number":
      return 0;
    case "boolean":
      return false;
    case "union": {
      const opts = d.options ?? [];
      if (opts.some((o) => schemaKind(o) === "number")) return 0;
      const first = opts[0];
      return first ? zeroValueOf(first) : undefined;
    }
    default:
      return undefined;
  }
}
