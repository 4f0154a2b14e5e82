/**
 * The node lifecycle controller: watches node heartbeats (the Ready condition's lastHeartbeatTime
 * and the node's lease in `kube-node-lease`), marks nodes that stopped reporting as
 * `Ready=Unknown`, taints not-ready and unreachable nodes, and evicts (deletes) the pods on them
 * that do not tolerate the NoExecute taints, so their Jobs create replacements on other nodes.
 * Recovery (the node agent posts `Ready=True` again) removes the taints. It also keeps the
 * NoSchedule taints of the node conditions (memory-pressure, disk-pressure, pid-pressure,
 * network-unavailable, not-ready, unreachable) and of `spec.unschedulable` in step with the node,
 * as 1.23's TaintNodesByCondition.
 *
 * Runs in the controller manager as the `nodelifecycle` row of its table
 * ({@link nodeLifecycleControllerInitializer}).
 *
 * @see pkg/controller/nodelifecycle/node_lifecycle_controller.go (monitorNodeHealth, tryUpdateNodeHealth,
 *   doNoExecuteTaintingPass, doNoScheduleTaintingPass)
 * @see pkg/controller/nodelifecycle/scheduler/taint_manager.go (NoExecuteTaintManager)
 * @see plugin/pkg/admission/defaulttolerationseconds/admission.go (300 s default tolerations)
 * @see pkg/controller/util/node/controller_utils.go (MarkPodsNotReady, RecordNodeStatusChange)
 */

import {
  NamespaceNodeLease,
  NodeDiskPressureTaintKey,
  NodeMemoryPressureTaintKey,
  NodeNetworkUnavailableTaintKey,
  NodeNotReadyTaintKey,
  NodePIDPressureTaintKey,
  NodeUnreachableTaintKey,
  NodeUnschedulableTaintKey,
} from "@skiff/api-types";
import type { Lease, Node, NodeCondition, Pod, Taint, Toleration } from "@skiff/api-types";
import { isConflict, isNotFound } from "@skiff/apimachinery";
import { toleratesTaint } from "@skiff/component-helpers";
import { createEventRecorder, eventSinkOf, realClock } from "@skiff/client";
import type { Client, Clock, Informer, RecordEventFunc } from "@skiff/client";
import { flagTypes as t, mustParseDuration } from "@skiff/flags";
import type { Duration, FlagTable } from "@skiff/flags";
import type { ControllerInitializer } from "../../controller-manager.js";

/** `source.component` of this controller's Events (1.23's name). */
export const nodeLifecycleComponent = "node-controller";

/** Reason of the conditions set when a node stopped posting status. */
export const NodeStatusUnknownReason = "NodeStatusUnknown";
/** Message of the conditions set when a node stopped posting status (1.23's, with the agent's name). */
export const NodeStatusUnknownMessage = "Node agent stopped posting node status.";
/** Reason of the conditions set when a node never posted status within the startup grace period. */
export const NodeStatusNeverUpdatedReason = "NodeStatusNeverUpdated";
/** Message of the conditions set when a node never posted status. */
export const NodeStatusNeverUpdatedMessage = "Node agent never posted node status.";

/** The node conditions the controller sets to Unknown when the node stops reporting (1.23's list). */
const monitoredConditions = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] as const;

/** Options of {@link NodeLifecycleController}. Durations in milliseconds or seconds as named. */
export interface NodeLifecycleControllerOptions {
  readonly client: Client;
  readonly nodeInformer: Informer<Node>;
  readonly podInformer: Informer<Pod>;
  /**
   * Node leases (`kube-node-lease`): a lease whose `spec.renewTime` moved forward is a heartbeat
   * too, as 1.23's NodeLease. Without it only the Ready condition's lastHeartbeatTime counts.
   */
  readonly leaseInformer?: Informer<Lease>;
  /** How often node health is checked. @defaultValue 5000 */
  readonly nodeMonitorPeriodMs?: number;
  /** How long a node may go without a new heartbeat before it is marked Unknown. @defaultValue 40000 */
  readonly nodeMonitorGracePeriodMs?: number;
  /** How long a new node may go without posting any status. @defaultValue 60000 */
  readonly nodeStartupGracePeriodMs?: number;
  /**
   * tolerationSeconds assumed for a pod without a toleration of `node.example.io/not-ready:NoExecute`
   * (what 1.23's DefaultTolerationSeconds admission plugin adds). @defaultValue 300
   */
  readonly defaultNotReadyTolerationSeconds?: number;
  /** The same for `node.example.io/unreachable:NoExecute`. @defaultValue 300 */
  readonly defaultUnreachableTolerationSeconds?: number;
  /** Monotonic clock for probe timestamps and timers. @defaultValue realClock */
  readonly clock?: Clock;
  readonly log?: (message: string) => void;
}

interface NodeHealth {
  heartbeat: string | undefined;
  /** `spec.renewTime` of the newest node lease seen (ms since the epoch). */
  leaseRenewMs: number | undefined;
  probeMs: number;
}

const nodeNameIndex = "spec.nodeName";

/**
 * The controller. `run()` waits for the informers (start them, or their factory, first) and
 * starts the periodic health check; `stop()` ends it. Writes nodes (status conditions through
 * `/status`, taints through update), pods (Ready condition through `/status`, graceful deletes)
 * and Events; never mutates informer objects.
 *
 * Pods in phase Succeeded or Failed are never evicted (1.23's taint manager deletes them too; here
 * they are left for their controllers to count), nor pods already being deleted.
 *
 * @example
 * const factory = createSharedInformerFactory();
 * const nlc = new NodeLifecycleController({ client, nodeInformer: factory.informerFor(client.nodes), podInformer: factory.informerFor(client.pods) });
 * factory.start();
 * await nlc.run();
 */
export class NodeLifecycleController {
  private readonly client: Client;
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  private readonly leases: Informer<Lease> | undefined;
  private readonly periodMs: number;
  private readonly graceMs: number;
  private readonly startupGraceMs: number;
  private readonly defaultTolerations: Record<string, number>;
  private readonly clock: Clock;
  private readonly log: (message: string) => void;
  // NodeNotReady/TaintManagerEviction events, correlated as client-go's recorder.
  private readonly recordEvent: RecordEventFunc;
  private readonly health = new Map<string, NodeHealth>();
  /** Wall-clock ms when a NoExecute taint without timeAdded was first seen, by `node/key`. */
  private readonly taintSeenMs = new Map<string, number>();
  private readonly evicting = new Set<string>();
  private cancelTick: (() => void) | undefined;
  private cancelEvictionTimer: (() => void) | undefined;
  private removeHandlers: Array<() => void> = [];
  private running = false;
  private pass: Promise<void> = Promise.resolve();

  constructor(o: NodeLifecycleControllerOptions) {
    this.client = o.client;
    this.nodes = o.nodeInformer;
    this.pods = o.podInformer;
    this.leases = o.leaseInformer;
    this.periodMs = o.nodeMonitorPeriodMs ?? 5000;
    this.graceMs = o.nodeMonitorGracePeriodMs ?? 40_000;
    this.startupGraceMs = o.nodeStartupGracePeriodMs ?? 60_000;
    this.defaultTolerations = {
      [NodeNotReadyTaintKey]: o.defaultNotReadyTolerationSeconds ?? 300,
      [NodeUnreachableTaintKey]: o.defaultUnreachableTolerationSeconds ?? 300,
    };
    this.clock = o.clock ?? realClock;
    this.log = o.log ?? (() => {});
    this.recordEvent = createEventRecorder(eventSinkOf(this.client), { component: nodeLifecycleComponent }, { onError: (e, ev) => this.log(`event ${ev.reason ?? ""}: ${errorText(e)}`) });
    this.pods.addIndexers({ [nodeNameIndex]: (p: Pod) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
  }

  /** Waits for the informers' first list, then checks node health every `nodeMonitorPeriodMs`. */
  async run(): Promise<void> {
    await Promise.all([this.nodes.waitForSync(), this.pods.waitForSync(), this.leases?.waitForSync()]);
    this.running = true;
    this.removeHandlers = [
      this.nodes.addEventHandler({
        onAdd: (node) => this.scheduleTainting(node),
        onUpdate: (_old, node) => {
          this.observeAndSchedule(node);
          this.scheduleTainting(node);
        },
        onDelete: (n) => {
          const name = ("obj" in n ? n.obj : n).metadata?.name ?? "";
          this.health.delete(name);
        },
      }),
      this.pods.addEventHandler({ onAdd: () => this.schedulePass(), onUpdate: () => this.schedulePass() }),
    ];
    this.tick();
  }

  /** Stops the periodic check and timers; waits for the pass in progress. */
  async stop(): Promise<void> {
    this.running = false;
    this.cancelTick?.();
    this.cancelEvictionTimer?.();
    for (const r of this.removeHandlers) r();
    this.removeHandlers = [];
    await this.pass;
  }

  /** One health check and eviction pass now (tests; also what every period runs). */
  syncOnce(): Promise<void> {
    this.pass = this.pass.then(() => this.monitorNodeHealth()).catch((e: unknown) => this.log(`node lifecycle: ${errorText(e)}`));
    return this.pass;
  }

  private tick(): void {
    if (!this.running) return;
    void this.syncOnce().then(() => {
      if (this.running) this.cancelTick = this.clock.setTimer(() => this.tick(), this.periodMs);
    });
  }

  private observeAndSchedule(node: Node): void {
    this.observe(node);
    this.schedulePass();
  }

  private readonly taintingQueued = new Set<string>();
  /**
   * Brings a node's taints in step with its conditions as soon as an add or update shows they
   * differ (1.23 runs doNoScheduleTaintingPass from the node informer's handlers, not the period).
   */
  private scheduleTainting(node: Node): void {
    const name = node.metadata?.name ?? "";
    if (!this.running || this.taintingQueued.has(name) || sameTaints(node.spec?.taints ?? [], desiredTaints(node))) return;
    this.taintingQueued.add(name);
    this.pass = this.pass
      .then(async () => {
        this.taintingQueued.delete(name);
        if (this.running) await this.reconcileTaints(node);
      })
      .catch((e: unknown) => this.log(`node lifecycle: taint node ${name}: ${errorText(e)}`));
  }

  private passQueued = false;
  private schedulePass(): void {
    if (!this.running || this.passQueued) return;
    this.passQueued = true;
    this.pass = this.pass
      .then(async () => {
        this.passQueued = false;
        await this.evictionPass();
      })
      .catch((e: unknown) => this.log(`node lifecycle: ${errorText(e)}`));
  }

  /**
   * Records a new heartbeat at the local clock's time: a changed Ready lastHeartbeatTime, or a
   * node lease renewed later than the one last seen (1.23's tryUpdateNodeHealth: whichever moved
   * last sets the probe time).
   */
  private observe(node: Node): NodeHealth {
    const name = node.metadata?.name ?? "";
    const heartbeat = readyCondition(node)?.lastHeartbeatTime;
    const renewTime = this.leases?.store.get(`${NamespaceNodeLease}/${name}`)?.spec?.renewTime;
    const parsedRenewMs = renewTime === undefined ? Number.NaN : Date.parse(renewTime);
    const leaseRenewMs = Number.isNaN(parsedRenewMs) ? undefined : parsedRenewMs;
    const saved = this.health.get(name);
    if (saved === undefined || saved.heartbeat !== heartbeat) {
      const h = { heartbeat, leaseRenewMs: leaseRenewMs ?? saved?.leaseRenewMs, probeMs: this.clock.now() };
      this.health.set(name, h);
      return h;
    }
    if (leaseRenewMs !== undefined && (saved.leaseRenewMs === undefined || saved.leaseRenewMs < leaseRenewMs)) {
      saved.leaseRenewMs = leaseRenewMs;
      saved.probeMs = this.clock.now();
    }
    return saved;
  }

  private async monitorNodeHealth(): Promise<void> {
    for (const cached of this.nodes.store.list()) {
      const name = cached.metadata?.name ?? "";
      const health = this.observe(cached);
      const ready = readyCondition(cached);
      const graceMs = ready === undefined ? this.startupGraceMs : this.graceMs;
      let node = cached;
      if (this.clock.now() - health.probeMs > graceMs) {
        const updated = await this.markUnknown(name);
        if (updated) node = updated;
      }
      const status = readyCondition(node)?.status;
      if (status !== undefined && status !== "True" && readyCondition(cached)?.status === "True") {
        this.log(`node ${name} is not ready (Ready=${status})`);
        this.event(node, "Normal", "NodeNotReady", `Node ${name} status is now: NodeNotReady`);
        await this.markPodsNotReady(name);
      }
      await this.reconcileTaints(node);
    }
    await this.evictionPass();
  }

  /** Sets the monitored conditions to Unknown (those not Unknown yet); returns the new node. */
  private async markUnknown(name: string): Promise<Node | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let node: Node;
      try {
        node = await this.client.nodes.get(name);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
      const now = wallTime();
      const conditions = [...(node.status?.conditions ?? [])];
      let changed = false;
      for (const type of monitoredConditions) {
        const i = conditions.findIndex((c) => c.type === type);
        const cur = i >= 0 ? conditions[i] : undefined;
        if (cur === undefined) {
          conditions.push({ type, status: "Unknown", reason: NodeStatusNeverUpdatedReason, message: NodeStatusNeverUpdatedMessage, lastHeartbeatTime: now, lastTransitionTime: now });
          changed = true;
        } else if (cur.status !== "Unknown") {
          conditions[i] = { ...cur, status: "Unknown", reason: NodeStatusUnknownReason, message: NodeStatusUnknownMessage, lastTransitionTime: now };
          changed = true;
        }
      }
      if (!changed) return node;
      try {
        const updated = await this.client.nodes.updateStatus({ ...node, status: { ...node.status, conditions } });
        this.log(`node ${name}: no status for longer than the grace period; conditions set to Unknown`);
        return updated;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
    return undefined;
  }

  private async markPodsNotReady(nodeName: string): Promise<void> {
    for (const pod of this.pods.store.byIndex(nodeNameIndex, nodeName)) {
      const ready = pod.status?.conditions?.find((c) => c.type === "Ready");
      if (ready?.status !== "True" || isTerminal(pod)) continue;
      try {
        const cur = await this.client.pods.get(pod.metadata?.name ?? "", { namespace: pod.metadata?.namespace ?? "" });
        const conditions = (cur.status?.conditions ?? []).map((c) => (c.type === "Ready" ? { ...c, status: "False", lastTransitionTime: wallTime() } : c));
        await this.client.pods.updateStatus({ ...cur, status: { ...cur.status, conditions } }, { namespace: pod.metadata?.namespace ?? "" });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) this.log(`mark pod ${pod.metadata?.name ?? ""} not ready: ${errorText(e)}`);
      }
    }
  }

  /** The node's taints are made {@link desiredTaints} (re-read and retried on conflict). */
  private async reconcileTaints(cached: Node): Promise<void> {
    const name = cached.metadata?.name ?? "";
    if (sameTaints(cached.spec?.taints ?? [], desiredTaints(cached))) return;
    for (let attempt = 0; attempt < 5; attempt++) {
      let node: Node;
      try {
        node = await this.client.nodes.get(name);
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      const want = desiredTaints(node);
      if (sameTaints(node.spec?.taints ?? [], want)) return;
      try {
        await this.client.nodes.update({ ...node, spec: { ...node.spec, taints: want } });
        this.log(`node ${name}: taints now ${want.map((x) => `${x.key}:${x.effect}`).join(", ") || "none of ours"}`);
        return;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  }

  /** Deletes pods whose toleration time of their node's NoExecute taints has passed; arms a timer for the next. */
  private async evictionPass(): Promise<void> {
    const nowMs = Date.now();
    let nextMs = Infinity;
    for (const node of this.nodes.store.list()) {
      const nodeName = node.metadata?.name ?? "";
      const taints = (node.spec?.taints ?? []).filter((x) => x.effect === "NoExecute");
      if (taints.length === 0) {
        for (const k of this.taintSeenMs.keys()) if (k.startsWith(`${nodeName}/`)) this.taintSeenMs.delete(k);
        continue;
      }
      for (const pod of this.pods.store.byIndex(nodeNameIndex, nodeName)) {
        if (isTerminal(pod) || pod.metadata?.deletionTimestamp) continue;
        const atMs = this.evictionTimeMs(nodeName, taints, pod.spec?.tolerations ?? [], nowMs);
        if (atMs === undefined) continue;
        if (atMs <= nowMs) await this.evict(pod, nodeName);
        else nextMs = Math.min(nextMs, atMs);
      }
    }
    this.cancelEvictionTimer?.();
    this.cancelEvictionTimer = undefined;
    if (this.running && Number.isFinite(nextMs)) {
      this.cancelEvictionTimer = this.clock.setTimer(() => this.schedulePass(), nextMs - Date.now() + 10);
    }
  }

  /** Wall-clock ms when the pod must go, or undefined when it tolerates the taints forever. */
  private evictionTimeMs(nodeName: string, taints: readonly Taint[], tolerations: readonly Toleration[], nowMs: number): number | undefined {
    let atMs = Infinity;
    for (const taint of taints) {
      const key = `${nodeName}/${taint.key}`;
      let startMs = taint.timeAdded !== undefined ? Date.parse(taint.timeAdded) : NaN;
      if (Number.isNaN(startMs)) {
        startMs = this.taintSeenMs.get(key) ?? nowMs;
        this.taintSeenMs.set(key, startMs);
      }
      const seconds = tolerationSecondsFor(taint, tolerations, this.defaultTolerations);
      if (seconds === undefined) continue;
      atMs = Math.min(atMs, startMs + seconds * 1000);
    }
    return Number.isFinite(atMs) ? atMs : undefined;
  }

  private async evict(pod: Pod, nodeName: string): Promise<void> {
    const ns = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    const key = `${ns}/${name}/${pod.metadata?.uid ?? ""}`;
    if (this.evicting.has(key)) return;
    this.evicting.add(key);
    try {
      await this.client.pods.delete(name, { namespace: ns, ...(pod.metadata?.uid ? { preconditions: { uid: pod.metadata.uid } } : {}) });
      this.log(`evicted pod ${ns}/${name} from node ${nodeName}`);
      this.event(pod, "Normal", "TaintManagerEviction", `Marking for deletion Pod ${ns}/${name}`);
    } catch (e) {
      this.evicting.delete(key);
      if (!isNotFound(e) && !isConflict(e)) this.log(`evict pod ${ns}/${name}: ${errorText(e)}`);
    }
  }

  private event(obj: Node | Pod, type: "Normal" | "Warning", reason: string, message: string): void {
    const kind = "spec" in obj && obj.spec !== undefined && "containers" in obj.spec ? "Pod" : "Node";
    this.recordEvent({ apiVersion: "v1", kind, ...obj }, type, reason, message);
  }
}

/**
 * Seconds a pod with `tolerations` may stay on a node with the NoExecute `taint`: 0 when no
 * toleration matches (or for the not-ready / unreachable keys, the `defaults` the admission plugin
 * would have added); otherwise the smallest `tolerationSeconds` of the matching tolerations
 * (negative counts as 0); undefined (forever) when none of them sets it. Pure.
 * @see pkg/controller/nodelifecycle/scheduler/taint_manager.go (getMinTolerationTime)
 */
export function tolerationSecondsFor(taint: Taint, tolerations: readonly Toleration[], defaults: Readonly<Record<string, number>> = {}): number | undefined {
  const matching = tolerations.filter((x) => toleratesTaint(x, taint));
  if (matching.length === 0) return defaults[taint.key] ?? 0;
  let min: number | undefined;
  for (const m of matching) {
    if (m.tolerationSeconds === undefined || m.tolerationSeconds === null) continue;
    const s = Math.max(0, Number(m.tolerationSeconds));
    min = min === undefined ? s : Math.min(min, s);
  }
  return min;
}

/**
 * Which NoSchedule taint each node condition status stands for (1.23's
 * `nodeConditionToTaintKeyStatusMap`, TaintNodesByCondition): Ready False → not-ready, Unknown →
 * unreachable; MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable True → their taints.
 * @see pkg/controller/nodelifecycle/node_lifecycle_controller.go (nodeConditionToTaintKeyStatusMap)
 */
export const nodeConditionToTaintKey: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: NodeNotReadyTaintKey, Unknown: NodeUnreachableTaintKey },
  MemoryPressure: { True: NodeMemoryPressureTaintKey },
  DiskPressure: { True: NodeDiskPressureTaintKey },
  NetworkUnavailable: { True: NodeNetworkUnavailableTaintKey },
  PIDPressure: { True: NodePIDPressureTaintKey },
};

/** The NoSchedule taint keys this controller owns (the condition taints and the unschedulable one). */
const noScheduleKeys = new Set([NodeNotReadyTaintKey, NodeUnreachableTaintKey, NodeMemoryPressureTaintKey, NodeDiskPressureTaintKey, NodeNetworkUnavailableTaintKey, NodePIDPressureTaintKey, NodeUnschedulableTaintKey]);

/**
 * The node's taints with the controller's own set from its status and spec:
 * - NoSchedule (1.23's doNoScheduleTaintingPass, TaintNodesByCondition): one per condition whose
 *   status maps to a taint ({@link nodeConditionToTaintKey}), and `node.example.io/unschedulable`
 *   when `spec.unschedulable`;
 * - NoExecute (doNoExecuteTaintingPass): not-ready when Ready is False, unreachable when Unknown.
 * Taints match by key and effect (1.23's `TaintSetDiff`): a wanted taint already present is kept
 * as it is (value, `timeAdded`); a new one gets `timeAdded` = now (`SwapNodeControllerTaint`);
 * one of ours no longer wanted is dropped. Other taints are kept in place. Pure but for the clock.
 * @see pkg/controller/nodelifecycle/node_lifecycle_controller.go (doNoExecuteTaintingPass, doNoScheduleTaintingPass)
 * @see pkg/controller/util/node/controller_utils.go (SwapNodeControllerTaint)
 */
export function desiredTaints(node: Node): Taint[] {
  const current = node.spec?.taints ?? [];
  const want: Array<{ key: string; effect: "NoSchedule" | "NoExecute" }> = [];
  for (const c of node.status?.conditions ?? []) {
    const key = nodeConditionToTaintKey[c.type]?.[c.status];
    if (key !== undefined && !want.some((w) => w.key === key)) want.push({ key, effect: "NoSchedule" });
  }
  if (node.spec?.unschedulable === true) want.push({ key: NodeUnschedulableTaintKey, effect: "NoSchedule" });
  const status = readyCondition(node)?.status;
  const noExecuteKey = status === "False" ? NodeNotReadyTaintKey : status === "Unknown" ? NodeUnreachableTaintKey : undefined;
  if (noExecuteKey !== undefined) want.push({ key: noExecuteKey, effect: "NoExecute" });

  const ours = (x: Taint): boolean =>
    (x.effect === "NoSchedule" && noScheduleKeys.has(x.key)) || (x.effect === "NoExecute" && (x.key === NodeNotReadyTaintKey || x.key === NodeUnreachableTaintKey));
  const wanted = (x: Taint): boolean => want.some((w) => w.key === x.key && w.effect === x.effect);
  const out = current.filter((x) => !ours(x) || wanted(x));
  const now = wallTime();
  for (const w of want) if (!out.some((x) => x.key === w.key && x.effect === w.effect)) out.push({ key: w.key, effect: w.effect, timeAdded: now });
  return out;
}

function sameTaints(a: readonly Taint[], b: readonly Taint[]): boolean {
  const f = (x: Taint): string => `${x.key}=${x.value ?? ""}:${x.effect}`;
  const sa = a.map(f).sort();
  const sb = b.map(f).sort();
  return sa.length === sb.length && sa.every((x, i) => x === sb[i]);
}

function readyCondition(node: Node): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === "Ready");
}

function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

function wallTime(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The controller's command-line options. */
export interface NodeLifecycleOptionValues {
  nodeMonitorPeriod: Duration;
  nodeMonitorGracePeriod: Duration;
  nodeStartupGracePeriod: Duration;
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
}

/**
 * The controller's flags (kube-controller-manager's and kube-apiserver's names and defaults).
 * @see cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go
 */
export const nodeLifecycleFlagTable = {
  nodeMonitorPeriod: { name: "node-monitor-period", type: t.duration, default: durationOf("5s"), usage: "The period for syncing NodeStatus in NodeController." },
  nodeMonitorGracePeriod: {
    name: "node-monitor-grace-period",
    type: t.duration,
    default: durationOf("40s"),
    usage: "Amount of time which we allow running Node to be unresponsive before marking it unhealthy. Must be N times more than the node agent's nodeStatusUpdateFrequency.",
  },
  nodeStartupGracePeriod: {
    name: "node-startup-grace-period",
    type: t.duration,
    default: durationOf("1m"),
    usage: "Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.",
  },
  defaultNotReadyTolerationSeconds: {
    name: "default-not-ready-toleration-seconds",
    type: t.int64,
    default: 300,
    usage: "Indicates the tolerationSeconds of the toleration for notReady:NoExecute assumed for every pod that does not already have such a toleration.",
  },
  defaultUnreachableTolerationSeconds: {
    name: "default-unreachable-toleration-seconds",
    type: t.int64,
    default: 300,
    usage: "Indicates the tolerationSeconds of the toleration for unreachable:NoExecute assumed for every pod that does not already have such a toleration.",
  },
} satisfies FlagTable<NodeLifecycleOptionValues>;

function durationOf(text: string): Duration {
  return mustParseDuration(text);
}

/**
 * The node lifecycle controller's row of the controller table: the controller over the shared Node
 * and Pod informers and a Lease informer on `kube-node-lease`, with its flags (durations positive,
 * toleration seconds not negative). Adding it to the table is all it takes to run it.
 * @see cmd/kube-controller-manager/app/core.go (startNodeLifecycleController)
 */
export const nodeLifecycleControllerInitializer = {
  name: "nodelifecycle",
  clientName: "node-controller",
  flags: {
    section: "Node lifecycle controller",
    table: nodeLifecycleFlagTable,
    validate(value) {
      const errors: string[] = [];
      for (const k of ["nodeMonitorPeriod", "nodeMonitorGracePeriod", "nodeStartupGracePeriod"] as const) {
        if (!(value[k].ms > 0)) errors.push(`--${nodeLifecycleFlagTable[k].name} must be positive`);
      }
      for (const k of ["defaultNotReadyTolerationSeconds", "defaultUnreachableTolerationSeconds"] as const) {
        if (value[k] < 0) errors.push(`--${nodeLifecycleFlagTable[k].name} must not be negative`);
      }
      return errors;
    },
  },
  start(ctx) {
    const o = ctx.options;
    const controller = new NodeLifecycleController({
      client: ctx.client,
      nodeInformer: ctx.informerFactory.informerFor(ctx.informerClient.nodes),
      podInformer: ctx.informerFactory.informerFor(ctx.informerClient.pods),
      leaseInformer: ctx.informerFactory.informerFor(ctx.informerClient.resource<Lease>("leases.coordination.k8s.io"), { namespace: NamespaceNodeLease }),
      nodeMonitorPeriodMs: o.nodeMonitorPeriod.ms,
      nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriod.ms,
      nodeStartupGracePeriodMs: o.nodeStartupGracePeriod.ms,
      defaultNotReadyTolerationSeconds: o.defaultNotReadyTolerationSeconds,
      defaultUnreachableTolerationSeconds: o.defaultUnreachableTolerationSeconds,
      log: ctx.log,
    });
    const started = controller.run().then(
      () => ctx.log(`node lifecycle controller started (grace period ${o.nodeMonitorGracePeriod.toString()})`),
      (e: unknown) => ctx.log(`node lifecycle controller: ${errorText(e)}`),
    );
    return { started, stop: () => controller.stop() };
  },
} satisfies ControllerInitializer<NodeLifecycleOptionValues>;
