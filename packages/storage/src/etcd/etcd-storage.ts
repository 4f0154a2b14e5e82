import { readFileSync } from "node:fs";
import { Etcd3, isRecoverableError } from "etcd3";
import type { IKeyValue, IOptions, IRangeRequest, IRangeResponse, ITxnResponse } from "etcd3";
import { StorageError, isStorageError } from "../errors.js";
import { decodeObject, encodeObject, encodedWithRevision } from "../internal/codec.js";
import { assertKey, directoryPrefix, prefixRange } from "../internal/keys.js";
import { parseRevisionOption, resolveListStart } from "../internal/revision.js";
import type {
  DeleteOptions,
  DeleteResult,
  GetOptions,
  GuaranteedUpdateOptions,
  ListContinue,
  EncodedListOptions,
  EncodedListResult,
  ListOptions,
  ListResult,
  Preconditions,
  ResourceVersionMatch,
  Revision,
  Storage,
  StoredObject,
  UpdateFunc,
  WatchChangeEvent,
  WatchOptions,
  Watcher,
  WriteResult,
} from "../types.js";
import { classifyEtcdError, unreachableError } from "./etcd-errors.js";
import { EtcdWatcher } from "./etcd-watcher.js";
import { etcdGrpcOptions } from "./grpc-options.js";
import { KnownStates, type KnownState } from "./known-states.js";

/**
 * Options of {@link openEtcdStorage}: the apiserver's `--etcd-*` flags.
 *
 * Key layout: storage keys start with `root` (the apiserver's `/registry`); in etcd the `root` is
 * replaced by `prefix`. With the defaults (`/registry` both) a job lives at
 * `/registry/jobs/<namespace>/<name>` in etcd, as with kube-apiserver.
 */
export interface EtcdStorageOptions {
  /** etcd client URLs (`http://127.0.0.1:2379`, `https://...`): `--etcd-servers`. At least one. */
  readonly servers: readonly string[];
  /** Key prefix in etcd: `--etcd-prefix`. A trailing `/` is dropped. @defaultValue "/registry" */
  readonly prefix?: string;
  /** Every storage key must equal it or start with it plus `/`. @defaultValue "/registry" */
  readonly root?: string;
  /** PEM CA bundle verifying the etcd servers: `--etcd-cafile`. */
  readonly caFile?: string;
  /** PEM client certificate: `--etcd-certfile` (with `keyFile`). */
  readonly certFile?: string;
  /** PEM client key: `--etcd-keyfile` (with `certFile`). */
  readonly keyFile?: string;
  /**
   * How often the compactor runs, in milliseconds; 0 disables it (`--etcd-compaction-interval`).
   * As kube-apiserver's compactor, each run compacts to the revision seen by the previous run, and
   * apiservers sharing the etcd take turns through the `compact_rev_key` key (one compaction
   * per interval in all).
   * @defaultValue 300000
   */
  readonly compactionIntervalMs?: number;
  /**
   * Events a watcher may have queued but not consumed when the next etcd response comes before its
   * etcd watch is paused (it then resumes from where it stopped once drained, missing nothing
   * unless compaction overtakes it). A response is always queued whole.
   * @defaultValue 1000
   */
  readonly watchBufferSize?: number;
  /**
   * Deadline of each unary etcd call, in milliseconds; also how long a write keeps re-sending (when
   * it never reached etcd) or reading its key back (when its outcome is unknown) before it answers
   * `Unreachable`. @defaultValue 10000
   */
  readonly requestTimeoutMs?: number;
  /** Connection timeout, in milliseconds. @defaultValue 5000 */
  readonly dialTimeoutMs?: number;
  /**
   * The largest gRPC message (bytes) the client takes from etcd, clientv3's `MaxCallRecvMsgSize`.
   * A watch whose catch-up response is larger ends with an Unreachable error. Outside
   * [1, 2^31 − 1]: InvalidError.
   * @defaultValue 2^31 − 1 (clientv3's default: any size)
   */
  readonly maxCallRecvMsgSize?: number;
  /**
   * Bytes of the last states this apiserver wrote or read of recently used keys (least recently
   * used out first). An update or delete of such a key starts from that state and is one etcd
   * transaction, as 1.23's etcd3 store with the cacher's `cachedExistingObject`; other keys are
   * read first. 0: every update and delete reads its key first. Counts values, keys and about 64
   * bytes per entry. Negative or not an integer: InvalidError.
   * @defaultValue 33554432 (32 MiB)
   */
  readonly knownStateBytes?: number;
}

/** What {@link EtcdStorage}'s compare-and-swap write found. */
type WriteAttempt = { readonly succeeded: true; readonly revision: number } | { readonly succeeded: false; readonly current: IKeyValue | undefined };

/** Attempts of a read that fails with a connection error (the etcd3 client's former default: 1 + 3 retries). */
const readAttempts = 4;
const readRetryDelayMs = 50;
const writeRetryDelayMs = 100;

/** A cockatiel policy that runs the call once: the etcd3 client then never re-sends a call by itself. */
const noRetryPolicy = {
  execute: async <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T, signal: AbortSignal = new AbortController().signal): Promise<T> => await fn({ signal }),
} as unknown as NonNullable<NonNullable<IOptions["faultHandling"]>["global"]>;

function isRecoverable(error: unknown): boolean {
  return typeof error === "object" && error !== null && isRecoverableError(error as Error);
}

/** Errors of a call that never left this process: no connection to etcd, or the host's circuit breaker open. */
function isNotSent(error: StorageError): boolean {
  return /No connection established|circuit breaker is open|failed to connect to all addresses/i.test(error.detail);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A write whose outcome could not be established: kube-apiserver answers storage `Unreachable` with a 500 `ServerTimeout`. */
function outcomeUnknown(key: string, cause: unknown, readError?: unknown): StorageError {
  const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
  const detail = `the outcome of the write is unknown: ${why(cause)}${readError === undefined ? "" : `; reading the key back failed: ${why(readError)}`}`;
  return new StorageError("Unreachable", { key, detail, cause });
}

/** The key kube-apiserver's compactors coordinate on (outside any prefix: compaction is global). */
const compactRevKey = Buffer.from("compact_rev_key");
const defaultCompactionIntervalMs = 300_000;
const defaultBookmarkIntervalMs = 60_000;
const defaultKnownStateBytes = 32 * 1024 * 1024;

/** A key-value's state. */
function stateOf(kv: IKeyValue): KnownState {
  return { text: kv.value.toString("utf8"), revision: Number(kv.mod_revision) };
}

interface ReadPoint {
  /** 0 = latest (then `atLeast` must hold). */
  readonly revision: number;
  readonly atLeast: number;
}

/**
 * The etcd v3 backend (through the `etcd3` client). resourceVersions are etcd revisions: an
 * object's is its mod revision, a list's the header revision it was read at. Writes are
 * transactions comparing the key's mod revision (create: it must be 0), retried on conflict; reads
 * at a revision use etcd's MVCC; watches are etcd watches with previous values; compaction is
 * etcd compaction, so several apiservers may share one etcd (and one prefix): every one of them
 * sees every write through its watches, and compare-and-swap holds across them.
 *
 * A write is answered with what happened: the client never re-sends a transaction by itself; a
 * write whose outcome is unknown (the connection broke after it was sent) is resolved by reading
 * the key back, else answered `Unreachable` ("the outcome of the write is unknown"), never
 * `KeyExists` or `Conflict` (see `#write`). Reads are retried on connection errors.
 *
 * Connection failures are `Unreachable`; reads and watches below etcd's compaction horizon are
 * `ResourceVersionExpired`. BOOKMARK events carry the newest revision the watch stream has proven
 * (its last event, or an etcd progress notification — etcd sends those every
 * `--experimental-watch-progress-notify-interval`, 10 minutes by default).
 *
 * Open with {@link openEtcdStorage}.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/watcher.go
 * @see staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go
 */
export class EtcdStorage implements Storage {
  /** The etcd key prefix in use (no trailing `/`). */
  readonly prefix: string;
  readonly #root: string;
  readonly #client: Etcd3;
  readonly #bufferSize: number;
  readonly #requestTimeoutMs: number;
  readonly #watchers = new Set<EtcdWatcher>();
  readonly #known: KnownStates;
  #closed = false;
  #compacted = 0;
  #compactionTimer: ReturnType<typeof setInterval> | undefined;

  private constructor(client: Etcd3, prefix: string, root: string, options: EtcdStorageOptions) {
    this.#client = client;
    this.prefix = prefix;
    this.#root = root;
    this.#bufferSize = options.watchBufferSize ?? 1000;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.#known = new KnownStates(options.knownStateBytes ?? defaultKnownStateBytes);
    const intervalMs = options.compactionIntervalMs ?? defaultCompactionIntervalMs;
    if (intervalMs > 0) {
      let version = 0;
      let lastRevision = 0;
      let running = false;
      this.#compactionTimer = setInterval(() => {
        if (this.#closed || running) return;
        running = true;
        this.#compactTurn(version, lastRevision)
          .then(([v, r]) => {
            version = v;
            lastRevision = r;
          })
          .catch(() => {
            // The next run retries.
          })
          .finally(() => {
            running = false;
          });
      }, intervalMs);
      this.#compactionTimer.unref?.();
    }
  }

  /** @internal Use {@link openEtcdStorage}. */
  static async open(options: EtcdStorageOptions): Promise<EtcdStorage> {
    const servers = [...(options.servers ?? [])];
    if (servers.length === 0) throw new StorageError("InvalidError", { detail: "etcd storage needs at least one server URL" });
    for (const s of servers) {
      if (!/^https?:\/\/[^/\s]+\/?$/.test(s)) throw new StorageError("InvalidError", { detail: `invalid etcd server URL ${JSON.stringify(s)} (want http(s)://host:port)` });
    }
    const prefix = trimSlash(options.prefix ?? "/registry");
    const root = trimSlash(options.root ?? "/registry");
    if (prefix !== "" && !prefix.startsWith("/")) throw new StorageError("InvalidError", { detail: `etcd prefix ${JSON.stringify(prefix)} must start with "/"` });
    const intervalMs = options.compactionIntervalMs ?? defaultCompactionIntervalMs;
    if (!Number.isFinite(intervalMs) || intervalMs < 0) throw new StorageError("InvalidError", { detail: `compactionIntervalMs must be >= 0, got ${intervalMs}` });
    const buffer = options.watchBufferSize ?? 1000;
    if (!Number.isSafeInteger(buffer) || buffer <= 0) throw new StorageError("InvalidError", { detail: `watchBufferSize must be a positive integer, got ${buffer}` });
    const maxRecv = options.maxCallRecvMsgSize ?? 2 ** 31 - 1;
    if (!Number.isSafeInteger(maxRecv) || maxRecv <= 0 || maxRecv > 2 ** 31 - 1) throw new StorageError("InvalidError", { detail: `maxCallRecvMsgSize must be an integer in [1, 2147483647] bytes, got ${maxRecv}` });
    const knownBytes = options.knownStateBytes ?? defaultKnownStateBytes;
    if (!Number.isSafeInteger(knownBytes) || knownBytes < 0) throw new StorageError("InvalidError", { detail: `knownStateBytes must be an integer >= 0, got ${knownBytes}` });
    if ((options.certFile === undefined) !== (options.keyFile === undefined)) {
      throw new StorageError("InvalidError", { detail: "the etcd client certificate and key must be given together" });
    }
    const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    const clientOptions: IOptions = {
      hosts: servers,
      dialTimeout: options.dialTimeoutMs ?? 5_000,
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
      // The client's default global policy re-sends any call that failed with a connection error
      // (up to 3 times), transactions included: a write that landed before the connection broke was
      // sent again, failed its compare and was answered 409 Conflict / AlreadyExists. Reads are
      // retried here (#range), writes resolved by reading back (#write). The per-host circuit
      // breaker stays (it only skips hosts, it never re-sends).
      faultHandling: { global: noRetryPolicy },
      // clientv3's message size limit and flow-control window (see etcdGrpcOptions).
      grpcOptions: etcdGrpcOptions(maxRecv),
    };
    try {
      if (options.caFile !== undefined || options.certFile !== undefined) {
        const credentials: { rootCertificate: Buffer; privateKey?: Buffer; certChain?: Buffer } = {
          // null: the system's root certificates (grpc-js), when only a client certificate is given.
          rootCertificate: options.caFile === undefined ? (null as unknown as Buffer) : readFileSync(options.caFile),
        };
        if (options.certFile !== undefined) credentials.certChain = readFileSync(options.certFile);
        if (options.keyFile !== undefined) credentials.privateKey = readFileSync(options.keyFile);
        clientOptions.credentials = credentials;
      }
    } catch (cause) {
      throw new StorageError("InvalidError", { detail: `cannot read etcd TLS files: ${(cause as Error).message}`, cause });
    }
    const client = new Etcd3(clientOptions);
    const storage = new EtcdStorage(client, prefix, root, options);
    try {
      await storage.currentRevision();
    } catch (error) {
      await storage.close();
      throw new StorageError("Unreachable", { detail: `cannot reach etcd at ${servers.join(",")}: ${(error as Error).message}`, cause: error });
    }
    return storage;
  }

  async create(key: string, object: StoredObject): Promise<WriteResult> {
    const ekey = this.#etcdKey(key);
    const value = encodeObject(key, object, true);
    const res = await this.#write(key, ekey, 0, Buffer.from(value));
    if (!res.succeeded) {
      this.#observed(key, res.current);
      throw new StorageError("KeyExists", { key });
    }
    this.#known.remember(key, { text: value, revision: res.revision });
    return { object: decodeObject(value, res.revision), revision: res.revision };
  }

  get(key: string, options?: GetOptions & { readonly ignoreNotFound?: false }): Promise<StoredObject>;
  get(key: string, options: GetOptions): Promise<StoredObject | null>;
  async get(key: string, options: GetOptions = {}): Promise<StoredObject | null> {
    const ekey = this.#etcdKey(key);
    const point = this.#readPoint(key, options.resourceVersion, options.resourceVersionMatch, false);
    const res = await this.#range(key, { key: ekey }, point);
    const kv = res.kvs[0];
    // A read of the latest value is remembered for the next update or delete of the key.
    const state = point.revision === 0 ? this.#observed(key, kv) : undefined;
    if (kv === undefined) {
      if (options.ignoreNotFound === true) return null;
      throw new StorageError("KeyNotFound", { key });
    }
    return state === undefined ? this.#decode(kv) : this.#decodeState(key, state);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const predicate = options.predicate;
    return this.#list(prefix, options, (kv) => {
      const object = this.#decode(kv);
      return predicate === undefined || predicate(object) ? object : undefined;
    }, predicate !== undefined);
  }

  async listEncoded(prefix: string, options: EncodedListOptions = {}): Promise<EncodedListResult> {
    return this.#list(prefix, options, (kv) => this.#encoded(kv), false);
  }

  // One page of a list: `item` turns a key-value into what the page holds (undefined: filtered out).
  async #list<T>(prefix: string, options: EncodedListOptions, item: (kv: IKeyValue) => T | undefined, filtered: boolean): Promise<{ items: T[]; revision: number; continue?: ListContinue; remainingItemCount?: number }> {
    this.#open();
    const range = prefixRange(directoryPrefix(prefix));
    this.#etcdKey(range.start.slice(0, -1) || range.start);
    const { limit, start, continueRevision } = resolveListStart(prefix, range, options);
    const point: ReadPoint =
      continueRevision !== undefined ? this.#exact(prefix, continueRevision) : this.#readPoint(prefix, options.resourceVersion, options.resourceVersionMatch, limit > 0);
    const end = this.#mapKey(range.end);
    const items: T[] = [];
    const batch = limit === 0 ? 0 : !filtered ? limit + 1 : Math.max(limit, 128);
    let cursor = start;
    let lastKey: string | undefined;
    let more = false;
    let remaining: number | undefined;
    let revision = point.revision;
    for (;;) {
      const res = await this.#range(prefix, { key: this.#mapKey(cursor), range_end: end, limit: batch }, { revision, atLeast: point.atLeast });
      if (revision === 0) revision = Number(res.header.revision);
      for (const kv of res.kvs) {
        if (limit > 0 && items.length >= limit) {
          more = true;
          break;
        }
        lastKey = this.#storageKey(kv.key);
        const it = item(kv);
        if (it !== undefined) items.push(it);
      }
      if (more && !filtered) remaining = Number(res.count) - limit;
      if (more || batch === 0 || res.kvs.length < batch || lastKey === undefined) break;
      cursor = `${lastKey}\u0000`;
    }
    if (!more || lastKey === undefined) return { items, revision };
    const next: ListContinue = { startKey: `${lastKey}\u0000`, revision };
    if (remaining === undefined) return { items, revision, continue: next };
    return { items, revision, continue: next, remainingItemCount: remaining };
  }

  /**
   * As 1.23's etcd3 store `GuaranteedUpdate` handed the cacher's `cachedExistingObject`: starts
   * from the key's known state when there is one (see {@link KnownStates}), else reads it. On
   * possibly stale data (not read in this call), a failed precondition or an error of `tryUpdate`
   * reads the key and tries again, unless the key's revision has not moved (then that error is
   * thrown); an update that changes nothing reads the key before answering that nothing changed;
   * a failed compare answers the current value. So `tryUpdate` may run once more than before.
   */
  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, options: GuaranteedUpdateOptions = {}): Promise<WriteResult> {
    const ekey = this.#etcdKey(key);
    let current = this.#known.get(key);
    let isCurrent = current === undefined;
    if (isCurrent) current = await this.#readState(key, ekey);
    for (;;) {
      if (current === undefined && options.ignoreNotFound !== true) throw new StorageError("KeyNotFound", { key });
      const expected = current?.revision ?? 0;
      let updated: StoredObject;
      try {
        const input: StoredObject = current === undefined ? {} : this.#decodeState(key, current);
        if (options.preconditions !== undefined) checkPreconditions(key, options.preconditions, input);
        updated = await tryUpdate(input, { revision: expected });
      } catch (error) {
        if (isCurrent) throw error;
        current = await this.#readState(key, ekey);
        isCurrent = true;
        // The known state was current after all: the error stands.
        if ((current?.revision ?? 0) === expected) throw error;
        continue;
      }
      const text = encodeObject(key, updated, false);
      if (current !== undefined && text === current.text) {
        if (!isCurrent) {
          // No change on a known state: the key's current value decides (1.23 reads it too).
          current = await this.#readState(key, ekey);
          isCurrent = true;
          if (current === undefined || text !== current.text) continue;
        }
        // No change: not written, keeps its revision (Kubernetes 1.23).
        return { object: this.#decodeState(key, current), revision: current.revision };
      }
      const res = await this.#write(key, ekey, expected, Buffer.from(text));
      if (res.succeeded) {
        this.#known.remember(key, { text, revision: res.revision });
        return { object: decodeObject(text, res.revision), revision: res.revision };
      }
      current = this.#observed(key, res.current);
      isCurrent = true;
    }
  }

  /**
   * As 1.23's etcd3 store `conditionalDelete` handed the cacher's `cachedExistingObject`: starts
   * from the key's known state when there is one, else reads it; on possibly stale data a failed
   * precondition or `validateDeletion` reads the key and tries again unless its revision has not
   * moved; a failed compare answers the current value.
   */
  async delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    const ekey = this.#etcdKey(key);
    let current = this.#known.get(key);
    let isCurrent = current === undefined;
    if (isCurrent) current = await this.#readState(key, ekey);
    for (;;) {
      if (current === undefined) throw new StorageError("KeyNotFound", { key });
      try {
        if (options.preconditions !== undefined) checkPreconditions(key, options.preconditions, this.#decodeState(key, current));
        if (options.validateDeletion !== undefined) await options.validateDeletion(this.#decodeState(key, current));
      } catch (error) {
        if (isCurrent) throw error;
        const stale = current.revision;
        current = await this.#readState(key, ekey);
        isCurrent = true;
        if (current !== undefined && current.revision === stale) throw error;
        continue;
      }
      const res = await this.#write(key, ekey, current.revision, null);
      if (res.succeeded) {
        this.#known.forget(key);
        // The compare held: the known state was the stored value.
        return { object: this.#decodeState(key, current), revision: res.revision };
      }
      current = this.#observed(key, res.current);
      isCurrent = true;
    }
  }

  async watch(key: string, options: WatchOptions = {}): Promise<Watcher> {
    this.#open();
    const recursive = options.recursive === true;
    let start: Buffer;
    let end: Buffer | undefined;
    if (recursive) {
      const range = prefixRange(directoryPrefix(key));
      this.#etcdKey(range.start.slice(0, -1) || range.start);
      start = this.#mapKey(range.start);
      end = this.#mapKey(range.end);
    } else {
      start = this.#etcdKey(key);
    }
    const from = parseRevisionOption(options.resourceVersion, key);
    let bookmarkIntervalMs: number | undefined;
    if (options.allowBookmarks === true) {
      bookmarkIntervalMs = options.bookmarkIntervalMs ?? defaultBookmarkIntervalMs;
      if (!Number.isFinite(bookmarkIntervalMs) || bookmarkIntervalMs <= 0) {
        throw new StorageError("InvalidError", { key, detail: `invalid bookmarkIntervalMs: ${bookmarkIntervalMs}` });
      }
    }
    let initial: WatchChangeEvent[] = [];
    let startRevision: number;
    if (from === undefined || from === 0) {
      const req: IRangeRequest = end === undefined ? { key: start } : { key: start, range_end: end };
      const res = await this.#range(key, req, { revision: 0, atLeast: 0 });
      startRevision = Number(res.header.revision);
      initial = res.kvs.map((kv) => ({ type: "ADDED", key: this.#storageKey(kv.key), revision: Number(kv.mod_revision), object: this.#decode(kv) }));
    } else {
      if (from < this.#compacted) {
        throw new StorageError("ResourceVersionExpired", { key, revision: from, compactedRevision: this.#compacted });
      }
      startRevision = from;
    }
    const watcher = new EtcdWatcher({
      client: this.#client,
      key,
      start,
      end,
      predicate: options.predicate,
      startRevision,
      initial,
      bufferSize: this.#bufferSize,
      bookmarkIntervalMs,
      toStorageKey: (k) => this.#storageKey(k),
      decode: (kv) => this.#decode(kv),
      compactedRevision: () => this.#discoverHorizon(),
      onStop: (w) => this.#watchers.delete(w),
    });
    this.#watchers.add(watcher);
    try {
      await watcher.start();
    } catch (error) {
      watcher.stop();
      throw error;
    }
    if (this.#closed) watcher.stop();
    return watcher;
  }

  async currentRevision(): Promise<Revision> {
    const res = await this.#range("", { key: Buffer.from(this.prefix || "/"), count_only: true }, { revision: 0, atLeast: 0 });
    return Number(res.header.revision);
  }

  async compact(revision: Revision): Promise<Revision> {
    this.#open();
    if (!Number.isSafeInteger(revision) || revision < 0) {
      throw new StorageError("InvalidError", { detail: `invalid compaction revision: ${revision}` });
    }
    const current = await this.currentRevision();
    if (revision > current) throw new StorageError("TooLargeResourceVersion", { revision, currentRevision: current, retryAfterSeconds: 1 });
    if (revision <= this.#compacted) return this.#compacted;
    try {
      await this.#client.kv.compact({ revision, physical: false } as unknown as Parameters<Etcd3["kv"]["compact"]>[0]);
      this.#compacted = Math.max(this.#compacted, revision);
    } catch (error) {
      if (classifyEtcdError(error) !== "compacted") throw this.#wrap(error, "");
      await this.#discoverHorizon();
    }
    return this.#compacted;
  }

  async count(prefix: string): Promise<number> {
    const range = prefixRange(directoryPrefix(prefix));
    this.#etcdKey(range.start.slice(0, -1) || range.start);
    const res = await this.#range(prefix, { key: this.#mapKey(range.start), range_end: this.#mapKey(range.end), count_only: true }, { revision: 0, atLeast: 0 });
    return Number(res.count);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#compactionTimer !== undefined) clearInterval(this.#compactionTimer);
    for (const w of [...this.#watchers]) w.stop();
    // Let watch cancellations reach the stream before it closes.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#client.close();
  }

  #open(): void {
    if (this.#closed) throw new StorageError("Unreachable", { detail: "storage is closed" });
  }

  /** Maps a storage key (validated) to its etcd key. */
  #etcdKey(key: string): Buffer {
    this.#open();
    assertKey(key);
    if (key !== this.#root && !key.startsWith(`${this.#root}/`)) {
      throw new StorageError("InvalidError", { key, detail: `storage key ${JSON.stringify(key)} is not under ${JSON.stringify(this.#root)}` });
    }
    return this.#mapKey(key);
  }

  #mapKey(key: string): Buffer {
    return Buffer.from(this.prefix + key.slice(this.#root.length), "utf8");
  }

  #storageKey(key: Buffer): string {
    return this.#root + key.toString("utf8").slice(this.prefix.length);
  }

  #encoded(kv: IKeyValue): string {
    return this.#read(kv.key, kv.value.toString("utf8"), Number(kv.mod_revision), encodedWithRevision);
  }

  #decode(kv: IKeyValue): StoredObject {
    return this.#read(kv.key, kv.value.toString("utf8"), Number(kv.mod_revision), decodeObject);
  }

  #decodeState(key: string, state: KnownState): StoredObject {
    return this.#read(key, state.text, state.revision, decodeObject);
  }

  /** The key's current state, read from etcd (and remembered); undefined when it is absent. */
  async #readState(key: string, ekey: Buffer): Promise<KnownState | undefined> {
    return this.#observed(key, (await this.#range(key, { key: ekey }, { revision: 0, atLeast: 0 })).kvs[0]);
  }

  /** Remembers what etcd answered of `key` (undefined: absent) and returns it as a state. */
  #observed(key: string, kv: IKeyValue | undefined): KnownState | undefined {
    if (kv === undefined) {
      this.#known.forget(key);
      return undefined;
    }
    const state = stateOf(kv);
    this.#known.remember(key, state);
    return state;
  }

  // The value stored at `at` (a storage key, or etcd's key, named only on failure) through `read`;
  // a value that is not our JSON is InvalidObj naming its key.
  #read<T>(at: string | Buffer, value: string, revision: number, read: (value: string, revision: number) => T): T {
    try {
      return read(value, revision);
    } catch (cause) {
      const key = typeof at === "string" ? at : this.#storageKey(at);
      throw new StorageError("InvalidObj", { key, detail: `cannot decode the value stored at ${key}: ${(cause as Error).message}`, cause });
    }
  }

  async #range(key: string, req: IRangeRequest, point: ReadPoint): Promise<IRangeResponse> {
    this.#open();
    let res: IRangeResponse;
    try {
      res = await this.#retryRead(() => this.#client.kv.range(point.revision > 0 ? { ...req, revision: point.revision } : req));
    } catch (error) {
      const kind = classifyEtcdError(error);
      if (kind === "compacted") {
        const compactedRevision = await this.#discoverHorizon().catch(() => this.#compacted);
        throw new StorageError("ResourceVersionExpired", { key, revision: point.revision, compactedRevision, cause: error });
      }
      if (kind === "future") {
        const current = await this.currentRevision();
        throw new StorageError("TooLargeResourceVersion", { key, revision: point.revision, currentRevision: current, retryAfterSeconds: 1 });
      }
      throw this.#wrap(error, key);
    }
    const current = Number(res.header.revision);
    if (point.atLeast > current) {
      throw new StorageError("TooLargeResourceVersion", { key, revision: point.atLeast, currentRevision: current, retryAfterSeconds: 1 });
    }
    return res;
  }

  /** A read, re-sent on connection failures (safe: it changes nothing), as the client's default policy did. */
  async #retryRead<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (error) {
        if (attempt >= readAttempts || this.#closed || !isRecoverable(error)) throw error;
        await sleep(readRetryDelayMs * attempt);
      }
    }
  }

  /**
   * One compare-and-swap write of one key: put `value` (null: delete the key) if the key's mod
   * revision is still `expected` (0: the key is absent). Answers what happened, never a guess:
   *
   * - succeeded, with the write's revision;
   * - not succeeded, with the key's current value, when another writer changed the key first;
   * - StorageError `Unreachable` ("the outcome of the write is unknown") when it cannot tell.
   *
   * The call is never re-sent blindly: when it fails (a connection cut, a deadline, an etcd error),
   * it may or may not have been applied, so the key is read back. Our value stored at a newer
   * revision (for a delete: the key gone) means it landed: success with that revision. The key
   * still at `expected` means it did not land (yet): the transaction is sent again, which is safe
   * because its compare lets at most one of the attempts apply. Anything else, or no answer from
   * etcd before the deadline (`requestTimeoutMs` after the first attempt), is `Unreachable`, as is a
   * later compare failure that is not explained by our own earlier attempt.
   * A create whose key is found absent is sent again too: it did not land, or it landed and was
   * deleted since (then the object is created again, as a client retrying would).
   */
  async #write(key: string, ekey: Buffer, expected: number, value: Buffer | null): Promise<WriteAttempt> {
    const deadline = Date.now() + this.#requestTimeoutMs;
    // The error of an attempt that may have reached etcd; of the last one that surely did not.
    let unknown: unknown;
    let notSent: unknown;
    for (let attempt = 1; ; attempt++) {
      let res: ITxnResponse | undefined;
      try {
        res = await this.#txn(key, {
          compare: [{ key: ekey, target: "Mod", result: "Equal", mod_revision: expected }],
          success: [value === null ? { request_delete_range: { key: ekey } } : { request_put: { key: ekey, value } }],
          failure: [{ request_range: { key: ekey } }],
        });
      } catch (error) {
        if (this.#closed || !isStorageError(error, "Unreachable")) throw error;
        if (isNotSent(error)) notSent = error;
        else unknown = error;
      }
      let current: IKeyValue | undefined;
      let revision: number;
      if (res !== undefined) {
        if (res.succeeded) return { succeeded: true, revision: Number(res.header.revision) };
        current = res.responses[0]?.response_range.kvs[0];
        revision = Number(res.header.revision);
        // The key changed and no attempt of ours may have done it: another writer's change.
        if (unknown === undefined) return { succeeded: false, current };
      } else if (unknown === undefined) {
        // No attempt reached etcd: nothing to resolve, send it again until the deadline.
        if (Date.now() >= deadline || this.#closed) throw notSent as StorageError;
        await sleep(Math.min(writeRetryDelayMs * attempt, 1_000));
        continue;
      } else {
        // What the key shows, read back until the deadline.
        for (;;) {
          try {
            const read = await this.#range(key, { key: ekey }, { revision: 0, atLeast: 0 });
            current = read.kvs[0];
            revision = Number(read.header.revision);
            break;
          } catch (error) {
            if (Date.now() >= deadline || this.#closed) throw outcomeUnknown(key, unknown, error);
            await sleep(writeRetryDelayMs);
          }
        }
      }
      // Some attempt's outcome is unknown: our value at a newer revision (a delete: no key) is ours.
      if (value === null ? current === undefined : current !== undefined && Number(current.mod_revision) > expected && current.value.equals(value)) {
        return { succeeded: true, revision: current === undefined ? revision : Number(current.mod_revision) };
      }
      const unchanged = expected === 0 ? current === undefined : current !== undefined && Number(current.mod_revision) === expected;
      if (!unchanged || Date.now() >= deadline || this.#closed) throw outcomeUnknown(key, unknown);
      await sleep(Math.min(writeRetryDelayMs * attempt, 1_000));
    }
  }

  async #txn(key: string, req: Parameters<Etcd3["kv"]["txn"]>[0]): Promise<ITxnResponse> {
    this.#open();
    try {
      return await this.#client.kv.txn(req);
    } catch (error) {
      throw this.#wrap(error, key);
    }
  }

  #wrap(error: unknown, key: string): StorageError {
    if (this.#closed) return new StorageError("Unreachable", { key, detail: "storage is closed", cause: error });
    return unreachableError(error, key);
  }

  /** etcd 3.4 reports the compaction horizon through HashKV; used only when a call hits it. */
  async #discoverHorizon(): Promise<number> {
    const res = await this.#retryRead(() => this.#client.maintenance.hashKV({ revision: 0 }));
    this.#compacted = Math.max(this.#compacted, Number(res.compact_revision));
    return this.#compacted;
  }

  /**
   * One compactor turn (kube-apiserver's `compact`): bump `compact_rev_key` if its version is
   * still the one this compactor saw last time; the winner compacts to the revision it saw at its
   * previous turn. Returns the version and current revision for the next turn.
   */
  async #compactTurn(version: number, lastRevision: number): Promise<[number, number]> {
    const res = await this.#txn("", {
      compare: [{ key: compactRevKey, target: "Version", result: "Equal", version }],
      success: [{ request_put: { key: compactRevKey, value: compactRevKey } }],
      failure: [{ request_range: { key: compactRevKey } }],
    });
    const current = Number(res.header.revision);
    if (!res.succeeded) {
      const kv = res.responses[0]?.response_range.kvs[0];
      return [kv === undefined ? 0 : Number(kv.version), current];
    }
    if (lastRevision > 0 && lastRevision > this.#compacted) await this.compact(lastRevision);
    return [version + 1, current];
  }

  #exact(key: string, revision: number): ReadPoint {
    if (revision < this.#compacted) {
      throw new StorageError("ResourceVersionExpired", { key, revision, compactedRevision: this.#compacted });
    }
    return { revision, atLeast: 0 };
  }

  /** Kubernetes 1.23 resourceVersion/resourceVersionMatch semantics (etcd3 store Get and List). */
  #readPoint(key: string, rv: string | number | undefined, match: ResourceVersionMatch | undefined, exactWhenUnmatched: boolean): ReadPoint {
    const revision = parseRevisionOption(rv, key);
    switch (match) {
      case "Exact":
        if (revision === undefined || revision === 0) {
          throw new StorageError("InvalidError", { key, detail: `resourceVersionMatch "Exact" needs a non-zero resourceVersion` });
        }
        return this.#exact(key, revision);
      case "NotOlderThan":
        return { revision: 0, atLeast: revision ?? 0 };
      case undefined:
        if (revision === undefined || revision === 0) return { revision: 0, atLeast: 0 };
        return exactWhenUnmatched ? this.#exact(key, revision) : { revision: 0, atLeast: revision };
      default:
        throw new StorageError("InvalidError", { key, detail: `unknown resourceVersionMatch ${JSON.stringify(match)}` });
    }
  }
}

/**
 * Connects to etcd and returns the storage; fails fast when no server answers.
 *
 * @throws StorageError `InvalidError` for bad options or unreadable TLS files; `Unreachable` when
 *   no etcd server answers within the dial/request timeouts.
 * @example
 * const storage = await openEtcdStorage({ servers: ["http://127.0.0.1:2379"], prefix: "/registry" });
 * try {
 *   await storage.create("/registry/jobs/default/pi", job);
 * } finally {
 *   await storage.close();
 * }
 */
export async function openEtcdStorage(options: EtcdStorageOptions): Promise<EtcdStorage> {
  return EtcdStorage.open(options);
}

function trimSlash(value: string): string {
  return value.replace(/\/+$/, "");
}

/** @see staging/src/k8s.io/apiserver/pkg/storage/interfaces.go `Preconditions.Check` */
function checkPreconditions(key: string, preconditions: Preconditions, object: StoredObject): void {
  const uid = typeof object.metadata?.uid === "string" ? object.metadata.uid : "";
  if (preconditions.uid !== undefined && preconditions.uid !== uid) {
    throw new StorageError("InvalidObj", { key, detail: `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${uid}` });
  }
  const rv = object.metadata?.resourceVersion ?? "";
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== rv) {
    throw new StorageError("InvalidObj", {
      key,
      detail: `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${rv}`,
    });
  }
}
