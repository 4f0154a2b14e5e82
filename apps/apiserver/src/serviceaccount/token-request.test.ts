import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { keyIdOf } from "./keys.js";
import { createTokenRequest, decodeTokenRequest, effectiveExpirationSeconds, validateTokenRequestSpec } from "./token-request.js";
import type { StoredObject, TokenRequestConfig } from "./token-request.js";

const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
const objects: Record<string, StoredObject> = {
  "serviceaccounts/ns/sa": { metadata: { uid: "sa-uid" } },
  "pods/ns/p": { metadata: { uid: "pod-uid" }, spec: { serviceAccountName: "sa" } },
  "pods/ns/other": { metadata: { uid: "o-uid" }, spec: { serviceAccountName: "default" } },
};
const config: TokenRequestConfig = {
  issuer: "https://issuer",
  apiAudiences: ["https://issuer"],
  maxExpirationSeconds: 7200,
  keys: { signingKey: pair.privateKey, signingAlgorithm: "RS256", signingKeyId: keyIdOf(pair.publicKey), verificationKeys: [] },
  get: (resource, ns, name) => Promise.resolve(objects[`${resource}/${ns}/${name}`]),
  now: () => new Date("2026-01-01T00:00:00Z"),
};

describe("TokenRequest expiration rules", () => {
  it("defaults expirationSeconds to 3600", () => {
    expect(decodeTokenRequest("application/json", "{}").spec).toEqual({ audiences: [], expirationSeconds: 3600 });
  });
  it("refuses less than 10 minutes and more than 2^32 seconds", () => {
    expect(validateTokenRequestSpec({ audiences: [], expirationSeconds: 600 })).toEqual([]);
    expect(validateTokenRequestSpec({ audiences: [], expirationSeconds: 599 })).toEqual([
      { type: "FieldValueInvalid", field: "spec.expirationSeconds", badValue: 599, detail: "may not specify a duration less than 10 minutes" },
    ]);
    expect(validateTokenRequestSpec({ audiences: [], expirationSeconds: 2 ** 32 + 1 })[0]?.detail).toBe("may not specify a duration larger than 2^32 seconds");
  });
  it("caps by the max expiration when one is set", () => {
    expect(effectiveExpirationSeconds(86400, 7200)).toBe(7200);
    expect(effectiveExpirationSeconds(3600, 7200)).toBe(3600);
    expect(effectiveExpirationSeconds(86400, 0)).toBe(86400);
  });
});

describe("createTokenRequest", () => {
  it("answers with the capped expiration, default audiences and the expiration timestamp", async () => {
    const out = (await createTokenRequest(config, "ns", "sa", decodeTokenRequest("application/json", '{"spec":{"expirationSeconds":86400}}'))) as {
      spec: { audiences: string[]; expirationSeconds: number };
      status: { token: string; expirationTimestamp: string };
    };
    expect(out.spec).toMatchObject({ audiences: ["https://issuer"], expirationSeconds: 7200 });
    expect(out.status.expirationTimestamp).toBe("2026-01-01T02:00:00Z");
  });
  it("refuses a pod of another service account (400) and a name mismatch (422)", async () => {
    await expect(createTokenRequest(config, "ns", "sa", decodeTokenRequest("application/json", '{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"other"}}}'))).rejects.toThrow(
      'cannot bind token for serviceaccount "sa" to pod running with different serviceaccount name.',
    );
    await expect(createTokenRequest(config, "ns", "sa", decodeTokenRequest("application/json", '{"metadata":{"name":"x"},"spec":{}}'))).rejects.toThrow(
      'TokenRequest.authentication.k8s.io "sa" is invalid: metadata.name: Invalid value: "x": must match the service account name if specified',
    );
  });
  it("decodes the protobuf kubectl sends", () => {
    // k8s\0 + Unknown{typeMeta{apiVersion,kind}, raw=TokenRequest{spec{audiences:["a"], expirationSeconds:1200, boundObjectRef{kind:"Pod",name:"p"}}}}
    const ld = (n: number, b: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
    const s = (t: string) => Buffer.from(t);
    const spec = Buffer.concat([ld(1, s("a")), ld(3, Buffer.concat([ld(1, s("Pod")), ld(3, s("p"))])), Buffer.from([4 << 3, 0xb0, 0x09])]);
    const raw = ld(2, spec);
    const typeMeta = Buffer.concat([ld(1, s("authentication.k8s.io/v1")), ld(2, s("TokenRequest"))]);
    const body = Buffer.concat([s("k8s\0"), ld(1, typeMeta), ld(2, raw)]);
    expect(decodeTokenRequest("application/vnd.kubernetes.protobuf", body).spec).toEqual({ audiences: ["a"], expirationSeconds: 1200, boundObjectRef: { kind: "Pod", name: "p" } });
  });
});
