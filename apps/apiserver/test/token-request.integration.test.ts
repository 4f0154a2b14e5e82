// TokenRequest (`serviceaccounts/token`), the service-account token authenticator and issuer
// discovery against the real apiserver process, and `kubectl create token` (kubectl 1.32).
import { generateKeyPairSync, createPrivateKey, createPublicKey } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompactSign, compactVerify, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, removeWhenDone, startServer, writeKubeconfig } from "./harness.js";
import type { RunningServer } from "./harness.js";
import { Kubectl, kubectlBuilds } from "./kubectl-helpers.js";

let s: RunningServer;
const issuer = "https://kubernetes.default.svc.cluster.local";

beforeAll(async () => {
  s = await startServer();
}, 60_000);
afterAll(async () => {
  await s.stop();
});

const tokenPath = (ns: string, sa: string) => `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`;
const asBearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function waitForDefaultServiceAccount(ns: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await call(s, "GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no default service account in ${ns}`);
}

async function requestToken(body: unknown, ns = "default", sa = "default"): Promise<{ token: string; expirationTimestamp: string; spec: Record<string, unknown> }> {
  const r = await call(s, "POST", tokenPath(ns, sa), body);
  expect(r.status, r.body).toBe(201);
  const out = r.json() as { status: { token: string; expirationTimestamp: string }; spec: Record<string, unknown> };
  return { ...out.status, spec: out.spec };
}

function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}

/** The status of a GET with `token`, polled until it is 401 or `ms` pass (the token cache holds successes 10 s). */
async function statusWithin(ms: number, token: string): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = (await call(s, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(token))).status;
    if (status === 401 || Date.now() > deadline) return status;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("TokenRequest", () => {
  it("issues a token with 1.23's claims and default expiration, audiences from --api-audiences", async () => {
    await waitForDefaultServiceAccount("default");
    const sa = (await call(s, "GET", "/api/v1/namespaces/default/serviceaccounts/default")).json() as { metadata: { uid: string } };
    const before = Math.floor(Date.now() / 1000);
    const r = await call(s, "POST", tokenPath("default", "default"), { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} });
    expect(r.status, r.body).toBe(201);
    const out = r.json() as { kind: string; apiVersion: string; metadata: { name: string; namespace: string }; spec: { audiences: string[]; expirationSeconds: number }; status: { token: string; expirationTimestamp: string } };
    expect(out).toMatchObject({ kind: "TokenRequest", apiVersion: "authentication.k8s.io/v1", metadata: { name: "default", namespace: "default" }, spec: { audiences: [issuer], expirationSeconds: 3600 } });
    const claims = payloadOf(out.status.token);
    expect(claims).toMatchObject({ iss: issuer, sub: "system:serviceaccount:default:default", aud: [issuer], "kubernetes.io": { namespace: "default", serviceaccount: { name: "default", uid: sa.metadata.uid } } });
    expect(claims["kubernetes.io"]).not.toHaveProperty("pod");
    expect(claims["exp"]).toBe((claims["iat"] as number) + 3600);
    expect(claims["nbf"]).toBe(claims["iat"]);
    expect(claims["iat"] as number).toBeGreaterThanOrEqual(before);
    expect(Date.parse(out.status.expirationTimestamp) / 1000).toBe(claims["exp"]);
  });

  it("binds a token to a pod (claims carry the pod) and authenticates with the pod extras", async () => {
    const pod = await call(s, "POST", "/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "bound" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    expect(pod.status, pod.body).toBe(201);
    const uid = (pod.json() as { metadata: { uid: string } }).metadata.uid;
    const { token } = await requestToken({ spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "bound", uid } } });
    expect(payloadOf(token)["kubernetes.io"]).toMatchObject({ pod: { name: "bound", uid } });
    const review = await call(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } });
    expect(review.status, review.body).toBe(201);
    expect((review.json() as { status: unknown }).status).toMatchObject({
      authenticated: true,
      user: {
        username: "system:serviceaccount:default:default",
        groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
        extra: { "authentication.kubernetes.io/pod-name": ["bound"], "authentication.kubernetes.io/pod-uid": [uid] },
      },
    });
    expect((await call(s, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(token))).status).toBe(200);
    // The pod is gone: the token no longer authenticates.
    const del = await call(s, "DELETE", "/api/v1/namespaces/default/pods/bound?gracePeriodSeconds=0", {});
    expect(del.status, del.body).toBe(200);
    for (let i = 0; i < 50 && (await call(s, "GET", "/api/v1/namespaces/default/pods/bound")).status !== 404; i++) await new Promise((r) => setTimeout(r, 100));
    // 1.23's token cache trusts a success for 10 s: the token stops working within that.
    expect(await statusWithin(15_000, token)).toBe(401);
  });

  it("refuses bad requests with 1.23's errors", async () => {
    const short = await call(s, "POST", tokenPath("default", "default"), { spec: { expirationSeconds: 599 } });
    expect(short.status).toBe(422);
    expect((short.json() as { message: string }).message).toBe('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
    const long = await call(s, "POST", tokenPath("default", "default"), { spec: { expirationSeconds: 2 ** 32 + 1 } });
    expect(long.status).toBe(422);
    expect((long.json() as { message: string }).message).toContain("may not specify a duration larger than 2^32 seconds");
    expect((await call(s, "POST", tokenPath("default", "nobody"), { spec: {} })).json()).toMatchObject({ code: 404, message: 'serviceaccounts "nobody" not found' });
    expect((await call(s, "POST", tokenPath("default", "default"), { spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "ghost" } } })).json()).toMatchObject({ code: 404, message: 'pods "ghost" not found' });
    expect((await call(s, "POST", tokenPath("default", "default"), { spec: { boundObjectRef: { kind: "Node", apiVersion: "v1", name: "n" } } })).json()).toMatchObject({
      code: 400,
      message: "cannot bind token to object of type /v1, Kind=Node",
    });
    const pod = await call(s, "POST", "/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "uidcheck" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    expect(pod.status, pod.body).toBe(201);
    expect((await call(s, "POST", tokenPath("default", "default"), { spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "uidcheck", uid: "other" } } })).json()).toMatchObject({
      code: 409,
      message: 'Operation cannot be fulfilled on Pod "uidcheck": the UID in the bound object reference (other) does not match the UID in record. The object might have been deleted and then recreated',
    });
    expect((await call(s, "GET", tokenPath("default", "default"))).status).toBe(405);
  });

  it("401s tokens for another audience, expired, wrongly signed or of a deleted service account", async () => {
    const { token: foreignAud } = await requestToken({ spec: { audiences: ["vault"] } });
    expect((await call(s, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(foreignAud))).status).toBe(401);

    const signingKey = createPrivateKey(await readFile(join(s.dir, "pki", "sa.key"), "utf8"));
    const { token: good } = await requestToken({ spec: {} });
    const claims = payloadOf(good);
    const sign = async (payload: Record<string, unknown>, key = signingKey) =>
      await new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: "RS256" }).sign(key);
    const now = Math.floor(Date.now() / 1000);
    const expired = await sign({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 120 });
    expect((await call(s, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(expired))).status).toBe(401);
    // Within the 1 minute leeway it still authenticates.
    const justExpired = await sign({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 10 });
    expect((await call(s, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(justExpired))).status).toBe(200);
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const forged = await sign(claims, otherKey);
    expect((await call(s, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(forged))).status).toBe(401);

    expect((await call(s, "POST", "/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "short-lived" } })).status).toBe(201);
    const { token: saToken } = await requestToken({ spec: {} }, "default", "short-lived");
    expect((await call(s, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(saToken))).status).toBe(200);
    expect((await call(s, "DELETE", "/api/v1/namespaces/default/serviceaccounts/short-lived", {})).status).toBe(200);
    expect(await statusWithin(15_000, saToken)).toBe(401);
    // The token is never logged in full.
    expect(s.stderr()).not.toContain(saToken);
  });

  it("serves issuer discovery whose JWKS verifies the tokens", async () => {
    const conf = await call(s, "GET", "/.well-known/openid-configuration");
    expect(conf.status, conf.body).toBe(200);
    expect(conf.headers["cache-control"]).toBe("public, max-age=3600");
    expect(conf.json()).toEqual({
      issuer,
      jwks_uri: `https://127.0.0.1:${String(s.port)}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
    const jwks = await call(s, "GET", "/openid/v1/jwks");
    expect(jwks.headers["content-type"]).toContain("application/jwk-set+json");
    const keys = (jwks.json() as { keys: Array<Record<string, string>> }).keys;
    expect(keys).toHaveLength(1);
    const { token } = await requestToken({ spec: {} });
    const header = JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8")) as { alg: string; kid: string };
    expect(header).toEqual({ alg: "RS256", kid: keys[0]?.["kid"] });
    expect(keys[0]).toMatchObject({ use: "sig", kty: "RSA", alg: "RS256" });
    const verified = await compactVerify(token, await importJWK(keys[0] ?? {}, "RS256"));
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toMatchObject({ iss: issuer });
    // sa.pub is the public half of the generated sa.key.
    expect(createPublicKey(await readFile(join(s.dir, "pki", "sa.pub"), "utf8")).export({ format: "jwk" }).n).toBe(keys[0]?.["n"]);
    // Not served without authentication.
    expect((await call(s, "GET", "/openid/v1/jwks", undefined, { authorization: "Bearer nope" })).status).toBe(401);
  });

  it("signs with an ECDSA --service-account-signing-key-file (ES256): the token authenticates and the JWKS serves the EC key", async () => {
    const dir = removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-sa-ec-")));
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    await writeFile(join(dir, "sa-ec.key"), ec.privateKey.export({ type: "sec1", format: "pem" }));
    const e = await startServer({ extraArgs: [`--service-account-signing-key-file=${join(dir, "sa-ec.key")}`] });
    try {
      for (let i = 0; i < 100 && (await call(e, "GET", "/api/v1/namespaces/default/serviceaccounts/default")).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
      const r = await call(e, "POST", tokenPath("default", "default"), { spec: {} });
      expect(r.status, r.body).toBe(201);
      const token = (r.json() as { status: { token: string } }).status.token;
      expect(JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8"))).toMatchObject({ alg: "ES256" });
      expect((await call(e, "GET", "/api/v1/namespaces/default/pods", undefined, asBearer(token))).status).toBe(200);
      const jwks = (await call(e, "GET", "/openid/v1/jwks")).json() as { keys: { kty: string; crv: string; alg: string }[] };
      expect(jwks.keys).toEqual([expect.objectContaining({ kty: "EC", crv: "P-256", alg: "ES256" })]);
      await compactVerify(token, await importJWK(jwks.keys[0] as unknown as Parameters<typeof importJWK>[0], "ES256"));
    } finally {
      await e.stop();
    }
  });

  it("lists serviceaccounts/token in discovery with verb create", async () => {
    const list = (await call(s, "GET", "/api/v1")).json() as { resources: Array<{ name: string; verbs: string[]; kind: string; group?: string; version?: string }> };
    expect(list.resources.find((r) => r.name === "serviceaccounts/token")).toMatchObject({ verbs: ["create"], kind: "TokenRequest", group: "authentication.k8s.io", version: "v1" });
  });

  const kubectl = kubectlBuilds[0]?.path;
  it.skipIf(kubectl === undefined)("kubectl create token (skipped when kubectl 1.32 is not installed): its token authenticates kubectl", async () => {
    const k = new Kubectl(kubectl ?? "", await writeKubeconfig(s), removeWhenDone(await mkdtemp(join(tmpdir(), "skiff-kubectl-token-"))));
    const created = k.run("create", "token", "default", "--duration=20m", "--audience", issuer);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(payloadOf(token)).toMatchObject({ sub: "system:serviceaccount:default:default" });
    expect((payloadOf(token)["exp"] as number) - (payloadOf(token)["iat"] as number)).toBe(1200);
    const got = k.run(`--token=${token}`, "get", "pods");
    expect(got.code, got.stderr).toBe(0);
    const bad = k.run("create", "token", "default", "--duration=5m");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("may not specify a duration less than 10 minutes");
  });
});

describe("TokenReview audiences (1.23)", () => {
  const review = async (token: string, audiences?: string[]) => {
    const r = await call(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token, ...(audiences ? { audiences } : {}) } });
    expect(r.status, r.body).toBe(201);
    return (r.json() as { status: { authenticated?: boolean; audiences?: string[]; error?: string; user?: { username?: string } } }).status;
  };

  it("checks a token against spec.audiences, else --api-audiences, and answers the audiences it holds for", async () => {
    await waitForDefaultServiceAccount("default");
    const apiToken = (await requestToken({ spec: {} })).token;
    expect(await review(apiToken)).toMatchObject({ authenticated: true, audiences: [issuer], user: { username: "system:serviceaccount:default:default" } });
    const vault = (await requestToken({ spec: { audiences: ["vault", "db"] } })).token;
    // Asked for nothing: the API's audiences, which a vault token is not for.
    const forApi = await review(vault);
    expect(forApi.authenticated).toBe(false);
    expect(forApi.error).toBe('invalid bearer token, token audiences ["vault" "db"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]');
    expect(await review(vault, ["vault", "elsewhere"])).toMatchObject({ authenticated: true, audiences: ["vault"] });
    expect(await review(apiToken, ["vault"])).toMatchObject({ authenticated: false });
  });

  it("static tokens carry no audiences: they hold for the API's only", async () => {
    expect(await review("admin-token")).toMatchObject({ authenticated: true, audiences: [issuer], user: { username: "admin" } });
    expect(await review("admin-token", [issuer, "vault"])).toMatchObject({ authenticated: true, audiences: [issuer] });
    expect(await review("admin-token", ["vault"])).toMatchObject({ authenticated: false, error: "invalid bearer token" });
  });
});
