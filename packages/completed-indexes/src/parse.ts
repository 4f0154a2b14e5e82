import { IndexFormatError } from "./errors.js";
import type { IndexInterval } from "./interval.js";
import { DASH, readInteger } from "./internal/digits.js";

/**
 * The Job controller's lenient reading of `status.completedIndexes`, as Kubernetes 1.23's
 * `parseIndexesFromString`: it recovers what it can and never throws. The text is split on `,`
 * and each piece on `-`, read in the text's order:
 * - a piece whose first part is not an integer for Go's `strconv.Atoi` (empty, spaces, letters,
 *   beyond the int64 range) is skipped; one leading `+` and leading zeros are accepted;
 * - reading **stops** at the first piece starting at or above `completions` (what follows is
 *   ignored, even indexes below `completions`);
 * - a second part that is not an integer skips the piece; one at or above `completions` is
 *   clamped to `completions - 1`; a piece with more than two parts uses its first two (`1-3-9`
 *   reads as `1-3`);
 * - a piece is joined to the previous one only when it starts right after it (`0-2,3` → `0-3`);
 *   otherwise it is appended as it is, so unordered or overlapping text gives unordered or
 *   overlapping intervals, as upstream (the controller's {@link withOrderedIndexes} then keeps
 *   only the ascending ones, as upstream's does).
 *
 * One departure: an inverted piece (`5-3`) is skipped. Upstream keeps it as an interval with
 * `last < first`, whose negative size becomes a negative `status.succeeded` that its own
 * validation refuses, so the Job's status can no longer be written.
 *
 * `completions` that is not a positive number (0, negative, NaN) gives `[]`; a fractional one
 * admits indexes below it. Pure; linear in the text length.
 *
 * @see pkg/controller/job/indexed_job_utils.go `parseIndexesFromString` (v1.23) in kubernetes/kubernetes
 * @example
 * ```ts
 * parseIndexes("1,3-5,7", 10);   // [{first:1,last:1},{first:3,last:5},{first:7,last:7}]
 * parseIndexes("0-2,x,4-99", 6); // [{first:0,last:2},{first:4,last:5}]
 * parseIndexes("0,9,3", 5);      // [{first:0,last:0}]: stops at 9
 * ```
 */
export function parseIndexes(text: string, completions: number): Array<{ first: number; last: number }> {
  if (typeof text !== "string" || text.length === 0) return [];
  if (typeof completions !== "number" || !(completions > 0)) return [];
  const out: IndexInterval[] = [];
  let top: IndexInterval | undefined;
  const n = text.length;
  let start = 0;
  while (start <= n) {
    let end = text.indexOf(",", start);
    if (end === -1) end = n;
    const dash = indexOfCode(text, DASH, start, end);
    const first = readAtoi(text, start, dash === -1 ? end : dash);
    start = end + 1;
    if (first === undefined) continue;
    if (first >= completions) break;
    let last = first;
    if (dash !== -1) {
      const secondDash = indexOfCode(text, DASH, dash + 1, end);
      const second = readAtoi(text, dash + 1, secondDash === -1 ? end : secondDash);
      if (second === undefined) continue;
      last = second >= completions ? Math.ceil(completions) - 1 : second;
    }
    if (last < first) continue;
    if (top !== undefined && top.last === first - 1) top.last = last;
    else {
      top = { first, last };
      out.push(top);
    }
  }
  return out;
}

/**
 * `text[start, end)` as Go's `strconv.Atoi` reads it within a completed-indexes piece: an
 * optional `+`, then decimal digits (leading zeros allowed), within the int64 range. A value
 * above `Number.MAX_SAFE_INTEGER` (but within int64) is returned as `Infinity`: beyond any
 * completions count. `undefined` when Atoi would fail.
 */
function readAtoi(text: string, start: number, end: number): number | undefined {
  const value = readInteger(text, start, end, true);
  if (value < 0) return undefined;
  if (value !== Infinity) return value;
  let i = start;
  if (text.charCodeAt(i) === 43) i++;
  while (i < end - 1 && text.charCodeAt(i) === 48) i++;
  const digits = text.slice(i, end);
  return digits.length < 19 || (digits.length === 19 && digits <= "9223372036854775807") ? Infinity : undefined;
}

/**
 * Why `validateIndexes` rejected one comma-separated piece of the text:
 * - `TooManyParts`: more than one `-` (`1-2-3`);
 * - `InvalidNumber`: a bound that is not an unsigned decimal integer (empty, signed, spaces,
 *   letters);
 * - `IndexTooLarge`: a bound at or above `completions`;
 * - `InvertedInterval`: `a-b` with `a >= b`;
 * - `NonIncreasingOrder`: the piece starts at or below the end of an earlier piece.
 */
export type IndexesErrorReason = "TooManyParts" | "InvalidNumber" | "IndexTooLarge" | "InvertedInterval" | "NonIncreasingOrder";

/**
 * One problem found by `validateIndexes`. `message` uses the wording of Kubernetes' strict
 * validator (the validation layer prefixes it with `error parsing completedIndexes: `).
 */
export interface IndexesError {
  /** 0-based position of the offending piece among the comma-separated pieces. */
  position: number;
  /** The offending piece, verbatim (may be empty, e.g. for `1,,2`). */
  text: string;
  /** Stable machine-readable reason. */
  reason: IndexesErrorReason;
  /** Human-readable explanation, e.g. `too large index: "7"`. */
  message: string;
}

/**
 * Result of {@link validateIndexes}: the intervals of valid text (ascending, non-overlapping,
 * adjacent ones merged), or every problem found.
 */
export type ValidateIndexesResult =
  | { ok: true; intervals: IndexInterval[] }
  | { ok: false; errors: IndexesError[] };

/**
 * Strict validation of `status.completedIndexes` for the API: the text must be empty or a
 * comma-separated list of pieces `a` or `a-b`, where each bound is an unsigned decimal integer
 * (digits only: no sign, no spaces; leading zeros are accepted, as upstream), `a < b` within a
 * piece, every bound is below `completions`, and each piece starts above the end of the one
 * before it (ascending, non-overlapping; adjacent pieces such as `1,2` or `1-3,4` are allowed).
 * Every piece is checked, so all problems are reported, each with its position and text. Never
 * throws on text; accepts every string `formatIndexes`/`formatIntervals` write for indexes below
 * `completions`.
 *
 * Kubernetes 1.23 validated no `completedIndexes` at all; the rules and wording are those of the
 * later upstream `validateIndexesFormat` / `parseIndexInterval`, plus the rejection of signs.
 *
 * @throws {@link IndexFormatError} with reason `InvalidCompletions` when `completions` is not a
 *   non-negative safe integer (a caller bug, not bad text).
 * @see pkg/apis/batch/validation/validation.go `validateIndexesFormat` in kubernetes/kubernetes
 * @example
 * ```ts
 * validateIndexes("1,3-5,7", 8); // { ok: true, intervals: [{first:1,last:1},{first:3,last:5},{first:7,last:7}] }
 * validateIndexes("3,1", 8);     // { ok: false, errors: [{ position: 1, text: "1", reason: "NonIncreasingOrder",
 *                                //   message: "non-increasing order, previous: 3, current: 1" }] }
 * ```
 */
export function validateIndexes(text: string, completions: number): ValidateIndexesResult {
  checkCompletions(completions);
  const intervals: IndexInterval[] = [];
  const errors: IndexesError[] = [];
  if (typeof text !== "string" || text.length === 0) return { ok: true, intervals };
  const n = text.length;
  let top: IndexInterval | undefined;
  let prevLast = -1;
  let position = 0;
  let start = 0;
  while (start <= n) {
    let end = text.indexOf(",", start);
    if (end === -1) end = n;
    const problem = checkPiece(text, start, end, completions);
    if ("reason" in problem) {
      errors.push({ position, text: text.slice(start, end), ...problem });
    } else if (prevLast >= problem.first) {
      errors.push({
        position,
        text: text.slice(start, end),
        reason: "NonIncreasingOrder",
        message: `non-increasing order, previous: ${prevLast}, current: ${problem.first}`,
      });
    } else {
      prevLast = problem.last;
      if (top !== undefined && problem.first === top.last + 1) top.last = problem.last;
      else intervals.push((top = problem));
    }
    position++;
    start = end + 1;
  }
  return errors.length === 0 ? { ok: true, intervals } : { ok: false, errors };
}

type PieceProblem = { reason: IndexesErrorReason; message: string };

function checkPiece(text: string, start: number, end: number, completions: number): IndexInterval | PieceProblem {
  const dash = indexOfCode(text, DASH, start, end);
  if (dash !== -1 && indexOfCode(text, DASH, dash + 1, end) !== -1) {
    return {
      reason: "TooManyParts",
      message: `the fragment ${quote(text.slice(start, end))} violates the requirement that an index interval can have at most two parts separated by '-'`,
    };
  }
  const firstEnd = dash === -1 ? end : dash;
  const first = checkBound(text, start, firstEnd, completions);
  if (typeof first !== "number") return first;
  if (dash === -1) return { first, last: first };
  const last = checkBound(text, dash + 1, end, completions);
  if (typeof last !== "number") return last;
  if (first >= last) {
    return { reason: "InvertedInterval", message: `non-increasing order, previous: ${first}, current: ${last}` };
  }
  return { first, last };
}

function checkBound(text: string, start: number, end: number, completions: number): number | PieceProblem {
  const value = readInteger(text, start, end, false);
  if (value < 0) {
    return { reason: "InvalidNumber", message: `cannot convert string to integer for index: ${quote(text.slice(start, end))}` };
  }
  if (value >= completions) {
    return { reason: "IndexTooLarge", message: `too large index: ${quote(text.slice(start, end))}` };
  }
  return value;
}

function checkCompletions(completions: number): void {
  if (typeof completions !== "number" || !Number.isSafeInteger(completions) || completions < 0) {
    throw new IndexFormatError(
      "InvalidCompletions",
      `invalid completions ${String(completions)}: must be a non-negative safe integer`,
      completions,
    );
  }
}

function indexOfCode(text: string, code: number, start: number, end: number): number {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === code) return i;
  return -1;
}

/** Go's `%q` for the printable text this package quotes; JSON escaping is the same for ASCII. */
function quote(s: string): string {
  return JSON.stringify(s);
}
