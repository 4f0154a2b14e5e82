/**
 * What the in-process controllers share: one generic store per served resource over the
 * apiserver's own Storage, lookup by storage key and by apiVersion/kind, a system context, and
 * the storage watch that feeds a controller's `@skiff/client` work queue ({@link startWatchedWorker}).
 */
import { GenericStore } from "@skiff/apiserver-core";
import type { APIObject, RequestContext, ResourceStrategy } from "@skiff/apiserver-core";
import { isStorageError } from "@skiff/storage";
import type { Storage, WatchChangeEvent, Watcher } from "@skiff/storage";
import type { RateLimitingQueue } from "@skiff/client";

/** The stores of every served resource, with lookups. */
export interface ControllerStores {
  readonly all: readonly GenericStore[];
  /** The store whose key prefix holds `key`, and the object's namespace and name from the key. */
  locate(key: string): { store: GenericStore; namespace: string | undefined; name: string } | undefined;
  /** The store serving `apiVersion` + `kind` (an owner reference's target). */
  forKind(apiVersion: string, kind: string): GenericStore | undefined;
}

/** Builds {@link ControllerStores} over `storage` for `strategies` (the same ones the server serves). */
export function createControllerStores(strategies: readonly ResourceStrategy[], storage: Storage): ControllerStores {
  const all = strategies.map((s) => new GenericStore(s, storage));
  return {
    all,
    locate(key) {
      for (const store of all) {
        const prefix = store.keyPrefix(undefined);
        if (!key.startsWith(prefix)) continue;
        const rest = key.slice(prefix.length).split("/");
        if (store.strategy.resource.namespaced) {
          if (rest.length !== 2) continue;
          return { store, namespace: rest[0]!, name: rest[1]! };
        }
        if (rest.length !== 1) continue;
        return { store, namespace: undefined, name: rest[0]! };
      }
      return undefined;
    },
    forKind(apiVersion, kind) {
      return all.find((s) => {
        const r = s.strategy.resource;
        return r.kind === kind && (r.group ? `${r.group}/${r.version}` : r.version) === apiVersion;
      });
    },
  };
}

/** A request context for a controller acting as `username`. `warnings` collects and is ignored. */
export function systemContext(username: string, namespace: string | undefined): RequestContext {
  return { namespace, user: { username, groups: ["system:authenticated"] }, now: new Date(), dryRun: false, warnings: [] };
}

/** Whether `e` is a StatusError-like error with HTTP code `code`. */
export function hasStatusCode(e: unknown, code: number): boolean {
  return typeof e === "object" && e !== null && (e as { status?: { code?: number } }).status?.code === code;
}

/** The object's namespace (namespaced kinds) or `undefined`. */
export function namespaceOf(store: GenericStore, obj: APIObject): string | undefined {
  return store.strategy.resource.namespaced ? obj.metadata?.namespace : undefined;
}

/** A log sink: one line per call. */
export type ControllerLog = (message: string) => void;

/** Options of {@link startWatchedWorker}. */
export interface WatchedWorkerOptions {
  /** Names the controller in log lines (`"<name>: <key>: <error>"`). */
  readonly name: string;
  /** Watched key prefix (recursive, from the current state). */
  readonly prefix: string;
  /** The controller's queue; the worker owns it from now on and shuts it down on stop. */
  readonly queue: RateLimitingQueue<string>;
  /** Handles one key; a throw is logged and the key re-queued rate-limited. */
  readonly sync: (key: string) => Promise<void>;
  /** Called for every ADDED/MODIFIED/DELETED event; queues what it wants synced. Must not mutate the event's objects (they are shared). */
  readonly onChange: (event: WatchChangeEvent) => void;
  readonly log: ControllerLog;
  /** Wait before a watch that ended is opened again, in milliseconds. @defaultValue 1000 */
  readonly rewatchDelayMs?: number;
}

/**
 * The loop the in-process controllers share: one storage watch of a key prefix feeding the
 * controller's client-go work queue (`RateLimitingQueue` of `@skiff/client`), and one worker as
 * client-go's `processNextWorkItem`: a key that syncs is forgotten by the rate limiter, one that
 * fails is logged and re-added after the rate limiter's back-off. Bookmarks are skipped. A watch
 * that ends (an ERROR event: the storage's stream failed, the consumer fell behind) is logged and
 * opened again after `rewatchDelayMs`, as a reflector: from the last event's revision, so nothing
 * is missed; when that revision has been compacted, from the current state (every object ADDED
 * again; deletions in the gap are not replayed). Resolves once the first watch is established,
 * with a function that stops the watch and shuts the queue down; the worker then takes no further
 * key (a sync under way finishes).
 * @throws what `storage.watch` throws for the first watch (storage unreachable)
 * @see staging/src/k8s.io/client-go/util/workqueue/rate_limiting_queue.go
 * @see staging/src/k8s.io/client-go/tools/cache/reflector.go (watch resumed from the last resourceVersion, relist on 410)
 * @see pkg/controller/namespace/namespace_controller.go (worker)
 */
export async function startWatchedWorker(storage: Storage, o: WatchedWorkerOptions): Promise<() => void> {
  // onChange only reads events, so the backend may hand out its shared parsed objects.
  const state: WatchState = { watcher: await storage.watch(o.prefix, { recursive: true, sharedObjects: true }), stopped: false };
  void consume(storage, state, o);
  void work(o);
  return () => {
    state.stopped = true;
    state.watcher.stop();
    o.queue.shutDown();
  };
}

interface WatchState {
  watcher: Watcher;
  stopped: boolean;
}

async function consume(storage: Storage, state: WatchState, o: WatchedWorkerOptions): Promise<void> {
  let last: number | undefined;
  for (;;) {
    let reason = "the watch ended";
    for await (const e of state.watcher) {
      if (e.type === "BOOKMARK") continue;
      if (e.type === "ERROR") {
        reason = e.error.message;
        break;
      }
      last = last === undefined ? e.revision : Math.max(last, e.revision);
      o.onChange(e);
    }
    if (state.stopped) return;
    o.log(`${o.name}: watch ended: ${reason}; watching again`);
    for (;;) {
      await new Promise((r) => setTimeout(r, o.rewatchDelayMs ?? 1000));
      if (state.stopped) return;
      try {
        state.watcher = await storage.watch(o.prefix, { recursive: true, sharedObjects: true, ...(last !== undefined ? { resourceVersion: last } : {}) });
        break;
      } catch (err) {
        if (isStorageError(err, "ResourceVersionExpired")) {
          o.log(`${o.name}: revision ${String(last)} is compacted; watching from the current state`);
          last = undefined;
          continue;
        }
        o.log(`${o.name}: watching again failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    // Stopped while the watch was being opened.
    if (state.stopped) {
      state.watcher.stop();
      return;
    }
  }
}

async function work(o: WatchedWorkerOptions): Promise<void> {
  const queue = o.queue;
  for (;;) {
    const key = await queue.get();
    if (key === undefined) return;
    // A shut-down queue still hands out what it holds; a stopped controller syncs none of it.
    if (queue.isShuttingDown()) {
      queue.done(key);
      return;
    }
    try {
      await o.sync(key);
      queue.forget(key);
    } catch (e) {
      o.log(`${o.name}: ${key}: ${e instanceof Error ? e.message : String(e)}`);
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
    }
  }
}
