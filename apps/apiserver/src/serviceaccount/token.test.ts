import { generateKeyPairSync } from "node:crypto";
import { CompactSign } from "jose";
import { describe, expect, it } from "vitest";
import { keyIdOf } from "./keys.js";
import type { ServiceAccountKeys } from "./keys.js";
import { authenticateServiceAccountToken, serviceAccountClaims, signServiceAccountToken, unverifiedIssuer } from "./token.js";
import type { ObjectFacts, ServiceAccountTokenGetter } from "./token.js";

const issuer = "https://kubernetes.default.svc.cluster.local";
const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
const keys: ServiceAccountKeys = { signingKey: pair.privateKey, signingAlgorithm: "RS256", signingKeyId: keyIdOf(pair.publicKey), verificationKeys: [{ key: pair.publicKey, kid: keyIdOf(pair.publicKey), alg: "RS256" }] };
const now = new Date("2026-01-01T00:00:00Z");
const t0 = now.getTime() / 1000;

function getter(objs: { sa?: ObjectFacts; pod?: ObjectFacts; secret?: ObjectFacts }): ServiceAccountTokenGetter {
  return { serviceAccount: () => Promise.resolve(objs.sa), pod: () => Promise.resolve(objs.pod), secret: () => Promise.resolve(objs.secret) };
}
const sa = { namespace: "ns", name: "builder", uid: "sa-uid" };
const auth = (token: string, objs: Parameters<typeof getter>[0], at = now, apiAudiences = [issuer]) =>
  authenticateServiceAccountToken(token, { issuers: [issuer], apiAudiences, keys, getter: getter(objs), now: at });

describe("serviceAccountClaims", () => {
  it("builds 1.23's claims: iat = nbf = now, exp = now + expirationSeconds, sub, kubernetes.io", () => {
    const c = serviceAccountClaims({ issuer, serviceAccount: sa, pod: { name: "p", uid: "pod-uid" }, expirationSeconds: 3600, audiences: ["a", "b"], now });
    expect(c).toEqual({
      aud: ["a", "b"],
      exp: t0 + 3600,
      iat: t0,
      iss: issuer,
      "kubernetes.io": { namespace: "ns", pod: { name: "p", uid: "pod-uid" }, serviceaccount: { name: "builder", uid: "sa-uid" } },
      nbf: t0,
      sub: "system:serviceaccount:ns:builder",
    });
  });
});

describe("keyIdOf", () => {
  it("is the unpadded base64url SHA-256 of the DER SubjectPublicKeyInfo (43 characters)", async () => {
    const { createHash } = await import("node:crypto");
    const expected = createHash("sha256").update(pair.publicKey.export({ type: "spki", format: "der" })).digest("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(keyIdOf(pair.publicKey)).toBe(expected);
    expect(keyIdOf(pair.publicKey)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe("authenticateServiceAccountToken", () => {
  const claims = (over: Partial<ReturnType<typeof serviceAccountClaims>> = {}, pod = true) => ({
    ...serviceAccountClaims({ issuer, serviceAccount: sa, ...(pod ? { pod: { name: "p", uid: "pod-uid" } } : {}), expirationSeconds: 3600, audiences: [issuer], now }),
    ...over,
  });

  it("returns the service account user with groups and the pod extras; the header carries the kid", async () => {
    const token = await signServiceAccountToken(keys, claims());
    expect(JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString())).toEqual({ alg: "RS256", kid: keys.signingKeyId });
    expect(await auth(token, { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid" } })).toEqual({
      username: "system:serviceaccount:ns:builder",
      uid: "sa-uid",
      audiences: [issuer],
      groups: ["system:serviceaccounts", "system:serviceaccounts:ns"],
      extra: { "authentication.kubernetes.io/pod-name": ["p"], "authentication.kubernetes.io/pod-uid": ["pod-uid"] },
    });
  });

  it("signs with an ECDSA key as ES256 and verifies it; an RS256 key does not verify it", async () => {
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const ecKeys: ServiceAccountKeys = { signingKey: ec.privateKey, signingAlgorithm: "ES256", signingKeyId: keyIdOf(ec.publicKey), verificationKeys: [...keys.verificationKeys, { key: ec.publicKey, kid: keyIdOf(ec.publicKey), alg: "ES256" }] };
    const token = await signServiceAccountToken(ecKeys, claims());
    expect(JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString())).toEqual({ alg: "ES256", kid: ecKeys.signingKeyId });
    const objs = getter({ sa: { uid: "sa-uid" }, pod: { uid: "pod-uid" } });
    expect(await authenticateServiceAccountToken(token, { issuers: [issuer], apiAudiences: [issuer], keys: ecKeys, getter: objs, now })).toMatchObject({ username: "system:serviceaccount:ns:builder" });
    await expect(authenticateServiceAccountToken(token, { issuers: [issuer], apiAudiences: [issuer], keys, getter: objs, now })).rejects.toThrow();
  });

  it("checks the token against requested audiences (a TokenReview's) instead of the API's, and answers those it holds for", async () => {
    const token = await signServiceAccountToken(keys, claims({ aud: ["vault", "db"] }));
    const objs = { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid" } };
    await expect(auth(token, objs)).rejects.toThrow(`token audiences ["vault" "db"] is invalid for the target audiences ["${issuer}"]`);
    const at = (requestedAudiences: string[]) => authenticateServiceAccountToken(token, { issuers: [issuer], apiAudiences: [issuer], requestedAudiences, keys, getter: getter(objs), now });
    expect((await at(["db", "other"]))?.audiences).toEqual(["db"]);
    await expect(at(["other"])).rejects.toThrow('token audiences ["vault" "db"] is invalid for the target audiences ["other"]');
  });

  it("has no opinion on tokens that are not JWTs of our issuer", async () => {
    expect(await auth("static-token", {})).toBeUndefined();
    expect(await auth(await signServiceAccountToken(keys, claims({ iss: "https://elsewhere" })), {})).toBeUndefined();
    expect(unverifiedIssuer("a.b")).toBeUndefined();
  });

  it("rejects a wrong signature", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const forged = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims()))).setProtectedHeader({ alg: "RS256" }).sign(other);
    await expect(auth(forged, { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid" } })).rejects.toThrow(/signature verification failed/);
  });

  it("rejects audiences disjoint from the API audiences with 1.23's message; no aud means the API audiences", async () => {
    const token = await signServiceAccountToken(keys, claims({ aud: ["vault"] }));
    await expect(auth(token, { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid" } })).rejects.toThrow(`token audiences ["vault"] is invalid for the target audiences ["${issuer}"]`);
    const legacy = await signServiceAccountToken(keys, claims({ aud: [] }));
    expect(await auth(legacy, { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid" } })).toBeDefined();
  });

  it("applies a 1 minute leeway to exp and nbf", async () => {
    const token = await signServiceAccountToken(keys, claims());
    const objs = { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid" } };
    expect(await auth(token, objs, new Date((t0 + 3600 + 59) * 1000))).toBeDefined();
    await expect(auth(token, objs, new Date((t0 + 3600 + 61) * 1000))).rejects.toThrow("token has expired");
    expect(await auth(token, objs, new Date((t0 - 59) * 1000))).toBeDefined();
    await expect(auth(token, objs, new Date((t0 - 61) * 1000))).rejects.toThrow("token could not be validated");
  });

  it("rejects a missing or replaced service account and a missing, replaced or deleted pod", async () => {
    const token = await signServiceAccountToken(keys, claims());
    await expect(auth(token, { pod: { uid: "pod-uid" } })).rejects.toThrow('serviceaccounts "builder" not found');
    await expect(auth(token, { sa: { uid: "other" }, pod: { uid: "pod-uid" } })).rejects.toThrow("service account UID (other) does not match claim (sa-uid)");
    await expect(auth(token, { sa: { uid: "sa-uid" } })).rejects.toThrow('pods "p" not found');
    await expect(auth(token, { sa: { uid: "sa-uid" }, pod: { uid: "new" } })).rejects.toThrow("pod UID (new) does not match claim (pod-uid)");
    const longAgo = new Date(now.getTime() - 61_000).toISOString();
    await expect(auth(token, { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid", deletionTimestamp: longAgo } })).rejects.toThrow("pod ns/p has been deleted");
    // Deleted within the leeway (graceful deletion just started): still valid.
    expect(await auth(token, { sa: { uid: "sa-uid" }, pod: { uid: "pod-uid", deletionTimestamp: now.toISOString() } })).toBeDefined();
    await expect(auth(token, { sa: { uid: "sa-uid", deletionTimestamp: longAgo }, pod: { uid: "pod-uid" } })).rejects.toThrow("service account ns/builder has been deleted");
  });

  it("never puts the token in an error message", async () => {
    const token = await signServiceAccountToken(keys, claims({ aud: ["vault"] }));
    await expect(auth(token, {})).rejects.not.toThrow(token);
  });
});
