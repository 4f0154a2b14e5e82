/**
 * File path rules for sub-paths, key-to-path items and seccomp profiles.
 *
 * @see pkg/apis/core/validation/validation.go `validateLocalDescendingPath`, `validateLocalNonReservedPath`
 */
import type { FieldError, FieldPath } from "@skiff/apimachinery";
import { field } from "../meta/internal/field.js";

/** No `..` element (`Invalid value: ...: must not contain '..'`, once). */
export function validatePathNoBacksteps(target: string, path: FieldPath): FieldError[] {
  return target.split("/").includes("..") ? [field.invalid(path, target, "must not contain '..'")] : [];
}

/** Relative (`must be a relative path`) and without `..` elements. */
export function validateLocalDescendingPath(target: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith("/")) errs.push(field.invalid(path, target, "must be a relative path"));
  errs.push(...validatePathNoBacksteps(target, path));
  return errs;
}

/** As {@link validateLocalDescendingPath}, and not starting with `..` (`must not start with '..'`). */
export function validateLocalNonReservedPath(target: string, path: FieldPath): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith("..") && !target.startsWith("../")) {
    errs.push(field.invalid(path, target, "must not start with '..'"));
  }
  return errs;
}
