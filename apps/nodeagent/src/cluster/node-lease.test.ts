import type { Lease, Node } from "@skiff/api-types";
import { newConflict, newNotFound } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { formatMicroTime, NodeLeaseController, nodeLeaseBackoff } from "./node-lease.js";
import type { NodeLeaseControllerOptions } from "./node-lease.js";

const gr = { group: "coordination.k8s.io", resource: "leases" };

// An in-memory lease store with resourceVersion checks, and scripted failures.
function fakeCluster() {
  const leases = new Map<string, Lease>();
  let rv = 0;
  const calls: string[] = [];
  const failures: { op: "get" | "create" | "update"; err: unknown }[] = [];
  let node: Node | undefined = { metadata: { name: "node-a", uid: "uid-a" } };
  const fail = (op: "get" | "create" | "update") => {
    const i = failures.findIndex((f) => f.op === op);
    if (i === -1) return;
    const [f] = failures.splice(i, 1);
    throw f!.err;
  };
  const key = (ns: string | undefined, name: string) => `${ns ?? ""}/${name}`;
  const o: Pick<NodeLeaseControllerOptions, "leases" | "nodes"> = {
    leases: {
      async get(name, opts) {
        calls.push(`get ${key(opts?.namespace, name)}`);
        fail("get");
        const l = leases.get(key(opts?.namespace, name));
        if (!l) throw newNotFound(gr, name);
        return structuredClone(l);
      },
      async create(l, opts) {
        calls.push(`create ${key(opts?.namespace, l.metadata?.name ?? "")}`);
        fail("create");
        const stored = structuredClone(l);
        stored.metadata = { ...stored.metadata, resourceVersion: String(++rv) };
        leases.set(key(opts?.namespace, l.metadata?.name ?? ""), stored);
        return structuredClone(stored);
      },
      async update(l, opts) {
        calls.push(`update ${key(opts?.namespace, l.metadata?.name ?? "")}`);
        fail("update");
        const k = key(opts?.namespace, l.metadata?.name ?? "");
        const cur = leases.get(k);
        if (!cur) throw newNotFound(gr, l.metadata?.name ?? "");
        if (cur.metadata?.resourceVersion !== l.metadata?.resourceVersion) throw newConflict(gr, l.metadata?.name ?? "", new Error("the object has been modified"));
        const stored = structuredClone(l);
        stored.metadata = { ...stored.metadata, resourceVersion: String(++rv) };
        leases.set(k, stored);
        return structuredClone(stored);
      },
    },
    nodes: {
      async get(name) {
        if (!node) throw newNotFound({ group: "", resource: "nodes" }, name);
        return node;
      },
    },
  };
  return { o, leases, calls, failures, setNode: (n: Node | undefined) => (node = n), bumpRV: () => String(++rv) };
}

function controller(c: ReturnType<typeof fakeCluster>, extra: Partial<NodeLeaseControllerOptions> = {}) {
  let t = 0;
  const logs: string[] = [];
  const sleeps: number[] = [];
  const ctl = new NodeLeaseController({
    ...c.o,
    nodeName: "node-a",
    leaseDurationSeconds: 40,
    log: (m) => logs.push(m),
    nowMicro: () => formatMicroTime(new Date(Date.UTC(2024, 0, 1, 0, 0, t++, 250))),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
  return { ctl, logs, sleeps };
}

describe("formatMicroTime", () => {
  it("has six fractional digits", () => {
    expect(formatMicroTime(new Date("2024-01-02T03:04:05.123Z"))).toBe("2024-01-02T03:04:05.123000Z");
  });
});

describe("NodeLeaseController", () => {
  it("renews every leaseDurationSeconds / 4", () => {
    const c = fakeCluster();
    expect(controller(c).ctl.renewIntervalMs).toBe(10_000);
    expect(controller(c, { leaseDurationSeconds: 8 }).ctl.renewIntervalMs).toBe(2_000);
  });

  it("creates kube-node-lease/<node> held by the node, owned by the Node, and does not update it in the same sync", async () => {
    const c = fakeCluster();
    const { ctl } = controller(c);
    await ctl.sync();
    expect(c.calls).toEqual(["get kube-node-lease/node-a", "create kube-node-lease/node-a"]);
    const stored = c.leases.get("kube-node-lease/node-a");
    expect(stored).toMatchObject({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "node-a", namespace: "kube-node-lease", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "node-a", uid: "uid-a" }] },
      spec: { holderIdentity: "node-a", leaseDurationSeconds: 40, renewTime: "2024-01-01T00:00:00.250000Z" },
    });
    expect(stored?.spec?.acquireTime).toBeUndefined();
    expect(ctl.latestLease?.metadata?.resourceVersion).toBe("1");
  });

  it("renews from the latest lease without reading it (fast path), moving renewTime", async () => {
    const c = fakeCluster();
    const { ctl } = controller(c);
    await ctl.sync();
    c.calls.length = 0;
    await ctl.sync();
    await ctl.sync();
    expect(c.calls).toEqual(["update kube-node-lease/node-a", "update kube-node-lease/node-a"]);
    expect(c.leases.get("kube-node-lease/node-a")?.spec?.renewTime).toBe("2024-01-01T00:00:02.250000Z");
  });

  it("updates an existing lease it did not create (agent restart), keeping its fields", async () => {
    const c = fakeCluster();
    c.leases.set("kube-node-lease/node-a", {
      metadata: { name: "node-a", namespace: "kube-node-lease", resourceVersion: "1", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "node-a", uid: "old" }] },
      spec: { holderIdentity: "node-a", leaseDurationSeconds: 40, renewTime: "2020-01-01T00:00:00.000000Z" },
    });
    const { ctl } = controller(c);
    await ctl.sync();
    expect(c.calls).toEqual(["get kube-node-lease/node-a", "update kube-node-lease/node-a"]);
    const stored = c.leases.get("kube-node-lease/node-a");
    expect(stored?.spec?.renewTime).toBe("2024-01-01T00:00:00.250000Z");
    expect(stored?.metadata?.ownerReferences?.[0]?.uid).toBe("old");
  });

  it("on a conflict re-reads the lease and retries", async () => {
    const c = fakeCluster();
    const { ctl } = controller(c);
    await ctl.sync();
    // Someone else wrote the lease: our resourceVersion is stale.
    const stored = c.leases.get("kube-node-lease/node-a")!;
    stored.metadata = { ...stored.metadata, resourceVersion: c.bumpRV() };
    c.calls.length = 0;
    await ctl.sync();
    expect(c.calls).toEqual(["update kube-node-lease/node-a", "get kube-node-lease/node-a", "update kube-node-lease/node-a"]);
    expect(ctl.latestLease?.metadata?.resourceVersion).toBe(c.leases.get("kube-node-lease/node-a")?.metadata?.resourceVersion);
  });

  it("retries failed updates up to 5 times, reporting repeated failures, then falls back to get on the next sync", async () => {
    const c = fakeCluster();
    let repeated = 0;
    const { ctl, logs } = controller(c, { onRepeatedHeartbeatFailure: () => repeated++ });
    await ctl.sync();
    for (let i = 0; i < 10; i++) c.failures.push({ op: "update", err: new Error("connection refused") });
    c.calls.length = 0;
    await ctl.sync();
    // 5 on the fast path, then ensure (get) and 5 more.
    expect(c.calls.filter((x) => x.startsWith("update"))).toHaveLength(10);
    expect(c.calls).toContain("get kube-node-lease/node-a");
    expect(repeated).toBe(8);
    expect(logs.filter((l) => l.startsWith("failed 5 attempts to update lease"))).toHaveLength(2);
    c.calls.length = 0;
    await ctl.sync();
    expect(c.calls).toEqual(["update kube-node-lease/node-a"]);
  });

  it("backs off 200 ms doubling to 7 s while the lease cannot be read or created", async () => {
    const c = fakeCluster();
    for (let i = 0; i < 7; i++) c.failures.push({ op: "get", err: new Error("apiserver down") });
    const { ctl, sleeps, logs } = controller(c);
    await ctl.sync();
    expect(sleeps).toEqual([200, 400, 800, 1600, 3200, 6400, 7000].map((ms) => ms));
    expect(nodeLeaseBackoff).toEqual({ initialMs: 200, maxMs: 7000 });
    expect(logs[0]).toContain("Failed to ensure lease exists, will retry in 0.2s: apiserver down");
    expect(c.leases.has("kube-node-lease/node-a")).toBe(true);
  });

  it("creates the lease without an owner while the Node cannot be read, and adds the owner on a later renewal", async () => {
    const c = fakeCluster();
    c.setNode(undefined);
    const { ctl, logs } = controller(c);
    await ctl.sync();
    expect(c.leases.get("kube-node-lease/node-a")?.metadata?.ownerReferences).toBeUndefined();
    expect(logs.some((l) => l.includes("when trying to set owner ref to the node lease"))).toBe(true);
    c.setNode({ metadata: { name: "node-a", uid: "uid-late" } });
    await ctl.sync();
    expect(c.leases.get("kube-node-lease/node-a")?.metadata?.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: "node-a", uid: "uid-late" }]);
  });

  it("start renews in a loop with the renew interval (≤ 4 % jitter) and stop ends it", async () => {
    const c = fakeCluster();
    const waits: number[] = [];
    let release: (() => void) | undefined;
    const { ctl } = controller(c, {
      sleep: (ms) => {
        waits.push(ms);
        return waits.length < 3 ? Promise.resolve() : new Promise<void>((r) => (release = r));
      },
    });
    ctl.start();
    ctl.start();
    await expect.poll(() => waits.length).toBe(3);
    expect(c.calls.filter((x) => x.startsWith("create"))).toHaveLength(1);
    expect(c.calls.filter((x) => x.startsWith("update"))).toHaveLength(2);
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(10_000);
      expect(w).toBeLessThanOrEqual(10_400);
    }
    await ctl.stop();
    release?.();
    const before = c.calls.length;
    await new Promise((r) => setTimeout(r, 10));
    expect(c.calls.length).toBe(before);
  });
});
