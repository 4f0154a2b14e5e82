import { StorageError } from "../errors.js";
import type { StoredObject, StoragePredicate, WatchEvent, Watcher } from "../types.js";
import { decodeObject } from "./codec.js";
import { EventQueue } from "./event-queue.js";
import type { ChangeRow, Entry, MvccEngine } from "./engine.js";
import type { KeyRange } from "./keys.js";
import { inRange } from "./keys.js";

/**
 * A committed change shared by every watcher it is dispatched to. The parsed copies exist only
 * for predicates (which must not mutate them); consumers get their own copies.
 */
export class SharedChange {
  #object: StoredObject | undefined;
  #prev: StoredObject | undefined;
  #deleted: StoredObject | undefined;
  constructor(readonly row: ChangeRow) {}
  object(): StoredObject {
    return (this.#object ??= decodeObject(this.row.value as string, this.row.revision));
  }
  prev(): StoredObject {
    return (this.#prev ??= decodeObject(this.row.prevValue as string, this.row.prevRevision));
  }
  /** The object of a DELETED event: the last state, at the deletion's revision. */
  deleted(): StoredObject {
    return (this.#deleted ??= decodeObject(this.row.prevValue as string, this.row.revision));
  }
}

type ChangeType = "ADDED" | "MODIFIED" | "DELETED";
type Item =
  | { readonly kind: "change"; readonly type: ChangeType; readonly change: SharedChange }
  | { readonly kind: "bookmark"; readonly revision: number };

const catchUpPageSize = 256;
const initialPageSize = 256;

export interface WatcherInit {
  readonly engine: MvccEngine;
  readonly range: KeyRange;
  readonly predicate: StoragePredicate | undefined;
  /** Every change at or below it is already accounted for; later ones are to be delivered. */
  readonly startRevision: number;
  /** Synthetic ADDED events delivered first (watch from "0"). */
  readonly initial: Entry[];
  /**
   * Synthetic ADDED events for every key in this range at `startRevision`, after `initial`, read
   * a page at a time as the watcher is consumed (so a watcher holds a page, not the whole state).
   */
  readonly initialRange?: KeyRange;
  readonly bufferSize: number;
  readonly bookmarkIntervalMs: number | undefined;
  /** Hand out the change's shared parsed objects (the consumer only reads them). */
  readonly sharedObjects: boolean;
  readonly onStop: (w: LogWatcher) => void;
}

/**
 * A watcher over a backend with a durable log. While it keeps up it is "live": each commit is
 * pushed into its bounded queue. When it starts behind, or its queue overflows, it is
 * "catching up": it reads the log itself from the last revision it handed out, a page at a time,
 * and becomes live again once it has read up to the current revision. Everything is synchronous
 * between awaits, so no change can fall between the last log read and the switch to live.
 */
export class LogWatcher implements Watcher {
  readonly #engine: MvccEngine;
  readonly #range: KeyRange;
  readonly #predicate: StoragePredicate | undefined;
  readonly #bufferSize: number;
  readonly #sharedObjects: boolean;
  readonly #onStop: (w: LogWatcher) => void;
  #initial: Entry[];
  #initialIndex = 0;
  /** Where the next page of the initial state starts, while there is one. */
  #initialCursor: string | undefined;
  readonly #initialEnd: string;
  readonly #initialRevision: number;
  // The queue clears taken slots, so a taken change, and the objects parsed for it, can go
  // before the array is compacted: a watcher catching up reads its own copies of the log.
  readonly #queue = new EventQueue<Item>();
  #live: boolean;
  /** live: newest revision seen by {@link notify}; catching up: newest revision read from the log. */
  #position: number;
  /** Revision of the last change handed to the consumer (or the start revision). */
  #delivered: number;
  #done = false;
  #pendingError: StorageError | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(init: WatcherInit) {
    this.#engine = init.engine;
    this.#range = init.range;
    this.#predicate = init.predicate;
    this.#bufferSize = init.bufferSize;
    this.#sharedObjects = init.sharedObjects;
    this.#onStop = init.onStop;
    this.#initial = init.initial;
    this.#initialCursor = init.initialRange?.start;
    this.#initialEnd = init.initialRange?.end ?? "";
    this.#initialRevision = init.startRevision;
    this.#position = init.startRevision;
    this.#delivered = init.startRevision;
    this.#live = init.startRevision >= init.engine.currentRevision;
    if (init.bookmarkIntervalMs !== undefined) {
      this.#timer = setInterval(() => this.#bookmark(), init.bookmarkIntervalMs);
      this.#timer.unref?.();
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Called synchronously after every commit, in revision order. */
  notify(change: SharedChange): void {
    if (this.#done || !this.#live) return;
    const row = change.row;
    if (row.revision <= this.#position) return;
    this.#position = row.revision;
    if (!inRange(row.key, this.#range)) return;
    const type = this.#classify(change);
    if (type === undefined) return;
    if (this.#queue.size >= this.#bufferSize) {
      // Too far behind: drop the queue and re-read the log from what was handed out.
      this.#queue.clear();
      this.#live = false;
      this.#position = this.#delivered;
    } else {
      this.#queue.push({ kind: "change", type, change });
    }
    this.#queue.wake();
  }

  async next(): Promise<IteratorResult<WatchEvent, undefined>> {
    for (;;) {
      if (this.#done) return { done: true, value: undefined };
      const event = this.#take();
      if (event !== undefined) return { done: false, value: event };
      if (this.#pendingError !== undefined) {
        const error = this.#pendingError;
        this.stop();
        return { done: false, value: { type: "ERROR", error } };
      }
      if (!this.#live) {
        this.#catchUp();
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
    this.#initialCursor = undefined;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#onStop(this);
    this.#queue.wake();
  }

  #take(): WatchEvent | undefined {
    for (;;) {
      while (this.#initialIndex < this.#initial.length) {
        const entry = this.#initial[this.#initialIndex++] as Entry;
        const object = decodeObject(entry.value, entry.revision);
        if (this.#predicate === undefined || this.#predicate(object)) {
          return { type: "ADDED", key: entry.key, revision: entry.revision, object };
        }
      }
      if (this.#initialCursor === undefined || !this.#readInitialPage()) break;
    }
    if (this.#initialIndex > 0) {
      this.#initial = [];
      this.#initialIndex = 0;
    }
    const item = this.#queue.take();
    if (item === undefined) return undefined;
    if (item.kind === "bookmark") return { type: "BOOKMARK", revision: item.revision };
    const change = item.change;
    const row = change.row;
    this.#delivered = row.revision;
    if (this.#sharedObjects) {
      if (item.type === "DELETED") return { type: "DELETED", key: row.key, revision: row.revision, object: change.deleted(), prevObject: change.prev() };
      if (row.prevValue === null) return { type: item.type, key: row.key, revision: row.revision, object: change.object() };
      return { type: item.type, key: row.key, revision: row.revision, object: change.object(), prevObject: change.prev() };
    }
    if (item.type === "DELETED") {
      return {
        type: "DELETED",
        key: row.key,
        revision: row.revision,
        object: decodeObject(row.prevValue as string, row.revision),
        prevObject: decodeObject(row.prevValue as string, row.prevRevision),
      };
    }
    const object = decodeObject(row.value as string, row.revision);
    if (row.prevValue === null) return { type: item.type, key: row.key, revision: row.revision, object };
    return { type: item.type, key: row.key, revision: row.revision, object, prevObject: decodeObject(row.prevValue, row.prevRevision) };
  }

  // The next page of the initial state; false when there is none (or the revision was compacted
  // away meanwhile: the watch then ends with ResourceVersionExpired, and the client relists).
  #readInitialPage(): boolean {
    const engine = this.#engine;
    const cursor = this.#initialCursor as string;
    if (this.#initialRevision < engine.compactedRevision) {
      this.#initialCursor = undefined;
      this.#pendingError = new StorageError("ResourceVersionExpired", { revision: this.#initialRevision, compactedRevision: engine.compactedRevision });
      return false;
    }
    const range: KeyRange = { start: cursor, end: this.#initialEnd };
    const rows = this.#initialRevision === engine.currentRevision ? engine.listLatest(range, initialPageSize) : engine.listAt(range, this.#initialRevision, initialPageSize);
    this.#initial = rows;
    this.#initialIndex = 0;
    this.#initialCursor = rows.length < initialPageSize ? undefined : `${(rows[rows.length - 1] as Entry).key}\u0000`;
    return rows.length > 0;
  }

  #catchUp(): void {
    const engine = this.#engine;
    if (this.#position < engine.compactedRevision) {
      this.#pendingError = new StorageError("ResourceVersionExpired", {
        revision: this.#position,
        compactedRevision: engine.compactedRevision,
      });
      return;
    }
    const rows = engine.readEvents(this.#range, this.#position, catchUpPageSize);
    for (const row of rows) {
      const change = new SharedChange(row);
      const type = this.#classify(change);
      if (type !== undefined) this.#queue.push({ kind: "change", type, change });
    }
    if (rows.length < catchUpPageSize) {
      this.#live = true;
      this.#position = Math.max(this.#position, engine.currentRevision);
    } else {
      this.#position = (rows[rows.length - 1] as ChangeRow).revision;
    }
  }

  /** Kubernetes' predicate transitions (etcd3 watcher `transform`). */
  #classify(change: SharedChange): ChangeType | undefined {
    const row = change.row;
    const p = this.#predicate;
    if (row.value === null) return p === undefined || p(change.prev()) ? "DELETED" : undefined;
    if (row.prevValue === null) return p === undefined || p(change.object()) ? "ADDED" : undefined;
    if (p === undefined) return "MODIFIED";
    const now = p(change.object());
    const before = p(change.prev());
    if (now) return before ? "MODIFIED" : "ADDED";
    return before ? "DELETED" : undefined;
  }

  #bookmark(): void {
    if (this.#done || !this.#live || this.#initialIndex < this.#initial.length) return;
    const item: Item = { kind: "bookmark", revision: this.#position };
    if (this.#queue.lastPending()?.kind === "bookmark") this.#queue.replaceLastPending(item);
    else this.#queue.push(item);
    this.#queue.wake();
  }
}
