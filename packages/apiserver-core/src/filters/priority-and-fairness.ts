/**
 * API Priority and Fairness (APF), as kube-apiserver 1.23 runs it by default
 * (`--enable-priority-and-fairness`, feature gate `APIPriorityAndFairness`): instead of answering
 * 429 as soon as a fixed number of requests is in flight, each request is classified by the first
 * matching FlowSchema into a priority level; each limited level gets a share of the server's
 * concurrency (`--max-requests-inflight` + `--max-mutating-requests-inflight`) and queues what it
 * cannot run at once in fair queues (shuffle sharding of flows onto queues, fair queuing between
 * queues by virtual time). A request waits at most the request-wait limit (`--request-timeout` / 4)
 * and is refused with 429 only when its queue is full, its wait runs out, or its level rejects.
 *
 * Departures from 1.23, each on purpose:
 * - The configuration is 1.23's bootstrap FlowSchemas and PriorityLevelConfigurations, fixed:
 *   the `flowcontrol.apiserver.k8s.io` objects that would let an administrator change them are
 *   not served.
 * - Every request occupies one seat (1.23 estimates more seats for large lists); watches and
 *   other long-running requests are not queued (1.23 holds a seat for a watch until it is
 *   initialised).
 * - No `X-Kubernetes-PF-FlowSchema-UID` / `-PriorityLevel-UID` response headers (there are no
 *   objects whose UIDs they would name).
 *
 * @see staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go
 * @see staging/src/k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go
 * @see staging/src/k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset/queueset.go
 * @see staging/src/k8s.io/apiserver/pkg/util/shufflesharding/shufflesharding.go
 * @see staging/src/k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go
 */
import type { UserInfo } from "../registry/strategy.js";
import type { RequestInfo } from "../request/request-info.js";

/** A FlowSchema subject: a user name, a group, or service accounts of a namespace (`name` `*` for all). */
export type FlowSubject =
  | { readonly kind: "User"; readonly name: string }
  | { readonly kind: "Group"; readonly name: string }
  | { readonly kind: "ServiceAccount"; readonly namespace: string; readonly name: string };

/** A FlowSchema resource rule (`*` matches every verb, group, resource or namespace). */
export interface ResourcePolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  /** Resources, with subresources as `nodes/status`. */
  readonly resources: readonly string[];
  readonly namespaces: readonly string[];
  /** Whether cluster-scoped (namespace-less) requests match. */
  readonly clusterScope: boolean;
}

/** A FlowSchema non-resource rule: URLs are exact, `*`, or a prefix ending in `/*`. */
export interface NonResourcePolicyRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** A FlowSchema, as `flowcontrol.apiserver.k8s.io/v1beta2`'s spec (one rule set). */
export interface FlowSchemaConfig {
  readonly name: string;
  readonly priorityLevel: string;
  /** Lower matches first; ties go to the lexicographically smaller name. */
  readonly matchingPrecedence: number;
  /** How flows are told apart within the schema; `undefined`: one flow. */
  readonly distinguisher?: "ByUser" | "ByNamespace";
  readonly subjects: readonly FlowSubject[];
  readonly resourceRules: readonly ResourcePolicyRule[];
  readonly nonResourceRules: readonly NonResourcePolicyRule[];
}

/** A PriorityLevelConfiguration: exempt (never limited) or limited with a share of the server's concurrency. */
export type PriorityLevelConfig =
  | { readonly name: string; readonly type: "Exempt" }
  | {
      readonly name: string;
      readonly type: "Limited";
      /** AssuredConcurrencyShares: this level's weight in the division of the server's concurrency. */
      readonly shares: number;
      /** `Reject`: beyond the level's concurrency, 429 at once. `Queue`: wait in fair queues. */
      readonly limitResponse: { readonly type: "Reject" } | { readonly type: "Queue"; readonly queues: number; readonly handSize: number; readonly queueLengthLimit: number };
    };

const everyResource: ResourcePolicyRule = { verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true };
const everyNonResource: NonResourcePolicyRule = { verbs: ["*"], nonResourceURLs: ["*"] };
const kubeSystemServiceAccounts: FlowSubject = { kind: "ServiceAccount", namespace: "kube-system", name: "*" };
const leaderElectionRules = (coreNamespaces: readonly string[]): ResourcePolicyRule[] => [
  { verbs: ["get", "create", "update"], apiGroups: [""], resources: ["endpoints", "configmaps"], namespaces: coreNamespaces, clusterScope: false },
  { verbs: ["get", "create", "update"], apiGroups: ["coordination.k8s.io"], resources: ["leases"], namespaces: ["*"], clusterScope: false },
];
const queue = (queues: number, handSize: number) => ({ type: "Queue", queues, handSize, queueLengthLimit: 50 }) as const;

/**
 * kube-apiserver 1.23's priority levels (mandatory and suggested), as its bootstrap configuration.
 * @see staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go
 */
export const bootstrapPriorityLevels: readonly PriorityLevelConfig[] = Object.freeze([
  { name: "exempt", type: "Exempt" },
  { name: "system", type: "Limited", shares: 30, limitResponse: queue(64, 6) },
  { name: "node-high", type: "Limited", shares: 40, limitResponse: queue(64, 6) },
  { name: "leader-election", type: "Limited", shares: 10, limitResponse: queue(16, 4) },
  { name: "workload-high", type: "Limited", shares: 40, limitResponse: queue(128, 6) },
  { name: "workload-low", type: "Limited", shares: 100, limitResponse: queue(128, 6) },
  { name: "global-default", type: "Limited", shares: 20, limitResponse: queue(128, 6) },
  { name: "catch-all", type: "Limited", shares: 5, limitResponse: { type: "Reject" } },
]);

/**
 * kube-apiserver 1.23's FlowSchemas (mandatory and suggested), as its bootstrap configuration.
 * @see staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go
 */
export const bootstrapFlowSchemas: readonly FlowSchemaConfig[] = Object.freeze([
  { name: "exempt", priorityLevel: "exempt", matchingPrecedence: 1, subjects: [{ kind: "Group", name: "system:masters" }], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
  {
    name: "probes", priorityLevel: "exempt", matchingPrecedence: 2,
    subjects: [{ kind: "Group", name: "system:unauthenticated" }, { kind: "Group", name: "system:authenticated" }],
    resourceRules: [], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }],
  },
  { name: "system-leader-election", priorityLevel: "leader-election", matchingPrecedence: 100, distinguisher: "ByUser", subjects: [{ kind: "User", name: "system:kube-controller-manager" }, { kind: "User", name: "system:kube-scheduler" }, kubeSystemServiceAccounts], resourceRules: leaderElectionRules(["kube-system"]), nonResourceRules: [] },
  { name: "workload-leader-election", priorityLevel: "leader-election", matchingPrecedence: 200, distinguisher: "ByUser", subjects: [kubeSystemServiceAccounts], resourceRules: leaderElectionRules(["*"]), nonResourceRules: [] },
  {
    name: "system-node-high", priorityLevel: "node-high", matchingPrecedence: 400, distinguisher: "ByUser", subjects: [{ kind: "Group", name: "system:nodes" }],
    resourceRules: [
      { verbs: ["*"], apiGroups: [""], resources: ["nodes", "nodes/status"], namespaces: ["*"], clusterScope: true },
      { verbs: ["*"], apiGroups: ["coordination.k8s.io"], resources: ["leases"], namespaces: ["*"], clusterScope: false },
    ],
    nonResourceRules: [],
  },
  { name: "system-nodes", priorityLevel: "system", matchingPrecedence: 500, distinguisher: "ByUser", subjects: [{ kind: "Group", name: "system:nodes" }], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
  { name: "kube-controller-manager", priorityLevel: "workload-high", matchingPrecedence: 800, distinguisher: "ByNamespace", subjects: [{ kind: "User", name: "system:kube-controller-manager" }], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
  { name: "kube-scheduler", priorityLevel: "workload-high", matchingPrecedence: 800, distinguisher: "ByNamespace", subjects: [{ kind: "User", name: "system:kube-scheduler" }], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
  { name: "kube-system-service-accounts", priorityLevel: "workload-high", matchingPrecedence: 900, distinguisher: "ByNamespace", subjects: [kubeSystemServiceAccounts], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
  { name: "service-accounts", priorityLevel: "workload-low", matchingPrecedence: 9000, distinguisher: "ByUser", subjects: [{ kind: "Group", name: "system:serviceaccounts" }], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
  { name: "global-default", priorityLevel: "global-default", matchingPrecedence: 9900, distinguisher: "ByUser", subjects: [{ kind: "Group", name: "system:unauthenticated" }, { kind: "Group", name: "system:authenticated" }], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
  { name: "catch-all", priorityLevel: "catch-all", matchingPrecedence: 10000, distinguisher: "ByUser", subjects: [{ kind: "Group", name: "system:unauthenticated" }, { kind: "Group", name: "system:authenticated" }], resourceRules: [everyResource], nonResourceRules: [everyNonResource] },
] satisfies FlowSchemaConfig[]);

const serviceAccountPrefix = "system:serviceaccount:";

function matchesSubject(user: UserInfo, s: FlowSubject): boolean {
  switch (s.kind) {
    case "User":
      return s.name === "*" || s.name === user.username;
    case "Group":
      return s.name === "*" || user.groups.includes(s.name);
    case "ServiceAccount": {
      if (!user.username.startsWith(serviceAccountPrefix)) return false;
      const rest = user.username.slice(serviceAccountPrefix.length);
      const colon = rest.indexOf(":");
      if (colon < 0) return false;
      return rest.slice(0, colon) === s.namespace && (s.name === "*" || rest.slice(colon + 1) === s.name);
    }
  }
}

const has = (list: readonly string[], v: string): boolean => list.includes("*") || list.includes(v);

function matchesResourceRule(info: RequestInfo, r: ResourcePolicyRule): boolean {
  if (!has(r.verbs, info.verb) || !has(r.apiGroups, info.apiGroup)) return false;
  const resource = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
  if (!has(r.resources, resource)) return false;
  return info.namespace === "" ? r.clusterScope : has(r.namespaces, info.namespace);
}

function matchesNonResourceRule(info: RequestInfo, r: NonResourcePolicyRule): boolean {
  if (!has(r.verbs, info.verb)) return false;
  return r.nonResourceURLs.some((u) => u === "*" || u === info.path || (u.endsWith("/*") && info.path.startsWith(u.slice(0, -1))));
}

/**
 * The FlowSchema a request matches: the first, by matching precedence then name, whose subjects
 * include the user and whose rules include the request. `undefined` when none does (cannot happen
 * with the bootstrap schemas: catch-all takes every request).
 * @see staging/src/k8s.io/apiserver/pkg/util/flowcontrol/rule.go (matchesFlowSchema)
 */
export function classifyRequest(schemas: readonly FlowSchemaConfig[], user: UserInfo, info: RequestInfo): FlowSchemaConfig | undefined {
  for (const fs of schemas) {
    if (!fs.subjects.some((s) => matchesSubject(user, s))) continue;
    if (info.isResourceRequest ? fs.resourceRules.some((r) => matchesResourceRule(info, r)) : fs.nonResourceRules.some((r) => matchesNonResourceRule(info, r))) return fs;
  }
  return undefined;
}

/** FNV-1a, 64 bits, of `s`, as a number below 2^53 (its low 53 bits). */
function flowHash(s: string): number {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(s)) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return Number(h & 0x1fffffffffffffn);
}

/**
 * Deals a hand of `handSize` distinct queue indexes of `deckSize` from `hash` (the hash's digits
 * in the mixed radix deckSize, deckSize − 1, …, each picking among the cards left).
 * @see staging/src/k8s.io/apiserver/pkg/util/shufflesharding/shufflesharding.go
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const deck = Array.from({ length: deckSize }, (_, i) => i);
  const hand: number[] = [];
  let h = hash;
  for (let i = 0; i < Math.min(handSize, deckSize); i++) {
    const n = deckSize - i;
    const pick = h % n;
    h = Math.floor(h / n);
    hand.push(deck[pick] as number);
    deck[pick] = deck[n - 1] as number;
  }
  return hand;
}

/** Why a request was not let through. */
export type RejectReason = "queue-full" | "time-out" | "concurrency-limit" | "cancelled";

/** A request waiting in a queue: `seat` resolves when it is dispatched or refused; `cancel` takes it out (its client went away). */
export interface PendingSeat {
  readonly seat: Promise<(() => void) | RejectReason>;
  cancel(): void;
}

/** A seat at once (the release function), a refusal at once, or a wait. */
export type SeatOutcome = (() => void) | RejectReason | PendingSeat;

interface Waiter {
  readonly queue: FairQueue;
  /** Settles the wait; a no-op while the request is dispatched within `acquire` (no Promise yet). */
  resolve: (release: (() => void) | RejectReason) => void;
  timer?: NodeJS.Timeout;
  /** Set when dispatched. */
  release?: () => void;
  done: boolean;
}

interface FairQueue {
  readonly waiting: Waiter[];
  /** Index of the first waiter still in `waiting` (the array is compacted now and then). */
  head: number;
  executing: number;
  /** Virtual start time of the next request to dispatch (seconds of virtual time). */
  virtualStart: number;
}

/**
 * One limited priority level's queues: at most `concurrencyLimit` requests execute; the rest wait
 * in `queues` fair queues (each flow shuffle-sharded onto a hand of `handSize` queues, joining the
 * shortest), dispatched by the smallest virtual start time (fair queuing: each non-empty queue
 * gets an equal share of the level's concurrency whatever its length), for at most `waitLimitMs`.
 * A level whose limit response is `Reject` has no queues.
 * @see staging/src/k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset/queueset.go
 */
export class QueueSet {
  private readonly queues: FairQueue[];
  private executing = 0;
  private waitingCount = 0;
  private activeQueues = 0;
  private virtualTime = 0;
  private lastRealTimeMs: number;
  private robinIndex = -1;
  private enqueues = 0;
  private readonly hands = new Map<string, number[]>();
  /** Requests refused, by reason (tests, metrics). */
  readonly rejected: Record<RejectReason, number> = { "queue-full": 0, "time-out": 0, "concurrency-limit": 0, cancelled: 0 };

  /** Service time assumed for a request until it finishes (1.23's `estimatedServiceTime`), in seconds. */
  private static readonly estimatedServiceSeconds = 60;

  constructor(
    readonly name: string,
    readonly concurrencyLimit: number,
    private readonly queuing: { readonly queues: number; readonly handSize: number; readonly queueLengthLimit: number } | undefined,
    private readonly waitLimitMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.queues = Array.from({ length: queuing?.queues ?? 0 }, () => ({ waiting: [], head: 0, executing: 0, virtualStart: 0 }));
    this.lastRealTimeMs = now();
  }

  /** Requests executing and waiting now. */
  counts(): { readonly executing: number; readonly waiting: number } {
    return { executing: this.executing, waiting: this.waitingCount };
  }

  /**
   * Asks for a seat for a request of flow `flowKey`: a release function (call it once when the
   * request ends) when it may run at once, the reason when it is refused at once, or a
   * {@link PendingSeat} while it waits in a queue.
   */
  acquire(flowKey: string): SeatOutcome {
    if (this.queuing === undefined) {
      if (this.executing >= this.concurrencyLimit) {
        this.rejected["concurrency-limit"]++;
        return "concurrency-limit";
      }
      this.executing++;
      return this.releaser(undefined);
    }
    this.syncTime();
    const q = this.chooseQueue(flowKey);
    if (q.waiting.length - q.head >= this.queuing.queueLengthLimit) {
      this.rejected["queue-full"]++;
      return "queue-full";
    }
    const waiter: Waiter = { queue: q, resolve: settleLater, done: false };
    if (q.waiting.length === q.head && q.executing === 0) {
      q.virtualStart = this.virtualTime;
      this.activeQueues++;
    }
    q.waiting.push(waiter);
    this.waitingCount++;
    this.dispatchAsMuchAsPossible();
    // Dispatched at once: no wait, so no Promise.
    if (waiter.done) return waiter.release as () => void;
    const seat = new Promise<(() => void) | RejectReason>((resolve) => {
      waiter.resolve = resolve;
    });
    if (this.waitLimitMs > 0) waiter.timer = setTimeout(() => this.abandon(waiter, "time-out"), this.waitLimitMs);
    return { seat, cancel: () => this.abandon(waiter, "cancelled") };
  }

  private chooseQueue(flowKey: string): FairQueue {
    let hand = this.hands.get(flowKey);
    if (hand === undefined) {
      const queuing = this.queuing as NonNullable<typeof this.queuing>;
      hand = dealHand(flowHash(flowKey), queuing.queues, queuing.handSize);
      if (this.hands.size >= 4096) this.hands.clear();
      this.hands.set(flowKey, hand);
    }
    const offset = this.enqueues++ % hand.length;
    let best = this.queues[hand[offset] as number] as FairQueue;
    let bestLoad = Infinity;
    for (let i = 0; i < hand.length; i++) {
      const q = this.queues[hand[(offset + i) % hand.length] as number] as FairQueue;
      const load = q.waiting.length - q.head + q.executing;
      if (load < bestLoad) {
        best = q;
        bestLoad = load;
      }
    }
    return best;
  }

  /** Advances virtual time: it runs at min(seats asked for, limit) / active queues per real second. */
  private syncTime(): void {
    const t = this.now();
    const dt = (t - this.lastRealTimeMs) / 1000;
    this.lastRealTimeMs = t;
    if (this.activeQueues > 0) this.virtualTime += (dt * Math.min(this.executing + this.waitingCount, this.concurrencyLimit)) / this.activeQueues;
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.waitingCount > 0 && this.executing < this.concurrencyLimit) {
      let best: FairQueue | undefined;
      let bestIndex = -1;
      const n = this.queues.length;
      for (let i = 1; i <= n; i++) {
        const idx = (this.robinIndex + i) % n;
        const q = this.queues[idx] as FairQueue;
        if (q.waiting.length === q.head) continue;
        if (best === undefined || q.virtualStart < best.virtualStart) {
          best = q;
          bestIndex = idx;
        }
      }
      if (best === undefined) return;
      this.robinIndex = bestIndex;
      const w = this.shift(best);
      best.executing++;
      this.executing++;
      best.virtualStart += QueueSet.estimatedServiceSeconds;
      w.done = true;
      if (w.timer) clearTimeout(w.timer);
      w.release = this.releaser(best);
      w.resolve(w.release);
    }
  }

  private shift(q: FairQueue): Waiter {
    const w = q.waiting[q.head] as Waiter;
    q.head++;
    if (q.head === q.waiting.length) {
      q.waiting.length = 0;
      q.head = 0;
    } else if (q.head > 64 && q.head * 2 > q.waiting.length) {
      q.waiting.splice(0, q.head);
      q.head = 0;
    }
    this.waitingCount--;
    return w;
  }

  private abandon(w: Waiter, reason: RejectReason): void {
    if (w.done) return;
    w.done = true;
    if (w.timer) clearTimeout(w.timer);
    this.syncTime();
    const q = w.queue;
    const i = q.waiting.indexOf(w, q.head);
    if (i >= 0) {
      q.waiting.splice(i, 1);
      this.waitingCount--;
      if (q.waiting.length === q.head && q.executing === 0) this.activeQueues--;
    }
    this.rejected[reason]++;
    w.resolve(reason);
  }

  private releaser(q: FairQueue | undefined): () => void {
    const started = this.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.executing--;
      if (q !== undefined) {
        this.syncTime();
        q.executing--;
        // Correct the estimate made at dispatch with the real service time.
        q.virtualStart -= QueueSet.estimatedServiceSeconds - (this.now() - started) / 1000;
        if (q.waiting.length === q.head && q.executing === 0) this.activeQueues--;
      }
      this.dispatchAsMuchAsPossible();
    };
  }
}

/** What {@link PriorityAndFairness} is built from. */
export interface PriorityAndFairnessConfig {
  /** The server's concurrency limit (`--max-requests-inflight` + `--max-mutating-requests-inflight`); must be positive. */
  readonly serverConcurrencyLimit: number;
  /** The longest a request waits in a queue (`--request-timeout` / 4), in ms; 0: no limit. */
  readonly requestWaitLimitMs: number;
  /** @defaultValue bootstrapFlowSchemas */
  readonly flowSchemas?: readonly FlowSchemaConfig[];
  /** @defaultValue bootstrapPriorityLevels */
  readonly priorityLevels?: readonly PriorityLevelConfig[];
}

/** The result of {@link PriorityAndFairness.admit}. */
export interface Admission {
  readonly flowSchema: string;
  readonly priorityLevel: string;
  /** A release function (call once when the request ends), why the request is refused (answer 429), or its wait. */
  readonly outcome: SeatOutcome;
  /** True when the request's level is exempt (or no FlowSchema matched): its release does nothing and need not be called. */
  readonly exempt: boolean;
}

/**
 * The APF dispatcher: classifies each request and asks its priority level for a seat. Each
 * limited level's concurrency is ceil(serverConcurrencyLimit × shares / sum of all limited
 * levels' shares), as 1.23.
 * Throws (at construction) when the server's concurrency limit is not positive or a FlowSchema
 * names a missing priority level.
 * @see staging/src/k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go
 */
export class PriorityAndFairness {
  private readonly schemas: readonly FlowSchemaConfig[];
  /** Queue sets of the limited levels; exempt levels are absent. */
  readonly levels = new Map<string, QueueSet>();
  private readonly exempt = new Set<string>();

  constructor(config: PriorityAndFairnessConfig) {
    if (!(config.serverConcurrencyLimit > 0)) throw new Error(`the server's total concurrency limit must be positive, got ${String(config.serverConcurrencyLimit)}`);
    const levels = config.priorityLevels ?? bootstrapPriorityLevels;
    this.schemas = [...(config.flowSchemas ?? bootstrapFlowSchemas)].sort((a, b) => a.matchingPrecedence - b.matchingPrecedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let shareSum = 0;
    for (const l of levels) if (l.type === "Limited") shareSum += l.shares;
    for (const l of levels) {
      if (l.type === "Exempt") {
        this.exempt.add(l.name);
        continue;
      }
      const limit = Math.ceil((config.serverConcurrencyLimit * l.shares) / shareSum);
      const queuing = l.limitResponse.type === "Queue" ? l.limitResponse : undefined;
      this.levels.set(l.name, new QueueSet(l.name, limit, queuing, config.requestWaitLimitMs));
    }
    for (const fs of this.schemas) {
      if (!this.exempt.has(fs.priorityLevel) && !this.levels.has(fs.priorityLevel)) throw new Error(`FlowSchema ${fs.name} names priority level ${fs.priorityLevel}, which does not exist`);
    }
  }

  /**
   * Classifies the request of `user` and asks its level for a seat. A request no FlowSchema
   * matches, or whose level is exempt, runs at once.
   */
  admit(user: UserInfo, info: RequestInfo): Admission {
    const fs = classifyRequest(this.schemas, user, info);
    if (fs === undefined || this.exempt.has(fs.priorityLevel)) {
      return { flowSchema: fs?.name ?? "", priorityLevel: fs?.priorityLevel ?? "", outcome: noop, exempt: true };
    }
    const level = this.levels.get(fs.priorityLevel) as QueueSet;
    const distinguisher = fs.distinguisher === "ByUser" ? user.username : fs.distinguisher === "ByNamespace" ? info.namespace : "";
    return { flowSchema: fs.name, priorityLevel: fs.priorityLevel, outcome: level.acquire(`${fs.name}\u0000${distinguisher}`), exempt: false };
  }
}

const noop = (): void => undefined;
/** A waiter's `resolve` until its Promise exists: dispatch within `acquire` settles nothing. */
const settleLater = (): void => undefined;
