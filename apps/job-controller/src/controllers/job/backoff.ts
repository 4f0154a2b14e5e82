/**
 * The Job controller's re-creation back-off: 10 s doubling per requeue, capped at 6 minutes.
 *
 * @see pkg/controller/job/job_controller.go (DefaultJobBackOff, MaxJobBackOff, getBackoff)
 */
import { ItemExponentialFailureRateLimiter } from "@skiff/client";
import type { WorkRateLimiter } from "@skiff/client";

/** First re-creation delay after a pod failure, in milliseconds. @defaultValue 10 000 */
export const defaultJobBackOffMs = 10_000;

/** Upper bound of the re-creation delay, in milliseconds (6 minutes). @defaultValue 360 000 */
export const maxJobBackOffMs = 360_000;

/**
 * The delay before a Job that has been requeued `requeues` times is synced again:
 * 0 for `requeues <= 0`, else `baseMs × 2^(requeues−1)` capped at `maxMs`. Pure.
 * @see pkg/controller/job/job_controller.go (getBackoff)
 * @example
 * jobBackoffMs(3); // 40 000
 */
export function jobBackoffMs(requeues: number, baseMs: number = defaultJobBackOffMs, maxMs: number = maxJobBackOffMs): number {
  if (!(requeues > 0)) return 0;
  // 2^40 × 10 s is far above any cap; stop doubling early so the number stays finite.
  const exp = Math.min(requeues - 1, 40);
  return Math.min(baseMs * 2 ** exp, maxMs);
}

/**
 * The work-queue rate limiter of the Job controller: per-key exponential from `baseMs` to
 * `maxMs` (10 s → 360 s), as 1.23's `NewItemExponentialFailureRateLimiter(DefaultJobBackOff,
 * MaxJobBackOff)`.
 */
export function newJobRateLimiter<T>(baseMs: number = defaultJobBackOffMs, maxMs: number = maxJobBackOffMs): WorkRateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(baseMs, maxMs);
}
