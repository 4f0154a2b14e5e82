import { invalid } from "@skiff/apimachinery";
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { deepEqual } from "./deep-equal.js";

/** Kubernetes' `FieldImmutableErrorMsg`. */
export const fieldImmutableMessage = "field is immutable";

/** `Invalid value: <new>: field is immutable` when `newValue` differs semantically from `oldValue`. */
export function validateImmutableField(newValue: unknown, oldValue: unknown, path: FieldPath): FieldError[] {
  return deepEqual(newValue, oldValue) ? [] : [invalid(path.toString(), newValue ?? null, fieldImmutableMessage)];
}

/** `Invalid value: <v>: must be greater than or equal to 0` when `value` is negative. */
export function validateNonnegativeField(value: number | undefined, path: FieldPath): FieldError[] {
  return value !== undefined && value < 0 ? [invalid(path.toString(), value, "must be greater than or equal to 0")] : [];
}
