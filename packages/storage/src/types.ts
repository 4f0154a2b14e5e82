/**
 * The storage interface: an MVCC key-value store of JSON objects, the contract between the
 * apiserver (and its watch cache) and every backend (SQLite, memory, later etcd).
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/interfaces.go (Kubernetes 1.23), simplified
 */

import type { StorageError } from "./errors.js";

/**
 * The `metadata` of a stored object, as far as storage looks at it: `uid` for preconditions and
 * `resourceVersion`, which storage owns. Other fields pass through untouched.
 */
export interface StoredObjectMeta {
  [field: string]: unknown;
  uid?: string;
  resourceVersion?: string;
}

/**
 * A stored value: any JSON object (storage does not know kinds). Values must survive
 * `JSON.stringify`/`JSON.parse` unchanged (no `undefined`, functions, `Date`s, `NaN`, bigints).
 *
 * The resourceVersion is never stored inside the value (Kubernetes' versioner approach): writes
 * strip `metadata.resourceVersion`, reads set it to the decimal revision of the object's last
 * modification. Every object storage returns is a fresh copy the caller may mutate; storage never
 * mutates objects it is given.
 */
export interface StoredObject {
  [field: string]: unknown;
  metadata?: StoredObjectMeta;
}

/**
 * A revision: the global write counter. Every create, update and delete takes the next one, starting
 * at 1. Revisions are safe integers (`Number.isSafeInteger`); `metadata.resourceVersion` is the
 * decimal string of one.
 */
export type Revision = number;

/**
 * How an explicit `resourceVersion` is matched (the `resourceVersionMatch` query parameter).
 * - `NotOlderThan`: serve the latest state, which must be at least that revision
 *   (else `TooLargeResourceVersion`).
 * - `Exact`: serve the state exactly at that revision (`ResourceVersionExpired` if compacted,
 *   `TooLargeResourceVersion` if in the future).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go `ResourceVersionMatch`
 */
export type ResourceVersionMatch = "NotOlderThan" | "Exact";

/**
 * A filter on objects (label and field selectors, built by the apiserver). It receives a shared
 * object and must not mutate it; it must not throw.
 */
export type StoragePredicate = (object: StoredObject) => boolean;

/**
 * A watch's demand on the watched kind's indexed field, as 1.23's cacher `triggerValue`: the
 * value its selector requires (`spec.nodeName=<node>` of a node agent's pod watch) and the
 * function reading that field of an object. A fan-out may skip the watch for events whose object
 * and previous object both have another value (the predicate still decides the rest). The
 * function is the index's identity: pass the same one for every watch of a kind.
 * @see staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (indexedTriggerFunc, triggerValue) in kubernetes/kubernetes v1.23
 */
export interface WatchTrigger {
  readonly value: string;
  readonly valueOf: (object: StoredObject) => string;
}

/** Preconditions a write checks against the current object before it applies. */
export interface Preconditions {
  /** The object's `metadata.uid` must equal this. */
  readonly uid?: string;
  /** The object's current resourceVersion (decimal revision) must equal this. */
  readonly resourceVersion?: string;
}

/** Result of a write: the object as stored (resourceVersion set) and the revision of the write. */
export interface WriteResult {
  readonly object: StoredObject;
  readonly revision: Revision;
}

/** Result of {@link Storage.delete}. */
export interface DeleteResult {
  /** The last state before the delete, with the resourceVersion of its last modification. */
  readonly object: StoredObject;
  /** The revision the delete took. */
  readonly revision: Revision;
}

/**
 * Options of {@link Storage.get}.
 *
 * `resourceVersion` `""`/unset/`"0"`: the latest state. An explicit revision with
 * `resourceVersionMatch` unset or `NotOlderThan`: the latest state, which must be at least that
 * revision (Kubernetes 1.23 get semantics); with `Exact`: the state at that revision.
 */
export interface GetOptions {
  /** A decimal revision string (or number); see above. */
  readonly resourceVersion?: string | number;
  readonly resourceVersionMatch?: ResourceVersionMatch;
  /** Return `null` instead of throwing `KeyNotFound`. @defaultValue false */
  readonly ignoreNotFound?: boolean;
}

/**
 * A position inside a paginated list: the (absolute) key to start at, inclusive, and the revision
 * every page is read at. The apiserver encodes it as a continue token (with `startKey` made
 * relative to the listed prefix, as Kubernetes does).
 */
export interface ListContinue {
  readonly startKey: string;
  readonly revision: Revision;
}

/**
 * Options of {@link Storage.list}.
 *
 * Revision choice (Kubernetes 1.23 `etcd3.store.List`): with `continue`, the continue's revision
 * (exact; `resourceVersion` must then be unset or `"0"`). Else `resourceVersion` `""`/unset/`"0"`:
 * latest. An explicit revision R: `Exact` → state at R; `NotOlderThan` → latest, which must be ≥ R;
 * match unset → exact at R when `limit` is set, else not-older-than.
 */
export interface ListOptions {
  readonly resourceVersion?: string | number;
  readonly resourceVersionMatch?: ResourceVersionMatch;
  /** Maximum number of items in this page; unset or 0 = no limit. */
  readonly limit?: number;
  /** Where a previous page stopped (its {@link ListResult.continue}). */
  readonly continue?: ListContinue;
  /** Only items passing it are returned; pages are still filled up to `limit`. */
  readonly predicate?: StoragePredicate;
}

/** Options of {@link Storage.listEncoded}: those of a list, without a predicate. */
export type EncodedListOptions = Omit<ListOptions, "predicate">;

/** One page of a list as JSON texts; see {@link Storage.listEncoded}. */
export interface EncodedListResult extends Omit<ListResult, "items"> {
  /** Each item's JSON text, in ascending key order. */
  readonly items: string[];
}

/** One page of a list. */
export interface ListResult {
  /** Items in ascending key order (byte order of the UTF-8 key), each a fresh copy. */
  readonly items: StoredObject[];
  /** The revision the page was read at (the same on every page of one list). */
  readonly revision: Revision;
  /** Present when more keys follow; pass it back to read the next page. */
  readonly continue?: ListContinue;
  /**
   * How many items follow this page at `revision`, when known: set with `continue` when no
   * predicate was given (Kubernetes omits it for filtered lists).
   */
  readonly remainingItemCount?: number;
}

/**
 * `tryUpdate` of {@link Storage.guaranteedUpdate}: computes the new object from the current one.
 * `current` is a fresh copy (resourceVersion set); it is `{}` with `revision` 0 when the key does
 * not exist and `ignoreNotFound` is set. Throwing aborts the update and the error propagates
 * unchanged. It may run several times (once per conflict retry), so it must not have side effects
 * that cannot repeat. The resourceVersion of the returned object is ignored.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/interfaces.go `UpdateFunc`
 */
export type UpdateFunc = (
  current: StoredObject,
  state: { readonly revision: Revision },
) => StoredObject | Promise<StoredObject>;

/** Options of {@link Storage.guaranteedUpdate}. */
export interface GuaranteedUpdateOptions {
  /** Checked against the current object on every attempt; failure → `InvalidObj`. */
  readonly preconditions?: Preconditions;
  /** Call `tryUpdate` with `{}` when the key is missing (create-on-update). @defaultValue false */
  readonly ignoreNotFound?: boolean;
}

/** Options of {@link Storage.delete}. */
export interface DeleteOptions {
  /** Checked against the current object; failure → `InvalidObj`. */
  readonly preconditions?: Preconditions;
  /**
   * Called with the current object (a fresh copy) before deleting; throwing aborts the delete and
   * the error propagates unchanged. May run more than once (conflict retries).
   */
  readonly validateDeletion?: (current: StoredObject) => void | Promise<void>;
}

/**
 * Options of {@link Storage.watch}.
 *
 * Start: `resourceVersion` unset/`""`/`"0"` → one ADDED event per object currently under the
 * key (at the current revision R, each with its own resourceVersion), then every change after R.
 * An explicit revision R → every change with revision > R. R below the compaction horizon →
 * `ResourceVersionExpired`. R above the current revision is allowed (changes after R).
 */
export interface WatchOptions {
  readonly resourceVersion?: string | number;
  /** Watch every key under `key` treated as a directory (a `/` is appended when missing). @defaultValue false */
  readonly recursive?: boolean;
  /**
   * Filter with Kubernetes' transitions: an update into the predicate is ADDED, out of it DELETED
   * (with the previous object), within it MODIFIED.
   */
  readonly predicate?: StoragePredicate;
  /** The indexed field's value the predicate requires (only a hint: backends may ignore it). @defaultValue none */
  readonly trigger?: WatchTrigger;
  /** Emit BOOKMARK events with the current revision every `bookmarkIntervalMs` while caught up. @defaultValue false */
  readonly allowBookmarks?: boolean;
  /** @defaultValue 60000 */
  readonly bookmarkIntervalMs?: number;
  /**
   * When the consumer will end this watch (epoch milliseconds; the request's `timeoutSeconds`).
   * The apiserver's watch cache then sends the last bookmark 2 s before it, as 1.23's cacher
   * (`nextBookmarkTime`); the storage backends keep their plain period.
   */
  readonly deadlineMs?: number;
  /**
   * The consumer treats event objects as read-only, so a backend that fans one event out to many
   * watchers (the apiserver's watch cache) may hand every watcher the same object instead of a
   * copy. Without it each watcher gets objects of its own. @defaultValue false
   */
  readonly sharedObjects?: boolean;
}

/** The kinds of watch event (as on the wire, `watch.EventType`). */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * A change to one key.
 *
 * - ADDED: `object` is the new object.
 * - MODIFIED: `object` is the new object, `prevObject` the one before.
 * - DELETED: `object` is the last state with resourceVersion set to the revision of the deletion
 *   (so a client may resume from it, as Kubernetes does); `prevObject` is that last state with
 *   its own resourceVersion.
 * With a predicate, ADDED/DELETED may stand for updates moving into/out of it; they then carry
 * `prevObject` too.
 */
export interface WatchChangeEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly key: string;
  readonly revision: Revision;
  readonly object: StoredObject;
  readonly prevObject?: StoredObject;
}

/** Every change up to and including `revision` has been delivered (or filtered out). */
export interface WatchBookmarkEvent {
  readonly type: "BOOKMARK";
  readonly revision: Revision;
}

/**
 * The watch cannot continue (the watcher's position was compacted away while it lagged, or the
 * backend failed). It is the last event.
 */
export interface WatchErrorEvent {
  readonly type: "ERROR";
  readonly error: StorageError;
}

/** One event of a watch. */
export type WatchEvent = WatchChangeEvent | WatchBookmarkEvent | WatchErrorEvent;

/**
 * A running watch: an async iterable with a single consumer. Events arrive in revision order,
 * each change exactly once. The iteration ends after `stop()`, after an ERROR event, or when the
 * storage closes. Leaving a `for await` loop early stops the watcher.
 *
 * Backpressure: a consumer that reads slowly never blocks writers or other watchers. Backends
 * with a durable log (SQLite, memory) let a lagging watcher fall back to reading the log, so it
 * still sees every event unless compaction overtakes it (then an ERROR `ResourceVersionExpired`);
 * backends without one end such a watcher with an ERROR event.
 */
export interface Watcher extends AsyncIterable<WatchEvent> {
  /** The next event, or `{done: true}` once the watch has ended. */
  next(): Promise<IteratorResult<WatchEvent, undefined>>;
  /** Ends the watch; pending and future `next()` calls resolve `{done: true}`. Idempotent. */
  stop(): void;
}

/**
 * The storage interface every backend implements (and the apiserver's watch cache wraps).
 *
 * Keys are absolute strings like `/registry/jobs/<namespace>/<name>`; storage does not interpret
 * them beyond ordering and prefixes. List, count and recursive watch treat their key as a
 * directory: `/registry/jobs/a` covers `/registry/jobs/a/x` but not `/registry/jobs/ab/x`.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/interfaces.go `Interface`
 * @example
 * const { object, revision } = await storage.create("/registry/jobs/default/pi", job);
 * const page = await storage.list("/registry/jobs/default", { limit: 500 });
 * const w = await storage.watch("/registry/jobs", { recursive: true, resourceVersion: page.revision });
 * for await (const e of w) console.log(e.type, e.type !== "ERROR" && e.revision);
 */
export interface Storage {
  /**
   * Stores `object` under a new key. `metadata.resourceVersion` must be empty.
   * @throws StorageError `KeyExists` if the key holds a live object; `InvalidObj` if the object
   *   has a resourceVersion or is not a JSON object.
   */
  create(key: string, object: StoredObject): Promise<WriteResult>;

  /**
   * Reads one object; see {@link GetOptions} for revisions.
   * @throws StorageError `KeyNotFound` (unless `ignoreNotFound`), `TooLargeResourceVersion`,
   *   `ResourceVersionExpired` (Exact at a compacted revision), `InvalidError`.
   */
  get(key: string, options?: GetOptions & { readonly ignoreNotFound?: false }): Promise<StoredObject>;
  get(key: string, options: GetOptions): Promise<StoredObject | null>;

  /**
   * {@link get} without parsing: the object's JSON text, byte for byte what `JSON.stringify`
   * writes for the object `get` returns. Lets a server answer a GET in JSON without building and
   * serialising the object. Optional: callers fall back to `get`.
   * @throws StorageError as {@link get} (`KeyNotFound` always: there is no `ignoreNotFound`).
   */
  getEncoded?(key: string, options?: Omit<GetOptions, "ignoreNotFound">): Promise<string>;

  /**
   * Lists the live objects under `prefix` (a directory), consistent at one revision across pages.
   * @throws StorageError `TooLargeResourceVersion`, `ResourceVersionExpired` (a compacted exact
   *   revision or continue), `InvalidError`.
   */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;

  /**
   * {@link list} without parsing: each item is the object's JSON text, byte for byte what
   * `JSON.stringify` writes for the object `list` returns. Lets a server answer a list in JSON
   * without building and serialising every object (a 100k-object list is then its text, not
   * its object graphs). Optional: callers fall back to `list`.
   * @throws StorageError as {@link list}.
   */
  listEncoded?(prefix: string, options?: EncodedListOptions): Promise<EncodedListResult>;

  /**
   * Read-modify-write with compare-and-swap on the key's last revision, retried on conflict until
   * it applies. A result equal to the current object (same JSON bytes) is not written and keeps
   * its revision (Kubernetes 1.23 behaviour).
   * @throws StorageError `KeyNotFound` (unless `ignoreNotFound`), `InvalidObj` (preconditions);
   *   whatever `tryUpdate` throws.
   */
  guaranteedUpdate(key: string, tryUpdate: UpdateFunc, options?: GuaranteedUpdateOptions): Promise<WriteResult>;

  /**
   * Deletes the object at `key` (compare-and-swap, retried on conflict).
   * @throws StorageError `KeyNotFound`, `InvalidObj` (preconditions); whatever
   *   `validateDeletion` throws.
   */
  delete(key: string, options?: DeleteOptions): Promise<DeleteResult>;

  /**
   * Watches one key, or with `recursive` every key under it; see {@link WatchOptions}.
   * @throws StorageError `ResourceVersionExpired`, `InvalidError`.
   */
  watch(key: string, options?: WatchOptions): Promise<Watcher>;

  /** The newest revision: that of the last write (0 for an empty SQLite or memory store; etcd starts at 1). */
  currentRevision(): Promise<Revision>;

  /**
   * Forgets history at and below `revision`: reads at older revisions and watches starting before
   * it fail with `ResourceVersionExpired` afterwards; the state at `revision` and later stays
   * readable. Compacting to a revision at or below the current horizon does nothing.
   * @returns the compaction horizon after the call.
   * @throws StorageError `TooLargeResourceVersion` if `revision` is newer than the current one.
   */
  compact(revision: Revision): Promise<Revision>;

  /** Number of live objects under `prefix` (a directory). */
  count(prefix: string): Promise<number>;

  /** Stops timers, ends every watcher, releases the backend. Later calls throw `Unreachable`. Idempotent. */
  close(): Promise<void>;
}
