/**
 * What every REST handler is given: the request as plain data (no HTTP framework), the resource's
 * store, the server's handler configuration, and the request context built from the common query
 * options (`dryRun`, `fieldManager`, `fieldValidation`) — 1.23's `RequestScope`.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go (RequestScope)
 */
import { newBadRequest, newNotFound } from "@skiff/apimachinery";
import type { PatchSchema } from "@skiff/apimachinery";
import type { ResourceInfo } from "@skiff/api-types";
import { negotiateResponse } from "../negotiation/negotiation.js";
import type { NegotiatedResponse } from "../negotiation/negotiation.js";
import type { GenericStore, ListParams } from "../registry/store.js";
import type { APIObject, RequestContext, UserInfo } from "../registry/strategy.js";
import { convertQueryInt64 } from "../request/query-params.js";
import type { RequestInfo } from "../request/request-info.js";
import type { AdmissionPlugin } from "./admission.js";

/**
 * Structural decoding of a request object: the typed value, or a decode error (→ 400), and the
 * unknown field paths found (for `fieldValidation`).
 */
export type DecodeFunc = (resource: ResourceInfo, raw: APIObject) => { ok: true; value: APIObject; unknownFields: readonly string[] } | { ok: false; message: string };

/** The server-wide part of a handler's configuration. */
export interface HandlerConfig {
  readonly admission: readonly AdmissionPlugin[];
  readonly decode: DecodeFunc;
  /** The strategic-merge-patch schema of a resource. */
  readonly patchSchemaFor: (resource: ResourceInfo) => PatchSchema;
  /** Watches without `timeoutSeconds` last a random time in [min, 2·min) seconds. */
  readonly minRequestTimeoutSeconds: number;
}

/** One API request as plain data, as the HTTP adapter read it. */
export interface HandlerRequest {
  readonly info: RequestInfo;
  /** The HTTP method (upper case), for 405 messages. */
  readonly method: string;
  /** Query parameters: the first value of a repeated one, as 1.23's option conversions take it (see `request/query-params.ts`). */
  readonly query: Readonly<Record<string, string>>;
  /** Every `dryRun` value of the query, in order. */
  readonly dryRun: readonly string[];
  /** The body: text, or the raw bytes of a protobuf body. */
  readonly body: string | Buffer;
  readonly contentType: string | undefined;
  readonly accept: string | undefined;
  readonly userAgent: string | undefined;
  readonly user: UserInfo;
  /** The request's clock reading. */
  readonly now: Date;
}

/** A request bound to its resource: what the per-verb handlers take. */
export interface RequestScope {
  readonly req: HandlerRequest;
  readonly store: GenericStore;
  readonly config: HandlerConfig;
  /** The request context (namespace, user, now, dryRun, warnings) the store and strategies see. */
  readonly ctx: RequestContext;
  /** The response form negotiated from `Accept`. */
  readonly accept: NegotiatedResponse;
  /** The managedFields manager: `fieldManager`, else the user agent's first segment, else `unknown`. */
  readonly manager: string;
  /** The `fieldValidation` option (`Strict`, `Warn`, `Ignore`, `""`), if given. */
  readonly fieldValidation: string | undefined;
}

/**
 * Builds the scope of `req` for `store`: checks the options every write shares (1.23's messages)
 * and the namespace a namespaced resource needs.
 * @throws StatusError 406 (an `Accept` the server cannot produce), 400 (a `dryRun` value other than `All`; a `fieldManager` longer than 128
 *   characters or not printable; an unknown `fieldValidation`), 404 (a namespaced object's verb
 *   without a namespace in the path)
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go (dryRun and fieldManager checks)
 */
export function newRequestScope(req: HandlerRequest, store: GenericStore, config: HandlerConfig): RequestScope {
  const res = store.strategy.resource;
  const { info, query } = req;
  const accept = negotiateResponse(req.accept);
  for (const v of req.dryRun) if (v !== "All") throw newBadRequest(`Invalid dryRun value: ${v}. Valid values: All`);
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
    user: req.user,
    now: req.now,
    dryRun: req.dryRun.length > 0,
    warnings: [],
  };
  if (res.namespaced && !ctx.namespace && info.verb !== "list" && info.verb !== "watch") throw newNotFound({ group: res.group, resource: res.plural }, info.name);
  return {
    req,
    store,
    config,
    ctx,
    accept,
    manager: fieldManager || (req.userAgent ?? "").split("/")[0] || "unknown",
    fieldValidation,
  };
}

/**
 * The list options of a list, watch or deletecollection query: selectors, paging and
 * resourceVersion, unparsed (the store parses and checks them), converted as 1.23's
 * `url.Values → ListOptions`: the first value of each parameter; `limit` and `timeoutSeconds` are
 * int64 (a `limit` of 0 or below means no paging, as 1.23's storage reads `Limit > 0`).
 * @throws StatusError 400 (`limit` or `timeoutSeconds` not an int64: `strconv.ParseInt: parsing "x": invalid syntax`)
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go (ListResource: DecodeParameters → BadRequest)
 */
export function listParams(q: Readonly<Record<string, string>>): ListParams {
  const limit = convertQueryInt64(q["limit"]);
  convertQueryInt64(q["timeoutSeconds"]);
  return {
    ...(q["labelSelector"] !== undefined ? { labelSelector: q["labelSelector"] } : {}),
    ...(q["fieldSelector"] !== undefined ? { fieldSelector: q["fieldSelector"] } : {}),
    ...(limit !== undefined && limit > 0 ? { limit } : {}),
    ...(q["continue"] ? { continue: q["continue"] } : {}),
    ...(q["resourceVersion"] !== undefined ? { resourceVersion: q["resourceVersion"] } : {}),
    ...(q["resourceVersionMatch"] !== undefined ? { resourceVersionMatch: q["resourceVersionMatch"] } : {}),
  };
}

/** The subresource option of a store write: `{ subresource }` for `/status`-style paths, else `{}`. */
export function subresourceOption(scope: RequestScope): { subresource?: string } {
  return scope.req.info.subresource ? { subresource: scope.req.info.subresource } : {};
}
