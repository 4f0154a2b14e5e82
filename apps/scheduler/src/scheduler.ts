/**
 * The scheduling loop: informers on unassigned pods, assigned pods and nodes; a work queue of
 * pending pods; filter, score, assume, then bind in the background (the binding cycle), so the
 * next pod is scheduled while the last one's bind is in flight; unschedulable pods get
 * `PodScheduled=False` and an Event and are retried when nodes change or assigned pods go away.
 *
 * @see pkg/scheduler/scheduler.go (`scheduleOne`: the binding cycle runs in its own goroutine; `skipPodSchedule`)
 * @see pkg/scheduler/internal/queue/scheduling_queue.go (unschedulable pods moved back on cluster events)
 * @see pkg/scheduler/framework/plugins/queuesort/priority_sort.go
 */

import type { Namespace, Node, Pod, PodCondition } from "@skiff/api-types";
import { isConflict, isNotFound, noopTracer } from "@skiff/apimachinery";
import type { Tracer } from "@skiff/apimachinery";
import type { Client, Informer } from "@skiff/client";
import { RateLimitingQueue, createEventRecorder, createSharedInformerFactory, eventSinkOf, isDeletedFinalStateUnknown, keyOf, splitKey } from "@skiff/client";
import type { RecordEventFunc, SharedInformerFactory } from "@skiff/client";
import { prepareClusterFilters, reasonAffinityRulesNotMatch, reasonAntiAffinityRulesNotMatch, reasonExistingAntiAffinityRulesNotMatch, reasonNodePorts, reasonTopologySpreadNotMatch } from "./inter-pod.js";
import { NodeInfoCache } from "./node-info-cache.js";
import { preferenceScores } from "./preference-scoring.js";
import { podPriority, preempt } from "./preemption.js";
import type { PreemptionCandidate } from "./preemption.js";
import type { NodeInfo } from "./predicates.js";
import { filterNode, formatFitError } from "./predicates.js";
import type { ResourceWeights } from "./scoring.js";
import { selectNode } from "./scoring.js";

/** The scheduler name pods select with `spec.schedulerName` (empty means this one too). */
export const defaultSchedulerName = "default-scheduler";

/** Options of {@link Scheduler}. */
export interface SchedulerOptions {
  readonly client: Client;
  /** @defaultValue "default-scheduler" */
  readonly schedulerName?: string;
  /** Least-allocated weights. @defaultValue cpu 1, memory 1 */
  readonly weights?: ResourceWeights;
  /** Unschedulable pods are retried at least this often even without cluster events. @defaultValue 60000 */
  readonly unschedulableRetryMs?: number;
  /** Log sink: `level` is the klog verbosity of the line. @defaultValue none */
  readonly log?: (level: number, message: string) => void;
  /** Spans per pod: `queue` (added → taken), `schedule` (filter and score), `bind`, `event`. @defaultValue none */
  readonly tracer?: Tracer;
}

// Whether the pod has rules the cluster filters evaluate against other pods (spread, pod (anti-)affinity).
function hasInterPodRules(pod: Pod): boolean {
  const a = pod.spec?.affinity;
  return (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 || (a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 || (pod.spec?.topologySpreadConstraints?.length ?? 0) > 0;
}

/** What happened to one scheduling attempt (for logs and tests). */
export type ScheduleResult = { readonly outcome: "bound"; readonly nodeName: string } | { readonly outcome: "unschedulable"; readonly message: string } | { readonly outcome: "skipped" };

// Reasons of the filters whose outcome other pods' adds and updates can change.
const podDependentReasons = new Set([reasonNodePorts, reasonTopologySpreadNotMatch, reasonAffinityRulesNotMatch, reasonAntiAffinityRulesNotMatch, reasonExistingAntiAffinityRulesNotMatch]);

/**
 * The scheduler. `start()` syncs the informers and runs one worker; `stop()` ends it.
 *
 * Pods are scheduled one at a time in queue order: higher `spec.priority` first, then the order
 * they entered the queue (1.23's PrioritySort; a retried pod enters again). The chosen node is "assumed" for the pod
 * before its bind is sent, until the assigned-pod informer sees it bound, so back-to-back pods
 * never overcommit a node; binds run in the background (a failed one forgets the assumption and
 * requeues the pod, rate limited) and the `Scheduled` event is sent without waiting for it. Ties
 * between equally scored nodes go to the first node name (deterministic).
 *
 * @example
 * const scheduler = new Scheduler({ client });
 * await scheduler.start();
 */
export class Scheduler {
  private readonly client: Client;
  private readonly schedulerName: string;
  private readonly log: (level: number, message: string) => void;
  private readonly factory: SharedInformerFactory;
  private readonly pending: Informer<Pod>;
  private readonly assigned: Informer<Pod>;
  private readonly nodes: Informer<Node>;
  private readonly namespaces: Informer<Namespace>;
  // The active queue, sorted as 1.23's PrioritySort: higher `spec.priority` first, then the time
  // the pod (re-)entered the queue.
  private readonly queue = new RateLimitingQueue<string>({ name: "scheduler", priorityOf: (key) => this.pending.store.get(key)?.spec?.priority ?? 0 });
  private readonly unschedulable = new Set<string>();
  // The unschedulable pods a filter that looks at other pods rejected somewhere (NodePorts,
  // PodTopologySpread, InterPodAffinity): an assigned pod's add or update may make them fit, so
  // those events retry them (1.23's cluster events of these plugins).
  private readonly waitingOnPods = new Set<string>();
  private readonly assumed = new Map<string, Pod>();
  // The assumed pods by node name and key (kept with `assumed`, so a snapshot does not walk them all).
  private readonly assumedByNode = new Map<string, Map<string, Pod>>();
  private readonly tracer: Tracer;
  // Scheduled/FailedScheduling events, correlated as client-go's recorder (a pod retried every
  // cycle gets one FailedScheduling event whose count grows).
  private readonly recordEvent: RecordEventFunc;
  // Pending pods nominated to a node by an earlier preemption (`status.nominatedNodeName`), by
  // node and key: a pod of lower or equal priority is filtered as if they were there (1.23's
  // nominator and RunFilterPluginsWithNominatedPods).
  private readonly nominatedByNode = new Map<string, Map<string, Pod>>();
  // When each queued key was first added (for the `queue` span).
  private readonly queuedAt = new Map<string, number>();
  private retryTimer: ReturnType<typeof setInterval> | undefined;
  private worker: Promise<void> | undefined;
  private readonly bindings = new Set<Promise<unknown>>();
  // Node infos of the assigned pods, rebuilt per node when an informer event touches it.
  private readonly nodeInfos: NodeInfoCache;

  constructor(private readonly options: SchedulerOptions) {
    this.client = options.client;
    this.schedulerName = options.schedulerName ?? defaultSchedulerName;
    this.log = options.log ?? (() => undefined);
    this.tracer = options.tracer ?? noopTracer;
    this.recordEvent = createEventRecorder(eventSinkOf(this.client), { component: this.schedulerName }, {
      onError: (e, ev) => this.log(0, `event ${ev.reason ?? ""} for ${ev.involvedObject?.namespace ?? ""}/${ev.involvedObject?.name ?? ""}: ${e instanceof Error ? e.message : String(e)}`),
    });
    this.factory = createSharedInformerFactory({ onError: (e, ctx) => this.log(0, `informer: ${ctx}: ${e instanceof Error ? e.message : String(e)}`) });
    this.pending = this.factory.informerFor(this.client.pods, { fieldSelector: "spec.nodeName=" });
    this.assigned = this.factory.informerFor(this.client.pods, {
      fieldSelector: "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed",
      indexers: { node: (p) => [p.spec?.nodeName ?? ""] },
    });
    this.nodes = this.factory.informerFor(this.client.nodes);
    // Namespace labels, for the namespaceSelector of pod affinity terms.
    this.namespaces = this.factory.informerFor(this.client.namespaces);
    const assignedStore = this.assigned.store;
    const nodeStore = this.nodes.store;
    this.nodeInfos = new NodeInfoCache({ node: (name) => nodeStore.get(name), nodes: () => nodeStore.list(), podsOn: (name) => assignedStore.byIndex("node", name) });
    const nodeOf = (p: Pod) => p.spec?.nodeName ?? "";
    this.assigned.addEventHandler({
      onAdd: (p) => this.nodeInfos.podsChanged(nodeOf(p)),
      onUpdate: (o, p) => {
        this.nodeInfos.podsChanged(nodeOf(o));
        this.nodeInfos.podsChanged(nodeOf(p));
      },
      onDelete: (p) => this.nodeInfos.podsChanged(nodeOf(isDeletedFinalStateUnknown(p) ? p.obj : p)),
    });
    this.nodes.addEventHandler({
      onAdd: (n) => this.nodeInfos.nodesChanged(n.metadata?.name ?? ""),
      onDelete: (n) => this.nodeInfos.nodesChanged((isDeletedFinalStateUnknown(n) ? n.obj : n).metadata?.name ?? ""),
    });

    this.pending.addEventHandler({
      onAdd: (p) => {
        this.trackNomination(keyOf(p), p);
        this.enqueue(p);
      },
      onUpdate: (_o, p) => {
        this.trackNomination(keyOf(p), p);
        this.enqueue(p);
      },
      onDelete: (p) => {
        const key = "key" in p && typeof p.key === "string" ? p.key : keyOf(p as Pod);
        this.unschedulable.delete(key);
        this.waitingOnPods.delete(key);
        this.trackNomination(key, undefined);
      },
    });
    this.assigned.addEventHandler({
      onAdd: (p) => {
        this.forgetAssumed(keyOf(p));
        this.retryWaitingOnPods("assigned pod added");
      },
      onUpdate: (o, p) => {
        if (o.metadata?.labels !== p.metadata?.labels) this.retryWaitingOnPods("assigned pod updated");
      },
      onDelete: () => this.retryUnschedulable("assigned pod deleted"),
    });
    this.nodes.addEventHandler({
      onAdd: () => this.retryUnschedulable("node added"),
      onUpdate: (o, n) => {
        if (o.metadata?.resourceVersion !== n.metadata?.resourceVersion) this.retryUnschedulable("node updated");
      },
    });
  }

  /** Starts the informers, waits for them to sync and runs the worker. Resolves once synced. */
  async start(): Promise<void> {
    this.factory.start();
    await this.factory.waitForSync();
    this.retryTimer = setInterval(() => this.retryUnschedulable("periodic flush"), this.options.unschedulableRetryMs ?? 60_000);
    this.retryTimer.unref();
    this.worker = this.run();
  }

  /** Stops the worker and the informers; resolves when the worker has finished its current pod and the binds in flight have ended. */
  async stop(): Promise<void> {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.queue.shutDown();
    this.factory.stop();
    await this.worker;
    await Promise.all(this.bindings);
  }

  /** How many binds are in flight (assumed pods not yet bound). */
  get bindsInFlight(): number {
    return this.bindings.size;
  }

  private wants(pod: Pod): boolean {
    if (pod.spec?.nodeName) return false;
    if (pod.metadata?.deletionTimestamp) return false;
    if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return false;
    return (pod.spec?.schedulerName || defaultSchedulerName) === this.schedulerName;
  }

  private enqueue(pod: Pod): void {
    const key = keyOf(pod);
    // A pod known unschedulable waits for a cluster event, not for its own status update.
    if (this.unschedulable.has(key) || !this.wants(pod)) return;
    if (this.tracer.enabled && !this.queuedAt.has(key)) this.queuedAt.set(key, this.tracer.now());
    this.queue.add(key);
  }

  private retryUnschedulable(why: string): void {
    if (this.unschedulable.size === 0) return;
    this.log(4, `retrying ${String(this.unschedulable.size)} unschedulable pod(s): ${why}`);
    for (const key of this.unschedulable) this.queue.add(key);
    this.unschedulable.clear();
    this.waitingOnPods.clear();
  }

  private retryWaitingOnPods(why: string): void {
    if (this.waitingOnPods.size === 0) return;
    this.log(4, `retrying ${String(this.waitingOnPods.size)} pod(s) that other pods kept unschedulable: ${why}`);
    for (const key of this.waitingOnPods) {
      this.unschedulable.delete(key);
      this.queue.add(key);
    }
    this.waitingOnPods.clear();
  }

  private async run(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        const { binding } = await this.schedulingCycle(key);
        if (binding) {
          this.bindings.add(binding);
          void binding.finally(() => this.bindings.delete(binding));
        }
        this.queue.forget(key);
      } catch (e) {
        this.log(0, `error scheduling ${key}: ${e instanceof Error ? e.message : String(e)}`);
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  // Keeps `nominatedByNode` current for the pending pod of `key` (`undefined`: it is gone).
  private trackNomination(key: string, pod: Pod | undefined): void {
    const node = pod?.status?.nominatedNodeName ?? "";
    for (const [name, pods] of this.nominatedByNode) {
      if (name !== node && pods.delete(key) && pods.size === 0) this.nominatedByNode.delete(name);
    }
    if (node === "" || pod === undefined || pod.spec?.nodeName) return;
    let pods = this.nominatedByNode.get(node);
    if (!pods) this.nominatedByNode.set(node, (pods = new Map()));
    pods.set(key, pod);
  }

  /**
   * The node infos of the current cache for scheduling `forKey`: assumed pods included, and the
   * pods nominated to a node whose priority is at least `priority` (other than `forKey` itself).
   */
  private snapshot(forKey: string, priority: number): NodeInfo[] {
    const byNode = new Map<string, Pod[]>();
    for (const [name, pods] of this.assumedByNode) {
      const list: Pod[] = [];
      // A pod the assigned-pod informer has already is counted there.
      for (const [key, pod] of pods) if (this.assigned.store.get(key) === undefined) list.push(pod);
      if (list.length > 0) byNode.set(name, list);
    }
    for (const [name, pods] of this.nominatedByNode) {
      for (const [key, pod] of pods) {
        if (key === forKey || podPriority(pod) < priority || this.assumed.has(key)) continue;
        const list = byNode.get(name) ?? [];
        list.push(pod);
        byNode.set(name, list);
      }
    }
    return this.nodeInfos.snapshot(byNode);
  }

  private assume(key: string, pod: Pod): void {
    this.forgetAssumed(key);
    this.assumed.set(key, pod);
    const name = pod.spec?.nodeName ?? "";
    let pods = this.assumedByNode.get(name);
    if (!pods) this.assumedByNode.set(name, (pods = new Map()));
    pods.set(key, pod);
  }

  private forgetAssumed(key: string): void {
    const pod = this.assumed.get(key);
    if (pod === undefined) return;
    this.assumed.delete(key);
    const name = pod.spec?.nodeName ?? "";
    const pods = this.assumedByNode.get(name);
    pods?.delete(key);
    if (pods?.size === 0) this.assumedByNode.delete(name);
  }

  /** Schedules the pod of `key` once and waits for its bind. */
  async scheduleOne(key: string): Promise<ScheduleResult> {
    const { result, binding } = await this.schedulingCycle(key);
    if (!binding) return result;
    return (await binding) ?? result;
  }

  /**
   * The scheduling cycle of the pod of `key`: filter and score the nodes, assume the pod on the
   * chosen one and start its binding cycle (returned, not awaited). A pod already assumed (its
   * bind in flight) is skipped.
   */
  private async schedulingCycle(key: string): Promise<{ result: ScheduleResult; binding?: Promise<ScheduleResult | undefined> }> {
    const t0 = this.tracer.now();
    const queuedAt = this.queuedAt.get(key);
    this.queuedAt.delete(key);
    const pod = this.pending.store.get(key);
    if (!pod || !this.wants(pod) || this.assumed.has(key)) return { result: { outcome: "skipped" } };
    const who = { pod: key, uid: pod.metadata?.uid ?? "" };
    if (queuedAt !== undefined) this.tracer.record("queue", queuedAt, t0, who);
    const infos = this.snapshot(key, podPriority(pod));
    const namespaceStore = this.namespaces.store;
    const nsLabels = (ns: string) => namespaceStore.get(ns)?.metadata?.labels;
    const cluster = prepareClusterFilters(pod, infos, nsLabels);
    const feasible: NodeInfo[] = [];
    const reasons: string[][] = [];
    const reasonsByNode = new Map<string, string[]>();
    for (const info of infos) {
      const r = filterNode(pod, info, cluster);
      if (r.length === 0) feasible.push(info);
      else {
        reasons.push(r);
        reasonsByNode.set(info.node.metadata?.name ?? "", r);
      }
    }
    const choice = selectNode(pod, feasible, this.options.weights, feasible.length > 1 ? preferenceScores(pod, feasible, infos, nsLabels) : undefined);
    if (!choice) {
      const message = formatFitError(infos.length, reasons);
      // PostFilter: 1.23's DefaultPreemption (none without nodes: that is not a FitError).
      let nominate: string | undefined;
      if (infos.length > 0) {
        // The cluster filters' state is per snapshot: with pod (anti-)affinity or spread in play it
        // is recomputed for each changed node; otherwise they only read the node itself.
        const interPod = hasInterPodRules(pod) || infos.some((i) => i.podsWithRequiredAntiAffinity.length > 0);
        const result = preempt(pod, infos, reasonsByNode, (p, info, all) => filterNode(p, info, interPod ? prepareClusterFilters(p, all, nsLabels) : cluster));
        if (result.outcome === "none") {
          // 1.23 logs this; the FailedScheduling message gained a `preemption: ...` part in 1.24.
          this.log(4, `preemption for ${key} found no node: ${result.message}`);
          if (result.clearNomination && pod.status?.nominatedNodeName) nominate = "";
        } else if (result.outcome === "candidate") {
          await this.prepareCandidate(pod, result.candidate);
          nominate = result.candidate.nodeName;
        }
      }
      this.log(2, `unable to schedule ${key}: ${message}${nominate ? ` (nominated to ${nominate} after preemption)` : ""}`);
      this.unschedulable.add(key);
      if (reasons.some((r) => r.some((x) => podDependentReasons.has(x)))) this.waitingOnPods.add(key);
      await this.recordUnschedulable(pod, message, nominate);
      return { result: { outcome: "unschedulable", message } };
    }
    const t1 = this.tracer.now();
    this.tracer.record("schedule", t0, t1, { ...who, attrs: { nodes: infos.length } });
    // Assume: the next cycles count this pod on its node while the bind is in flight.
    this.assume(key, { ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: choice.nodeName } });
    return { result: { outcome: "bound", nodeName: choice.nodeName }, binding: this.bindingCycle(key, pod, choice.nodeName, who) };
  }

  /**
   * Binds the assumed pod; on success sends the `Scheduled` event without waiting for it. A
   * failed bind forgets the assumption; NotFound and Conflict (bound meanwhile) end there, other
   * errors requeue the pod rate limited. Never rejects; resolves `skipped` when it did not bind.
   */
  private async bindingCycle(key: string, pod: Pod, nodeName: string, who: { pod: string; uid: string }): Promise<ScheduleResult | undefined> {
    const { namespace, name } = splitKey(key);
    const t1 = this.tracer.now();
    try {
      await this.client.bindPod({ namespace, name, nodeName, ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}) });
    } catch (e) {
      this.forgetAssumed(key);
      if (isNotFound(e)) return { outcome: "skipped" };
      if (isConflict(e)) {
        this.log(2, `pod ${key} was bound meanwhile: ${e instanceof Error ? e.message : ""}`);
        return { outcome: "skipped" };
      }
      this.log(0, `error binding ${key} to ${nodeName}: ${e instanceof Error ? e.message : String(e)}`);
      this.queue.addRateLimited(key);
      return { outcome: "skipped" };
    }
    const t2 = this.tracer.now();
    this.tracer.record("bind", t1, t2, { ...who, attrs: { node: nodeName } });
    this.log(2, `bound ${key} to ${nodeName}`);
    this.recordEvent(pod, "Normal", "Scheduled", `Successfully assigned ${key} to ${nodeName}`);
    return undefined;
  }

  /**
   * Deletes the victims of a preemption (default grace period) with a `Preempted` event on each,
   * and takes the nomination away from the lower-priority pods nominated to the same node (1.23's
   * `PrepareCandidate`). Throws the first delete error other than NotFound (the pod is retried).
   */
  private async prepareCandidate(pod: Pod, candidate: PreemptionCandidate): Promise<void> {
    const preemptor = keyOf(pod);
    for (const victim of candidate.victims) {
      const { namespace, name } = splitKey(keyOf(victim));
      try {
        await this.client.pods.delete(name, { namespace });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      this.log(2, `preempting ${namespace}/${name} on ${candidate.nodeName} for ${preemptor}`);
      this.recordEvent(victim, "Normal", "Preempted", `Preempted by ${preemptor} on node ${candidate.nodeName}`);
    }
    const priority = podPriority(pod);
    for (const [key, nominated] of this.nominatedByNode.get(candidate.nodeName) ?? []) {
      if (key === preemptor || podPriority(nominated) >= priority) continue;
      try {
        const { nominatedNodeName: _cleared, ...status } = nominated.status ?? {};
        await this.client.pods.updateStatus({ ...nominated, status });
      } catch (e) {
        this.log(0, `clearing the nominated node of ${key}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  private async recordUnschedulable(pod: Pod, message: string, nominate?: string): Promise<void> {
    const conditions = pod.status?.conditions ?? [];
    const current = conditions.find((c) => c.type === "PodScheduled");
    const nominationChanges = nominate !== undefined && (pod.status?.nominatedNodeName ?? "") !== nominate;
    if (nominationChanges || !(current?.status === "False" && current.reason === "Unschedulable" && current.message === message)) {
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
      const condition: PodCondition = {
        type: "PodScheduled",
        status: "False",
        reason: "Unschedulable",
        message,
        lastTransitionTime: current?.status === "False" && current.lastTransitionTime ? current.lastTransitionTime : now,
      };
      const status = { ...pod.status, conditions: [...conditions.filter((c) => c.type !== "PodScheduled"), condition] };
      // "" clears it (the field is omitted, as Go's omitempty writes it).
      if (nominate) status.nominatedNodeName = nominate;
      else if (nominate === "") delete status.nominatedNodeName;
      const next: Pod = { ...pod, status };
      try {
        await this.client.pods.updateStatus(next);
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e)) throw e;
        // a newer version arrives through the informer; retry on it
        this.unschedulable.delete(keyOf(pod));
        throw e;
      }
    }
    this.recordEvent(pod, "Warning", "FailedScheduling", message);
  }
}
