// Deletion semantics against the real apiserver: preconditions, finalizers, propagation policies and
// the in-process garbage collector, deletecollection.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { Response, RunningServer } from "./harness.js";

interface Meta {
  name: string;
  uid: string;
  resourceVersion: string;
  labels?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: { uid: string }[];
}
interface Obj {
  metadata: Meta;
  [k: string]: unknown;
}

const pts = "/api/v1/namespaces/default/podtemplates";
const jobs = "/apis/batch/v1/namespaces/default/jobs";
const pods = "/api/v1/namespaces/default/pods";
const template = (name: string, meta: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "PodTemplate",
  metadata: { name, ...meta },
  template: { spec: { containers: [{ name: "c", image: "busybox" }] } },
});
const job = (name: string) => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name },
  spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
});
const ownedPod = (name: string, owner: Obj, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }], ...extra },
  spec: { containers: [{ name: "c", image: "busybox" }] },
});

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe("deletion", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  const create = async (path: string, obj: unknown): Promise<Obj> => {
    const r = await call(s, "POST", path, obj);
    expect(r.status, r.body).toBe(201);
    return r.json() as Obj;
  };
  const del = (path: string, opts?: Record<string, unknown>): Promise<Response> => {
    if (opts === undefined) return call(s, "DELETE", path);
    const body = JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", ...opts });
    return call(s, "DELETE", path, body, { "content-length": String(Buffer.byteLength(body)) });
  };
  const gone = async (path: string) => (await call(s, "GET", path)).status === 404;

  it("checks uid and resourceVersion preconditions with 1.23's 409 messages", async () => {
    const t = await create(pts, template("pre"));
    const badUid = await del(`${pts}/pre`, { preconditions: { uid: "not-it" } });
    expect(badUid.status).toBe(409);
    expect((badUid.json() as { message: string }).message).toBe(
      `Operation cannot be fulfilled on PodTemplate "pre": the UID in the precondition (not-it) does not match the UID in record (${t.metadata.uid}). The object might have been deleted and then recreated`,
    );
    const badRv = await del(`${pts}/pre`, { preconditions: { resourceVersion: "1" } });
    expect(badRv.status).toBe(409);
    expect((badRv.json() as { message: string }).message).toBe(
      `Operation cannot be fulfilled on PodTemplate "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${t.metadata.resourceVersion}). The object might have been modified`,
    );
    expect(await gone(`${pts}/pre`)).toBe(false);
    const ok = await del(`${pts}/pre`, { preconditions: { uid: t.metadata.uid, resourceVersion: t.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
    expect(await gone(`${pts}/pre`)).toBe(true);
  });

  it("rejects a bad propagationPolicy with 422 and undecodable DeleteOptions with 400", async () => {
    await create(pts, template("badopts"));
    const r = await call(s, "DELETE", `${pts}/badopts?propagationPolicy=Sideways`);
    expect(r.status).toBe(422);
    expect((r.json() as { message: string }).message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect((await call(s, "DELETE", `${pts}/badopts`, "{nope", { "content-length": "5" })).status).toBe(400);
    expect(await gone(`${pts}/badopts`)).toBe(false);
  });

  it("keeps an object with finalizers until they are gone, and forbids new ones meanwhile", async () => {
    await create(pts, template("fin", { finalizers: ["example.io/hold"] }));
    const d = await del(`${pts}/fin`);
    expect(d.status).toBe(200);
    const marked = d.json() as Obj;
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    expect(marked.metadata.finalizers).toEqual(["example.io/hold"]);
    const cur = (await call(s, "GET", `${pts}/fin`)).json() as Obj;
    const add = await call(s, "PUT", `${pts}/fin`, { ...cur, metadata: { ...cur.metadata, finalizers: ["example.io/hold", "example.io/more"] } });
    expect(add.status).toBe(422);
    expect((add.json() as { message: string }).message).toContain(
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.io/more"}',
    );
    // Removing the last finalizer deletes it.
    const rm = await call(s, "PUT", `${pts}/fin`, { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
    expect(rm.status).toBe(200);
    expect(await gone(`${pts}/fin`)).toBe(true);
  });

  it("a Job delete without a policy orphans its pods and warns (1.23)", async () => {
    const j = await create(jobs, job("orphaned"));
    await create(pods, ownedPod("orphaned-pod", j));
    const d = await call(s, "DELETE", `${jobs}/orphaned`);
    expect(d.status).toBe(200);
    expect(d.headers["warning"]).toBe(
      '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"',
    );
    expect((d.json() as Obj).metadata.finalizers).toContain("orphan");
    await eventually(() => gone(`${jobs}/orphaned`), "orphaned job gone");
    const p = (await call(s, "GET", `${pods}/orphaned-pod`)).json() as Obj;
    expect(p.metadata.ownerReferences).toBeUndefined();
  });

  it("propagationPolicy=Orphan does not warn; Background deletes the dependents after the owner", async () => {
    const a = await create(jobs, job("orphan-explicit"));
    await create(pods, ownedPod("orphan-explicit-pod", a));
    const d = await call(s, "DELETE", `${jobs}/orphan-explicit?propagationPolicy=Orphan`);
    expect(d.status).toBe(200);
    expect(d.headers["warning"]).toBeUndefined();
    await eventually(() => gone(`${jobs}/orphan-explicit`), "job gone");
    expect(await gone(`${pods}/orphan-explicit-pod`)).toBe(false);

    const b = await create(jobs, job("background"));
    await create(pods, ownedPod("background-pod", b));
    const bd = await call(s, "DELETE", `${jobs}/background?propagationPolicy=Background`);
    expect(bd.status).toBe(200);
    expect((bd.json() as { kind: string; status: string }).status).toBe("Success");
    expect(await gone(`${jobs}/background`)).toBe(true);
    await eventually(() => gone(`${pods}/background-pod`), "dependent pod collected");
  });

  it("Foreground keeps the owner until blocking dependents are gone", async () => {
    const j = await create(jobs, job("fg"));
    await create(pods, ownedPod("fg-pod", j, { finalizers: ["example.io/hold"] }));
    const d = await del(`${jobs}/fg`, { propagationPolicy: "Foreground" });
    expect(d.status).toBe(200);
    expect((d.json() as Obj).metadata.finalizers).toEqual(["foregroundDeletion"]);
    // The GC deletes the pod; its own finalizer holds it, so the Job waits.
    await eventually(async () => Boolean(((await call(s, "GET", `${pods}/fg-pod`)).json() as Obj).metadata.deletionTimestamp), "dependent marked");
    expect(await gone(`${jobs}/fg`)).toBe(false);
    const p = (await call(s, "GET", `${pods}/fg-pod`)).json() as Obj;
    expect((await call(s, "PUT", `${pods}/fg-pod`, { ...p, metadata: { ...p.metadata, finalizers: [] } })).status).toBe(200);
    await eventually(() => gone(`${jobs}/fg`), "owner gone after its dependent");
  });

  it("garbage-collects a CSINode whose Node is deleted", async () => {
    const node = await create("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "gc-node" } });
    await create("/apis/storage.example.io/v1/csinodes", {
      apiVersion: "storage.example.io/v1",
      kind: "CSINode",
      metadata: { name: "gc-node", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "gc-node", uid: node.metadata.uid }] },
      spec: { drivers: [] },
    });
    expect((await call(s, "DELETE", "/api/v1/nodes/gc-node")).status).toBe(200);
    await eventually(() => gone("/apis/storage.example.io/v1/csinodes/gc-node"), "csinode collected");
  });

  it("collects a dependent created with an owner that does not exist", async () => {
    await create(pods, ownedPod("dangling", { metadata: { name: "no-such-job", uid: "0000", resourceVersion: "" } }));
    await eventually(() => gone(`${pods}/dangling`), "dangling dependent collected");
  });

  it("deletecollection honours label and field selectors and propagationPolicy", async () => {
    await create(pts, template("dc-1", { labels: { batch: "x" } }));
    await create(pts, template("dc-2", { labels: { batch: "x" } }));
    await create(pts, template("dc-3", { labels: { batch: "y" } }));
    const r = await call(s, "DELETE", `${pts}?labelSelector=batch%3Dx`);
    expect(r.status).toBe(200);
    const list = r.json() as { kind: string; items: Obj[] };
    expect(list.kind).toBe("PodTemplateList");
    expect(list.items.map((i) => i.metadata.name).sort()).toEqual(["dc-1", "dc-2"]);
    expect(await gone(`${pts}/dc-1`)).toBe(true);
    expect(await gone(`${pts}/dc-3`)).toBe(false);
    expect((await call(s, "DELETE", `${pts}?fieldSelector=metadata.name%3Ddc-3`)).status).toBe(200);
    expect(await gone(`${pts}/dc-3`)).toBe(true);

    const j1 = await create(jobs, { ...job("dcj-1"), metadata: { name: "dcj-1", labels: { dc: "yes" } } });
    const j2 = await create(jobs, { ...job("dcj-2"), metadata: { name: "dcj-2", labels: { dc: "yes" } } });
    await create(pods, ownedPod("dcj-1-pod", j1));
    await create(pods, ownedPod("dcj-2-pod", j2));
    const warned = await call(s, "DELETE", `${jobs}?labelSelector=dc%3Dyes`);
    expect(warned.status).toBe(200);
    // One Warning for the whole collection, as 1.23's warning recorder deduplicates.
    expect(String(warned.headers["warning"]).match(/child pods are preserved/g)?.length).toBe(1);
    await eventually(async () => (await gone(`${jobs}/dcj-1`)) && (await gone(`${jobs}/dcj-2`)), "jobs gone");
    expect(await gone(`${pods}/dcj-1-pod`)).toBe(false);

    const j3 = await create(jobs, { ...job("dcj-3"), metadata: { name: "dcj-3", labels: { dc: "bg" } } });
    await create(pods, ownedPod("dcj-3-pod", j3));
    expect((await call(s, "DELETE", `${jobs}?labelSelector=dc%3Dbg&propagationPolicy=Background`)).status).toBe(200);
    await eventually(() => gone(`${pods}/dcj-3-pod`), "background collection of a collection's dependents");
  });
});
