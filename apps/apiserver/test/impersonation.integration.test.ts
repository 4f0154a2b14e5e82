// User impersonation (`kubectl --as`) against the real skiff-apiserver process with ABAC:
// who may impersonate, what the impersonated user may do, and the 403/400 answers.
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, startServer, removeWhenDone } from "./harness.js";
import type { RunningServer } from "./harness.js";

const run = promisify(execFile);
const policy = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec });
const J = "/apis/batch/v1/namespaces/default/jobs";
const job = (name: string) => ({
  apiVersion: "batch/v1", kind: "Job", metadata: { name },
  spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
});

describe("impersonation (real process, ABAC)", () => {
  let s: RunningServer;
  let kubectl: (token: string, ...args: string[]) => Promise<{ stdout: string; stderr: string }>;

  beforeAll(async () => {
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-impersonation-")));
    await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\nalice-token,alice,10\ncarl-token,carl,11\n`);
    await writeFile(
      join(dir, "policy.jsonl"),
      [
        "# alice may impersonate any user and any group (not uids, not extras)",
        policy({ user: "alice", namespace: "*", resource: "users", apiGroup: "" }),
        policy({ user: "alice", namespace: "*", resource: "groups", apiGroup: "" }),
        "# bob may read jobs in default; everyone may ask who they are and what they may do",
        policy({ user: "bob", namespace: "default", resource: "jobs", apiGroup: "batch", readonly: true }),
        policy({ group: "devs", namespace: "default", resource: "podtemplates", apiGroup: "" }),
        policy({ group: "system:authenticated", nonResourcePath: "*", readonly: true }),
        policy({ group: "system:authenticated", resource: "selfsubjectreviews", apiGroup: "authentication.k8s.io" }),
        policy({ group: "system:authenticated", resource: "selfsubjectaccessreviews", apiGroup: "authorization.k8s.io" }),
      ].join("\n") + "\n",
    );
    s = await startServer({ extraArgs: [`--token-auth-file=${join(dir, "tokens.csv")}`, "--authorization-mode=ABAC", `--authorization-policy-file=${join(dir, "policy.jsonl")}`, "--anonymous-auth=false"] });
    expect((await call(s, "POST", J, job("seed"))).status).toBe(201);
    const ca = Buffer.from(s.ca).toString("base64");
    const cfgs = new Map<string, string>();
    kubectl = async (token, ...args) => {
      let cfg = cfgs.get(token);
      if (cfg === undefined) {
        cfg = join(s.dir, `kubeconfig-${token}`);
        await writeFile(cfg, `apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://127.0.0.1:${String(s.port)}\n    certificate-authority-data: ${ca}\nusers:\n- name: u\n  user:\n    token: ${token}\ncontexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: u\ncurrent-context: skiff\n`);
        cfgs.set(token, cfg);
      }
      return run("kubectl", ["--kubeconfig", cfg, ...args], { env: { ...process.env, HOME: s.dir } });
    };
  }, 120_000);
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("kubectl auth whoami --as --as-group answers for the impersonated user", async () => {
    const w = await kubectl("alice-token", "auth", "whoami", "--as=bob", "--as-group=devs", "-o", "json");
    expect(JSON.parse(w.stdout)).toMatchObject({ kind: "SelfSubjectReview", status: { userInfo: { username: "bob", groups: ["devs", "system:authenticated"] } } });
    const plain = await kubectl("alice-token", "auth", "whoami", "--as=bob");
    expect(plain.stdout).toMatch(/Username\s+bob/);
    expect(plain.stdout).toMatch(/Groups\s+\[system:authenticated\]/);
  }, 60_000);

  it("requests run with the impersonated user's rights: ABAC allows and denies as for bob", async () => {
    // alice herself may not list jobs; as bob she may.
    await expect(kubectl("alice-token", "get", "jobs")).rejects.toMatchObject({ stderr: expect.stringContaining('User "alice" cannot list resource "jobs"') as unknown as string });
    const ok = await kubectl("alice-token", "get", "jobs", "--as=bob", "-o", "name");
    expect(ok.stdout.trim()).toBe("job.batch/seed");
    await expect(kubectl("alice-token", "get", "jobs", "-n", "other", "--as=bob")).rejects.toMatchObject({
      stderr: expect.stringContaining('jobs.batch is forbidden: User "bob" cannot list resource "jobs" in API group "batch" in the namespace "other": No policy matched.') as unknown as string,
    });
    await expect(kubectl("alice-token", "delete", "job", "seed", "--as=bob")).rejects.toMatchObject({ stderr: expect.stringContaining('User "bob" cannot delete resource "jobs"') as unknown as string });
    // Group rights come with --as-group.
    const pt = { apiVersion: "v1", kind: "PodTemplate", metadata: { name: "by-devs" }, template: { spec: { containers: [{ name: "c", image: "busybox" }] } } };
    const created = await call(s, "POST", "/api/v1/namespaces/default/podtemplates", pt, { authorization: "Bearer alice-token", "impersonate-user": "bob", "impersonate-group": "devs" });
    expect(created.status).toBe(201);
    expect((await call(s, "GET", `${J}/seed`)).status).toBe(200);
  }, 60_000);

  it("kubectl auth can-i --as answers for the impersonated user", async () => {
    expect((await kubectl("alice-token", "auth", "can-i", "list", "jobs", "--as=bob")).stdout.trim()).toBe("yes");
    await expect(kubectl("alice-token", "auth", "can-i", "create", "jobs", "--as=bob")).rejects.toMatchObject({ stdout: "no - No policy matched.\n" });
    await expect(kubectl("alice-token", "auth", "can-i", "list", "jobs")).rejects.toMatchObject({ stdout: expect.stringMatching(/^no/) as unknown as string });
  }, 60_000);

  it("a user without impersonate rights gets 403 in 1.23's words, and nothing is written", async () => {
    // kubectl's first request (discovery) is refused; it reads discovery errors as raw bytes, so
    // it prints no message of its own: the exact Status is checked below.
    await expect(kubectl("carl-token", "get", "jobs", "--as=bob")).rejects.toMatchObject({ stderr: expect.stringContaining("Error from server (Forbidden)") as unknown as string });
    const denied = await call(s, "GET", J, undefined, { authorization: "Bearer carl-token", "impersonate-user": "bob" });
    expect(denied.status).toBe(403);
    expect(denied.json()).toMatchObject({
      kind: "Status", reason: "Forbidden", code: 403, details: { name: "bob", kind: "users" },
      message: 'users "bob" is forbidden: User "carl" cannot impersonate resource "users" in API group "" at the cluster scope: No policy matched.',
    });
    const r = await call(s, "POST", J, job("by-carl"), { authorization: "Bearer carl-token", "impersonate-user": "admin", "impersonate-group": "system:masters" });
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403, details: { name: "admin", kind: "users" } });
    // alice may impersonate users and groups, but not uids or extras.
    const uid = await call(s, "GET", J, undefined, { authorization: "Bearer alice-token", "impersonate-user": "bob", "impersonate-uid": "42" });
    expect(uid.status).toBe(403);
    expect((uid.json() as { message: string }).message).toBe('uids.authentication.k8s.io "42" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: No policy matched.');
    const extra = await call(s, "GET", J, undefined, { authorization: "Bearer alice-token", "impersonate-user": "bob", "impersonate-extra-scopes": "x" });
    expect((extra.json() as { message: string }).message).toContain('cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io"');
    expect((await call(s, "GET", "/apis/batch/v1/jobs")).json()).toMatchObject({ items: [{ metadata: { name: "seed" } }] });
  }, 60_000);

  it("groups without a user → 400 with a Status; impersonation never skips authentication", async () => {
    const r = await call(s, "POST", J, job("no-user"), { authorization: "Bearer alice-token", "impersonate-group": "system:masters" });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400, message: 'requested [Group "system:masters"] without impersonating a user' });
    const anon = await call(s, "GET", J, undefined, { authorization: "Bearer wrong", "impersonate-user": "admin" });
    expect(anon.status).toBe(401);
    expect((await call(s, "GET", `${J}/no-user`)).status).toBe(404);
  });

  it("the admin (system:masters) may impersonate anyone, and the server sees only the impersonated user", async () => {
    const r = await call(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }, {
      "impersonate-user": "system:serviceaccount:default:robot", "impersonate-uid": "u-1", "impersonate-extra-acme.com%2fteam": "blue",
    });
    expect(r.status).toBe(201);
    expect((r.json() as { status: unknown }).status).toEqual({
      userInfo: { username: "system:serviceaccount:default:robot", uid: "u-1", groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"], extra: { "acme.com/team": ["blue"] } },
    });
  });
});
