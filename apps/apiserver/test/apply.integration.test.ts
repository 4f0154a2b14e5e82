// PATCH, server-side apply and managedFields against the real apiserver process, with the real kubectl.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";
import { csiDriverManifest, csiNodeManifest, jobManifest, kubectlFor, kubectlPath, podTemplateManifest } from "./kubectl-apply-helpers.js";
import type { Kubectl } from "./kubectl-apply-helpers.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are probed freely
type Json = Record<string, any>;

const jobs = "/apis/batch/v1/namespaces/default/jobs";
const drivers = "/apis/storage.example.io/v1/csidrivers";
const csinodes = "/apis/storage.example.io/v1/csinodes";
const templates = "/api/v1/namespaces/default/podtemplates";
const applyHeaders = { "content-type": "application/apply-patch+yaml" };

describe.skipIf(!existsSync(kubectlPath))("PATCH, server-side apply and managedFields (real process, real kubectl)", () => {
  let s: RunningServer;
  let k: Kubectl;
  beforeAll(async () => {
    s = await startServer();
    k = await kubectlFor(s);
  }, 60_000);
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  const get = async (path: string): Promise<Json> => {
    const r = await call(s, "GET", path);
    expect(r.status, r.body).toBe(200);
    return r.json() as Json;
  };
  const managers = (o: Json) => (o["metadata"]["managedFields"] as Json[]).map((e) => `${e["manager"] as string}/${e["operation"] as string}`);

  it("kubectl apply (client-side) twice on Job, CSIDriver, CSINode and PodTemplate: created, then configured", async () => {
    const cases: [string, string, string, string, (o: Json) => unknown, unknown, unknown][] = [
      ["job.yaml", jobManifest(1), jobManifest(2), `${jobs}/pi`, (o) => o["spec"]["parallelism"], 1, 2],
      ["driver.yaml", csiDriverManifest("vault"), csiDriverManifest("vault2"), `${drivers}/hostpath.csi.example.io`, (o) => o["spec"]["tokenRequests"], [{ audience: "vault" }], [{ audience: "vault2" }]],
      ["csinode.yaml", csiNodeManifest(false), csiNodeManifest(true), `${csinodes}/node-1`, (o) => (o["spec"]["drivers"] as Json[]).map((d) => d["name"]), ["hostpath.csi.example.io"], ["hostpath.csi.example.io", "other.csi.example.io"]],
      ["tpl.yaml", podTemplateManifest("nginx"), podTemplateManifest("nginx:2"), `${templates}/tpl`, (o) => o["template"]["spec"]["containers"][0]["image"], "nginx", "nginx:2"],
    ];
    for (const [file, first, second, path, pick, v1, v2] of cases) {
      const f = await k.manifest(file, first);
      const a = k.run(["apply", "-f", f]);
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).toMatch(/ created\n$/);
      const o1 = await get(path);
      expect(pick(o1)).toEqual(v1);
      expect(o1["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]).toBeTypeOf("string");
      expect(managers(o1)).toEqual(["kubectl-client-side-apply/Update"]);
      await k.manifest(file, second);
      const b = k.run(["apply", "-f", f]);
      expect(b.code, b.stderr).toBe(0);
      expect(b.stdout).toMatch(/ configured\n$/);
      expect(pick(await get(path))).toEqual(v2);
      const c = k.run(["apply", "-f", f]);
      expect(c.stdout).toMatch(/ unchanged\n$/);
    }
  }, 120_000);

  it("kubectl get -o yaml --show-managed-fields shows FieldsV1 entries per manager", async () => {
    const r = k.run(["get", "job", "pi", "-o", "yaml", "--show-managed-fields"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("manager: kubectl-client-side-apply");
    expect(r.stdout).toContain("operation: Update");
    expect(r.stdout).toContain("fieldsType: FieldsV1");
    expect(r.stdout).toContain('k:{"name":"pi"}:');
    expect(r.stdout).toContain("f:parallelism: {}");
    const hidden = k.run(["get", "job", "pi", "-o", "yaml"]);
    expect(hidden.stdout).not.toContain("managedFields");
  }, 60_000);

  it("kubectl patch --type json|merge|strategic; each write records its own Update entry", async () => {
    const m = k.run(["patch", "job", "pi", "--type=merge", "-p", '{"spec":{"parallelism":4}}']);
    expect(m.code, m.stderr).toBe(0);
    expect((await get(`${jobs}/pi`))["spec"]["parallelism"]).toBe(4);
    const j = k.run(["patch", "job", "pi", "--type=json", "-p", '[{"op":"replace","path":"/spec/parallelism","value":5}]']);
    expect(j.code, j.stderr).toBe(0);
    expect((await get(`${jobs}/pi`))["spec"]["parallelism"]).toBe(5);
    // Strategic: containers merge by name, env by name — the image stays, env gains B.
    const sp = k.run(["patch", "podtemplate", "tpl", "--type=strategic", "-p", '{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"B","value":"2"}]}]}}}']);
    expect(sp.code, sp.stderr).toBe(0);
    const t = await get(`${templates}/tpl`);
    expect(t["template"]["spec"]["containers"]).toHaveLength(1);
    expect(t["template"]["spec"]["containers"][0]).toMatchObject({ name: "web", image: "nginx:2", env: [{ name: "B", value: "2" }] });
    const o = await get(`${jobs}/pi`);
    expect(managers(o)).toEqual(["kubectl-client-side-apply/Update", "kubectl-patch/Update"]);
    const patchEntry = (o["metadata"]["managedFields"] as Json[])[1]!;
    expect(patchEntry["fieldsV1"]).toEqual({ "f:spec": { "f:parallelism": {} } });
    // The client-side-apply entry no longer owns the field the patch took.
    expect((o["metadata"]["managedFields"] as Json[])[0]!["fieldsV1"]["f:spec"]["f:parallelism"]).toBeUndefined();
  }, 60_000);

  it("strategic merge patch follows the OpenAPI patch metadata (CSINode drivers by name, CSIDriver lists replace, $patch directives)", async () => {
    const smp = { "content-type": "application/strategic-merge-patch+json" };
    const r = await call(s, "PATCH", `${csinodes}/node-1`, { spec: { drivers: [{ name: "third.csi.example.io", nodeID: "n3" }] } }, smp);
    expect(r.status, r.body).toBe(200);
    expect(((r.json() as Json)["spec"]["drivers"] as Json[]).map((d) => d["name"])).toEqual(["third.csi.example.io", "hostpath.csi.example.io", "other.csi.example.io"]);
    const del = await call(s, "PATCH", `${csinodes}/node-1`, { spec: { drivers: [{ name: "third.csi.example.io", $patch: "delete" }] } }, smp);
    expect(((del.json() as Json)["spec"]["drivers"] as Json[]).map((d) => d["name"])).toEqual(["hostpath.csi.example.io", "other.csi.example.io"]);
    const order = await call(s, "PATCH", `${csinodes}/node-1`, { spec: { "$setElementOrder/drivers": [{ name: "other.csi.example.io" }, { name: "hostpath.csi.example.io" }] } }, smp);
    expect(((order.json() as Json)["spec"]["drivers"] as Json[]).map((d) => d["name"])).toEqual(["other.csi.example.io", "hostpath.csi.example.io"]);
    // volumeLifecycleModes carries listType=set but no patch strategy: 1.23's SMP replaces it; tokenRequests is atomic.
    const v = await call(s, "PATCH", `${drivers}/hostpath.csi.example.io`, { spec: { tokenRequests: [{ audience: "x" }] } }, smp);
    expect(v.status, v.body).toBe(200);
    expect((v.json() as Json)["spec"]["tokenRequests"]).toEqual([{ audience: "x" }]);
    const bad = await call(s, "PATCH", `${csinodes}/node-1`, { spec: { drivers: [{ nodeID: "no-name" }] } }, smp);
    expect(bad.status).toBe(422);
    expect((bad.json() as Json)["message"]).toContain("does not contain declared merge key: name");
  }, 60_000);

  it("kubectl apply --server-side: conflict between two field managers, then --force-conflicts", async () => {
    const f = await k.manifest("ssa.yaml", jobManifest(1, "ssa"));
    const a = k.run(["apply", "--server-side", "--field-manager=a", "-f", f]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain("job.batch/ssa serverside-applied");
    await k.manifest("ssa.yaml", jobManifest(3, "ssa"));
    const b = k.run(["apply", "--server-side", "--field-manager=b", "-f", f]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('Apply failed with 1 conflict: conflict with "a": .spec.parallelism');
    expect((await get(`${jobs}/ssa`))["spec"]["parallelism"]).toBe(1);
    const forced = k.run(["apply", "--server-side", "--field-manager=b", "--force-conflicts", "-f", f]);
    expect(forced.code, forced.stderr).toBe(0);
    const o = await get(`${jobs}/ssa`);
    expect(o["spec"]["parallelism"]).toBe(3);
    expect(managers(o)).toEqual(["a/Apply", "b/Apply"]);
    const [ea, eb] = o["metadata"]["managedFields"] as Json[];
    expect(ea!["fieldsV1"]["f:spec"]["f:parallelism"]).toBeUndefined();
    expect(eb!["fieldsV1"]["f:spec"]["f:parallelism"]).toEqual({});
    expect(eb!["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"pi"}']).toMatchObject({ ".": {}, "f:image": {}, "f:name": {} });
  }, 60_000);

  it("kubectl apply --server-side creates and updates CSIDriver, CSINode and PodTemplate; conflicts on a CSIDriver set item owner", async () => {
    for (const [file, text, kind, name] of [
      ["d2.yaml", csiDriverManifest("v", "ssa.csi.example.io"), "csidriver", "ssa.csi.example.io"],
      ["n2.yaml", csiNodeManifest(true, "node-2"), "csinode", "node-2"],
      ["t2.yaml", podTemplateManifest("nginx", "tpl2"), "podtemplate", "tpl2"],
    ] as const) {
      const f = await k.manifest(file, text);
      const r = k.run(["apply", "--server-side", "-f", f]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`${name} serverside-applied`);
      const again = k.run(["apply", "--server-side", "-f", f]);
      expect(again.code, again.stderr).toBe(0);
      const g = k.run(["get", kind, name, "-o", "yaml", "--show-managed-fields"]);
      expect(g.stdout).toContain("manager: kubectl");
      expect(g.stdout).toContain("operation: Apply");
    }
    const f = await k.manifest("d2.yaml", csiDriverManifest("other", "ssa.csi.example.io"));
    const c = k.run(["apply", "--server-side", "--field-manager=other", "-f", f]);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('conflict with "kubectl": .spec.tokenRequests');
  }, 120_000);

  it("apply over the API: fieldManager required (422), force only for apply (422), 201 on create, 200 after, dryRun stores nothing", async () => {
    const body = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox\n";
    const noManager = await call(s, "PATCH", `${jobs}/api`, body, applyHeaders);
    expect(noManager.status).toBe(422);
    expect(noManager.json()).toMatchObject({
      reason: "Invalid",
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      details: { group: "meta.k8s.io", kind: "PatchOptions", causes: [{ reason: "FieldValueRequired", field: "fieldManager" }] },
    });
    const force = await call(s, "PATCH", `${jobs}/pi?force=true`, { spec: {} }, { "content-type": "application/merge-patch+json" });
    expect(force.status).toBe(422);
    expect((force.json() as Json)["message"]).toContain("force: Forbidden: may not be specified for non-apply patch");
    const dry = await call(s, "PATCH", `${jobs}/api?fieldManager=m&dryRun=All`, body, applyHeaders);
    expect(dry.status, dry.body).toBe(201);
    expect((dry.json() as Json)["metadata"]["managedFields"][0]).toMatchObject({ manager: "m", operation: "Apply" });
    expect((await call(s, "GET", `${jobs}/api`)).status).toBe(404);
    const created = await call(s, "PATCH", `${jobs}/api?fieldManager=m`, body, applyHeaders);
    expect(created.status, created.body).toBe(201);
    const updated = await call(s, "PATCH", `${jobs}/api?fieldManager=m`, body.replace("spec:\n  template", "spec:\n  parallelism: 2\n  template"), applyHeaders);
    expect(updated.status, updated.body).toBe(200);
    expect((updated.json() as Json)["spec"]["parallelism"]).toBe(2);
    // JSON is YAML: a JSON apply body works too.
    const json = await call(s, "PATCH", `${jobs}/api?fieldManager=m`, JSON.stringify({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "api" }, spec: { parallelism: 3, template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } } }), applyHeaders);
    expect(json.status, json.body).toBe(200);
    const wrongVersion = await call(s, "PATCH", `${jobs}/api?fieldManager=m`, "apiVersion: batch/v2\nkind: Job\nmetadata:\n  name: api\n", applyHeaders);
    expect(wrongVersion.status).toBe(400);
    expect((wrongVersion.json() as Json)["message"]).toBe("Incorrect version specified in apply patch. Specified patch version: batch/v2, expected: batch/v1");
    const withManaged = await call(s, "PATCH", `${jobs}/api?fieldManager=m`, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: api\n  managedFields: []\n", applyHeaders);
    expect(withManaged.status).toBe(400);
    expect((withManaged.json() as Json)["message"]).toBe("metadata.managedFields must be nil");
    const conflict = await call(s, "PATCH", `${jobs}/api?fieldManager=other`, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: api\nspec:\n  parallelism: 7\n", applyHeaders);
    expect(conflict.status).toBe(409);
    expect(conflict.json()).toMatchObject({
      kind: "Status",
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "m": .spec.parallelism',
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "m"', field: ".spec.parallelism" }] },
    });
  }, 60_000);

  it("concurrent server-side applies to a missing object all succeed: one 201, the rest 200 (SQLite, one guaranteed update each)", async () => {
    // Job does not create on PUT; apply creates through the same retry loop as its updates, so a
    // racing apply that loses the create is retried as an update instead of answering 409.
    const n = 8;
    const body = (i: number) =>
      `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: race\n  labels:\n    by-${String(i)}: "yes"\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox\n`;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => call(s, "PATCH", `${jobs}/race?fieldManager=m${String(i)}&force=true`, body(i), applyHeaders)));
    expect(results.map((r) => r.status).sort((a, b) => b - a), results.map((r) => r.body).join("\n")).toEqual([201, ...Array<number>(n - 1).fill(200)]);
    const job = await get(`${jobs}/race`);
    for (let i = 0; i < n; i++) expect(job["metadata"]["labels"][`by-${String(i)}`]).toBe("yes");
    expect(managers(job).sort()).toEqual(Array.from({ length: n }, (_, i) => `m${String(i)}/Apply`).sort());
  }, 60_000);

  it("validation and immutable fields hold on every patch path", async () => {
    const mergeH = { "content-type": "application/merge-patch+json" };
    const cases: [string, unknown, Record<string, string>][] = [
      ["?fieldManager=t", { spec: { completions: 9 } }, mergeH],
      ["?fieldManager=t", [{ op: "add", path: "/spec/completions", value: 9 }], { "content-type": "application/json-patch+json" }],
      ["?fieldManager=t", { spec: { completions: 9 } }, { "content-type": "application/strategic-merge-patch+json" }],
      ["?fieldManager=t&force=true", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: pi\nspec:\n  completions: 9\n", applyHeaders],
    ];
    const before = await get(`${jobs}/pi`);
    for (const [q, body, headers] of cases) {
      const r = await call(s, "PATCH", `${jobs}/pi${q}`, body, headers);
      expect(r.status, `${headers["content-type"]}: ${r.body}`).toBe(422);
      expect((r.json() as Json)["message"]).toContain("field is immutable");
      const neg = await call(s, "PATCH", `${jobs}/pi${q}`, typeof body === "string" ? body.replace("completions: 9", "parallelism: -1") : JSON.parse(JSON.stringify(body).replace('"completions":9', '"parallelism":-1').replace("/spec/completions", "/spec/parallelism").replace('"value":9', '"value":-1')), headers);
      expect(neg.status, `${headers["content-type"]}: ${neg.body}`).toBe(422);
      expect((neg.json() as Json)["message"]).toContain("spec.parallelism: Invalid value: -1");
    }
    expect((await get(`${jobs}/pi`))["metadata"]["resourceVersion"]).toBe(before["metadata"]["resourceVersion"]);
    const typeError = await call(s, "PATCH", `${jobs}/pi`, { spec: { parallelism: "many" } }, mergeH);
    expect(typeError.status).toBe(400);
  }, 60_000);

  it("a create's entry owns the fields defaulting filled in, as 1.23 defaults while decoding", async () => {
    const r = await call(s, "POST", `${jobs}?fieldManager=creator`, { apiVersion: "batch/v1", kind: "Job", metadata: { name: "defaults" }, spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } } });
    expect(r.status, r.body).toBe(201);
    const entry = ((r.json() as Json)["metadata"]["managedFields"] as Json[]).find((e) => e["manager"] === "creator")!;
    const spec = entry["fieldsV1"]["f:spec"] as Json;
    expect(Object.keys(spec)).toEqual(expect.arrayContaining(["f:backoffLimit", "f:completionMode", "f:completions", "f:parallelism", "f:suspend", "f:template"]));
    expect(Object.keys(spec["f:template"]["f:spec"])).toEqual(expect.arrayContaining(["f:dnsPolicy", "f:schedulerName", "f:terminationGracePeriodSeconds"]));
    // The selector and its labels come later, from the strategy: nobody's.
    expect(spec["f:selector"]).toBeUndefined();
  }, 60_000);

  it("managedFields [{}] resets them; [] keeps them; the default manager is the User-Agent's first segment", async () => {
    // (The `subresource: status` entry is covered in apiserver-core's handlers/apply.test.ts: the Job
    // status strategy restores the whole old metadata, managedFields included.)
    const keep = await call(s, "PATCH", `${jobs}/api`, { metadata: { managedFields: [] } }, { "content-type": "application/merge-patch+json" });
    expect(((keep.json() as Json)["metadata"]["managedFields"] as Json[]).length).toBeGreaterThan(0);
    const reset = await call(s, "PATCH", `${jobs}/api`, [{ op: "replace", path: "/metadata/managedFields", value: [{}] }], { "content-type": "application/json-patch+json" });
    expect(reset.status, reset.body).toBe(200);
    expect((reset.json() as Json)["metadata"]["managedFields"]).toBeUndefined();
    // Once reset, updates are not tracked (1.23's skip-non-applied rule)...
    const untracked = await call(s, "PATCH", `${jobs}/api`, { metadata: { labels: { x: "y" } } }, { "content-type": "application/merge-patch+json" });
    expect(untracked.status, untracked.body).toBe(200);
    expect((untracked.json() as Json)["metadata"]["managedFields"]).toBeUndefined();
    // ...until an apply: what the object held becomes before-first-apply's.
    const applied = await call(s, "PATCH", `${jobs}/api?fieldManager=first`, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: api\n  labels:\n    applied: \"yes\"\n", applyHeaders);
    expect(applied.status, applied.body).toBe(200);
    expect(managers(applied.json() as Json).sort()).toEqual(["before-first-apply/Update", "first/Apply"]);
    // A write with no fieldManager is recorded under the User-Agent's first segment.
    const ua = await call(s, "PATCH", `${jobs}/api`, { metadata: { labels: { x: "z" } } }, { "content-type": "application/merge-patch+json", "user-agent": "my-tool/1.0 (linux)" });
    expect(managers(ua.json() as Json)).toContain("my-tool/Update");
  }, 60_000);
});
