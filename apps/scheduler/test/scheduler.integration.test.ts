import type { Node, Pod, PriorityClass, Taint } from "@skiff/api-types";
import { createClient, loadClusterConfig } from "@skiff/client";
import type { Client } from "@skiff/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Scheduler } from "../src/scheduler.js";
import { startAPIServer, waitFor as poll } from "@skiff/test-support";
import type { RunningAPIServer } from "@skiff/test-support";

let server: RunningAPIServer;
let client: Client;
let scheduler: Scheduler;
const logs: string[] = [];

beforeAll(async () => {
  server = await startAPIServer({ tempPrefix: "skiff-scheduler-" });
  client = createClient(await loadClusterConfig(server.kubeconfig), { qps: 1000, burst: 1000 });
  scheduler = new Scheduler({ client, log: (_l, m) => logs.push(m) });
  await scheduler.start();
});
afterAll(async () => {
  await scheduler?.stop();
  client?.close();
  await server?.stop();
});
afterEach(async () => {
  await client.pods.deleteCollection({ namespace: "default", gracePeriodSeconds: 0 });
  for (const n of (await client.nodes.list()).items) await client.nodes.delete(n.metadata?.name ?? "", { gracePeriodSeconds: 0 });
});

/**
 * A Node as a node agent registers it, with its status. The apiserver's TaintNodesByCondition
 * admission gives it `node.example.io/not-ready:NoSchedule`; this suite runs no controller
 * manager, so for a Ready node it removes that taint itself, as the node lifecycle controller
 * would (a not-Ready node keeps it).
 */
async function addNode(name: string, o: { labels?: Record<string, string>; taints?: Taint[]; cpu?: string; memory?: string; pods?: string; ready?: boolean; images?: { names: string[]; sizeBytes: number }[] } = {}): Promise<Node> {
  const created = await client.nodes.create({ metadata: { name, labels: { ...o.labels } }, spec: { ...(o.taints ? { taints: o.taints } : {}) } });
  const allocatable = { cpu: o.cpu ?? "4", memory: o.memory ?? "8Gi", pods: o.pods ?? "110" };
  const withStatus = await client.nodes.updateStatus({
    ...created,
    status: { capacity: allocatable, allocatable, conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True", reason: "NodeReady", message: "ready" }], ...(o.images ? { images: o.images } : {}) },
  });
  if (o.ready === false) return withStatus;
  return client.nodes.update({ ...withStatus, spec: { ...withStatus.spec, taints: (withStatus.spec?.taints ?? []).filter((t) => !(t.key === "node.example.io/not-ready" && t.effect === "NoSchedule")) } });
}

function addPod(name: string, spec: Partial<NonNullable<Pod["spec"]>> = {}, requests?: Record<string, string>): Promise<Pod> {
  return client.pods.create({ metadata: { name, namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox", ...(requests ? { resources: { requests } } : {}) }], ...spec } });
}

const waitFor = <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> =>
  poll(fn, { what, timeoutMs: 10_000, intervalMs: 25, context: () => `scheduler log:\n${logs.slice(-20).join("\n")}` });

const boundNode = (name: string) =>
  waitFor(`${name} bound`, async () => {
    const p = await client.pods.get(name, { namespace: "default" });
    return p.spec?.nodeName || undefined;
  });

const unschedulableMessage = (name: string) =>
  waitFor(`${name} unschedulable`, async () => {
    const p = await client.pods.get(name, { namespace: "default" });
    const c = p.status?.conditions?.find((x) => x.type === "PodScheduled");
    return c?.status === "False" && c.reason === "Unschedulable" ? c.message : undefined;
  });

describe("skiff-scheduler against the real apiserver", () => {
  it("nodeSelector", async () => {
    await addNode("sel-a", { labels: { zone: "a" } });
    await addNode("sel-b", { labels: { zone: "b" } });
    await addPod("p", { nodeSelector: { zone: "b" } });
    expect(await boundNode("p")).toBe("sel-b");
  });

  it("required node affinity: In, NotIn, Exists, DoesNotExist, Gt, Lt, matchFields", async () => {
    await addNode("aff-1", { labels: { gen: "3", disk: "hdd" } });
    await addNode("aff-2", { labels: { gen: "5", disk: "ssd", gpu: "yes" } });
    const affinity = (terms: object[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
    const cases: Array<[string, object, string]> = [
      ["in", { matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] }, "aff-2"],
      ["notin", { matchExpressions: [{ key: "disk", operator: "NotIn", values: ["ssd"] }] }, "aff-1"],
      ["exists", { matchExpressions: [{ key: "gpu", operator: "Exists" }] }, "aff-2"],
      ["dne", { matchExpressions: [{ key: "gpu", operator: "DoesNotExist" }] }, "aff-1"],
      ["gt", { matchExpressions: [{ key: "gen", operator: "Gt", values: ["4"] }] }, "aff-2"],
      ["lt", { matchExpressions: [{ key: "gen", operator: "Lt", values: ["4"] }] }, "aff-1"],
      ["fields", { matchFields: [{ key: "metadata.name", operator: "In", values: ["aff-1"] }] }, "aff-1"],
    ];
    for (const [name, term] of cases) await addPod(name, affinity([term]) as never);
    for (const [name, , want] of cases) expect(await boundNode(name), name).toBe(want);
  });

  it("taints and tolerations (NoSchedule, NoExecute; PreferNoSchedule does not filter); a new node's not-ready:NoSchedule taint keeps pods off until tolerated", async () => {
    await addNode("t-noschedule", { taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }], cpu: "64" });
    await addNode("t-noexecute", { taints: [{ key: "evict", effect: "NoExecute" }], cpu: "64" });
    await addNode("t-notready", { ready: false, cpu: "64" });
    await addNode("t-prefer", { taints: [{ key: "soft", effect: "PreferNoSchedule" }], cpu: "1" });
    await addPod("plain", {}, { cpu: "100m" });
    expect(await boundNode("plain")).toBe("t-prefer");
    await addPod("tolerant", { tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }] }, { cpu: "100m" });
    expect(await boundNode("tolerant")).toBe("t-noschedule"); // most free cpu among the nodes it tolerates
    await addPod("tolerates-execute", { tolerations: [{ key: "evict", operator: "Exists" }], nodeSelector: {} }, { cpu: "100m" });
    expect(["t-noexecute", "t-prefer"]).toContain(await boundNode("tolerates-execute"));
    expect((await client.nodes.get("t-notready")).spec?.taints).toEqual([{ key: "node.example.io/not-ready", effect: "NoSchedule" }]);
    await addPod("tolerates-not-ready", { tolerations: [{ key: "node.example.io/not-ready", operator: "Exists", effect: "NoSchedule" }] }, { cpu: "100m" });
    expect(await boundNode("tolerates-not-ready")).toBe("t-notready"); // most free cpu among the nodes it tolerates
  });

  it("allocatable pods, cpu and memory; least-allocated choice", async () => {
    await addNode("r-small", { cpu: "1", memory: "1Gi", pods: "1" });
    await addNode("r-big", { cpu: "8", memory: "16Gi" });
    await addPod("first", {}, { cpu: "500m", memory: "512Mi" });
    expect(await boundNode("first")).toBe("r-big"); // least allocated
    await addPod("pinned", { nodeName: "r-small" });
    await addPod("second", {}, { cpu: "100m" });
    expect(await boundNode("second")).toBe("r-big"); // r-small is full (pods = 1)
    await addPod("huge", {}, { cpu: "7600m" });
    const msg = await unschedulableMessage("huge");
    expect(msg).toBe("0/2 nodes are available: 1 Too many pods, 2 Insufficient cpu.");
    await addPod("fat", {}, { memory: "20Gi" });
    expect(await unschedulableMessage("fat")).toBe("0/2 nodes are available: 1 Too many pods, 2 Insufficient memory.");
  });

  it("an unschedulable pod gets PodScheduled=False and a FailedScheduling event, and is bound when a fitting node is added", async () => {
    await addNode("u-1", { labels: { zone: "a" } });
    await addNode("u-2", { labels: { zone: "b" }, cpu: "1" });
    await addNode("u-3", { labels: { zone: "b" }, cpu: "1" });
    await addPod("waiting", { nodeSelector: { zone: "b" } }, { cpu: "2" });
    const message = await unschedulableMessage("waiting");
    expect(message).toBe("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu.");
    const events = await waitFor("FailedScheduling event", async () => {
      const l = await client.events.list({ namespace: "default", fieldSelector: "involvedObject.name=waiting,reason=FailedScheduling" });
      return l.items.length > 0 ? l.items : undefined;
    });
    expect(events[0]).toMatchObject({ type: "Warning", message, source: { component: "default-scheduler" } });
    await addNode("u-4", { labels: { zone: "b" }, cpu: "4" });
    expect(await boundNode("waiting")).toBe("u-4");
    // The Scheduled event is sent after the bind, without the scheduler waiting for it.
    const scheduled = await waitFor("Scheduled event", async () => {
      const l = await client.events.list({ namespace: "default", fieldSelector: "involvedObject.name=waiting,reason=Scheduled" });
      return l.items.length > 0 ? l.items : undefined;
    });
    expect(scheduled[0]?.message).toBe("Successfully assigned default/waiting to u-4");
  });

  it("the queue is sorted as 1.23's PrioritySort: a higher-priority pod queued after a lower one gets the one free place", async () => {
    // No node: both wait as unschedulable, the low one first. A node with room for one pod moves
    // both back to the queue in that order; the priority sort puts the critical one first.
    await addPod("first-low");
    expect(await unschedulableMessage("first-low")).toBe("no nodes available to schedule pods");
    const critical = await addPod("then-critical", { priorityClassName: "system-cluster-critical" });
    expect(critical.spec?.priority).toBe(2000000000);
    await unschedulableMessage("then-critical");
    await addNode("prio-1", { pods: "1" });
    expect(await boundNode("then-critical")).toBe("prio-1");
    expect(await unschedulableMessage("first-low")).toBe("0/1 nodes are available: 1 Too many pods.");
  });

  it("preemption: a higher-priority pod deletes the lower-priority victim, is nominated, and is bound once the victim is gone; preemptionPolicy Never waits", async () => {
    const classes = client.resource<PriorityClass>("priorityclasses.scheduling.k8s.io");
    await classes.create({ metadata: { name: "sched-high" }, value: 1000 });
    await classes.create({ metadata: { name: "sched-polite" }, value: 1000, preemptionPolicy: "Never" });
    try {
      await addNode("pre-1", { cpu: "2" });
      await addPod("victim", {}, { cpu: "1500m" });
      await addPod("bystander", { priorityClassName: "sched-high" }, { cpu: "500m" });
      expect(await boundNode("victim")).toBe("pre-1");
      expect(await boundNode("bystander")).toBe("pre-1");

      // Never: unschedulable, and nothing is deleted.
      await addPod("polite", { priorityClassName: "sched-polite" }, { cpu: "1" });
      expect(await unschedulableMessage("polite")).toBe("0/1 nodes are available: 1 Insufficient cpu.");
      expect((await client.pods.get("victim", { namespace: "default" })).metadata?.deletionTimestamp).toBeUndefined();
      await client.pods.delete("polite", { namespace: "default", gracePeriodSeconds: 0 });

      await addPod("preemptor", { priorityClassName: "sched-high" }, { cpu: "1" });
      const nominated = await waitFor("preemptor nominated", async () => (await client.pods.get("preemptor", { namespace: "default" })).status?.nominatedNodeName || undefined);
      expect(nominated).toBe("pre-1");
      // The victim is deleted gracefully (a node agent would stop it); the bystander of equal priority stays.
      const victim = await client.pods.get("victim", { namespace: "default" });
      expect(victim.metadata?.deletionTimestamp).toBeDefined();
      expect((await client.pods.get("bystander", { namespace: "default" })).metadata?.deletionTimestamp).toBeUndefined();
      const preempted = await waitFor("Preempted event", async () => {
        const l = await client.events.list({ namespace: "default", fieldSelector: "involvedObject.name=victim,reason=Preempted" });
        return l.items[0];
      });
      expect(preempted).toMatchObject({ type: "Normal", message: "Preempted by default/preemptor on node pre-1", source: { component: "default-scheduler" } });
      // Not preempted twice while the victim terminates; bound once it is gone.
      expect((await client.pods.get("preemptor", { namespace: "default" })).spec?.nodeName).toBeUndefined();
      await client.pods.delete("victim", { namespace: "default", gracePeriodSeconds: 0 });
      expect(await boundNode("preemptor")).toBe("pre-1");
    } finally {
      await classes.delete("sched-high");
      await classes.delete("sched-polite");
    }
  });

  it("a pod nominated to a node holds its room against pods of lower priority, not of higher (1.23's nominator)", async () => {
    const classes = client.resource<PriorityClass>("priorityclasses.scheduling.k8s.io");
    await classes.create({ metadata: { name: "nom-mid" }, value: 500 });
    await classes.create({ metadata: { name: "nom-top" }, value: 900 });
    try {
      await addNode("nom-1", { cpu: "2" });
      // A pending pod nominated to nom-1 (as after a preemption) that cannot be bound yet.
      const holder = await addPod("holder", { priorityClassName: "nom-mid", nodeSelector: { never: "matches" } }, { cpu: "1500m" });
      await unschedulableMessage("holder");
      const current = await client.pods.get("holder", { namespace: "default" });
      await client.pods.updateStatus({ ...current, status: { ...current.status, nominatedNodeName: "nom-1" } });
      expect(holder.spec?.priority).toBe(500);
      await waitFor("the nomination seen", async () => ((await client.pods.get("holder", { namespace: "default" })).status?.nominatedNodeName === "nom-1" ? true : undefined));
      await new Promise((r) => setTimeout(r, 200));
      await addPod("lower", {}, { cpu: "1" });
      expect(await unschedulableMessage("lower")).toBe("0/1 nodes are available: 1 Insufficient cpu.");
      await addPod("higher", { priorityClassName: "nom-top" }, { cpu: "1" });
      expect(await boundNode("higher")).toBe("nom-1");
    } finally {
      await classes.delete("nom-mid");
      await classes.delete("nom-top");
    }
  });

  it("required pod anti-affinity spreads replicas one per node; the extra one waits and is bound when a replica goes", async () => {
    await addNode("aa-1", { labels: { "example.io/hostname": "aa-1" } });
    await addNode("aa-2", { labels: { "example.io/hostname": "aa-2" } });
    const replica = (name: string) =>
      client.pods.create({
        metadata: { name, namespace: "default", labels: { app: "web" } },
        spec: {
          containers: [{ name: "c", image: "busybox" }],
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "web" } }, topologyKey: "example.io/hostname" }] } },
        },
      });
    await replica("web-1");
    const first = await boundNode("web-1");
    await replica("web-2");
    const second = await boundNode("web-2");
    expect(new Set([first, second])).toEqual(new Set(["aa-1", "aa-2"]));
    await replica("web-3");
    expect(await unschedulableMessage("web-3")).toBe("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
    await client.pods.delete("web-1", { namespace: "default", gracePeriodSeconds: 0 });
    expect(await boundNode("web-3")).toBe(first);
  });

  it("required pod affinity waits for the pod it follows, and is bound next to it once that pod is placed", async () => {
    await addNode("pa-1", { labels: { zone: "a" } });
    await addNode("pa-2", { labels: { zone: "b" } });
    await addPod("follower", { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "leader" } }, topologyKey: "zone" }] } } });
    expect(await unschedulableMessage("follower")).toBe("0/2 nodes are available: 2 node(s) didn't match pod affinity rules.");
    // The leader is bound by hand (no scheduler involved); its add retries the follower.
    await client.pods.create({ metadata: { name: "leader", namespace: "default", labels: { app: "leader" } }, spec: { nodeName: "pa-2", containers: [{ name: "c", image: "busybox" }] } });
    expect(await boundNode("follower")).toBe("pa-2");
  });

  it("topology spread (DoNotSchedule, maxSkew 1) and host ports, as 1.23's filters, with kubectl-style messages", async () => {
    await addNode("ts-1", { labels: { zone: "a" } });
    await addNode("ts-2", { labels: { zone: "a" } });
    await addNode("ts-3", { labels: { zone: "b" } });
    const spreadPod = (name: string) =>
      client.pods.create({
        metadata: { name, namespace: "default", labels: { app: "s" } },
        spec: {
          nodeSelector: { zone: "a" },
          containers: [{ name: "c", image: "busybox", ports: [{ containerPort: 80, hostPort: 8080 }] }],
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "example.io/missing", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "s" } } }],
        },
      });
    await spreadPod("s-1");
    expect(await unschedulableMessage("s-1")).toBe("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match pod topology spread constraints (missing required label).");
    await client.pods.delete("s-1", { namespace: "default", gracePeriodSeconds: 0 });
    const ported = (name: string) => addPod(name, { nodeSelector: { zone: "a" }, containers: [{ name: "c", image: "busybox", ports: [{ containerPort: 80, hostPort: 8080 }] }] });
    await ported("hp-1");
    await ported("hp-2");
    expect(new Set([await boundNode("hp-1"), await boundNode("hp-2")])).toEqual(new Set(["ts-1", "ts-2"]));
    await ported("hp-3");
    expect(await unschedulableMessage("hp-3")).toBe("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't have free ports for the requested pod ports.");
  });

  it("preferences score nodes: preferred node affinity, PreferNoSchedule taints, preferred pod anti-affinity, ScheduleAnyway spread", async () => {
    // Equal nodes: without preferences the tie goes to the first name.
    await addNode("pf-1", { labels: { zone: "a", "example.io/hostname": "pf-1" }, taints: [{ key: "spot", value: "true", effect: "PreferNoSchedule" }] });
    await addNode("pf-2", { labels: { zone: "b", "example.io/hostname": "pf-2" } });
    await addPod("plain");
    expect(await boundNode("plain")).toBe("pf-2");
    await addPod("tolerant", { tolerations: [{ key: "spot", operator: "Exists" }], affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] } }] } } });
    expect(await boundNode("tolerant")).toBe("pf-1");
    const spread = (name: string) =>
      client.pods.create({
        metadata: { name, namespace: "default", labels: { app: "sp" } },
        spec: {
          tolerations: [{ key: "spot", operator: "Exists" }],
          containers: [{ name: "c", image: "busybox" }],
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: { app: "sp" } } }],
          affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: "sp" } }, topologyKey: "example.io/hostname" } }] } },
        },
      });
    await spread("sp-1");
    const first = await boundNode("sp-1");
    await spread("sp-2");
    expect(await boundNode("sp-2")).toBe(first === "pf-1" ? "pf-2" : "pf-1");
  });

  it("resource balance and image locality score nodes (1.23's NodeResourcesBalancedAllocation and ImageLocality)", async () => {
    // Equal least-allocated scores after the pod (cpu 50, memory 50 on both); bl-b would be used
    // evenly (cpu and memory half), bl-a not (cpu 1/4, memory 3/4): balance picks bl-b.
    await addNode("bl-a");
    await addNode("bl-b");
    await addPod("bl-heavy-mem", { nodeName: "bl-a" }, { cpu: "0", memory: "5Gi" });
    await addPod("bl-even", { nodeName: "bl-b" }, { cpu: "1", memory: "3Gi" });
    await addPod("bl-new", {}, { cpu: "1", memory: "1Gi" });
    expect(await boundNode("bl-new")).toBe("bl-b");
    await client.pods.deleteCollection({ namespace: "default", gracePeriodSeconds: 0 });
    for (const n of ["bl-a", "bl-b"]) await client.nodes.delete(n, { gracePeriodSeconds: 0 });
    // Two equal empty nodes; only im-2 holds the pod's 800 MB image (as its node agent reports it in
    // status.images): without ImageLocality the tie would go to im-1.
    await addNode("im-1", { images: [{ names: ["docker.io/library/other:1"], sizeBytes: 800_000_000 }] });
    await addNode("im-2", { images: [{ names: ["docker.io/example/big@sha256:0123", "example/big:2"], sizeBytes: 800_000_000 }] });
    await client.pods.create({ metadata: { name: "im-pod", namespace: "default" }, spec: { containers: [{ name: "c", image: "example/big:2" }] } });
    expect(await boundNode("im-pod")).toBe("im-2");
  });

  it("a pod that stays unschedulable across retries has one FailedScheduling event whose count grows (client-go's event correlator)", async () => {
    await addNode("c-1", { cpu: "1" });
    await addPod("stuck", {}, { cpu: "3" });
    await unschedulableMessage("stuck");
    // Each node update makes the scheduler retry the unschedulable pod with the same verdict.
    for (let i = 0; i < 3; i++) {
      await waitFor("retry", async () => {
        const n = await client.nodes.get("c-1");
        await client.nodes.update({ ...n, metadata: { ...n.metadata, labels: { ...n.metadata?.labels, round: String(i) } } });
        return true;
      });
    }
    const counted = await waitFor("FailedScheduling counted", async () => {
      const l = await client.events.list({ namespace: "default", fieldSelector: "involvedObject.name=stuck,reason=FailedScheduling" });
      return l.items.length === 1 && (l.items[0]?.count ?? 0) >= 2 ? l.items[0] : undefined;
    });
    expect(counted.message).toBe("0/1 nodes are available: 1 Insufficient cpu.");
    expect(Date.parse(counted.lastTimestamp ?? "")).toBeGreaterThanOrEqual(Date.parse(counted.firstTimestamp ?? ""));
  });

  it("pods of another scheduler are left alone; back-to-back pods do not overcommit a node", async () => {
    await addNode("b-1", { cpu: "1" });
    await addPod("other", { schedulerName: "my-scheduler" });
    await Promise.all([addPod("x1", {}, { cpu: "600m" }), addPod("x2", {}, { cpu: "600m" })]);
    const bound = await waitFor("one of x1/x2 bound and the other unschedulable", async () => {
      const [a, b] = await Promise.all([client.pods.get("x1", { namespace: "default" }), client.pods.get("x2", { namespace: "default" })]);
      const states = [a, b].map((p) => (p.spec?.nodeName ? "bound" : p.status?.conditions?.some((c) => c.reason === "Unschedulable") ? "unschedulable" : "pending"));
      return states.includes("pending") ? undefined : states.sort();
    });
    expect(bound).toEqual(["bound", "unschedulable"]);
    expect((await client.pods.get("other", { namespace: "default" })).spec?.nodeName).toBeFalsy();
  });

  it("schedules the next pod while a bind is in flight, counting the assumed pod on its node", async () => {
    // Its own scheduler name, so the suite's scheduler leaves these pods alone; its bind of
    // `held` waits until released.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const binding = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === "bindPod") {
          return async (b: Parameters<Client["bindPod"]>[0]) => {
            if (b.name === "held") await released;
            return target.bindPod(b);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const background = new Scheduler({ client: binding, schedulerName: "background-binder", log: (_l, m) => logs.push(m) });
    await background.start();
    try {
      await addNode("a-1", { cpu: "1" });
      await addNode("a-2", { cpu: "1" });
      await addPod("held", { schedulerName: "background-binder" }, { cpu: "600m" });
      await waitFor("held assumed, its bind in flight", async () => (background.bindsInFlight === 1 ? true : undefined));
      await addPod("next", { schedulerName: "background-binder" }, { cpu: "600m" });
      // a-1 holds the assumed 600m of `held`: `next` goes to a-2 while `held` is still unbound.
      expect(await boundNode("next")).toBe("a-2");
      expect((await client.pods.get("held", { namespace: "default" })).spec?.nodeName).toBeFalsy();
      release();
      expect(await boundNode("held")).toBe("a-1");
    } finally {
      release();
      await background.stop();
    }
  });
});
