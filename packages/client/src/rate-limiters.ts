/**
 * Per-item rate limiters of work queues: how long to wait before an item is retried.
 *
 * @see staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go
 */

import type { Clock } from "./clock.js";
import { TokenBucketRateLimiter } from "./token-bucket.js";

/**
 * Decides the delay before an item is processed again. `when` records a failure and returns the
 * delay in milliseconds; `forget` clears the item's history; `numRequeues` counts its failures.
 */
export interface WorkRateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/**
 * Exponential per-item back-off: the n-th failure (from 0) waits `baseDelayMs * 2^n`, capped at
 * `maxDelayMs`.
 * @see staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go (`ItemExponentialFailureRateLimiter`)
 */
export class ItemExponentialFailureRateLimiter<T> implements WorkRateLimiter<T> {
  private readonly failures = new Map<T, number>();
  /**
   * @param baseDelayMs delay of the first failure. @defaultValue 5
   * @param maxDelayMs the cap. @defaultValue 1_000_000 (1000 s)
   */
  constructor(
    readonly baseDelayMs = 5,
    readonly maxDelayMs = 1_000_000,
  ) {}
  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const delay = this.baseDelayMs * 2 ** exp;
    return Number.isFinite(delay) ? Math.min(delay, this.maxDelayMs) : this.maxDelayMs;
  }
  forget(item: T): void {
    this.failures.delete(item);
  }
  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * Overall (not per-item) limit: a token bucket of `burst` tokens refilled at `qps`; each `when`
 * reserves a token and returns how long until it is due.
 * @see staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go (`BucketRateLimiter`)
 */
export class BucketRateLimiter<T> implements WorkRateLimiter<T> {
  private readonly bucket: TokenBucketRateLimiter;
  /** @param qps @defaultValue 10 @param burst @defaultValue 100 */
  constructor(qps = 10, burst = 100, clock?: Clock) {
    this.bucket = new TokenBucketRateLimiter({ qps, burst, ...(clock ? { clock } : {}) });
  }
  when(_item: T): number {
    return this.bucket.reserve();
  }
  forget(_item: T): void {}
  numRequeues(_item: T): number {
    return 0;
  }
}

/**
 * The largest delay of several limiters; `numRequeues` is the largest count.
 * @see staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go (`MaxOfRateLimiter`)
 */
export class MaxOfRateLimiter<T> implements WorkRateLimiter<T> {
  private readonly limiters: readonly WorkRateLimiter<T>[];
  constructor(...limiters: WorkRateLimiter<T>[]) {
    this.limiters = limiters;
  }
  when(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }
  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }
  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/**
 * client-go's default controller limiter: the max of per-item exponential back-off (5 ms doubling
 * to 1000 s) and an overall bucket of 10 qps with burst 100.
 * @see staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go (`DefaultControllerRateLimiter`)
 */
export function newDefaultControllerRateLimiter<T>(clock?: Clock): WorkRateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1_000_000), new BucketRateLimiter<T>(10, 100, clock));
}
