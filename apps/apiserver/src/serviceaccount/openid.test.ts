import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { keyIdOf } from "./keys.js";
import type { ServiceAccountKeys } from "./keys.js";
import { buildOpenIDMetadata } from "./openid.js";

describe("buildOpenIDMetadata (1.23's openidmetadata.go)", () => {
  it("lists every key of the key set with its algorithm, RSA and ECDSA, and the algorithms sorted in the configuration", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const keys: ServiceAccountKeys = {
      signingKey: rsa.privateKey,
      signingAlgorithm: "RS256",
      signingKeyId: keyIdOf(rsa.publicKey),
      verificationKeys: [
        { key: rsa.publicKey, kid: keyIdOf(rsa.publicKey), alg: "RS256" },
        { key: ec.publicKey, kid: keyIdOf(ec.publicKey), alg: "ES256" },
      ],
    };
    const m = buildOpenIDMetadata("https://kubernetes.default.svc", "10.0.0.1:6443", keys);
    if (!m.ok) throw new Error(m.error);
    expect(JSON.parse(m.configuration)).toMatchObject({ issuer: "https://kubernetes.default.svc", jwks_uri: "https://10.0.0.1:6443/openid/v1/jwks", id_token_signing_alg_values_supported: ["ES256", "RS256"] });
    const jwks = JSON.parse(m.jwks) as { keys: Record<string, string>[] };
    expect(jwks.keys[0]).toMatchObject({ use: "sig", kty: "RSA", kid: keyIdOf(rsa.publicKey), alg: "RS256", e: "AQAB" });
    expect(Object.keys(jwks.keys[1] ?? {})).toEqual(["use", "kty", "kid", "crv", "alg", "x", "y"]);
    expect(jwks.keys[1]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", kid: keyIdOf(ec.publicKey) });
  });
});
