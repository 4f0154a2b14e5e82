/**
 * Authorizer combinators and the 403 wording of kube-apiserver 1.23.
 * @see staging/src/k8s.io/apiserver/pkg/authorization/union/union.go
 * @see staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go
 */
import { newForbidden } from "@skiff/apimachinery";
import type { StatusError } from "@skiff/apimachinery";
import { wellKnownUsers } from "./auth.js";
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from "./auth.js";

/**
 * Asks each authorizer in order; the first allow or explicit deny wins. When nobody has an
 * opinion the answer is "not allowed" with every non-empty reason joined by newlines.
 * @see staging/src/k8s.io/apiserver/pkg/authorization/union/union.go
 */
export function unionAuthorizers(...authorizers: readonly Authorizer[]): Authorizer {
  return async (attrs) => {
    const reasons: string[] = [];
    for (const a of authorizers) {
      const d = await a(attrs);
      if (d.allowed || d.denied) return d;
      if (d.reason) reasons.push(d.reason);
    }
    return { allowed: false, reason: reasons.join("\n") };
  };
}

/**
 * Allows every request of a user in one of `groups` (kube-apiserver always puts
 * `system:masters` first in its chain); no opinion otherwise.
 * @defaultValue groups `["system:masters"]`
 * @see staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go (NewPrivilegedGroups)
 */
export function privilegedGroupsAuthorizer(groups: readonly string[] = [wellKnownUsers.privilegedGroup]): Authorizer {
  return (attrs) => ({ allowed: attrs.user.groups.some((g) => groups.includes(g)), reason: "" });
}

/** Whether a verb only reads (`get`, `list`, `watch`), as `authorizer.AttributesRecord.IsReadOnly`. */
export function isReadOnlyVerb(verb: string): boolean {
  return verb === "get" || verb === "list" || verb === "watch";
}

/**
 * The message of a denial, in 1.23's words: `User "bob" cannot list resource "jobs" in API group
 * "batch" in the namespace "default"` (`... at the cluster scope` without a namespace; `User "bob"
 * cannot get path "/apis"` for non-resource requests). Subresources show as `jobs/status`.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go (forbiddenMessage)
 */
export function formatForbiddenMessage(attrs: AuthorizationAttributes): string {
  const user = JSON.stringify(attrs.user.username);
  if (!attrs.resourceRequest) return `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const head = `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)}`;
  return attrs.namespace ? `${head} in the namespace ${JSON.stringify(attrs.namespace)}` : `${head} at the cluster scope`;
}

/**
 * The 403 `Forbidden` StatusError of a denied request: `jobs.batch is forbidden: <message>[: <reason>]`.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go (Forbidden)
 */
export function newForbiddenFromDecision(attrs: AuthorizationAttributes, decision: AuthorizationDecision): StatusError {
  const msg = formatForbiddenMessage(attrs);
  return newForbidden(
    { group: attrs.apiGroup, resource: attrs.resource },
    attrs.name,
    new Error(decision.reason ? `${msg}: ${decision.reason}` : msg),
  );
}
