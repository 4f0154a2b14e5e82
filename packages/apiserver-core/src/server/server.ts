/**
 * `createAPIServer`: the fastify HTTP(S) server serving every strategy's REST endpoints.
 * @see k8s.io/apiserver/pkg/endpoints/installer.go
 * @see k8s.io/apiserver/pkg/endpoints/handlers/rest.go
 */
import Fastify, { LogController } from "fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  StatusError,
  applyJSONPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  errorToStatus,
  isNotFound,
  isStatusError,
  newBadRequest,
  newForbidden,
  newResourceExpired,
  newMethodNotSupported,
  newNotFound,
  newRequestEntityTooLarge,
  newUnsupportedMediaType,
} from "@skiff/apimachinery";
import type { PatchSchema, StatusBody } from "@skiff/apimachinery";
import type { ResourceInfo } from "@skiff/api-types";
import { isStorageError } from "@skiff/storage";
import { decodeObject, formatDecodeError, isKindName } from "@skiff/validation";
import type { Storage } from "@skiff/storage";
import { stringify as stringifyYAML } from "yaml";
import type { Authenticator, Authorizer } from "../auth/auth.js";
import { applyServerTimeouts, defaultRequestLimits, installRequestFilters, resolveWatchTimeoutSeconds } from "../filters/index.js";
import type { RequestLimits } from "../filters/index.js";
import { bodyMediaTypes, decodeBody, negotiateResponse, patchMediaTypes } from "../negotiation/negotiation.js";
import type { NegotiatedResponse } from "../negotiation/negotiation.js";
import { GenericStore, deleteRequest } from "../registry/store.js";
import { parseIncludeObject, renderTable } from "../table/index.js";
import type { APIObject, RequestContext, ResourceStrategy, UserInfo } from "../registry/strategy.js";
import { parseRequestInfo } from "../request/request-info.js";
import { answerClientError } from "./client-error.js";
import { decodeProtobufObject } from "../negotiation/protobuf-object.js";
import type { RequestInfo } from "../request/request-info.js";
import { applyToObject, checkApplyConfiguration, defaultPatchSchemaFor, trackUpdate, validatePatchOptions, withPatchErrors } from "../handlers/apply.js";

/** An admission plugin: `mutate` may change the object; `validate` must not. Throw a StatusError to reject. */
export interface AdmissionPlugin {
  readonly name: string;
  mutate?(attrs: AdmissionAttributes): void | Promise<void>;
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
}

/** What admission sees about a write. */
export interface AdmissionAttributes {
  readonly operation: "CREATE" | "UPDATE" | "DELETE";
  readonly info: RequestInfo;
  readonly object: APIObject | undefined;
  readonly oldObject: APIObject | undefined;
  readonly ctx: RequestContext;
}

/** A handler for a non-resource path (discovery, OpenAPI, health, version) supplied by the app. */
export interface NonResourceRoute {
  readonly method: "GET" | "POST";
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
  /** In-flight limits, request timeout, watch min-request-timeout. @defaultValue `defaultRequestLimits` (400, 200, 60 s, 1800 s) */
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
  readonly decode?: (resource: ResourceInfo, raw: APIObject) => { ok: true; value: APIObject; unknownFields: readonly string[] } | { ok: false; message: string };
  /** Clock (tests). @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

/** A created server. */
export interface APIServer {
  readonly app: FastifyInstance;
  listen(opts: { host: string; port: number }): Promise<string>;
  close(): Promise<void>;
}

/**
 * The NamespaceLifecycle admission plugin: creating a namespaced object in a missing namespace
 * answers 404 `namespaces "x" not found`; in a terminating namespace 403 Forbidden. Needs a
 * `namespaces` resource (core/v1) in the same storage; without it (unit tests) it admits everything.
 * @see plugin/pkg/admission/namespace/lifecycle/admission.go
 */
export function namespaceLifecycle(storage: Storage): AdmissionPlugin {
  return {
    name: "NamespaceLifecycle",
    async validate(attrs) {
      if (attrs.operation !== "CREATE" || !attrs.ctx.namespace || attrs.info.resource === "namespaces") return;
      const ns = (await storage.get(`/registry/core/namespaces/${attrs.ctx.namespace}`, { ignoreNotFound: true })) as APIObject | null;
      if (!ns) throw newNotFound({ group: "", resource: "namespaces" }, attrs.ctx.namespace);
      if ((ns["status"] as { phase?: string } | undefined)?.phase === "Terminating" || ns.metadata?.deletionTimestamp) {
        const message = `unable to create new content in namespace ${attrs.ctx.namespace} because it is being terminated`;
        const forbidden = newForbidden({ group: attrs.info.apiGroup, resource: attrs.info.resource }, attrs.object?.metadata?.name ?? "", new Error(message));
        // 1.23 adds a NamespaceTerminating cause so controllers can tell this refusal apart.
        throw new StatusError({
          ...forbidden.status,
          details: { ...forbidden.status.details, causes: [{ reason: "NamespaceTerminating", message, field: "metadata.namespace" }] },
        });
      }
    },
  };
}

const publicPaths = new Set(["/healthz", "/livez", "/readyz"]);

const isProtobufBody = (contentType: string | undefined): boolean => (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/vnd.kubernetes.protobuf";

/**
 * Creates the API server. Every error leaves as a `Status` body.
 * @example const s = createAPIServer({ strategies, storage, authenticator, authorizer: alwaysAllowAuthorizer, insecureHTTP: true });
 */
export function createAPIServer(config: APIServerConfig): APIServer {
  const now = config.now ?? (() => new Date());
  const tls = config.tls;
  const app: FastifyInstance = (tls && !config.insecureHTTP
    ? Fastify({ https: { cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}), requestCert: tls.requestCert ?? false, rejectUnauthorized: false }, bodyLimit: config.maxRequestBodyBytes ?? 3 * 1024 * 1024, logger: (config.verbosity ?? 0) >= 2, logController: new LogController({ disableRequestLogging: true }), clientErrorHandler: answerClientError })
    : Fastify({ bodyLimit: config.maxRequestBodyBytes ?? 3 * 1024 * 1024, logger: (config.verbosity ?? 0) >= 2, logController: new LogController({ disableRequestLogging: true }), clientErrorHandler: answerClientError })) as unknown as FastifyInstance;
  const stores = new Map<string, GenericStore>();
  for (const s of config.strategies) stores.set(`${s.resource.group}/${s.resource.version}/${s.resource.plural}`, new GenericStore(s, config.storage));

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err, _req, reply) => {
    const e = err as { code?: string; statusCode?: number; message: string };
    if (e.code === "FST_ERR_CTP_BODY_TOO_LARGE") return sendStatus(reply, errorToStatus(newRequestEntityTooLarge("limit is " + String(config.maxRequestBodyBytes ?? 3145728))));
    if (e.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return sendStatus(reply, errorToStatus(newUnsupportedMediaType(bodyMediaTypes)));
    if (!isStatusError(err)) app.log.error({ err }, "internal error (bug)");
    return sendStatus(reply, errorToStatus(err));
  });
  app.setNotFoundHandler((_req, reply) => sendStatus(reply, notFoundStatus()));

  // Authentication, in-flight limits, authorization and the request timeout (filters/).
  installRequestFilters(app, { authenticator: config.authenticator, authorizer: config.authorizer, publicPaths, ...(config.limits ? { limits: config.limits } : {}) });
  applyServerTimeouts(app.server, config.limits?.requestTimeoutMs ?? defaultRequestLimits.requestTimeoutMs);

  if ((config.verbosity ?? 0) >= 2) {
    app.addHook("onResponse", async (req, reply) => {
      const user = (req as unknown as { user?: UserInfo }).user;
      app.log.info(
        { verb: req.method, path: req.url, code: reply.statusCode, latencyMs: Math.round(reply.elapsedTime), user: user?.username ?? "" },
        "request",
      );
    });
  }

  for (const r of config.extraRoutes ?? []) app.route({ method: r.method, url: r.url, handler: r.handler });

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const [path = "/", qs = ""] = req.url.split("?", 2);
    const query = Object.fromEntries(new URLSearchParams(qs));
    // The request filters parsed the same path and query already.
    const info = (req as unknown as { requestInfo?: RequestInfo }).requestInfo ?? parseRequestInfo(req.method, path, query);
    if (!info.isResourceRequest) return sendStatus(reply, notFoundStatus());
    if (info.apiPrefix === "api" && info.apiGroup !== "") return sendStatus(reply, notFoundStatus());
    const store = stores.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
    if (!store) return sendStatus(reply, notFoundStatus());
    const res = store.strategy.resource;
    if (info.subresource && !res.subresources.includes(info.subresource) && !store.strategy.subresourceUpdates?.[info.subresource]) return sendStatus(reply, notFoundStatus());
    if (info.parts.length > 3) return sendStatus(reply, notFoundStatus());
    if (!res.namespaced && info.namespace && info.resource !== "namespaces") return sendStatus(reply, notFoundStatus());
    const user = (req as unknown as { user: UserInfo }).user;
    const gr = { group: res.group, resource: res.plural };
    const subCreate = info.subresource ? store.strategy.subresourceCreates?.[info.subresource] : undefined;
    const allowedVerbs = info.name ? ["get", "update", "patch", "delete", "watch", ...(subCreate ? ["create"] : [])] : ["list", "watch", "create", "deletecollection"];
    if (!allowedVerbs.includes(info.verb) || (info.subresource && !(subCreate ? ["create"] : info.subresource === "finalize" ? ["update"] : ["get", "update", "patch"]).includes(info.verb))) {
      throw newMethodNotSupported(gr, req.method);
    }
    const accept = negotiateResponse(req.headers.accept);
    const dryRunValues = new URLSearchParams(qs).getAll("dryRun");
    for (const v of dryRunValues) if (v !== "All") throw newBadRequest(`Invalid dryRun value: ${v}. Valid values: All`);
    const fieldManager = query["fieldManager"];
    if (fieldManager !== undefined && (fieldManager.length > 128 || !/^[\x20-\x7e]*$/.test(fieldManager))) {
      throw newBadRequest(`fieldManager: Invalid value: "${fieldManager}": must be no more than 128 characters and contain only printable characters`);
    }
    const fieldValidation = query["fieldValidation"];
    if (fieldValidation !== undefined && !["Strict", "Warn", "Ignore", ""].includes(fieldValidation)) {
      throw newBadRequest(`fieldValidation: Unsupported value: "${fieldValidation}": supported values: "Ignore", "Strict", "Warn"`);
    }
    const ctx: RequestContext = {
      namespace: res.namespaced ? info.namespace || undefined : undefined,
      user, now: now(), dryRun: dryRunValues.length > 0, warnings: [],
    };
    if (res.namespaced && !ctx.namespace && info.verb !== "list" && info.verb !== "watch") throw newNotFound(gr, info.name);
    const apiVersion = res.group ? `${res.group}/${res.version}` : res.version;
    const body = typeof req.body === "string" ? req.body : "";
    const decodeObj = (): APIObject => {
      // kubectl's imperative creates send protobuf (negotiation/protobuf-object.ts).
      const d = Buffer.isBuffer(req.body) && isProtobufBody(req.headers["content-type"])
        ? { value: decodeProtobufObject(req.body), duplicateFields: [] }
        : decodeBody(req.headers["content-type"], body, bodyMediaTypes);
      const obj = d.value;
      if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw newBadRequest("Object 'Kind' is missing in '" + body.slice(0, 80) + "'");
      const o = obj as APIObject;
      // 1.23's serializer defaults a missing apiVersion or kind to the endpoint's (gvkWithDefaults);
      // any other group/version/kind cannot be decoded into this kind (transformDecodeError).
      if (o.apiVersion === undefined || o.apiVersion === "") o.apiVersion = apiVersion;
      if (o.kind === undefined || o.kind === "") o.kind = res.kind;
      if (o.apiVersion !== apiVersion || o.kind !== res.kind) {
        const gv = String(o.apiVersion);
        throw newBadRequest(`${String(o.kind)} in version "${gv.slice(gv.indexOf("/") + 1)}" cannot be handled as a ${res.kind}: no kind "${String(o.kind)}" is registered for version "${gv}"`);
      }
      const decoded = (config.decode ?? defaultDecode)(res, o);
      if (!decoded.ok) throw newBadRequest(decoded.message);
      const problems = [...decoded.unknownFields.map((f) => `unknown field "${f}"`), ...d.duplicateFields.map((f) => `duplicate field "${f}"`)];
      if (fieldValidation === "Strict" && problems.length > 0) throw newBadRequest(`strict decoding error: ${problems.join(", ")}`);
      if (fieldValidation === "Warn") ctx.warnings.push(...problems);
      if (o.metadata?.namespace && ctx.namespace && o.metadata.namespace !== ctx.namespace) {
        throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      return decoded.value;
    };
    const ua = req.headers["user-agent"] ?? "";
    const manager = fieldManager || ua.split("/")[0] || "unknown";
    // Defaults first, as 1.23 defaults while decoding: defaulted fields belong to the writer too.
    const track = (cur: APIObject | null, o: APIObject): APIObject => {
      store.strategy.applyDefaults(o);
      return trackUpdate(cur, o, manager, res, info.subresource, ctx.now);
    };
    // Structural decoding of a patched or applied object: type errors → 400; unknown fields by fieldValidation when `strict`.
    const decodeResult = (o: unknown, strict: boolean): APIObject => {
      if (!o || typeof o !== "object" || Array.isArray(o)) throw newBadRequest("the patched object must be a JSON object");
      const decoded = (config.decode ?? defaultDecode)(res, o as APIObject);
      if (!decoded.ok) throw newBadRequest(decoded.message);
      const problems = decoded.unknownFields.map((f) => `unknown field "${f}"`);
      if (strict && fieldValidation === "Strict" && problems.length > 0) throw newBadRequest(`strict decoding error: ${problems.join(", ")}`);
      if (strict && fieldValidation === "Warn") ctx.warnings.push(...problems);
      return decoded.value;
    };
    const admit = async (o: APIObject, cur: APIObject | null): Promise<APIObject> => {
      await runAdmission(config.admission, { operation: cur ? "UPDATE" : "CREATE", info, object: o, oldObject: cur ?? undefined, ctx });
      return o;
    };
    const send = (code: number, obj: unknown) => {
      if (ctx.warnings.length > 0) void reply.header("Warning", ctx.warnings.map(formatWarning));
      return sendObject(reply, code, obj, accept, query, store, ctx.now);
    };

    switch (info.verb) {
      case "get":
        return send(200, await store.get(ctx, info.name, query["resourceVersion"]));
      case "list": {
        // Plain JSON lists are written from the stored text, without building every object.
        if (accept.form === "json" && query["pretty"] !== "true") {
          const text = await store.listEncoded(ctx, listParams(query));
          if (text !== undefined) {
            if (ctx.warnings.length > 0) void reply.header("Warning", ctx.warnings.map(formatWarning));
            return reply.code(200).header("content-type", accept.contentType).send(Buffer.from(text));
          }
        }
        return send(200, await store.list(ctx, listParams(query)));
      }
      case "watch":
        return serveWatch(req, reply, store, ctx, info, query, accept, config.limits?.minRequestTimeoutSeconds ?? defaultRequestLimits.minRequestTimeoutSeconds);
      case "create": {
        if (subCreate) {
          const sub = Buffer.isBuffer(req.body) && isProtobufBody(req.headers["content-type"]) ? decodeProtobufObject(req.body) : decodeBody(req.headers["content-type"], body, bodyMediaTypes).value;
          return send(201, await subCreate(ctx, info.name, sub as APIObject, store));
        }
        const obj = decodeObj();
        await runAdmission(config.admission, { operation: "CREATE", info, object: obj, oldObject: undefined, ctx });
        return send(201, await store.create(ctx, track(null, obj)));
      }
      case "update": {
        const obj = decodeObj();
        if (obj.metadata?.name !== info.name) {
          throw newBadRequest(`the name of the object (${obj.metadata?.name ?? ""}) does not match the name on the URL (${info.name})`);
        }
        const r = await store.update(ctx, info.name, (cur) => admit(track(cur, obj), cur), info.subresource ? { subresource: info.subresource } : {});
        return send(r.created ? 201 : 200, r.object);
      }
      case "patch": {
        const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
        if (!patchMediaTypes.includes(type)) throw newUnsupportedMediaType(patchMediaTypes);
        const isApply = type === "application/apply-patch+yaml";
        validatePatchOptions(isApply, query);
        if (isApply) {
          const cfg = checkApplyConfiguration(decodeBody(type, body, [type]).value, res, info.name);
          decodeResult(cfg, true);
          const force = query["force"] === "true";
          let exists = true;
          if (!info.subresource) {
            try {
              await store.get(ctx, info.name);
            } catch (e) {
              if (!isNotFound(e)) throw e;
              exists = false;
            }
          }
          if (!exists) {
            const obj = decodeResult(applyToObject(null, cfg, manager, force, res, "", ctx.now), false);
            await runAdmission(config.admission, { operation: "CREATE", info, object: obj, oldObject: undefined, ctx });
            return send(201, await store.create(ctx, obj));
          }
          const applied = await store.update(
            ctx,
            info.name,
            (cur) => {
              if (!cur) throw newNotFound(gr, info.name);
              return admit(decodeResult(applyToObject(cur, cfg, manager, force, res, info.subresource, ctx.now), false), cur);
            },
            info.subresource ? { subresource: info.subresource } : {},
          );
          return send(200, applied.object);
        }
        const patch = decodeBody("application/json", body, ["application/json"]).value;
        const r = await store.update(
          ctx,
          info.name,
          (cur) => {
            if (!cur) throw newNotFound(gr, info.name);
            const out = withPatchErrors(() =>
              type === "application/json-patch+json"
                ? applyJSONPatch(cur, patch)
                : type === "application/strategic-merge-patch+json"
                  ? applyStrategicMergePatch(cur, patch, (config.patchSchemaFor ?? defaultPatchSchemaFor)(res))
                  : applyMergePatch(cur, patch),
            );
            return admit(track(cur, decodeResult(out, true)), cur);
          },
          info.subresource ? { subresource: info.subresource } : {},
        );
        return send(200, r.object);
      }
      case "delete":
      case "deletecollection": {
        const { ctx: dctx, options } = deleteRequest(ctx, query, body);
        if (info.verb === "deletecollection") return send(200, await store.deleteCollection(dctx, listParams(query), options));
        const r = await store.delete(dctx, info.name, options);
        if (!r.finalized) return send(200, r.object);
        if (store.strategy.returnDeletedObject) return send(200, r.object);
        return send(200, {
          kind: "Status", apiVersion: "v1", metadata: {}, status: "Success",
          details: { name: info.name, group: res.group, kind: res.plural, uid: r.object.metadata?.uid ?? "" },
        });
      }
      default:
        throw newMethodNotSupported(gr, req.method);
    }
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

function listParams(q: Record<string, string>) {
  const limit = q["limit"] !== undefined ? Number(q["limit"]) : undefined;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw newBadRequest(`limit: Invalid value: "${q["limit"]}": must be a non-negative integer`);
  // An int64 query parameter that does not parse is a 400 in 1.23 (ParameterCodec.DecodeParameters).
  const timeout = q["timeoutSeconds"];
  if (timeout !== undefined && timeout !== "" && !/^[+-]?\d+$/.test(timeout)) throw newBadRequest(`timeoutSeconds: Invalid value: "${timeout}": must be an integer`);
  return {
    ...(q["labelSelector"] !== undefined ? { labelSelector: q["labelSelector"] } : {}),
    ...(q["fieldSelector"] !== undefined ? { fieldSelector: q["fieldSelector"] } : {}),
    ...(limit ? { limit } : {}),
    ...(q["continue"] ? { continue: q["continue"] } : {}),
    ...(q["resourceVersion"] !== undefined ? { resourceVersion: q["resourceVersion"] } : {}),
    ...(q["resourceVersionMatch"] !== undefined ? { resourceVersionMatch: q["resourceVersionMatch"] } : {}),
  };
}

/** A `Warning` header value: `299 - "<text>"` with Go-style quoting. */
export function formatWarning(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

function defaultDecode(res: ResourceInfo, raw: APIObject): { ok: true; value: APIObject; unknownFields: readonly string[] } | { ok: false; message: string } {
  if (!isKindName(res.kind)) return { ok: true, value: raw, unknownFields: [] };
  const r = decodeObject(res.kind, raw, { fieldValidation: "Warn" });
  if (!r.ok) return { ok: false, message: r.errors.map(formatDecodeError).join(", ") };
  return { ok: true, value: r.value as APIObject, unknownFields: r.unknownFields };
}

async function runAdmission(plugins: readonly AdmissionPlugin[] | undefined, attrs: AdmissionAttributes): Promise<void> {
  for (const p of plugins ?? []) await p.mutate?.(attrs);
  for (const p of plugins ?? []) await p.validate?.(attrs);
}

function notFoundStatus(): StatusBody {
  return {
    kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure",
    message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404,
  };
}

function sendStatus(reply: FastifyReply, status: StatusBody) {
  return reply.code(status.code).header("content-type", "application/json").send(Buffer.from(JSON.stringify(status)));
}

function sendObject(reply: FastifyReply, code: number, obj: unknown, accept: NegotiatedResponse, q: Record<string, string>, store: GenericStore, now: Date) {
  const pretty = q["pretty"] === "true";
  let out: unknown = obj;
  if (accept.form === "table" && (obj as APIObject).kind !== "Status") out = toTable(obj as APIObject, store, accept, q, now);
  else if (accept.form === "partial") out = toPartial(obj as APIObject);
  if (accept.form === "yaml") return reply.code(code).header("content-type", accept.contentType).send(Buffer.from(stringifyYAML(out)));
  if ((obj as APIObject).kind === "Status") return reply.code(code).header("content-type", "application/json").send(Buffer.from(JSON.stringify(obj)));
  return reply.code(code).header("content-type", accept.contentType).send(Buffer.from(pretty ? JSON.stringify(out, null, 2) + "\n" : JSON.stringify(out)));
}

function toPartial(obj: APIObject): unknown {
  const v = "meta.k8s.io/v1";
  if (Array.isArray(obj["items"])) {
    return { kind: "PartialObjectMetadataList", apiVersion: v, metadata: obj.metadata, items: (obj["items"] as APIObject[]).map((i) => ({ kind: "PartialObjectMetadata", apiVersion: v, metadata: i.metadata })) };
  }
  return { kind: "PartialObjectMetadata", apiVersion: v, metadata: obj.metadata };
}

function toTable(obj: APIObject, store: GenericStore, accept: NegotiatedResponse, q: Record<string, string>, now: Date): unknown {
  const inc = parseIncludeObject(q["includeObject"]);
  if (!inc.ok) throw newBadRequest(inc.errors.join(", "));
  const isList = Array.isArray(obj["items"]);
  const items = isList ? (obj["items"] as APIObject[]) : [obj];
  const m = (obj.metadata ?? {}) as { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  const listMeta = {
    ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
    ...(isList && m.continue !== undefined ? { continue: m.continue } : {}),
    ...(isList && m.remainingItemCount !== undefined ? { remainingItemCount: m.remainingItemCount } : {}),
  };
  return renderTable(store.strategy.table, items, now, {
    includeObject: inc.value,
    listMeta,
    version: accept.contentType.includes("v=v1beta1") ? "v1beta1" : "v1",
  });
}

// One encoding per (event type, shared object): every JSON watcher of an event writes the same line.
const encodedWatchLines = new WeakMap<object, Map<string, string>>();
function encodeWatchLine(type: string, object: object): string {
  let byType = encodedWatchLines.get(object);
  if (byType === undefined) encodedWatchLines.set(object, (byType = new Map()));
  let line = byType.get(type);
  if (line === undefined) byType.set(type, (line = JSON.stringify({ type, object }) + "\n"));
  return line;
}

async function serveWatch(req: FastifyRequest, reply: FastifyReply, store: GenericStore, ctx: RequestContext, info: RequestInfo, q: Record<string, string>, accept: NegotiatedResponse, minRequestTimeoutSeconds: number) {
  const predicate = store.predicate(listParams(q));
  const rv = q["resourceVersion"];
  const prefix = info.name ? store.key(ctx.namespace, info.name) : store.keyPrefix(ctx.namespace);
  const raw = reply.raw;
  let watcher;
  const initial: APIObject[] = [];
  let fromRev: string | undefined = rv && rv !== "0" ? rv : undefined;
  if (!fromRev) {
    const l = await store.list(ctx, { ...(q["labelSelector"] ? { labelSelector: q["labelSelector"] } : {}), ...(q["fieldSelector"] ? { fieldSelector: q["fieldSelector"] } : {}) });
    for (const i of l["items"] as APIObject[]) if (!info.name || i.metadata?.name === info.name) initial.push(i);
    fromRev = String(l.metadata?.resourceVersion ?? "");
  }
  try {
    // sharedObjects: this handler only serializes events, so the watch cache may hand every
    // watcher the same object (and the same encoded line, below).
    watcher = await store.storage.watch(prefix, { resourceVersion: fromRev, recursive: !info.name, allowBookmarks: q["allowWatchBookmarks"] === "true", sharedObjects: true, ...(predicate ? { predicate } : {}) });
  } catch (e) {
    if (!isStorageError(e, "ResourceVersionExpired")) throw store.interpret(e, info.name);
    // 1.23 answers 200 and one ERROR event carrying the 410 Status.
    reply.hijack();
    raw.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    raw.end(JSON.stringify({ type: "ERROR", object: errorToStatus(newResourceExpired(e.message)) }) + "\n");
    return;
  }
  reply.hijack();
  raw.writeHead(200, { "content-type": accept.form === "table" ? accept.contentType : "application/json", "transfer-encoding": "chunked" });
  // Send the headers now, as 1.23's watch handler flushes at once: clients wait for them.
  raw.flushHeaders();
  let first = true;
  let closed = false;
  req.raw.once("close", () => (closed = true));
  // Backpressure: a client that reads slowly pauses this loop (its events wait in the watch
  // cache's bounded per-watcher buffer) instead of piling encoded bytes up in memory. Without it
  // a thousand watchers replaying a few thousand events ran the process out of heap.
  const send = async (line: string): Promise<void> => {
    if (raw.write(line) || closed) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        raw.off("drain", done);
        raw.off("close", done);
        resolve();
      };
      raw.once("drain", done);
      raw.once("close", done);
    });
  };
  const write = async (type: string, object: unknown): Promise<void> => {
    if (closed) return;
    if (accept.form !== "table" && typeof object === "object" && object !== null && (type === "ADDED" || type === "MODIFIED" || type === "DELETED")) {
      return send(encodeWatchLine(type, object));
    }
    let out = object;
    if (accept.form === "table" && (type === "ADDED" || type === "MODIFIED" || type === "DELETED")) {
      const inc = parseIncludeObject(q["includeObject"]);
      out = renderTable(store.strategy.table, [object as APIObject], new Date(), {
        includeObject: inc.ok ? inc.value : "Metadata",
        noHeaders: !first,
        version: accept.contentType.includes("v=v1beta1") ? "v1beta1" : "v1",
      });
      first = false;
    }
    return send(JSON.stringify({ type, object: out }) + "\n");
  };
  for (const o of initial) await write("ADDED", o);
  const stop = () => watcher.stop();
  req.raw.on("close", stop);
  const timeoutSeconds = resolveWatchTimeoutSeconds(q["timeoutSeconds"], minRequestTimeoutSeconds);
  const timer = setTimeout(stop, timeoutSeconds * 1000);
  try {
    for await (const ev of watcher) {
      if (ev.type === "ERROR") {
        const se = store.interpret(ev.error, "");
        await write("ERROR", errorToStatus(se instanceof StatusError ? se : ev.error));
        break;
      }
      if (ev.type === "BOOKMARK") {
        if (q["allowWatchBookmarks"] === "true") await write("BOOKMARK", { kind: store.strategy.resource.kind, apiVersion: store.strategy.resource.group ? `${store.strategy.resource.group}/${store.strategy.resource.version}` : store.strategy.resource.version, metadata: { resourceVersion: String(ev.revision) } });
        continue;
      }
      await write(ev.type, ev.object);
      if (closed) break;
    }
  } finally {
    clearTimeout(timer);
    req.raw.off("close", stop);
    raw.end();
  }
}
