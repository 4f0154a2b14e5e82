import type { Container, ContainerStatus, Pod, PodStatus, Probe } from "@skiff/api-types";
import { ProbeError, type ProbeAttempt } from "./prober.js";
import type { PodEventRecorder } from "./types.js";

/** The three probe kinds. */
export type ProbeKind = "liveness" | "readiness" | "startup";

/** A cached probe result of one container, as pkg/kubelet/prober/results. */
export type ProbeResult = "Success" | "Failure" | "Unknown";

/** Timers the prober uses; tests pass a fake clock. */
export interface ProberClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What {@link ProberManager} needs. */
export interface ProberManagerOptions {
  /** Runs one attempt of a probe (see `runProbeAttempt`); throws ProbeError when it cannot run. */
  readonly runProbe: (kind: ProbeKind, probe: Probe, pod: Pod, container: Container, containerId: string, status: PodStatus) => Promise<ProbeAttempt>;
  /** The pod's latest status (the status manager's), `undefined` before the first sync. */
  readonly getStatus: (uid: string) => PodStatus | undefined;
  /** Called when a cached result changes (the pod should be synced again). */
  readonly onResultChange: (pod: Pod, kind: ProbeKind) => void;
  /** Event sink (`Unhealthy`, `ProbeWarning`). @defaultValue discards */
  readonly onEvent?: PodEventRecorder;
  /** @defaultValue real timers */
  readonly clock?: ProberClock;
}

const kindNames: Record<ProbeKind, string> = { liveness: "Liveness", readiness: "Readiness", startup: "Startup" };
const initialValue: Record<ProbeKind, ProbeResult> = { liveness: "Success", readiness: "Failure", startup: "Unknown" };
const maxProbeRetries = 3;

const realClock: ProberClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

function probeOf(c: Container, kind: ProbeKind): Probe | undefined {
  return kind === "liveness" ? c.livenessProbe : kind === "readiness" ? c.readinessProbe : c.startupProbe;
}

function rawId(containerId: string): string {
  return containerId.replace(/^[^:]*:\/\//, "");
}

function parseTimeMs(s: string | undefined): number {
  if (!s) return 0;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? 0 : ms;
}

class Worker {
  containerId = "";
  onHold = false;
  lastResult: ProbeResult = "Unknown";
  resultRun = 0;
  timer: unknown;
  stopped = false;
  running = false;
  triggerPending = false;

  constructor(
    readonly m: ProberManager,
    public pod: Pod,
    readonly container: Container,
    readonly kind: ProbeKind,
    readonly probe: Probe,
  ) {}

  get periodMs(): number {
    return Math.max(1, this.probe.periodSeconds ?? 10) * 1000;
  }
}

/**
 * The kubelet's prober manager: one worker per container and probe kind (liveness, readiness,
 * startup) that probes every `periodSeconds` once the container runs and `initialDelaySeconds`
 * passed; startup gates the other two; results change only after `failureThreshold` consecutive
 * failures or `successThreshold` consecutive successes; a failed liveness/startup result puts the
 * worker on hold until a new container ID appears. Results are cached per container ID
 * (initially Success for liveness, Failure for readiness, Unknown for startup); {@link
 * updatePodStatus} turns them into `started` and `ready`.
 * @see pkg/kubelet/prober/prober_manager.go, worker.go, prober.go in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * const prober = new ProberManager({ runProbe, getStatus: (uid) => statuses.get(uid), onResultChange: (pod) => resync(pod) });
 * prober.addPod(pod);
 * prober.updatePodStatus(pod, status); // sets containerStatuses[].started/ready
 * ```
 */
export class ProberManager {
  private readonly workers = new Map<string, Worker>();
  private readonly results: Record<ProbeKind, Map<string, ProbeResult>> = { liveness: new Map(), readiness: new Map(), startup: new Map() };
  private readonly clock: ProberClock;

  constructor(private readonly o: ProberManagerOptions) {
    this.clock = o.clock ?? realClock;
  }

  private key(uid: string, name: string, kind: ProbeKind): string {
    return `${uid}/${name}/${kind}`;
  }

  /** Starts workers for every probe of the pod's containers (init containers are not probed). Idempotent. */
  addPod(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    for (const c of pod.spec?.containers ?? []) {
      for (const kind of ["liveness", "readiness", "startup"] as const) {
        const probe = probeOf(c, kind);
        if (!probe) continue;
        const key = this.key(uid, c.name, kind);
        const existing = this.workers.get(key);
        if (existing) {
          existing.pod = pod;
          continue;
        }
        const w = new Worker(this, pod, c, kind, probe);
        this.workers.set(key, w);
        this.runWorker(w);
      }
    }
  }

  /** Stops the pod's workers and forgets its results. */
  removePod(uid: string): void {
    for (const [key, w] of this.workers) {
      if (!key.startsWith(`${uid}/`)) continue;
      this.stopWorker(key, w);
    }
  }

  /** Stops liveness and startup probing (the pod is terminating). */
  stopLivenessAndStartup(uid: string): void {
    for (const [key, w] of this.workers) if (key.startsWith(`${uid}/`) && w.kind !== "readiness") this.stopWorker(key, w);
  }

  /** Stops every worker. */
  close(): void {
    for (const [key, w] of this.workers) this.stopWorker(key, w);
  }

  /** UIDs that have at least one worker. */
  podUIDs(): string[] {
    return [...new Set([...this.workers.keys()].map((k) => k.split("/")[0] ?? ""))];
  }

  /** The cached result of `kind` for a container ID (`<runtime>://<id>` or the bare ID), if any. */
  get(kind: ProbeKind, containerId: string): ProbeResult | undefined {
    return this.results[kind].get(rawId(containerId));
  }

  /** Whether the pod has a worker for the container and kind. */
  hasWorker(uid: string, containerName: string, kind: ProbeKind): boolean {
    return this.workers.has(this.key(uid, containerName, kind));
  }

  /**
   * Why a running container must be killed: its liveness or startup result is Failure. The
   * message is the kubelet's (`Container <name> failed liveness probe`).
   */
  probeFailure(containerName: string, containerId: string): { kind: "liveness" | "startup"; message: string } | undefined {
    if (this.get("liveness", containerId) === "Failure") return { kind: "liveness", message: `Container ${containerName} failed liveness probe` };
    if (this.get("startup", containerId) === "Failure") return { kind: "startup", message: `Container ${containerName} failed startup probe` };
    return undefined;
  }

  /**
   * Sets `started` and `ready` of every container status from the cached results (mutates
   * `status`): started = running and (startup result Success, or no startup probe); ready =
   * started and (readiness result Success, or no readiness probe); an init container is ready
   * once it exited 0. A running container whose readiness probe has no result yet gets an
   * immediate probe.
   * @see pkg/kubelet/prober/prober_manager.go (UpdatePodStatus) in kubernetes/kubernetes v1.23
   */
  updatePodStatus(uid: string, status: PodStatus): void {
    for (const c of status.containerStatuses ?? []) {
      let started: boolean;
      if (!c.state?.running) started = false;
      else {
        const r = this.get("startup", c.containerID ?? "");
        started = r !== undefined ? r === "Success" : !this.hasWorker(uid, c.name, "startup");
      }
      c.started = started;
      if (started) {
        let ready: boolean;
        if (!c.state?.running) ready = false;
        else {
          const r = this.get("readiness", c.containerID ?? "");
          if (r !== undefined) ready = r === "Success";
          else {
            const w = this.workers.get(this.key(uid, c.name, "readiness"));
            ready = w === undefined;
            if (w) this.trigger(w);
          }
        }
        c.ready = ready;
      } else c.ready = false;
    }
    for (const c of status.initContainerStatuses ?? []) c.ready = c.state?.terminated !== undefined && c.state.terminated.exitCode === 0;
  }

  private stopWorker(key: string, w: Worker): void {
    w.stopped = true;
    this.clock.clearTimeout(w.timer);
    if (w.containerId) this.results[w.kind].delete(w.containerId);
    this.workers.delete(key);
  }

  private trigger(w: Worker): void {
    if (w.stopped) return;
    if (w.running) {
      w.triggerPending = true;
      return;
    }
    // Deferred: the caller is building the status this probe will read.
    this.clock.clearTimeout(w.timer);
    w.timer = this.clock.setTimeout(() => this.runWorker(w), 0);
  }

  private runWorker(w: Worker): void {
    if (w.stopped) return;
    w.running = true;
    const startedAt = this.clock.now();
    void this.doProbe(w)
      .catch(() => true)
      .then((keepGoing) => {
        w.running = false;
        if (w.stopped) return;
        if (!keepGoing) {
          this.stopWorker(this.key(w.pod.metadata?.uid ?? "", w.container.name, w.kind), w);
          return;
        }
        if (w.triggerPending) {
          w.triggerPending = false;
          this.runWorker(w);
          return;
        }
        const delay = Math.max(0, startedAt + w.periodMs - this.clock.now());
        w.timer = this.clock.setTimeout(() => this.runWorker(w), delay);
      });
  }

  private setResult(w: Worker, result: ProbeResult): void {
    const map = this.results[w.kind];
    const prev = map.get(w.containerId);
    map.set(w.containerId, result);
    if (prev !== result) this.o.onResultChange(w.pod, w.kind);
  }

  /** One probe of one worker; resolves whether the worker keeps going (worker.go doProbe). */
  private async doProbe(w: Worker): Promise<boolean> {
    const uid = w.pod.metadata?.uid ?? "";
    const status = this.o.getStatus(uid);
    if (!status) return true;
    if (status.phase === "Failed" || status.phase === "Succeeded") return false;
    const c: ContainerStatus | undefined = (status.containerStatuses ?? []).find((x) => x.name === w.container.name && x.containerID);
    if (!c?.containerID) return true;
    if (w.containerId !== rawId(c.containerID)) {
      if (w.containerId) this.results[w.kind].delete(w.containerId);
      w.containerId = rawId(c.containerID);
      this.setResult(w, initialValue[w.kind]);
      w.onHold = false;
    }
    if (w.onHold) return true;
    if (!c.state?.running) {
      this.setResult(w, "Failure");
      return c.state?.terminated === undefined || (w.pod.spec?.restartPolicy ?? "Always") !== "Never";
    }
    if (w.pod.metadata?.deletionTimestamp && w.kind !== "readiness") {
      this.setResult(w, "Success");
      return false;
    }
    const startedAtMs = parseTimeMs(c.state.running.startedAt);
    if (Math.trunc((this.clock.now() - startedAtMs) / 1000) < (w.probe.initialDelaySeconds ?? 0)) return true;
    if (c.started === true) {
      if (w.kind === "startup") return true;
    } else if (w.kind !== "startup") return true;

    const result = await this.probeWithRetries(w, w.containerId, status);
    if (result === undefined || w.stopped) return true;
    if (w.lastResult === result) w.resultRun++;
    else {
      w.lastResult = result;
      w.resultRun = 1;
    }
    const failureThreshold = w.probe.failureThreshold ?? 3;
    const successThreshold = w.probe.successThreshold ?? 1;
    if ((result === "Failure" && w.resultRun < failureThreshold) || (result === "Success" && w.resultRun < successThreshold)) return true;
    this.setResult(w, result);
    if (w.kind !== "readiness" && result === "Failure") {
      w.onHold = true;
      w.resultRun = 0;
    }
    return true;
  }

  /** prober.go probe + runProbeWithRetries: events for failures; `undefined` when the probe errored. */
  private async probeWithRetries(w: Worker, containerId: string, status: PodStatus): Promise<ProbeResult | undefined> {
    const name = kindNames[w.kind];
    let lastErr: unknown;
    for (let i = 0; i < maxProbeRetries; i++) {
      try {
        const a = await this.o.runProbe(w.kind, w.probe, w.pod, w.container, containerId, status);
        if (a.outcome === "Success") return "Success";
        if (a.outcome === "Warning") {
          this.o.onEvent?.(w.pod, "Warning", "ProbeWarning", `${name} probe warning: ${a.output}`);
          return "Success";
        }
        this.o.onEvent?.(w.pod, "Warning", "Unhealthy", `${name} probe failed: ${a.output}`);
        return "Failure";
      } catch (err) {
        lastErr = err;
        if (err instanceof ProbeError && err.reason !== "RuntimeError") break;
      }
    }
    this.o.onEvent?.(w.pod, "Warning", "Unhealthy", `${name} probe errored: ${lastErr instanceof Error ? lastErr.message : String(lastErr)}`);
    return undefined;
  }
}
