/**
 * Authentication of requests to the main port, as the kubelet's delegating authenticator builds it:
 * a union of x509 client certificates (with `--client-ca-file`) and bearer tokens checked by a
 * TokenReview webhook (with `--authentication-token-webhook`, answers cached), every authenticated
 * user getting the group `system:authenticated`; then, with `--anonymous-auth`, anonymous — but only
 * when no authenticator reported an error (a bad token or an untrusted certificate is never anonymous).
 * @see staging/src/k8s.io/apiserver/pkg/authentication/authenticatorfactory/delegating.go in kubernetes/kubernetes v1.23
 */
import { createHash } from "node:crypto";
import { TTLCache } from "./ttl-cache.js";
import type { TokenWebhookOptions } from "./server-options.js";

/** The identity a request is served as. */
export interface AuthenticatedUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What the TLS layer and the headers say about the caller. */
export interface RequestCredentials {
  /** The client certificate, when one was presented. */
  readonly clientCertificate?: {
    /** Whether it chains to the client CA (Node's `socket.authorized`). */
    readonly trusted: boolean;
    readonly verifyError?: string;
    readonly commonName?: string;
    readonly organizations: readonly string[];
  };
  /** The raw `Authorization` header. */
  readonly authorization?: string;
}

/** `ok` with a user; `unauthenticated` (no credentials and no anonymous); `error` (bad credentials). */
export type AuthenticationResult =
  | { readonly kind: "ok"; readonly user: AuthenticatedUser }
  | { readonly kind: "unauthenticated" }
  | { readonly kind: "error"; readonly message: string };

/** Settings of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  readonly clientCertificates: boolean;
  readonly tokenWebhook?: TokenWebhookOptions;
  readonly anonymous: boolean;
  readonly nowMs: () => number;
}

/** `system:anonymous` / `system:unauthenticated`. */
export const anonymousUser: AuthenticatedUser = { name: "system:anonymous", groups: ["system:unauthenticated"] };

const allAuthenticated = "system:authenticated";

type StepResult = { readonly kind: "ok"; readonly user: AuthenticatedUser } | { readonly kind: "none" } | { readonly kind: "error"; readonly message: string };

type CachedToken = { readonly ok: true; readonly user: AuthenticatedUser } | { readonly ok: false };

/** Parses `Bearer <token>` as the kubelet does: scheme case-insensitive, empty token means "no token". */
export function parseBearerToken(header: string | undefined): string | undefined {
  const value = (header ?? "").trim();
  if (value === "") return undefined;
  const parts = value.split(" ");
  if (parts.length < 2 || parts[0]?.toLowerCase() !== "bearer") return undefined;
  const token = parts[1] ?? "";
  return token === "" ? undefined : token;
}

/**
 * Builds the request authenticator. With no method at all (anonymous off, no client CA, no token
 * webhook) it returns undefined: the caller reports "No authentication method configured".
 */
export function createAuthenticator(opts: AuthenticatorOptions): ((creds: RequestCredentials) => Promise<AuthenticationResult>) | undefined {
  const steps: Array<(creds: RequestCredentials) => Promise<StepResult>> = [];
  if (opts.clientCertificates) steps.push(async (creds) => authenticateCertificate(creds));
  if (opts.tokenWebhook !== undefined) steps.push(createTokenStep(opts.tokenWebhook, opts.nowMs));
  if (steps.length === 0 && !opts.anonymous) return undefined;

  return async (creds) => {
    const errors: string[] = [];
    for (const step of steps) {
      const result = await step(creds);
      if (result.kind === "ok") {
        const groups = result.user.groups.includes(allAuthenticated) ? result.user.groups : [...result.user.groups, allAuthenticated];
        return { kind: "ok", user: { ...result.user, groups } };
      }
      if (result.kind === "error") errors.push(result.message);
    }
    if (errors.length > 0) return { kind: "error", message: errors.join(", ") };
    return opts.anonymous ? { kind: "ok", user: anonymousUser } : { kind: "unauthenticated" };
  };
}

function authenticateCertificate(creds: RequestCredentials): StepResult {
  const cert = creds.clientCertificate;
  if (cert === undefined) return { kind: "none" };
  if (!cert.trusted) return { kind: "error", message: `x509: ${cert.verifyError ?? "certificate signed by unknown authority"}` };
  if (cert.commonName === undefined || cert.commonName === "") return { kind: "none" };
  return { kind: "ok", user: { name: cert.commonName, groups: [...cert.organizations] } };
}

function createTokenStep(webhook: TokenWebhookOptions, nowMs: () => number): (creds: RequestCredentials) => Promise<StepResult> {
  const cache = new TTLCache<CachedToken>(nowMs);
  return async (creds) => {
    const token = parseBearerToken(creds.authorization);
    if (token === undefined) return { kind: "none" };
    const key = createHash("sha256").update(token).digest("hex");
    let answer = cache.get(key);
    if (answer === undefined) {
      let status;
      try {
        status = await webhook.review({ token });
      } catch (err) {
        return { kind: "error", message: `token review failed: ${err instanceof Error ? err.message : String(err)}` };
      }
      if (status.authenticated === true && status.user !== undefined) {
        const u = status.user;
        const user: AuthenticatedUser = {
          name: u.username,
          groups: [...(u.groups ?? [])],
          ...(u.uid !== undefined && u.uid !== "" ? { uid: u.uid } : {}),
          ...(u.extra !== undefined ? { extra: u.extra } : {}),
        };
        answer = { ok: true, user };
      } else {
        answer = { ok: false };
        // A reported error is not cached (the kubelet's cached authenticator skips errors).
        if (status.error !== undefined && status.error !== "") return { kind: "error", message: status.error };
      }
      cache.set(key, answer, webhook.cacheTTLMs);
    }
    return answer.ok ? { kind: "ok", user: answer.user } : { kind: "error", message: "invalid bearer token" };
  };
}
