/**
 * Authentication and authorization hooks of the API server.
 * @see staging/src/k8s.io/apiserver/pkg/authentication/authenticator/interfaces.go
 * @see staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go
 */
import type { UserInfo } from "../registry/strategy.js";

/** A client certificate presented on the TLS connection, as the server saw it. */
export interface ClientCertificateInfo {
  /** Subject CN (`""` when absent). */
  readonly commonName: string;
  /** Subject O values, in certificate order. */
  readonly organizations: readonly string[];
  /** Whether the chain verified against `--client-ca-file` (and the certificate allows client auth). */
  readonly verified: boolean;
  /** Why verification failed (Node's TLS `authorizationError`, or an extended-key-usage problem). */
  readonly verifyError?: string;
}

/** The request facts an {@link Authenticator} may look at. */
export interface AuthenticationRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client certificate, when the client presented one (verified or not: see `verified`). */
  readonly clientCertificate?: ClientCertificateInfo;
  /**
   * The audiences the credentials must be valid for (TokenReview's `spec.audiences`, else the
   * server's API audiences); absent for ordinary requests, whose audiences are the server's.
   * @see staging/src/k8s.io/apiserver/pkg/authentication/authenticator/audiences.go (WithAudiences)
   */
  readonly audiences?: readonly string[];
}

/**
 * An authenticated user and, when the authenticator knows them, the audiences the credentials
 * were found valid for (the intersection of theirs and the requested ones).
 * @see staging/src/k8s.io/apiserver/pkg/authentication/authenticator/interfaces.go (Response)
 */
export interface AuthenticatedUser extends UserInfo {
  readonly audiences?: readonly string[];
}

/**
 * Identifies the user of a request. Returns the user; `null` when the request carries no
 * credentials this authenticator understands (no opinion); throws (any error) for credentials
 * it understands but rejects (bad token, untrusted certificate). Both `null` from the whole
 * chain and a throw answer 401.
 */
export type Authenticator = (req: AuthenticationRequest) => AuthenticatedUser | null | Promise<AuthenticatedUser | null>;

/** What an {@link Authorizer} decides on, as Kubernetes' `authorizer.Attributes`. */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  /** Resource verbs (get, list, watch, create, ...) or the lowercased HTTP method for non-resource paths. */
  readonly verb: string;
  readonly resourceRequest: boolean;
  /** The URL path without query. */
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

/**
 * The authorizer's answer. `allowed: false` without `denied` is "no opinion" (a union asks the
 * next authorizer); `denied: true` stops a union. `reason` is appended to the 403 message.
 */
export interface AuthorizationDecision {
  readonly allowed: boolean;
  readonly reason: string;
  /** An explicit denial. @defaultValue false */
  readonly denied?: boolean;
}

/** Decides whether a request may proceed. */
export type Authorizer = (attrs: AuthorizationAttributes) => AuthorizationDecision | Promise<AuthorizationDecision>;

/**
 * Well-known user and group names.
 * @see staging/src/k8s.io/apiserver/pkg/authentication/user/user.go
 */
export const wellKnownUsers = Object.freeze({
  anonymous: "system:anonymous",
  allAuthenticated: "system:authenticated",
  allUnauthenticated: "system:unauthenticated",
  privilegedGroup: "system:masters",
});

/**
 * The authorizer that allows everything (`--authorization-mode=AlwaysAllow`).
 * @see staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go
 */
export const alwaysAllowAuthorizer: Authorizer = () => ({ allowed: true, reason: "" });

/** An authenticator that accepts every request as `system:anonymous` (tests only). */
export const anonymousAuthenticator: Authenticator = () => ({ username: "system:anonymous", groups: ["system:unauthenticated"] });
