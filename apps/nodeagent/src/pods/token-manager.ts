/**
 * The node agent's service-account token manager, as the kubelet's: tokens requested through
 * TokenRequest (`serviceaccounts/<name>/token`) are cached per service account and request, and
 * requested anew once 80 % of their lifetime has passed (or 24 hours, whichever is first, less a
 * jitter of up to 10 s). A failed refresh keeps serving the cached token until it expires.
 *
 * @see pkg/kubelet/token/token_manager.go in kubernetes/kubernetes v1.23
 */
import type { TokenRequest, TokenRequestSpec } from "@skiff/client";

const maxTTLMs = 24 * 60 * 60 * 1000;

/** How often the pod runtime calls {@link ServiceAccountTokenManager.cleanup}. @see token_manager.go (gcPeriod) */
export const serviceAccountTokenCleanupPeriodMs = 60_000;
const maxJitterMs = 10_000;

/** Requests a token (the client's `createServiceAccountToken`). */
export type RequestServiceAccountToken = (target: { namespace: string; name: string }, spec: TokenRequestSpec) => Promise<TokenRequest>;

/** Options of {@link ServiceAccountTokenManager}. */
export interface ServiceAccountTokenManagerOptions {
  /** Clock in ms since the epoch. @defaultValue `Date.now` */
  readonly now?: () => number;
  /** Uniform in [0, 1) for the jitter. @defaultValue `Math.random` */
  readonly random?: () => number;
  /** Logs a failed refresh that falls back to the cached token (never the token). */
  readonly log?: (line: string) => void;
}

/**
 * Whether `tr` must be requested anew at `nowMs`: past 80 % of its lifetime or 24 hours after it
 * was issued, each less `jitterMs`. Pure.
 * @see pkg/kubelet/token/token_manager.go (requiresRefresh)
 */
export function tokenRequiresRefresh(tr: TokenRequest, nowMs: number, jitterMs = 0): boolean {
  const expMs = Date.parse(tr.status.expirationTimestamp);
  const ttlMs = tr.spec.expirationSeconds * 1000;
  const iatMs = expMs - ttlMs;
  if (nowMs > iatMs + maxTTLMs - jitterMs) return true;
  return nowMs > expMs - ttlMs * 0.2 - jitterMs;
}

/**
 * The token cache. {@link get} answers the cached token while it is fresh, requests a new one
 * otherwise; {@link deleteForPod} forgets a pod's bound tokens.
 * @example
 * const tokens = new ServiceAccountTokenManager((t, spec) => client.createServiceAccountToken(t, spec));
 * const tr = await tokens.get("default", "builder", { expirationSeconds: 3607, boundObjectRef: { kind: "Pod", apiVersion: "v1", name, uid } });
 */
export class ServiceAccountTokenManager {
  private readonly cache = new Map<string, TokenRequest>();
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly request: RequestServiceAccountToken,
    private readonly o: ServiceAccountTokenManagerOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.random = o.random ?? Math.random;
  }

  /**
   * The token of `namespace`/`name` for `spec`, from the cache or requested.
   * @throws Error `failed to fetch token: <cause>` when nothing is cached, or
   *   `token <key> expired and refresh failed: <cause>` when the cached one expired.
   */
  async get(namespace: string, name: string, spec: TokenRequestSpec): Promise<TokenRequest> {
    const key = JSON.stringify([name, namespace, spec.audiences ?? [], spec.expirationSeconds ?? null, spec.boundObjectRef ?? null]);
    const cached = this.cache.get(key);
    const now = this.now();
    if (cached && !tokenRequiresRefresh(cached, now, Math.floor(this.random() * maxJitterMs))) return cached;
    let tr: TokenRequest;
    try {
      tr = await this.request({ namespace, name }, spec);
    } catch (err) {
      const cause = err instanceof Error ? err.message : String(err);
      if (!cached) throw new Error(`failed to fetch token: ${cause}`);
      if (Date.parse(cached.status.expirationTimestamp) <= now) throw new Error(`token ${namespace}/${name} expired and refresh failed: ${cause}`);
      this.o.log?.(`couldn't update token of ${namespace}/${name}: ${cause}`);
      return cached;
    }
    this.cache.set(key, tr);
    return tr;
  }

  /** Forgets the tokens bound to the pod `podUID`. */
  deleteForPod(podUID: string): void {
    for (const [k, tr] of this.cache) if (tr.spec.boundObjectRef?.uid === podUID) this.cache.delete(k);
  }

  /** Forgets expired tokens (the pod runtime calls it every {@link serviceAccountTokenCleanupPeriodMs}). */
  cleanup(): void {
    const now = this.now();
    for (const [k, tr] of this.cache) if (Date.parse(tr.status.expirationTimestamp) <= now) this.cache.delete(k);
  }
}
