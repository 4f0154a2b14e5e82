import { StorageError } from "../errors.js";
import type {
  DeleteOptions,
  DeleteResult,
  EncodedListOptions,
  EncodedListResult,
  GetOptions,
  GuaranteedUpdateOptions,
  ListContinue,
  ListOptions,
  ListResult,
  Preconditions,
  ResourceVersionMatch,
  Revision,
  Storage,
  StoredObject,
  UpdateFunc,
  WatchOptions,
  Watcher,
  WriteResult,
} from "../types.js";
import { decodeObject, encodeObject, encodedWithRevision } from "./codec.js";
import type { BatchWrite, ChangeRow, CommitResult, Entry, MvccEngine } from "./engine.js";
import type { KeyRange } from "./keys.js";
import { assertKey, directoryPrefix, exactRange, prefixRange } from "./keys.js";
import { parseRevisionOption, resolveListStart } from "./revision.js";
import { LogWatcher, SharedChange } from "./watcher.js";

/** Options shared by the log-backed storages (SQLite, memory). */
export interface MvccStorageOptions {
  /**
   * How often the compactor runs, in milliseconds; 0 disables it. Each run compacts to the
   * revision seen at the previous run (Kubernetes' apiserver compacts every 5 minutes the same
   * way, so about one interval of history is kept), or to `current - retainRevisions` when that
   * is set.
   * @defaultValue 300000
   */
  readonly compactionIntervalMs?: number;
  /** Keep this many revisions of history at each compaction run instead of one interval's worth. */
  readonly retainRevisions?: number;
  /**
   * Events a live watcher may have queued but not consumed before it falls back to reading the
   * log (it then misses nothing unless compaction overtakes it).
   * @defaultValue 1000
   */
  readonly watchBufferSize?: number;
}

interface PendingWrite {
  readonly write: BatchWrite;
  readonly resolve: (result: CommitResult) => void;
  readonly reject: (error: unknown) => void;
}

interface ReadPoint {
  readonly revision: number;
  /** False when reading the latest state (revision = current). */
  readonly historical: boolean;
}

const defaultCompactionIntervalMs = 300_000;
const defaultBookmarkIntervalMs = 60_000;

/**
 * The storage interface implemented once over a synchronous {@link MvccEngine}: revision
 * resolution, preconditions, compare-and-swap retries, pagination, watch fan-out, compaction timer.
 */
export abstract class MvccStorage implements Storage {
  readonly #engine: MvccEngine;
  readonly #watchers = new Set<LogWatcher>();
  readonly #bufferSize: number;
  #closed = false;
  #compactionTimer: ReturnType<typeof setInterval> | undefined;
  #compacting: Promise<number> | undefined;
  /** Writes waiting for the next group commit (engines with `commitBatch`). */
  #pending: PendingWrite[] = [];

  protected constructor(engine: MvccEngine, options: MvccStorageOptions) {
    this.#engine = engine;
    this.#bufferSize = positiveInteger(options.watchBufferSize, 1000, "watchBufferSize");
    const intervalMs = options.compactionIntervalMs ?? defaultCompactionIntervalMs;
    if (!Number.isFinite(intervalMs) || intervalMs < 0) throw new RangeError(`compactionIntervalMs must be >= 0, got ${intervalMs}`);
    const retain = options.retainRevisions;
    if (retain !== undefined && !(Number.isSafeInteger(retain) && retain >= 0)) {
      throw new RangeError(`retainRevisions must be a non-negative integer, got ${retain}`);
    }
    if (intervalMs > 0) {
      let previous = engine.currentRevision;
      this.#compactionTimer = setInterval(() => {
        if (this.#closed) return;
        const current = this.#engine.currentRevision;
        const target = retain === undefined ? previous : current - retain;
        previous = current;
        if (target > this.#engine.compactedRevision) {
          this.compact(target).catch(() => {
            // The next run retries; a closed store stops the timer.
          });
        }
      }, intervalMs);
      this.#compactionTimer.unref?.();
    }
  }

  /** The compaction horizon: reads below it fail with `ResourceVersionExpired`. 0 if never compacted. */
  compactedRevision(): Revision {
    return this.#engine.compactedRevision;
  }

  /** Number of watchers currently registered (for tests and metrics). */
  watcherCount(): number {
    return this.#watchers.size;
  }

  async create(key: string, object: StoredObject): Promise<WriteResult> {
    const engine = this.#open();
    assertKey(key);
    const value = encodeObject(key, object, true);
    const result = await this.#commit(engine, { key, value, expectedRevision: 0 });
    if (!result.ok) throw new StorageError("KeyExists", { key });
    return { object: decodeObject(value, result.change.revision), revision: result.change.revision };
  }

  get(key: string, options?: GetOptions & { readonly ignoreNotFound?: false }): Promise<StoredObject>;
  get(key: string, options: GetOptions): Promise<StoredObject | null>;
  async get(key: string, options: GetOptions = {}): Promise<StoredObject | null> {
    const entry = this.#read(key, options);
    if (entry === undefined) {
      if (options.ignoreNotFound === true) return null;
      throw new StorageError("KeyNotFound", { key });
    }
    return decodeObject(entry.value, entry.revision);
  }

  async getEncoded(key: string, options: Omit<GetOptions, "ignoreNotFound"> = {}): Promise<string> {
    const entry = this.#read(key, options);
    if (entry === undefined) throw new StorageError("KeyNotFound", { key });
    return encodedWithRevision(entry.value, entry.revision);
  }

  // The version of `key` a get reads (undefined: none).
  #read(key: string, options: GetOptions): Entry | undefined {
    const engine = this.#open();
    assertKey(key);
    const point = this.#readPoint(key, options.resourceVersion, options.resourceVersionMatch, false);
    return point.historical ? engine.getAt(key, point.revision) : engine.getLatest(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const predicate = options.predicate;
    return this.#list(prefix, options, (row) => {
      const object = decodeObject(row.value, row.revision);
      return predicate === undefined || predicate(object) ? object : undefined;
    }, predicate !== undefined);
  }

  async listEncoded(prefix: string, options: EncodedListOptions = {}): Promise<EncodedListResult> {
    return this.#list(prefix, options, (row) => encodedWithRevision(row.value, row.revision), false);
  }

  // One page of a list: `item` turns a row into what the page holds (undefined: filtered out).
  #list<T>(prefix: string, options: EncodedListOptions, item: (row: Entry) => T | undefined, filtered: boolean): { items: T[]; revision: number; continue?: ListContinue; remainingItemCount?: number } {
    const engine = this.#open();
    const range = prefixRange(directoryPrefix(prefix));
    const { limit, start, continueRevision } = resolveListStart(prefix, range, options);
    const point: ReadPoint =
      continueRevision !== undefined ? this.#exact(prefix, continueRevision) : this.#readPoint(prefix, options.resourceVersion, options.resourceVersionMatch, limit > 0);

    const read = (from: string, n: number): Entry[] => {
      const r: KeyRange = { start: from, end: range.end };
      return point.historical ? engine.listAt(r, point.revision, n) : engine.listLatest(r, n);
    };
    const items: T[] = [];
    let lastKey: string | undefined;
    let more = false;
    const batch = limit === 0 ? 0 : !filtered ? limit + 1 : Math.max(limit, 128);
    let cursor = start;
    for (;;) {
      const rows = read(cursor, batch);
      for (const row of rows) {
        if (limit > 0 && items.length >= limit) {
          more = true;
          break;
        }
        lastKey = row.key;
        const it = item(row);
        if (it !== undefined) items.push(it);
      }
      if (more || batch === 0 || rows.length < batch || lastKey === undefined) break;
      cursor = `${lastKey}\u0000`;
    }
    if (!more || lastKey === undefined) return { items, revision: point.revision };
    const next: ListContinue = { startKey: `${lastKey}\u0000`, revision: point.revision };
    if (filtered) return { items, revision: point.revision, continue: next };
    const rest: KeyRange = { start: next.startKey, end: range.end };
    const remainingItemCount = point.historical ? engine.countAt(rest, point.revision) : engine.countLatest(rest);
    return { items, revision: point.revision, continue: next, remainingItemCount };
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, options: GuaranteedUpdateOptions = {}): Promise<WriteResult> {
    assertKey(key);
    for (;;) {
      const engine = this.#open();
      const current = engine.getLatest(key);
      if (current === undefined && options.ignoreNotFound !== true) throw new StorageError("KeyNotFound", { key });
      const input: StoredObject = current === undefined ? {} : decodeObject(current.value, current.revision);
      if (options.preconditions !== undefined) checkPreconditions(key, options.preconditions, input);
      const expected = current?.revision ?? 0;
      const updated = await tryUpdate(input, { revision: expected });
      const value = encodeObject(key, updated, false);
      const engineNow = this.#open();
      if (current !== undefined && value === current.value) {
        // No change: keep the revision, unless the object moved on while tryUpdate ran.
        if (engineNow.getLatest(key)?.revision === current.revision) {
          return { object: decodeObject(current.value, current.revision), revision: current.revision };
        }
        continue;
      }
      const result = await this.#commit(engineNow, { key, value, expectedRevision: expected });
      if (!result.ok) continue;
      return { object: decodeObject(value, result.change.revision), revision: result.change.revision };
    }
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    assertKey(key);
    for (;;) {
      const engine = this.#open();
      const current = engine.getLatest(key);
      if (current === undefined) throw new StorageError("KeyNotFound", { key });
      if (options.preconditions !== undefined) {
        checkPreconditions(key, options.preconditions, decodeObject(current.value, current.revision));
      }
      if (options.validateDeletion !== undefined) {
        await options.validateDeletion(decodeObject(current.value, current.revision));
      }
      const result = await this.#commit(this.#open(), { key, value: null, expectedRevision: current.revision });
      if (!result.ok) {
        if (result.currentRevision === 0) throw new StorageError("KeyNotFound", { key });
        continue;
      }
      return { object: decodeObject(current.value, current.revision), revision: result.change.revision };
    }
  }

  async watch(key: string, options: WatchOptions = {}): Promise<Watcher> {
    const engine = this.#open();
    const recursive = options.recursive === true;
    const range = recursive ? prefixRange(directoryPrefix(key)) : exactRange(key);
    const from = parseRevisionOption(options.resourceVersion, key);
    let initial: Entry[] = [];
    let initialRange: KeyRange | undefined;
    let startRevision: number;
    if (from === undefined || from === 0) {
      startRevision = engine.currentRevision;
      // The current state is read a page at a time as the watcher is consumed, at this revision.
      if (recursive) initialRange = range;
      else {
        const entry = engine.getLatest(key);
        if (entry !== undefined) initial = [entry];
      }
    } else {
      if (from < engine.compactedRevision) {
        throw new StorageError("ResourceVersionExpired", { key, revision: from, compactedRevision: engine.compactedRevision });
      }
      startRevision = from;
    }
    let bookmarkIntervalMs: number | undefined;
    if (options.allowBookmarks === true) {
      bookmarkIntervalMs = options.bookmarkIntervalMs ?? defaultBookmarkIntervalMs;
      if (!Number.isFinite(bookmarkIntervalMs) || bookmarkIntervalMs <= 0) {
        throw new StorageError("InvalidError", { key, detail: `invalid bookmarkIntervalMs: ${bookmarkIntervalMs}` });
      }
    }
    const watcher = new LogWatcher({
      engine,
      range,
      predicate: options.predicate,
      startRevision,
      initial,
      ...(initialRange ? { initialRange } : {}),
      bufferSize: this.#bufferSize,
      bookmarkIntervalMs,
      sharedObjects: options.sharedObjects === true,
      onStop: (w) => this.#watchers.delete(w),
    });
    this.#watchers.add(watcher);
    return watcher;
  }

  async currentRevision(): Promise<Revision> {
    return this.#open().currentRevision;
  }

  async compact(revision: Revision): Promise<Revision> {
    const engine = this.#open();
    if (!Number.isSafeInteger(revision) || revision < 0) {
      throw new StorageError("InvalidError", { detail: `invalid compaction revision: ${revision}` });
    }
    if (revision > engine.currentRevision) {
      throw new StorageError("TooLargeResourceVersion", { revision, currentRevision: engine.currentRevision, retryAfterSeconds: 1 });
    }
    // One compaction at a time; a later target continues where the running one stops.
    while (this.#compacting !== undefined) await this.#compacting;
    if (revision <= engine.compactedRevision) return engine.compactedRevision;
    const run = (async () => {
      for (;;) {
        const reached = this.#open().compactStep(revision);
        if (reached >= revision) return reached;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    this.#compacting = run;
    try {
      return await run;
    } finally {
      this.#compacting = undefined;
    }
  }

  async count(prefix: string): Promise<number> {
    const engine = this.#open();
    return engine.countLatest(prefixRange(directoryPrefix(prefix)));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#compacting !== undefined) await this.#compacting.catch(() => 0);
    if (this.#closed) return;
    // Writes already asked for are committed (and answered) before the engine closes.
    this.#flush();
    this.#closed = true;
    if (this.#compactionTimer !== undefined) clearInterval(this.#compactionTimer);
    for (const w of [...this.#watchers]) w.stop();
    this.#engine.close();
  }

  #open(): MvccEngine {
    if (this.#closed) throw new StorageError("Unreachable", { detail: "storage is closed" });
    return this.#engine;
  }

  /**
   * Commits one write and dispatches its change to the watchers. With an engine that has
   * `commitBatch` (group commit), the writes asked for until the current tick's microtasks have
   * run (`process.nextTick`: every promise chain the same I/O callback advanced) share one
   * transaction. Deferring to the check phase (`setImmediate`) batched more, but answering a
   * keep-alive request from there made Node's HTTP parser refuse the next request on the
   * connection (HPE_PAUSED, seen by the apiserver's full-disk test; cause not found). The
   * promise settles only after that transaction has committed, in revision order, so an
   * acknowledged write is as durable as one committed alone. Without it, the write commits now.
   */
  #commit(engine: MvccEngine, write: BatchWrite): Promise<CommitResult> {
    if (engine.commitBatch === undefined) {
      const result = engine.commit(write.key, write.value, write.expectedRevision);
      if (result.ok) this.#dispatch(result.change);
      return Promise.resolve(result);
    }
    return new Promise<CommitResult>((resolve, reject) => {
      if (this.#pending.length === 0) process.nextTick(() => this.#flush());
      this.#pending.push({ write, resolve, reject });
    });
  }

  // The group commit: one transaction for every pending write, then their changes to the
  // watchers in revision order, then the answers.
  #flush(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    let results: Array<CommitResult | StorageError>;
    try {
      const engine = this.#open();
      results = (engine.commitBatch as NonNullable<MvccEngine["commitBatch"]>).call(engine, batch.map((p) => p.write));
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (const r of results) if (!(r instanceof StorageError) && r.ok) this.#dispatch(r.change);
    batch.forEach((p, i) => {
      const r = results[i];
      if (r === undefined) p.reject(new StorageError("Internal", { key: p.write.key, detail: "group commit returned no result for this write" }));
      else if (r instanceof StorageError) p.reject(r);
      else p.resolve(r);
    });
  }

  #dispatch(row: ChangeRow): void {
    if (this.#watchers.size === 0) return;
    const change = new SharedChange(row);
    for (const w of this.#watchers) w.notify(change);
  }

  #exact(key: string, revision: number): ReadPoint {
    const engine = this.#engine;
    const current = engine.currentRevision;
    if (revision > current) {
      throw new StorageError("TooLargeResourceVersion", { key, revision, currentRevision: current, retryAfterSeconds: 1 });
    }
    if (revision < engine.compactedRevision) {
      throw new StorageError("ResourceVersionExpired", { key, revision, compactedRevision: engine.compactedRevision });
    }
    return { revision, historical: revision !== current };
  }

  /** Kubernetes 1.23 resourceVersion/resourceVersionMatch semantics (etcd3 store Get and List). */
  #readPoint(key: string, rv: string | number | undefined, match: ResourceVersionMatch | undefined, exactWhenUnmatched: boolean): ReadPoint {
    const engine = this.#engine;
    const current = engine.currentRevision;
    const revision = parseRevisionOption(rv, key);
    const latest: ReadPoint = { revision: current, historical: false };
    const notOlderThan = (r: number): ReadPoint => {
      if (r > current) throw new StorageError("TooLargeResourceVersion", { key, revision: r, currentRevision: current, retryAfterSeconds: 1 });
      return latest;
    };
    switch (match) {
      case "Exact":
        if (revision === undefined || revision === 0) {
          throw new StorageError("InvalidError", { key, detail: `resourceVersionMatch "Exact" needs a non-zero resourceVersion` });
        }
        return this.#exact(key, revision);
      case "NotOlderThan":
        return notOlderThan(revision ?? 0);
      case undefined:
        if (revision === undefined || revision === 0) return latest;
        return exactWhenUnmatched ? this.#exact(key, revision) : notOlderThan(revision);
      default:
        throw new StorageError("InvalidError", { key, detail: `unknown resourceVersionMatch ${JSON.stringify(match)}` });
    }
  }
}

/** @see staging/src/k8s.io/apiserver/pkg/storage/interfaces.go `Preconditions.Check` */
function checkPreconditions(key: string, preconditions: Preconditions, object: StoredObject): void {
  const uid = typeof object.metadata?.uid === "string" ? object.metadata.uid : "";
  if (preconditions.uid !== undefined && preconditions.uid !== uid) {
    throw new StorageError("InvalidObj", {
      key,
      detail: `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${uid}`,
    });
  }
  const rv = object.metadata?.resourceVersion ?? "";
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== rv) {
    throw new StorageError("InvalidObj", {
      key,
      detail: `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${rv}`,
    });
  }
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
