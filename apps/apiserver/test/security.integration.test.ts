// Authentication and authorization of the real skiff-apiserver process: every route family ×
// {no token, wrong token, untrusted client certificate, valid user denied by ABAC, anonymous}
// gets the right code and Status, and no write lands (checked through an admin client).
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { promisify } from "node:util";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, startServer, removeWhenDone } from "./harness.js";
import type { RunningServer } from "./harness.js";

const run = promisify(execFile);

interface Creds { token?: string; cert?: string; key?: string }
interface Res { status: number; headers: Record<string, string | string[] | undefined>; body: string; json: Record<string, unknown> }

function call(s: RunningServer, method: string, path: string, creds: Creds, body?: unknown, contentType = "application/json"): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1", servername: "localhost", port: s.port, path, method, ca: s.ca,
        ...(creds.cert ? { cert: creds.cert, key: creds.key } : {}),
        headers: { ...(creds.token !== undefined ? { authorization: `Bearer ${creds.token}` } : {}), "content-type": contentType },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => {
          let json: Record<string, unknown> = {};
          try { json = JSON.parse(text) as Record<string, unknown>; } catch { /* not JSON */ }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
        });
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(typeof body === "string" ? body : JSON.stringify(body));
    req.end();
  });
}

async function makeCA(cn: string) {
  const now = new Date();
  return generate([{ name: "commonName", value: cn }], {
    keySize: 2048, algorithm: "sha256", notBeforeDate: now, notAfterDate: new Date(now.getTime() + 86_400_000),
    extensions: [{ name: "basicConstraints", cA: true }, { name: "keyUsage", keyCertSign: true, digitalSignature: true, cRLSign: true }],
  });
}
async function makeClientCert(ca: { private: string; cert: string }, cn: string, orgs: string[]) {
  const now = new Date();
  const c = await generate([{ name: "commonName", value: cn }, ...orgs.map((o) => ({ name: "organizationName", value: o }))], {
    keySize: 2048, algorithm: "sha256", notBeforeDate: now, notAfterDate: new Date(now.getTime() + 86_400_000),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [{ name: "basicConstraints", cA: false }, { name: "keyUsage", digitalSignature: true, keyEncipherment: true }, { name: "extKeyUsage", clientAuth: true }],
  });
  return { cert: c.cert, key: c.private };
}

const policy = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec });

const job = (name: string) => ({
  apiVersion: "batch/v1", kind: "Job", metadata: { name },
  spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
});
const podTemplate = (name: string) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name }, template: { spec: { containers: [{ name: "c", image: "busybox" }] } } });
const csiDriver = (name: string) => ({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name }, spec: {} });

// [family, method, path, body, content-type]
type Route = readonly [string, string, string, unknown?, string?];
const J = "/apis/batch/v1/namespaces/default/jobs";
const routes: readonly Route[] = [
  ["discovery /api", "GET", "/api"],
  ["discovery /apis", "GET", "/apis"],
  ["discovery group version", "GET", "/apis/batch/v1"],
  ["openapi", "GET", "/openapi/v3"],
  ["openapi group version", "GET", "/openapi/v3/apis/batch/v1"],
  ["version", "GET", "/version"],
  ["list jobs", "GET", J],
  ["list all namespaces", "GET", "/apis/batch/v1/jobs"],
  ["get job", "GET", `${J}/seed`],
  ["watch jobs", "GET", `${J}?watch=true&timeoutSeconds=1`],
  ["watch path", "GET", "/api/v1/watch/namespaces/default/podtemplates?timeoutSeconds=1"],
  ["create job", "POST", J, job("evil")],
  ["create podtemplate", "POST", "/api/v1/namespaces/default/podtemplates", podTemplate("evil")],
  ["create csidriver", "POST", "/apis/storage.example.io/v1/csidrivers", csiDriver("evil.example.io")],
  ["create namespace", "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "evil" } }],
  ["create node", "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "evil" } }],
  ["update job", "PUT", `${J}/seed`, { ...job("seed"), metadata: { name: "seed", labels: { evil: "1" } } }],
  ["merge patch job", "PATCH", `${J}/seed`, { metadata: { labels: { evil: "1" } } }, "application/merge-patch+json"],
  ["json patch podtemplate", "PATCH", "/api/v1/namespaces/default/podtemplates/seed", [{ op: "add", path: "/metadata/labels", value: { evil: "1" } }], "application/json-patch+json"],
  ["status subresource", "PUT", `${J}/seed/status`, { ...job("seed"), status: { active: 5 } }],
  ["delete job", "DELETE", `${J}/seed`],
  ["delete csidriver", "DELETE", "/apis/storage.example.io/v1/csidrivers/seed.example.io"],
  ["deletecollection podtemplates", "DELETE", "/api/v1/namespaces/default/podtemplates"],
  ["selfsubjectreview", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }],
  ["tokenreview", "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: adminToken } }],
  ["subjectaccessreview", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: { user: "x", nonResourceAttributes: { path: "/", verb: "get" } } }],
];

// Everything a write could touch, as the admin sees it.
async function snapshot(s: RunningServer): Promise<string> {
  const out: unknown[] = [];
  for (const p of ["/apis/batch/v1/jobs", "/api/v1/podtemplates", "/apis/storage.example.io/v1/csidrivers", "/api/v1/namespaces", "/api/v1/nodes"]) {
    const r = await call(s, "GET", p, { token: adminToken });
    expect(r.status).toBe(200);
    out.push((r.json["items"] as Array<{ metadata: unknown; spec?: unknown; status?: unknown }>).map((i) => [i.metadata, i.spec, i.status]));
  }
  return JSON.stringify(out);
}

describe("security (real process: client CA, token file, ABAC, anonymous off)", () => {
  let s: RunningServer;
  let carol: { cert: string; key: string };
  let mallory: { cert: string; key: string };
  let before: string;

  beforeAll(async () => {
    const ca = await makeCA("skiff-client-ca");
    carol = await makeClientCert(ca, "carol", ["ops", "dev"]);
    mallory = await makeClientCert(await makeCA("rogue-ca"), "admin", ["system:masters"]);
    const { mkdtemp } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-security-")));
    await writeFile(join(dir, "client-ca.crt"), ca.cert);
    await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\nbob-token,bob,2\ndave-token,dave,3,"readers"\n`);
    await writeFile(
      join(dir, "policy.jsonl"),
      [
        "# bob may only read pod templates in another namespace",
        policy({ user: "bob", namespace: "other", resource: "podtemplates", apiGroup: "", readonly: true }),
        policy({ group: "ops", namespace: "*", resource: "*", apiGroup: "*" }),
        policy({ group: "ops", nonResourcePath: "*" }),
        policy({ group: "readers", namespace: "*", resource: "*", apiGroup: "*", readonly: true }),
        policy({ group: "readers", namespace: "*", resource: "selfsubjectaccessreviews", apiGroup: "authorization.k8s.io" }),
        policy({ group: "readers", namespace: "*", resource: "selfsubjectreviews", apiGroup: "authentication.k8s.io" }),
      ].join("\n") + "\n",
    );
    s = await startServer({
      extraArgs: [
        `--token-auth-file=${join(dir, "tokens.csv")}`,
        `--client-ca-file=${join(dir, "client-ca.crt")}`,
        "--authorization-mode=ABAC",
        `--authorization-policy-file=${join(dir, "policy.jsonl")}`,
        "--anonymous-auth=false",
      ],
    });
    const admin = { token: adminToken };
    expect((await call(s, "POST", J, admin, job("seed"))).status).toBe(201);
    expect((await call(s, "POST", "/api/v1/namespaces/default/podtemplates", admin, podTemplate("seed"))).status).toBe(201);
    expect((await call(s, "POST", "/apis/storage.example.io/v1/csidrivers", admin, csiDriver("seed.example.io"))).status).toBe(201);
    before = await snapshot(s);
  }, 120_000);
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  const cases: Array<[string, () => Creds, number, string]> = [
    ["no credentials (anonymous disabled)", () => ({}), 401, "Unauthorized"],
    ["a wrong bearer token", () => ({ token: "wrong" }), 401, "Unauthorized"],
    ["an empty bearer token", () => ({ token: "" }), 401, "Unauthorized"],
    ["an untrusted client certificate (CN=admin, O=system:masters)", () => mallory, 401, "Unauthorized"],
    ["a valid user ABAC denies", () => ({ token: "bob-token" }), 403, "Forbidden"],
  ];
  for (const [who, creds, code, reason] of cases) {
    it(`${who} → ${String(code)} on every route family, nothing written`, async () => {
      for (const [family, method, path, body, type] of routes) {
        const r = await call(s, method, path, creds(), body, type);
        expect(r.status, `${family}: ${r.body.slice(0, 200)}`).toBe(code);
        expect(r.json, family).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason, code });
        if (code === 401) expect(r.json["message"]).toBe("Unauthorized");
      }
      expect(await snapshot(s)).toBe(before);
    }, 60_000);
  }

  it("a denial names user, verb and resource in 1.23's words", async () => {
    const bob = { token: "bob-token" };
    expect((await call(s, "GET", J, bob)).json["message"]).toBe(
      'jobs.batch is forbidden: User "bob" cannot list resource "jobs" in API group "batch" in the namespace "default": No policy matched.',
    );
    expect((await call(s, "PUT", `${J}/seed/status`, bob, job("seed"))).json).toMatchObject({
      message: 'jobs.batch "seed" is forbidden: User "bob" cannot update resource "jobs/status" in API group "batch" in the namespace "default": No policy matched.',
      details: { name: "seed", group: "batch", kind: "jobs" },
    });
    expect((await call(s, "GET", "/apis", bob)).json["message"]).toBe('forbidden: User "bob" cannot get path "/apis": No policy matched.');
    expect((await call(s, "GET", "/api/v1/namespaces/other/podtemplates", bob)).status).toBe(200);
  });

  it("a read-only ABAC user reads but cannot write", async () => {
    const dave = { token: "dave-token" };
    expect((await call(s, "GET", J, dave)).status).toBe(200);
    expect((await call(s, "POST", J, dave, job("dave"))).status).toBe(403);
    expect((await call(s, "GET", "/version", dave)).status).toBe(403);
  });

  it("a valid client certificate authenticates (CN → user, O → groups) and may write as ABAC allows", async () => {
    const r = await call(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", carol, { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
    expect(r.status).toBe(201);
    expect(r.json["status"]).toEqual({ userInfo: { username: "carol", groups: ["ops", "dev", "system:authenticated"] } });
    const c = await call(s, "POST", "/api/v1/namespaces/default/podtemplates", carol, podTemplate("by-carol"));
    expect(c.status).toBe(201);
    expect((await call(s, "DELETE", "/api/v1/namespaces/default/podtemplates/by-carol", carol)).status).toBe(200);
    // A valid token next to an untrusted certificate still authenticates (the union tries both).
    expect((await call(s, "GET", "/version", { ...mallory, token: adminToken })).status).toBe(200);
  });

  it("the body limit still answers 413 with a Status", async () => {
    const big = { ...podTemplate("big"), metadata: { name: "big", annotations: { a: "x".repeat(3 * 1024 * 1024) } } };
    const r = await call(s, "POST", "/api/v1/namespaces/default/podtemplates", { token: adminToken }, big);
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ kind: "Status", reason: "RequestEntityTooLarge", code: 413 });
  });

  it("TokenReview and SubjectAccessReview round trips", async () => {
    const admin = { token: adminToken };
    const tr = await call(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", admin, { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "dave-token" } });
    expect(tr.status).toBe(201);
    expect(tr.json).toMatchObject({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", status: { authenticated: true, user: { username: "dave", uid: "3", groups: ["readers", "system:authenticated"] } } });
    const bad = await call(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", admin, { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "nope" } });
    expect(bad.json["status"]).toEqual({ authenticated: false, user: {}, error: "invalid bearer token" });
    const sar = (user: string, groups: string[], verb: string) => ({
      apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview",
      spec: { user, groups, resourceAttributes: { namespace: "default", verb, group: "batch", resource: "jobs" } },
    });
    const yes = await call(s, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", admin, sar("dave", ["readers"], "list"));
    expect(yes.status).toBe(201);
    expect(yes.json["status"]).toEqual({ allowed: true });
    const no = await call(s, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", admin, sar("dave", ["readers"], "delete"));
    expect(no.json["status"]).toEqual({ allowed: false, reason: "No policy matched." });
  });

  it("review resources are in discovery", async () => {
    const r = await call(s, "GET", "/apis/authentication.k8s.io/v1", { token: adminToken });
    expect((r.json["resources"] as Array<{ name: string; verbs: string[] }>).map((x) => [x.name, x.verbs])).toEqual(
      expect.arrayContaining([["selfsubjectreviews", ["create"]], ["tokenreviews", ["create"]]]),
    );
    const groups = (await call(s, "GET", "/apis", { token: adminToken })).json["groups"] as Array<{ name: string }>;
    expect(groups.map((g) => g.name)).toEqual(expect.arrayContaining(["authentication.k8s.io", "authorization.k8s.io"]));
  });

  it("kubectl auth whoami and can-i, with a token and with a client certificate", async () => {
    const b64 = (t: string) => Buffer.from(t).toString("base64");
    const kubeconfig = async (name: string, user: string) => {
      const path = join(s.dir, `kubeconfig-${name}`);
      await writeFile(path, `apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://127.0.0.1:${String(s.port)}\n    certificate-authority-data: ${b64(s.ca)}\nusers:\n- name: u\n  user:\n${user}\ncontexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: u\ncurrent-context: skiff\n`);
      return path;
    };
    const kubectl = (cfg: string, ...args: string[]) => run("kubectl", ["--kubeconfig", cfg, ...args], { env: { ...process.env, HOME: s.dir } });
    const token = await kubeconfig("token", "    token: dave-token");
    const cert = await kubeconfig("cert", `    client-certificate-data: ${b64(carol.cert)}\n    client-key-data: ${b64(carol.key)}`);
    const w1 = await kubectl(token, "auth", "whoami");
    expect(w1.stdout).toMatch(/Username\s+dave/);
    expect(w1.stdout).toMatch(/Groups\s+\[readers system:authenticated\]/);
    const w2 = await kubectl(cert, "auth", "whoami", "-o", "json");
    expect(JSON.parse(w2.stdout)).toMatchObject({ kind: "SelfSubjectReview", status: { userInfo: { username: "carol", groups: ["ops", "dev", "system:authenticated"] } } });
    expect((await kubectl(token, "auth", "can-i", "list", "jobs")).stdout.trim()).toBe("yes");
    await expect(kubectl(token, "auth", "can-i", "create", "jobs")).rejects.toMatchObject({ stdout: "no - No policy matched.\n" });
  }, 60_000);
});

describe("security with --anonymous-auth=true", () => {
  let s: RunningServer;
  beforeAll(async () => {
    const { mkdtemp } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-anon-")));
    await writeFile(join(dir, "policy.jsonl"), policy({ group: "system:unauthenticated", nonResourcePath: "/version", readonly: true }) + "\n");
    s = await startServer({ extraArgs: ["--authorization-mode=ABAC", `--authorization-policy-file=${join(dir, "policy.jsonl")}`, "--anonymous-auth=true"] });
  }, 120_000);
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("anonymous requests are system:anonymous, authorized like anyone else; a wrong token stays 401", async () => {
    expect((await call(s, "GET", "/version", {})).status).toBe(200);
    const r = await call(s, "GET", J, {});
    expect(r.status).toBe(403);
    expect(r.json["message"]).toBe('jobs.batch is forbidden: User "system:anonymous" cannot list resource "jobs" in API group "batch" in the namespace "default": No policy matched.');
    expect((await call(s, "POST", J, {}, job("anon"))).status).toBe(403);
    expect((await call(s, "GET", "/version", { token: "wrong" })).status).toBe(401);
    expect((await call(s, "GET", J, { token: adminToken })).json["items"]).toEqual([]);
  });
});
