/**
 * The controller work queue: deduplicating, delaying and rate limiting, as client-go's.
 *
 * @see staging/src/k8s.io/client-go/util/workqueue/queue.go
 * @see staging/src/k8s.io/client-go/util/workqueue/delaying_queue.go
 * @see staging/src/k8s.io/client-go/util/workqueue/rate_limiting_queue.go
 */

import type { Clock } from "./clock.js";
import { realClock } from "./clock.js";
import type { WorkRateLimiter } from "./rate-limiters.js";
import { newDefaultControllerRateLimiter } from "./rate-limiters.js";

/** Options of {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> {
  /** @defaultValue newDefaultControllerRateLimiter() (5 ms doubling to 1000 s per item, max with 10 qps / burst 100 overall) */
  readonly rateLimiter?: WorkRateLimiter<T>;
  /** @defaultValue realClock */
  readonly clock?: Clock;
  /** Name for logs and metrics. */
  readonly name?: string;
  /**
   * Orders the ready items: a higher number is handed out first, equal numbers in the order they
   * were queued (the scheduler's PrioritySort: pod priority, then the time it entered the
   * queue). Read once, when the item is queued. @defaultValue none (FIFO)
   * @see pkg/scheduler/framework/plugins/queuesort/priority_sort.go
   */
  readonly priorityOf?: (item: T) => number;
}

/** A ready item of a priority-ordered queue: its priority and its arrival number. */
interface Ranked<T> {
  readonly item: T;
  readonly priority: number;
  readonly seq: number;
}

/**
 * A work queue of keys (strings normally; items are compared with `===`/SameValueZero).
 *
 * Semantics (client-go's): an item added while already waiting is queued once; an item added
 * while being processed (between `get` and `done`) is queued again only when `done` is called,
 * so one item is never processed by two workers at once; order is FIFO, or by `priorityOf` when
 * given (higher first, FIFO among equals). `addAfter` delays an
 * add (a second `addAfter` keeps the earlier time); `addRateLimited` delays by the rate
 * limiter's back-off and counts a requeue; `forget` resets it. After `shutDown`, adds are
 * ignored, `get` drains what is queued and then resolves `undefined`.
 *
 * @example
 * const queue = new RateLimitingQueue<string>();
 * informer.addEventHandler({ onAdd: (job) => queue.add(keyOf(job)) });
 * for (;;) {
 *   const key = await queue.get();
 *   if (key === undefined) break; // shut down
 *   try { await sync(key); queue.forget(key); } catch { queue.addRateLimited(key); }
 *   finally { queue.done(key); }
 * }
 */
export class RateLimitingQueue<T extends NonNullable<unknown> = string> {
  readonly name: string;
  private readonly rateLimiter: WorkRateLimiter<T>;
  private readonly clock: Clock;
  private queue: T[] = [];
  private head = 0;
  // With `priorityOf`: the ready items as a binary max-heap (priority, then earliest seq).
  private readonly priorityOf: ((item: T) => number) | undefined;
  private readonly heap: Array<Ranked<T>> = [];
  private seq = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiting = new Map<T, number>();
  private cancelTimer: (() => void) | undefined;
  private timerAtMs = Infinity;
  private getters: Array<(item: T | undefined) => void> = [];
  private shuttingDown = false;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    this.rateLimiter = options.rateLimiter ?? newDefaultControllerRateLimiter<T>(options.clock);
    this.clock = options.clock ?? realClock;
    this.name = options.name ?? "";
    this.priorityOf = options.priorityOf;
  }

  /** Items ready to be handed out (not counting delayed or in-process ones). */
  len(): number {
    return this.queue.length - this.head + this.heap.length;
  }

  /** Whether {@link shutDown} was called. */
  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Queues `item` unless it is already waiting (see the class comment for in-process items). */
  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    const getter = this.getters.shift();
    if (getter) {
      this.dirty.delete(item);
      this.processing.add(item);
      getter(item);
      return;
    }
    if (this.priorityOf) this.heapPush({ item, priority: this.priorityOf(item), seq: this.seq++ });
    else this.queue.push(item);
  }

  /** Adds `item` after `delayMs` milliseconds (at once if `<= 0`); an earlier pending time wins. */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const atMs = this.clock.now() + delayMs;
    const prev = this.waiting.get(item);
    if (prev !== undefined && prev <= atMs) return;
    this.waiting.set(item, atMs);
    this.schedule();
  }

  /** Adds `item` after the rate limiter's delay for it (a failure is recorded). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Clears the item's back-off history (call after a successful sync). Does not unqueue it. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** How many times the item was rate-limited since the last {@link forget}. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /**
   * The next item, waiting until one is available; `undefined` once the queue is shut down and
   * drained. The caller must call {@link done} with it when finished.
   */
  get(): Promise<T | undefined> {
    if (this.heap.length > 0) {
      const item = this.heapPop();
      this.dirty.delete(item);
      this.processing.add(item);
      return Promise.resolve(item);
    }
    if (this.head < this.queue.length) {
      const item = this.queue[this.head] as T;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.dirty.delete(item);
      this.processing.add(item);
      return Promise.resolve(item);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks `item` processed; if it was added meanwhile, it is queued again. */
  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      this.dirty.delete(item);
      this.add(item);
    }
  }

  /** Stops the queue: later adds are ignored, delayed items are dropped, idle `get`s resolve `undefined`. */
  shutDown(): void {
    this.shuttingDown = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.waiting.clear();
    const getters = this.getters;
    this.getters = [];
    for (const g of getters) g(undefined);
  }

  // Whether heap entry `a` goes out before `b`.
  private static before<T>(a: Ranked<T>, b: Ranked<T>): boolean {
    return a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);
  }

  private heapPush(entry: Ranked<T>): void {
    const h = this.heap;
    let i = h.length;
    h.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!RateLimitingQueue.before(entry, h[parent] as Ranked<T>)) break;
      h[i] = h[parent] as Ranked<T>;
      i = parent;
    }
    h[i] = entry;
  }

  private heapPop(): T {
    const h = this.heap;
    const top = h[0] as Ranked<T>;
    const last = h.pop() as Ranked<T>;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && RateLimitingQueue.before(h[r] as Ranked<T>, h[l] as Ranked<T>) ? r : l;
        if (!RateLimitingQueue.before(h[c] as Ranked<T>, last)) break;
        h[i] = h[c] as Ranked<T>;
        i = c;
      }
      h[i] = last;
    }
    return top.item;
  }

  private schedule(): void {
    let next = Infinity;
    for (const at of this.waiting.values()) next = Math.min(next, at);
    if (next === this.timerAtMs) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAtMs = next;
    if (next === Infinity) return;
    this.cancelTimer = this.clock.setTimer(() => {
      this.cancelTimer = undefined;
      this.timerAtMs = Infinity;
      const now = this.clock.now();
      for (const [item, at] of this.waiting) {
        if (at <= now) {
          this.waiting.delete(item);
          this.add(item);
        }
      }
      this.schedule();
    }, next - this.clock.now());
  }
}
