import type { StorageError } from "../errors.js";
import type { KeyRange } from "./keys.js";

/** One live version of a key. `value` is the stored JSON text (no resourceVersion inside). */
export interface Entry {
  readonly key: string;
  readonly revision: number;
  readonly value: string;
}

/**
 * One write as the log records it: `value` is null for a delete (tombstone); `prevRevision`
 * is the revision of the live version it replaced (0 for a create) and `prevValue` that version.
 */
export interface ChangeRow {
  readonly key: string;
  readonly revision: number;
  readonly value: string | null;
  readonly prevRevision: number;
  readonly prevValue: string | null;
}

/** One write of {@link MvccEngine.commitBatch}, with the arguments of {@link MvccEngine.commit}. */
export interface BatchWrite {
  readonly key: string;
  readonly value: string | null;
  readonly expectedRevision: number;
}

export type CommitResult = { readonly ok: true; readonly change: ChangeRow } | { readonly ok: false; readonly currentRevision: number };

/**
 * A synchronous MVCC engine: what a backend must provide for {@link MvccStorage} to implement
 * the storage interface on top of it. All methods are synchronous so that no write can slip
 * between two calls made in the same tick.
 *
 * Compaction to C keeps, for every key, the newest version at or below C unless it is a
 * tombstone, and everything above C (etcd's rule): reads at C and later stay exact, and every
 * change above C still finds its previous version.
 */
export interface MvccEngine {
  readonly currentRevision: number;
  readonly compactedRevision: number;
  getLatest(key: string): Entry | undefined;
  /** The live version of `key` at `revision` (undefined if absent or deleted then). */
  getAt(key: string, revision: number): Entry | undefined;
  /** Live entries with keys in `range`, ascending, at most `limit` (0 = all). */
  listLatest(range: KeyRange, limit: number): Entry[];
  listAt(range: KeyRange, revision: number, limit: number): Entry[];
  countLatest(range: KeyRange): number;
  countAt(range: KeyRange, revision: number): number;
  /**
   * Writes `value` (null = delete) as revision `currentRevision + 1` if the key's latest
   * revision is `expectedRevision` (0 = the key must not exist; a delete needs a live key).
   */
  commit(key: string, value: string | null, expectedRevision: number): CommitResult;
  /**
   * Optional group commit: applies `writes` in one transaction, in order, each checked against
   * the state the earlier ones left exactly as {@link commit} checks it and numbered with the next
   * revision when it applies. A write whose statements fail is rolled back alone (its slot holds
   * the StorageError); the others are unaffected. Returns once the transaction has committed.
   * @throws StorageError when the transaction as a whole fails: nothing of it is applied and the
   *   current revision is unchanged.
   */
  commitBatch?(writes: readonly BatchWrite[]): Array<CommitResult | StorageError>;
  /** Changes with revision > `afterRevision` and key in `range`, ascending, at most `limit`. */
  readEvents(range: KeyRange, afterRevision: number, limit: number): ChangeRow[];
  /**
   * Compacts towards `revision`, doing a bounded amount of work; returns the new horizon
   * (call again until it reaches `revision`).
   */
  compactStep(revision: number): number;
  close(): void;
}
