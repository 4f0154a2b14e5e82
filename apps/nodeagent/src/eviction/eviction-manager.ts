/**
 * The eviction manager: every monitoring period it reads the stats summary, decides which
 * thresholds are met (hard at once, soft after their grace period, until minimum reclaim is
 * reached), reports MemoryPressure/DiskPressure/PIDPressure (kept for the pressure transition
 * period), reclaims node-level resources for disk signals (dead containers, unused images) and,
 * if that is not enough, evicts one pod per cycle. With LocalStorageCapacityIsolation it first
 * evicts the pods that break an emptyDir `sizeLimit` or an `ephemeral-storage` limit. It is also
 * the first pod admission handler.
 * @see pkg/kubelet/eviction/eviction_manager.go in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import type { AdmitResult } from "../pods/admission.js";
import { isCriticalPod, podQOSClass } from "../pods/resources.js";
import type { Summary } from "../stats/types.js";
import type { EvictionSignal, PodStatsFunc, PressureCondition, SignalObservations, Threshold } from "./helpers.js";
import {
  buildSignalToRankFunc,
  evictionMessage,
  evictionReason,
  hasLocalStorageLimits,
  isHardEvictionThreshold,
  localStorageViolation,
  makeSignalObservations,
  mergeThresholds,
  nodeConditionMessage,
  nodeConditions,
  nodeConditionsLastObservedAt,
  nodeConditionsObservedSince,
  signalResource,
  sortByEvictionPriority,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
  thresholdsUpdatedStats,
} from "./helpers.js";

/** Grace period of a pod evicted for a hard threshold, seconds (1.23's `immediateEvictionGracePeriodSeconds`). */
export const immediateEvictionGracePeriodSeconds = 1;

/** How often the manager synchronizes, ms (the kubelet's `evictionMonitoringPeriod`). */
export const evictionMonitoringPeriodMs = 10_000;

/** A node-level reclaim step for disk signals: container GC's or image GC's "delete everything unused". */
export type NodeReclaimFunc = () => Promise<void>;

/** Options of {@link EvictionManager}. */
export interface EvictionManagerOptions {
  /** From {@link parseThresholdConfig}. Empty: the manager never evicts and reports no pressure. */
  readonly thresholds: readonly Threshold[];
  /** `--eviction-pressure-transition-period`, ms. */
  readonly pressureTransitionPeriodMs: number;
  /** `--eviction-max-pod-grace-period` (seconds) for soft evictions; negative: the pod's own grace period. */
  readonly maxPodGracePeriodSeconds: number;
  /**
   * A fresh stats summary (the stats provider's `summary(false, { updateStats })`: memory and fs
   * read now). Called with `updateStats` true, as 1.23's `summaryProvider.Get(ctx, true)`: the
   * provider may take its periodic CPU sample from this pass's CRI listing. With
   * `podsCpuAndMemoryOnly` the pods' entries may hold only CPU and memory (no logs, rootfs,
   * volumes, ephemeral storage, network or process counts); the node's entry is whole either way.
   */
  readonly summary: (updateStats: boolean, podsCpuAndMemoryOnly?: boolean) => Promise<Summary>;
  /** Whether the image fs is a device of its own (decides which reclaim and ranking a disk signal gets). */
  readonly hasDedicatedImageFs: () => Promise<boolean>;
  /** Admitted pods that are not finished (the eviction candidates). */
  readonly activePods: () => Pod[];
  /**
   * Kills `pod` with `gracePeriodSeconds` (undefined: the pod's own) and sets its status
   * `Failed`/`Evicted`/`message`; resolves once the kill was started. Records nothing.
   */
  readonly evictPod: (pod: Pod, gracePeriodSeconds: number | undefined, message: string) => Promise<void>;
  /** Whether an evicted pod is cleaned up (its containers gone); the next cycle waits for it, at most 30 s. */
  readonly podCleanedUp?: (pod: Pod) => boolean;
  /** Container GC's `DeleteAllUnusedContainers`. */
  readonly deleteAllUnusedContainers?: NodeReclaimFunc;
  /** Image GC's `DeleteUnusedImages`. */
  readonly deleteUnusedImages?: NodeReclaimFunc;
  /** Records an event on the pod (the `Evicted` warning). */
  readonly recordPodEvent?: (pod: Pod, type: "Normal" | "Warning", reason: string, message: string) => void;
  /** Records an event on the Node (`EvictionThresholdMet`); settable later with {@link EvictionManager.setNodeEventRecorder}. */
  readonly recordNodeEvent?: (type: "Normal" | "Warning", reason: string, message: string) => void;
  /** Called when the node conditions change (the node status manager posts them sooner). */
  readonly onConditionsChange?: (conditions: readonly PressureCondition[]) => void;
  readonly log: (message: string, level?: number) => void;
  /**
   * `--kernel-memcg-notification`: the agent has no cgroup memory threshold notifier, so it says
   * so at start (as 1.23 does when creating one fails) and memory thresholds are polled.
   */
  readonly kernelMemcgNotification?: boolean;
  /**
   * The `LocalStorageCapacityIsolation` gate (beta, on by default in 1.23): every pass also evicts
   * the pods that break an emptyDir `sizeLimit` or an `ephemeral-storage` limit (grace period 0),
   * even with no threshold configured. @defaultValue false
   */
  readonly localStorageCapacityIsolation?: boolean;
  /** @defaultValue Date.now */
  readonly clock?: () => number;
  /** @defaultValue {@link evictionMonitoringPeriodMs} */
  readonly monitoringPeriodMs?: number;
}

const podCleanupTimeoutMs = 30_000;

/** The taint the node lifecycle controller puts on a node with MemoryPressure (1.23: `node.kubernetes.io/memory-pressure`). */
export const memoryPressureTaintKey = "node.example.io/memory-pressure";

const podName = (p: Pod) => `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`;

/**
 * The kubelet's eviction manager over the agent's stats provider and pod runtime.
 * @example
 * ```ts
 * const m = new EvictionManager({ thresholds: parseThresholdConfig(config), pressureTransitionPeriodMs: 300_000,
 *   maxPodGracePeriodSeconds: 0, summary: (updateStats, podsCpuAndMemoryOnly) => stats.summary(false, { updateStats, podsCpuAndMemoryOnly: podsCpuAndMemoryOnly === true }), hasDedicatedImageFs: () => stats.hasDedicatedImageFs(),
 *   activePods: () => runtime.activePods(), evictPod: (pod, grace, message) => runtime.evictPod(pod, grace, message), log });
 * m.start();
 * m.admit(pod); // { admit: false, reason: "Evicted", message: "The node had condition: [MemoryPressure]. " } under memory pressure
 * ```
 * @see pkg/kubelet/eviction/eviction_manager.go (managerImpl) in kubernetes/kubernetes v1.23
 */
export class EvictionManager {
  private conditions: PressureCondition[] = [];
  private conditionsLastObservedAt = new Map<PressureCondition, number>();
  private firstObservedAt = new Map<Threshold, number>();
  private met: Threshold[] = [];
  private lastObservations: SignalObservations = new Map();
  private dedicatedImageFs: boolean | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private waitingFor: { pods: Pod[]; untilMs: number } | undefined;
  private recordNodeEvent: EvictionManagerOptions["recordNodeEvent"];
  private lastSyncMs = Number.NEGATIVE_INFINITY;
  private readonly clock: () => number;

  constructor(private readonly o: EvictionManagerOptions) {
    this.clock = o.clock ?? Date.now;
    this.recordNodeEvent = o.recordNodeEvent;
  }

  /** Sets where Node events go (API-server mode, once the node reference exists). */
  setNodeEventRecorder(record: EvictionManagerOptions["recordNodeEvent"]): void {
    this.recordNodeEvent = record;
  }

  /**
   * Admission under pressure: with no condition every pod is admitted, as are critical pods; with
   * MemoryPressure alone, pods that are not BestEffort and BestEffort pods tolerating the
   * `node.example.io/memory-pressure:NoSchedule` taint (1.23: `node.kubernetes.io/memory-pressure`); otherwise refused with reason `Evicted`
   * and `The node had condition: [<conditions>]. `. Pure with respect to `pod`.
   * @see pkg/kubelet/eviction/eviction_manager.go (Admit) in kubernetes/kubernetes v1.23
   */
  admit(pod: Pod): AdmitResult {
    if (this.conditions.length === 0 || isCriticalPod(pod)) return { admit: true };
    if (this.conditions.length === 1 && this.conditions[0] === "MemoryPressure") {
      if (podQOSClass(pod) !== "BestEffort") return { admit: true };
      const tolerates = (pod.spec?.tolerations ?? []).some(
        (t) => (t.effect === undefined || t.effect === "NoSchedule") && ((t.operator === "Exists" && (t.key === undefined || t.key === "")) || (t.key === memoryPressureTaintKey && (t.operator === "Exists" || (t.value ?? "") === ""))),
      );
      if (tolerates) return { admit: true };
    }
    this.o.log(`Failed to admit pod to node pod="${podName(pod)}" nodeCondition=[${this.conditions.join(" ")}]`);
    return { admit: false, reason: evictionReason, message: nodeConditionMessage(this.conditions) };
  }

  /** The pressure conditions now reported. */
  nodeConditions(): readonly PressureCondition[] {
    return this.conditions;
  }

  /** The conditions as the node status builder takes them. */
  nodePressure(): { memory: boolean; disk: boolean; pid: boolean } {
    return { memory: this.conditions.includes("MemoryPressure"), disk: this.conditions.includes("DiskPressure"), pid: this.conditions.includes("PIDPressure") };
  }

  /** Starts synchronizing every monitoring period (the first one now). */
  start(): void {
    if (this.timer || this.stopped) return;
    const periodMs = this.o.monitoringPeriodMs ?? evictionMonitoringPeriodMs;
    if (this.o.kernelMemcgNotification === true && this.o.thresholds.some((t) => t.signal === "memory.available" || t.signal === "allocatableMemory.available")) {
      this.o.log(`Eviction manager: failed to create memory threshold notifier err="cgroup memory threshold notifications are not supported by the node agent; memory thresholds are polled every ${periodMs / 1000}s"`);
    }
    let busy = false;
    const tick = async (): Promise<void> => {
      if (busy || this.stopped) return;
      busy = true;
      try {
        if (this.waitingFor) {
          const { pods, untilMs } = this.waitingFor;
          const done = this.o.podCleanedUp ? pods.every((p) => this.o.podCleanedUp?.(p)) : true;
          if (!done && this.clock() < untilMs) return;
          this.o.log(done ? `Eviction manager: pods successfully cleaned up pods=[${pods.map(podName).join(" ")}]` : `Eviction manager: timed out waiting for pods to be cleaned up pods=[${pods.map(podName).join(" ")}]`);
          this.waitingFor = undefined;
        } else if (this.clock() - this.lastSyncMs < periodMs) return;
        this.lastSyncMs = this.clock();
        const evicted = await this.synchronize();
        if (evicted.length > 0) {
          this.o.log(`Eviction manager: pods evicted, waiting for pod to be cleaned up pods=[${evicted.map(podName).join(" ")}]`);
          this.waitingFor = { pods: evicted, untilMs: this.clock() + podCleanupTimeoutMs };
        }
      } catch (err) {
        this.o.log(`Eviction manager: failed to synchronize: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        busy = false;
      }
    };
    void tick();
    // While waiting for a cleanup the kubelet polls every second; one timer serves both.
    this.timer = setInterval(() => void tick(), Math.min(periodMs, 1_000));
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /**
   * One control-loop pass; resolves with the pods evicted (at most one). Errors reading stats are
   * logged and end the pass without a change.
   * @see pkg/kubelet/eviction/eviction_manager.go (synchronize) in kubernetes/kubernetes v1.23
   */
  async synchronize(): Promise<Pod[]> {
    if (this.o.thresholds.length === 0 && this.o.localStorageCapacityIsolation !== true) return [];
    if (this.dedicatedImageFs === undefined) {
      try {
        this.dedicatedImageFs = await this.o.hasDedicatedImageFs();
      } catch (err) {
        throw new Error(`eviction manager: failed to get HasDedicatedImageFs: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
    const activePods = this.o.activePods();
    // The pods' disk usage (logs, rootfs, volumes: a walk of every pod's log directory) is read
    // only when something will look at it: a pod with a local storage limit, or a threshold met
    // (ranking, below). The node's signals and the pods' memory (allocatableMemory.available) come
    // from every pass. With 100 pods this was most of the agent's work at idle.
    const podDetailNeeded = this.o.localStorageCapacityIsolation === true && activePods.some(hasLocalStorageLimits);
    let summary: Summary;
    try {
      summary = await this.o.summary(true, !podDetailNeeded);
    } catch (err) {
      this.o.log(`Eviction manager: failed to get summary stats: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }
    const made = makeSignalObservations(summary);
    const observations = made.observations;
    let statsFunc = made.statsFunc;
    let thresholds = thresholdsMet(this.o.thresholds, observations, false);
    if (this.met.length > 0) thresholds = mergeThresholds(thresholds, thresholdsMet(this.met, observations, true));
    const now = this.clock();
    const firstObservedAt = thresholdsFirstObservedAt(thresholds, this.firstObservedAt, now);
    const observedConditions = nodeConditions(thresholds);
    const lastObservedAt = nodeConditionsLastObservedAt(observedConditions, this.conditionsLastObservedAt, now);
    const conditions = nodeConditionsObservedSince(lastObservedAt, this.o.pressureTransitionPeriodMs, now);
    thresholds = thresholdsMetGracePeriod(firstObservedAt, now);

    const changed = conditions.length !== this.conditions.length || conditions.some((c) => !this.conditions.includes(c));
    this.conditions = conditions;
    this.firstObservedAt = firstObservedAt;
    this.conditionsLastObservedAt = lastObservedAt;
    this.met = thresholds;
    thresholds = thresholdsUpdatedStats(thresholds, observations, this.lastObservations);
    this.lastObservations = observations;
    if (changed) {
      this.o.log(`Eviction manager: node conditions now [${conditions.join(" ")}]`);
      this.o.onConditionsChange?.(conditions);
    }
    // Local storage limits first; a pass that evicts for them does nothing else.
    if (this.o.localStorageCapacityIsolation === true) {
      const evicted = await this.localStorageEviction(activePods, statsFunc);
      if (evicted.length > 0) return evicted;
    }
    if (thresholds.length === 0) {
      this.o.log("Eviction manager: no resources are starved", 3);
      return [];
    }
    const toReclaim = sortByEvictionPriority(thresholds)[0];
    if (!toReclaim) return [];
    const resource = signalResource(toReclaim.signal);
    this.o.log(`Eviction manager: attempting to reclaim resourceName="${resource}"`);
    this.recordNodeEvent?.("Warning", "EvictionThresholdMet", `Attempting to reclaim ${resource}`);
    if (await this.reclaimNodeLevelResources(toReclaim.signal, resource)) {
      this.o.log(`Eviction manager: able to reduce resource pressure without evicting pods. resourceName="${resource}"`);
      return [];
    }
    this.o.log(`Eviction manager: must evict pod(s) to reclaim resourceName="${resource}"`);
    const rank = buildSignalToRankFunc(this.dedicatedImageFs).get(toReclaim.signal);
    if (!rank) return [];
    if (activePods.length === 0) {
      this.o.log("Eviction manager: eviction thresholds have been met, but no pods are active to evict");
      return [];
    }
    if (!podDetailNeeded) {
      try {
        ({ statsFunc } = makeSignalObservations(await this.o.summary(true)));
      } catch (err) {
        this.o.log(`Eviction manager: failed to get summary stats: ${err instanceof Error ? err.message : String(err)}`);
        return [];
      }
    }
    const ranked = [...activePods];
    rank(ranked, statsFunc);
    this.o.log(`Eviction manager: pods ranked for eviction pods=[${ranked.map(podName).join(" ")}]`);
    for (const pod of ranked) {
      let grace: number | undefined = immediateEvictionGracePeriodSeconds;
      if (!isHardEvictionThreshold(toReclaim)) grace = this.o.maxPodGracePeriodSeconds < 0 ? undefined : this.o.maxPodGracePeriodSeconds;
      if (await this.evict(pod, grace, evictionMessage(resource, pod, statsFunc))) return [pod];
    }
    this.o.log("Eviction manager: unable to evict any pods from the node");
    return [];
  }

  /**
   * Evicts, with grace period 0, every pod that breaks a local storage limit
   * ({@link localStorageViolation}); resolves with those evicted.
   * @see pkg/kubelet/eviction/eviction_manager.go (localStorageEviction) in kubernetes/kubernetes v1.23
   */
  private async localStorageEviction(pods: readonly Pod[], statsFunc: PodStatsFunc): Promise<Pod[]> {
    const evicted: Pod[] = [];
    for (const pod of pods) {
      const podStats = statsFunc(pod);
      if (!podStats) continue;
      const message = localStorageViolation(pod, podStats, this.dedicatedImageFs === true);
      if (message !== undefined && (await this.evict(pod, 0, message))) evicted.push(pod);
    }
    return evicted;
  }

  private async evict(pod: Pod, grace: number | undefined, message: string): Promise<boolean> {
    if (isCriticalPod(pod)) {
      this.o.log(`Eviction manager: cannot evict a critical pod pod="${podName(pod)}"`);
      return false;
    }
    this.o.recordPodEvent?.(pod, "Warning", evictionReason, message);
    try {
      await this.o.evictPod(pod, grace, message);
      this.o.log(`Eviction manager: pod is evicted successfully pod="${podName(pod)}"`);
    } catch (err) {
      this.o.log(`Eviction manager: pod failed to evict pod="${podName(pod)}": ${err instanceof Error ? err.message : String(err)}`);
    }
    return true;
  }

  /**
   * Runs the node-level reclaim of a disk signal (dead containers, then unused images) and tells
   * whether every threshold is now resolved (including minimum reclaim), so no pod need go.
   * Memory and PID signals have none.
   * @see pkg/kubelet/eviction/eviction_manager.go (reclaimNodeLevelResources), helpers.go (buildSignalToNodeReclaimFuncs) in kubernetes/kubernetes v1.23
   */
  private async reclaimNodeLevelResources(signal: EvictionSignal, resource: string): Promise<boolean> {
    const funcs = this.reclaimFuncs(signal);
    for (const f of funcs) {
      try {
        await f();
      } catch (err) {
        this.o.log(`Eviction manager: unexpected error when attempting to reduce resource pressure resourceName="${resource}": ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (funcs.length === 0) return false;
    let summary: Summary;
    try {
      summary = await this.o.summary(true);
    } catch (err) {
      this.o.log(`Eviction manager: failed to get summary stats after resource reclaim: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
    const { observations } = makeSignalObservations(summary);
    return thresholdsMet(this.o.thresholds, observations, true).length === 0;
  }

  private reclaimFuncs(signal: EvictionSignal): NodeReclaimFunc[] {
    const both = [this.o.deleteAllUnusedContainers, this.o.deleteUnusedImages].filter((f): f is NodeReclaimFunc => f !== undefined);
    const isImageFs = signal === "imagefs.available" || signal === "imagefs.inodesFree";
    const isNodeFs = signal === "nodefs.available" || signal === "nodefs.inodesFree";
    if (isImageFs) return both;
    if (isNodeFs && this.dedicatedImageFs !== true) return both;
    return [];
  }
}

export type { PodStatsFunc };
