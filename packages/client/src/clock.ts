/**
 * Time source for rate limiters, queues and informers, injectable so tests use a fake clock.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/clock (client-go `clock.Clock`)
 */

/** A clock: current time in milliseconds and a timer. */
export interface Clock {
  /** Milliseconds since an arbitrary epoch; never decreases. */
  now(): number;
  /**
   * Calls `fn` once after `delayMs` milliseconds (0 or less: as soon as possible). Returns a
   * function that cancels the timer; cancelling after it fired does nothing.
   */
  setTimer(fn: () => void, delayMs: number): () => void;
}

/** The real clock: `performance.now()` and unref'd `setTimeout` (timers never keep the process alive). */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, delayMs) {
    const t = setTimeout(fn, Math.max(0, delayMs));
    t.unref();
    return () => clearTimeout(t);
  },
};

/**
 * A manual clock for tests: time moves only through {@link FakeClock.advance}, which fires the
 * due timers in time order.
 *
 * @example
 * const clock = new FakeClock();
 * const limiter = new TokenBucketRateLimiter({ qps: 1, burst: 1, clock });
 * clock.advance(1000);
 */
export class FakeClock implements Clock {
  private timeMs: number;
  private seq = 0;
  private readonly timers = new Map<number, { atMs: number; fn: () => void }>();

  /** @param startMs initial time. @defaultValue 0 */
  constructor(startMs = 0) {
    this.timeMs = startMs;
  }
  now(): number {
    return this.timeMs;
  }
  setTimer(fn: () => void, delayMs: number): () => void {
    const id = ++this.seq;
    this.timers.set(id, { atMs: this.timeMs + Math.max(0, delayMs), fn });
    return () => this.timers.delete(id);
  }
  /** Number of timers not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }
  /** Moves time forward by `ms` (>= 0), firing every timer that becomes due, earliest first. */
  advance(ms: number): void {
    const target = this.timeMs + ms;
    for (;;) {
      let next: [number, { atMs: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].atMs <= target && (!next || entry[1].atMs < next[1].atMs)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.timeMs = Math.max(this.timeMs, next[1].atMs);
      next[1].fn();
    }
    this.timeMs = target;
  }
}
