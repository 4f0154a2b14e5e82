/**
 * Field errors: the typed result of validation, one per problem, each naming the field by its
 * Kubernetes path (`spec.template.spec.containers[0].image`, `metadata.labels[app]`).
 *
 * Validators return `FieldError[]` and never throw; only the registry turns a non-empty list
 * into a 422 `Invalid` StatusError whose `details.causes` carry one cause per error.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go
 */

import { formatAggregate, goFloat, goQuote } from "./internal/go-format.js";

/** The kinds of field error, named and worded as Kubernetes names them (`ErrorType`). */
export const FieldErrorType = {
  /** `Not found` — a referenced object is missing. */
  NotFound: "FieldValueNotFound",
  /** `Required value` — a required field is empty. */
  Required: "FieldValueRequired",
  /** `Duplicate value` — a value that must be unique is repeated. */
  Duplicate: "FieldValueDuplicate",
  /** `Invalid value` — malformed or out of range. */
  Invalid: "FieldValueInvalid",
  /** `Unsupported value` — not one of an enumerated set. */
  NotSupported: "FieldValueNotSupported",
  /** `Forbidden` — valid in general, not allowed here (immutable fields, gated fields). */
  Forbidden: "FieldValueForbidden",
  /** `Too long` — longer than the allowed length. */
  TooLong: "FieldValueTooLong",
  /** `Too many` — more items than allowed. */
  TooMany: "FieldValueTooMany",
  /** `Internal error` — validation itself failed. */
  Internal: "InternalError",
  /** `Invalid value` — the value does not have the schema's type for that field. */
  TypeInvalid: "FieldValueTypeInvalid",
} as const;

/** One of the {@link FieldErrorType} values, e.g. `"FieldValueInvalid"`. */
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

/**
 * One validation problem.
 *
 * - `field`: dotted path with `[i]` for list indexes and `[key]` for map keys.
 * - `badValue`: the offending value. Kubernetes never prints it for Required, Forbidden, TooLong
 *   and Internal errors; when the property is absent (or `undefined`) it is not printed either.
 * - `detail`: extra explanation, Kubernetes' wording where one exists; may be empty.
 */
export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly badValue?: unknown;
  readonly detail: string;
}

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

/**
 * Renders the message Kubernetes gives a field error: `spec.parallelism: Invalid value: -1: must be
 * greater than or equal to 0`. Strings are quoted as Go's `%q` does (`strconv.Quote`), numbers and
 * booleans printed as Go's `%v`, non-empty lists of strings as Go's `[]string{"a", "b"}`, other
 * values as JSON.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go `(*Error).Error`
 * @example
 * formatFieldError(invalid("spec.parallelism", -1, "must be greater than or equal to 0"))
 * // 'spec.parallelism: Invalid value: -1: must be greater than or equal to 0'
 */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${formatFieldErrorBody(e)}`;
}

/**
 * The message without the leading field path (`Invalid value: -1: must be ...`): the form used in
 * a Status cause's `message`, whose `field` carries the path. As in Kubernetes 1.23 the bad value
 * is left out for Required, Forbidden, TooLong and Internal errors.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go `(*Error).ErrorBody`
 */
export function formatFieldErrorBody(e: FieldError): string {
  let s = typeText[e.type];
  const omitValue =
    e.type === FieldErrorType.Required ||
    e.type === FieldErrorType.Forbidden ||
    e.type === FieldErrorType.TooLong ||
    e.type === FieldErrorType.Internal ||
    e.badValue === undefined;
  if (!omitValue) s += `: ${formatBadValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/**
 * Joins field errors into one message the way Kubernetes' `ErrorList.ToAggregate().Error()` does:
 * duplicate messages dropped, a single message as is, several as `[a, b]`, none as `""`.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go `aggregate.Error`
 */
export function formatFieldErrors(errs: readonly FieldError[]): string {
  return formatAggregate(errs.map(formatFieldError));
}

/**
 * A field error's bad value that prints as the given text: the value's Go `%#v` rendering when a
 * Go type prints unlike any JSON value (1.23 shows a uint64 zero resourceVersion as `0x0`).
 * Serializes to JSON as that text.
 * @example invalid("metadata.resourceVersion", new GoSyntaxValue("0x0"), "must be specified for an update")
 */
export class GoSyntaxValue {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

function formatBadValue(v: unknown): string {
  if (v instanceof GoSyntaxValue) return v.text;
  if (typeof v === "string") return goQuote(v);
  // A non-empty list of strings is a Go []string, which %#v prints as []string{"a", "b"}.
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string")) return `[]string{${v.map(goQuote).join(", ")}}`;
  if (v === null) return "null";
  if (typeof v === "number") return goFloat(v);
  if (typeof v === "boolean" || typeof v === "bigint") return String(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** `Required value` at `field`. */
export function required(field: string, detail = ""): FieldError {
  return { type: FieldErrorType.Required, field, detail };
}

/** `Invalid value` at `field`, showing `badValue`. */
export function invalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: FieldErrorType.Invalid, field, badValue, detail };
}

/**
 * `Unsupported value` at `field`; `detail` lists the supported values as Kubernetes does:
 * `supported values: "Indexed", "NonIndexed"`.
 */
export function notSupported(field: string, badValue: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(", ")}` : "";
  return { type: FieldErrorType.NotSupported, field, badValue, detail };
}

/** `Duplicate value` at `field`. */
export function duplicate(field: string, badValue: unknown): FieldError {
  return { type: FieldErrorType.Duplicate, field, badValue, detail: "" };
}

/** `Forbidden` at `field`, e.g. `field is immutable`. */
export function forbidden(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Forbidden, field, detail };
}

/**
 * `Too long` at `field`: `must have at most <max> bytes` (`unit` replaces "bytes"). The value is
 * kept on the error but, as in Kubernetes, not printed.
 */
export function tooLong(field: string, badValue: unknown, max: number, unit = "bytes"): FieldError {
  return { type: FieldErrorType.TooLong, field, badValue, detail: `must have at most ${max} ${unit}` };
}

/** `Too many` at `field`: `Too many: <actual>: must have at most <max> items`. */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: FieldErrorType.TooMany, field, detail: `must have at most ${max} items`, badValue: actual };
}

/** `Not found` at `field`. */
export function notFound(field: string, badValue: unknown): FieldError {
  return { type: FieldErrorType.NotFound, field, badValue, detail: "" };
}

/** `Internal error` at `field`. */
export function internalError(field: string, err: unknown): FieldError {
  return { type: FieldErrorType.Internal, field, detail: err instanceof Error ? err.message : String(err) };
}

/**
 * Builds field paths the way Kubernetes' `field.Path` does: `child` adds `.name`, `index` adds
 * `[i]`, `key` adds `[k]`. Immutable: each call returns a new path.
 *
 * @example
 * fieldPath("spec").child("template").index(0).toString() // "spec.template[0]"
 */
export class FieldPath {
  private constructor(private readonly text: string) {}

  /** A root path (`spec`, `metadata`), or the chained path `a.b.c` from several names. */
  static of(...names: string[]): FieldPath {
    return new FieldPath(names.join("."));
  }

  /** `this.name` (or `name` when this path is empty). */
  child(...names: string[]): FieldPath {
    const tail = names.join(".");
    return new FieldPath(this.text ? `${this.text}.${tail}` : tail);
  }

  /** `this[i]`. */
  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  /** `this[key]`. */
  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  /** The dotted path text. */
  toString(): string {
    return this.text;
  }
}

/** Shorthand for {@link FieldPath.of}. */
export function fieldPath(...names: string[]): FieldPath {
  return FieldPath.of(...names);
}
