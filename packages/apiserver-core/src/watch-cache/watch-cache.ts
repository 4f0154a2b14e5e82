import { StorageError } from "@skiff/storage";
import type {
  DeleteOptions,
  DeleteResult,
  GetOptions,
  GuaranteedUpdateOptions,
  ListOptions,
  ListResult,
  Revision,
  Storage,
  StoragePredicate,
  StoredObject,
  UpdateFunc,
  WatchChangeEvent,
  WatchEvent,
  WatchOptions,
  Watcher,
  WriteResult,
} from "@skiff/storage";

/** Options of {@link WatchCache}. */
export interface WatchCacheOptions {
  /** The key prefix the single backend watch covers. @defaultValue `"/"` */
  readonly prefix?: string;
  /** Events kept for watches that start in the past. @defaultValue 1000 */
  readonly windowCapacity?: number;
  /** Events a watcher may have unread before it is ended with an ERROR. @defaultValue 10000 */
  readonly watcherBufferCapacity?: number;
  /**
   * Period of BOOKMARK events for watches that allow them and name no period of their own
   * (1.23's cacher sends one about every minute). @defaultValue 60000
   */
  readonly bookmarkIntervalMs?: number;
  /**
   * The storage key of a stored object (lists do not return keys). With it the cache keeps the
   * current state and serves reads at `resourceVersion: "0"`; without it (or when it returns
   * `undefined` for any object present at start) those reads pass through to the backend.
   */
  readonly keyOf?: (object: StoredObject) => string | undefined;
}

class CacheWatcher implements Watcher {
  private readonly queue: WatchEvent[] = [];
  private waiter: ((r: IteratorResult<WatchEvent, undefined>) => void) | undefined;
  private ended = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly key: string,
    readonly recursive: boolean,
    readonly predicate: StoragePredicate | undefined,
    private readonly capacity: number,
    private readonly onStop: (w: CacheWatcher) => void,
    private readonly sharedObjects: boolean,
  ) {}

  // The queue holds the cache's own (shared, never mutated) events; a consumer that may mutate
  // gets its copy when it takes the event, so a thousand queued watchers cost references, not
  // a thousand copies of every object.
  private deliver(e: WatchEvent): WatchEvent {
    if (this.sharedObjects) return e;
    return e.type === "ADDED" || e.type === "MODIFIED" || e.type === "DELETED" ? structuredClone(e) : e;
  }

  startBookmarks(intervalMs: number, latest: () => Revision): void {
    this.timer = setInterval(() => {
      if (this.queue.length === 0) this.push({ type: "BOOKMARK", revision: latest() });
    }, intervalMs);
    this.timer.unref?.();
  }

  matchesKey(key: string): boolean {
    if (!this.recursive) return key === this.key;
    const dir = this.key.endsWith("/") ? this.key : `${this.key}/`;
    return key.startsWith(dir);
  }

  /** Delivers a change, applying the predicate transitions. */
  offer(e: WatchChangeEvent): void {
    if (!this.matchesKey(e.key)) return;
    const p = this.predicate;
    if (p === undefined) return this.push(e);
    const now = e.type !== "DELETED" && p(e.object);
    const before = e.prevObject !== undefined && e.type !== "ADDED" && p(e.prevObject);
    if (e.type === "DELETED") {
      if (before || (e.prevObject === undefined && p(e.object))) this.push(e);
    } else if (now && before) this.push(e);
    else if (now) this.push({ ...e, type: "ADDED" });
    else if (before && e.prevObject !== undefined) {
      const last = structuredClone(e.prevObject);
      last.metadata = { ...last.metadata, resourceVersion: String(e.revision) };
      this.push({ type: "DELETED", key: e.key, revision: e.revision, object: last, prevObject: e.prevObject });
    }
  }

  push(e: WatchEvent): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ done: false, value: this.deliver(e) });
    } else if (this.queue.length >= this.capacity && e.type !== "ERROR") {
      this.queue.push({ type: "ERROR", error: new StorageError("Unreachable", { key: this.key, detail: "watcher too slow: buffer full" }) });
      this.finish();
      return;
    } else this.queue.push(e);
    if (e.type === "ERROR") this.finish();
  }

  private finish(): void {
    this.ended = true;
    if (this.timer) clearInterval(this.timer);
    this.onStop(this);
  }

  next(): Promise<IteratorResult<WatchEvent, undefined>> {
    const e = this.queue.shift();
    if (e) return Promise.resolve({ done: false, value: this.deliver(e) });
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => (this.waiter = resolve));
  }

  stop(): void {
    this.queue.length = 0;
    if (!this.ended) this.finish();
    const w = this.waiter;
    this.waiter = undefined;
    w?.({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent, undefined> {
    return { next: () => this.next(), return: () => (this.stop(), Promise.resolve({ done: true, value: undefined })) };
  }
}

function isAnyRevision(rv: string | number | undefined): boolean {
  return rv === "0" || rv === 0;
}

function underPrefix(key: string, prefix: string): boolean {
  const dir = prefix.endsWith("/") ? prefix : `${prefix}/`;
  return key.startsWith(dir);
}

function parseRevision(rv: string | number | undefined): Revision | undefined {
  if (typeof rv === "number") return Number.isSafeInteger(rv) && rv > 0 ? rv : undefined;
  if (rv === undefined || !/^[1-9][0-9]*$/.test(rv)) return undefined;
  const n = Number(rv);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * A {@link Storage} that serves watches from one backend watch: a thousand watchers cost one
 * storage watch. It keeps a sliding window of the last events (`windowCapacity`); a watch from
 * an explicit revision inside the window is served from it and then live, fanned out with a
 * bounded per-watcher buffer (a watcher that falls `watcherBufferCapacity` events behind gets an
 * ERROR event and ends; others never wait). Watches from an unset/`"0"` revision, from before
 * the window, and invalid revisions go to the backend (which answers `ResourceVersionExpired`
 * and `InvalidError` itself). It also keeps the current state under its prefix, so a get or
 * list at `resourceVersion: "0"` ("any") is served from memory without touching the backend, as
 * 1.23's cacher serves them (a list at "0" ignores `limit` and returns everything, with the
 * cache's revision); every other read and every write passes through.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go, watch_cache.go
 * @example
 * const storage = new WatchCache(new MemoryStorage());
 * const w = await storage.watch("/registry/jobs", { recursive: true, resourceVersion: 42 });
 */
export class WatchCache implements Storage {
  private readonly prefix: string;
  private readonly windowCapacity: number;
  private readonly bufferCapacity: number;
  private readonly window: WatchChangeEvent[] = [];
  private readonly watchers = new Set<CacheWatcher>();
  // The current state as JSON text, not object graphs: a Job is ~1 KiB of text but several KiB
  // as objects, which is what decides the apiserver's RSS with 100k objects stored.
  private readonly objects = new Map<string, string>();
  private readonly bookmarkIntervalMs: number;
  private readonly keyOf: ((object: StoredObject) => string | undefined) | undefined;
  private stateComplete = false;
  /** The window holds every event with a revision greater than this. */
  private windowStart = 0;
  private latest = 0;
  private starting: Promise<void> | undefined;
  private backendWatcher: Watcher | undefined;

  constructor(
    readonly backend: Storage,
    options: WatchCacheOptions = {},
  ) {
    this.prefix = options.prefix ?? "/";
    this.windowCapacity = options.windowCapacity ?? 1000;
    this.bufferCapacity = options.watcherBufferCapacity ?? 10000;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.keyOf = options.keyOf;
  }

  create(key: string, object: StoredObject): Promise<WriteResult> {
    return this.backend.create(key, object);
  }
  get(key: string, options?: GetOptions & { readonly ignoreNotFound?: false }): Promise<StoredObject>;
  get(key: string, options: GetOptions): Promise<StoredObject | null>;
  get(key: string, options?: GetOptions): Promise<StoredObject | null> {
    if (this.keyOf && isAnyRevision(options?.resourceVersion) && key.startsWith(this.prefix)) return this.getCached(key, options ?? {});
    return this.backend.get(key, options ?? {});
  }
  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    if (this.keyOf && isAnyRevision(options?.resourceVersion) && options?.continue === undefined && options?.resourceVersionMatch !== "Exact" && prefix.startsWith(this.prefix)) {
      return this.listCached(prefix, options ?? {});
    }
    return this.backend.list(prefix, options);
  }

  private async getCached(key: string, options: GetOptions): Promise<StoredObject | null> {
    await this.ensureStarted();
    if (!this.stateComplete) return this.backend.get(key, options);
    const o = this.objects.get(key);
    if (o !== undefined) return JSON.parse(o) as StoredObject;
    if (options.ignoreNotFound === true) return null;
    throw new StorageError("KeyNotFound", { key });
  }

  private async listCached(prefix: string, options: ListOptions): Promise<ListResult> {
    await this.ensureStarted();
    if (!this.stateComplete) return this.backend.list(prefix, options);
    const predicate = options.predicate;
    const keys = [...this.objects.keys()].filter((k) => underPrefix(k, prefix)).sort();
    const items: StoredObject[] = [];
    for (const k of keys) {
      const text = this.objects.get(k);
      if (text === undefined) continue;
      const o = JSON.parse(text) as StoredObject;
      if (predicate === undefined || predicate(o)) items.push(o);
    }
    return { items, revision: this.latest };
  }
  guaranteedUpdate(key: string, tryUpdate: UpdateFunc, options?: GuaranteedUpdateOptions): Promise<WriteResult> {
    return this.backend.guaranteedUpdate(key, tryUpdate, options);
  }
  delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    return this.backend.delete(key, options);
  }
  currentRevision(): Promise<Revision> {
    return this.backend.currentRevision();
  }
  count(prefix: string): Promise<number> {
    return this.backend.count(prefix);
  }
  async compact(revision: Revision): Promise<Revision> {
    const horizon = await this.backend.compact(revision);
    if (horizon > this.windowStart) {
      this.windowStart = horizon;
      while ((this.window[0]?.revision ?? Infinity) <= horizon) this.window.shift();
    }
    return horizon;
  }
  async close(): Promise<void> {
    this.backendWatcher?.stop();
    this.backendWatcher = undefined;
    for (const w of [...this.watchers]) w.stop();
    await this.backend.close();
  }

  /** Number of live cache-served watchers (for metrics and tests). */
  get watcherCount(): number {
    return this.watchers.size;
  }

  async watch(key: string, options: WatchOptions = {}): Promise<Watcher> {
    const from = parseRevision(options.resourceVersion);
    if (from === undefined) return this.backend.watch(key, options);
    await this.ensureStarted();
    if (from < this.windowStart) return this.backend.watch(key, options);
    return this.register(key, options, from);
  }

  private register(key: string, options: WatchOptions, from: Revision): Watcher {
    const w = new CacheWatcher(key, options.recursive === true, options.predicate, this.bufferCapacity, (x) => this.watchers.delete(x), options.sharedObjects === true);
    for (const e of this.window) if (e.revision > from) w.offer(e);
    this.watchers.add(w);
    if (options.allowBookmarks === true) w.startBookmarks(options.bookmarkIntervalMs ?? this.bookmarkIntervalMs, () => this.latest);
    return w;
  }

  private ensureStarted(): Promise<void> {
    this.starting ??= (async () => {
      // The state at one revision, then every change after it.
      this.objects.clear();
      let start: Revision;
      const keyOf = this.keyOf;
      if (keyOf) {
        let complete = true;
        let page = await this.backend.list(this.prefix, { limit: 10_000 });
        start = page.revision;
        for (;;) {
          for (const o of page.items) {
            const k = keyOf(o);
            if (k === undefined) complete = false;
            else this.objects.set(k, JSON.stringify(o));
          }
          if (!page.continue) break;
          page = await this.backend.list(this.prefix, { limit: 10_000, continue: page.continue });
        }
        this.stateComplete = complete;
        if (!complete) this.objects.clear();
      } else start = await this.backend.currentRevision();
      this.windowStart = Math.max(this.windowStart, start);
      this.latest = start;
      this.backendWatcher = await this.backend.watch(this.prefix, { recursive: true, resourceVersion: start });
      void this.pump(this.backendWatcher);
    })().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  private async pump(source: Watcher): Promise<void> {
    for (;;) {
      const r = await source.next();
      const e = r.done ? undefined : r.value;
      if (e === undefined || e.type === "ERROR") {
        const error = e === undefined ? new StorageError("Unreachable", { detail: "backend watch ended" }) : e.error;
        for (const w of [...this.watchers]) w.push({ type: "ERROR", error });
        this.starting = undefined;
        this.stateComplete = false;
        this.objects.clear();
        this.window.length = 0;
        this.windowStart = this.latest;
        return;
      }
      if (e.type === "BOOKMARK") {
        this.latest = Math.max(this.latest, e.revision);
        continue;
      }
      this.latest = e.revision;
      if (this.stateComplete) {
        if (e.type === "DELETED") this.objects.delete(e.key);
        else this.objects.set(e.key, JSON.stringify(e.object));
      }
      this.window.push(e);
      if (this.window.length > this.windowCapacity) {
        const dropped = this.window.shift();
        if (dropped) this.windowStart = dropped.revision;
      }
      for (const w of this.watchers) w.offer(e);
    }
  }
}
