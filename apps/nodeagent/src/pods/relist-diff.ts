/**
 * The relist's comparison (1.23's PLEG): what the runtime lists now against what the last relist
 * saw, by id and state.
 * @see pkg/kubelet/pleg/generic.go (relist, computeEvents) in kubernetes/kubernetes v1.23
 */

/** A listed sandbox or container as the last relist saw it: its pod's UID and its CRI state. */
export interface RelistEntry {
  readonly uid: string;
  readonly state: string;
}

/**
 * The entries of `list` by id, and into `changed` the pod UID of every entry that is new, changed
 * state (or pod) or is gone since `last`. An entry whose `uidOf` is empty or undefined is left
 * out (not a pod's). When nothing changed, `last` itself is returned (a quiet node allocates
 * nothing); otherwise a new map in which unchanged entries keep their object from `last`. Pure
 * apart from adding to `changed`; the caller must not modify the map it gets.
 * @example
 * const changed = new Set<string>();
 * const now = diffRelist([{ id: "c1", state: "CONTAINER_EXITED" }], before, () => "uid-a", changed);
 * // changed has "uid-a" when c1 was running in `before`
 */
export function diffRelist<T extends { readonly id: string; readonly state: string }>(
  list: readonly T[],
  last: ReadonlyMap<string, RelistEntry>,
  uidOf: (entry: T) => string | undefined,
  changed: Set<string>,
): ReadonlyMap<string, RelistEntry> {
  // Most relists find nothing changed: a first pass that allocates nothing returns `last` itself.
  if (unchanged(list, last, uidOf)) return last;
  const next = new Map<string, RelistEntry>();
  for (const x of list) {
    const uid = uidOf(x);
    if (!uid) continue;
    const prev = last.get(x.id);
    if (prev !== undefined && prev.uid === uid && prev.state === x.state) {
      next.set(x.id, prev);
      continue;
    }
    changed.add(uid);
    if (prev !== undefined) changed.add(prev.uid);
    next.set(x.id, { uid, state: x.state });
  }
  for (const [id, prev] of last) if (!next.has(id)) changed.add(prev.uid);
  return next;
}

// Whether `list` holds exactly the entries of `last` (same ids, pods and states).
function unchanged<T extends { readonly id: string; readonly state: string }>(list: readonly T[], last: ReadonlyMap<string, RelistEntry>, uidOf: (entry: T) => string | undefined): boolean {
  let n = 0;
  for (const x of list) {
    const uid = uidOf(x);
    if (!uid) continue;
    const prev = last.get(x.id);
    if (prev === undefined || prev.uid !== uid || prev.state !== x.state) return false;
    n++;
  }
  // Ids are unique in a listing, so as many matches as entries means none is gone.
  return n === last.size;
}
