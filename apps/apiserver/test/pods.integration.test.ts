// Pods against the real apiserver: graceful deletion, the binding subresource, field selectors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

interface PodView {
  metadata: { name: string; uid: string; resourceVersion: string; deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  spec: { nodeName?: string; terminationGracePeriodSeconds?: number };
  status?: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
}

const base = "/api/v1/namespaces/default/pods";
const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox" }], ...extra },
});
const binding = (name: string, node: string, meta: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Binding",
  metadata: { name, ...meta },
  target: { apiVersion: "v1", kind: "Node", name: node },
});

describe("pods", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const r = await call(s, "POST", base, pod(name, extra));
    expect(r.status).toBe(201);
    return r.json() as PodView;
  };
  const bind = async (name: string, node: string) => {
    const r = await call(s, "POST", `${base}/${name}/binding`, binding(name, node));
    expect(r.status).toBe(201);
  };

  it("binds a pod: 201 Success, spec.nodeName and PodScheduled=True; a second binding is 409", async () => {
    await create("bind-me");
    const r = await call(s, "POST", `${base}/bind-me/binding`, binding("bind-me", "node-a", { annotations: { "example.io/bound-by": "test" } }));
    expect(r.status).toBe(201);
    expect(r.json()).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
    const got = (await call(s, "GET", `${base}/bind-me`)).json() as PodView & { metadata: { annotations?: Record<string, string> } };
    expect(got.spec.nodeName).toBe("node-a");
    expect(got.metadata.annotations?.["example.io/bound-by"]).toBe("test");
    expect(got.status?.conditions?.find((c) => c.type === "PodScheduled")?.status).toBe("True");
    const again = await call(s, "POST", `${base}/bind-me/binding`, binding("bind-me", "node-b"));
    expect(again.status).toBe(409);
    expect((again.json() as { message: string }).message).toBe('Operation cannot be fulfilled on pods/binding "bind-me": pod bind-me is already assigned to node "node-a"');
  });

  it("rejects bad bindings: name mismatch 400, missing pod 404, no target 422, GET 405", async () => {
    await create("bind-bad");
    const mismatch = await call(s, "POST", `${base}/bind-bad/binding`, binding("other", "node-a"));
    expect(mismatch.status).toBe(400);
    expect((mismatch.json() as { message: string }).message).toBe("name in URL does not match name in Binding object");
    expect((await call(s, "POST", `${base}/nope/binding`, binding("nope", "node-a"))).status).toBe(404);
    const noTarget = await call(s, "POST", `${base}/bind-bad/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name: "bind-bad" }, target: {} });
    expect(noTarget.status).toBe(422);
    expect((await call(s, "GET", `${base}/bind-bad/binding`)).status).toBe(405);
    expect(((await call(s, "GET", `${base}/bind-bad`)).json() as PodView).spec.nodeName).toBeUndefined();
  });

  it("a binding with a stale resourceVersion precondition is a 409 and binds nothing", async () => {
    const p = await create("bind-stale");
    // The stored spec (serviceAccountName defaulted by admission), so only the labels change.
    const put = await call(s, "PUT", `${base}/bind-stale`, { ...p, metadata: { ...p.metadata, labels: { a: "b" } } });
    expect(put.status, put.body).toBe(200);
    const r = await call(s, "POST", `${base}/bind-stale/binding`, binding("bind-stale", "node-a", { resourceVersion: p.metadata.resourceVersion }));
    expect(r.status).toBe(409);
    expect(((await call(s, "GET", `${base}/bind-stale`)).json() as PodView).spec.nodeName).toBeUndefined();
  });

  it("deletes a pod that is not bound to a node at once", async () => {
    await create("unbound");
    const d = await call(s, "DELETE", `${base}/unbound`);
    expect(d.status).toBe(200);
    expect((await call(s, "GET", `${base}/unbound`)).status).toBe(404);
  });

  it("deletes a bound pod gracefully: 30 s default, kept until a delete with grace 0", async () => {
    await create("graceful");
    await bind("graceful", "node-a");
    const before = Date.now();
    const d = await call(s, "DELETE", `${base}/graceful`);
    expect(d.status).toBe(200);
    const marked = d.json() as PodView;
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
    const at = Date.parse(marked.metadata.deletionTimestamp ?? "");
    expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 29_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 31_000);
    // Still there; a second delete without a grace period changes nothing.
    const again = await call(s, "DELETE", `${base}/graceful`);
    expect(again.status).toBe(200);
    expect((again.json() as PodView).metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
    // A longer grace period cannot extend it.
    const longer = await call(s, "DELETE", `${base}/graceful?gracePeriodSeconds=100`);
    expect((longer.json() as PodView).metadata.deletionGracePeriodSeconds).toBe(30);
    // A shorter one shortens it (deletionTimestamp moves back by the difference).
    const opts = JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 10 });
    const shorter = await call(s, "DELETE", `${base}/graceful`, opts, { "content-length": String(opts.length) });
    const sm = (shorter.json() as PodView).metadata;
    expect(sm.deletionGracePeriodSeconds).toBe(10);
    expect(Date.parse(sm.deletionTimestamp ?? "")).toBe(at - 20_000);
    const table = await call(s, "GET", `${base}/graceful`, undefined, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(JSON.stringify((table.json() as { rows: { cells: unknown[] }[] }).rows[0]?.cells)).toContain("Terminating");
    // The node agent's final delete.
    expect((await call(s, "DELETE", `${base}/graceful?gracePeriodSeconds=0`)).status).toBe(200);
    expect((await call(s, "GET", `${base}/graceful`)).status).toBe(404);
  });

  it("uses spec.terminationGracePeriodSeconds, and the request's value over it", async () => {
    await create("tgps", { terminationGracePeriodSeconds: 7 });
    await bind("tgps", "node-a");
    expect(((await call(s, "DELETE", `${base}/tgps`)).json() as PodView).metadata.deletionGracePeriodSeconds).toBe(7);
    await create("tgps2", { terminationGracePeriodSeconds: 7 });
    await bind("tgps2", "node-a");
    expect(((await call(s, "DELETE", `${base}/tgps2?gracePeriodSeconds=3`)).json() as PodView).metadata.deletionGracePeriodSeconds).toBe(3);
    // A negative grace period counts as 1 s.
    await create("tgps3");
    await bind("tgps3", "node-a");
    expect(((await call(s, "DELETE", `${base}/tgps3?gracePeriodSeconds=-5`)).json() as PodView).metadata.deletionGracePeriodSeconds).toBe(1);
    expect((await call(s, "DELETE", `${base}/tgps3?gracePeriodSeconds=abc`)).status).toBe(400);
  });

  it("deletes a terminal (Succeeded) pod at once even when bound", async () => {
    await create("done");
    await bind("done", "node-a");
    const cur = (await call(s, "GET", `${base}/done`)).json() as PodView;
    const st = await call(s, "PUT", `${base}/done/status`, { ...cur, status: { ...cur.status, phase: "Succeeded" } });
    expect(st.status).toBe(200);
    expect((await call(s, "DELETE", `${base}/done`)).status).toBe(200);
    expect((await call(s, "GET", `${base}/done`)).status).toBe(404);
  });

  it("selects pods by spec.nodeName and status.phase, consistently and from the watch cache", async () => {
    await create("sel-a");
    await bind("sel-a", "node-sel");
    await create("sel-b");
    for (const rv of ["", "&resourceVersion=0"]) {
      const onNode = (await call(s, "GET", `${base}?fieldSelector=spec.nodeName%3Dnode-sel${rv}`)).json() as { items: PodView[] };
      expect(onNode.items.map((p) => p.metadata.name)).toEqual(["sel-a"]);
      const unbound = (await call(s, "GET", `${base}?fieldSelector=spec.nodeName%3D,metadata.name%3Dsel-b${rv}`)).json() as { items: PodView[] };
      expect(unbound.items.map((p) => p.metadata.name)).toEqual(["sel-b"]);
      const pending = (await call(s, "GET", `${base}?fieldSelector=status.phase%3DPending,metadata.name%3Dsel-b${rv}`)).json() as { items: PodView[] };
      expect(pending.items.map((p) => p.metadata.name)).toEqual(["sel-b"]);
      const running = (await call(s, "GET", `${base}?fieldSelector=status.phase%3DRunning${rv}`)).json() as { items: PodView[] };
      expect(running.items).toEqual([]);
    }
    const bad = await call(s, "GET", `${base}?fieldSelector=spec.bogus%3Dx`);
    expect(bad.status).toBe(400);
    expect((bad.json() as { message: string }).message).toBe("field label not supported: spec.bogus");
  });
});
