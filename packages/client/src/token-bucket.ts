/**
 * Client-side request rate limiting: a token bucket holding up to `burst` tokens, refilled at
 * `qps` tokens per second, starting full.
 *
 * @see staging/src/k8s.io/client-go/util/flowcontrol/throttle.go (`NewTokenBucketRateLimiter`)
 */

import type { Clock } from "./clock.js";
import { realClock } from "./clock.js";

/** Options of {@link TokenBucketRateLimiter}. */
export interface TokenBucketOptions {
  /** Tokens added per second; `<= 0` or `Infinity` disables limiting. @defaultValue 5 */
  readonly qps?: number;
  /** Bucket size: requests allowed at once after idling. Values below 1 count as 1. @defaultValue 10 */
  readonly burst?: number;
  /** @defaultValue realClock */
  readonly clock?: Clock;
}

/** A waiter could not get a token because the limiter or its signal was stopped. */
export class RateLimiterAbortedError extends Error {
  override readonly name = "RateLimiterAbortedError";
  readonly code = "Aborted";
}

/**
 * Token bucket as client-go's (`golang.org/x/time/rate` with reservations): `wait()` takes a
 * token, sleeping until one is due; waiters are served in call order (each reserves the next
 * token, so the bucket may go negative). `tryAccept()` takes a token only if one is available now.
 *
 * @example
 * const limiter = new TokenBucketRateLimiter({ qps: 5, burst: 10 });
 * await limiter.wait(); // then send the request
 */
export class TokenBucketRateLimiter {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private lastMs: number;

  constructor(options: TokenBucketOptions = {}) {
    this.qps = options.qps ?? 5;
    this.burst = Math.max(1, Math.floor(options.burst ?? 10));
    this.clock = options.clock ?? realClock;
    this.tokens = this.burst;
    this.lastMs = this.clock.now();
  }

  private get unlimited(): boolean {
    return !(this.qps > 0) || this.qps === Infinity;
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.lastMs) * this.qps) / 1000);
    this.lastMs = now;
  }

  /** Takes a token if one is available now; never waits. */
  tryAccept(): boolean {
    if (this.unlimited) return true;
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /**
   * Milliseconds the next `wait()` would sleep (0 when a token is available). Does not take a token.
   */
  delayMs(): number {
    if (this.unlimited) return 0;
    this.refill();
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) * 1000) / this.qps;
  }

  /**
   * Reserves a token without waiting and returns the milliseconds until it is due (0 if one was
   * available). The caller must wait that long before acting.
   */
  reserve(): number {
    if (this.unlimited) return 0;
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  /**
   * Reserves a token and resolves when it is due.
   * @throws {RateLimiterAbortedError} if `signal` aborts first (the reservation is returned).
   */
  wait(signal?: AbortSignal): Promise<void> {
    if (this.unlimited) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(new RateLimiterAbortedError("rate limiter wait aborted"));
    const waitMs = this.reserve();
    if (waitMs === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        cancel();
        this.tokens += 1;
        reject(new RateLimiterAbortedError("rate limiter wait aborted"));
      };
      const cancel = this.clock.setTimer(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, waitMs);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
