/**
 * A small expiring map for the authentication and authorization caches: entries live for the TTL
 * given at `set`, and the oldest entry is dropped once `maxEntries` is reached (insertion order,
 * like the kubelet's bounded LRU caches closely enough for a node agent).
 * @see staging/src/k8s.io/apimachinery/pkg/util/cache/lruexpirecache.go in kubernetes/kubernetes v1.23
 */
export class TTLCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAtMs: number }>();
  readonly #nowMs: () => number;
  readonly #maxEntries: number;

  constructor(nowMs: () => number, maxEntries = 4096) {
    this.#nowMs = nowMs;
    this.#maxEntries = maxEntries;
  }

  /** The live value under `key`, or undefined when absent or expired (expired entries are dropped). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#nowMs() >= entry.expiresAtMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` for `ttlMs`; a TTL of 0 or less stores nothing. */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAtMs: this.#nowMs() + ttlMs });
  }

  /** Number of stored entries, expired ones included until they are read. */
  get size(): number {
    return this.#entries.size;
  }
}
