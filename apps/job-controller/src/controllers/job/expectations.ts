/**
 * Controller expectations: how many pod creations and deletions a Job's last sync issued that the
 * pod informer has not shown yet, and which pods' tracking finalizers it removed. While a Job has
 * unmet expectations its sync neither creates nor deletes pods, so a slow informer never causes
 * a double create. Expectations older than {@link expectationsTimeoutMs} count as satisfied (a
 * lost watch event must not wedge a Job forever).
 *
 * @see pkg/controller/controller_utils.go (ControllerExpectations, UIDTrackingControllerExpectations)
 * @see pkg/controller/job/tracking_utils.go (uidTrackingExpectations)
 */

/** How long unmet expectations block a Job's pod management, in ms (5 minutes, as 1.23). @defaultValue 300 000 */
export const expectationsTimeoutMs = 5 * 60 * 1000;

interface Expectation {
  add: number;
  del: number;
  timestampMs: number;
}

/**
 * Add/delete expectations per controller key (`namespace/name`). All methods mutate the
 * instance only; none throws.
 * @example
 * const e = new ControllerExpectations();
 * e.expectCreations("ns/job", 2);
 * e.creationObserved("ns/job"); e.creationObserved("ns/job");
 * e.satisfied("ns/job"); // true
 */
export class ControllerExpectations {
  readonly #items = new Map<string, Expectation>();

  /** @param now - clock in ms. @defaultValue Date.now */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Whether the Job's pod management may run: no record, all adds/dels observed, or the record
   * has expired.
   */
  satisfied(key: string): boolean {
    const e = this.#items.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.now() - e.timestampMs > expectationsTimeoutMs;
  }

  /** Replaces the Job's record by `adds` expected creations (and no deletions). */
  expectCreations(key: string, adds: number): void {
    this.#items.set(key, { add: adds, del: 0, timestampMs: this.now() });
  }

  /** Replaces the Job's record by `dels` expected deletions (and no creations). */
  expectDeletions(key: string, dels: number): void {
    this.#items.set(key, { add: 0, del: dels, timestampMs: this.now() });
  }

  /** One expected creation showed up (or will never happen: the create call failed). */
  creationObserved(key: string): void {
    this.#lower(key, 1, 0);
  }

  /** One expected deletion showed up (or will never happen: the delete call failed). */
  deletionObserved(key: string): void {
    this.#lower(key, 0, 1);
  }

  /** Lowers the expected creations by `n` (pods a slow-start batch never attempted). */
  lowerCreations(key: string, n: number): void {
    this.#lower(key, n, 0);
  }

  /** The outstanding counts, for tests and logs; `undefined` without a record. */
  get(key: string): { readonly add: number; readonly del: number } | undefined {
    const e = this.#items.get(key);
    return e ? { add: e.add, del: e.del } : undefined;
  }

  /** Drops the Job's record (the Job is gone). */
  delete(key: string): void {
    this.#items.delete(key);
  }

  #lower(key: string, add: number, del: number): void {
    const e = this.#items.get(key);
    if (!e) return;
    e.add -= add;
    e.del -= del;
  }
}

/**
 * The pod UIDs whose tracking finalizer a Job's sync has removed (or is removing) and whose
 * update the pod informer has not shown yet. Such pods are not accounted again.
 * @see pkg/controller/job/tracking_utils.go (uidTrackingExpectations)
 */
export class FinalizerExpectations {
  readonly #byJob = new Map<string, Set<string>>();
  readonly #jobOfUid = new Map<string, string>();

  /** Records that the finalizers of `uids` are being removed for the Job `key`. */
  expectFinalizersRemoved(key: string, uids: Iterable<string>): void {
    let set = this.#byJob.get(key);
    if (!set) {
      set = new Set();
      this.#byJob.set(key, set);
    }
    for (const uid of uids) {
      set.add(uid);
      this.#jobOfUid.set(uid, key);
    }
  }

  /** The pod with `uid` was seen without the finalizer, or deleted, or the removal failed. */
  finalizerRemovalObserved(uid: string): void {
    const key = this.#jobOfUid.get(uid);
    if (key === undefined) return;
    this.#jobOfUid.delete(uid);
    const set = this.#byJob.get(key);
    set?.delete(uid);
    if (set?.size === 0) this.#byJob.delete(key);
  }

  /** UIDs still expected for the Job (a copy). */
  expectedUids(key: string): Set<string> {
    return new Set(this.#byJob.get(key));
  }

  /** Drops every expectation of the Job (it was deleted). */
  delete(key: string): void {
    for (const uid of this.#byJob.get(key) ?? []) this.#jobOfUid.delete(uid);
    this.#byJob.delete(key);
  }
}
