import type { Pod } from "@skiff/api-types";

/** The lifecycle of a pod worker, as pod_workers.go: syncing → terminating → terminated. */
export type PodWorkerState = "syncing" | "terminating" | "terminated";

/** What a worker runs; each call for one UID runs after the previous one finished. */
export interface PodWorkerHandlers {
  /**
   * Reconciles `pod`; resolves with when it wants the next sync (ms since the epoch), if sooner
   * than the resync, or `Infinity` when the pod is finished (terminal and stopped): no periodic
   * resync follows, as 1.23 stops syncing a finished pod; an update or a kill still reaches it.
   */
  syncPod(pod: Pod): Promise<number | undefined>;
  /** Stops and removes the pod's containers and sandbox. */
  terminatePod(pod: Pod): Promise<void>;
  /** Called once the pod is terminated and its worker gone. */
  onTerminated?(pod: Pod): void;
  /** Receives worker errors (the worker retries at its next sync). */
  onError?(pod: Pod, err: unknown): void;
}

interface Worker {
  pod: Pod;
  state: PodWorkerState;
  busy: boolean;
  pending: boolean;
  timer: NodeJS.Timeout | undefined;
  idle: Promise<void>;
  resolveIdle: () => void;
}

/**
 * One serialized worker per pod UID: an update while a sync runs is remembered and run after it
 * (only the latest spec counts); a kill moves the worker to terminating, runs `terminatePod`
 * (retrying on error) and then removes it. Each worker re-syncs after `resyncMs`, or earlier when
 * a sync asks for it (a back-off ends). With `admit`, each sync or termination first awaits it (see
 * `PodRuntimeOptions.syncAdmission`); a pod's updates during that wait are coalesced as during a sync.
 * @see pkg/kubelet/pod_workers.go (UpdatePod, managePodLoop) in kubernetes/kubernetes v1.23
 */
export class PodWorkers {
  private readonly workers = new Map<string, Worker>();
  private paused = false;
  private closed = false;

  constructor(
    private readonly handlers: PodWorkerHandlers,
    private readonly resyncMs: number,
    private readonly admit?: () => Promise<void>,
  ) {}

  /** Syncs (creating the worker) or, with `kill`, terminates the pod. */
  updatePod(pod: Pod, kill = false): void {
    if (this.closed) return;
    const uid = pod.metadata?.uid ?? "";
    let w = this.workers.get(uid);
    if (!w) {
      if (kill) return;
      let resolveIdle = () => {};
      const idle = new Promise<void>((r) => (resolveIdle = r));
      w = { pod, state: "syncing", busy: false, pending: false, timer: undefined, idle, resolveIdle };
      this.workers.set(uid, w);
    }
    if (w.state !== "syncing") return;
    w.pod = pod;
    if (kill) w.state = "terminating";
    this.kick(uid, w);
  }

  /** Re-syncs every syncing worker now (e.g. when the runtime came back). */
  syncAll(): void {
    for (const [uid, w] of this.workers) if (w.state === "syncing") this.kick(uid, w);
  }

  /** Re-syncs one pod now, if it has a syncing worker. */
  syncUID(uid: string): void {
    const w = this.workers.get(uid);
    if (w?.state === "syncing") this.kick(uid, w);
  }

  /** While paused (runtime not ready) no sync runs; pending work runs on resume. */
  setPaused(paused: boolean): void {
    const was = this.paused;
    this.paused = paused;
    if (was && !paused) for (const [uid, w] of this.workers) this.kick(uid, w);
  }

  /** The state of `uid`'s worker, if any. */
  stateOf(uid: string): PodWorkerState | undefined {
    return this.workers.get(uid)?.state;
  }

  /** UIDs with a worker. */
  uids(): string[] {
    return [...this.workers.keys()];
  }

  /** Resolves once `uid`'s worker finished its current work (immediately when none). */
  async waitIdle(uid: string): Promise<void> {
    const w = this.workers.get(uid);
    if (w?.busy) await w.idle;
  }

  /** Stops scheduling; running work finishes. */
  close(): void {
    this.closed = true;
    for (const w of this.workers.values()) clearTimeout(w.timer);
  }

  private kick(uid: string, w: Worker): void {
    w.pending = true;
    if (w.busy || this.paused || this.closed) return;
    void this.run(uid, w);
  }

  private schedule(uid: string, w: Worker, atMs: number | undefined): void {
    clearTimeout(w.timer);
    if (this.closed || w.state !== "syncing" || atMs === Infinity) return;
    const delay = Math.max(0, Math.min(atMs === undefined ? this.resyncMs : atMs - Date.now(), this.resyncMs));
    w.timer = setTimeout(() => this.kick(uid, w), delay);
    w.timer.unref();
  }

  private async run(uid: string, w: Worker): Promise<void> {
    w.busy = true;
    try {
      while (w.pending && !this.paused && !this.closed) {
        if (this.admit) {
          await this.admit();
          if (this.paused || this.closed) break;
        }
        w.pending = false;
        const pod = w.pod;
        if (w.state === "terminating") {
          try {
            await this.handlers.terminatePod(pod);
            w.state = "terminated";
            clearTimeout(w.timer);
            this.workers.delete(uid);
            this.handlers.onTerminated?.(pod);
          } catch (err) {
            this.handlers.onError?.(pod, err);
            clearTimeout(w.timer);
            w.timer = setTimeout(() => this.kick(uid, w), 1_000);
            w.timer.unref();
          }
          break;
        }
        let next: number | undefined;
        try {
          next = await this.handlers.syncPod(pod);
        } catch (err) {
          this.handlers.onError?.(pod, err);
          next = Date.now() + 1_000;
        }
        this.schedule(uid, w, next);
      }
    } finally {
      w.busy = false;
      const resolve = w.resolveIdle;
      w.idle = new Promise<void>((r) => (w.resolveIdle = r));
      resolve();
    }
  }
}
