/**
 * Service-account JWTs as kube-apiserver 1.23 issues and authenticates them: the claims
 * (`iss`, `sub` = `system:serviceaccount:<ns>:<name>`, `aud`, `exp`, `iat`, `nbf`, `kubernetes.io`),
 * RS256 signing with the key ID in the header, and the token authenticator (issuer, signature,
 * audiences, time with a 1 minute leeway, the service account and bound pod/secret still there
 * with the same uid).
 *
 * @see pkg/serviceaccount/claims.go
 * @see pkg/serviceaccount/jwt.go
 * @see staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go
 */
import { CompactSign, compactVerify } from "jose";
import type { UserInfo } from "@skiff/apiserver-core";
import type { ServiceAccountKeys } from "./keys.js";

/** go-jose's `jwt.DefaultLeeway`: 1 minute, in seconds. */
export const claimsLeewaySeconds = 60;

/** `authentication.kubernetes.io/pod-name`: the extra key naming the pod a token is bound to. */
export const podNameExtraKey = "authentication.kubernetes.io/pod-name";
/** `authentication.kubernetes.io/pod-uid`: the extra key of the bound pod's uid. */
export const podUIDExtraKey = "authentication.kubernetes.io/pod-uid";

/** A name and uid, as in the `kubernetes.io` claim. */
export interface ClaimRef {
  readonly name: string;
  readonly uid: string;
}

/** The payload of a service-account token (JSON field names as on the wire). */
export interface ServiceAccountClaims {
  readonly aud: readonly string[];
  /** Seconds since the epoch. */
  readonly exp: number;
  readonly iat: number;
  readonly iss: string;
  readonly "kubernetes.io": {
    readonly namespace: string;
    readonly pod?: ClaimRef;
    readonly secret?: ClaimRef;
    readonly serviceaccount: ClaimRef;
  };
  readonly nbf: number;
  readonly sub: string;
}

/** `system:serviceaccount:<namespace>:<name>`. @see staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go (MakeUsername) */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * The claims of a token for `sa`, optionally bound to `pod` or `secret`, valid `expirationSeconds`
 * from `now` (`iat` = `nbf` = now). Pure.
 * @see pkg/serviceaccount/claims.go (Claims)
 */
export function serviceAccountClaims(o: {
  issuer: string;
  serviceAccount: { namespace: string; name: string; uid: string };
  pod?: ClaimRef;
  secret?: ClaimRef;
  expirationSeconds: number;
  audiences: readonly string[];
  now: Date;
}): ServiceAccountClaims {
  const now = Math.floor(o.now.getTime() / 1000);
  const sa = o.serviceAccount;
  return {
    aud: [...o.audiences],
    exp: now + o.expirationSeconds,
    iat: now,
    iss: o.issuer,
    "kubernetes.io": {
      namespace: sa.namespace,
      ...(o.pod ? { pod: { name: o.pod.name, uid: o.pod.uid } } : {}),
      ...(o.secret ? { secret: { name: o.secret.name, uid: o.secret.uid } } : {}),
      serviceaccount: { name: sa.name, uid: sa.uid },
    },
    nbf: now,
    sub: serviceAccountUsername(sa.namespace, sa.name),
  };
}

/**
 * Signs `claims` with the signing key (RS256, or ES256/ES384/ES512 for an ECDSA key); header
 * `{"alg":<algorithm>,"kid":<key ID>}`.
 * @returns the compact JWS.
 * @see pkg/serviceaccount/jwt.go (GenerateToken)
 */
export async function signServiceAccountToken(keys: ServiceAccountKeys, claims: ServiceAccountClaims): Promise<string> {
  return await new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: keys.signingAlgorithm, kid: keys.signingKeyId }).sign(keys.signingKey);
}

/** A token that is ours but not valid. `reason`: `InvalidBearerToken` (the chain answers 401). */
export class ServiceAccountTokenError extends Error {
  readonly reason = "InvalidBearerToken";
  constructor(message: string) {
    super(message);
    this.name = "ServiceAccountTokenError";
  }
}

/** The object facts the validator looks up (`undefined`: not found). */
export interface ServiceAccountTokenGetter {
  serviceAccount(namespace: string, name: string): Promise<ObjectFacts | undefined>;
  pod(namespace: string, name: string): Promise<ObjectFacts | undefined>;
  secret(namespace: string, name: string): Promise<ObjectFacts | undefined>;
}

/** The uid and deletion timestamp (RFC 3339) of an object. */
export interface ObjectFacts {
  readonly uid: string;
  readonly deletionTimestamp?: string;
}

/** The issuer of a compact JWT's payload, without verifying anything; `undefined` when not a JWT. */
export function unverifiedIssuer(token: string): string | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1] ?? "", "base64url").toString("utf8")) as unknown;
    const iss = (payload as { iss?: unknown } | null)?.iss;
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Authenticates a bearer token as a service account, as 1.23's `jwtTokenAuthenticator` with the
 * bound-token validator: `undefined` (no opinion) when the token is not a JWT of one of `issuers`;
 * otherwise the user `system:serviceaccount:<ns>:<name>` (uid, groups `system:serviceaccounts`,
 * `system:serviceaccounts:<ns>`, and for pod-bound tokens the pod name/uid extras).
 * `audiences`: those of the token's audiences that are requested (`requestedAudiences`, as a
 * TokenReview's, else `apiAudiences`).
 * @throws {@link ServiceAccountTokenError} for a bad signature, audiences disjoint from the
 *   requested ones (when `apiAudiences` is not empty), an expired or not-yet-valid token, or a service account / pod / secret that is
 *   gone, being deleted (for over the leeway) or has another uid. Messages never contain the token.
 * @see pkg/serviceaccount/jwt.go (AuthenticateToken), pkg/serviceaccount/claims.go (Validate)
 */
export async function authenticateServiceAccountToken(
  token: string,
  o: { issuers: readonly string[]; apiAudiences: readonly string[]; requestedAudiences?: readonly string[] | undefined; keys: ServiceAccountKeys; getter: ServiceAccountTokenGetter; now: Date },
): Promise<(UserInfo & { audiences: string[] }) | undefined> {
  const iss = unverifiedIssuer(token);
  if (iss === undefined || !o.issuers.includes(iss)) return undefined;
  let payloadBytes: Uint8Array | undefined;
  const errs: string[] = [];
  for (const { key, alg } of o.keys.verificationKeys) {
    try {
      payloadBytes = (await compactVerify(token, key, { algorithms: [alg] })).payload;
      break;
    } catch (e) {
      errs.push((e as Error).message);
    }
  }
  if (payloadBytes === undefined) throw new ServiceAccountTokenError(errs.length === 1 ? (errs[0] ?? "") : `[${errs.join(", ")}]`);
  let claims: Partial<ServiceAccountClaims>;
  try {
    claims = JSON.parse(Buffer.from(payloadBytes).toString("utf8")) as Partial<ServiceAccountClaims>;
  } catch {
    throw new ServiceAccountTokenError("token could not be validated");
  }
  const tokenAudiences = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === "string") : [];
  // A token without audiences (legacy) is for the API; the target audiences are the requested
  // ones (TokenReview) or the API's.
  const audiences = tokenAudiences.length > 0 ? tokenAudiences : [...o.apiAudiences];
  const requested = o.requestedAudiences ?? o.apiAudiences;
  const valid = audiences.filter((a) => requested.includes(a));
  if (valid.length === 0 && o.apiAudiences.length > 0) {
    throw new ServiceAccountTokenError(`token audiences ${goQuoted(audiences)} is invalid for the target audiences ${goQuoted(requested)}`);
  }
  const nowSeconds = o.now.getTime() / 1000;
  const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const exp = num(claims.exp);
  const nbf = num(claims.nbf);
  const iat = num(claims.iat);
  if (nbf !== undefined && nowSeconds + claimsLeewaySeconds < nbf) throw new ServiceAccountTokenError("token could not be validated");
  if (exp !== undefined && nowSeconds - claimsLeewaySeconds > exp) throw new ServiceAccountTokenError("token has expired");
  if (iat !== undefined && nowSeconds + claimsLeewaySeconds < iat) throw new ServiceAccountTokenError("token could not be validated");
  const k8s = claims["kubernetes.io"];
  const namespace = typeof k8s?.namespace === "string" ? k8s.namespace : "";
  const saRef = k8s?.serviceaccount;
  if (namespace === "" || typeof saRef?.name !== "string" || typeof saRef.uid !== "string") throw new ServiceAccountTokenError("token could not be validated");
  const deletedLongAgo = (f: ObjectFacts) => f.deletionTimestamp !== undefined && Date.parse(f.deletionTimestamp) < o.now.getTime() - claimsLeewaySeconds * 1000;
  const sa = await o.getter.serviceAccount(namespace, saRef.name);
  if (!sa) throw new ServiceAccountTokenError(`serviceaccounts "${saRef.name}" not found`);
  if (deletedLongAgo(sa)) throw new ServiceAccountTokenError(`service account ${namespace}/${saRef.name} has been deleted`);
  if (sa.uid !== saRef.uid) throw new ServiceAccountTokenError(`service account UID (${sa.uid}) does not match claim (${saRef.uid})`);
  if (k8s?.secret) {
    const secret = await o.getter.secret(namespace, k8s.secret.name);
    if (!secret) throw new ServiceAccountTokenError(`secrets "${k8s.secret.name}" not found`);
    if (deletedLongAgo(secret)) throw new ServiceAccountTokenError(`secret ${namespace}/${k8s.secret.name} has been deleted`);
    if (secret.uid !== k8s.secret.uid) throw new ServiceAccountTokenError(`secret UID (${secret.uid}) does not match service account secret ref claim (${k8s.secret.uid})`);
  }
  let podExtra: Record<string, string[]> | undefined;
  if (k8s?.pod) {
    const pod = await o.getter.pod(namespace, k8s.pod.name);
    if (!pod) throw new ServiceAccountTokenError(`pods "${k8s.pod.name}" not found`);
    if (deletedLongAgo(pod)) throw new ServiceAccountTokenError(`pod ${namespace}/${k8s.pod.name} has been deleted`);
    if (pod.uid !== k8s.pod.uid) throw new ServiceAccountTokenError(`pod UID (${pod.uid}) does not match claim (${k8s.pod.uid})`);
    podExtra = { [podNameExtraKey]: [k8s.pod.name], [podUIDExtraKey]: [k8s.pod.uid] };
  }
  return {
    username: serviceAccountUsername(namespace, saRef.name),
    uid: saRef.uid,
    audiences: valid,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
    ...(podExtra ? { extra: podExtra } : {}),
  };
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
function goQuoted(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(" ")}]`;
}
