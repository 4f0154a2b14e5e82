import type { Etcd3, IKeyValue, IWatchResponse, Watcher as EtcdWatch } from "etcd3";
import { StorageError } from "../errors.js";
import type { StoragePredicate, StoredObject, WatchChangeEvent, WatchEvent, Watcher } from "../types.js";
import { EventQueue } from "../internal/event-queue.js";
import { classifyEtcdError, unreachableError } from "./etcd-errors.js";

// gRPC status codes that clientv3 retries a watch stream on (isHaltErr).
const grpcInternal = 13;
const grpcUnavailable = 14;

/** What an {@link EtcdWatcher} needs from its storage. */
export interface EtcdWatcherInit {
  readonly client: Etcd3;
  /** The storage key watched (for errors). */
  readonly key: string;
  /** etcd key range: one key (`end` undefined) or `[start, end)`. */
  readonly start: Buffer;
  readonly end: Buffer | undefined;
  readonly predicate: StoragePredicate | undefined;
  /** Every change at or below it is accounted for; later ones are delivered. */
  readonly startRevision: number;
  /** Synthetic ADDED events delivered first (watch from "0"). */
  readonly initial: WatchChangeEvent[];
  readonly bufferSize: number;
  readonly bookmarkIntervalMs: number | undefined;
  readonly toStorageKey: (key: Buffer) => string;
  readonly decode: (kv: IKeyValue) => StoredObject;
  /** The known compaction horizon, for the Expired error. */
  readonly compactedRevision: () => Promise<number>;
  readonly onStop: (w: EtcdWatcher) => void;
}

/**
 * A storage watcher over one etcd watch (with previous values). Each etcd response is queued
 * whole (a catch-up response holds up to 1,000 revisions); when a response comes while
 * `bufferSize` events or more are still queued, the etcd watch is cancelled and re-created from
 * the last queued revision once the consumer has drained the queue, so a slow consumer loses
 * nothing unless compaction overtakes it (then an ERROR `ResourceVersionExpired`). (Pausing on a
 * single response over the buffer cancelled every catch-up batch, and etcd served each re-created
 * watch from its history again: a watch that fell behind stayed behind.) On a broken stream the etcd3
 * client reconnects; the resume revision is always set here from the last event (or progress
 * notification) received, never from a response header, so no event is skipped.
 */
export class EtcdWatcher implements Watcher {
  readonly #init: EtcdWatcherInit;
  #initial: WatchChangeEvent[];
  readonly #queue = new EventQueue<WatchEvent>();
  /** Newest revision every change of the range up to which has been queued. */
  #position: number;
  #etcd: EtcdWatch | undefined;
  #paused = false;
  #done = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(init: EtcdWatcherInit) {
    this.#init = init;
    this.#initial = [...init.initial];
    this.#position = init.startRevision;
    if (init.bookmarkIntervalMs !== undefined) {
      this.#timer = setInterval(() => this.#bookmark(), init.bookmarkIntervalMs);
      this.#timer.unref?.();
    }
  }

  /** Opens the etcd watch; rejects with `ResourceVersionExpired` when the start was compacted. */
  async start(): Promise<void> {
    await this.#connect();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<WatchEvent, undefined>> {
    for (;;) {
      if (this.#done) return { done: true, value: undefined };
      const initial = this.#takeInitial();
      if (initial !== undefined) return { done: false, value: initial };
      const event = this.#queue.take();
      if (event !== undefined) {
        if (event.type === "ERROR") this.stop();
        return { done: false, value: event };
      }
      if (this.#paused) {
        this.#paused = false;
        try {
          await this.#connect();
        } catch (error) {
          this.#queue.push({ type: "ERROR", error: error instanceof StorageError ? error : unreachableError(error, this.#init.key) });
        }
        continue;
      }
      await this.#queue.wait();
    }
  }

  async return(): Promise<IteratorResult<WatchEvent, undefined>> {
    this.stop();
    return { done: true, value: undefined };
  }

  stop(): void {
    if (this.#done) return;
    this.#done = true;
    this.#queue.clear();
    this.#initial = [];
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#cancelEtcd();
    this.#init.onStop(this);
    this.#queue.wake();
  }

  #takeInitial(): WatchEvent | undefined {
    while (this.#initial.length > 0) {
      const event = this.#initial.shift() as WatchChangeEvent;
      if (this.#init.predicate === undefined || this.#init.predicate(event.object)) return event;
    }
    return undefined;
  }

  #cancelEtcd(): void {
    const etcd = this.#etcd;
    this.#etcd = undefined;
    if (etcd === undefined) return;
    etcd.removeAllListeners("data");
    etcd.cancel().catch(() => {
      // The stream is gone already (client closed or disconnected): nothing to cancel.
    });
  }

  async #connect(): Promise<void> {
    const init = this.#init;
    const builder = init.client.watch().withPreviousKV().startRevision(String(this.#position + 1));
    if (init.end === undefined) builder.key(init.start);
    else builder.inRange({ start: init.start, end: init.end });
    const etcd = builder.watcher();
    this.#etcd = etcd;
    // The etcd3 client resumes a broken stream from the last response header + 1; a catch-up
    // response may carry a header beyond its events, so set the resume point ourselves (these
    // listeners run after the client's own).
    const setResume = (): void => {
      (etcd.request as { start_revision?: string | number }).start_revision = String(this.#position + 1);
    };
    etcd.on("connected", setResume);
    // The etcd3 client re-opens a failed watch stream whatever the error; clientv3 ends the watch
    // unless the error is transient (isHaltErr: gRPC Unavailable or Internal). A watch whose
    // catch-up etcd cannot send (a message over the size limit: ResourceExhausted) would otherwise
    // be re-opened from the same revision forever, delivering nothing, and with it every watch
    // sharing the client's stream. It ends with the error instead, so its consumer re-lists.
    etcd.on("disconnected", (error: unknown) => {
      if (this.#etcd !== etcd) return;
      const code = (error as { code?: unknown } | undefined)?.code;
      if (typeof code === "number" && code !== grpcUnavailable && code !== grpcInternal) this.#fail(error);
    });
    etcd.on("data", (res: IWatchResponse) => {
      if (this.#etcd !== etcd) return;
      this.#receive(res);
      setResume();
    });
    const connected = new Promise<void>((resolve, reject) => {
      let settled = false;
      etcd.once("connected", () => {
        settled = true;
        resolve();
      });
      etcd.on("error", (error: Error) => {
        if (!settled) {
          settled = true;
          reject(error);
          return;
        }
        if (this.#etcd !== etcd) return;
        this.#fail(error);
      });
    });
    try {
      await connected;
    } catch (error) {
      this.#etcd = undefined;
      throw await this.#mapError(error);
    }
  }

  async #mapError(error: unknown): Promise<StorageError> {
    if (classifyEtcdError(error) === "compacted") {
      const compactedRevision = await this.#init.compactedRevision().catch(() => 0);
      return new StorageError("ResourceVersionExpired", { key: this.#init.key, revision: this.#position, compactedRevision, cause: error });
    }
    return unreachableError(error, this.#init.key);
  }

  #fail(error: unknown): void {
    this.#cancelEtcd();
    void this.#mapError(error).then((mapped) => {
      if (this.#done) return;
      this.#queue.push({ type: "ERROR", error: mapped });
      this.#queue.wake();
    });
  }

  #receive(res: IWatchResponse): void {
    if (this.#done || this.#paused) return;
    const queuedBefore = this.#queue.size;
    const base = this.#position;
    let last = base;
    for (const ev of res.events) {
      const revision = Number(ev.kv.mod_revision);
      if (revision <= base) continue;
      last = Math.max(last, revision);
      const event = this.#toEvent(ev.type, ev.kv, ev.prev_kv, revision);
      if (event === undefined) continue;
      this.#queue.push(event);
      if (event.type === "ERROR") {
        this.#cancelEtcd();
        break;
      }
    }
    // A response without events is a progress notification: the range has no change up to its
    // header revision.
    if (res.events.length === 0 && !res.created && !res.canceled) last = Math.max(last, Number(res.header.revision));
    this.#position = last;
    if (queuedBefore >= this.#init.bufferSize) {
      this.#paused = true;
      this.#cancelEtcd();
    }
    this.#queue.wake();
  }

  /** Kubernetes' etcd3 watcher `transform` with predicate transitions. */
  #toEvent(type: string, kv: IKeyValue, prev: IKeyValue | undefined, revision: number): WatchEvent | undefined {
    const init = this.#init;
    const key = init.toStorageKey(kv.key);
    const p = init.predicate;
    try {
      if (type === "Delete") {
        if (prev === undefined) {
          return { type: "ERROR", error: new StorageError("Unreachable", { key, revision, detail: "etcd delete event without a previous value" }) };
        }
        const prevObject = init.decode(prev);
        if (p !== undefined && !p(prevObject)) return undefined;
        const object = init.decode({ ...prev, mod_revision: String(revision) });
        return { type: "DELETED", key, revision, object, prevObject };
      }
      const object = init.decode(kv);
      const created = kv.create_revision === kv.mod_revision || prev === undefined;
      if (created) return p === undefined || p(object) ? { type: "ADDED", key, revision, object } : undefined;
      const prevObject = init.decode(prev as IKeyValue);
      if (p === undefined) return { type: "MODIFIED", key, revision, object, prevObject };
      const now = p(object);
      const before = p(prevObject);
      if (now) return { type: before ? "MODIFIED" : "ADDED", key, revision, object, prevObject };
      return before ? { type: "DELETED", key, revision, object: init.decode({ ...(prev as IKeyValue), mod_revision: String(revision) }), prevObject } : undefined;
    } catch (error) {
      return { type: "ERROR", error: unreachableError(error, key) };
    }
  }

  #bookmark(): void {
    if (this.#done || this.#paused || this.#initial.length > 0) return;
    if (this.#queue.size > 0) return;
    this.#queue.push({ type: "BOOKMARK", revision: this.#position });
    this.#queue.wake();
  }
}
