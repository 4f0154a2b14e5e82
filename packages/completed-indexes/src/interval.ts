import { checkIntervals, collectAscending, normalizeIntervals, writeIntervals } from "./internal/intervals.js";

/**
 * An inclusive range of completion indexes, `first <= last`, both non-negative integers.
 * Lists of intervals returned by this package are ascending, non-overlapping and merged: each
 * interval starts at least two above the previous one's `last` (adjacent intervals are joined).
 *
 * @see pkg/controller/job/indexed_job_utils.go (`interval`, `orderedIntervals`) in kubernetes/kubernetes
 */
export interface IndexInterval {
  /** Lowest index in the interval. */
  first: number;
  /** Highest index in the interval (inclusive). */
  last: number;
}

/**
 * Writes intervals in the `completedIndexes` text form: ascending, comma-separated; a run of
 * three or more consecutive indexes as `first-last`, a run of two as `a,b`, a single index as
 * `a`. Unordered, overlapping or adjacent input is sorted and merged first, so the output is
 * always canonical. An empty list gives `""`. Does not mutate its input.
 *
 * @throws {@link IndexFormatError} with reason `InvalidInterval` when an interval's bounds are
 *   not non-negative safe integers or `first > last`.
 * @see pkg/controller/job/indexed_job_utils.go `orderedIntervals.String` in kubernetes/kubernetes
 * @example
 * ```ts
 * formatIntervals([{ first: 1, last: 1 }, { first: 3, last: 5 }, { first: 7, last: 8 }]); // "1,3-5,7,8"
 * ```
 */
export function formatIntervals(intervals: readonly IndexInterval[]): string {
  return writeIntervals(checkIntervals(intervals) ? intervals : normalizeIntervals(intervals));
}

/**
 * Number of indexes covered by ascending, non-overlapping intervals (as returned by
 * `parseIndexes`, `validateIndexes` and `mergeIndexes`): the Job's `status.succeeded` for the
 * Indexed completion mode. Overlapping input is not detected and would be counted twice.
 * Pure; does not validate its input.
 *
 * @see pkg/controller/job/indexed_job_utils.go `orderedIntervals.total` in kubernetes/kubernetes
 */
export function countIndexes(intervals: readonly IndexInterval[]): number {
  let count = 0;
  for (const iv of intervals) count += iv.last - iv.first + 1;
  return count;
}

/**
 * Whether `index` lies in one of the ascending, non-overlapping `intervals` (binary search,
 * O(log n)). A non-integer `index` is never contained. Pure; does not validate its input.
 *
 * @see pkg/controller/job/indexed_job_utils.go `orderedIntervals.has` in kubernetes/kubernetes
 */
export function intervalsContain(intervals: readonly IndexInterval[], index: number): boolean {
  if (!Number.isInteger(index)) return false;
  let lo = 0;
  let hi = intervals.length;
  // Invariant: every interval before lo ends below index; intervals[hi] (if any) ends at or above it.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (intervals[mid]!.last >= index) hi = mid;
    else lo = mid + 1;
  }
  const candidate = intervals[hi];
  return candidate !== undefined && candidate.first <= index;
}

/**
 * Adds `newIndexes` (any order, duplicates allowed) to `intervals` and returns the union as new
 * ascending, non-overlapping, merged intervals — what the Job controller does with indexes
 * whose pods succeeded since the last sync. `intervals` may be unordered or overlapping; they are
 * normalised first. Neither argument is mutated. O(n + m log m) for m new indexes (no sort when
 * they already ascend).
 *
 * @throws {@link IndexFormatError} with reason `InvalidInterval` for a malformed interval, or
 *   `InvalidIndex` for an index that is not a non-negative safe integer.
 * @see pkg/controller/job/indexed_job_utils.go `orderedIntervals.withOrderedIndexes` in kubernetes/kubernetes
 * @example
 * ```ts
 * mergeIndexes([{ first: 0, last: 2 }], [4, 3, 9]); // [{ first: 0, last: 4 }, { first: 9, last: 9 }]
 * ```
 */
export function mergeIndexes(intervals: readonly IndexInterval[], newIndexes: Iterable<number>): IndexInterval[] {
  const base = checkIntervals(intervals) ? intervals : normalizeIntervals(intervals);
  const added = collectAscending(newIndexes);
  const out: IndexInterval[] = [];
  let top: IndexInterval | undefined;
  const append = (first: number, last: number): void => {
    if (top !== undefined && first <= top.last + 1) {
      if (last > top.last) top.last = last;
    } else {
      top = { first, last };
      out.push(top);
    }
  };
  let i = 0;
  let j = 0;
  while (i < base.length && j < added.length) {
    const iv = base[i]!;
    const ix = added[j]!;
    if (iv.first < ix) {
      append(iv.first, iv.last);
      i++;
    } else {
      append(ix, ix);
      j++;
    }
  }
  for (; i < base.length; i++) append(base[i]!.first, base[i]!.last);
  for (; j < added.length; j++) append(added[j]!, added[j]!);
  return out;
}

/**
 * Kubernetes' `orderedIntervals.withOrderedIndexes`, exactly: walks `intervals` in their given
 * order and the ascending `newIndexes` together, appending each item, or joining it to the last
 * appended interval when it starts at most one above that interval's end. An item that starts
 * below the last appended interval's end (out-of-order text from {@link parseIndexes}) is
 * absorbed or dropped, as upstream drops it. For ascending, non-overlapping `intervals` this is
 * the union (as {@link mergeIndexes}). The Job controller calls it on every sync, even with no
 * new index. Neither argument is mutated.
 *
 * @param newIndexes ascending, de-duplicated non-negative integers (upstream passes a sorted set)
 * @see pkg/controller/job/indexed_job_utils.go `withOrderedIndexes` (v1.23) in kubernetes/kubernetes
 * @example
 * ```ts
 * withOrderedIndexes([{ first: 5, last: 5 }, { first: 1, last: 1 }], [6]); // [{ first: 5, last: 6 }]
 * ```
 */
export function withOrderedIndexes(intervals: readonly IndexInterval[], newIndexes: readonly number[]): IndexInterval[] {
  const out: IndexInterval[] = [];
  let top: IndexInterval | undefined;
  const append = (first: number, last: number): void => {
    if (top === undefined || first > top.last + 1) {
      top = { first, last };
      out.push(top);
    } else if (top.last < last) top.last = last;
  };
  let i = 0;
  let j = 0;
  while (i < intervals.length && j < newIndexes.length) {
    const iv = intervals[i]!;
    const ix = newIndexes[j]!;
    if (iv.first < ix) {
      append(iv.first, iv.last);
      i++;
    } else {
      append(ix, ix);
      j++;
    }
  }
  for (; i < intervals.length; i++) append(intervals[i]!.first, intervals[i]!.last);
  for (; j < newIndexes.length; j++) append(newIndexes[j]!, newIndexes[j]!);
  return out;
}
