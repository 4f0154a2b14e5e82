export {
  FieldErrorType,
  FieldPath,
  duplicate,
  fieldPath,
  forbidden,
  formatFieldError,
  formatFieldErrorBody,
  internalError,
  invalid,
  notFound,
  notSupported,
  required,
  tooLong,
  tooMany,
} from "./field-errors.js";
export type { FieldError } from "./field-errors.js";
