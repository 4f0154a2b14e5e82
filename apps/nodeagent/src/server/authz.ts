/**
 * Authorization of requests to the main port: the kubelet's attribute mapping (every request is an
 * action on the `nodes` resource named after this node) and its two modes, AlwaysAllow and a
 * SubjectAccessReview webhook whose answers are cached (allowed and not-allowed answers for their own TTLs).
 * @see pkg/kubelet/server/auth.go (NewNodeAuthorizerAttributesGetter) in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/apiserver/plugin/pkg/authorizer/webhook/webhook.go
 */
import { TTLCache } from "./ttl-cache.js";
import type { AuthenticatedUser } from "./authn.js";
import type { AuthorizationOptions, SubjectAccessReviewSpec } from "./server-options.js";

/** The attributes one request is authorized with (namespace and API group are always empty). */
export interface RequestAttributes {
  readonly user: AuthenticatedUser;
  /** `get`, `create`, `update`, `patch`, `delete`, or `""` for other methods. */
  readonly verb: string;
  readonly apiVersion: "v1";
  readonly resource: "nodes";
  /** `stats`, `metrics`, `log`, `spec` for their path trees, else `proxy`. */
  readonly subresource: string;
  /** The node name. */
  readonly name: string;
  readonly path: string;
}

/** The authorizer's answer. `noOpinion` is refused like `deny`, as the kubelet has no second authorizer. */
export type AuthorizationDecision = { readonly kind: "allow" } | { readonly kind: "deny"; readonly reason: string } | { readonly kind: "noOpinion"; readonly reason: string };

const verbs: Readonly<Record<string, string>> = { POST: "create", GET: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

function isSubpath(requestPath: string, prefix: string): boolean {
  const base = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  return requestPath === base || requestPath.startsWith(`${base}/`);
}

/**
 * Maps a request to authorization attributes. HEAD is not mapped to `get` (empty verb), as in the kubelet.
 * `/spec/` gets subresource `spec` (the kubelets that served it did so); `/configz`, `/pods`,
 * `/healthz`, `/manifests` and everything else are `proxy`.
 */
export function getRequestAttributes(user: AuthenticatedUser, method: string, path: string, nodeName: string): RequestAttributes {
  let subresource = "proxy";
  if (isSubpath(path, "/stats/")) subresource = "stats";
  else if (isSubpath(path, "/metrics")) subresource = "metrics";
  else if (isSubpath(path, "/logs/")) subresource = "log";
  else if (isSubpath(path, "/spec/")) subresource = "spec";
  return { user, verb: verbs[method] ?? "", apiVersion: "v1", resource: "nodes", subresource, name: nodeName, path };
}

/** The SubjectAccessReview spec for `attrs`; empty strings are left out as Go's `omitempty` does. */
export function formatSubjectAccessReviewSpec(attrs: RequestAttributes): SubjectAccessReviewSpec {
  const u = attrs.user;
  return {
    resourceAttributes: {
      ...(attrs.verb !== "" ? { verb: attrs.verb } : {}),
      version: attrs.apiVersion,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
    },
    user: u.name,
    ...(u.groups.length > 0 ? { groups: u.groups } : {}),
    ...(u.extra !== undefined ? { extra: u.extra } : {}),
    ...(u.uid !== undefined ? { uid: u.uid } : {}),
  };
}

/**
 * Builds the authorizer for `opts`. The returned function rejects when the webhook fails; such
 * failures are not cached.
 */
export function createAuthorizer(opts: AuthorizationOptions, nowMs: () => number): (attrs: RequestAttributes) => Promise<AuthorizationDecision> {
  if (opts.mode === "AlwaysAllow") return async () => ({ kind: "allow" });
  const cache = new TTLCache<AuthorizationDecision>(nowMs);
  return async (attrs) => {
    const spec = formatSubjectAccessReviewSpec(attrs);
    const key = JSON.stringify(spec);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const status = await opts.review(spec);
    const reason = status.reason ?? "";
    const decision: AuthorizationDecision = status.allowed ? { kind: "allow" } : status.denied === true ? { kind: "deny", reason } : { kind: "noOpinion", reason };
    cache.set(key, decision, status.allowed ? opts.cacheAuthorizedTTLMs : opts.cacheUnauthorizedTTLMs);
    return decision;
  };
}

/** The kubelet's 403 body: `Forbidden (user=<u>, verb=<v>, resource=nodes, subresource=<s>)`. */
export function formatForbiddenMessage(attrs: RequestAttributes): string {
  return `Forbidden (user=${attrs.user.name}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource})`;
}

/** The kubelet's 500 body when the authorizer failed. */
export function formatAuthorizationErrorMessage(attrs: RequestAttributes): string {
  return `Authorization error (user=${attrs.user.name}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource})`;
}
