/**
 * The plain-value options of the node agent's three servers, and the shapes of the injected
 * TokenReview / SubjectAccessReview calls. `app.ts` fills these from the merged configuration.
 * @see pkg/kubelet/apis/config/types.go (KubeletConfiguration: Address, Port, ReadOnlyPort, Authentication, Authorization) in kubernetes/kubernetes v1.23
 */
import type { StatsEndpoints } from "./stats-routes.js";

/** Go's TLS version names, as `--tls-min-version` takes them. */
export type TLSVersionName = "VersionTLS10" | "VersionTLS11" | "VersionTLS12" | "VersionTLS13";

/** Information about an authenticated user (`authentication.k8s.io/v1` UserInfo). */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** `authentication.k8s.io/v1` TokenReviewSpec: the bearer token to check. */
export interface TokenReviewSpec {
  readonly token: string;
  /** Audiences the token should be valid for; the agent sends none (the apiserver's own audiences apply). */
  readonly audiences?: readonly string[];
}

/** `authentication.k8s.io/v1` TokenReviewStatus: the apiserver's answer. */
export interface TokenReviewStatus {
  readonly authenticated?: boolean;
  readonly user?: UserInfo;
  readonly audiences?: readonly string[];
  readonly error?: string;
}

/**
 * Sends a TokenReview (`POST /apis/authentication.k8s.io/v1/tokenreviews` with `spec`) and resolves
 * with its `status`. A rejection is an authentication error (answered 401, never cached).
 * @see staging/src/k8s.io/apiserver/plugin/pkg/authenticator/token/webhook/webhook.go
 */
export type TokenReviewer = (spec: TokenReviewSpec) => Promise<TokenReviewStatus>;

/** `authorization.k8s.io/v1` ResourceAttributes. */
export interface ResourceAttributes {
  readonly namespace?: string;
  readonly verb?: string;
  readonly group?: string;
  readonly version?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly name?: string;
}

/** `authorization.k8s.io/v1` SubjectAccessReviewSpec (the agent only sends resource attributes). */
export interface SubjectAccessReviewSpec {
  readonly resourceAttributes?: ResourceAttributes;
  readonly user?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
  readonly uid?: string;
}

/** `authorization.k8s.io/v1` SubjectAccessReviewStatus. */
export interface SubjectAccessReviewStatus {
  readonly allowed: boolean;
  /** Explicit denial; without it a non-allowed answer is "no opinion" (still refused by the agent). */
  readonly denied?: boolean;
  readonly reason?: string;
  readonly evaluationError?: string;
}

/**
 * Sends a SubjectAccessReview (`POST /apis/authorization.k8s.io/v1/subjectaccessreviews`) and resolves
 * with its `status`. A rejection is an authorization error (answered 500, never cached).
 * @see staging/src/k8s.io/apiserver/plugin/pkg/authorizer/webhook/webhook.go
 */
export type AccessReviewer = (spec: SubjectAccessReviewSpec) => Promise<SubjectAccessReviewStatus>;

/** `--authorization-mode` with its webhook settings. */
export type AuthorizationOptions =
  | { readonly mode: "AlwaysAllow" }
  | {
      readonly mode: "Webhook";
      readonly review: AccessReviewer;
      /** How long an "allowed" answer is reused. @defaultValue 300000 (5m, `--authorization-webhook-cache-authorized-ttl`) */
      readonly cacheAuthorizedTTLMs: number;
      /** How long a "not allowed" answer is reused. @defaultValue 30000 (30s, `--authorization-webhook-cache-unauthorized-ttl`) */
      readonly cacheUnauthorizedTTLMs: number;
    };

/** `--authentication-token-webhook` with its cache. */
export interface TokenWebhookOptions {
  readonly review: TokenReviewer;
  /** How long an answer (authenticated or not) is reused; errors are not cached. @defaultValue 120000 (2m) */
  readonly cacheTTLMs: number;
}

/**
 * Everything `startServers` needs, as plain values, units in the names. As with the flags,
 * `readOnlyPort: 0` and `healthzPort: 0` disable those servers; `"ephemeral"` binds a free port.
 */
export interface ServerOptions {
  /** `--address`: IP the main and read-only servers bind. @defaultValue "0.0.0.0" */
  readonly address: string;
  /** `--port`: main HTTPS port. 0 or `"ephemeral"` binds a free port (see {@link RunningServers.addresses}). @defaultValue 10250 */
  readonly port: number | "ephemeral";
  /** `--read-only-port`: 0 disables the read-only server; `"ephemeral"` binds a free port (tests). @defaultValue 10255 */
  readonly readOnlyPort: number | "ephemeral";
  /** `--healthz-bind-address`. @defaultValue "127.0.0.1" */
  readonly healthzBindAddress: string;
  /** `--healthz-port`: 0 disables the healthz server; `"ephemeral"` binds a free port (tests). @defaultValue 10248 */
  readonly healthzPort: number | "ephemeral";
  /** `--enable-server`: start the main HTTPS server. The read-only server starts regardless. @defaultValue true */
  readonly enableServer: boolean;
  /** `--enable-debugging-handlers`: `/logs/`, `/containerLogs/`, `/runningpods/`, `/configz`. @defaultValue true */
  readonly enableDebuggingHandlers: boolean;
  /** `--cert-dir`: where the self-signed pair is written when no files are given. @defaultValue "/var/lib/nodeagent/pki" */
  readonly certDir: string;
  /** `--tls-cert-file` (PEM, intermediates appended); used with {@link tlsPrivateKeyFile}. */
  readonly tlsCertFile?: string;
  /** `--tls-private-key-file`. */
  readonly tlsPrivateKeyFile?: string;
  /** `--tls-min-version`; absent uses Node's default (TLS 1.2). */
  readonly tlsMinVersion?: TLSVersionName;
  /** `--tls-cipher-suites` as Go names; absent or empty uses the runtime defaults. */
  readonly tlsCipherSuites?: readonly string[];
  /** `--anonymous-auth`. @defaultValue true */
  readonly anonymousAuth: boolean;
  /** `--client-ca-file`: PEM bundle that client certificates must chain to. */
  readonly clientCAFile?: string;
  /** `--authentication-token-webhook` (+ cache TTL); absent disables bearer tokens. */
  readonly tokenWebhook?: TokenWebhookOptions;
  /** `--authorization-mode` and its webhook settings. */
  readonly authorization: AuthorizationOptions;
  /** The effective configuration for `/configz`; called per request. */
  readonly configz: () => unknown;
  /** `enableSystemLogHandler`: serve `/logs/` (405 `logs endpoint is disabled.` when false). @defaultValue true */
  readonly enableSystemLogHandler?: boolean;
  /** `enableProfilingHandler`: false answers `/debug/pprof/` with 405 `profiling endpoint is disabled.`. @defaultValue true */
  readonly enableProfilingHandler?: boolean;
  /** `enableDebugFlagsHandler`: `PUT /debug/flags/v` sets the log verbosity ({@link setVerbosity}); false answers 405 `flags endpoint is disabled.`. @defaultValue true */
  readonly enableDebugFlagsHandler?: boolean;
  /** Sets the agent's `-v` level at run time (`PUT /debug/flags/v`); absent: that path is not served. */
  readonly setVerbosity?: (level: number) => void;
  /** Directory served under `/logs/`. @defaultValue "/var/log" */
  readonly logDir: string;
  /** Host name put into the self-signed certificate (CN and SAN); the node name when absent. */
  readonly hostname?: string;
  /** Socket inactivity limit; 0 means none. @defaultValue 14400000 (4h) */
  readonly idleTimeoutMs?: number;
  /** Maximum duration of one request (the kubelet's 4h read/write timeouts); 0 means none. @defaultValue 14400000 (4h) */
  readonly requestTimeoutMs?: number;
  /** Largest accepted request body (the manifest API). @defaultValue 10485760 (10 MiB) */
  readonly bodyLimitBytes?: number;
  /** Clock for the authentication/authorization caches (tests inject one). @defaultValue Date.now */
  readonly nowMs?: () => number;
  /** `/stats/summary` and `/metrics*` on the main and read-only servers; absent: not served (404). */
  readonly stats?: StatsEndpoints;
}

/** Where log lines of the servers go; the app passes its logger. */
export interface ServerLogger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** Bound addresses of the started servers (ports are the real ones, so port 0 works). */
export interface ServerAddresses {
  readonly main?: { readonly address: string; readonly port: number };
  readonly readOnly?: { readonly address: string; readonly port: number };
  readonly healthz?: { readonly address: string; readonly port: number };
}

/** The result of {@link startServers}. */
export interface RunningServers {
  readonly addresses: ServerAddresses;
  /** Stops all servers and closes open connections (streams included). Safe to call twice. */
  close(): Promise<void>;
}

/** Why the servers could not start; `code` is stable. */
export class ServerStartError extends Error {
  /**
   * `InvalidTLSConfig` (unknown cipher/version, unreadable files), `NoAuthentication` (anonymous off,
   * no client CA, no token webhook), `CertificateGeneration`, `Listen` (bind failed).
   */
  readonly code: "InvalidTLSConfig" | "NoAuthentication" | "CertificateGeneration" | "Listen";
  constructor(code: ServerStartError["code"], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ServerStartError";
    this.code = code;
  }
}
