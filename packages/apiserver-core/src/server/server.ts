/**
 * `createAPIServer`: the fastify adapter of the REST handlers. It sets fastify up (TLS, body
 * parsing, limits, the request filters, logging), routes `/api/*` and `/apis/*` to the per-verb
 * handlers (`handlers/`), which know nothing of fastify, and writes their results; every error
 * leaves as a `Status`.
 * @see k8s.io/apiserver/pkg/endpoints/installer.go
 * @see k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)
 */
import Fastify, { LogController } from "fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorToStatus, isStatusError, newGenericServerResponse, newRequestEntityTooLarge, newUnsupportedMediaType } from "@skiff/apimachinery";
import type { PatchSchema, StatusBody, Tracer } from "@skiff/apimachinery";
import type { ResourceInfo } from "@skiff/api-types";
import type { Storage } from "@skiff/storage";
import type { Authenticator, Authorizer } from "../auth/auth.js";
import { applyServerTimeouts, defaultRequestLimits, installRequestFilters } from "../filters/index.js";
import { connectionsCheckingIntervalMs, isLongRunningRequest, requestSpanName } from "../filters/filters.js";
import type { RequestLimits } from "../filters/index.js";
import type { AdmissionPlugin } from "../handlers/admission.js";
import { defaultPatchSchemaFor } from "../handlers/apply.js";
import { defaultDecode } from "../handlers/decode.js";
import { resolveStore, serveResource, storeKey } from "../handlers/dispatch.js";
import { encodeResult, encodeStatus, notFoundStatus } from "../handlers/response.js";
import type { EncodedResponse, HandlerResult } from "../handlers/response.js";
import type { DecodeFunc, HandlerConfig, HandlerRequest } from "../handlers/scope.js";
import { bodyMediaTypes } from "../negotiation/negotiation.js";
import { GenericStore } from "../registry/store.js";
import type { ResourceStrategy, UserInfo } from "../registry/strategy.js";
import { firstQueryValues, parseQueryValues } from "../request/query-params.js";
import { trimRestfulTrailingSlashes } from "../request/restful-path.js";
import { parseRequestInfo } from "../request/request-info.js";
import type { RequestInfo } from "../request/request-info.js";
import { answerClientError } from "./client-error.js";
import { watchSink } from "./watch-sink.js";
import { routeUpgradeRequests } from "./upgrade.js";

/** A handler for a non-resource path (discovery, OpenAPI, health, version) supplied by the app. */
export interface NonResourceRoute {
  readonly method: "GET" | "POST";
  /** An upgrade request reaches the handler too; it finds its socket with `upgradeConnectionOf`. */
  /** A fastify route path, e.g. `/apis` or `/openapi/v3/*`. */
  readonly url: string;
  /** Whether the route is served without authentication (only `/healthz`, `/livez`, `/readyz`). */
  readonly public?: boolean;
  handler(req: FastifyRequest, reply: FastifyReply): unknown;
}

/** Configuration of {@link createAPIServer}. */
export interface APIServerConfig {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Storage;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  /** In-flight limits, request timeout, watch min-request-timeout, the HTTP server's header/idle/request read timeouts. @defaultValue `defaultRequestLimits` (400, 200, 60 s, 1800 s, 32 s, 90 s; request read: request timeout + 30 s) */
  readonly limits?: RequestLimits;
  readonly admission?: readonly AdmissionPlugin[];
  readonly extraRoutes?: readonly NonResourceRoute[];
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer; readonly ca?: string | Buffer; readonly requestCert?: boolean };
  /** Plain HTTP; unit tests only. */
  readonly insecureHTTP?: boolean;
  /** Request body limit in bytes. @defaultValue 3 MiB */
  readonly maxRequestBodyBytes?: number;
  /** Log verbosity; ≥ 2 logs one line per request. @defaultValue 0 */
  readonly verbosity?: number;
  /**
   * The strategic-merge-patch schema of a resource (build it with apimachinery's
   * `patchSchemaFromOpenAPI` over the api-types OpenAPI document).
   * @defaultValue the kind's schema in `@skiff/api-types/openapi.json` (`emptyPatchSchema` for kinds not in it)
   */
  readonly patchSchemaFor?: (resource: ResourceInfo) => PatchSchema;
  /**
   * Structural decoding of a request object: the typed value, or decode errors (→ 400), and the
   * unknown field paths found (for `fieldValidation`).
   * @defaultValue @skiff/validation's `decodeObject` for kinds it knows; other kinds pass through unchanged.
   */
  readonly decode?: DecodeFunc;
  /** Clock (tests). @defaultValue `() => new Date()` */
  readonly now?: () => Date;
  /**
   * Records one span per mutating resource request (create, update, patch, delete,
   * deletecollection): `<verb> <resource>[/<subresource>]`, from routing to the handler's result,
   * with the object's `namespace/name` and UID and the response `code`. @defaultValue none
   */
  readonly tracer?: Tracer;
}

const tracedVerbs = new Set(["create", "update", "patch", "delete", "deletecollection"]);

async function traceRequest<T extends { result: HandlerResult }>(tracer: Tracer, request: HandlerRequest, serve: () => Promise<T>): Promise<T> {
  if (!tracer.enabled) return serve();
  const { info } = request;
  const span = requestSpanName(info);
  const start = tracer.now();
  const named = info.name ? { pod: `${info.namespace}/${info.name}` } : {};
  try {
    const served = await serve();
    const r = served.result;
    const meta = r.type === "object" ? (r.object as { metadata?: { name?: string; namespace?: string; uid?: string } }).metadata : undefined;
    const who = meta?.name !== undefined && meta.uid !== undefined ? { pod: `${meta.namespace ?? ""}/${meta.name}`, uid: meta.uid } : named;
    tracer.record(span, start, tracer.now(), { ...who, attrs: { code: r.type === "stream" ? 200 : r.code } });
    return served;
  } catch (e) {
    const code = isStatusError(e) ? e.status.code : 500;
    tracer.record(span, start, tracer.now(), { ...named, attrs: { code } });
    throw e;
  }
}

/**
 * An extra route's handler that records one span per mutating request on a resource path (e.g.
 * `create serviceaccounts/token`, `create tokenreviews`), as {@link traceRequest} does for the
 * resource handlers, with the reply's status code; streaming subresources are not recorded.
 */
function traceExtraRoute(tracer: Tracer, handler: NonResourceRoute["handler"]): NonResourceRoute["handler"] {
  return async function traced(this: unknown, req, reply) {
    const info = (req as unknown as { requestInfo?: RequestInfo }).requestInfo;
    // Long-running requests (exec, attach, portforward, proxy, log) are not API calls in the latency SLI's sense.
    if (!info?.isResourceRequest || !tracedVerbs.has(info.verb) || isLongRunningRequest(info)) return handler.call(this, req, reply);
    const start = tracer.now();
    try {
      return await handler.call(this, req, reply);
    } finally {
      tracer.record(requestSpanName(info), start, tracer.now(), { attrs: { code: reply.statusCode } });
    }
  } as NonResourceRoute["handler"];
}

/** A created server. */
export interface APIServer {
  readonly app: FastifyInstance;
  listen(opts: { host: string; port: number }): Promise<string>;
  close(): Promise<void>;
}

/** Streams a client may open on one HTTP/2 connection: Go's server default, kept by kube-apiserver (`--http2-max-streams-per-connection` 0). */
const http2MaxStreamsPerConnection = 250;
/** The window a client may upload per HTTP/2 stream, in bytes: kube-apiserver's `MaxUploadBufferPerStream` (256 KiB, the 99th percentile of resource bodies). */
const http2UploadWindowBytes = 256 * 1024;

const publicPaths = new Set(["/healthz", "/livez", "/readyz"]);

/**
 * Creates the API server. Every error leaves as a `Status` body.
 * @example const s = createAPIServer({ strategies, storage, authenticator, authorizer: alwaysAllowAuthorizer, insecureHTTP: true });
 */
export function createAPIServer(config: APIServerConfig): APIServer {
  const now = config.now ?? (() => new Date());
  const tls = config.tls;
  const common = {
    bodyLimit: config.maxRequestBodyBytes ?? 3 * 1024 * 1024,
    logger: (config.verbosity ?? 0) >= 2,
    logController: new LogController({ disableRequestLogging: true }),
    clientErrorHandler: answerClientError,
    // Trailing slashes as 1.23's go-restful router ignores them (`/api/`, `/apis/batch/v1/`).
    rewriteUrl: (req: { url?: string | undefined }) => trimRestfulTrailingSlashes(req.url ?? "/"),
    // Errors fastify answers before any route or hook (a malformed percent-escape in the path).
    frameworkErrors: (err: { code?: string }, req: FastifyRequest, reply: FastifyReply) => sendStatus(reply, frameworkErrorStatus(err, req.url)),
  };
  // Node checks header and request read timeouts only this often (see applyServerTimeouts).
  const checking = { connectionsCheckingInterval: connectionsCheckingIntervalMs };
  // A TLS handshake gets the header timeout, as Go's server (tlsHandshakeTimeout: the smallest of
  // its read-header, read and write timeouts; kube-apiserver sets only the first) — Node's
  // default is 120 s. The connection is closed without an answer.
  const requestReadTimeoutMs = config.limits?.requestReadTimeoutMs ?? (config.limits?.requestTimeoutMs ?? defaultRequestLimits.requestTimeoutMs) + 30_000;
  const handshakeTimeout = Math.min(config.limits?.readHeaderTimeoutMs ?? defaultRequestLimits.readHeaderTimeoutMs, requestReadTimeoutMs);
  // HTTPS serves HTTP/2 (chosen by ALPN) beside HTTP/1.1, as 1.23's Go server: kubectl and client-go
  // multiplex requests and watches on one connection; upgrades (exec, attach, port-forward) stay
  // HTTP/1.1. Go's defaults, which kube-apiserver keeps: 250 concurrent streams per connection,
  // 256 KiB upload window per stream and that times the streams per connection.
  const http2Limits = {
    settings: { maxConcurrentStreams: http2MaxStreamsPerConnection, initialWindowSize: http2UploadWindowBytes },
    maxSessionMemory: Math.ceil((http2MaxStreamsPerConnection * http2UploadWindowBytes) / (1 << 20)),
  };
  // An HTTP/2 connection without frames for the idle timeout (90 s, Go's IdleTimeout) gets GOAWAY:
  // its open streams (watches) finish, new requests go to a new connection.
  const http2SessionTimeout = config.limits?.idleTimeoutMs ?? defaultRequestLimits.idleTimeoutMs;
  const app: FastifyInstance = (tls && !config.insecureHTTP
    ? Fastify({ ...common, http2: true, http2SessionTimeout, https: { allowHTTP1: true, ...http2Limits, ...checking, handshakeTimeout, cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}), requestCert: tls.requestCert ?? false, rejectUnauthorized: false } } as unknown as Parameters<typeof Fastify>[0])
    : Fastify({ ...common, http: checking })) as unknown as FastifyInstance;
  // The HTTP/2 server (HTTP/1.1 beside it) takes the interval as a property, read when it listens.
  (app.server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval = connectionsCheckingIntervalMs;
  const stores = new Map<string, GenericStore>();
  for (const s of config.strategies) stores.set(storeKey(s.resource.group, s.resource.version, s.resource.plural), new GenericStore(s, config.storage));

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err, _req, reply) => {
    const e = err as { code?: string; statusCode?: number; message: string };
    if (e.code === "FST_ERR_CTP_BODY_TOO_LARGE") return sendStatus(reply, errorToStatus(newRequestEntityTooLarge("limit is " + String(config.maxRequestBodyBytes ?? 3145728))));
    if (e.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return sendStatus(reply, errorToStatus(newUnsupportedMediaType(bodyMediaTypes)));
    if (isStatusError(err)) return sendStatus(reply, errorToStatus(err));
    // fastify's own 4xx (malformed Content-Length, an empty body where one is needed...) as a Status.
    if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) return sendStatus(reply, clientErrorStatus(e.statusCode, e.message));
    app.log.error({ err }, "internal error (bug)");
    return sendStatus(reply, errorToStatus(err));
  });
  app.setNotFoundHandler((_req, reply) => sendStatus(reply, notFoundStatus()));

  // Authentication, in-flight limits, authorization and the request timeout (filters/).
  // Upgrade requests (exec, attach, portforward) go through the same filters and routes.
  routeUpgradeRequests(app);
  installRequestFilters(app, { authenticator: config.authenticator, authorizer: config.authorizer, publicPaths, ...(config.limits ? { limits: config.limits } : {}), ...(config.tracer ? { tracer: config.tracer } : {}) });
  applyServerTimeouts(app.server, config.limits ?? {});

  if ((config.verbosity ?? 0) >= 2) {
    app.addHook("onResponse", async (req, reply) => {
      const user = (req as unknown as { user?: UserInfo }).user;
      app.log.info(
        { verb: req.method, path: req.url, code: reply.statusCode, latencyMs: Math.round(reply.elapsedTime), user: user?.username ?? "" },
        "request",
      );
    });
  }

  const extraMethods = new Map<string, Set<string>>();
  const extraTracer = config.tracer?.enabled === true ? config.tracer : undefined;
  for (const r of config.extraRoutes ?? []) {
    app.route({ method: r.method, url: r.url, handler: extraTracer ? traceExtraRoute(extraTracer, r.handler) : r.handler });
    extraMethods.set(r.url, (extraMethods.get(r.url) ?? new Set()).add(r.method));
  }
  // A resource path served by an extra route (reviews, pods/log) answers other methods 405, as
  // go-restful's service error handler does in 1.23, not 404.
  for (const [url, methods] of extraMethods) {
    if (!/^\/(api\/[^/]+|apis\/[^/]+\/[^/]+)\/./.test(url)) continue;
    const others = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !methods.has(m));
    if (others.length > 0) app.route({ method: others, url, handler: (_req, reply) => sendStatus(reply, errorToStatus(newGenericServerResponse(405, "", { group: "", resource: "" }, "", "", 0, false))) });
  }

  const handlerConfig: HandlerConfig = {
    admission: config.admission ?? [],
    decode: config.decode ?? defaultDecode,
    patchSchemaFor: config.patchSchemaFor ?? defaultPatchSchemaFor,
    minRequestTimeoutSeconds: config.limits?.minRequestTimeoutSeconds ?? defaultRequestLimits.minRequestTimeoutSeconds,
  };
  const tracer = config.tracer?.enabled === true ? config.tracer : undefined;
  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const request = handlerRequest(req, now());
    const store = resolveStore(request, stores);
    if (!store) return send(reply, encodeStatus(notFoundStatus()));
    const { scope, result } = tracer && tracedVerbs.has(request.info.verb) ? await traceRequest(tracer, request, () => serveResource(request, store, handlerConfig)) : await serveResource(request, store, handlerConfig);
    if (result.type !== "stream") return send(reply, encodeResult(scope, result));
    reply.hijack();
    await result.run(watchSink(req.raw, reply.raw));
  };
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE"], url: "/api/*", handler: handle });
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE"], url: "/apis/*", handler: handle });

  return {
    app,
    async listen({ host, port }) {
      return app.listen({ host, port });
    },
    async close() {
      await app.close();
    },
  };
}

/**
 * The Status of an error fastify raises before routing: a malformed percent-escape answers 400
 * with Go's `url.ParseRequestURI` words (what 1.23's server refuses such a request with); a path
 * whose escapes are well formed but not UTF-8 is a path nothing serves (404).
 */
function frameworkErrorStatus(err: { code?: string }, url: string): StatusBody {
  const path = url.split("?", 1)[0] ?? "";
  const bad = /%(?![0-9A-Fa-f]{2})[^/?]{0,2}/.exec(path);
  if (err.code === "FST_ERR_BAD_URL" && bad) return clientErrorStatus(400, `parse ${JSON.stringify(path)}: invalid URL escape ${JSON.stringify(bad[0])}`);
  if (err.code === "FST_ERR_BAD_URL") return notFoundStatus();
  return clientErrorStatus(400, "the request could not be routed");
}

/** A Failure Status for a 4xx the HTTP layer found (reason by code, as apimachinery's `reasonForError`). */
function clientErrorStatus(code: number, message: string): StatusBody {
  const reasons: Record<number, StatusBody["reason"]> = { 400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed", 406: "NotAcceptable", 408: "Timeout", 409: "Conflict", 410: "Gone", 413: "RequestEntityTooLarge", 415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests" };
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: reasons[code] ?? "BadRequest", details: {}, code };
}

/** The request as the handlers see it, read from fastify's request. */
function handlerRequest(req: FastifyRequest, now: Date): HandlerRequest {
  const [path = "/", qs = ""] = req.url.split("?", 2);
  const values = parseQueryValues(qs);
  const query = firstQueryValues(values);
  return {
    // The request filters parsed the same path and query already.
    info: (req as unknown as { requestInfo?: RequestInfo }).requestInfo ?? parseRequestInfo(req.method, path, query),
    method: req.method,
    query,
    dryRun: values["dryRun"] ?? [],
    body: typeof req.body === "string" || Buffer.isBuffer(req.body) ? req.body : "",
    contentType: req.headers["content-type"],
    accept: req.headers.accept,
    userAgent: req.headers["user-agent"],
    user: (req as unknown as { user: UserInfo }).user,
    now,
  };
}

function send(reply: FastifyReply, r: EncodedResponse) {
  for (const [name, value] of Object.entries(r.headers)) void reply.header(name, value);
  return reply.code(r.code).send(r.body);
}

function sendStatus(reply: FastifyReply, status: StatusBody) {
  return send(reply, encodeStatus(status));
}

