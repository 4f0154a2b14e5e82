/**
 * User impersonation (`kubectl --as`, `--as-group`, `--as-uid`): the `Impersonate-*` request
 * headers, each checked with verb `impersonate` against the authorizer before the request
 * continues as the impersonated user.
 *
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go
 * @see staging/src/k8s.io/api/authentication/v1/types.go (ImpersonateUserHeader ...)
 */
import { wellKnownUsers } from "../auth/auth.js";
import type { AuthorizationAttributes, Authorizer } from "../auth/auth.js";
import { newForbiddenFromDecision } from "../auth/authorizers.js";
import type { UserInfo } from "../registry/strategy.js";

/** The impersonation header names (compare case-insensitively; `Extra` is a prefix). */
export const impersonationHeaders = Object.freeze({
  user: "Impersonate-User",
  uid: "Impersonate-Uid",
  group: "Impersonate-Group",
  extraPrefix: "Impersonate-Extra-",
});

/**
 * One thing a request asks to impersonate, with the authorization attributes it is checked
 * with: `users`, `serviceaccounts` (namespaced), `groups` (core group), `uids` and
 * `userextras/<key>` (`authentication.k8s.io`). `name` is the impersonated value.
 */
export interface ImpersonationTarget {
  readonly kind: "User" | "ServiceAccount" | "Group" | "UID" | "UserExtra";
  readonly apiGroup: "" | "authentication.k8s.io";
  readonly resource: "users" | "serviceaccounts" | "groups" | "uids" | "userextras";
  /** The extra key for `UserExtra` (lowercased, percent-decoded); `""` otherwise. */
  readonly subresource: string;
  /** Service account namespace; `""` otherwise. */
  readonly namespace: string;
  readonly name: string;
}

/** Result of {@link parseImpersonationHeaders}: no error is thrown for bad headers. */
export type ParseImpersonationResult = { ok: true; value: ImpersonationTarget[] } | { ok: false; errors: string[] };

const serviceAccountPrefix = "system:serviceaccount:";
const dns1123Label = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const dns1123Subdomain = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Reads the impersonation headers from Node's `rawHeaders` list (name, value, name, value...;
 * repeated headers stay separate values, unlike `req.headers`). Header names are matched
 * case-insensitively; the first non-empty `Impersonate-User` wins (as Go's `Header.Get`); a
 * `system:serviceaccount:<ns>:<name>` user is a service account. `Impersonate-Extra-<key>` keys
 * are lowercased and percent-decoded (kept as sent when the encoding is malformed). Asking for
 * groups, extras or a uid without a user is an error. Does not throw; does not mutate its input.
 *
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go (buildImpersonationRequests)
 * @example parseImpersonationHeaders(req.raw.rawHeaders)
 */
export function parseImpersonationHeaders(rawHeaders: readonly string[]): ParseImpersonationResult {
  const values = (name: string) => {
    const out: string[] = [];
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) out.push(rawHeaders[i + 1]!);
    return out;
  };
  const targets: ImpersonationTarget[] = [];
  const base = { apiGroup: "", subresource: "", namespace: "" } as const;
  const user = values(impersonationHeaders.user.toLowerCase())[0] ?? "";
  if (user !== "") {
    const sa = splitServiceAccountUsername(user);
    targets.push(sa ? { ...base, kind: "ServiceAccount", resource: "serviceaccounts", namespace: sa.namespace, name: sa.name } : { ...base, kind: "User", resource: "users", name: user });
  }
  const groups = values(impersonationHeaders.group.toLowerCase());
  for (const g of groups) targets.push({ ...base, kind: "Group", resource: "groups", name: g });
  const prefix = impersonationHeaders.extraPrefix.toLowerCase();
  let hasExtra = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!name.startsWith(prefix)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(name.slice(prefix.length));
    targets.push({ kind: "UserExtra", apiGroup: "authentication.k8s.io", resource: "userextras", subresource: key, namespace: "", name: rawHeaders[i + 1]! });
  }
  const uid = values(impersonationHeaders.uid.toLowerCase())[0] ?? "";
  if (uid !== "") targets.push({ kind: "UID", apiGroup: "authentication.k8s.io", resource: "uids", subresource: "", namespace: "", name: uid });
  if ((groups.length > 0 || hasExtra || uid !== "") && user === "") {
    return { ok: false, errors: [`requested ${formatTargets(targets)} without impersonating a user`] };
  }
  return { ok: true, value: targets };
}

/**
 * Checks every target of `targets` for `requestor` (verb `impersonate`) and builds the
 * impersonated user: its name (service accounts as `system:serviceaccount:<ns>:<name>`, with
 * groups `system:serviceaccounts` and `system:serviceaccounts:<ns>` unless groups were asked
 * for), the asked groups, uid and extras. A non-anonymous user gets `system:authenticated` unless
 * it already has it or `system:unauthenticated`; `system:anonymous` gets `system:unauthenticated`
 * unless present. Returns `requestor` unchanged when `targets` is empty.
 *
 * @throws StatusError 403 `Forbidden` for the first target the authorizer does not allow (or
 *   fails on), worded as 1.23: `users "bob" is forbidden: User "alice" cannot impersonate
 *   resource "users" in API group "" at the cluster scope[: <reason>]`.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go (WithImpersonation)
 * @example const user = await impersonateUser(authenticated, parsed.value, authorizer);
 */
export async function impersonateUser(requestor: UserInfo, targets: readonly ImpersonationTarget[], authorizer: Authorizer): Promise<UserInfo> {
  if (targets.length === 0) return requestor;
  const groupsSpecified = targets.some((t) => t.kind === "Group");
  let username = "";
  let uid = "";
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const t of targets) {
    const attrs: AuthorizationAttributes = {
      user: requestor, verb: "impersonate", resourceRequest: true, path: "", apiGroup: t.apiGroup, apiVersion: "v1",
      namespace: t.namespace, resource: t.resource, subresource: t.subresource, name: t.name,
    };
    switch (t.kind) {
      case "ServiceAccount":
        username = `${serviceAccountPrefix}${t.namespace}:${t.name}`;
        if (!groupsSpecified) groups = ["system:serviceaccounts", `system:serviceaccounts:${t.namespace}`];
        break;
      case "User":
        username = t.name;
        break;
      case "Group":
        groups.push(t.name);
        break;
      case "UserExtra":
        (extra[t.subresource] ??= []).push(t.name);
        break;
      case "UID":
        uid = t.name;
        break;
    }
    let decision;
    try {
      decision = await authorizer(attrs);
    } catch (e) {
      decision = { allowed: false, reason: e instanceof Error ? e.message : String(e) };
    }
    if (!decision.allowed) throw newForbiddenFromDecision(attrs, decision);
  }
  if (username !== wellKnownUsers.anonymous) {
    if (!groups.includes(wellKnownUsers.allAuthenticated) && !groups.includes(wellKnownUsers.allUnauthenticated)) groups.push(wellKnownUsers.allAuthenticated);
  } else if (!groups.includes(wellKnownUsers.allUnauthenticated)) {
    groups.push(wellKnownUsers.allUnauthenticated);
  }
  return {
    username,
    groups,
    ...(uid !== "" ? { uid } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** Whether a header name (any case) is one of the impersonation headers. */
export function isImpersonationHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === "impersonate-user" || n === "impersonate-uid" || n === "impersonate-group" || n.startsWith("impersonate-extra-");
}

function splitServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(serviceAccountPrefix)) return undefined;
  const parts = user.slice(serviceAccountPrefix.length).split(":");
  if (parts.length !== 2 || !dns1123Label.test(parts[0]!) || !dns1123Subdomain.test(parts[1]!)) return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

function formatTargets(targets: readonly ImpersonationTarget[]): string {
  return `[${targets.map((t) => `${t.kind} ${t.subresource === "" ? "" : `${t.subresource}=`}${JSON.stringify(t.name)}`).join(", ")}]`;
}
