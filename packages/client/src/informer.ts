/**
 * List-watch informers: a local cache kept in sync with the server and change notifications.
 *
 * @see staging/src/k8s.io/client-go/tools/cache/reflector.go
 * @see staging/src/k8s.io/client-go/tools/cache/shared_informer.go
 * @see staging/src/k8s.io/client-go/tools/cache/delta_fifo.go (`DeletedFinalStateUnknown`)
 */

import { isExpired, isGone, statusErrorFromObject } from "@skiff/apimachinery";
import type { Clock } from "./clock.js";
import { realClock } from "./clock.js";
import { isClientError } from "./errors.js";
import type { KubeObject, ResourceClient } from "./resource-client.js";
import type { IndexFunc, ReadonlyStore } from "./store.js";
import { Store, keyOf } from "./store.js";

/**
 * The last known state of an object whose deletion the informer missed (it disappeared between
 * two lists); `obj` may be stale.
 * @see staging/src/k8s.io/client-go/tools/cache/delta_fifo.go (`DeletedFinalStateUnknown`)
 */
export class DeletedFinalStateUnknown<T> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** Whether a delete notification carries a {@link DeletedFinalStateUnknown} instead of the object. */
export function isDeletedFinalStateUnknown<T>(x: T | DeletedFinalStateUnknown<T>): x is DeletedFinalStateUnknown<T> {
  return x instanceof DeletedFinalStateUnknown;
}

/**
 * Change notifications. `onUpdate` also fires on resync and relist with the cached object as
 * both arguments or the old state; compare `metadata.resourceVersion` to skip no-ops. Handlers run
 * synchronously in event order; a throwing handler is reported through `onError` and does not
 * stop the informer.
 */
export interface InformerEventHandler<T> {
  onAdd?(obj: T, isInInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** Options of {@link createInformer}. */
export interface InformerOptions<T> {
  /** Only this namespace; omitted: all namespaces. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Every this many ms, `onUpdate(obj, obj)` for every cached object; 0 disables. @defaultValue 0 */
  readonly resyncPeriodMs?: number;
  /** Extra indexes of the store (`namespace` always exists). */
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
  /** Server-side timeout of each watch request, in seconds; the watch is resumed after it. @defaultValue random in 300..600 */
  readonly watchTimeoutSeconds?: number;
  /** Page size of the list. @defaultValue 500 */
  readonly pageSize?: number;
  /** Errors of lists, watches and handlers. @defaultValue writes to stderr */
  readonly onError?: (err: unknown, context: string) => void;
  /** @defaultValue realClock */
  readonly clock?: Clock;
}

/**
 * An informer over one resource (see {@link createInformer}).
 *
 * `start()` lists, fills the store (`hasSynced()` turns true) and then watches from the list's
 * resourceVersion. A watch that ends or drops is resumed from the last resourceVersion seen
 * (bookmarks included); a 410 Expired/Gone relists at once; other failures relist after a
 * back-off (800 ms doubling to 30 s). A relist replaces the store: new objects `onAdd`,
 * existing ones `onUpdate`, missing ones `onDelete(DeletedFinalStateUnknown)`.
 */
export interface Informer<T extends KubeObject> {
  readonly store: ReadonlyStore<T>;
  /** Adds handlers (replaying the cache as adds if already synced); returns a remover. */
  addEventHandler(handler: InformerEventHandler<T>): () => void;
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void;
  start(): void;
  stop(): void;
  hasSynced(): boolean;
  /** Resolves true once synced, false if the informer is stopped or `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  /** resourceVersion of the last list, watch event or bookmark processed. */
  lastSyncResourceVersion(): string;
  /** Number of lists done so far (the initial one included). */
  readonly listCount: number;
}

const initialBackoffMs = 800;
const maxBackoffMs = 30_000;

/**
 * Creates a (stopped) informer over `resource`.
 *
 * @example
 * const informer = createInformer(client.jobs, { namespace: "default" });
 * informer.addEventHandler({ onAdd: (job) => queue.add(keyOf(job)), onUpdate: (_, job) => queue.add(keyOf(job)) });
 * informer.start();
 * await informer.waitForSync();
 */
export function createInformer<T extends KubeObject>(resource: ResourceClient<T>, options: InformerOptions<T> = {}): Informer<T> {
  return new InformerImpl(resource, options);
}

class InformerImpl<T extends KubeObject> implements Informer<T> {
  readonly store: Store<T>;
  private readonly handlers = new Set<InformerEventHandler<T>>();
  private readonly clock: Clock;
  private readonly onError: (err: unknown, context: string) => void;
  private running = false;
  private stopped = false;
  private synced = false;
  private rv = "";
  private abort: AbortController | undefined;
  private syncWaiters: Array<(ok: boolean) => void> = [];
  private cancelResync: (() => void) | undefined;
  private cancelSleep: (() => void) | undefined;
  listCount = 0;

  constructor(
    private readonly resource: ResourceClient<T>,
    private readonly options: InformerOptions<T>,
  ) {
    this.store = new Store<T>(options.indexers ?? {});
    this.clock = options.clock ?? realClock;
    this.onError = options.onError ?? ((err, context) => process.stderr.write(`informer ${resource.info.plural}: ${context}: ${err instanceof Error ? err.message : String(err)}\n`));
  }

  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.handlers.add(handler);
    if (this.synced) for (const obj of this.store.list()) this.call("add", () => handler.onAdd?.(obj, true));
    return () => this.handlers.delete(handler);
  }

  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void {
    this.store.addIndexers(indexers);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  lastSyncResourceVersion(): string {
    return this.rv;
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.syncWaiters.push((ok) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(ok);
      });
    });
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.abort = new AbortController();
    void this.run();
    const period = this.options.resyncPeriodMs ?? 0;
    if (period > 0) this.scheduleResync(period);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort?.abort();
    this.cancelResync?.();
    this.cancelSleep?.();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w(false);
  }

  private scheduleResync(period: number): void {
    this.cancelResync = this.clock.setTimer(() => {
      if (this.stopped) return;
      if (this.synced) for (const obj of this.store.list()) this.emit("update", (h) => h.onUpdate?.(obj, obj));
      this.scheduleResync(period);
    }, period);
  }

  private call(what: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.onError(e, `${what} handler`);
    }
  }

  private emit(what: string, fn: (h: InformerEventHandler<T>) => void): void {
    for (const h of [...this.handlers]) this.call(what, () => fn(h));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.abort?.signal;
      const onAbort = () => resolve();
      this.cancelSleep = this.clock.setTimer(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private async run(): Promise<void> {
    let backoffMs = initialBackoffMs;
    const signal = this.abort?.signal;
    while (!this.stopped) {
      try {
        await this.listAndReplace(signal);
        backoffMs = initialBackoffMs;
      } catch (e) {
        if (this.stopped) return;
        this.onError(e, "list failed");
        await this.sleep(backoffMs);
        backoffMs = Math.min(maxBackoffMs, backoffMs * 2);
        continue;
      }
      // Watch until the resourceVersion expires (relist at once) or a non-network error (relist after back-off).
      let watchBackoffMs = initialBackoffMs;
      for (;;) {
        if (this.stopped) return;
        try {
          await this.watchOnce(signal);
          watchBackoffMs = initialBackoffMs;
        } catch (e) {
          if (this.stopped) return;
          if (isExpired(e) || isGone(e)) break;
          this.onError(e, "watch failed");
          await this.sleep(watchBackoffMs);
          watchBackoffMs = Math.min(maxBackoffMs, watchBackoffMs * 2);
          if (isClientError(e) && e.code === "NetworkError") continue;
          break;
        }
      }
    }
  }

  private async listAndReplace(signal: AbortSignal | undefined): Promise<void> {
    const o = this.options;
    const list = await this.resource.listAll({
      ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
      ...(o.labelSelector !== undefined ? { labelSelector: o.labelSelector } : {}),
      ...(o.fieldSelector !== undefined ? { fieldSelector: o.fieldSelector } : {}),
      limit: o.pageSize ?? 500,
      ...(signal ? { signal } : {}),
    });
    if (this.stopped) return;
    this.listCount++;
    const seen = new Set<string>();
    for (const obj of list.items) {
      const key = keyOf(obj);
      seen.add(key);
      const old = this.store.set(obj);
      if (old === undefined) this.emit("add", (h) => h.onAdd?.(obj, !this.synced));
      else this.emit("update", (h) => h.onUpdate?.(old, obj));
    }
    for (const key of this.store.listKeys()) {
      if (seen.has(key)) continue;
      const old = this.store.delete(key);
      if (old !== undefined) this.emit("delete", (h) => h.onDelete?.(new DeletedFinalStateUnknown(key, old)));
    }
    this.rv = list.metadata.resourceVersion ?? "";
    if (!this.synced) {
      this.synced = true;
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      for (const w of waiters) w(true);
    }
  }

  private async watchOnce(signal: AbortSignal | undefined): Promise<void> {
    const o = this.options;
    const watch = this.resource.watch({
      ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
      ...(o.labelSelector !== undefined ? { labelSelector: o.labelSelector } : {}),
      ...(o.fieldSelector !== undefined ? { fieldSelector: o.fieldSelector } : {}),
      resourceVersion: this.rv,
      allowWatchBookmarks: true,
      timeoutSeconds: o.watchTimeoutSeconds ?? Math.floor(300 + Math.random() * 300),
      ...(signal ? { signal } : {}),
    });
    for await (const ev of watch) {
      if (this.stopped) return;
      switch (ev.type) {
        case "ERROR":
          throw statusErrorFromObject(ev.object) ?? new Error(`watch error event: ${JSON.stringify(ev.object)}`);
        case "BOOKMARK":
          this.rv = ev.object.metadata.resourceVersion;
          break;
        case "ADDED":
        case "MODIFIED": {
          const obj = ev.object;
          const old = this.store.set(obj);
          if (old === undefined) this.emit("add", (h) => h.onAdd?.(obj, false));
          else this.emit("update", (h) => h.onUpdate?.(old, obj));
          this.rv = obj.metadata?.resourceVersion ?? this.rv;
          break;
        }
        case "DELETED": {
          const obj = ev.object;
          this.store.delete(keyOf(obj));
          this.emit("delete", (h) => h.onDelete?.(obj));
          this.rv = obj.metadata?.resourceVersion ?? this.rv;
          break;
        }
      }
    }
  }
}
