import { z } from "zod";

/*
 * Building blocks of the structural schemas.
 *
 * Optional properties use zod 4's `.exactOptional()`, not `.optional()`: with
 * `exactOptionalPropertyTypes` the api-types declare `parallelism?: number` (the key may be absent
 * but never `undefined`), and `.optional()` infers `parallelism?: number | undefined`, which is not
 * assignable to it, so `satisfies z.ZodType<JobSpec>` would fail. `.exactOptional()` infers exactly
 * `parallelism?: number`. Decoded JSON never holds `undefined`, and `null` members are removed
 * before parsing (Go decodes `null` into a pointer/slice/map as "unset"), so nothing is lost.
 *
 * Objects are strict (`z.strictObject`): a member the schema does not declare yields an
 * `unrecognized_keys` issue, which `decodeObject` turns into an `unknownFields` path and drops.
 */

const goTypeNames = new WeakMap<object, string>();

/** Records the Go type name reported for `schema` in decode errors (`int32`, `JobSpec`...). */
export function withGoType<S extends z.ZodType>(schema: S, name: string): S {
  goTypeNames.set(schema, name);
  return schema;
}

/** The Go type name recorded with {@link withGoType}, if any. */
export function goTypeOf(schema: z.ZodType): string | undefined {
  return goTypeNames.get(schema);
}

/** int32: an integer in [-2^31, 2^31-1]. */
export function int32(): z.ZodInt32 {
  return withGoType(z.int32(), "int32");
}

/** int64: an integer; JSON numbers beyond 2^53 lose precision in JavaScript, so the safe range. */
export function int64(): z.ZodInt {
  return withGoType(z.int(), "int64");
}

/** bool. */
export function bool(): z.ZodBoolean {
  return withGoType(z.boolean(), "bool");
}

/** string. */
export function str(): z.ZodString {
  return withGoType(z.string(), "string");
}

const rfc3339Re = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * `metav1.Time` / `metav1.MicroTime`: an RFC 3339 timestamp string (`2024-01-02T03:04:05Z`,
 * fractional seconds and offsets accepted as Go's `time.RFC3339` parser accepts them).
 */
export function time(): z.ZodString {
  return withGoType(
    z.string().refine((s) => rfc3339Re.test(s) && !Number.isNaN(Date.parse(s)), {
      message: "must be an RFC 3339 timestamp",
    }),
    "Time",
  );
}

/** The `resource.Quantity` parse regex's Kubernetes error text. */
export const quantityFormatMessage =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const quantityRe = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+|[numkMGTPE]|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/**
 * `resource.Quantity`: a string in quantity syntax (`100m`, `1Gi`, `2.5e3`) or a JSON number.
 */
export function quantity(): z.ZodUnion<[z.ZodString, z.ZodNumber]> {
  return withGoType(
    z.union([z.string().regex(quantityRe, { message: quantityFormatMessage }), z.number()]),
    "Quantity",
  );
}

/** `intstr.IntOrString`: an int32 or a string. */
export function intOrString(): z.ZodUnion<[z.ZodInt32, z.ZodString]> {
  return withGoType(z.union([z.int32(), z.string()]), "IntOrString");
}

/** `map[string]string` (labels, annotations, nodeSelector...): free-form keys are kept. */
export function stringMap(): z.ZodRecord<z.ZodString, z.ZodString> {
  return withGoType(z.record(z.string(), z.string()), "map[string]string");
}

/** A free-form JSON object (`fieldsV1`, loose structures): every key is kept, values unchecked. */
export function freeForm(): z.ZodRecord<z.ZodString, z.ZodUnknown> {
  return withGoType(z.record(z.string(), z.unknown()), "object");
}

/** `[]string`. */
export function stringList(): z.ZodArray<z.ZodString> {
  return withGoType(z.array(z.string()), "[]string");
}

/**
 * Checks at compile time that a shape declares exactly the keys of `T` (every optional key too,
 * which `satisfies z.ZodType<T>` alone cannot see: a schema missing an optional member would
 * still satisfy it and then report that member as an unknown field). Returns a strict object
 * carrying `goName` for decode errors.
 *
 * @example
 * const s = objectOf<Foo>()("Foo", { a: str(), b: int32().exactOptional() }) satisfies z.ZodType<Foo>;
 */
export function objectOf<T>() {
  return <S extends { [K in keyof T]-?: z.ZodType }>(
    goName: string,
    shape: S & Record<Exclude<keyof S, keyof T>, never>,
  ): z.ZodObject<S, z.core.$strict> => withGoType(z.strictObject(shape as S), goName);
}

/** `[]T` for an element schema (named `[]<Go name>` in decode errors). */
export function listOf<S extends z.ZodType>(element: S): z.ZodArray<S> {
  return withGoType(z.array(element), `[]${goTypeOf(element) ?? "object"}`);
}

/** `ResourceList`: a map of resource name to {@link quantity}. */
export function quantityMap(): z.ZodRecord<z.ZodString, ReturnType<typeof quantity>> {
  return withGoType(z.record(z.string(), quantity()), "ResourceList");
}

/**
 * An "open enum" string: any string decodes, typed as the api-types literal union `T`
 * (`restartPolicy`, `imagePullPolicy`, `fsGroupPolicy`...). Kubernetes decodes these as plain
 * strings and rejects values outside the set at validation (`Unsupported value: "X": supported
 * values: ...`, 422), not at decoding (400); the validators check the set. Until an object has been
 * validated, such a member may therefore hold a string outside `T`.
 */
export function openEnum<T extends string>(): z.ZodType<T> {
  return withGoType(z.string(), "string") as unknown as z.ZodType<T>;
}

const base64Decode = new Int16Array(256).fill(-1);
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries()) base64Decode[c.charCodeAt(0)] = i;

/**
 * Where Go's `base64.StdEncoding` (what `encoding/json` decodes `[]byte` with) rejects `text`:
 * the byte offset of its `CorruptInputError`, or `undefined` when `text` decodes. Padding is
 * required; `\r` and `\n` are skipped; a padded quantum must end the input.
 * @see encoding/base64/base64.go (decodeQuantum) in the Go standard library
 */
export function goBase64ErrorOffset(text: string): number | undefined {
  const src = Buffer.from(text, "utf8");
  const isNewline = (b: number | undefined) => b === 0x0a || b === 0x0d;
  let si = 0;
  while (si < src.length) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const b = src[si++]!;
      if (base64Decode[b] !== -1) continue;
      if (isNewline(b)) {
        j--;
        continue;
      }
      if (b !== 0x3d || j < 2) return si - 1;
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return src.length;
        if (src[si] !== 0x3d) return si - 1;
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? si : undefined;
    }
  }
  return undefined;
}

/**
 * `map[string][]byte` (Secret `data`, ConfigMap `binaryData`): values are base64 text as Go's
 * JSON decoder reads `[]byte`; others fail with its `illegal base64 data at input byte N`.
 */
export function byteMap(): z.ZodRecord<z.ZodString, z.ZodString> {
  const bytes = withGoType(
    z.string().superRefine((s, ctx) => {
      const at = goBase64ErrorOffset(s);
      if (at !== undefined) ctx.addIssue({ code: "custom", message: `illegal base64 data at input byte ${String(at)}` });
    }),
    "[]uint8",
  );
  return withGoType(z.record(z.string(), bytes), "map[string][]uint8");
}

/** The decoded length in bytes of base64 text that {@link goBase64ErrorOffset} accepts. */
export function base64DecodedLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x3d && c !== 0x0a && c !== 0x0d) n++;
  }
  return Math.floor((n * 3) / 4);
}
