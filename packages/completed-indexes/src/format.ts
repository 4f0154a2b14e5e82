import { collectAscending, writeAscending } from "./internal/intervals.js";

/**
 * Writes completion indexes as a Job's `status.completedIndexes`: ascending, de-duplicated,
 * comma-separated decimal integers, where a run of three or more consecutive indexes is written
 * `first-last` and a run of two as `a,b` (Kubernetes writes `0,1`, never `0-1`). No input gives
 * `""`. Input may be in any order and contain duplicates; it is not mutated. O(n) for ascending
 * input, O(n log n) otherwise.
 *
 * @throws {@link IndexFormatError} with reason `InvalidIndex` when an index is not a
 *   non-negative safe integer (negative, fractional, NaN, infinite or above 2^53 - 1).
 * @see pkg/controller/job/indexed_job_utils.go `orderedIntervals.String` in kubernetes/kubernetes
 * @example
 * ```ts
 * formatIndexes([7, 1, 3, 4, 5, 3]); // "1,3-5,7"
 * formatIndexes([0, 1]);             // "0,1"
 * formatIndexes([]);                 // ""
 * ```
 */
export function formatIndexes(indexes: Iterable<number>): string {
  return writeAscending(collectAscending(indexes));
}
