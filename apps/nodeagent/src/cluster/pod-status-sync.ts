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
  const merged: PodStatus = { ...(server ?? {}), ...structuredClone(ours) };
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
}

interface Entry {
  readonly pod: Pod;
  readonly status: PodStatus;
  written: boolean;
  /** When the oldest unwritten change was queued (tracer clock). */
  readonly queuedAt: number;
}

function stableJSON(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : x,
  );
}

/**
 * Writes pod statuses to the apiserver, one pod at a time in the order of changes (the latest
 * status per pod wins). For each: GET the pod (a different UID means it was recreated: skip),
 * merge ({@link mergePodStatus}), skip when equal, else `PUT pods/{name}/status` with the
 * resourceVersion read; 409 → GET again and retry. Static pods write to their mirror pod
 * (matched by namespace/name and the `example.io/config.mirror` hash); without one the status
 * waits for {@link resync}.
 */
export class PodStatusSync {
  private readonly latest = new Map<string, Entry>();
  private readonly queue = new Set<string>();
  private running = false;
  private stopped = false;

  constructor(private readonly o: PodStatusSyncOptions) {}

  /** The pod runtime's status listener. */
  readonly onStatus = (pod: Pod, status: PodStatus): void => {
    const uid = pod.metadata?.uid ?? "";
    const queuedAt = this.queue.has(uid) ? (this.latest.get(uid)?.queuedAt ?? agentTracer.now()) : agentTracer.now();
    this.latest.set(uid, { pod, status, written: false, queuedAt });
    this.enqueue(uid);
  };

  /** Retries the statuses not written yet (e.g. a mirror pod appeared); forgets pods not in `liveUIDs`. */
  resync(liveUIDs: ReadonlySet<string>): void {
    for (const [uid, e] of this.latest) {
      if (!liveUIDs.has(uid)) this.latest.delete(uid);
      else if (!e.written) this.enqueue(uid);
    }
  }

  stop(): void {
    this.stopped = true;
    this.queue.clear();
  }

  private enqueue(uid: string): void {
    if (this.stopped) return;
    this.queue.add(uid);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped) {
        const next = this.queue.values().next();
        if (next.done) break;
        const uid = next.value;
        this.queue.delete(uid);
        const e = this.latest.get(uid);
        if (!e) continue;
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
    } finally {
      this.running = false;
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
    for (let attempt = 0; attempt <= retries; attempt++) {
      let cur: Pod;
      try {
        cur = await this.o.client.pods.get(t.name, { namespace: t.namespace });
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
      if (!t.match(cur)) return true;
      const merged = mergePodStatus(cur.status, e.status);
      if (stableJSON(merged) === stableJSON(cur.status ?? {})) return true;
      try {
        await this.o.client.pods.updateStatus({ ...cur, status: merged }, { namespace: t.namespace });
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
