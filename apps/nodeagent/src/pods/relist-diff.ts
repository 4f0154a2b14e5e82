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
 * out (not a pod's). Unchanged entries keep their object from `last`, so a quiet node allocates
 * one map per relist and nothing per pod. Pure apart from adding to `changed`.
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
): Map<string, RelistEntry> {
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
