/**
 * Service-account issuer discovery as kube-apiserver 1.23: `/.well-known/openid-configuration`
 * and `/openid/v1/jwks`, pre-rendered once, `Cache-Control: public, max-age=3600`. Served to any
 * authenticated user (1.23 grants them through the `system:service-account-issuer-discovery`
 * ClusterRole bound to `system:serviceaccounts`; Skiff has no RBAC, so authorization applies as to
 * any non-resource path). Not served when the issuer is not an https URL (1.23 skips the
 * endpoints then, logging why).
 *
 * @see pkg/serviceaccount/openidmetadata.go
 * @see pkg/routes/openidmetadata.go
 */
import type { NonResourceRoute } from "@skiff/apiserver-core";
import type { ServiceAccountKeys } from "./keys.js";

/** The path of the key set. */
export const jwksPath = "/openid/v1/jwks";
/** The path of the OpenID provider configuration. */
export const openIDConfigurationPath = "/.well-known/openid-configuration";

/** The pre-rendered bodies, or why they cannot be served. */
export type OpenIDMetadata = { ok: true; configuration: string; jwks: string } | { ok: false; error: string };

/**
 * Renders the discovery documents for `issuer` (must be an https URL without query or fragment);
 * `jwks_uri` is `https://<externalAddress>/openid/v1/jwks`. Pure.
 * @see pkg/serviceaccount/openidmetadata.go (NewOpenIDMetadata)
 */
export function buildOpenIDMetadata(issuer: string, externalAddress: string, keys: ServiceAccountKeys): OpenIDMetadata {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return { ok: false, error: `could not parse issuer URL ${issuer}` };
  }
  if (url.protocol !== "https:") return { ok: false, error: `issuer URL must use https scheme, got: ${issuer}` };
  if (url.search !== "") return { ok: false, error: `issuer URL may not include a query, got: ${issuer}` };
  if (url.hash !== "") return { ok: false, error: `issuer URL may not include a fragment, got: ${issuer}` };
  if (externalAddress === "") return { ok: false, error: "attempted to build jwks_uri from external address, but there is none" };
  if (keys.verificationKeys.length === 0) return { ok: false, error: "no keys provided for validating keyset" };
  const configuration = JSON.stringify({
    issuer,
    jwks_uri: `https://${externalAddress}${jwksPath}`,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [...new Set(keys.verificationKeys.map((k) => k.alg))].sort(),
  });
  const jwks = JSON.stringify({
    keys: keys.verificationKeys.map(({ key, kid, alg }) => {
      const jwk = key.export({ format: "jwk" });
      return jwk.kty === "EC" ? { use: "sig", kty: "EC", kid, crv: jwk.crv, alg, x: jwk.x, y: jwk.y } : { use: "sig", kty: "RSA", kid, alg, n: jwk.n, e: jwk.e };
    }),
  });
  return { ok: true, configuration, jwks };
}

/**
 * The two discovery routes (to pass in `extraRoutes`; behind authentication and authorization).
 * `metadata()` is read per request (the external address is known only once the server listens).
 */
export function openIDMetadataRoutes(metadata: () => OpenIDMetadata | undefined): NonResourceRoute[] {
  const serve = (pick: (m: Extract<OpenIDMetadata, { ok: true }>) => string, contentType: string): NonResourceRoute["handler"] => async (_req, reply) => {
    const m = metadata();
    if (!m?.ok) {
      const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404 };
      return await reply.code(404).header("content-type", "application/json").send(JSON.stringify(status));
    }
    return await reply.code(200).header("content-type", contentType).header("cache-control", "public, max-age=3600").send(pick(m));
  };
  return [
    { method: "GET", url: openIDConfigurationPath, handler: serve((m) => m.configuration, "application/json") },
    { method: "GET", url: jwksPath, handler: serve((m) => m.jwks, "application/jwk-set+json") },
  ];
}
