/** What this process last knew of a key: its stored value and its mod revision. It may be stale. */
export interface KnownState {
  /**
   * The stored value as text (the JSON without `metadata.resourceVersion`, as etcd holds it in
   * UTF-8). Kept as a string, not a Buffer: a small Buffer is a slice of Node's shared 8 KiB pool
   * and would keep the whole slab alive.
   */
  readonly text: string;
  /** The key's mod revision for that value. */
  readonly revision: number;
}

/**
 * Bytes counted for an entry: its text (one byte a character, as V8 holds ASCII and Latin-1
 * text), its key and about 64 for the entry's objects.
 */
function entryBytes(key: string, text: string): number {
  return text.length + key.length + 64;
}

/**
 * The last state this process wrote or read of each recently used key, least recently used first
 * out, bounded by bytes. {@link EtcdStorage} starts a write from it instead of reading the key
 * from etcd first, as 1.23's cacher hands the etcd3 store the watch cache's object
 * (`cachedExistingObject`): a write is one transaction, and a stale entry costs what the read
 * would have (the transaction's compare fails and answers the current value).
 *
 * A revision never goes back: an answer that arrives late with an older revision than the entry's
 * is ignored.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (GuaranteedUpdate, Delete)
 */
export class KnownStates {
  readonly #entries = new Map<string, KnownState>();
  readonly #maxBytes: number;
  #bytes = 0;

  /**
   * @param maxBytes the entries' total size bound (texts and keys, one byte a character, and about
   *   64 bytes each); 0 keeps nothing. An entry larger than the bound is not kept.
   */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The entry of `key` (marked most recently used), or undefined. */
  get(key: string): KnownState | undefined {
    const state = this.#entries.get(key);
    if (state !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, state);
    }
    return state;
  }

  /**
   * Records `state` for `key`, unless the entry already holds a newer revision.
   */
  remember(key: string, state: KnownState): void {
    if (this.#maxBytes === 0) return;
    const old = this.#entries.get(key);
    if (old !== undefined) {
      if (old.revision > state.revision) return;
      this.#entries.delete(key);
      this.#bytes -= entryBytes(key, old.text);
    }
    const size = entryBytes(key, state.text);
    if (size > this.#maxBytes) return;
    this.#entries.set(key, state);
    this.#bytes += size;
    if (this.#bytes <= this.#maxBytes) return;
    for (const [k, s] of this.#entries) {
      this.#entries.delete(k);
      this.#bytes -= entryBytes(k, s.text);
      if (this.#bytes <= this.#maxBytes) break;
    }
  }

  /** Drops the entry of `key` (the key was deleted, or was found absent). */
  forget(key: string): void {
    const old = this.#entries.get(key);
    if (old === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entryBytes(key, old.text);
  }

  /** Number of entries. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes counted for the entries. */
  get bytes(): number {
    return this.#bytes;
  }
}
