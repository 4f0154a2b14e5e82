/**
 * The apiserver's cache of successful token authentications, as kube-apiserver 1.23 wraps its
 * token union (`--token-auth-file`, service-account tokens): a token that authenticated is
 * trusted again for 10 s without re-verifying it (a service-account JWT costs an RSA signature
 * check and a lookup of its service account and bound pod). Failures are not cached (TTL 0), so a
 * bad token is refused at once; a good token outlives its service account or pod by up to 10 s,
 * as on Kubernetes. Tokens are keyed by an HMAC with a per-process key, never stored in clear.
 *
 * @see staging/src/k8s.io/apiserver/pkg/authentication/token/cache/cached_token_authenticator.go
 * @see pkg/kubeapiserver/options/authentication.go (TokenSuccessCacheTTL 10s, TokenFailureCacheTTL 0) in kubernetes/kubernetes v1.23
 */
import { createHmac, randomBytes } from "node:crypto";
import type { AuthenticatedUser } from "@skiff/apiserver-core";

/** A token lookup: the user, `undefined` for an unknown token, or a throw for an invalid one. */
export type TokenLookup = (token: string, audiences: readonly string[] | undefined) => Promise<AuthenticatedUser | undefined>;

/** Options of {@link cachedTokenLookup}. */
export interface TokenCacheOptions {
  /** How long a success is trusted, in ms. @defaultValue 10_000 */
  readonly successTtlMs?: number;
  /** Entries kept at most (the oldest go first). @defaultValue 4096 */
  readonly maxEntries?: number;
  /** Clock in ms. @defaultValue Date.now */
  readonly now?: () => number;
}

/**
 * `lookup` with its successes cached per token and requested audiences for `successTtlMs`.
 * Unknown and invalid tokens go to `lookup` every time.
 */
export function cachedTokenLookup(lookup: TokenLookup, o: TokenCacheOptions = {}): TokenLookup {
  const ttlMs = o.successTtlMs ?? 10_000;
  const max = o.maxEntries ?? 4096;
  const now = o.now ?? Date.now;
  const hmacKey = randomBytes(32);
  const cache = new Map<string, { user: AuthenticatedUser; expiresMs: number }>();
  return async (token, audiences) => {
    if (ttlMs <= 0) return lookup(token, audiences);
    const key = `${createHmac("sha256", hmacKey).update(token).digest("base64")}\x00${audiences === undefined ? "-" : audiences.join("\x00")}`;
    const hit = cache.get(key);
    const t = now();
    if (hit !== undefined) {
      if (hit.expiresMs > t) return hit.user;
      cache.delete(key);
    }
    const user = await lookup(token, audiences);
    if (user !== undefined) {
      cache.set(key, { user, expiresMs: t + ttlMs });
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
    }
    return user;
  };
}
