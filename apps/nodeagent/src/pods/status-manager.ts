import type { Pod, PodCondition, PodStatus } from "@skiff/api-types";
import type { PodStatusListener } from "./types.js";

function sameCondition(a: PodCondition, b: PodCondition): boolean {
  return a.status === b.status && a.reason === b.reason && a.message === b.message;
}

/**
 * Keeps the latest v1 PodStatus of every pod by UID, stamps condition transition times, keeps
 * terminal phases terminal (a Succeeded/Failed pod never goes back), and tells listeners about
 * each change (in API-server mode the listener PATCHes pods/status).
 * @see pkg/kubelet/status/status_manager.go (SetPodStatus, updateStatusInternal) in kubernetes/kubernetes v1.23
 */
export class StatusManager {
  // Each pod's stored status with its JSON text (what the next status is compared by).
  private readonly statuses = new Map<string, { readonly status: PodStatus; readonly text: string }>();
  private readonly listeners = new Set<PodStatusListener>();

  constructor(private readonly nowIso: () => string = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z")) {}

  /** The status of `uid`, if any (the stored object: read-only). */
  get(uid: string): PodStatus | undefined {
    return this.statuses.get(uid)?.status;
  }

  /**
   * Sets the status of `pod`; returns the stored (normalized) status, read-only. Does not mutate
   * `status`. Most syncs of a running pod change nothing: the candidate is built without copying
   * `status` (its top level and conditions are new objects), compared by its JSON text with the
   * stored one's, and stored as a parse of that text (a deep copy) only when it differs.
   */
  set(pod: Pod, status: PodStatus): PodStatus {
    const uid = pod.metadata?.uid ?? "";
    const stored = this.statuses.get(uid);
    const old = stored?.status;
    const next: PodStatus = { ...status };
    if (old && (old.phase === "Succeeded" || old.phase === "Failed")) {
      if (next.phase !== old.phase) next.phase = old.phase;
      // A terminal reason (Evicted, OutOfmemory...) and its message stay with the terminal phase.
      if (old.reason !== undefined && next.reason === undefined) next.reason = old.reason;
      if (old.message !== undefined && next.message === undefined) next.message = old.message;
    }
    if (next.conditions) {
      next.conditions = next.conditions.map((c) => {
        const prev = old?.conditions?.find((o) => o.type === c.type);
        const lastTransitionTime = prev && sameCondition(prev, c) && prev.lastTransitionTime ? prev.lastTransitionTime : this.nowIso();
        return { ...c, lastTransitionTime };
      });
    }
    const text = JSON.stringify(next);
    if (stored && stored.text === text) return stored.status;
    const copy = JSON.parse(text) as PodStatus;
    this.statuses.set(uid, { status: copy, text });
    for (const l of this.listeners) {
      try {
        l(pod, copy);
      } catch {
        // A listener's failure must not stop the sync.
      }
    }
    return copy;
  }

  /** Forgets `uid`. */
  delete(uid: string): void {
    this.statuses.delete(uid);
  }

  /** Subscribes; returns the unsubscribe function. */
  subscribe(listener: PodStatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
