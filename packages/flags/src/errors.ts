/**
 * Result and error types shared by the parsers of this package.
 *
 * Parsers return a {@link Result}; only the `mustParse*` helpers and programming errors (a
 * malformed flag table) throw, and they throw the typed classes below.
 */

/**
 * The outcome of a parser: the value, or a non-empty list of errors. Never both.
 *
 * @see STYLE.md §6 ("Config and flag parsers return `{ok:true,value}|{ok:false,errors}`")
 */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly E[] };

/** Stable codes of {@link ValueError}: why a duration or quantity string was rejected. */
export type ValueErrorCode =
  /** `time: invalid duration "x"`: bad syntax or out of the int64 nanosecond range. */
  | "InvalidDuration"
  /** `time: missing unit in duration "10"`. */
  | "MissingUnit"
  /** `time: unknown unit "d" in duration "1d"`. */
  | "UnknownUnit"
  /** `quantities must match the regular expression '...'`. */
  | "QuantityFormat"
  /** `unable to parse numeric part of quantity`. */
  | "QuantityNumeric"
  /** `unable to parse quantity's suffix`. */
  | "QuantitySuffix";

/**
 * One rejected value: a stable `code` and the message the Go implementation gives, verbatim
 * (so that `invalid argument "1d" for "--sync-frequency" flag: <message>` matches Kubernetes).
 */
export interface ValueError {
  readonly code: ValueErrorCode;
  readonly message: string;
}

/**
 * Thrown by {@link mustParseDuration} and {@link mustParseQuantity} (for constants in flag tables
 * and tests) when the text does not parse. `code` is the {@link ValueErrorCode}.
 */
export class ValueParseError extends Error {
  override readonly name = "ValueParseError";
  readonly code: ValueErrorCode;
  readonly input: string;
  constructor(input: string, error: ValueError) {
    super(`cannot parse ${JSON.stringify(input)}: ${error.message}`);
    this.code = error.code;
    this.input = input;
  }
}

/** Stable codes of {@link ValueRangeError}. */
export type ValueRangeErrorCode =
  /** A duration outside the int64 nanosecond range Go's `time.Duration` can hold. */
  | "DurationOutOfRange"
  /** A quantity too large to convert to an integer (exponent above 10000). */
  | "QuantityTooLarge";

/** Thrown when a value is built or converted outside the range its Go counterpart can hold. */
export class ValueRangeError extends RangeError {
  override readonly name = "ValueRangeError";
  readonly code: ValueRangeErrorCode;
  constructor(code: ValueRangeErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Stable codes of {@link FlagTableError}. */
export type FlagTableErrorCode =
  /** Two flags share a (normalised) name; pflag panics `<set> flag redefined: <name>`. */
  | "DuplicateFlag"
  /** Two flags share a shorthand letter. */
  | "DuplicateShorthand"
  /** A shorthand longer than one ASCII character. */
  | "InvalidShorthand"
  /** An empty name, or one the parser could never match (leading `-`, or containing `=`). */
  | "InvalidName"
  /** `deprecated` or `shorthandDeprecated` given as the empty string. */
  | "EmptyDeprecationMessage";

/**
 * A flag table that pflag would refuse (it panics at definition time): thrown by the
 * `FlagSet` constructor. A programming error, never caused by user input.
 *
 * @see github.com/spf13/pflag flag.go `AddFlag`, `MarkDeprecated`
 */
export class FlagTableError extends Error {
  override readonly name = "FlagTableError";
  readonly code: FlagTableErrorCode;
  readonly flag: string;
  constructor(code: FlagTableErrorCode, flag: string, message: string) {
    super(message);
    this.code = code;
    this.flag = flag;
  }
}
