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
  private readonly statuses = new Map<string, PodStatus>();
  private readonly listeners = new Set<PodStatusListener>();

  constructor(private readonly nowIso: () => string = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z")) {}

  /** The status of `uid`, if any. */
  get(uid: string): PodStatus | undefined {
    return this.statuses.get(uid);
  }

  /** Sets the status of `pod`; returns the stored (normalized) status. Does not mutate `status`. */
  set(pod: Pod, status: PodStatus): PodStatus {
    const uid = pod.metadata?.uid ?? "";
    const old = this.statuses.get(uid);
    const next: PodStatus = structuredClone(status);
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
    if (old && JSON.stringify(old) === JSON.stringify(next)) return old;
    this.statuses.set(uid, next);
    for (const l of this.listeners) {
      try {
        l(pod, next);
      } catch {
        // A listener's failure must not stop the sync.
      }
    }
    return next;
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
