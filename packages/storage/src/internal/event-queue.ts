/**
 * The queue behind every storage watcher (SQLite/memory `LogWatcher` and `EtcdWatcher`): a FIFO
 * of pending items plus the consumers parked in `next()` waiting for one. Taken slots are cleared
 * (set to undefined) so a delivered item, and anything it references, can be collected before
 * the array is compacted; compaction happens once more than 1024 slots and half the array are
 * taken. Single-threaded: every method is synchronous, so nothing can slip in between a check
 * of {@link EventQueue.size} and a {@link EventQueue.wait}.
 */
export class EventQueue<T> {
  #items: (T | undefined)[] = [];
  #head = 0;
  #waiters: (() => void)[] = [];

  /** Number of items pushed and not yet taken. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Takes the oldest pending item (clearing its slot), or undefined when none is pending. */
  take(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head] as T;
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** The newest pending item, or undefined when none is pending. */
  lastPending(): T | undefined {
    return this.size > 0 ? this.#items[this.#items.length - 1] : undefined;
  }

  /** Replaces the newest pending item; a no-op when none is pending. */
  replaceLastPending(item: T): void {
    if (this.size > 0) this.#items[this.#items.length - 1] = item;
  }

  /** Drops every pending item (waiters stay parked). */
  clear(): void {
    this.#items = [];
    this.#head = 0;
  }

  /** Resolves at the next {@link EventQueue.wake}. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiters.push(resolve);
    });
  }

  /** Resumes every consumer parked in {@link EventQueue.wait}. */
  wake(): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
