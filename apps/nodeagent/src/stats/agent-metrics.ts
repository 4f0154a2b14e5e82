/**
 * The node agent's Prometheus metrics for `/metrics` and `/metrics/probes`, with the kubelet 1.23
 * names (`kubelet_` prefix kept: dashboards and alerts query them by those names) and help texts
 * marked `[ALPHA]` as component-base prints them. Built on `prom-client`; the Node process
 * metrics (`process_*`, `nodejs_*`) stand in for the Go runtime's.
 * @see pkg/kubelet/metrics/metrics.go, pkg/kubelet/prober/prober_manager.go (ProberResults) in kubernetes/kubernetes v1.23
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { agentTracer } from "../internal/trace.js";

/** Period (ms) of the event-loop delay sampling behind `nodejs_eventloop_lag_*` (prom-client's `eventLoopMonitoringPrecision`). */
export const eventLoopMonitoringPrecisionMs = 1_000;

/** Buckets of `kubelet_runtime_operations_duration_seconds`: exponential from 5 ms, factor 2.5, 14 buckets (1.23). */
export const runtimeOperationBuckets: readonly number[] = Object.freeze(Array.from({ length: 14 }, (_, i) => 0.005 * 2.5 ** i));
/** Prometheus' default buckets, which 1.23 uses for `kubelet_pod_start_duration_seconds`. */
export const defaultBuckets: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/** Container and sandbox counts by state, read at scrape time. */
export interface RunningCounts {
  /** Pods with a ready sandbox. */
  readonly runningPods: number;
  /** Containers per state: `running`, `exited`, `created`, `unknown`. */
  readonly containersByState: Readonly<Record<string, number>>;
}

/** The result words of `prober_probe_total`. */
export type ProbeResultLabel = "successful" | "failed" | "unknown";

/**
 * The registries and instruments. One instance per agent; {@link instrumentCRIClient} records
 * runtime operations into it.
 */
export class AgentMetrics {
  /** `/metrics`. */
  readonly registry = new Registry();
  /** `/metrics/probes`. */
  readonly probeRegistry = new Registry();
  private counts: (() => Promise<RunningCounts>) | undefined;
  private readonly nodeNameGauge: Gauge<"node">;
  private readonly podStart: Histogram;
  private readonly ops: Counter<"operation_type">;
  private readonly opErrors: Counter<"operation_type">;
  private readonly opDuration: Histogram<"operation_type">;
  private readonly probes: Counter<"probe_type" | "result" | "container" | "pod" | "namespace" | "pod_uid">;
  private readonly podsSeen = new Map<string, number>();

  constructor() {
    // The event-loop delay histogram samples with a timer of this period: prom-client's default
    // (10 ms) woke the agent 100 times a second at idle, a third of its CPU with 100 pods. Once a
    // second still catches every stall longer than that.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: eventLoopMonitoringPrecisionMs });
    this.nodeNameGauge = new Gauge({ name: "kubelet_node_name", help: "[ALPHA] The node's name. The count is always 1.", labelNames: ["node"], registers: [this.registry] });
    const readCounts = () => this.readCounts();
    new Gauge({
      name: "kubelet_running_pods",
      help: "[ALPHA] Number of pods that have a running pod sandbox",
      registers: [this.registry],
      async collect() {
        const c = await readCounts();
        if (c) this.set(c.runningPods);
      },
    });
    new Gauge({
      name: "kubelet_running_containers",
      help: "[ALPHA] Number of containers currently running",
      labelNames: ["container_state"],
      registers: [this.registry],
      async collect() {
        const c = await readCounts();
        this.reset();
        if (c) for (const [state, n] of Object.entries(c.containersByState)) this.set({ container_state: state }, n);
      },
    });
    this.podStart = new Histogram({ name: "kubelet_pod_start_duration_seconds", help: "[ALPHA] Duration in seconds for a single pod to go from pending to running.", buckets: [...defaultBuckets], registers: [this.registry] });
    this.ops = new Counter({ name: "kubelet_runtime_operations_total", help: "[ALPHA] Cumulative number of runtime operations by operation type.", labelNames: ["operation_type"], registers: [this.registry] });
    this.opErrors = new Counter({ name: "kubelet_runtime_operations_errors_total", help: "[ALPHA] Cumulative number of runtime operation errors by operation type.", labelNames: ["operation_type"], registers: [this.registry] });
    this.opDuration = new Histogram({ name: "kubelet_runtime_operations_duration_seconds", help: "[ALPHA] Duration in seconds of runtime operations. Broken down by operation type.", labelNames: ["operation_type"], buckets: [...runtimeOperationBuckets], registers: [this.registry] });
    this.probes = new Counter({
      name: "prober_probe_total",
      help: "[ALPHA] Cumulative number of a liveness, readiness or startup probe for a container by result.",
      labelNames: ["probe_type", "result", "container", "pod", "namespace", "pod_uid"],
      registers: [this.probeRegistry],
    });
  }

  private async readCounts(): Promise<RunningCounts | undefined> {
    try {
      return await this.counts?.();
    } catch {
      return undefined;
    }
  }

  /** Sets `kubelet_node_name{node}` to 1. */
  setNodeName(name: string): void {
    this.nodeNameGauge.set({ node: name }, 1);
  }

  /** Where `kubelet_running_pods` and `kubelet_running_containers` come from (asked at each scrape). */
  setRunningCounts(read: () => Promise<RunningCounts>): void {
    this.counts = read;
  }

  /** Records one CRI call: `operation` as 1.23 names it (`list_podsandbox`, `pull_image`...). */
  recordRuntimeOperation(operation: string, seconds: number, failed: boolean): void {
    this.ops.inc({ operation_type: operation });
    this.opDuration.observe({ operation_type: operation }, seconds);
    if (failed) this.opErrors.inc({ operation_type: operation });
  }

  /**
   * Feeds a pod's phase: the first `Pending` seen starts its clock, the first `Running` after it
   * observes `kubelet_pod_start_duration_seconds`. Any later phase forgets the pod.
   */
  observePodPhase(uid: string, phase: string | undefined, nowMs: number = Date.now()): void {
    if (uid === "") return;
    if (phase === "Pending") {
      if (!this.podsSeen.has(uid)) this.podsSeen.set(uid, nowMs);
      return;
    }
    const since = this.podsSeen.get(uid);
    if (phase === "Running" && since !== undefined) this.podStart.observe((nowMs - since) / 1000);
    // Observed once: a pod does not go back to Pending, so nothing is kept once it left it.
    if (phase !== undefined) this.podsSeen.delete(uid);
  }

  /** Counts one probe result in `prober_probe_total`. `probeType` is `Liveness`, `Readiness` or `Startup`. */
  recordProbe(probeType: string, result: ProbeResultLabel, pod: { name: string; namespace: string; uid: string }, container: string): void {
    this.probes.inc({ probe_type: probeType, result, container, pod: pod.name, namespace: pod.namespace, pod_uid: pod.uid });
  }
}

/**
 * The 1.23 operation name of a CRI client method: snake case with `PodSandbox` as one word
 * (`runPodSandbox` → `run_podsandbox`, `imageFsInfo` → `image_fs_info`). Pure.
 */
export function operationName(method: string): string {
  return method.replace(/([pP])odSandbox/g, "$1odsandbox").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/**
 * Wraps a CRI client so every call is recorded in `metrics` (count, duration, errors); `close`
 * passes through. Returns a new object; does not mutate `client`.
 * @see pkg/kubelet/kuberuntime/instrumented_services.go in kubernetes/kubernetes v1.23
 */
export function instrumentCRIClient<T extends object>(client: T, metrics: AgentMetrics): T {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(client)) {
    if (typeof fn !== "function" || name === "close") {
      out[name] = fn;
      continue;
    }
    const op = operationName(name);
    out[name] = async (...args: unknown[]) => {
      const start = performance.now();
      const traced = agentTracer.enabled ? agentTracer.now() : 0;
      try {
        const r: unknown = await (fn as (...a: unknown[]) => Promise<unknown>).apply(client, args);
        metrics.recordRuntimeOperation(op, (performance.now() - start) / 1000, false);
        if (agentTracer.enabled) agentTracer.record("cri", traced, agentTracer.now(), { attrs: { op: name } });
        return r;
      } catch (err) {
        metrics.recordRuntimeOperation(op, (performance.now() - start) / 1000, true);
        throw err;
      }
    };
  }
  return out as T;
}
