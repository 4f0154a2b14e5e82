/**
 * Per-key exponential back-off, as client-go's `flowcontrol.Backoff`: the first {@link next}
 * sets `initialMs`, each later one doubles it up to `maxMs`; an entry whose last update is more
 * than `2 × maxMs` older than the event resets. Times are ms since the epoch; the clock is
 * injectable for tests.
 * @see staging/src/k8s.io/client-go/util/flowcontrol/backoff.go in kubernetes/kubernetes v1.23
 * @example
 * const b = new BackOff(10_000, 300_000);
 * if (!b.isInBackOffSince(key, finishedAtMs)) { b.next(key, finishedAtMs); restart(); }
 */
export class BackOff {
  private readonly entries = new Map<string, { backOffMs: number; lastUpdateMs: number }>();

  constructor(
    readonly initialMs: number,
    readonly maxMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The current back-off of `key` in ms (0 when none). */
  get(key: string): number {
    return this.entries.get(key)?.backOffMs ?? 0;
  }

  /** Records one more failure of `key` that happened at `eventTimeMs`. */
  next(key: string, eventTimeMs: number): void {
    const entry = this.entries.get(key);
    if (!entry || this.hasExpired(eventTimeMs, entry.lastUpdateMs)) {
      this.entries.set(key, { backOffMs: this.initialMs, lastUpdateMs: this.nowMs() });
      return;
    }
    entry.backOffMs = Math.min(entry.backOffMs * 2, this.maxMs);
    entry.lastUpdateMs = this.nowMs();
  }

  /** Whether `key` must still wait after an event at `eventTimeMs`. */
  isInBackOffSince(key: string, eventTimeMs: number): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    if (this.hasExpired(eventTimeMs, entry.lastUpdateMs)) return false;
    return this.nowMs() - eventTimeMs < entry.backOffMs;
  }

  /** When the back-off of an event at `eventTimeMs` ends (ms since the epoch). */
  backOffEndMs(key: string, eventTimeMs: number): number {
    return eventTimeMs + this.get(key);
  }

  /** Drops `key`. */
  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose last update is older than `2 × maxMs`. */
  gc(): void {
    const now = this.nowMs();
    for (const [key, entry] of this.entries) if (this.hasExpired(now, entry.lastUpdateMs)) this.entries.delete(key);
  }

  private hasExpired(eventTimeMs: number, lastUpdateMs: number): boolean {
    return eventTimeMs - lastUpdateMs > this.maxMs * 2;
  }
}
