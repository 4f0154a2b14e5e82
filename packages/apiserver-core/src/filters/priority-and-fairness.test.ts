import { afterEach, describe, expect, it, vi } from "vitest";
import type { UserInfo } from "../registry/strategy.js";
import { parseRequestInfo } from "../request/request-info.js";
import { PriorityAndFairness, QueueSet, bootstrapFlowSchemas, classifyRequest, dealHand } from "./priority-and-fairness.js";
import type { PendingSeat, SeatOutcome } from "./priority-and-fairness.js";

const authed = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, "system:authenticated"] });
const node = authed("system:node:n1", "system:nodes");

function schemaOf(user: UserInfo, method: string, path: string, query: Record<string, string> = {}): string | undefined {
  return classifyRequest([...bootstrapFlowSchemas].sort((a, b) => a.matchingPrecedence - b.matchingPrecedence || a.name.localeCompare(b.name)), user, parseRequestInfo(method, path, query))?.name;
}

describe("classifyRequest (1.23's bootstrap FlowSchemas)", () => {
  it("puts each client where 1.23 does", () => {
    expect(schemaOf(authed("admin", "system:masters"), "POST", "/api/v1/namespaces/default/pods")).toBe("exempt");
    expect(schemaOf(node, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1")).toBe("system-node-high");
    expect(schemaOf(node, "PATCH", "/api/v1/nodes/n1/status")).toBe("system-node-high");
    expect(schemaOf(node, "GET", "/api/v1/nodes/n1")).toBe("system-node-high");
    expect(schemaOf(node, "PATCH", "/api/v1/namespaces/default/pods/p/status")).toBe("system-nodes");
    expect(schemaOf(node, "POST", "/api/v1/namespaces/default/serviceaccounts/default/token")).toBe("system-nodes");
    expect(schemaOf(authed("system:kube-scheduler"), "POST", "/api/v1/namespaces/default/pods/p/binding")).toBe("kube-scheduler");
    expect(schemaOf(authed("system:kube-scheduler"), "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler")).toBe("system-leader-election");
    expect(schemaOf(authed("system:kube-controller-manager"), "POST", "/api/v1/namespaces/default/pods")).toBe("kube-controller-manager");
    expect(schemaOf(authed("system:kube-controller-manager"), "GET", "/api/v1/namespaces/kube-system/configmaps/x")).toBe("system-leader-election");
    // Leader election outside kube-system's core objects is not system-leader-election's.
    expect(schemaOf(authed("system:kube-controller-manager"), "GET", "/api/v1/namespaces/other/configmaps/x")).toBe("kube-controller-manager");
    const ksa = authed("system:serviceaccount:kube-system:job-controller", "system:serviceaccounts", "system:serviceaccounts:kube-system");
    expect(schemaOf(ksa, "POST", "/apis/batch/v1/namespaces/default/jobs")).toBe("kube-system-service-accounts");
    expect(schemaOf(ksa, "PUT", "/api/v1/namespaces/default/endpoints/x")).toBe("workload-leader-election");
    expect(schemaOf(ksa, "DELETE", "/api/v1/namespaces/default/endpoints/x")).toBe("kube-system-service-accounts");
    expect(schemaOf(authed("system:serviceaccount:default:app", "system:serviceaccounts"), "GET", "/api/v1/namespaces/default/pods")).toBe("service-accounts");
    expect(schemaOf(authed("alice"), "GET", "/version")).toBe("global-default");
    expect(schemaOf(authed("alice"), "GET", "/healthz")).toBe("probes");
    expect(schemaOf({ username: "system:anonymous", groups: ["system:unauthenticated"] }, "GET", "/livez")).toBe("probes");
    expect(schemaOf({ username: "system:anonymous", groups: ["system:unauthenticated"] }, "GET", "/api")).toBe("global-default");
    // A user in neither system:authenticated nor system:unauthenticated matches nothing.
    expect(schemaOf({ username: "odd", groups: [] }, "GET", "/api")).toBeUndefined();
  });
});

describe("dealHand", () => {
  it("deals distinct cards of the deck, the same hand for the same hash, different hands for different hashes", () => {
    const hands = new Set<string>();
    for (let h = 0; h < 2000; h++) {
      const hand = dealHand(h * 7_919_993, 64, 6);
      expect(new Set(hand).size).toBe(6);
      for (const c of hand) expect(c >= 0 && c < 64).toBe(true);
      expect(dealHand(h * 7_919_993, 64, 6)).toEqual(hand);
      hands.add(hand.join(","));
    }
    expect(hands.size).toBe(2000);
    expect(dealHand(5, 3, 6).sort()).toEqual([0, 1, 2]);
  });
});

describe("PriorityAndFairness", () => {
  it("divides the server's concurrency by shares as 1.23 (600: 74 system, 98 node-high, 25 leader-election, 98 workload-high, 245 workload-low, 49 global-default, 13 catch-all)", () => {
    const apf = new PriorityAndFairness({ serverConcurrencyLimit: 600, requestWaitLimitMs: 15_000 });
    expect(Object.fromEntries([...apf.levels].map(([n, l]) => [n, l.concurrencyLimit]))).toEqual({
      system: 74, "node-high": 98, "leader-election": 25, "workload-high": 98, "workload-low": 245, "global-default": 49, "catch-all": 13,
    });
    expect(() => new PriorityAndFairness({ serverConcurrencyLimit: 0, requestWaitLimitMs: 1 })).toThrow(/must be positive/);
  });

  it("exempt requests never wait; the others take a seat of their level", () => {
    const apf = new PriorityAndFairness({ serverConcurrencyLimit: 2, requestWaitLimitMs: 1000 });
    const admin = apf.admit(authed("admin", "system:masters"), parseRequestInfo("POST", "/api/v1/namespaces/d/pods", {}));
    expect(admin).toMatchObject({ flowSchema: "exempt", priorityLevel: "exempt", exempt: true });
    expect(typeof admin.outcome).toBe("function");
    const a = apf.admit(node, parseRequestInfo("PATCH", "/api/v1/nodes/n1/status", {}));
    expect(a).toMatchObject({ priorityLevel: "node-high", exempt: false });
    expect(typeof a.outcome).toBe("function");
    expect(apf.levels.get("node-high")?.counts()).toEqual({ executing: 1, waiting: 0 });
    // node-high is full (1 seat); system is not.
    const waiting = apf.admit(node, parseRequestInfo("PATCH", "/api/v1/nodes/n1/status", {})).outcome as PendingSeat;
    expect(typeof waiting).toBe("object");
    expect(typeof apf.admit(node, parseRequestInfo("GET", "/api/v1/pods", {})).outcome).toBe("function");
    (a.outcome as () => void)();
    expect(apf.levels.get("node-high")?.counts()).toEqual({ executing: 1, waiting: 0 });
    waiting.cancel();
  });
});

describe("QueueSet", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function seatOf(o: SeatOutcome): Promise<(() => void) | string> {
    return typeof o === "object" ? o.seat : o;
  }

  it("serves flows fairly: a flow with one request is not stuck behind another flow's backlog", async () => {
    const qs = new QueueSet("t", 1, { queues: 64, handSize: 1, queueLengthLimit: 50 }, 0);
    const first = qs.acquire("busy") as () => void;
    const order: string[] = [];
    const busy = Array.from({ length: 10 }, (_, i) => seatOf(qs.acquire("busy")).then((r) => (order.push(`busy${String(i)}`), r)));
    const quiet = seatOf(qs.acquire("quiet")).then((r) => (order.push("quiet"), r));
    expect(qs.counts()).toEqual({ executing: 1, waiting: 11 });
    first();
    for (let i = 0; i < 11; i++) {
      await new Promise((r) => setImmediate(r));
      const done = order.at(-1);
      const r = await (done === "quiet" ? quiet : busy[Number(done?.slice(4))]);
      (r as () => void)();
    }
    expect(order.length).toBe(11);
    // One busy request may have been dispatched first (both queues start equal); quiet is next.
    expect(order.indexOf("quiet")).toBeLessThanOrEqual(1);
    expect(qs.counts()).toEqual({ executing: 0, waiting: 0 });
  });

  it("refuses when the chosen queue is full, and a request that waits too long", async () => {
    vi.useFakeTimers();
    const qs = new QueueSet("t", 1, { queues: 1, handSize: 1, queueLengthLimit: 2 }, 1000);
    const running = qs.acquire("a");
    expect(typeof running).toBe("function");
    const w1 = qs.acquire("a") as PendingSeat;
    const w2 = qs.acquire("b") as PendingSeat;
    expect(qs.acquire("c")).toBe("queue-full");
    vi.advanceTimersByTime(999);
    expect(qs.counts()).toEqual({ executing: 1, waiting: 2 });
    vi.advanceTimersByTime(1);
    expect(await w1.seat).toBe("time-out");
    expect(await w2.seat).toBe("time-out");
    expect(qs.rejected).toMatchObject({ "queue-full": 1, "time-out": 2 });
    expect(qs.counts()).toEqual({ executing: 1, waiting: 0 });
    (running as () => void)();
    expect(typeof qs.acquire("a")).toBe("function");
  });

  it("a cancelled request leaves its queue and never takes a seat; a release twice gives back one seat", async () => {
    const qs = new QueueSet("t", 1, { queues: 4, handSize: 2, queueLengthLimit: 5 }, 0);
    const running = qs.acquire("a") as () => void;
    const gone = qs.acquire("b") as PendingSeat;
    const next = qs.acquire("c") as PendingSeat;
    gone.cancel();
    expect(await gone.seat).toBe("cancelled");
    expect(qs.counts()).toEqual({ executing: 1, waiting: 1 });
    running();
    running();
    const r = await next.seat;
    expect(typeof r).toBe("function");
    expect(qs.counts()).toEqual({ executing: 1, waiting: 0 });
    gone.cancel();
    (r as () => void)();
    expect(qs.counts()).toEqual({ executing: 0, waiting: 0 });
  });

  it("a Reject level refuses beyond its concurrency at once", () => {
    const qs = new QueueSet("catch-all", 2, undefined, 1000);
    const a = qs.acquire("x");
    expect(typeof a).toBe("function");
    expect(typeof qs.acquire("y")).toBe("function");
    expect(qs.acquire("z")).toBe("concurrency-limit");
    (a as () => void)();
    expect(typeof qs.acquire("z")).toBe("function");
  });
});
