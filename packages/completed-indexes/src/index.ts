export type { IndexFormatErrorReason } from "./errors.js";
export { IndexFormatError, isIndexFormatError } from "./errors.js";
export { formatIndexes } from "./format.js";
export type { IndexInterval } from "./interval.js";
export { countIndexes, formatIntervals, intervalsContain, mergeIndexes, withOrderedIndexes } from "./interval.js";
export type { IndexesError, IndexesErrorReason, ValidateIndexesResult } from "./parse.js";
export { parseIndexes, validateIndexes } from "./parse.js";
