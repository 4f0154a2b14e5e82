// Namespaces against the real apiserver: Terminating on delete, the lifecycle admission's 403, the
// in-process namespace controller emptying and finalizing, and the /finalize subresource.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

interface NS {
  metadata: { name: string; deletionTimestamp?: string; resourceVersion: string; finalizers?: string[] };
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

const template = (name: string, meta: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "PodTemplate",
  metadata: { name, ...meta },
  template: { spec: { containers: [{ name: "c", image: "busybox" }] } },
});

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe("namespaces", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  const createNS = async (name: string, spec?: unknown) => {
    const r = await call(s, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name }, ...(spec ? { spec } : {}) });
    expect(r.status, r.body).toBe(201);
    return r.json() as NS;
  };
  const gone = async (path: string) => (await call(s, "GET", path)).status === 404;

  it("bootstraps default, kube-system, kube-public and kube-node-lease as Active with the kubernetes finalizer", async () => {
    for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      const ns = (await call(s, "GET", `/api/v1/namespaces/${name}`)).json() as NS;
      expect(ns.status?.phase).toBe("Active");
      expect(ns.spec?.finalizers).toEqual(["kubernetes"]);
    }
  });

  it("every namespace carries example.io/metadata.name with its name, owned by its creator", async () => {
    type Labelled = NS & { metadata: { labels?: Record<string, string>; managedFields?: { manager: string; fieldsV1: Record<string, unknown> }[] } };
    const label = (o: Labelled) => o.metadata.labels?.["example.io/metadata.name"];
    expect(label((await call(s, "GET", "/api/v1/namespaces/default")).json() as Labelled)).toBe("default");
    const made = await call(s, "POST", "/api/v1/namespaces?fieldManager=maker", { apiVersion: "v1", kind: "Namespace", metadata: { generateName: "gen-", labels: { "example.io/metadata.name": "lie" } } });
    expect(made.status, made.body).toBe(201);
    const ns = made.json() as Labelled;
    expect(label(ns)).toBe(ns.metadata.name);
    expect(JSON.stringify(ns.metadata.managedFields?.find((e) => e.manager === "maker")?.fieldsV1)).toContain("f:example.io/metadata.name");
    const relabel = await call(s, "PATCH", `/api/v1/namespaces/${ns.metadata.name}`, { metadata: { labels: { "example.io/metadata.name": "other" } } }, { "content-type": "application/merge-patch+json" });
    expect(relabel.status, relabel.body).toBe(200);
    expect(label(relabel.json() as Labelled)).toBe(ns.metadata.name);
    const selected = (await call(s, "GET", `/api/v1/namespaces?labelSelector=example.io/metadata.name%3D${ns.metadata.name}`)).json() as { items: NS[] };
    expect(selected.items.map((i) => i.metadata.name)).toEqual([ns.metadata.name]);
  });

  it("creating in a missing namespace is 404", async () => {
    const r = await call(s, "POST", "/api/v1/namespaces/nowhere/podtemplates", template("x"));
    expect(r.status).toBe(404);
    expect((r.json() as { message: string }).message).toBe('namespaces "nowhere" not found');
  });

  it("DELETE marks Terminating; creating inside is 403; the controller empties the namespace and it goes", async () => {
    const created = await createNS("doomed");
    expect(created.spec?.finalizers).toEqual(["kubernetes"]);
    // A template held by a finalizer keeps the namespace Terminating until it is released.
    expect((await call(s, "POST", "/api/v1/namespaces/doomed/podtemplates", template("held", { finalizers: ["example.io/hold"] }))).status).toBe(201);
    expect((await call(s, "POST", "/api/v1/namespaces/doomed/podtemplates", template("free"))).status).toBe(201);
    expect(
      (
        await call(s, "POST", "/apis/batch/v1/namespaces/doomed/jobs", {
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { name: "j" },
          spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
        })
      ).status,
    ).toBe(201);
    const d = await call(s, "DELETE", "/api/v1/namespaces/doomed");
    expect(d.status).toBe(200);
    const marked = d.json() as NS;
    expect(marked.status?.phase).toBe("Terminating");
    expect(marked.metadata.deletionTimestamp).toBeDefined();

    const denied = await call(s, "POST", "/api/v1/namespaces/doomed/podtemplates", template("late"));
    expect(denied.status).toBe(403);
    expect(denied.json()).toMatchObject({
      reason: "Forbidden",
      message: 'podtemplates "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
      details: { causes: [{ reason: "NamespaceTerminating", field: "metadata.namespace", message: "unable to create new content in namespace doomed because it is being terminated" }] },
    });

    await eventually(async () => (await gone("/api/v1/namespaces/doomed/podtemplates/free")) && (await gone("/apis/batch/v1/namespaces/doomed/jobs/j")), "content deleted");
    const held = (await call(s, "GET", "/api/v1/namespaces/doomed/podtemplates/held")).json() as NS;
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(((await call(s, "GET", "/api/v1/namespaces/doomed")).json() as NS).status?.phase).toBe("Terminating");
    // Listing Terminating namespaces by field selector.
    const terminating = (await call(s, "GET", "/api/v1/namespaces?fieldSelector=status.phase%3DTerminating")).json() as { items: NS[] };
    expect(terminating.items.map((n) => n.metadata.name)).toContain("doomed");

    expect((await call(s, "PUT", "/api/v1/namespaces/doomed/podtemplates/held", { ...held, metadata: { ...held.metadata, finalizers: [] } })).status).toBe(200);
    await eventually(() => gone("/api/v1/namespaces/doomed"), "namespace gone");
  });

  it("PUT /finalize removes spec.finalizers; a namespace with a foreign finalizer waits for it", async () => {
    await createNS("finalize-me", { finalizers: ["example.io/custom"] });
    expect((await call(s, "DELETE", "/api/v1/namespaces/finalize-me")).status).toBe(200);
    // The controller removes its own `kubernetes` entry, the foreign one keeps the namespace.
    await eventually(async () => {
      const ns = (await call(s, "GET", "/api/v1/namespaces/finalize-me")).json() as NS;
      return JSON.stringify(ns.spec?.finalizers) === JSON.stringify(["example.io/custom"]);
    }, "kubernetes finalizer removed");
    expect(await gone("/api/v1/namespaces/finalize-me")).toBe(false);
    // A plain update cannot change spec.finalizers; /finalize can.
    const cur = (await call(s, "GET", "/api/v1/namespaces/finalize-me")).json() as NS;
    const plain = await call(s, "PUT", "/api/v1/namespaces/finalize-me", { ...cur, spec: { finalizers: [] } });
    expect(plain.status).toBe(200);
    expect((plain.json() as NS).spec?.finalizers).toEqual(["example.io/custom"]);
    const unconditional = { ...cur, metadata: { name: cur.metadata.name } };
    const badName = await call(s, "PUT", "/api/v1/namespaces/finalize-me/finalize", { ...unconditional, spec: { finalizers: ["Not Valid"] } });
    expect(badName.status).toBe(422);
    const fin = await call(s, "PUT", "/api/v1/namespaces/finalize-me/finalize", { ...unconditional, spec: { finalizers: [] } });
    expect(fin.status).toBe(200);
    expect(await gone("/api/v1/namespaces/finalize-me")).toBe(true);
  });

  it("/finalize on a namespace that is not being deleted only updates spec.finalizers", async () => {
    const ns = await createNS("keep-me");
    const fin = await call(s, "PUT", "/api/v1/namespaces/keep-me/finalize", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: ns.metadata,
      spec: { finalizers: ["kubernetes", "example.io/extra"] },
      status: { phase: "Terminating" },
    });
    expect(fin.status).toBe(200);
    const got = (await call(s, "GET", "/api/v1/namespaces/keep-me")).json() as NS;
    expect(got.spec?.finalizers).toEqual(["kubernetes", "example.io/extra"]);
    expect(got.status?.phase).toBe("Active");
    expect((await call(s, "PUT", "/api/v1/namespaces/keep-me/nonsense", { ...got })).status).toBe(404);
  });

  it("default, kube-system and kube-public may not be deleted (403, also dry-run), and namespaces have no deletecollection (405)", async () => {
    for (const name of ["default", "kube-system", "kube-public"]) {
      for (const q of ["", "?dryRun=All"]) {
        const r = await call(s, "DELETE", `/api/v1/namespaces/${name}${q}`);
        expect(r.status, r.body).toBe(403);
        expect(r.json()).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403, message: `namespaces "${name}" is forbidden: this namespace may not be deleted`, details: { name, kind: "namespaces" } });
      }
      const ns = (await call(s, "GET", `/api/v1/namespaces/${name}`)).json() as NS;
      expect(ns.metadata.deletionTimestamp).toBeUndefined();
      expect(ns.status?.phase).toBe("Active");
    }
    const all = await call(s, "DELETE", "/api/v1/namespaces");
    expect(all.status, all.body).toBe(405);
    expect(all.json()).toMatchObject({ kind: "Status", reason: "MethodNotAllowed", code: 405 });
    expect(((await call(s, "GET", "/api/v1/namespaces/default")).json() as NS).status?.phase).toBe("Active");
  });

  it("every served resource routes exactly the verbs its discovery entry lists", async () => {
    const lists: { groupVersion: string; resources: { name: string; namespaced: boolean; verbs: string[] }[] }[] = [];
    lists.push((await call(s, "GET", "/api/v1")).json() as never);
    const groups = (await call(s, "GET", "/apis")).json() as { groups: { preferredVersion: { groupVersion: string } }[] };
    for (const g of groups.groups) lists.push((await call(s, "GET", `/apis/${g.preferredVersion.groupVersion}`)).json() as never);
    let checked = 0;
    for (const l of lists) {
      const root = l.groupVersion.includes("/") ? `/apis/${l.groupVersion}` : `/api/${l.groupVersion}`;
      for (const r of l.resources) {
        if (r.name.includes("/")) continue;
        const collection = r.namespaced ? `${root}/namespaces/default/${r.name}` : `${root}/${r.name}`;
        // A dry-run delete-collection selecting nothing: routed (200) exactly when discovery lists the verb.
        const dc = await call(s, "DELETE", `${collection}?dryRun=All&labelSelector=verbs-probe%3Dnone`);
        expect([r.name, dc.status], dc.body).toEqual([r.name, r.verbs.includes("deletecollection") ? 200 : 405]);
        if (!r.verbs.includes("list")) continue;
        const list = await call(s, "GET", collection);
        expect([r.name, list.status]).toEqual([r.name, 200]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(9);
  });
});
