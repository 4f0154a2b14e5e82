/**
 * skiff-apiserver's authentication chain and authorizer, built from its flags as kube-apiserver
 * 1.23 builds them: X.509 client certificates (`--client-ca-file`), static tokens
 * (`--token-auth-file`), anonymous (`--anonymous-auth`); `system:masters` always allowed, then
 * each `--authorization-mode` in order (AlwaysAllow, AlwaysDeny, ABAC with
 * `--authorization-policy-file`, RBAC over the roles and bindings cache).
 *
 * @see pkg/kubeapiserver/authenticator/config.go
 * @see pkg/kubeapiserver/authorizer/config.go
 * @see staging/src/k8s.io/apiserver/pkg/server/config.go (AuthorizeClientBearerToken: privileged group first)
 */
import { readFile } from "node:fs/promises";
import {
  AuthenticationError,
  abacAuthorizer,
  alwaysAllowAuthorizer,
  bearerTokenAuthenticator,
  createAuthenticationChain,
  formatABACErrors,
  parseABACPolicies,
  privilegedGroupsAuthorizer,
  formatAggregate,
  rbacAuthorizer,
  rulesFor,
  unionAuthorizers,
  x509Authenticator,
} from "@skiff/apiserver-core";
import type { AuthenticatedUser, Authenticator, Authorizer, NonResourceRuleInfo, RBACPolicySource, ResourceRuleInfo, RulesResolver, UserInfo } from "@skiff/apiserver-core";
import { cachedTokenLookup } from "./token-cache.js";
import type { TokenCacheOptions } from "./token-cache.js";

/** A policy or CA file is unreadable or malformed. `reason`: `AuthConfigInvalid`; the message names the file (and line). */
export class AuthConfigError extends Error {
  readonly reason = "AuthConfigInvalid";
  constructor(message: string) {
    super(message);
    this.name = "AuthConfigError";
  }
}

/**
 * Checks a bearer token as a service-account JWT: the user, `undefined` when the token is not one
 * of ours (no opinion), or a throw (any error) when it is ours but invalid.
 */
export type ServiceAccountTokenLookup = (token: string, audiences?: readonly string[]) => Promise<AuthenticatedUser | undefined>;

/**
 * The authentication chain: client certificates (only when `clientCA`), then bearer tokens from
 * `tokens`, then service-account tokens (when `serviceAccountTokens`), then anonymous when
 * `anonymousAuth`. A request naming `audiences` (a TokenReview's) is checked against them:
 * certificates and static tokens hold only for `apiAudiences`, service-account tokens for the
 * audiences they were issued for. A service-account token that fails validation is 401 (as
 * {@link AuthenticationError} `InvalidBearerToken`; its message never holds the token). Successful
 * token authentications are cached for 10 s (`tokenCache`, see token-cache.ts).
 * @example const authn = buildAuthenticator({ anonymousAuth: false, clientCA: true }, tokens);
 */
export function buildAuthenticator(
  o: { anonymousAuth: boolean; clientCA: boolean; serviceAccountTokens?: ServiceAccountTokenLookup; apiAudiences?: readonly string[]; tokenCache?: TokenCacheOptions },
  tokens: ReadonlyMap<string, UserInfo>,
): Authenticator {
  const saLookup = o.serviceAccountTokens;
  // One bearer-token authenticator over the token file, then the service-account tokens, as
  // 1.23's token union: a token neither knows is `invalid bearer token`; a service-account token
  // that fails validation says why. Successes are cached for 10 s, as 1.23's token cache.
  const union = cachedTokenLookup(
    async (token, audiences) => {
      const found = tokens.get(token);
      if (found !== undefined) return audienceAgnosticToken(o.apiAudiences ?? [], found, audiences);
      if (saLookup === undefined) return undefined;
      try {
        return await saLookup(token, audiences);
      } catch (e) {
        throw new AuthenticationError("InvalidBearerToken", `invalid bearer token, ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    o.tokenCache ?? {},
  );
  const bearer = bearerTokenAuthenticator((token, req) => union(token, req.audiences));
  return createAuthenticationChain({
    authenticators: [...(o.clientCA ? [x509Authenticator] : []), bearer],
    anonymous: o.anonymousAuth,
  });
}

/**
 * A static token's user for the `requested` audiences: static tokens carry none and hold for the
 * API's (`implicit`) only. Without requested audiences (an ordinary request) the user as found;
 * with some, the user with the API audiences among them, or `undefined` (an invalid token) when
 * there are none.
 * @see staging/src/k8s.io/apiserver/pkg/authentication/authenticator/audagnostic.go
 */
function audienceAgnosticToken(implicit: readonly string[], user: UserInfo | undefined, requested: readonly string[] | undefined): AuthenticatedUser | undefined {
  if (user === undefined || requested === undefined) return user;
  const audiences = implicit.filter((a) => requested.includes(a));
  return audiences.length === 0 ? undefined : { ...user, audiences };
}

/**
 * Reads `--client-ca-file` (PEM). `undefined` when the flag is empty.
 * @throws {@link AuthConfigError} when the file cannot be read or holds no certificate.
 */
export async function loadClientCA(path: string): Promise<string | undefined> {
  if (path === "") return undefined;
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new AuthConfigError(`--client-ca-file: cannot read "${path}": ${(e as Error).message}`);
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----")) throw new AuthConfigError(`--client-ca-file: "${path}" holds no PEM certificate`);
  return text;
}

/**
 * `--authorization-mode=AlwaysDeny`: no opinion on anything, with 1.23's reason.
 * @see staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go (alwaysDenyAuthorizer)
 */
export const alwaysDenyAuthorizer: Authorizer = () => ({ allowed: false, reason: "Everything is forbidden." });

/**
 * The authorizer of `modes` (already validated by the options): `system:masters` first, then each
 * mode in order; the first allow wins. RBAC reads `rbac` (required when the modes hold RBAC).
 * @throws {@link AuthConfigError} for an unreadable or malformed ABAC policy file, naming every
 *   bad line, or RBAC without a policy source.
 */
export async function buildAuthorizer(o: { authorizationMode: readonly string[]; authorizationPolicyFile: string }, rbac?: RBACPolicySource): Promise<Authorizer> {
  const chain: Authorizer[] = [privilegedGroupsAuthorizer()];
  for (const mode of o.authorizationMode) {
    if (mode === "AlwaysAllow") chain.push(alwaysAllowAuthorizer);
    else if (mode === "AlwaysDeny") chain.push(alwaysDenyAuthorizer);
    else if (mode === "RBAC") {
      if (rbac === undefined) throw new AuthConfigError("--authorization-mode RBAC needs the roles and bindings cache");
      chain.push(rbacAuthorizer(rbac));
    }
    else if (mode === "ABAC") chain.push(abacAuthorizer(await loadABACPolicyFile(o.authorizationPolicyFile)));
    else throw new AuthConfigError(`unknown authorization mode ${mode} specified`);
  }
  return unionAuthorizers(...chain);
}

async function loadABACPolicyFile(path: string) {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new AuthConfigError(`--authorization-policy-file: cannot read "${path}": ${(e as Error).message}`);
  }
  const r = parseABACPolicies(text);
  if (!r.ok) throw new AuthConfigError(formatABACErrors(path, r.errors));
  if (r.unversionedLines > 0) process.stderr.write(`Warning: policy file ${path} contained unversioned rules.\n`);
  return r.value;
}

/**
 * The rules resolver of `modes` for SelfSubjectRulesReview, as kube-apiserver's union of the
 * authorizers' `RulesFor` (the privileged-group authorizer has none): AlwaysAllow gives `*` on
 * everything, AlwaysDeny nothing, RBAC the rules of the user's bindings (errors for missing roles),
 * ABAC is not listed here and marks the answer `incomplete`.
 * @see pkg/kubeapiserver/authorizer/config.go (ruleResolvers), staging/src/k8s.io/apiserver/pkg/authorization/union/union.go (unionAuthzRulesHandler)
 */
export function buildRulesResolver(o: { authorizationMode: readonly string[] }, rbac?: RBACPolicySource): RulesResolver {
  return (user, namespace) => {
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    const errors: string[] = [];
    let incomplete = false;
    for (const mode of o.authorizationMode) {
      if (mode === "AlwaysAllow") {
        resourceRules.push({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
        nonResourceRules.push({ verbs: ["*"], nonResourceURLs: ["*"] });
      } else if (mode === "RBAC" && rbac !== undefined) {
        const r = rulesFor(rbac, user, namespace);
        for (const rule of r.rules) {
          if ((rule.resources ?? []).length > 0) resourceRules.push({ verbs: rule.verbs, apiGroups: rule.apiGroups ?? [], resources: rule.resources ?? [], resourceNames: rule.resourceNames ?? [] });
          if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] });
        }
        if (r.errors.length > 0) errors.push(formatAggregate(r.errors));
      } else if (mode === "ABAC") incomplete = true;
    }
    return { resourceRules, nonResourceRules, incomplete, errors };
  };
}
