/**
 * Admission of the hollow nodes' pod work by the fleet's event-loop delay.
 *
 * A thousand hollow nodes share one Node.js event loop. When every node gets its 30 pods at once,
 * their pod workers' syncs (and the status writes, token requests and watch traffic they cause)
 * queue as ready callbacks on that one loop; each turn of the loop then takes seconds, and a
 * node's Lease renewal, which waits its turn like everything else, times out (10 s) although the
 * apiserver answered it at once. The nodes go NotReady and the run collapses (session 20, 1,000
 * nodes on a slow 2-core machine). In a kubelet, Go's scheduler runs the heartbeat goroutine within
 * milliseconds however many pod workers are busy; this gate gives the fleet that property: pod
 * workers wait in its queue, not in the event loop's, and are let through as fast as the loop keeps
 * up. The work done per second is the same; what waits is pod work, not heartbeats.
 */
import { performance } from "node:perf_hooks";

/** Options of {@link LoopDelayGate}. */
export interface LoopDelayGateOptions {
  /** The loop delay, ms, above which the gate lets fewer through (default 50). */
  readonly maxDelayMs?: number;
  /** How often the delay is sampled and waiters are let through, ms (default 10). */
  readonly tickMs?: number;
  /** The most waiters let through per tick (default 256); the least is 1, so none starves. */
  readonly maxBatch?: number;
}

/** What a {@link LoopDelayGate} has done. */
export interface LoopDelayGateStats {
  /** Admissions in all. */
  readonly admitted: number;
  /** Admissions that had to wait in the queue. */
  readonly queued: number;
  /** The longest the queue was. */
  readonly peakQueue: number;
  /** The largest loop delay sampled, ms. */
  readonly maxDelayMs: number;
  /** Loop delays sampled (one per tick), ms, in order; at most the last 100,000. */
  readonly delaysMs: readonly number[];
}

/**
 * Lets callers of {@link admit} through while the event loop keeps up. Every `tickMs` it samples
 * the loop's delay (how late its timer fired): at or under `maxDelayMs` the batch let through per
 * tick doubles (up to `maxBatch`), above it the batch halves (down to 1). With nothing queued and the
 * last delay under the limit, `admit` resolves at once. FIFO. {@link close} lets every waiter through.
 */
export class LoopDelayGate {
  private readonly maxDelayMs: number;
  private readonly tickMs: number;
  private readonly maxBatch: number;
  private readonly waiting: (() => void)[] = [];
  private head = 0;
  private batch = 8;
  private lastDelayMs = 0;
  private expected = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private admitted = 0;
  private queued = 0;
  private peakQueue = 0;
  private maxSeenMs = 0;
  private readonly delays: number[] = [];

  constructor(o: LoopDelayGateOptions = {}) {
    this.maxDelayMs = o.maxDelayMs ?? 50;
    this.tickMs = o.tickMs ?? 10;
    this.maxBatch = o.maxBatch ?? 256;
    this.expected = performance.now() + this.tickMs;
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
  }

  /** Resolves when the caller may run its work (at once while the loop keeps up). Never rejects. */
  admit(): Promise<void> {
    this.admitted++;
    if (this.closed || (this.queueLength() === 0 && this.lastDelayMs <= this.maxDelayMs)) return Promise.resolve();
    this.queued++;
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.peakQueue = Math.max(this.peakQueue, this.queueLength());
    });
  }

  /** What the gate has done so far. */
  stats(): LoopDelayGateStats {
    return { admitted: this.admitted, queued: this.queued, peakQueue: this.peakQueue, maxDelayMs: this.maxSeenMs, delaysMs: this.delays };
  }

  /** Stops sampling and lets every waiter through. Idempotent. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.release(Infinity);
  }

  private queueLength(): number {
    return this.waiting.length - this.head;
  }

  private tick(): void {
    const now = performance.now();
    const delay = Math.max(0, now - this.expected);
    this.expected = now + this.tickMs;
    this.lastDelayMs = delay;
    this.maxSeenMs = Math.max(this.maxSeenMs, delay);
    if (this.delays.length < 100_000) this.delays.push(delay);
    this.batch = delay <= this.maxDelayMs ? Math.min(this.maxBatch, this.batch * 2) : Math.max(1, Math.floor(this.batch / 2));
    this.release(this.batch);
  }

  private release(n: number): void {
    let left = n;
    while (left > 0 && this.head < this.waiting.length) {
      const resolve = this.waiting[this.head];
      this.waiting[this.head] = noop;
      this.head++;
      left--;
      resolve?.();
    }
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
  }
}

function noop(): void {}
