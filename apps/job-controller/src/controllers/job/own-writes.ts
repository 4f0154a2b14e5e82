/**
 * The objects a controller wrote itself, kept until its informer shows them: a sync that starts
 * before the watch delivers the controller's own last status write reads the newer copy instead of
 * the informer's stale one, so its next status write does not conflict (a 409 requeues the Job with
 * the 10 s failure back-off). Skiff's resourceVersions are storage revisions (decimal), so "newer"
 * is the higher number; objects with another UID or a non-numeric version are never preferred.
 *
 * 1.23's Job controller syncs from the informer alone; its watch delivers the write within
 * milliseconds, where a loaded Node.js process may take seconds (`pnpm bench e2e`: half of the
 * Job status writes conflicted).
 */

interface Versioned {
  readonly metadata?: { readonly uid?: string; readonly resourceVersion?: string };
}

function revision(o: Versioned): number | undefined {
  const n = Number(o.metadata?.resourceVersion);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The last object written per key (`namespace/name`), until the informer catches up. */
export class OwnWrites<T extends Versioned> {
  readonly #written = new Map<string, T>();

  /** Remembers `obj`, the answer of this controller's write of `key`. */
  record(key: string, obj: T): void {
    this.#written.set(key, obj);
  }

  /**
   * The newer of the informer's `cached` copy and the remembered write (same UID, higher
   * resourceVersion); forgets the write once `cached` is as new. Returns `cached` when nothing newer is known.
   */
  newest(key: string, cached: T): T {
    const own = this.#written.get(key);
    if (!own) return cached;
    const a = revision(cached);
    const b = revision(own);
    if (own.metadata?.uid === cached.metadata?.uid && a !== undefined && b !== undefined && b > a) return own;
    this.#written.delete(key);
    return cached;
  }

  /** Forgets `key` (its object is gone). */
  forget(key: string): void {
    this.#written.delete(key);
  }

  /** How many writes are remembered. */
  get size(): number {
    return this.#written.size;
  }
}
