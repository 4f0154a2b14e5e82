export type { Result, ValueError, ValueErrorCode, ValueRangeErrorCode, FlagTableErrorCode } from "./errors.js";
export { ValueParseError, ValueRangeError, FlagTableError } from "./errors.js";
export { Duration, parseDuration, mustParseDuration, formatDuration } from "./duration.js";
export type { QuantityFormat } from "./quantity.js";
export {
  Quantity,
  parseQuantity,
  mustParseQuantity,
  formatQuantity,
  cmpQuantity,
  newQuantity,
  newMilliQuantity,
  quantityValue,
  quantityMilliValue,
  quantityToNumber,
} from "./quantity.js";
export type {
  FlagType,
  FlagValueResult,
  VersionFlagValue,
  ModulePattern,
  TraceLocation,
  MapStringStringOptions,
} from "./flag-types.js";
export { flagTypes } from "./flag-types.js";
export type {
  FlagSpec,
  FlagTable,
  FlagTableShape,
  FlagValues,
  FlagSetOptions,
  ParseFlagsOptions,
  FlagErrorCode,
  FlagError,
  ParsedFlags,
  ParseFlagsResult,
} from "./flag-set.js";
export { FlagSet, wordSepNormalize } from "./flag-set.js";
export type { FormatHelpOptions } from "./help.js";
export { formatHelp, formatFlagLog } from "./help.js";
export { formatGoQuoted } from "./internal/go-quote.js";
