/**
 * What the in-process controllers share: one generic store per served resource over the
 * apiserver's own Storage, lookup by storage key and by apiVersion/kind, a system context, and
 * the storage watch that feeds a controller's `@skiff/client` work queue ({@link startWatchedWorker}).
 */
import { GenericStore } from "@skiff/apiserver-core";
import type { APIObject, RequestContext, ResourceStrategy } from "@skiff/apiserver-core";
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
}

/**
 * The loop the in-process controllers share: one storage watch of a key prefix feeding the
 * controller's client-go work queue (`RateLimitingQueue` of `@skiff/client`), and one worker as
 * client-go's `processNextWorkItem`: a key that syncs is forgotten by the rate limiter, one that
 * fails is logged and re-added after the rate limiter's back-off. Bookmarks are skipped; an ERROR
 * event ends the watch (logged). Resolves once the watch is established, with a function that
 * stops the watch and shuts the queue down; the worker then takes no further key (a sync under
 * way finishes).
 * @throws what `storage.watch` throws (storage unreachable)
 * @see staging/src/k8s.io/client-go/util/workqueue/rate_limiting_queue.go
 * @see pkg/controller/namespace/namespace_controller.go (worker)
 */
export async function startWatchedWorker(storage: Storage, o: WatchedWorkerOptions): Promise<() => void> {
  // onChange only reads events, so the backend may hand out its shared parsed objects.
  const watcher = await storage.watch(o.prefix, { recursive: true, sharedObjects: true });
  void consume(watcher, o);
  void work(o);
  return () => {
    watcher.stop();
    o.queue.shutDown();
  };
}

async function consume(w: Watcher, o: WatchedWorkerOptions): Promise<void> {
  for await (const e of w) {
    if (e.type === "BOOKMARK") continue;
    if (e.type === "ERROR") {
      o.log(`${o.name}: watch ended: ${e.error.message}`);
      return;
    }
    o.onChange(e);
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
