/**
 * Pod status to the apiserver (API-server mode): each change the pod runtime reports is written
 * through `pods/status`, merged with the server's copy; a static pod's status goes to its mirror pod.
 *
 * @see pkg/kubelet/status/status_manager.go (syncPod, mergePodStatus, needsUpdate) in kubernetes/kubernetes v1.23
 */
import type { Pod, PodStatus } from "@skiff/api-types";
import { ConfigMirrorAnnotation, ConfigSourceAnnotation } from "@skiff/api-types";
import { isConflict, isNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { agentTracer } from "../internal/trace.js";
import type { ClusterLog } from "./node-status-manager.js";

/** Condition types the node agent owns; others (set by controllers) are kept from the server. */
export const agentOwnedPodConditions: readonly string[] = Object.freeze(["PodScheduled", "Ready", "Initialized", "ContainersReady"]);

function isTerminal(phase: PodStatus["phase"]): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/**
 * The status to write: the agent's status over the server's, keeping the server's conditions of
 * types the agent does not own (and the server's terminal phase, which never goes back), and the
 * server's fields the agent does not set (`nominatedNodeName`...). Pure; mutates neither input.
 * @see pkg/kubelet/status/status_manager.go (mergePodStatus) in kubernetes/kubernetes v1.23
 */
export function mergePodStatus(server: PodStatus | undefined, ours: PodStatus): PodStatus {
  // Only top-level fields of the new object are set below: neither input is changed.
  const merged: PodStatus = { ...(server ?? {}), ...ours };
  const owned = new Set(agentOwnedPodConditions);
  const kept = (server?.conditions ?? []).filter((c) => !owned.has(c.type));
  const conditions = [...(ours.conditions ?? []), ...kept.filter((c) => !(ours.conditions ?? []).some((o) => o.type === c.type))];
  if (conditions.length > 0) merged.conditions = conditions;
  if (isTerminal(server?.phase) && !isTerminal(ours.phase) && server?.phase !== undefined) merged.phase = server.phase;
  return merged;
}

/** Options of {@link PodStatusSync}. */
export interface PodStatusSyncOptions {
  readonly client: Client;
  readonly log: ClusterLog;
  /** Mirror pods currently known (to route static pods' statuses). */
  readonly mirrorPods: () => readonly Pod[];
  /** How many times a write is retried after a 409 Conflict (each after a fresh GET). @defaultValue 5 */
  readonly conflictRetries?: number;
  /**
   * The pod (or mirror pod) `namespace/name` as the agent's pod watch last saw it. When given, a
   * write starts from it, or from this writer's last written copy of the pod when that is newer
   * (the watch may not have delivered it yet), instead of a GET; a 409 Conflict (it was stale), a
   * different pod, or a status already equal to it fall back to the GET. @defaultValue none (always GET)
   */
  readonly cachedPod?: (namespace: string, name: string) => Pod | undefined;
  /** Status writes in flight at once, each for a different pod (one pod's writes stay in order). @defaultValue 4 */
  readonly concurrency?: number;
}

interface Entry {
  readonly pod: Pod;
  readonly status: PodStatus;
  written: boolean;
  /** When the oldest unwritten change was queued (tracer clock). */
  readonly queuedAt: number;
}

// The copy with the higher resourceVersion (Skiff's are revisions; anything else prefers `a`).
function newer(a: Pod | undefined, b: Pod | undefined): Pod | undefined {
  if (!a || !b) return a ?? b;
  if (a.metadata?.uid !== b.metadata?.uid) return a;
  const ra = Number(a.metadata?.resourceVersion);
  const rb = Number(b.metadata?.resourceVersion);
  return Number.isSafeInteger(ra) && Number.isSafeInteger(rb) && rb > ra ? b : a;
}

// Whether two JSON values are equal as JSON (key order and undefined-valued keys do not matter),
// without encoding them.
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    n++;
    if (!jsonEqual(x[k], y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) n--;
  return n === 0;
}

/** Unwritten older statuses kept per pod at most (the oldest is dropped past it). */
const maxBacklog = 4;

/**
 * What `kubectl get pods` shows of a status: the phase and each container's state kind, reason,
 * readiness and restart count, as one string. Pure.
 */
export function visibleState(status: PodStatus): string {
  const parts: string[] = [status.phase ?? ""];
  for (const list of [status.initContainerStatuses, status.containerStatuses]) {
    for (const c of list ?? []) {
      const st = c.state;
      const state = st?.waiting ? `w:${st.waiting.reason ?? ""}` : st?.terminated ? `t:${st.terminated.reason ?? ""}:${String(st.terminated.exitCode)}` : st?.running ? "r" : "";
      parts.push(`${c.name}=${state}/${String(c.ready)}/${String(c.restartCount)}`);
    }
  }
  return parts.join("|");
}

/**
 * Writes pod statuses to the apiserver in the order of changes (the latest status per pod wins,
 * after any older one that shows a different phase or container state: {@link visibleState}),
 * up to `concurrency` pods at once, one write at a time per pod. For each: the pod as the watch
 * cache has it (else GET; a different UID means it was recreated: skip), merge
 * ({@link mergePodStatus}), skip when equal to the server's, else `PUT pods/{name}/status` with
 * the resourceVersion read; 409 → GET and retry. Static pods write to their mirror pod (matched
 * by namespace/name and the `example.io/config.mirror` hash); without one the status waits for
 * {@link resync}.
 *
 * 1.23's status manager writes from one goroutine with a GET before each patch; with HTTP round
 * trips of a loaded Node.js process that serial GET + write became the longest wait of a pod's
 * life (`pnpm bench e2e`), hence the watch cache read and the few writers.
 */
export class PodStatusSync {
  private readonly latest = new Map<string, Entry>();
  // Statuses of a pod superseded before they were written, but showing something the newer one
  // does not (a phase, a container's state and reason): written first, oldest first.
  private readonly backlog = new Map<string, Entry[]>();
  private readonly writing = new Map<string, Entry>();
  private readonly queue = new Set<string>();
  private readonly inFlight = new Set<string>();
  // The pod as the last successful write returned it, by target `namespace/name`.
  private readonly lastWritten = new Map<string, Pod>();
  private stopped = false;

  constructor(private readonly o: PodStatusSyncOptions) {}

  /** The pod runtime's status listener. */
  readonly onStatus = (pod: Pod, status: PodStatus): void => {
    const uid = pod.metadata?.uid ?? "";
    const prev = this.latest.get(uid);
    // 1.23 writes every status version in order; here an unwritten one is dropped for a newer one
    // only when the newer shows the same phase and container states (kubectl would show the same):
    // an ErrImagePull followed at once by ImagePullBackOff is written, then the back-off.
    const sameVisible = prev !== undefined && visibleState(prev.status) === visibleState(status);
    if (prev !== undefined && !prev.written && this.writing.get(uid) !== prev && !sameVisible) {
      const list = this.backlog.get(uid) ?? [];
      list.push(prev);
      if (list.length > maxBacklog) list.shift();
      this.backlog.set(uid, list);
    }
    // The trace's queue wait: a status that replaces a queued one showing the same (coalesced)
    // waits since that one was queued; one showing something new (a phase) since now.
    const queuedAt = this.queue.has(uid) && sameVisible ? (prev?.queuedAt ?? agentTracer.now()) : agentTracer.now();
    this.latest.set(uid, { pod, status, written: false, queuedAt });
    this.enqueue(uid);
  };

  /** Retries the statuses not written yet (e.g. a mirror pod appeared); forgets pods not in `liveUIDs`. */
  resync(liveUIDs: ReadonlySet<string>): void {
    for (const [uid, e] of this.latest) {
      if (!liveUIDs.has(uid)) {
        this.latest.delete(uid);
        this.backlog.delete(uid);
        this.lastWritten.delete(`${e.pod.metadata?.namespace ?? ""}/${e.pod.metadata?.name ?? ""}`);
      }
      else if (!e.written) this.enqueue(uid);
    }
  }

  stop(): void {
    this.stopped = true;
    this.queue.clear();
  }

  /** How many pods' statuses are being written now. */
  get writesInFlight(): number {
    return this.inFlight.size;
  }

  private enqueue(uid: string): void {
    if (this.stopped) return;
    this.queue.add(uid);
    this.pump();
  }

  // Starts writers for queued pods not in flight, up to the concurrency.
  private pump(): void {
    const limit = Math.max(1, this.o.concurrency ?? 4);
    while (!this.stopped && this.inFlight.size < limit) {
      let uid: string | undefined;
      for (const u of this.queue) {
        if (!this.inFlight.has(u)) {
          uid = u;
          break;
        }
      }
      if (uid === undefined) return;
      this.queue.delete(uid);
      const older = this.backlog.get(uid);
      const e = older?.shift() ?? this.latest.get(uid);
      if (older !== undefined && older.length === 0) this.backlog.delete(uid);
      if (!e) continue;
      // After an older status, the pod's newer ones follow.
      if (e !== this.latest.get(uid)) this.queue.add(uid);
      this.inFlight.add(uid);
      this.writing.set(uid, e);
      void this.writeOne(uid, e).finally(() => {
        this.inFlight.delete(uid);
        this.writing.delete(uid);
        this.pump();
      });
    }
  }

  private async writeOne(uid: string, e: Entry): Promise<void> {
    const t0 = agentTracer.now();
    const fields = { pod: `${e.pod.metadata?.namespace ?? ""}/${e.pod.metadata?.name ?? ""}`, uid, attrs: { phase: e.status.phase ?? "" } };
    agentTracer.record("status-queue", e.queuedAt, t0, fields);
    try {
      e.written = await this.write(e);
      agentTracer.record("status-write", t0, agentTracer.now(), fields);
    } catch (err) {
      this.o.log(`Failed to update status for pod ${e.pod.metadata?.namespace}/${e.pod.metadata?.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private target(pod: Pod): { namespace: string; name: string; match: (p: Pod) => boolean } | undefined {
    const meta = pod.metadata ?? {};
    const namespace = meta.namespace ?? "";
    const name = meta.name ?? "";
    const source = meta.annotations?.[ConfigSourceAnnotation];
    if (source === undefined || source === "api") return { namespace, name, match: (p) => p.metadata?.uid === meta.uid };
    const hash = meta.uid ?? "";
    const mirror = this.o.mirrorPods().find((m) => m.metadata?.namespace === namespace && m.metadata.name === name && m.metadata.annotations?.[ConfigMirrorAnnotation] === hash);
    if (!mirror) return undefined;
    return { namespace, name, match: (p) => p.metadata?.annotations?.[ConfigMirrorAnnotation] === hash };
  }

  // Resolves true once the server has the status (or the pod is gone), false when it must wait.
  private async write(e: Entry): Promise<boolean> {
    const t = this.target(e.pod);
    if (!t) return false;
    const retries = this.o.conflictRetries ?? 5;
    let useCache = this.o.cachedPod !== undefined;
    let attempt = 0;
    while (attempt <= retries) {
      const cached = useCache ? newer(this.o.cachedPod?.(t.namespace, t.name), this.lastWritten.get(`${t.namespace}/${t.name}`)) : undefined;
      useCache = false;
      let cur: Pod;
      if (cached !== undefined && t.match(cached)) cur = cached;
      else {
        try {
          cur = await this.o.client.pods.get(t.name, { namespace: t.namespace });
        } catch (err) {
          if (isNotFound(err)) return true;
          throw err;
        }
        if (!t.match(cur)) return true;
      }
      const merged = mergePodStatus(cur.status, e.status);
      if (jsonEqual(merged, cur.status ?? {})) {
        // The cache may be behind the server: confirm with a GET before skipping.
        if (cur === cached) continue;
        return true;
      }
      attempt++;
      try {
        const written = await this.o.client.pods.updateStatus({ ...cur, status: merged }, { namespace: t.namespace });
        if (this.o.cachedPod) this.lastWritten.set(`${t.namespace}/${t.name}`, written);
        this.o.log(`Status for pod ${t.namespace}/${t.name} updated successfully (phase ${merged.phase ?? ""})`, 3);
        return true;
      } catch (err) {
        if (isNotFound(err)) return true;
        if (!isConflict(err)) throw err;
      }
    }
    throw new Error(`status update conflicted ${retries + 1} times`);
  }
}
