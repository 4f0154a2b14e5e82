import { IndexFormatError } from "../errors.js";
import type { IndexInterval } from "../interval.js";

export function isValidIndex(v: unknown): v is number {
  // Number.isSafeInteger accepts -0; `-0 < 0` is false, so -0 passes and prints as "0".
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/**
 * Copies `indexes` into an ascending array (duplicates kept). Sorting is skipped when the input
 * is already ascending, the common case for callers that keep indexes ordered.
 */
export function collectAscending(indexes: Iterable<number>): ArrayLike<number> {
  const out: number[] = [];
  let sorted = true;
  let prev = -1;
  for (const v of indexes) {
    if (!isValidIndex(v)) {
      throw new IndexFormatError("InvalidIndex", `invalid index ${describe(v)}: indexes must be non-negative safe integers`, v);
    }
    if (v < prev) sorted = false;
    prev = v;
    out.push(v === 0 ? 0 : v); // folds -0 into 0
  }
  if (sorted) return out;
  // A typed array sorts numerically without a comparator call per comparison.
  return Float64Array.from(out).sort();
}

/**
 * Checks every interval's shape and reports whether the list is already ascending and
 * non-overlapping (`first > previous.last`). Adjacent intervals count as ordered.
 */
export function checkIntervals(intervals: readonly IndexInterval[]): boolean {
  let ordered = true;
  let prevLast = -1;
  for (const iv of intervals) {
    const first: unknown = iv?.first;
    const last: unknown = iv?.last;
    if (!isValidIndex(first) || !isValidIndex(last) || first > last) {
      throw new IndexFormatError(
        "InvalidInterval",
        `invalid interval ${describeInterval(iv)}: first and last must be non-negative safe integers with first <= last`,
        iv,
      );
    }
    if (first <= prevLast) ordered = false;
    if (last > prevLast) prevLast = last;
  }
  return ordered;
}

/** Sorted, merged (overlapping and adjacent joined) copy of valid intervals. */
export function normalizeIntervals(intervals: readonly IndexInterval[]): IndexInterval[] {
  const sorted = intervals.map((iv) => ({ first: iv.first, last: iv.last })).sort((a, b) => a.first - b.first);
  const out: IndexInterval[] = [];
  let top: IndexInterval | undefined;
  for (const iv of sorted) {
    if (top !== undefined && iv.first <= top.last + 1) {
      if (iv.last > top.last) top.last = iv.last;
    } else {
      top = iv;
      out.push(top);
    }
  }
  return out;
}

/**
 * Writes ordered, non-overlapping intervals in the canonical text form, joining adjacent
 * intervals on the fly: one element `a`, two consecutive `a,b`, three or more `a-b`.
 */
export function writeIntervals(intervals: readonly IndexInterval[]): string {
  const parts: string[] = [];
  const n = intervals.length;
  let i = 0;
  while (i < n) {
    const first = intervals[i]!.first;
    let last = intervals[i]!.last;
    i++;
    while (i < n && intervals[i]!.first <= last + 1) {
      if (intervals[i]!.last > last) last = intervals[i]!.last;
      i++;
    }
    pushRun(parts, first, last);
  }
  return parts.join(",");
}

/** Writes an ascending list of indexes (duplicates allowed) in the canonical text form. */
export function writeAscending(sorted: ArrayLike<number>): string {
  const parts: string[] = [];
  const n = sorted.length;
  let i = 0;
  while (i < n) {
    const first = sorted[i]!;
    let last = first;
    i++;
    while (i < n && sorted[i]! <= last + 1) {
      last = sorted[i]!;
      i++;
    }
    pushRun(parts, first, last);
  }
  return parts.join(",");
}

function pushRun(parts: string[], first: number, last: number): void {
  // String(-0) is "0", so a -0 index prints as 0.
  if (last === first) parts.push(String(first));
  else if (last === first + 1) parts.push(`${first},${last}`);
  else parts.push(`${first}-${last}`);
}

function describe(v: unknown): string {
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v);
  return `of type ${v === null ? "null" : typeof v}`;
}

function describeInterval(iv: unknown): string {
  if (typeof iv !== "object" || iv === null) return describe(iv);
  const { first, last } = iv as { first?: unknown; last?: unknown };
  return `{first: ${describe(first)}, last: ${describe(last)}}`;
}
