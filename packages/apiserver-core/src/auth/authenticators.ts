/**
 * The authentication chain of kube-apiserver 1.23: X.509 client certificates, bearer tokens,
 * `system:authenticated` added to every authenticated user, anonymous last (and only when no
 * authenticator rejected the credentials it was given).
 *
 * @see pkg/kubeapiserver/authenticator/config.go
 * @see staging/src/k8s.io/apiserver/pkg/authentication/request/union/union.go
 * @see staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go
 * @see staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go
 */
import type { UserInfo } from "../registry/strategy.js";
import { wellKnownUsers } from "./auth.js";
import type { AuthenticatedUser, AuthenticationRequest, Authenticator } from "./auth.js";

/** Credentials were presented but rejected. `reason`: `InvalidBearerToken` or `InvalidClientCertificate`. */
export class AuthenticationError extends Error {
  constructor(
    readonly reason: "InvalidBearerToken" | "InvalidClientCertificate",
    message: string,
  ) {
    super(message);
    this.name = "AuthenticationError";
  }
}

/**
 * Users from verified client certificates: user = subject CN, groups = subject O values. No
 * certificate, or one without a CN → no opinion; an unverified certificate → throws
 * {@link AuthenticationError} (so it never authenticates, and is not treated as anonymous).
 *
 * @see staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go (CommonNameUserConversion)
 */
export const x509Authenticator: Authenticator = (req) => {
  const c = req.clientCertificate;
  if (c === undefined) return null;
  if (!c.verified) throw new AuthenticationError("InvalidClientCertificate", `x509: ${c.verifyError ?? "certificate signed by unknown authority"}`);
  if (c.commonName === "") return null;
  return { username: c.commonName, groups: [...c.organizations] };
};

/**
 * The bearer token of an `Authorization` header: the token; `null` without a (Bearer) header;
 * `""` for a `Bearer` header with no usable token (rejected as an invalid token).
 */
export function parseBearerToken(authorization: string | readonly string[] | undefined): string | null {
  const h = Array.isArray(authorization) ? authorization[0] : (authorization as string | undefined);
  if (h === undefined) return null;
  const parts = h.trim().split(/\s+/);
  if (parts.length === 0 || parts[0]?.toLowerCase() !== "bearer") return null;
  return parts.length === 2 ? (parts[1] ?? "") : "";
}

/**
 * Users from `Authorization: Bearer <token>` looked up with `lookup` (which also sees the request,
 * e.g. its `audiences`). No bearer header → no opinion; an unknown or empty token → throws {@link AuthenticationError} (`invalid bearer token`).
 *
 * @see staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go
 */
export function bearerTokenAuthenticator(
  lookup: (token: string, req: AuthenticationRequest) => AuthenticatedUser | undefined | Promise<AuthenticatedUser | undefined>,
): Authenticator {
  return async (req) => {
    const token = parseBearerToken(req.headers["authorization"]);
    if (token === null) return null;
    const user = token === "" ? undefined : await lookup(token, req);
    if (user === undefined) throw new AuthenticationError("InvalidBearerToken", "invalid bearer token");
    return user;
  };
}

/**
 * Tries each authenticator in order: the first user wins; rejections are remembered and thrown
 * (the first one) only when nobody authenticated the request; otherwise no opinion.
 *
 * @see staging/src/k8s.io/apiserver/pkg/authentication/request/union/union.go
 */
export function unionAuthenticators(...authenticators: readonly Authenticator[]): Authenticator {
  return async (req) => {
    let firstError: unknown;
    for (const a of authenticators) {
      try {
        const u = await a(req);
        if (u) return u;
      } catch (e) {
        firstError ??= e;
      }
    }
    if (firstError !== undefined) throw firstError;
    return null;
  };
}

/** Options of {@link createAuthenticationChain}. */
export interface AuthenticationChainOptions {
  /** Tried in order (typically {@link x509Authenticator} then a bearer-token authenticator). */
  readonly authenticators: readonly Authenticator[];
  /** `--anonymous-auth`: requests nobody authenticated (and nobody rejected) become `system:anonymous`. */
  readonly anonymous: boolean;
}

/**
 * kube-apiserver's chain: union of `authenticators`, `system:authenticated` added to every
 * user found, then (when `anonymous`) `system:anonymous` / `system:unauthenticated` for requests
 * with no credentials. Rejected credentials stay rejected even with anonymous on.
 *
 * @see pkg/kubeapiserver/authenticator/config.go (New)
 * @see staging/src/k8s.io/apiserver/pkg/authentication/group/authenticated_group_adder.go
 * @example
 * const authn = createAuthenticationChain({ authenticators: [x509Authenticator, bearerTokenAuthenticator((t) => tokens.get(t))], anonymous: false });
 */
export function createAuthenticationChain(opts: AuthenticationChainOptions): Authenticator {
  const union = unionAuthenticators(...opts.authenticators);
  return async (req: AuthenticationRequest) => {
    const u = await union(req);
    if (u) return addAuthenticatedGroup(u);
    if (!opts.anonymous) return null;
    return { username: wellKnownUsers.anonymous, groups: [wellKnownUsers.allUnauthenticated] };
  };
}

function addAuthenticatedGroup(u: UserInfo): UserInfo {
  if (u.groups.includes(wellKnownUsers.allAuthenticated) || u.groups.includes(wellKnownUsers.allUnauthenticated)) return u;
  return { ...u, groups: [...u.groups, wellKnownUsers.allAuthenticated] };
}
