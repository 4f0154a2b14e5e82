import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AuthorizationAttributes, UserInfo } from "@skiff/apiserver-core";
import { AuthConfigError, buildAuthenticator, buildAuthorizer, loadClientCA } from "./chain.js";

const attrs = (username: string, groups: string[], verb = "create"): AuthorizationAttributes => ({
  user: { username, groups }, verb, resourceRequest: true, path: "/apis/batch/v1/namespaces/default/jobs",
  apiGroup: "batch", apiVersion: "v1", namespace: "default", resource: "jobs", subresource: "", name: "",
});

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function file(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "skiff-chain-"));
  dirs.push(dir);
  const p = join(dir, "f");
  await writeFile(p, text);
  return p;
}

describe("buildAuthorizer", () => {
  it("puts system:masters first, then the modes in order", async () => {
    const policy = await file('{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"bob","namespace":"*","resource":"*","apiGroup":"*","readonly":true}}\n');
    const abac = await buildAuthorizer({ authorizationMode: ["ABAC"], authorizationPolicyFile: policy });
    expect((await abac(attrs("root", ["system:masters"]))).allowed).toBe(true);
    expect((await abac(attrs("bob", [], "list"))).allowed).toBe(true);
    expect(await abac(attrs("bob", []))).toEqual({ allowed: false, reason: "No policy matched." });
    const both = await buildAuthorizer({ authorizationMode: ["ABAC", "AlwaysAllow"], authorizationPolicyFile: policy });
    expect((await both(attrs("bob", []))).allowed).toBe(true);
  });
  it("stops on a bad policy file, naming the file and line", async () => {
    const policy = await file('# ok\n{"user":"a"}\n{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"readonly":"yes"}}\n');
    const p = buildAuthorizer({ authorizationMode: ["ABAC"], authorizationPolicyFile: policy });
    await expect(p).rejects.toThrow(AuthConfigError);
    await expect(p).rejects.toThrow(`error reading policy file ${policy}, line 3:`);
    await expect(buildAuthorizer({ authorizationMode: ["ABAC"], authorizationPolicyFile: "/nonexistent/p" })).rejects.toThrow('--authorization-policy-file: cannot read "/nonexistent/p"');
  });
});

describe("buildAuthenticator", () => {
  const tokens = new Map<string, UserInfo>([["t", { username: "alice", uid: "1", groups: ["dev"] }]]);
  it("tokens, certificates only with a client CA, anonymous only when enabled", async () => {
    const cert = { commonName: "carol", organizations: ["ops"], verified: true };
    const withCA = buildAuthenticator({ anonymousAuth: false, clientCA: true }, tokens);
    const noCA = buildAuthenticator({ anonymousAuth: true, clientCA: false }, tokens);
    expect(await withCA({ headers: { authorization: "Bearer t" } })).toEqual({ username: "alice", uid: "1", groups: ["dev", "system:authenticated"] });
    expect(await withCA({ headers: {}, clientCertificate: cert })).toEqual({ username: "carol", groups: ["ops", "system:authenticated"] });
    expect(await withCA({ headers: {} })).toBeNull();
    expect(await noCA({ headers: {}, clientCertificate: cert })).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    await expect(noCA({ headers: { authorization: "Bearer bad" } })).rejects.toThrow("invalid bearer token");
  });
});

describe("loadClientCA", () => {
  it("reads PEM, rejects other files", async () => {
    expect(await loadClientCA("")).toBeUndefined();
    const pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    expect(await loadClientCA(await file(pem))).toBe(pem);
    await expect(loadClientCA(await file("hello"))).rejects.toThrow("holds no PEM certificate");
    await expect(loadClientCA("/nonexistent/ca")).rejects.toThrow(AuthConfigError);
  });
});

describe("limit flags", () => {
  it("defaults as kube-apiserver, parses durations, rejects negatives and an ABAC mode without a policy file", async () => {
    const { parseAPIServerOptions } = await import("../options.js");
    const d = parseAPIServerOptions([]);
    expect(d.ok && [d.value.maxRequestsInflight, d.value.maxMutatingRequestsInflight, d.value.requestTimeout.ms, d.value.minRequestTimeout]).toEqual([400, 200, 60_000, 1800]);
    const r = parseAPIServerOptions(["--max-requests-inflight=2", "--max-mutating-requests-inflight=0", "--request-timeout=2m30s", "--min-request-timeout=60"]);
    expect(r.ok && [r.value.maxRequestsInflight, r.value.maxMutatingRequestsInflight, r.value.requestTimeout.ms, r.value.minRequestTimeout]).toEqual([2, 0, 150_000, 60]);
    const bad = parseAPIServerOptions(["--max-requests-inflight=-1", "--max-mutating-requests-inflight=-1", "--request-timeout=0s", "--min-request-timeout=-5", "--authorization-mode=ABAC"]);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors).toEqual(
      expect.arrayContaining([
        "--max-requests-inflight can not be negative value",
        "--max-mutating-requests-inflight can not be negative value",
        "--request-timeout must be a positive duration",
        "--min-request-timeout can not be negative value",
        "--authorization-mode ABAC's authorization policy file not passed (--authorization-policy-file)",
      ]),
    );
    expect(parseAPIServerOptions(["--authorization-mode=ABAC,AlwaysAllow", "--authorization-policy-file=p"]).ok).toBe(true);
  });

  it("priority and fairness is on by default and needs a positive total concurrency; off, both limits may be 0", async () => {
    const { parseAPIServerOptions } = await import("../options.js");
    const d = parseAPIServerOptions([]);
    expect(d.ok && d.value.enablePriorityAndFairness).toBe(true);
    const zero = parseAPIServerOptions(["--max-requests-inflight=0", "--max-mutating-requests-inflight=0"]);
    expect(!zero.ok && zero.errors).toEqual([
      "--max-requests-inflight=0 and --max-mutating-requests-inflight=0 yield a total concurrency limit that is not positive, which --enable-priority-and-fairness needs",
    ]);
    const off = parseAPIServerOptions(["--enable-priority-and-fairness=false", "--max-requests-inflight=0", "--max-mutating-requests-inflight=0"]);
    expect(off.ok && off.value.enablePriorityAndFairness).toBe(false);
  });
});
