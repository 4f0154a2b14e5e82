// Gaps found by kubectl and the other integration suites: kubectl's protobuf creates, DELETE
// bodies however they are framed,
// the Job /status managedFields entry, removing the `kubernetes` finalizer of an active namespace
// through /finalize, and namespaces/finalize in discovery and OpenAPI.
import { request } from "node:https";
import { connect } from "node:tls";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, startServer, writeKubeconfig } from "./harness.js";
import type { RunningServer } from "./harness.js";
import { Kubectl, kubectlBuilds } from "./kubectl-helpers.js";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers

// Writes `text` on a fresh TLS connection and collects everything the server sends until it closes
// the connection (or `idleMs` passes).
function rawExchange(s: RunningServer, text: string, idleMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: "127.0.0.1", port: s.port, servername: "localhost", ca: s.ca }, () => sock.write(text));
    let out = "";
    const timer = setTimeout(() => sock.end(), idleMs);
    sock.on("data", (d: Buffer) => (out += d.toString()));
    sock.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    });
    sock.on("error", reject);
  });
}

// POSTs raw bytes as application/vnd.kubernetes.protobuf.
function postProtobuf(s: RunningServer, path: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        servername: "localhost",
        port: s.port,
        path,
        method: "POST",
        ca: s.ca,
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/vnd.kubernetes.protobuf", accept: "application/json", "content-length": String(body.length) },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const template = (name: string) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name }, template: { spec: { containers: [{ name: "c", image: "busybox" }] } } });
const pts = "/api/v1/namespaces/default/podtemplates";
const deleteHead = (name: string, extra: string) =>
  `DELETE ${pts}/${name} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${adminToken}\r\nContent-Type: application/json\r\n${extra}`;
const wrongUID = JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: "not-the-uid" } });

describe("api fixes", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  const kubectl132 = kubectlBuilds.find((b) => b.label === "1.32")?.path;
  describe.skipIf(kubectl132 === undefined)("kubectl 1.32 imperative creates (protobuf bodies)", () => {
    let k: Kubectl;
    beforeAll(async () => {
      k = new Kubectl(kubectl132!, await writeKubeconfig(s), join(s.dir, "kubectl-home"));
    });

    it("kubectl create namespace", async () => {
      const r = k.run("create", "namespace", "imperative");
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("namespace/imperative created");
      const ns = (await call(s, "GET", "/api/v1/namespaces/imperative")).json() as Obj;
      expect(ns["spec"].finalizers).toEqual(["kubernetes"]);
      expect(ns["status"].phase).toBe("Active");
    });

    it("kubectl create job x --image=busybox -- echo hi", async () => {
      const r = k.run("create", "job", "x", "--image=busybox", "--", "echo", "hi");
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("job.batch/x created");
      const job = (await call(s, "GET", "/apis/batch/v1/namespaces/default/jobs/x")).json() as Obj;
      const c = (job["spec"].template.spec.containers as Obj[])[0]!;
      expect(c).toMatchObject({ name: "x", image: "busybox", command: ["echo", "hi"] });
      expect(job["spec"].template.spec.restartPolicy).toBe("Never");
      expect(job["spec"].selector.matchLabels["controller-uid"]).toBe(job["metadata"].uid);
      // The same object as the JSON path stores for what `kubectl create job -o json` prints.
      const printed = k.run("create", "job", "x", "--image=busybox", "--dry-run=client", "-o", "json", "--", "echo", "hi");
      const printedJob = JSON.parse(printed.stdout) as Obj;
      printedJob["metadata"].name = "x-json";
      const viaJSON = await call(s, "POST", "/apis/batch/v1/namespaces/default/jobs?dryRun=All", printedJob);
      expect(viaJSON.status, viaJSON.body).toBe(201);
      const strip = (o: Obj) => {
        const { selector: _sel, template, ...rest } = o["spec"] as Obj;
        const { labels: _l, ...tmeta } = (template as Obj)["metadata"] as Obj;
        return { ...rest, template: { ...(template as Obj), metadata: tmeta } };
      };
      expect(strip(job)).toEqual(strip(viaJSON.json() as Obj));
    });

    it("kubectl run p --image=busybox --restart=Never", async () => {
      const r = k.run("run", "p", "--image=busybox", "--restart=Never");
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("pod/p created");
      const pod = (await call(s, "GET", "/api/v1/namespaces/default/pods/p")).json() as Obj;
      expect(pod["spec"].containers[0]).toMatchObject({ name: "p", image: "busybox" });
      expect(pod["spec"].restartPolicy).toBe("Never");
    });

    it("a protobuf body of a kind outside the subset answers 415 naming the supported kinds, and stores nothing", async () => {
      const typeMeta = Buffer.concat([Buffer.from([0x0a, 21]), Buffer.from("storage.example.io/v1"), Buffer.from([0x12, 9]), Buffer.from("CSIDriver")]);
      const raw = Buffer.from([0x0a, 0x03, 0x0a, 0x01, 0x64]); // metadata { name: "d" }
      const body = Buffer.concat([Buffer.from("k8s\0", "latin1"), Buffer.from([0x0a, typeMeta.length]), typeMeta, Buffer.from([0x12, raw.length]), raw]);
      const r = await postProtobuf(s, "/apis/storage.example.io/v1/csidrivers", body);
      expect(r.status).toBe(415);
      const st = JSON.parse(r.body) as Obj;
      expect(st).toMatchObject({ kind: "Status", reason: "UnsupportedMediaType", code: 415 });
      expect(st["message"]).toContain("Job (batch/v1)");
      expect((await call(s, "GET", "/apis/storage.example.io/v1/csidrivers/d")).status).toBe(404);
    });
  });

  describe("DELETE bodies", () => {
    it("honours DeleteOptions sent chunked (Transfer-Encoding: chunked)", async () => {
      expect((await call(s, "POST", pts, template("chunked"))).status).toBe(201);
      const half = Math.floor(wrongUID.length / 2);
      const chunks = [wrongUID.slice(0, half), wrongUID.slice(half)].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join("");
      const out = await rawExchange(s, deleteHead("chunked", `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}0\r\n\r\n`));
      expect(out).toMatch(/^HTTP\/1\.1 409 /);
      expect(out).toContain("the UID in the precondition (not-the-uid) does not match");
      expect((await call(s, "GET", `${pts}/chunked`)).status).toBe(200);
      const ok = JSON.stringify({ propagationPolicy: "Background" });
      const out2 = await rawExchange(s, deleteHead("chunked", `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${ok.length.toString(16)}\r\n${ok}\r\n0\r\n\r\n`));
      expect(out2).toMatch(/^HTTP\/1\.1 200 /);
      expect((await call(s, "GET", `${pts}/chunked`)).status).toBe(404);
    });

    it("honours DeleteOptions with Content-Length (the harness's call frames DELETE bodies too)", async () => {
      expect((await call(s, "POST", pts, template("sized"))).status).toBe(201);
      const r = await call(s, "DELETE", `${pts}/sized`, JSON.parse(wrongUID));
      expect(r.status, r.body).toBe(409);
      expect((await call(s, "GET", `${pts}/sized`)).status).toBe(200);
    });

    it("an unframed body (no Content-Length, not chunked) is a new request: the DELETE is answered first, then a Status 400", async () => {
      expect((await call(s, "POST", pts, template("unframed"))).status).toBe(201);
      // What Node's https.request sends for DELETE + write() without a Content-Length.
      const out = await rawExchange(s, deleteHead("unframed", `\r\n${wrongUID}`));
      // By HTTP/1.1 the DELETE has no body, so no precondition: it succeeds, as against Go's server.
      expect(out).toMatch(/^HTTP\/1\.1 200 /);
      const second = out.indexOf("HTTP/1.1 400 Bad Request");
      expect(second).toBeGreaterThan(0);
      const status = JSON.parse(out.slice(out.indexOf("\r\n\r\n", second) + 4)) as Obj;
      expect(status).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
      expect(status["message"]).toContain("Content-Length or Transfer-Encoding: chunked");
      expect((await call(s, "GET", `${pts}/unframed`)).status).toBe(404);
    });

    it("garbage on a fresh connection gets a Status 400 and the connection closes", async () => {
      const out = await rawExchange(s, "{not http}\r\n\r\n");
      expect(out).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(out).toContain('"kind":"Status"');
      expect((await call(s, "GET", "/healthz")).status).toBe(200);
    });
  });

  it("a Job /status write keeps its `subresource: status` managedFields entry and ignores metadata changes", async () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "mf", labels: { app: "mf" } },
      spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
    };
    const created = await call(s, "POST", "/apis/batch/v1/namespaces/default/jobs?fieldManager=creator", job);
    expect(created.status, created.body).toBe(201);
    const cur = created.json() as Obj;
    const put = await call(s, "PUT", "/apis/batch/v1/namespaces/default/jobs/mf/status?fieldManager=status-writer", {
      ...cur,
      metadata: { ...cur["metadata"], labels: { app: "changed" } },
      status: { active: 1, startTime: "2024-01-01T00:00:00Z" },
    });
    expect(put.status, put.body).toBe(200);
    const got = (await call(s, "GET", "/apis/batch/v1/namespaces/default/jobs/mf")).json() as Obj;
    expect(got["status"]).toMatchObject({ active: 1 });
    expect(got["metadata"].labels).toEqual({ app: "mf" });
    const entries = got["metadata"].managedFields as Obj[];
    expect(entries.map((e) => [e["manager"], e["subresource"] ?? ""])).toEqual(
      expect.arrayContaining([
        ["creator", ""],
        ["status-writer", "status"],
      ]),
    );
    expect(JSON.stringify(entries.find((e) => e["manager"] === "status-writer")?.["fieldsV1"])).toContain("f:active");
  });

  it("PUT /finalize removes the kubernetes finalizer of an active namespace, and a later update does not re-add it", async () => {
    expect((await call(s, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "fin-active" } })).status).toBe(201);
    const ns = (await call(s, "GET", "/api/v1/namespaces/fin-active")).json() as Obj;
    expect(ns["spec"].finalizers).toEqual(["kubernetes"]);
    const fin = await call(s, "PUT", "/api/v1/namespaces/fin-active/finalize", { ...ns, spec: { finalizers: [] } });
    expect(fin.status, fin.body).toBe(200);
    expect((fin.json() as Obj)["spec"].finalizers ?? []).toEqual([]);
    const after = (await call(s, "GET", "/api/v1/namespaces/fin-active")).json() as Obj;
    expect(after["spec"]?.finalizers ?? []).toEqual([]);
    const relabel = await call(s, "PUT", "/api/v1/namespaces/fin-active", { ...after, metadata: { ...after["metadata"], labels: { x: "y" } } });
    expect(relabel.status, relabel.body).toBe(200);
    expect((relabel.json() as Obj)["spec"]?.finalizers ?? []).toEqual([]);
    // finalize answers update only, as 1.23's FinalizeREST.
    expect((await call(s, "GET", "/api/v1/namespaces/fin-active/finalize")).status).toBe(405);
  });

  it("serves namespaces/finalize in discovery and OpenAPI", async () => {
    const list = (await call(s, "GET", "/api/v1")).json() as { resources: Obj[] };
    expect(list.resources.find((r) => r["name"] === "namespaces/finalize")).toMatchObject({ kind: "Namespace", verbs: ["update"], namespaced: false });
    const v3 = (await call(s, "GET", "/openapi/v3/api/v1")).json() as { paths: Record<string, Obj> };
    const path = v3.paths["/api/v1/namespaces/{name}/finalize"];
    expect(Object.keys(path ?? {}).filter((k) => ["get", "put", "post", "patch", "delete"].includes(k))).toEqual(["put"]);
  });
});
