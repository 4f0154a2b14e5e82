/**
 * Why a function of this package refused its (programmatic) input:
 * - `InvalidIndex`: an index is not a non-negative safe integer (negative, fractional, NaN,
 *   infinite, above `Number.MAX_SAFE_INTEGER`, or not a number at all);
 * - `InvalidInterval`: an interval's `first`/`last` are not non-negative safe integers with
 *   `first <= last`;
 * - `InvalidCompletions`: `completions` is not a non-negative safe integer.
 */
export type IndexFormatErrorReason = "InvalidIndex" | "InvalidInterval" | "InvalidCompletions";

/**
 * Thrown for invalid programmatic input (numbers and intervals, never text: text is parsed
 * leniently by `parseIndexes` or validated by `validateIndexes`, neither of which throws on bad
 * text). A `RangeError` with a stable `reason` and the offending `value`.
 *
 * @example
 * ```ts
 * try { formatIndexes([1, -2]); } catch (e) { if (isIndexFormatError(e)) console.log(e.reason); } // "InvalidIndex"
 * ```
 */
export class IndexFormatError extends RangeError {
  /** Stable machine-readable reason. */
  readonly reason: IndexFormatErrorReason;
  /** The rejected value (an index, an interval or a completions count), as received. */
  readonly value: unknown;

  constructor(reason: IndexFormatErrorReason, message: string, value: unknown) {
    super(message);
    this.name = "IndexFormatError";
    this.reason = reason;
    this.value = value;
  }
}

const reasons: ReadonlySet<string> = new Set<IndexFormatErrorReason>(["InvalidIndex", "InvalidInterval", "InvalidCompletions"]);

/**
 * Whether `e` is an {@link IndexFormatError}. Checks `name` and `reason` rather than only
 * `instanceof`, so it also recognises errors from a duplicate copy of this package.
 */
export function isIndexFormatError(e: unknown): e is IndexFormatError {
  if (e instanceof IndexFormatError) return true;
  if (typeof e !== "object" || e === null) return false;
  const { name, reason } = e as { name?: unknown; reason?: unknown };
  return name === "IndexFormatError" && typeof reason === "string" && reasons.has(reason);
}
