import { deepCopyJSON } from "@skiff/apimachinery";
import { StorageError } from "@skiff/storage";
import type {
  DeleteOptions,
  DeleteResult,
  EncodedListOptions,
  EncodedListResult,
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
  WatchTrigger,
  Watcher,
  WriteResult,
} from "@skiff/storage";
import { EventWindow } from "./event-window.js";
import { rememberObjectText } from "./object-text.js";

/** Options of {@link WatchCache}. */
export interface WatchCacheOptions {
  /** The key prefix the single backend watch covers. @defaultValue `"/"` */
  readonly prefix?: string;
  /**
   * Events kept for watches that start in the past, at first and at least: the window doubles
   * while full of events younger than `eventFreshMs`, as 1.23's watch cache. @defaultValue 1000
   */
  readonly windowCapacity?: number;
  /** The most events the window grows to (1.23: `100 * 1024`). @defaultValue 102400 */
  readonly windowMaxCapacity?: number;
  /** The most bytes of event text the window keeps, whatever its capacity. @defaultValue 64 MiB */
  readonly windowMaxBytes?: number;
  /**
   * How young the oldest event of a full window must be for it to grow (1.23: 75 s). Every 5 s,
   * events beyond `windowCapacity` that are older than this are dropped, and all of them after
   * 10 s without a write (see `EventWindow.trimStale`). @defaultValue 75000
   */
  readonly eventFreshMs?: number;
  /** Events a watcher may have unread before it is ended with an ERROR. @defaultValue 10000 */
  readonly watcherBufferCapacity?: number;
  /**
   * Period of BOOKMARK events for watches that allow them and name no period of their own
   * (1.23's cacher sends one about every minute). @defaultValue 60000
   */
  readonly bookmarkIntervalMs?: number;
}

/**
 * An event of the window, kept as JSON text. The window outlives many young-generation
 * collections, so what it holds ends up in V8's old space: as object graphs (several times their
 * text) a thousand events at a few thousand writes/s were most of the apiserver's heap growth.
 */
interface TextEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly key: string;
  readonly revision: Revision;
  readonly text: string;
  readonly prevText: string | undefined;
  /** When the cache recorded it (`Date.now()`), for the window's sizing. */
  readonly recordedAt: number;
  /** Its texts' lengths. */
  readonly bytes: number;
  /** The event's trigger values (see {@link TriggerValues}) for each trigger function known when it was recorded. */
  readonly triggers: TriggerValues | undefined;
}

/**
 * An event's values of each known trigger function: the object's and the previous object's
 * (`undefined` where the event has none), or `null` when the event must go to every triggered
 * watcher (a MODIFIED event without its previous object). 1.23's `watchCacheEvent` keeps the
 * same (`ObjFields`, `PrevObjFields`) so a watch that starts in the past filters without decoding.
 */
type TriggerValues = Map<WatchTrigger["valueOf"], readonly [string | undefined, string | undefined] | null>;

// The texts are remembered for the live event's (shared, read-only) objects too: the watch
// handler writes each watcher's line from them instead of serialising the object again.
function deflate(e: WatchChangeEvent, recordedAt: number, triggers: TriggerValues | undefined): TextEvent {
  const text = JSON.stringify(e.object);
  rememberObjectText(e.object, text);
  const prevText = e.prevObject === undefined ? undefined : JSON.stringify(e.prevObject);
  return { type: e.type, key: e.key, revision: e.revision, text, prevText, recordedAt, bytes: text.length + (prevText?.length ?? 0), triggers };
}

/**
 * The values of `valueOf` for an event: the object's (none for a DELETED event) and the previous
 * object's (none for ADDED; the object's own when a change has no previous object), or `null` for a
 * MODIFIED event without its previous object (it may concern any value).
 */
function triggerValuesOf(e: WatchChangeEvent, valueOf: WatchTrigger["valueOf"]): readonly [string | undefined, string | undefined] | null {
  if (e.type === "MODIFIED" && e.prevObject === undefined) return null;
  return [e.type === "DELETED" ? undefined : valueOf(e.object), e.type === "ADDED" ? undefined : valueOf(e.prevObject ?? e.object)];
}

/** Whether an event with `values` (of the watcher's trigger function) may concern a watcher requiring `value`. */
function mayConcern(values: readonly [string | undefined, string | undefined] | null | undefined, value: string): boolean {
  return values === undefined || values === null || values[0] === value || values[1] === value;
}

function inflate(t: TextEvent): WatchChangeEvent {
  const object = JSON.parse(t.text) as StoredObject;
  if (t.prevText === undefined) return { type: t.type, key: t.key, revision: t.revision, object };
  return { type: t.type, key: t.key, revision: t.revision, object, prevObject: JSON.parse(t.prevText) as StoredObject };
}

/** What a watcher's queue holds: live events (shared by every watcher) or window events (text). */
type QueuedEvent = WatchEvent | TextEvent;

function isText(e: QueuedEvent): e is TextEvent {
  return "text" in e;
}

/**
 * Milliseconds from `nowMs` to a watch's next bookmark, as 1.23's `cacheWatcher.nextBookmarkTime`:
 * `intervalMs` (1.23: a minute), or 2 s before the watch's deadline when that comes first;
 * `undefined` when that moment has passed (no more bookmarks).
 * @see staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go in kubernetes/kubernetes v1.23 (nextBookmarkTime)
 */
export function nextBookmarkDelayMs(nowMs: number, intervalMs: number, deadlineMs: number | undefined): number | undefined {
  let at = nowMs + intervalMs;
  if (deadlineMs !== undefined && deadlineMs - 2000 < at) at = deadlineMs - 2000;
  return at < nowMs ? undefined : at - nowMs;
}

class CacheWatcher implements Watcher {
  // Events are queued as they came (shared live events, or window text) and turned into this
  // watcher's events when taken: predicate transitions applied, copies made (or text parsed)
  // then, so a thousand queued watchers cost references, not a thousand copies of every object.
  private readonly queue: QueuedEvent[] = [];
  private waiter: ((r: IteratorResult<WatchEvent, undefined>) => void) | undefined;
  private ended = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly key: string,
    readonly recursive: boolean,
    readonly predicate: StoragePredicate | undefined,
    private readonly capacity: number,
    private readonly onStop: (w: CacheWatcher) => void,
    private readonly sharedObjects: boolean,
    private readonly from: Revision,
    readonly trigger: WatchTrigger | undefined,
  ) {}

  /**
   * Schedules this watcher's bookmarks as 1.23's cacher: the next one at the earlier of
   * `intervalMs` from now and 2 s before the watch's deadline, none once that is past. A bookmark
   * carries the cache's latest revision and is sent only when that is newer than the revision the
   * watch started from (1.23's cacheWatcher sends only events newer than it); an unsent bookmark
   * still queued is replaced by the newer one.
   */
  startBookmarks(intervalMs: number, deadlineMs: number | undefined, latest: () => Revision): void {
    const delay = nextBookmarkDelayMs(Date.now(), intervalMs, deadlineMs);
    if (delay === undefined || this.ended) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.ended) return;
      const revision = latest();
      if (revision > this.from) {
        const last = this.queue[this.queue.length - 1];
        if (last !== undefined && !isText(last) && last.type === "BOOKMARK") this.queue[this.queue.length - 1] = { type: "BOOKMARK", revision };
        else this.push({ type: "BOOKMARK", revision });
      }
      this.startBookmarks(intervalMs, deadlineMs, latest);
    }, delay);
    this.timer.unref?.();
  }

  matchesKey(key: string): boolean {
    if (!this.recursive) return key === this.key;
    const dir = this.key.endsWith("/") ? this.key : `${this.key}/`;
    return key.startsWith(dir);
  }

  /** Queues a change under this watcher's key (its predicate is applied when it is taken). */
  offer(e: WatchChangeEvent | TextEvent): void {
    // A watch may start at a revision the cache has not reached yet (a list read the backend a
    // moment ahead of the cache's one watch): the events up to it are in that list already.
    if (e.revision <= this.from || !this.matchesKey(e.key)) return;
    this.push(e);
  }

  /** The event this watcher hands out for a queued one, or undefined when its predicate drops it. */
  private take(q: QueuedEvent): WatchEvent | undefined {
    if (isText(q)) return this.select(inflate(q), true);
    if (q.type === "BOOKMARK" || q.type === "ERROR") return q;
    return this.select(q, this.sharedObjects);
  }

  // The predicate transitions: a change into the selection is ADDED, out of it DELETED (with the
  // last selected state at the new revision). `own`: the event's objects may be handed out as
  // they are (freshly parsed, or a consumer that only reads); else the consumer gets a copy.
  private select(e: WatchChangeEvent, own: boolean): WatchEvent | undefined {
    const out = (x: WatchChangeEvent) => (own ? x : deepCopyJSON(x));
    const p = this.predicate;
    if (p === undefined) return out(e);
    const now = e.type !== "DELETED" && p(e.object);
    const before = e.prevObject !== undefined && e.type !== "ADDED" && p(e.prevObject);
    if (e.type === "DELETED") return before || (e.prevObject === undefined && p(e.object)) ? out(e) : undefined;
    if (now && before) return out(e);
    if (now) return out({ ...e, type: "ADDED" });
    if (before && e.prevObject !== undefined) {
      const last = { ...e.prevObject, metadata: { ...e.prevObject.metadata, resourceVersion: String(e.revision) } };
      return out({ type: "DELETED", key: e.key, revision: e.revision, object: last, prevObject: e.prevObject });
    }
    return undefined;
  }

  push(e: QueuedEvent): void {
    if (this.ended) return;
    const isError = !isText(e) && e.type === "ERROR";
    if (this.waiter) {
      // A waiter means the queue is empty: hand the event over now, if it is one for this watcher.
      const value = this.take(e);
      if (value === undefined) return;
      const w = this.waiter;
      this.waiter = undefined;
      w({ done: false, value });
    } else if (this.queue.length >= this.capacity && !isError) {
      this.queue.push({ type: "ERROR", error: new StorageError("Unreachable", { key: this.key, detail: "watcher too slow: buffer full" }) });
      this.finish();
      return;
    } else this.queue.push(e);
    if (isError) this.finish();
  }

  private finish(): void {
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.onStop(this);
  }

  next(): Promise<IteratorResult<WatchEvent, undefined>> {
    for (let q = this.queue.shift(); q !== undefined; q = this.queue.shift()) {
      const value = this.take(q);
      if (value !== undefined) return Promise.resolve({ done: false, value });
    }
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

// A watcher's key as the fan-out indexes it: without a trailing `/` (the root is `""`).
function plainKey(key: string): string {
  return key.endsWith("/") ? key.slice(0, -1) : key;
}

function isAnyRevision(rv: string | number | undefined): boolean {
  return rv === "0" || rv === 0;
}

function parseRevision(rv: string | number | undefined): Revision | undefined {
  if (typeof rv === "number") return Number.isSafeInteger(rv) && rv > 0 ? rv : undefined;
  if (rv === undefined || !/^[1-9][0-9]*$/.test(rv)) return undefined;
  const n = Number(rv);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * A {@link Storage} that serves watches from one backend watch: a thousand watchers cost one
 * storage watch. It keeps a sliding window of the last events ({@link EventWindow}: from
 * `windowCapacity` events, doubling while full of events younger than 75 s, up to
 * `windowMaxCapacity` and `windowMaxBytes`, as 1.23's watch cache); a watch from an explicit
 * revision inside the window is served from it (a triggered watch, e.g. a node's pods, only the
 * events whose recorded trigger values concern it) and then live, fanned out with a
 * bounded per-watcher buffer (a watcher that falls `watcherBufferCapacity` events behind gets an
 * ERROR event and ends; others never wait). Watches from an unset/`"0"` revision, from before
 * the window, and invalid revisions go to the backend (which answers `ResourceVersionExpired`
 * and `InvalidError` itself). Reads and writes pass through, with 1.23's cacher semantics for a
 * list at `resourceVersion: "0"` ("any"): `limit` is ignored and everything is returned at once.
 * Unlike 1.23's cacher it keeps no copy of the current state: the backend already serves reads
 * from its own cache (SQLite's pages; etcd's memory), and holding 100k objects a second time in
 * this process's heap is what kept the apiserver's RSS over its target.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go, watch_cache.go
 * @example
 * const storage = new WatchCache(new MemoryStorage());
 * const w = await storage.watch("/registry/jobs", { recursive: true, resourceVersion: 42 });
 */
export class WatchCache implements Storage {
  private readonly prefix: string;
  private readonly bufferCapacity: number;
  private readonly window: EventWindow<TextEvent>;
  // Every trigger function a watcher has registered with: each recorded event keeps its values.
  private readonly knownTriggers = new Set<WatchTrigger["valueOf"]>();
  private readonly watchers = new Set<CacheWatcher>();
  // Watchers with a trigger, by trigger function and value (1.23's cacher `valueWatchers`); the
  // others by their key without a trailing `/`, so an event is offered only to the watchers of its
  // key and its ancestors (1.23 runs one cacher per resource: a node watch never sees a pod
  // event). Every watcher is also in `watchers`.
  private readonly plainWatchers = new Map<string, Set<CacheWatcher>>();
  private readonly triggered = new Map<WatchTrigger["valueOf"], Map<string, Set<CacheWatcher>>>();
  private readonly bookmarkIntervalMs: number;
  private latest = 0;
  private readonly trimTimer: ReturnType<typeof setInterval> | undefined;
  private starting: Promise<void> | undefined;
  private backendWatcher: Watcher | undefined;

  constructor(
    readonly backend: Storage,
    options: WatchCacheOptions = {},
  ) {
    this.prefix = options.prefix ?? "/";
    this.window = new EventWindow({
      lowerBound: options.windowCapacity ?? 1000,
      ...(options.windowMaxCapacity !== undefined ? { upperBound: options.windowMaxCapacity } : {}),
      ...(options.windowMaxBytes !== undefined ? { maxBytes: options.windowMaxBytes } : {}),
      ...(options.eventFreshMs !== undefined ? { eventFreshMs: options.eventFreshMs } : {}),
    });
    this.bufferCapacity = options.watcherBufferCapacity ?? 10000;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    const fresh = this.window.eventFreshMs;
    if (fresh > 0) {
      this.trimTimer = setInterval(() => this.window.trimStale(Date.now()), 5000);
      this.trimTimer.unref?.();
    }
  }

  create(key: string, object: StoredObject): Promise<WriteResult> {
    return this.backend.create(key, object);
  }
  get(key: string, options?: GetOptions & { readonly ignoreNotFound?: false }): Promise<StoredObject>;
  get(key: string, options: GetOptions): Promise<StoredObject | null>;
  get(key: string, options?: GetOptions): Promise<StoredObject | null> {
    return this.backend.get(key, options ?? {});
  }
  getEncoded(key: string, options?: Omit<GetOptions, "ignoreNotFound">): Promise<string> {
    return this.backend.getEncoded ? this.backend.getEncoded(key, options) : this.backend.get(key, options ?? {}).then((o) => JSON.stringify(o));
  }
  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    if (isAnyRevision(options?.resourceVersion) && options?.continue === undefined && options?.resourceVersionMatch !== "Exact") {
      // 1.23's cacher answers "any" with everything it holds, one page.
      const { limit: _limit, ...rest } = options ?? {};
      return this.backend.list(prefix, rest);
    }
    return this.backend.list(prefix, options);
  }
  listEncoded(prefix: string, options?: EncodedListOptions): Promise<EncodedListResult> {
    const read = (o: EncodedListOptions | undefined) =>
      this.backend.listEncoded ? this.backend.listEncoded(prefix, o) : this.backend.list(prefix, o).then((l) => ({ ...l, items: l.items.map((x) => JSON.stringify(x)) }));
    if (isAnyRevision(options?.resourceVersion) && options?.continue === undefined && options?.resourceVersionMatch !== "Exact") {
      const { limit: _limit, ...rest } = options ?? {};
      return read(rest);
    }
    return read(options);
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
    this.window.advanceStart(horizon);
    return horizon;
  }
  async close(): Promise<void> {
    if (this.trimTimer) clearInterval(this.trimTimer);
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
    if (from < this.window.start) {
      // Served from storage; the window may grow so the next watch like it is not.
      this.window.noteMiss(Date.now());
      return this.backend.watch(key, options);
    }
    // Beyond the backend's revision: the backend answers (1.23: "Too large resource version").
    if (from > this.latest && from > (await this.backend.currentRevision())) return this.backend.watch(key, options);
    return this.register(key, options, from);
  }

  private register(key: string, options: WatchOptions, from: Revision): Watcher {
    const trigger = options.predicate !== undefined ? options.trigger : undefined;
    const w = new CacheWatcher(key, options.recursive === true, options.predicate, this.bufferCapacity, (x) => this.unregister(x), options.sharedObjects === true, from, trigger);
    if (trigger === undefined) this.window.forEachSince(from, (e) => w.offer(e));
    else {
      this.knownTriggers.add(trigger.valueOf);
      this.window.forEachSince(from, (e) => {
        if (mayConcern(e.triggers?.get(trigger.valueOf), trigger.value)) w.offer(e);
      });
    }
    this.watchers.add(w);
    if (trigger === undefined) {
      const k = plainKey(w.key);
      let set = this.plainWatchers.get(k);
      if (!set) this.plainWatchers.set(k, (set = new Set()));
      set.add(w);
    } else {
      let byValue = this.triggered.get(trigger.valueOf);
      if (!byValue) this.triggered.set(trigger.valueOf, (byValue = new Map()));
      let set = byValue.get(trigger.value);
      if (!set) byValue.set(trigger.value, (set = new Set()));
      set.add(w);
    }
    if (options.allowBookmarks === true) w.startBookmarks(options.bookmarkIntervalMs ?? this.bookmarkIntervalMs, options.deadlineMs, () => this.latest);
    return w;
  }

  private unregister(w: CacheWatcher): void {
    this.watchers.delete(w);
    const t = w.trigger;
    if (t === undefined) {
      const k = plainKey(w.key);
      const set = this.plainWatchers.get(k);
      set?.delete(w);
      if (set?.size === 0) this.plainWatchers.delete(k);
      return;
    }
    const byValue = this.triggered.get(t.valueOf);
    const set = byValue?.get(t.value);
    set?.delete(w);
    if (set?.size === 0) byValue?.delete(t.value);
    if (byValue?.size === 0) this.triggered.delete(t.valueOf);
  }

  // Offers a live event to the watchers it may concern: those without a trigger watching its key
  // or an ancestor, and those whose trigger value is the object's or the previous object's
  // (1.23's cacher `dispatchEvent` with `triggerValues`).
  private fanOut(e: WatchChangeEvent, triggers: TriggerValues | undefined): void {
    for (let k = plainKey(e.key); ; k = k.slice(0, k.lastIndexOf("/"))) {
      const set = this.plainWatchers.get(k);
      if (set) for (const w of set) w.offer(e);
      if (k === "" || !k.includes("/")) break;
    }
    for (const [valueOf, byValue] of this.triggered) {
      const values = triggers?.get(valueOf) ?? triggerValuesOf(e, valueOf);
      if (values === null) {
        // No previous state to read the old value from: every triggered watcher decides.
        for (const set of byValue.values()) for (const w of set) w.offer(e);
        continue;
      }
      const [now, before] = values;
      if (now !== undefined) for (const w of byValue.get(now) ?? []) w.offer(e);
      if (before !== undefined && before !== now) for (const w of byValue.get(before) ?? []) w.offer(e);
    }
  }

  /** The event's values of every known trigger function; `undefined` while no watcher has had a trigger. */
  private triggerValues(e: WatchChangeEvent): TriggerValues | undefined {
    if (this.knownTriggers.size === 0) return undefined;
    const m: TriggerValues = new Map();
    for (const valueOf of this.knownTriggers) m.set(valueOf, triggerValuesOf(e, valueOf));
    return m;
  }

  private ensureStarted(): Promise<void> {
    this.starting ??= (async () => {
      const start = await this.backend.currentRevision();
      if (start > this.window.start) this.window.reset(start);
      this.latest = start;
      // The cache only reads the events (watchers get copies, or share them when they asked to).
      this.backendWatcher = await this.backend.watch(this.prefix, { recursive: true, resourceVersion: start, sharedObjects: true });
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
        this.window.reset(this.latest);
        return;
      }
      if (e.type === "BOOKMARK") {
        this.latest = Math.max(this.latest, e.revision);
        continue;
      }
      this.latest = e.revision;
      const triggers = this.triggerValues(e);
      this.window.add(deflate(e, Date.now(), triggers));
      this.fanOut(e, triggers);
    }
  }
}
