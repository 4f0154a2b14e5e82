/**
 * The request filters every API request passes before its handler, in kube-apiserver 1.23's
 * order: request timeout (non-long-running requests), authentication, impersonation, API Priority
 * and Fairness (or, with it off, the in-flight limits), authorization. Also the watch timeout and
 * the HTTP server's own timeouts.
 *
 * @see staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)
 * @see staging/src/k8s.io/apiserver/pkg/server/filters/maxinflight.go
 * @see staging/src/k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go
 * @see staging/src/k8s.io/apiserver/pkg/server/filters/timeout.go
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/filters/authorization.go
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go
 */
import type { Server } from "node:http";
import type { TLSSocket } from "node:tls";
import { errorToStatus, newBadRequest, newTimeoutError, newTooManyRequests, newUnauthorized } from "@skiff/apimachinery";
import type { Tracer } from "@skiff/apimachinery";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { wellKnownUsers } from "../auth/auth.js";
import type { AuthenticationRequest, AuthorizationAttributes, Authenticator, Authorizer, ClientCertificateInfo } from "../auth/auth.js";
import { isReadOnlyVerb, newForbiddenFromDecision } from "../auth/authorizers.js";
import { impersonateUser, isImpersonationHeader, parseImpersonationHeaders } from "./impersonation.js";
import { PriorityAndFairness } from "./priority-and-fairness.js";
import type { UserInfo } from "../registry/strategy.js";
import { firstQueryValues, parseQueryValues } from "../request/query-params.js";
import { parseRequestInfo } from "../request/request-info.js";
import type { RequestInfo } from "../request/request-info.js";

/**
 * Request limits (kube-apiserver flag names in parentheses). A zero limit disables that limit.
 */
export interface RequestLimits {
  /**
   * API Priority and Fairness (`--enable-priority-and-fairness` with the `APIPriorityAndFairness`
   * feature gate): requests beyond their priority level's share of the server's concurrency
   * (`maxRequestsInFlight` + `maxMutatingRequestsInFlight`) wait in fair queues for up to a quarter
   * of `requestTimeoutMs` instead of getting 429 at once. Off: the two limits apply separately, as
   * 1.23's max-in-flight filter. @defaultValue true
   */
  readonly priorityAndFairness?: boolean;
  /** Concurrent read-only (get, list) requests (`--max-requests-inflight`). @defaultValue 400 */
  readonly maxRequestsInFlight?: number;
  /** Concurrent mutating requests (`--max-mutating-requests-inflight`). @defaultValue 200 */
  readonly maxMutatingRequestsInFlight?: number;
  /** Time a non-long-running request may take before 504 (`--request-timeout`), in ms. @defaultValue 60000 */
  readonly requestTimeoutMs?: number;
  /** Watches without `timeoutSeconds` end after this × [1, 2) (`--min-request-timeout`), in seconds. @defaultValue 1800 */
  readonly minRequestTimeoutSeconds?: number;
  /**
   * Time a connection may take to send a request's headers, from its first byte (for a new
   * connection: from the connection), in ms; then the connection is closed without an answer, as
   * Go's `ReadHeaderTimeout` does. Capped at the request read timeout. @defaultValue 32000
   */
  readonly readHeaderTimeoutMs?: number;
  /** Time a keep-alive connection may stay idle between requests before it is closed (Go's `IdleTimeout`), in ms. @defaultValue 90000 */
  readonly idleTimeoutMs?: number;
  /**
   * Time a connection may take to send a whole request (headers and body), in ms; then it gets a
   * 408 `Timeout` Status (unless an answer has started) and is closed. A backstop against bodies
   * trickling in; kube-apiserver has none. @defaultValue `requestTimeoutMs` + 30000
   */
  readonly requestReadTimeoutMs?: number;
}

/** Defaults of {@link RequestLimits}, as kube-apiserver 1.23. */
export const defaultRequestLimits = Object.freeze({
  priorityAndFairness: true,
  maxRequestsInFlight: 400,
  maxMutatingRequestsInFlight: 200,
  requestTimeoutMs: 60_000,
  minRequestTimeoutSeconds: 1800,
  readHeaderTimeoutMs: 32_000,
  idleTimeoutMs: 90_000,
});

/**
 * How often Node's HTTP server checks header and request read timeouts, in ms. Node checks them
 * only every `connectionsCheckingInterval` (30 s by default), so a 32 s header timeout fired after
 * 32–62 s; checking every 250 ms keeps each timeout within a quarter second of its value. Pass it
 * to `http(s).createServer` (it cannot be changed afterwards).
 */
export const connectionsCheckingIntervalMs = 250;

/** The extra time Node ≥ 20 keeps an idle keep-alive connection past `keepAliveTimeout` (`HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER`). */
const nodeKeepAliveBufferMs = 1000;

/** What {@link installRequestFilters} needs. */
export interface RequestFilterConfig {
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  /** Paths served without authentication, authorization or limits (health endpoints). */
  readonly publicPaths: ReadonlySet<string>;
  readonly limits?: RequestLimits;
  /**
   * Records API Priority and Fairness' queueing: an `apf-wait` span for each request that waited
   * for its seat, and an `apf-reject` span for each 429, with the priority level and the outcome
   * (`dispatched`, or the reject reason). @defaultValue none
   */
  readonly tracer?: Tracer;
}

/** The message of a 429 from the in-flight limit. */
export const tooManyRequestsMessage = "Too many requests, please try again later.";

interface FilteredRequest {
  user?: UserInfo;
  requestInfo?: RequestInfo;
}

/**
 * The authenticated user of a request (set by the filters). Throws a 401 StatusError when the
 * request did not pass authentication (only public paths can get there).
 */
export function getRequestUser(req: FastifyRequest): UserInfo {
  const u = (req as unknown as FilteredRequest).user;
  if (!u) throw newUnauthorized("Unauthorized");
  return u;
}

/** A request's name in trace spans: `<verb> <resource>[/<subresource>]`, e.g. `create serviceaccounts/token`. Pure. */
export function requestSpanName(info: Pick<RequestInfo, "verb" | "resource" | "subresource">): string {
  return `${info.verb} ${info.resource}${info.subresource ? `/${info.subresource}` : ""}`;
}

/** Whether a request is long-running (watches): not counted in flight and not timed out. @see staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go */
export function isLongRunningRequest(info: RequestInfo): boolean {
  return info.isResourceRequest && (info.verb === "watch" || ["proxy", "log", "exec", "attach", "portforward"].includes(info.subresource));
}

/**
 * Watch duration in seconds: `timeoutSeconds` when given and not 0 (a negative value ends the
 * watch at once, as Go's timer with a negative duration fires at once), else a random value in
 * [min, 2·min) so that watches of many clients do not all end together. A value that is not an
 * integer counts as absent (the handler refused it with 400 before).
 * @param random - a source of [0, 1) numbers. @defaultValue Math.random
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go (ListResource)
 */
export function resolveWatchTimeoutSeconds(timeoutSeconds: string | undefined, minRequestTimeoutSeconds: number, random: () => number = Math.random): number {
  const t = timeoutSeconds !== undefined && /^[+-]?[0-9]+$/.test(timeoutSeconds) ? Number(timeoutSeconds) : 0;
  if (t !== 0) return Math.max(t, 0);
  return minRequestTimeoutSeconds * (1 + random());
}

/**
 * Counts requests in flight per bucket (read-only vs mutating). `tryAcquire` answers a release
 * function, or `undefined` when the bucket is full.
 * @see staging/src/k8s.io/apiserver/pkg/server/filters/maxinflight.go
 */
export class InFlightLimiter {
  private readonly counts = { readonly: 0, mutating: 0 };
  constructor(private readonly limits: { readonly maxRequestsInFlight: number; readonly maxMutatingRequestsInFlight: number }) {}

  /** Takes a slot for a request with `verb`; call the returned function exactly once when it ends. */
  tryAcquire(verb: string): (() => void) | undefined {
    const bucket = isReadOnlyVerb(verb) ? "readonly" : "mutating";
    const max = bucket === "readonly" ? this.limits.maxRequestsInFlight : this.limits.maxMutatingRequestsInFlight;
    if (max > 0 && this.counts[bucket] >= max) return undefined;
    this.counts[bucket]++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.counts[bucket]--;
    };
  }

  /** Current counts (tests, metrics). */
  inFlight(): { readonly readonly: number; readonly mutating: number } {
    return { ...this.counts };
  }
}

/**
 * Applies the HTTP server's own timeouts against slow clients (mutates `server`): a request's
 * headers must arrive within `readHeaderTimeoutMs` (32 s; then the connection is closed without an
 * answer, as Go's server does on `ReadHeaderTimeout`), the whole request within
 * `requestReadTimeoutMs` (`--request-timeout` + 30 s, a backstop for bodies trickling in; then 408),
 * and a keep-alive connection idle for `idleTimeoutMs` (90 s) is closed. Each fires within a
 * second of its value only if the server was created with
 * `connectionsCheckingInterval: connectionsCheckingIntervalMs` (Node checks the first two only
 * that often). A number as second argument is `requestTimeoutMs` (the former signature).
 * @see staging/src/k8s.io/apiserver/pkg/server/secure_serving.go (ReadHeaderTimeout 32 s, IdleTimeout 90 s)
 */
export function applyServerTimeouts(server: Server, limits: RequestLimits | number = {}): void {
  const l = typeof limits === "number" ? { requestTimeoutMs: limits } : limits;
  const requestTimeoutMs = l.requestTimeoutMs ?? defaultRequestLimits.requestTimeoutMs;
  server.requestTimeout = l.requestReadTimeoutMs ?? requestTimeoutMs + 30_000;
  server.headersTimeout = Math.min(l.readHeaderTimeoutMs ?? defaultRequestLimits.readHeaderTimeoutMs, server.requestTimeout);
  const idleMs = l.idleTimeoutMs ?? defaultRequestLimits.idleTimeoutMs;
  // Node keeps an idle connection `keepAliveTimeoutBuffer` (Node ≥ 24, settable) or 1 s (Node 20,
  // fixed) past keepAliveTimeout: take it off so the connection closes after `idleMs`.
  const s = server as Server & { keepAliveTimeoutBuffer?: number };
  if (typeof s.keepAliveTimeoutBuffer === "number") {
    s.keepAliveTimeoutBuffer = 0;
    server.keepAliveTimeout = idleMs;
  } else {
    server.keepAliveTimeout = Math.max(1, idleMs - nodeKeepAliveBufferMs);
  }
}

/**
 * Installs the filters as an `onRequest` hook on `app`. A request that fails a filter gets the
 * `Status` error (401 `Unauthorized`, 400 `BadRequest` for impersonation headers without
 * `Impersonate-User`, 429 `TooManyRequests` with `Retry-After: 1`, 403 `Forbidden` (also for
 * impersonation the authorizer does not allow), 504 `Timeout`). `Impersonate-*` headers switch
 * the request's user after authentication (see {@link impersonateUser}) and are then removed.
 * With API Priority and Fairness (the default) a request over its priority level's concurrency
 * waits in its queue (see {@link PriorityAndFairness}); 429 only when the queue is full or the
 * wait runs out. Members of `system:masters` are never limited (as 1.23). Sets the request's
 * user for {@link getRequestUser}.
 * @example installRequestFilters(app, { authenticator, authorizer, publicPaths: new Set(["/healthz"]) });
 */
export function installRequestFilters(app: FastifyInstance, config: RequestFilterConfig): void {
  const limits = { ...defaultRequestLimits, ...config.limits };
  const apf = limits.priorityAndFairness
    ? new PriorityAndFairness({ serverConcurrencyLimit: limits.maxRequestsInFlight + limits.maxMutatingRequestsInFlight, requestWaitLimitMs: Math.floor(limits.requestTimeoutMs / 4) })
    : undefined;
  const inFlight = new InFlightLimiter(limits);
  const tracer = config.tracer?.enabled === true ? config.tracer : undefined;
  // Protobuf bodies stay bytes (kubectl posts review requests as protobuf); handlers that only
  // read JSON/YAML answer 415 for them as before.
  app.addContentTypeParser("application/vnd.kubernetes.protobuf", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.addHook("onRequest", async (req, reply) => {
    const [path = "/", qs = ""] = req.url.split("?", 2);
    if (config.publicPaths.has(path)) return;
    const info = parseRequestInfo(req.method, path, firstQueryValues(parseQueryValues(qs)));
    const longRunning = isLongRunningRequest(info);
    if (!longRunning && limits.requestTimeoutMs > 0) startRequestTimer(reply, limits.requestTimeoutMs);

    let user: UserInfo | null;
    try {
      user = await config.authenticator(authenticationRequestOf(req));
    } catch {
      user = null;
    }
    if (!user) throw newUnauthorized("Unauthorized");
    const impersonation = parseImpersonationHeaders(req.raw.rawHeaders);
    if (!impersonation.ok) throw newBadRequest(impersonation.errors.join("; "));
    if (impersonation.value.length > 0) {
      user = await impersonateUser(user, impersonation.value, config.authorizer);
      for (const h of Object.keys(req.headers)) if (isImpersonationHeader(h)) delete req.headers[h];
    }
    const r = req as unknown as FilteredRequest;
    r.user = user;
    r.requestInfo = info;

    if (!longRunning && apf !== undefined) {
      if (!(await admitByPriorityAndFairness(apf, user, info, reply, tracer))) {
        void reply.header("Retry-After", "1");
        throw newTooManyRequests(tooManyRequestsMessage, 1);
      }
    } else if (!longRunning && !user.groups.includes(wellKnownUsers.privilegedGroup)) {
      const release = inFlight.tryAcquire(info.verb);
      if (!release) {
        void reply.header("Retry-After", "1");
        throw newTooManyRequests(tooManyRequestsMessage, 1);
      }
      reply.raw.once("close", release);
    }

    const attrs: AuthorizationAttributes = {
      user, verb: info.verb, resourceRequest: info.isResourceRequest, path, apiGroup: info.apiGroup, apiVersion: info.apiVersion,
      namespace: info.namespace, resource: info.resource, subresource: info.subresource, name: info.name,
    };
    const decision = await config.authorizer(attrs);
    if (!decision.allowed) throw newForbiddenFromDecision(attrs, decision);
  });
}

/**
 * Waits for the request's seat from API Priority and Fairness; the seat is given back when the
 * response closes. False when the request is refused (or its client went away while it waited).
 */
async function admitByPriorityAndFairness(apf: PriorityAndFairness, user: UserInfo, info: RequestInfo, reply: FastifyReply, tracer: Tracer | undefined): Promise<boolean> {
  const admission = apf.admit(user, info);
  // Exempt (system:masters, probes): nothing to give back, so no close listener.
  if (admission.exempt) return true;
  const outcome = admission.outcome;
  const span = tracer ? requestSpanName(info) : "";
  if (typeof outcome === "string") {
    if (tracer) {
      const t = tracer.now();
      tracer.record("apf-reject", t, t, { attrs: { request: span, priorityLevel: admission.priorityLevel, user: user.username, outcome } });
    }
    return false;
  }
  if (typeof outcome === "function") {
    reply.raw.once("close", outcome);
    return true;
  }
  // Waiting: a client that goes away takes its request out of the queue, or gives back the seat
  // it got meanwhile.
  const state: { held?: () => void; gone: boolean } = { gone: false };
  reply.raw.once("close", () => {
    state.gone = true;
    if (state.held) state.held();
    else outcome.cancel();
  });
  const waitStart = tracer?.now() ?? 0;
  const r = await outcome.seat;
  if (tracer) {
    const attrs = { request: span, priorityLevel: admission.priorityLevel, user: user.username, outcome: typeof r === "function" ? "dispatched" : r };
    tracer.record(typeof r === "function" ? "apf-wait" : "apf-reject", waitStart, tracer.now(), { attrs });
  }
  if (typeof r !== "function") return false;
  if (state.gone) {
    r();
    return false;
  }
  state.held = r;
  return true;
}

function startRequestTimer(reply: FastifyReply, ms: number): void {
  const timer = setTimeout(() => {
    if (reply.raw.headersSent || reply.raw.writableEnded) return;
    const s = errorToStatus(newTimeoutError("request did not complete within requested timeout - context deadline exceeded", 0));
    // The handler may still be reading a slow body: close the connection after this answer.
    reply.raw.writeHead(s.code, { "content-type": "application/json", connection: "close" });
    reply.raw.end(JSON.stringify(s));
  }, ms);
  reply.raw.once("close", () => clearTimeout(timer));
}

function authenticationRequestOf(req: FastifyRequest): AuthenticationRequest {
  const sock = req.raw.socket as Partial<TLSSocket>;
  const cert = typeof sock.getPeerCertificate === "function" ? sock.getPeerCertificate() : undefined;
  if (!cert || Object.keys(cert).length === 0 || !cert.subject) return { headers: req.headers };
  const subj = cert.subject as unknown as Record<string, string | string[] | undefined>;
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const eku = (cert as { ext_key_usage?: string[] }).ext_key_usage;
  let verified = sock.authorized === true;
  let verifyError = sock.authorizationError === undefined ? undefined : String(sock.authorizationError);
  if (verified && eku !== undefined && !eku.includes("1.3.6.1.5.5.7.3.2")) {
    verified = false;
    verifyError = "certificate specifies an incompatible key usage";
  }
  const info: ClientCertificateInfo = {
    commonName: list(subj["CN"])[0] ?? "",
    organizations: list(subj["O"]),
    verified,
    ...(verified || verifyError === undefined ? {} : { verifyError }),
  };
  return { headers: req.headers, clientCertificate: info };
}
