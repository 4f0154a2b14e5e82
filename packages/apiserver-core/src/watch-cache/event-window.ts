import type { Revision } from "@skiff/storage";

/** What the window needs of an event: its revision, when it was recorded and its size. */
export interface WindowEvent {
  readonly revision: Revision;
  /** When the cache recorded the event, in milliseconds (the window's clock). */
  readonly recordedAt: number;
  /** The memory the event holds, in bytes (its texts' lengths). */
  readonly bytes: number;
}

/** Options of {@link EventWindow}. */
export interface EventWindowOptions {
  /** The capacity the window starts with and never shrinks below, in events. @defaultValue 1000 */
  readonly lowerBound?: number;
  /** The capacity it never grows beyond, in events (1.23: `100 * 1024`). @defaultValue 102400 */
  readonly upperBound?: number;
  /**
   * The most bytes of event text it keeps: beyond that the oldest events go, whatever the
   * capacity (1.23 has no such bound; its events share their objects with the cacher's store,
   * which Skiff does not keep, so these texts are most of what the window costs; 64 MiB is about
   * 14 s of a 1,000-node fleet's pod changes). @defaultValue 64 MiB
   */
  readonly maxBytes?: number;
  /**
   * How young the oldest event of a full window must be for it to double (1.23: 75 s), and how
   * recent a miss ({@link EventWindow.noteMiss}) must be. @defaultValue 75000
   */
  readonly eventFreshMs?: number;
  /**
   * After this long without a new event, {@link EventWindow.trimStale} gives the window back to
   * its lower bound: the burst that grew it is over. @defaultValue 10000
   */
  readonly idleMs?: number;
}

/**
 * The watch cache's sliding window of recent events, sized as 1.23's `watchCache`, with one
 * departure: it starts at `lowerBound` events; when it is full and its oldest event is younger
 * than `eventFreshMs` it doubles (up to `upperBound` and `maxBytes`), so a burst of writes does not
 * push out the events a watch that reconnects a few seconds later needs, but only while a watch
 * has missed the window in the last `eventFreshMs` ({@link noteMiss}; 1.23 grows on freshness
 * alone, and holds every object besides; Skiff's apiserver keeps no such copy, and growing for a
 * bulk load that no watch lags behind cost 135 MiB of RSS with 100,000 Jobs stored); when it is
 * full and the event a quarter of the capacity
 * from the newest is older than `eventFreshMs` it halves (down to `lowerBound`), keeping the
 * newest events. Events are appended in revision order; {@link forEachSince} finds the first one after
 * a revision by binary search. Not safe to share across threads (there are none).
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (updateCache, resizeCacheLocked) in kubernetes/kubernetes v1.23
 */
export class EventWindow<E extends WindowEvent> {
  readonly lowerBound: number;
  readonly upperBound: number;
  readonly maxBytes: number;
  readonly eventFreshMs: number;
  readonly idleMs: number;
  // events[head..] are the window, oldest first; the dead prefix is cut off now and then.
  private events: E[] = [];
  private head = 0;
  private capacityNow: number;
  private lastMissAt = -Infinity;
  private bytesNow = 0;
  /** The window holds every event with a revision greater than this. */
  private startRevision = 0;

  constructor(options: EventWindowOptions = {}) {
    this.lowerBound = Math.max(1, options.lowerBound ?? 1000);
    this.upperBound = Math.max(this.lowerBound, options.upperBound ?? 100 * 1024);
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.eventFreshMs = options.eventFreshMs ?? 75_000;
    this.idleMs = options.idleMs ?? 10_000;
    this.capacityNow = this.lowerBound;
  }

  /** Events held. */
  get size(): number {
    return this.events.length - this.head;
  }

  /** The current capacity, in events. */
  get capacity(): number {
    return this.capacityNow;
  }

  /** Bytes of event text held. */
  get bytes(): number {
    return this.bytesNow;
  }

  /** The window holds every event with a revision greater than this one (and none at or below it). */
  get start(): Revision {
    return this.startRevision;
  }

  /** Records that a watch asked for events from before the window at `now` (ms): the window may grow for a while. */
  noteMiss(now: number): void {
    this.lastMissAt = now;
  }

  /** Empties the window; it then holds every event after `revision` (none yet). */
  reset(revision: Revision): void {
    this.events = [];
    this.head = 0;
    this.bytesNow = 0;
    this.startRevision = revision;
  }

  /** Moves the start up to `revision` when it is later, dropping the events at or below it (compaction). */
  advanceStart(revision: Revision): void {
    if (revision <= this.startRevision) return;
    while (this.size > 0 && (this.events[this.head] as E).revision <= revision) this.dropOldest();
    this.startRevision = revision;
  }

  /**
   * Appends `event` (its revision must be above every held one), resizing first as 1.23's
   * `resizeCacheLocked` and dropping the oldest events beyond the capacity or `maxBytes`.
   */
  add(event: E): void {
    this.resize(event.recordedAt);
    if (this.size >= this.capacityNow) this.dropOldest();
    this.events.push(event);
    this.bytesNow += event.bytes;
    while (this.bytesNow > this.maxBytes && this.size > 1) this.dropOldest();
  }

  /**
   * Calls `fn` with each held event whose revision is greater than `revision`, oldest first (the
   * first one found by binary search). `fn` must not add to the window.
   */
  forEachSince(revision: Revision, fn: (event: E) => void): void {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid] as E).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) fn(this.events[i] as E);
  }

  /**
   * Drops, beyond the lower bound, the events older than `eventFreshMs` at `now`, or all of them
   * when the newest is older than `idleMs`; then halves the capacity while the rest fits in half.
   * 1.23 resizes only when an event arrives, so after a burst its window stays large until the
   * next write; Skiff keeps no copy of the objects besides these texts, so a caller's timer gives
   * the memory back once the burst is over (the apiserver's RSS at rest). A watch from a revision
   * dropped so is then served from storage, as any watch from before the window.
   */
  trimStale(now: number): void {
    const newest = this.events[this.events.length - 1];
    const idle = newest !== undefined && now - newest.recordedAt > this.idleMs;
    while (this.size > this.lowerBound && (idle || now - (this.events[this.head] as E).recordedAt > this.eventFreshMs)) this.dropOldest();
    while (this.capacityNow > this.lowerBound && this.size <= Math.floor(this.capacityNow / 2)) this.capacityNow = Math.max(this.lowerBound, Math.floor(this.capacityNow / 2));
    if (this.head > 0 && this.size * 2 < this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  private resize(now: number): void {
    const size = this.size;
    if (size < this.capacityNow) return;
    const oldest = this.events[this.head] as E;
    if (now - oldest.recordedAt < this.eventFreshMs) {
      if (now - this.lastMissAt < this.eventFreshMs) this.capacityNow = Math.min(this.capacityNow * 2, this.upperBound);
      return;
    }
    const quarter = this.events[this.events.length - Math.floor(this.capacityNow / 4)];
    if (quarter !== undefined && now - quarter.recordedAt > this.eventFreshMs) {
      const smaller = Math.max(Math.floor(this.capacityNow / 2), this.lowerBound);
      if (smaller < this.capacityNow) {
        this.capacityNow = smaller;
        while (this.size > smaller) this.dropOldest();
      }
    }
  }

  private dropOldest(): void {
    const dropped = this.events[this.head];
    if (dropped === undefined) return;
    this.events[this.head] = undefined as unknown as E;
    this.head++;
    this.bytesNow -= dropped.bytes;
    this.startRevision = dropped.revision;
    if (this.head >= 1024 && this.head * 2 >= this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}
