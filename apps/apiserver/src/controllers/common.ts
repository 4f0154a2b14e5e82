/**
 * What the in-process controllers share: one generic store per served resource over the
 * apiserver's own Storage, lookup by storage key and by apiVersion/kind, and a system context.
 */
import { GenericStore } from "@skiff/apiserver-core";
import type { APIObject, RequestContext, ResourceStrategy } from "@skiff/apiserver-core";
import type { Storage, WatchChangeEvent, Watcher } from "@skiff/storage";
import { WorkQueue } from "./work-queue.js";

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

/** Options of {@link WatchedQueue}. */
export interface WatchedQueueOptions {
  /** Names the controller in log lines (`"<name>: <key>: <error>"`). */
  readonly name: string;
  /** Watched key prefix (recursive, from the current state). */
  readonly prefix: string;
  /** Handles one key; a throw is logged and the key retried after `retryMs`. */
  readonly sync: (key: string) => Promise<void>;
  /** Called for every ADDED/MODIFIED/DELETED event; queues what it wants synced. Must not mutate the event's objects (they are shared). */
  readonly onChange: (event: WatchChangeEvent, queue: WorkQueue) => void;
  /** Retry delay after a failed sync. */
  readonly retryMs: number;
  readonly log: ControllerLog;
}

/**
 * The loop the in-process controllers share: one storage watch of a key prefix feeding a
 * deduplicating work queue with one worker. Bookmarks are skipped; an ERROR event ends the watch
 * (logged). Failed syncs are logged and retried after `retryMs`.
 * @see staging/src/k8s.io/client-go/util/workqueue/queue.go
 */
export class WatchedQueue {
  readonly queue: WorkQueue;
  private watcher: Watcher | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly options: WatchedQueueOptions,
  ) {
    this.queue = new WorkQueue(options.sync, (key, err) => {
      options.log(`${options.name}: ${key}: ${err instanceof Error ? err.message : String(err)}`);
      return options.retryMs;
    });
  }

  /** Starts watching and working; resolves once the watch is established. */
  async start(): Promise<void> {
    // onChange only reads events, so the backend may hand out its shared parsed objects.
    this.watcher = await this.storage.watch(this.options.prefix, { recursive: true, sharedObjects: true });
    void this.queue.run();
    void this.consume(this.watcher);
  }

  /** Stops the watch and the worker. */
  stop(): void {
    this.watcher?.stop();
    this.queue.stop();
  }

  private async consume(w: Watcher): Promise<void> {
    for await (const e of w) {
      if (e.type === "BOOKMARK") continue;
      if (e.type === "ERROR") {
        this.options.log(`${this.options.name}: watch ended: ${e.error.message}`);
        return;
      }
      this.options.onChange(e, this.queue);
    }
  }
}

/** A controller driven by one {@link WatchedQueue}: start and stop delegate to it. */
export abstract class WatchedQueueController {
  protected abstract readonly loop: WatchedQueue;

  /** Starts watching and working; resolves once the watch is established. */
  start(): Promise<void> {
    return this.loop.start();
  }

  /** Stops the watch and the worker. */
  stop(): void {
    this.loop.stop();
  }
}
