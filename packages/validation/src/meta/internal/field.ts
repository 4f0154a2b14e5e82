/**
 * Path-taking wrappers around the `@skiff/apimachinery` field-error factories, so validators read
 * like Kubernetes' `field.Invalid(fldPath.Child("x"), v, msg)`. Not part of the public API.
 */
import {
  FieldErrorType,
  duplicate,
  forbidden,
  internalError,
  invalid,
  notFound,
  notSupported,
  required,
  type FieldError,
  type FieldPath,
} from "@skiff/apimachinery";

type PathLike = FieldPath | string;

export const field = {
  required: (p: PathLike, detail = ""): FieldError => required(String(p), detail),
  invalid: (p: PathLike, value: unknown, detail: string): FieldError => invalid(String(p), value ?? null, detail),
  notSupported: (p: PathLike, value: unknown, supported: readonly string[]): FieldError =>
    notSupported(String(p), value ?? null, supported),
  duplicate: (p: PathLike, value: unknown): FieldError => duplicate(String(p), value ?? null),
  forbidden: (p: PathLike, detail: string): FieldError => forbidden(String(p), detail),
  notFound: (p: PathLike, value: unknown): FieldError => notFound(String(p), value ?? null),
  internal: (p: PathLike, err: unknown): FieldError => internalError(String(p), err),
  // Kubernetes prints no value for Too long (ErrorBody omits it), so none is stored.
  tooLong: (p: PathLike, maxLength: number): FieldError => ({
    type: FieldErrorType.TooLong,
    field: String(p),
    detail: `must have at most ${maxLength} bytes`,
  }),
};

/** Kubernetes' `validation.InclusiveRangeError(lo, hi)`. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** Kubernetes' `validation.RegexError`, with its exact spacing (`'a',  or 'b', `). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += " or ";
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

/** `IsNegativeErrorMsg` of Kubernetes. */
export const isNegativeErrorMsg = "must be greater than or equal to 0";
/** `FieldImmutableErrorMsg` of Kubernetes. */
export const fieldImmutableErrorMsg = "field is immutable";
