import { FieldErrorType } from "@skiff/apimachinery";
import type { FieldError } from "@skiff/apimachinery";
import type { z } from "zod";
import { childSchema, describePath, goTypeName, schemaAt, schemaKind, unionOptions, zeroValueOf } from "./internal/schema-walk.js";
import { kindSchemas } from "./schemas/index.js";
import type { KindName, KindTypes } from "./schemas/index.js";

/**
 * The `fieldValidation` query parameter: `Strict` (unknown fields are errors), `Warn` (warnings)
 * or `Ignore` (dropped silently).
 */
export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** Options of {@link decodeObject}. */
export interface DecodeOptions {
  /**
   * How the caller treats unknown fields. `Strict` and `Warn`: they are listed in
   * `unknownFields`; `Ignore`: `unknownFields` is always empty. They are dropped from `value` in
   * every mode; answering 400 (Strict) or adding `Warning` headers (Warn) is the caller's job.
   */
  readonly fieldValidation: FieldValidation;
}

/** JSON type of a received value, in Go's `UnmarshalTypeError` words. */
export type JsonTypeName = "string" | "number" | "bool" | "object" | "array" | "null";

/**
 * A structural decode problem: a member whose JSON type (or format) does not fit the schema. Its
 * `type` is `FieldValueTypeInvalid`; `field` is the Kubernetes path (`spec.parallelism`,
 * `spec.template.spec.containers[0].ports[1].containerPort`, `metadata.labels[app]`); `badValue`
 * is set for scalar values only. Kubernetes answers these with 400 BadRequest, worded from the
 * extra members below (see {@link formatDecodeError}).
 */
export interface DecodeFieldError extends FieldError {
  readonly type: typeof FieldErrorType.TypeInvalid;
  /** JSON type received, e.g. `string`. */
  readonly actualType: JsonTypeName;
  /** Go type expected, e.g. `int32`, `int64`, `string`, `bool`, `Time`, `Quantity`, `[]Container`, `JobSpec`. */
  readonly expectedType: string;
  /** Go struct holding the member (`JobSpec` for `spec.parallelism`), when known. */
  readonly structName?: string;
  /** Struct-field names from the root without indexes or map keys (`spec.template.spec.containers.image`). */
  readonly goFieldPath: string;
}

/**
 * Result of {@link decodeObject}: the typed value with unknown fields dropped and listed, or the
 * structural errors.
 */
export type DecodeResult<T> =
  | { readonly ok: true; readonly value: T; readonly unknownFields: string[] }
  | { readonly ok: false; readonly errors: DecodeFieldError[] };

const maxRounds = 32;

/**
 * Structurally decodes a parsed JSON/YAML body as `kind`, as Kubernetes' JSON decoding does before
 * defaulting and validation:
 * - type mismatches (a string for an int32, an int32 out of range, a non-RFC 3339 timestamp, a
 *   malformed quantity...) → `{ ok: false, errors }`, one {@link DecodeFieldError} per field;
 * - unknown members → dropped from `value` and listed in `unknownFields` as dotted paths
 *   (`spec.foo`, `spec.template.spec.containers[0].imagePullPolcy`) unless `fieldValidation` is
 *   `Ignore` (sorted); free-form parts (labels, annotations, `fieldsV1`, podAffinity) keep every key;
 * - `null` members are treated as absent (Go leaves the field unset), except a `null` map value,
 *   which is the value type's zero as Go stores it (`labels: {a: null}` → `a: ""`, a ResourceList's
 *   `cpu: null` → `"0"`);
 * - required members that are absent get Go's zero value (`{}`, `[]`, `""`, `0`, `false`), so that
 *   validation reports them (`spec.template.spec.containers: Required value`) exactly as
 *   Kubernetes does, instead of the decoder.
 *
 * Pure: `raw` is not mutated. The value is a new object, except that the insides of free-form
 * members (`fieldsV1`, untyped `object` fields) may be shared with `raw` (no copy is made of a
 * body without `null` members). Duplicate JSON keys cannot be seen here
 * (the caller checks the raw text). Never throws.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (strict decoding, 1.23)
 * @example
 * const r = decodeObject("Job", JSON.parse(body), { fieldValidation: "Strict" });
 * if (!r.ok) return badRequest(r.errors.map(formatDecodeError));
 * if (r.unknownFields.length) return badRequest(r.unknownFields.map((f) => `unknown field "${f}"`));
 */
export function decodeObject<K extends KindName>(kind: K, raw: unknown, opts: DecodeOptions): DecodeResult<KindTypes[K]> {
  const schema: z.ZodType<KindTypes[K]> = kindSchemas[kind];
  // Most bodies have no null member: zod reads `raw` as it is (its output is a new object), and a
  // copy is made only when a round has to drop or fill members.
  let data = hasNullMember(raw) ? cloneWithoutNulls(raw, schema) : raw;
  let copied = data !== raw;
  const unknownFields: string[] = [];
  for (let round = 0; round < maxRounds; round++) {
    const res = schema.safeParse(data);
    if (res.success) {
      return { ok: true, value: res.data, unknownFields: opts.fieldValidation === "Ignore" ? [] : unknownFields.sort() };
    }
    const errors: DecodeFieldError[] = [];
    const fills: Array<{ path: readonly PropertyKey[]; value: unknown }> = [];
    const drops: Array<{ path: readonly PropertyKey[]; keys: readonly string[] }> = [];
    for (const issue of res.error.issues) {
      if (issue.code === "unrecognized_keys") {
        drops.push({ path: issue.path, keys: issue.keys });
        continue;
      }
      const actual = valueAt(data, issue.path);
      // A missing member, or a null list item (Go decodes `[null]` into a zero element: a list
      // of structs gets an empty struct, which validation then judges, 422 not 400).
      const nullItem = actual.found && actual.value === null && !actual.parentIsObject && issue.path.length > 0;
      if (actual.found === false || actual.value === undefined || nullItem) {
        const info = describePath(schema, issue.path);
        const zero = info.leaf ? zeroValueOf(info.leaf) : undefined;
        if (zero !== undefined && (actual.parentIsObject || nullItem)) {
          fills.push({ path: issue.path, value: zero });
          continue;
        }
      }
      errors.push(toDecodeError(schema, issue, actual.value));
    }
    if (errors.length > 0) return { ok: false, errors: dedupe(errors) };
    if (!copied) {
      data = cloneWithoutNulls(raw, schema);
      copied = true;
    }
    for (const d of drops) {
      const parent = valueAt(data, d.path).value as Record<string, unknown>;
      for (const key of d.keys) {
        unknownFields.push(formatUnknownPath(schema, d.path, key));
        delete parent[key];
      }
    }
    for (const f of fills) setAt(data, f.path, f.value);
  }
  return {
    ok: false,
    errors: [
      {
        type: FieldErrorType.TypeInvalid,
        field: "",
        detail: "object could not be decoded",
        actualType: jsonTypeOf(raw),
        expectedType: kind,
        goFieldPath: "",
      },
    ],
  };
}

/**
 * Words a {@link DecodeFieldError} as Kubernetes 1.23's JSON decoder does:
 * `json: cannot unmarshal string into Go struct field JobSpec.spec.parallelism of type int32`.
 * Format errors of strings (timestamps, quantities) are worded with their detail instead:
 * `spec.startTime: must be an RFC 3339 timestamp`. A `[]byte` value (Secret `data`) that is not
 * base64 gets Go's `illegal base64 data at input byte N`.
 *
 * @see encoding/json `UnmarshalTypeError.Error` (Go standard library)
 */
export function formatDecodeError(e: DecodeFieldError): string {
  const typeFits = e.actualType === "string" && ["Time", "Quantity"].includes(e.expectedType);
  if (typeFits) return `${e.field}: ${e.detail}`;
  // encoding/json returns base64's own error for a []byte value: `illegal base64 data at input byte 8`.
  if (e.actualType === "string" && e.expectedType === "[]uint8") return e.detail;
  const value = e.actualType === "number" && typeof e.badValue === "number" ? `number ${String(e.badValue)}` : e.actualType;
  if (!e.structName || !e.goFieldPath) return `json: cannot unmarshal ${value} into Go value of type ${e.expectedType}`;
  return `json: cannot unmarshal ${value} into Go struct field ${e.structName}.${e.goFieldPath} of type ${e.expectedType}`;
}

function toDecodeError(root: z.ZodType, issue: z.core.$ZodIssue, actualValue: unknown): DecodeFieldError {
  const info = describePath(root, issue.path);
  const expectedType = goTypeName(info.leaf);
  const actualType = jsonTypeOf(actualValue);
  let detail = `must be of type ${expectedType}`;
  if (issue.code === "custom" || issue.code === "invalid_format") detail = issue.message;
  else if (issue.code === "invalid_union") detail = unionDetail(issue, info.leaf) ?? detail;
  const e: DecodeFieldError = {
    type: FieldErrorType.TypeInvalid,
    field: info.field,
    detail,
    actualType,
    expectedType,
    goFieldPath: info.fieldStack.join("."),
    ...(isScalar(actualValue) ? { badValue: actualValue } : {}),
    ...(info.structName ? { structName: info.structName } : {}),
  };
  return e;
}

function unionDetail(issue: z.core.$ZodIssueInvalidUnion, leaf: z.ZodType | undefined): string | undefined {
  if (!leaf || unionOptions(leaf).length === 0) return undefined;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      if (inner.code === "invalid_format" || inner.code === "custom") return inner.message;
    }
  }
  return undefined;
}

function dedupe(errors: DecodeFieldError[]): DecodeFieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (seen.has(e.field)) return false;
    seen.add(e.field);
    return true;
  });
}

function formatUnknownPath(root: z.ZodType, path: readonly PropertyKey[], key: string): string {
  const parent = describePath(root, path).field;
  return parent ? `${parent}.${key}` : key;
}

function isScalar(v: unknown): boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

function jsonTypeOf(v: unknown): JsonTypeName {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "bool";
    default:
      return "object";
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown; parentIsObject: boolean } {
  let cur: unknown = root;
  let parentIsObject = false;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return { found: false, value: undefined, parentIsObject: false };
    parentIsObject = !Array.isArray(cur);
    const rec = cur as Record<PropertyKey, unknown>;
    if (!Object.prototype.hasOwnProperty.call(rec, seg)) return { found: false, value: undefined, parentIsObject };
    cur = rec[seg];
  }
  return { found: true, value: cur, parentIsObject };
}

function setAt(root: unknown, path: readonly PropertyKey[], value: unknown): void {
  if (path.length === 0) return;
  const parent = valueAt(root, path.slice(0, -1)).value;
  if (parent === null || typeof parent !== "object") return;
  defineOwn(parent as Record<PropertyKey, unknown>, path[path.length - 1] as PropertyKey, value);
}

// An own member, also for a key named "__proto__" (which plain assignment would turn into a
// prototype change). Other keys are assigned: `Object.defineProperty` turns an object into a
// slow dictionary-mode object, which made every later read of the copy (the schema's parse)
// several times slower.
function defineOwn(target: Record<PropertyKey, unknown>, key: PropertyKey, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

// Whether a `null` appears anywhere in `v` as an object member.
function hasNullMember(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasNullMember);
  if (v !== null && typeof v === "object" && isPlainObject(v)) {
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      const val = (v as Record<string, unknown>)[k];
      if (val === null || hasNullMember(val)) return true;
    }
  }
  return false;
}

/**
 * Deep-copies plain JSON data read as schema `root`, dropping `null` struct members (Go leaves such
 * fields unset) and turning `null` map values into what Go stores ({@link nullMapValue}). Keys are
 * defined as own properties so a `__proto__` member stays a member (reported as unknown) instead
 * of changing the prototype.
 */
function cloneWithoutNulls(raw: unknown, root: z.ZodType): unknown {
  // The path is one array pushed and popped on the way down; the schema is consulted only where a
  // null member is met (a few per body: `lastProbeTime`, `creationTimestamp`).
  const path: PropertyKey[] = [];
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        out.push(copy(v[i]));
        path.pop();
      }
      return out;
    }
    if (v !== null && typeof v === "object" && isPlainObject(v)) {
      const out: Record<string, unknown> = {};
      let map: z.ZodType | undefined | null = null;
      for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
        if (val === null) {
          if (map === null) {
            const here = schemaAt(root, path);
            map = here !== undefined && schemaKind(here) === "record" ? here : undefined;
          }
          const member = map === undefined ? undefined : childSchema(map, k);
          const zero = member === undefined ? undefined : nullMapValue(member);
          if (zero !== undefined) defineOwn(out, k, zero);
          continue;
        }
        path.push(k);
        defineOwn(out, k, copy(val));
        path.pop();
      }
      return out;
    }
    return v;
  };
  return copy(raw);
}

/**
 * What Go stores for a `null` map value: the value type's zero (`labels: {a: null}` keeps `a` with
 * `""`; a ResourceList's `cpu: null` is the zero Quantity, written `"0"`), or `undefined` (the
 * member is dropped) for value types whose zero Skiff cannot hold (a nil `[]byte` or interface,
 * which Go writes back as `null`).
 * @see encoding/json `literalStore` (null leaves a map element's zero value; a Quantity's `UnmarshalJSON` is called with null)
 */
function nullMapValue(valueSchema: z.ZodType): unknown {
  const goType = goTypeName(valueSchema);
  if (goType === "Quantity") return "0";
  if (goType === "[]uint8") return undefined;
  const kind = schemaKind(valueSchema);
  return kind === "string" || kind === "number" || kind === "boolean" ? zeroValueOf(valueSchema) : undefined;
}

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
