// dryRun=All on every write path against the real apiserver: the would-be object comes back, the
// usual errors still happen, and the storage revision does not move.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

interface Obj {
  metadata: { name: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; deletionTimestamp?: string; creationTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const pts = "/api/v1/namespaces/default/podtemplates";
const pods = "/api/v1/namespaces/default/pods";
const jobs = "/apis/batch/v1/namespaces/default/jobs";
const template = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "PodTemplate",
  metadata: { name, labels },
  template: { spec: { containers: [{ name: "c", image: "busybox" }] } },
});
const pod = (name: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "busybox" }] } });
const job = (name: string) => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name },
  spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
});

describe("dryRun=All", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
    // The in-process controllers write a default ServiceAccount and kube-root-ca.crt into each of
    // the four bootstrap namespaces after start: let them finish before revisions are compared.
    const count = async (path: string) => ((await call(s, "GET", path)).json() as { items: unknown[] }).items.length;
    for (let i = 0; i < 200 && ((await count("/api/v1/serviceaccounts")) < 4 || (await count("/api/v1/configmaps")) < 4); i++) await new Promise((r) => setTimeout(r, 50));
    for (const o of [template("t1", { k: "v" }), template("t2", { k: "v" })]) expect((await call(s, "POST", pts, o)).status).toBe(201);
    expect((await call(s, "POST", pods, pod("p1"))).status).toBe(201);
    expect((await call(s, "POST", jobs, job("j1"))).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  // The storage revision: a consistent list answers at the newest revision.
  const revision = async () => ((await call(s, "GET", "/api/v1/namespaces")).json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const unchanged = async <T>(f: () => Promise<T>): Promise<T> => {
    const before = await revision();
    const out = await f();
    expect(await revision()).toBe(before);
    return out;
  };

  it("create: defaulted, validated and admitted, not stored", async () => {
    const r = await unchanged(() => call(s, "POST", `${jobs}?dryRun=All`, job("dry-job")));
    expect(r.status).toBe(201);
    const o = r.json() as Obj;
    expect(o.metadata.uid).toBeDefined();
    expect(o.metadata.creationTimestamp).toBeDefined();
    expect(o.spec?.["backoffLimit"]).toBe(6);
    expect((o.spec?.["selector"] as { matchLabels: Record<string, string> }).matchLabels["controller-uid"]).toBe(o.metadata.uid);
    expect((await call(s, "GET", `${jobs}/dry-job`)).status).toBe(404);
    // Validation, admission and conflicts still answer.
    expect((await unchanged(() => call(s, "POST", `${jobs}?dryRun=All`, { ...job("bad"), spec: { ...job("bad").spec, parallelism: -1 } }))).status).toBe(422);
    expect((await unchanged(() => call(s, "POST", `/api/v1/namespaces/nowhere/podtemplates?dryRun=All`, template("x")))).status).toBe(404);
    expect((await unchanged(() => call(s, "POST", `${pts}?dryRun=All`, template("t1")))).status).toBe(409);
    expect((await call(s, "POST", `${pts}?dryRun=Some`, template("x"))).status).toBe(400);
  });

  it("update (PUT) and patch return the would-be object", async () => {
    const cur = (await call(s, "GET", `${pts}/t1`)).json() as Obj;
    const put = await unchanged(() => call(s, "PUT", `${pts}/t1?dryRun=All`, { ...cur, metadata: { ...cur.metadata, labels: { k: "put" } } }));
    expect(put.status).toBe(200);
    expect((put.json() as Obj).metadata.labels).toEqual({ k: "put" });
    const patch = await unchanged(() => call(s, "PATCH", `${pts}/t1?dryRun=All`, { metadata: { labels: { k: "patched" } } }, { "content-type": "application/merge-patch+json" }));
    expect(patch.status).toBe(200);
    expect((patch.json() as Obj).metadata.labels).toEqual({ k: "patched" });
    expect(((await call(s, "GET", `${pts}/t1`)).json() as Obj).metadata.labels).toEqual({ k: "v" });
    // A stale resourceVersion is still a conflict.
    expect((await unchanged(() => call(s, "PUT", `${pts}/t1?dryRun=All`, { ...cur, metadata: { ...cur.metadata, resourceVersion: "1" } }))).status).toBe(409);
  });

  it("status and binding subresources", async () => {
    const cur = (await call(s, "GET", `${pods}/p1`)).json() as Obj;
    const st = await unchanged(() => call(s, "PUT", `${pods}/p1/status?dryRun=All`, { ...cur, status: { ...cur.status, phase: "Running" } }));
    expect(st.status).toBe(200);
    expect((st.json() as Obj).status?.["phase"]).toBe("Running");
    const b = await unchanged(() =>
      call(s, "POST", `${pods}/p1/binding?dryRun=All`, { apiVersion: "v1", kind: "Binding", metadata: { name: "p1" }, target: { apiVersion: "v1", kind: "Node", name: "n1" } }),
    );
    expect(b.status).toBe(201);
    const now = (await call(s, "GET", `${pods}/p1`)).json() as Obj;
    expect(now.status?.["phase"]).toBe("Pending");
    expect(now.spec?.["nodeName"]).toBeUndefined();
  });

  it("delete and deletecollection: answers as a real delete, nothing removed", async () => {
    const d = await unchanged(() => call(s, "DELETE", `${pts}/t1?dryRun=All`));
    expect(d.status).toBe(200);
    expect((d.json() as Obj).metadata.name).toBe("t1");
    // The Job's default orphan policy: the would-be marked object, and the warning.
    const dj = await unchanged(() => call(s, "DELETE", `${jobs}/j1?dryRun=All`));
    expect(dj.status).toBe(200);
    expect((dj.json() as Obj).metadata.deletionTimestamp).toBeDefined();
    expect(String(dj.headers["warning"])).toContain("child pods are preserved");
    // dryRun in the DeleteOptions body works too.
    const body = JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", dryRun: ["All"] });
    expect((await unchanged(() => call(s, "DELETE", `${pts}/t2`, body, { "content-length": String(body.length) }))).status).toBe(200);
    const dc = await unchanged(() => call(s, "DELETE", `${pts}?labelSelector=k%3Dv&dryRun=All`));
    expect(dc.status).toBe(200);
    expect(((dc.json() as { items: Obj[] }).items.map((i) => i.metadata.name)).sort()).toEqual(["t1", "t2"]);
    for (const p of [`${pts}/t1`, `${pts}/t2`, `${jobs}/j1`]) {
      const o = (await call(s, "GET", p)).json() as Obj;
      expect(o.metadata.deletionTimestamp).toBeUndefined();
    }
  });
});
