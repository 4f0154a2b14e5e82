/**
 * A deduplicating work queue with one sequential worker and delayed retries: a key added while
 * queued is processed once; a key added while being processed runs again afterwards.
 * @see staging/src/k8s.io/client-go/util/workqueue/queue.go (the same dirty/processing rules)
 */
export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirtyWhileProcessing = new Set<string>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly process: (key: string) => Promise<void>, private readonly onError: (key: string, err: unknown) => number | undefined) {}

  /** Queues `key` (no-op when already queued). */
  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirtyWhileProcessing.add(key);
      return;
    }
    this.queued.add(key);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Queues `key` after `delayMs`. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.add(key);
    }, delayMs);
    t.unref?.();
    this.timers.add(t);
  }

  /** Runs the worker until {@link stop}. */
  async run(): Promise<void> {
    while (!this.stopped) {
      const next = this.queued.values().next();
      if (next.done) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      const key = next.value;
      this.queued.delete(key);
      this.processing.add(key);
      try {
        await this.process(key);
      } catch (e) {
        const retryMs = this.onError(key, e);
        if (retryMs !== undefined) this.addAfter(key, retryMs);
      } finally {
        this.processing.delete(key);
        if (this.dirtyWhileProcessing.delete(key)) this.queued.add(key);
      }
    }
  }

  /** Stops the worker and pending retries. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}
