/**
 * What a REST handler returns, and its encoding into a response: the negotiated form (JSON,
 * YAML, `Table`, `PartialObjectMetadata`), `pretty`, and the request's warnings as `Warning`
 * headers. `Status` bodies are JSON (YAML when asked for).
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (transformResponseObject)
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/writers.go (WriteObjectNegotiated)
 */
import { newBadRequest } from "@skiff/apimachinery";
import type { StatusBody } from "@skiff/apimachinery";
import { stringify as stringifyYAML } from "yaml";
import type { NegotiatedResponse } from "../negotiation/negotiation.js";
import type { GenericStore } from "../registry/store.js";
import type { APIObject } from "../registry/strategy.js";
import { isPrettyPrint } from "../request/query-params.js";
import { parseIncludeObject, renderTable } from "../table/index.js";
import type { RequestScope } from "./scope.js";

/**
 * A watch response's output, implemented by the HTTP adapter over its socket.
 */
export interface WatchSink {
  /** Answers 200 with `contentType`, chunked, and sends the headers at once (clients wait for them). */
  start(contentType: string): void;
  /** Writes `chunk`; resolves when the client may take more (backpressure) or has gone. */
  write(chunk: string): Promise<void>;
  /** Whether the client has gone. */
  readonly closed: boolean;
  /** Calls `listener` once when the client goes; returns a function removing it. */
  onClose(listener: () => void): () => void;
  /** Ends the response. */
  end(): void;
}

/** What a handler answers. */
export type HandlerResult =
  /** An object (or `Status`) to encode in the negotiated form. */
  | { readonly type: "object"; readonly code: number; readonly object: unknown }
  /** A list already encoded as JSON text (plain JSON lists, written without building objects). */
  | { readonly type: "encoded"; readonly code: number; readonly text: string }
  /** A streamed response (watch): the adapter hands `run` its sink. */
  | { readonly type: "stream"; run(sink: WatchSink): Promise<void> };

/** An encoded response. */
export interface EncodedResponse {
  readonly code: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: Buffer;
}

/** A `Warning` header value: `299 - "<text>"` with Go-style quoting. */
export function formatWarning(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

/** 1.23's answer to a path no route serves: 404 `the server could not find the requested resource`. */
export function notFoundStatus(): StatusBody {
  return {
    kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure",
    message: "the server could not find the requested resource", reason: "NotFound", details: {}, code: 404,
  };
}

/** A `Status` as its HTTP response (always JSON). */
export function encodeStatus(status: StatusBody): EncodedResponse {
  return { code: status.code, headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify(status)) };
}

/**
 * Encodes a non-stream handler result for `scope`'s negotiated form, with its warnings.
 * @throws StatusError 400 (an invalid `includeObject` for a Table)
 */
export function encodeResult(scope: RequestScope, result: Exclude<HandlerResult, { type: "stream" }>): EncodedResponse {
  const warnings = scope.ctx.warnings.length > 0 ? { Warning: scope.ctx.warnings.map(formatWarning) } : {};
  if (result.type === "encoded") return { code: result.code, headers: { ...warnings, "content-type": scope.accept.contentType }, body: Buffer.from(result.text) };
  const { code, object: obj } = result;
  const { accept } = scope;
  const q = scope.req.query;
  // A Status (a delete's Success) is JSON unless YAML was asked for.
  if ((obj as APIObject).kind === "Status" && accept.form !== "yaml") return { code, headers: { ...warnings, "content-type": "application/json" }, body: Buffer.from(JSON.stringify(obj)) };
  let out: unknown = obj;
  if (accept.form === "table") out = toTable(obj as APIObject, scope.store, accept, q, scope.ctx.now);
  else if (accept.form === "partial") out = toPartial(obj as APIObject);
  const headers = { ...warnings, "content-type": accept.contentType };
  if (accept.form === "yaml") return { code, headers, body: Buffer.from(stringifyYAML(out)) };
  return { code, headers, body: Buffer.from(isPrettyPrint(q["pretty"], scope.req.userAgent) ? JSON.stringify(out, null, 2) + "\n" : JSON.stringify(out)) };
}

function toPartial(obj: APIObject): unknown {
  const v = "meta.k8s.io/v1";
  if (Array.isArray(obj["items"])) {
    return { kind: "PartialObjectMetadataList", apiVersion: v, metadata: obj.metadata, items: (obj["items"] as APIObject[]).map((i) => ({ kind: "PartialObjectMetadata", apiVersion: v, metadata: i.metadata })) };
  }
  return { kind: "PartialObjectMetadata", apiVersion: v, metadata: obj.metadata };
}

function toTable(obj: APIObject, store: GenericStore, accept: NegotiatedResponse, q: Readonly<Record<string, string>>, now: Date): unknown {
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
