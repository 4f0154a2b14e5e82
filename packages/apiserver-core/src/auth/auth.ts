/**
 * Authentication and authorization hooks of the API server.
 * @see k8s.io/apiserver/pkg/authentication/authenticator/interfaces.go
 * @see k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go
 */
import type { UserInfo } from "../registry/strategy.js";

/** The request facts an {@link Authenticator} may look at. */
export interface AuthenticationRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The verified client certificate's subject CN and O values, when TLS client auth was used. */
  readonly clientCertificate?: { readonly commonName: string; readonly organizations: readonly string[] };
}

/**
 * Identifies the user of a request: the user, `null` when the request carries no (or unusable)
 * credentials (→ 401), or throws for invalid credentials (→ 401 too).
 */
export type Authenticator = (req: AuthenticationRequest) => UserInfo | null | Promise<UserInfo | null>;

/** What an {@link Authorizer} decides on, as Kubernetes' `authorizer.Attributes`. */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly resourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

/** The authorizer's answer; `reason` is appended to the 403 message when not allowed. */
export interface AuthorizationDecision {
  readonly allowed: boolean;
  readonly reason: string;
}

/** Decides whether a request may proceed. */
export type Authorizer = (attrs: AuthorizationAttributes) => AuthorizationDecision | Promise<AuthorizationDecision>;

/**
 * The authorizer that allows everything (`--authorization-mode=AlwaysAllow`).
 * @see k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go
 */
export const alwaysAllowAuthorizer: Authorizer = () => ({ allowed: true, reason: "" });

/** An authenticator that accepts every request as `system:anonymous` (tests only). */
export const anonymousAuthenticator: Authenticator = () => ({ username: "system:anonymous", groups: ["system:unauthenticated"] });
