import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appDir, call, startServer, removeWhenDone } from "./harness.js";
import type { RunningServer } from "./harness.js";

describe("skiff-apiserver (real process from source)", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("answers /readyz without credentials", async () => {
    const r = await call(s, "GET", "/readyz", undefined, { authorization: "" });
    expect(r.status).toBe(200);
    expect(r.body).toBe("ok");
  });

  it("serves /version", async () => {
    const r = await call(s, "GET", "/version");
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ major: "1", minor: "23", platform: "linux/amd64" });
  });

  it("rejects a bad token with 401", async () => {
    const r = await call(s, "GET", "/api/v1/namespaces", undefined, { authorization: "Bearer nope" });
    expect(r.status).toBe(401);
  });

  it("creates the bootstrap namespaces", async () => {
    const r = await call(s, "GET", "/api/v1/namespaces");
    expect(r.status).toBe(200);
    const names = (r.json() as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name).sort();
    expect(names).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
  });

  it("creates a Job with a generated selector and deletes it with the orphan warning", async () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "pi" },
      spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
    };
    const c = await call(s, "POST", "/apis/batch/v1/namespaces/default/jobs", job);
    expect(c.status).toBe(201);
    const created = c.json() as { metadata: { uid: string; generation: number }; spec: { selector: unknown } };
    expect(created.metadata.generation).toBe(1);
    expect(created.spec.selector).toEqual({ matchLabels: { "controller-uid": created.metadata.uid } });
    // A Job without labels of its own shows its template's, so `kubectl get jobs -l job-name=pi` finds it.
    const byLabel = await call(s, "GET", "/apis/batch/v1/namespaces/default/jobs?labelSelector=job-name%3Dpi");
    expect(byLabel.status).toBe(200);
    const found = byLabel.json() as { items: { metadata: { name: string; labels?: Record<string, string> } }[] };
    expect(found.items.map((i) => i.metadata.name)).toEqual(["pi"]);
    expect(found.items[0]?.metadata.labels).toEqual({ "controller-uid": created.metadata.uid, "job-name": "pi" });
    const bad = await call(s, "POST", "/apis/batch/v1/namespaces/default/jobs", { ...job, metadata: { name: "bad" }, spec: { ...job.spec, parallelism: -1 } });
    expect(bad.status).toBe(422);
    const d = await call(s, "DELETE", "/apis/batch/v1/namespaces/default/jobs/pi");
    // Orphan adds the `orphan` finalizer, so the object is not gone yet; 1.23's delete handler still
    // answers 200 (202 only for the deprecated orphanDependents=false), with the marked Job.
    expect(d.status).toBe(200);
    expect(String(d.headers["warning"])).toContain("child pods are preserved by default when jobs are deleted");
  });

  it("a Job with manualSelector gets a uid and creationTimestamp (its labels come from the template)", async () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "manual" },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: "manual" } },
        template: { metadata: { labels: { app: "manual" } }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
      },
    };
    const c = await call(s, "POST", "/apis/batch/v1/namespaces/default/jobs", job);
    expect(c.status).toBe(201);
    const got = (await call(s, "GET", "/apis/batch/v1/namespaces/default/jobs/manual")).json() as { metadata: Record<string, unknown> };
    expect(got.metadata["uid"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(got.metadata["creationTimestamp"]).toMatch(/Z$/);
    expect(got.metadata["labels"]).toEqual({ app: "manual" });
  });
});

describe("other kinds over HTTP", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  const cases: [string, string, Record<string, unknown>][] = [
    ["/apis/storage.example.io/v1/csidrivers", "csi.example.com", { apiVersion: "storage.example.io/v1", kind: "CSIDriver", spec: {} }],
    ["/apis/storage.example.io/v1/csinodes", "node1", { apiVersion: "storage.example.io/v1", kind: "CSINode", spec: { drivers: [] } }],
    ["/api/v1/namespaces/default/podtemplates", "t1", { apiVersion: "v1", kind: "PodTemplate", template: { spec: { containers: [{ name: "c", image: "busybox" }] } } }],
    ["/api/v1/namespaces/default/pods", "p1", { apiVersion: "v1", kind: "Pod", spec: { containers: [{ name: "c", image: "busybox" }] } }],
    ["/api/v1/nodes", "n1", { apiVersion: "v1", kind: "Node" }],
  ];
  it.each(cases)("%s: create 201, get 200, delete 200 with the object", async (path, name, body) => {
    const c = await call(s, "POST", path, { ...body, metadata: { name } });
    expect(c.status).toBe(201);
    expect((await call(s, "GET", `${path}/${name}`)).status).toBe(200);
    const d = await call(s, "DELETE", `${path}/${name}`);
    expect([200, 202]).toContain(d.status);
    expect((d.json() as { kind: string }).kind).toBe(body["kind"]);
  });

  it("malformed JSON is 400 and leaves storage unchanged", async () => {
    const before = (await call(s, "GET", "/apis/batch/v1/jobs")).json() as { items: unknown[] };
    const r = await call(s, "POST", "/apis/batch/v1/namespaces/default/jobs", "{not json");
    expect(r.status).toBe(400);
    const after = (await call(s, "GET", "/apis/batch/v1/jobs")).json() as { items: unknown[] };
    expect(after.items).toEqual(before.items);
  });
});

describe("startup errors", () => {
  it("a token file line with fewer than 3 columns exits 1 naming the line", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-bad-")));
    await writeFile(join(dir, "t.csv"), "a,b,c\nonly,two\n");
    const { spawnSync } = await import("node:child_process");
    const r = spawnSync(process.execPath, ["--conditions=@skiff/source", "--import", "tsx", join(appDir, "src/main.ts"), `--token-auth-file=${join(dir, "t.csv")}`, `--data-dir=${join(dir, "d")}`, `--cert-dir=${join(dir, "p")}`], { encoding: "utf8", cwd: join(appDir, "../..") });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("line 2");
  }, 60_000);
});

describe("built binary", () => {
  const entry = join(appDir, "dist/main.js");
  it.skipIf(!existsSync(entry))("the built binary (dist/main.js; skipped when not built) starts and answers /readyz", async () => {
    const s = await startServer({ entry });
    try {
      expect((await call(s, "GET", "/readyz")).status).toBe(200);
    } finally {
      await s.stop();
    }
  }, 60_000);
});
