import { isAlreadyExists, isConflict, isInvalid, isNotFound, isStatusError } from "@skiff/apimachinery";
import type { CSIDriver, CSINode, ConfigMap, Event, Job, Namespace, Node, Pod, PodTemplate, Secret, ServiceAccount } from "@skiff/api-types";
import { ClientError, FakeClock, createClient, createInformer, createSharedInformerFactory, isClientError, isDeletedFinalStateUnknown, keyOf, loadClusterConfig } from "@skiff/client";
import type { Client, KubeObject, ResourceClient } from "@skiff/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAPIServer, waitFor } from "@skiff/test-support";
import type { RunningAPIServer } from "@skiff/test-support";

let server: RunningAPIServer;
let client: Client;

beforeAll(async () => {
  server = await startAPIServer({ tempPrefix: "skiff-client-" });
  client = createClient(await loadClusterConfig(server.kubeconfig), { qps: 1000, burst: 1000, userAgent: "client-test" });
});
afterAll(async () => {
  client?.close();
  await server?.stop();
});

const until = async (cond: () => boolean, what: string): Promise<void> => {
  await waitFor(cond, { what, timeoutMs: 10_000, intervalMs: 20 });
};

const podSpec = { containers: [{ name: "c", image: "busybox" }] };

interface KindCase<T extends KubeObject> {
  readonly name: string;
  readonly client: () => ResourceClient<T>;
  readonly make: (name: string) => T;
  readonly namespaced: boolean;
  readonly hasStatus: boolean;
}

const cases: KindCase<KubeObject>[] = [
  { name: "Pod", client: () => client.pods, make: (name): Pod => ({ metadata: { name, labels: { t: "crud" } }, spec: podSpec }), namespaced: true, hasStatus: true },
  { name: "Node", client: () => client.nodes, make: (name): Node => ({ metadata: { name, labels: { t: "crud" } } }), namespaced: false, hasStatus: true },
  {
    name: "Event",
    client: () => client.events,
    make: (name): Event => ({ metadata: { name, labels: { t: "crud" } }, involvedObject: { kind: "Pod", name: "x", namespace: "default" }, reason: "Test", message: "m", type: "Normal" }),
    namespaced: true,
    hasStatus: false,
  },
  { name: "Namespace", client: () => client.namespaces, make: (name): Namespace => ({ metadata: { name, labels: { t: "crud" } } }), namespaced: false, hasStatus: true },
  {
    name: "PodTemplate",
    client: () => client.podTemplates,
    make: (name): PodTemplate => ({ metadata: { name, labels: { t: "crud" } }, template: { spec: podSpec } }),
    namespaced: true,
    hasStatus: false,
  },
  {
    name: "Job",
    client: () => client.jobs,
    make: (name): Job => ({ metadata: { name, labels: { t: "crud" } }, spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } } }),
    namespaced: true,
    hasStatus: true,
  },
  { name: "CSIDriver", client: () => client.csiDrivers, make: (name): CSIDriver => ({ metadata: { name: `${name}.example.io`, labels: { t: "crud" } }, spec: {} }), namespaced: false, hasStatus: false },
  { name: "CSINode", client: () => client.csiNodes, make: (name): CSINode => ({ metadata: { name, labels: { t: "crud" } }, spec: { drivers: [] } }), namespaced: false, hasStatus: false },
  { name: "ConfigMap", client: () => client.configMaps, make: (name): ConfigMap => ({ metadata: { name, labels: { t: "crud" } }, data: { k: "v" } }), namespaced: true, hasStatus: false },
  { name: "Secret", client: () => client.secrets, make: (name): Secret => ({ metadata: { name, labels: { t: "crud" } }, stringData: { k: "v" } }), namespaced: true, hasStatus: false },
  {
    name: "ServiceAccount",
    client: () => client.serviceAccounts,
    make: (name): ServiceAccount => ({ metadata: { name, labels: { t: "crud" } }, automountServiceAccountToken: false }),
    namespaced: true,
    hasStatus: false,
  },
] as KindCase<KubeObject>[];

describe.each(cases)("CRUD on $name", (c) => {
  it("create, get, list, update, patch (merge, json, strategic), delete, deleteCollection", async () => {
    const rc = c.client();
    const ns = c.namespaced ? { namespace: "default" } : {};
    const created = await rc.create(c.make("crud-a"), ns);
    const name = created.metadata?.name ?? "";
    expect(created.kind).toBe(rc.info.kind);
    expect(created.metadata?.uid).toBeTruthy();
    await expect(rc.create(c.make("crud-a"), ns)).rejects.toSatisfy(isAlreadyExists);
    const got = await rc.get(name, ns);
    expect(got.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    await expect(rc.get("nope", ns)).rejects.toSatisfy((e) => isNotFound(e) && isStatusError(e) && e.status.details?.name === "nope");

    const updated = await rc.update({ ...got, metadata: { ...got.metadata, annotations: { a: "1" } } }, ns);
    expect(updated.metadata?.annotations?.a).toBe("1");
    // stale resourceVersion: 409 Conflict
    await expect(rc.update({ ...got, metadata: { ...got.metadata, annotations: { a: "2" } } }, ns)).rejects.toSatisfy(isConflict);

    const merged = await rc.patch(name, { metadata: { annotations: { b: "2" } } }, { ...ns, type: "merge" });
    expect(merged.metadata?.annotations).toEqual({ a: "1", b: "2" });
    const jsonPatched = await rc.patch(name, [{ op: "remove", path: "/metadata/annotations/a" }], { ...ns, type: "json" });
    expect(jsonPatched.metadata?.annotations).toEqual({ b: "2" });
    const smp = await rc.patch(name, { metadata: { labels: { s: "1" } } }, { ...ns, type: "strategic", fieldManager: "tester" });
    expect(smp.metadata?.labels).toMatchObject({ t: "crud", s: "1" });
    const dry = await rc.patch(name, { metadata: { labels: { dry: "1" } } }, { ...ns, dryRun: true });
    expect(dry.metadata?.labels?.dry).toBe("1");
    expect((await rc.get(name, ns)).metadata?.labels?.dry).toBeUndefined();

    await rc.create(c.make("crud-b"), ns);
    const page = await rc.list({ ...ns, labelSelector: "t=crud", limit: 1 });
    expect(page.items).toHaveLength(1);
    expect(page.metadata.continue).toBeTruthy();
    const all = await rc.listAll({ ...ns, labelSelector: "t=crud", limit: 1 });
    expect(all.items.map((o) => o.metadata?.name).sort()).toEqual([name, c.make("crud-b").metadata?.name].sort());
    expect(all.metadata.continue).toBeUndefined();
    expect(all.metadata.resourceVersion).toBe(page.metadata.resourceVersion);

    // preconditions: wrong uid -> Conflict
    await expect(rc.delete(name, { ...ns, preconditions: { uid: "00000000-0000-0000-0000-000000000000" } })).rejects.toSatisfy(isConflict);
    await rc.delete(name, { ...ns, gracePeriodSeconds: 0, propagationPolicy: "Background" });
    if (c.name !== "Namespace") {
      await expect(rc.get(name, ns)).rejects.toSatisfy(isNotFound);
      await rc.deleteCollection({ ...ns, labelSelector: "t=crud", propagationPolicy: "Background" });
      expect((await rc.list({ ...ns, labelSelector: "t=crud" })).items).toHaveLength(0);
    }
  });

  it.runIf(c.hasStatus)("updateStatus and patch of the status subresource", async () => {
    const rc = c.client();
    const ns = c.namespaced ? { namespace: "default" } : {};
    const created = await rc.create(c.make("status-a"), ns);
    const name = created.metadata?.name ?? "";
    const status: Record<string, unknown> =
      c.name === "Pod" ? { phase: "Running" } : c.name === "Node" ? { capacity: { pods: "10" } } : c.name === "Job" ? { active: 1 } : { phase: "Active" };
    const withStatus = await rc.updateStatus({ ...created, status } as KubeObject, ns);
    expect((withStatus as { status?: unknown }).status).toMatchObject(status);
    const patched = await rc.patch(name, { metadata: { labels: { viaStatus: "1" } } }, { ...ns, subresource: "status" });
    // the status strategy keeps the rest of the object (labels are metadata: allowed to change through status in 1.23)
    expect(patched.metadata?.name).toBe(name);
    if (c.name !== "Namespace") await rc.delete(name, ns);
  });
});

describe("client", () => {
  it("namespaced calls without a namespace fail with ClientError MissingNamespace", async () => {
    await expect(client.pods.get("x")).rejects.toSatisfy((e) => isClientError(e) && e.code === "MissingNamespace");
  });

  it("validation errors are 422 StatusErrors with causes", async () => {
    const err: unknown = await client.pods.create({ metadata: { name: "Bad_Name", namespace: "default" }, spec: podSpec }).catch((e: unknown) => e);
    expect(isInvalid(err)).toBe(true);
    expect(isStatusError(err) && err.status.details?.causes?.length).toBeTruthy();
  });

  it("network errors are ClientError NetworkError", async () => {
    const dead = createClient({ server: "https://127.0.0.1:1", insecureSkipTLSVerify: true });
    await expect(dead.nodes.list()).rejects.toSatisfy((e) => e instanceof ClientError && e.code === "NetworkError");
    dead.close();
  });

  it("a wrong token gives 401 Unauthorized as a StatusError", async () => {
    const bad = createClient({ ...client.config, token: "wrong" });
    await expect(bad.nodes.list()).rejects.toSatisfy((e) => isStatusError(e) && e.code === 401);
    bad.close();
  });

  it("watch: events from a resourceVersion, bookmarks allowed, timeoutSeconds ends the stream, stop() ends it", async () => {
    const list = await client.podTemplates.list({ namespace: "default" });
    const w = client.podTemplates.watch({ namespace: "default", resourceVersion: list.metadata.resourceVersion ?? "", allowWatchBookmarks: true, timeoutSeconds: 30 });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const ev of w) {
        if (ev.type === "ADDED" || ev.type === "MODIFIED" || ev.type === "DELETED") seen.push(`${ev.type} ${ev.object.metadata?.name ?? ""}`);
        if (ev.type === "DELETED") w.stop();
      }
    })();
    await client.podTemplates.create({ metadata: { name: "w1", namespace: "default" }, template: { spec: podSpec } });
    await client.podTemplates.patch("w1", { metadata: { labels: { x: "1" } } }, { namespace: "default" });
    await client.podTemplates.delete("w1", { namespace: "default" });
    await reading;
    expect(seen).toEqual(["ADDED w1", "MODIFIED w1", "DELETED w1"]);

    // A watch resumed from the last seen resourceVersion misses nothing that happened in between.
    const before = await client.podTemplates.create({ metadata: { name: "w2", namespace: "default" }, template: { spec: podSpec } });
    await client.podTemplates.patch("w2", { metadata: { labels: { y: "1" } } }, { namespace: "default" });
    const resumed = client.podTemplates.watch({ namespace: "default", resourceVersion: before.metadata?.resourceVersion ?? "" });
    for await (const ev of resumed) {
      expect(ev.type).toBe("MODIFIED");
      resumed.stop();
    }
    // timeoutSeconds: the server ends the stream cleanly
    const short = client.podTemplates.watch({ namespace: "default", resourceVersion: before.metadata?.resourceVersion ?? "", timeoutSeconds: 1 });
    const types: string[] = [];
    for await (const ev of short) types.push(ev.type);
    expect(types).toEqual(["MODIFIED"]);
    // an aborted signal ends a watch without error
    const ac = new AbortController();
    const aborted = client.podTemplates.watch({ namespace: "default", signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    for await (const _ of aborted) {
      /* ADDED w2 */
    }
  });

  it("bindPod binds through pods/binding (409 when already bound) and recordEvent creates an Event", async (ctx) => {
    const pod = await client.pods.create({ metadata: { name: "bind-me", namespace: "default" }, spec: podSpec });
    const probe = await client.bindPod({ namespace: "default", name: "bind-me", nodeName: "node-1" }, { dryRun: true }).catch((e: unknown) => e);
    // pods/binding is served once apiserver-core routes subresource creates (in progress in this session).
    if (isStatusError(probe) && probe.code === 405) ctx.skip();
    await client.bindPod({ namespace: "default", name: "bind-me", nodeName: "node-1" });
    expect((await client.pods.get("bind-me", { namespace: "default" })).spec?.nodeName).toBe("node-1");
    await expect(client.bindPod({ namespace: "default", name: "bind-me", nodeName: "node-2" })).rejects.toSatisfy(isConflict);
    const ev = await client.recordEvent(pod, { type: "Warning", reason: "FailedScheduling", message: "0/0 nodes are available", component: "default-scheduler" });
    expect(ev.involvedObject).toMatchObject({ kind: "Pod", name: "bind-me", namespace: "default", uid: pod.metadata?.uid });
    const events = await client.events.list({ namespace: "default", fieldSelector: "involvedObject.name=bind-me,reason=FailedScheduling" });
    expect(events.items).toHaveLength(1);
    // Several events about one object in the same millisecond get distinct names (no 409).
    const burst = await Promise.all([1, 2, 3, 4, 5].map((i) => client.recordEvent(pod, { type: "Normal", reason: "Burst", message: `event ${i}`, component: "test" })));
    expect(new Set(burst.map((e) => e.metadata?.name)).size).toBe(5);
  });

  it("the client-side rate limiter holds requests beyond the burst until tokens are due", async () => {
    const clock = new FakeClock();
    const limited = createClient(client.config, { qps: 1, burst: 2, clock });
    let done = 0;
    const requests = [0, 1, 2, 3].map(() => limited.namespaces.get("default").then(() => done++));
    await until(() => done === 2, "the burst");
    await new Promise((r) => setTimeout(r, 200));
    expect(done).toBe(2);
    clock.advance(1000);
    await until(() => done === 3, "the third request");
    clock.advance(1000);
    await Promise.all(requests);
    expect(done).toBe(4);
    limited.close();
  });
});

describe("informer", () => {
  it("lists, then follows adds, updates and deletes with old objects; indexers; resumes after a watch timeout", async () => {
    await client.nodes.create({ metadata: { name: "inf-1", labels: { inf: "yes" } } });
    const informer = createInformer(client.nodes, { labelSelector: "inf=yes", watchTimeoutSeconds: 1, indexers: { zone: (n) => [n.metadata?.labels?.zone ?? ""] } });
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (n, initial) => log.push(`add ${n.metadata?.name ?? ""} ${String(initial)}`),
      onUpdate: (o, n) => log.push(`update ${o.metadata?.labels?.zone ?? "-"}->${n.metadata?.labels?.zone ?? "-"}`),
      onDelete: (n) => log.push(`delete ${isDeletedFinalStateUnknown(n) ? n.key : (n.metadata?.name ?? "")}`),
    });
    informer.start();
    expect(await informer.waitForSync()).toBe(true);
    expect(informer.store.listKeys()).toEqual(["inf-1"]);
    // let a watch time out (1 s) and be resumed before the changes
    await new Promise((r) => setTimeout(r, 1500));
    await client.nodes.patch("inf-1", { metadata: { labels: { zone: "a" } } });
    await client.nodes.create({ metadata: { name: "inf-2", labels: { inf: "yes", zone: "a" } } });
    await client.nodes.create({ metadata: { name: "other", labels: { inf: "no" } } });
    await until(() => informer.store.size === 2 && informer.store.byIndex("zone", "a").length === 2, "both nodes in zone a");
    await client.nodes.delete("inf-2");
    await until(() => log.includes("delete inf-2"), "delete");
    expect(log).toEqual(["add inf-1 true", "update -->a", "add inf-2 false", "delete inf-2"]);
    expect(informer.listCount).toBe(1);
    expect(Number(informer.lastSyncResourceVersion())).toBeGreaterThan(0);
    // a handler added late gets the cache replayed as adds
    const late: string[] = [];
    informer.addEventHandler({ onAdd: (n) => late.push(n.metadata?.name ?? "") });
    expect(late).toEqual(["inf-1"]);
    informer.stop();
    expect(await informer.waitForSync()).toBe(true);
  });

  it("shared factory hands out one informer per resource and filter; field selectors and resync", async () => {
    const factory = createSharedInformerFactory({ resyncPeriodMs: 300 });
    const a = factory.informerFor(client.pods, { fieldSelector: "spec.nodeName=" });
    const b = factory.informerFor(client.pods, { fieldSelector: "spec.nodeName=" });
    expect(a).toBe(b);
    await client.pods.create({ metadata: { name: "unbound", namespace: "default" }, spec: podSpec });
    await client.pods.create({ metadata: { name: "bound", namespace: "default" }, spec: { ...podSpec, nodeName: "n" } });
    let resyncs = 0;
    a.addEventHandler({ onUpdate: (o, n) => o === n && resyncs++ });
    factory.start();
    expect(await factory.waitForSync()).toBe(true);
    expect(a.store.get("default/unbound")).toBeDefined();
    expect(a.store.get("default/bound")).toBeUndefined(); // filtered out by the field selector
    expect(a.store.byIndex("namespace", "default").map(keyOf)).toContain("default/unbound");
    await until(() => resyncs > 0, "a resync");
    factory.stop();
  });
});
