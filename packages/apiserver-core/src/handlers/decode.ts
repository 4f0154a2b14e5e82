/**
 * Decoding of request objects for the write handlers: the body (JSON, YAML or protobuf) into the
 * endpoint's kind, structural decoding with `fieldValidation`, then the kind's defaults — the one
 * place defaulting runs on the request path, as 1.23's codec defaults while decoding.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go (decoding the body)
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/serializer/versioning/versioning.go (gvkWithDefaults, defaulting)
 */
import { checkObjectDepth, maxPatchedObjectBytes, newBadRequest, newRequestEntityTooLarge } from "@skiff/apimachinery";
import type { ResourceInfo } from "@skiff/api-types";
import { decodeObject, formatDecodeError, isKindName } from "@skiff/validation";
import { assertDocumentLimits, bodyMediaTypes, decodeBody } from "../negotiation/negotiation.js";
import { decodeProtobufObject } from "../negotiation/protobuf-object.js";
import type { APIObject } from "../registry/strategy.js";
import type { DecodeFunc, RequestScope } from "./scope.js";

// The protobuf decoder follows the kinds' schemas; its result is held to the same bounds as JSON.
function decodeProtobufBounded(body: Buffer): Record<string, unknown> {
  const v = decodeProtobufObject(body);
  assertDocumentLimits(v, "protobuf: ");
  return v;
}

// An object's own fields nest at most maxObjectDepth levels, so that it stays within the decoders'
// bound once its managedFields are added (and round-trips through GET and PUT).
function assertObjectDepth(o: APIObject): void {
  const problem = checkObjectDepth(o);
  if (problem) throw newBadRequest(`error decoding the object: ${problem.message} (fields other than metadata.managedFields)`);
}

const isProtobufBody = (contentType: string | undefined): boolean => (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/vnd.kubernetes.protobuf";

/**
 * The default {@link DecodeFunc}: @skiff/validation's `decodeObject` for the kinds it knows
 * (unknown fields reported, type errors refused); other kinds pass through unchanged.
 */
export const defaultDecode: DecodeFunc = (res: ResourceInfo, raw: APIObject) => {
  if (!isKindName(res.kind)) return { ok: true, value: raw, unknownFields: [] };
  const r = decodeObject(res.kind, raw, { fieldValidation: "Warn" });
  if (!r.ok) return { ok: false, message: r.errors.map(formatDecodeError).join(", ") };
  return { ok: true, value: r.value as APIObject, unknownFields: r.unknownFields };
};

/**
 * The request body as a plain value (JSON, YAML, or kubectl's protobuf `Unknown` envelope),
 * not yet checked against any kind.
 * @throws StatusError 415 (a media type the endpoint does not take), 400 (undecodable body)
 */
export function decodeRequestBody(scope: RequestScope): unknown {
  const { body, contentType } = scope.req;
  if (Buffer.isBuffer(body) && isProtobufBody(contentType)) return decodeProtobufBounded(body);
  return decodeBody(contentType, typeof body === "string" ? body : "", bodyMediaTypes).value;
}

/**
 * Decodes the body of a create or update into the endpoint's kind and applies its defaults.
 * A missing `apiVersion`/`kind` takes the endpoint's; another kind, a namespace other than the
 * path's, or (with `fieldValidation=Strict`) unknown or duplicate fields are refused;
 * `fieldValidation=Warn` adds them to the request's warnings. The body is held to the decoders'
 * bounds (`maxDocumentDepth`, YAML aliases) and the object's own fields to `maxObjectDepth`.
 * @throws StatusError 400 (as described; decode errors; `exceeded max depth`), 415 (unsupported media type)
 */
export function decodeRequestObject(scope: RequestScope): APIObject {
  const { body, contentType } = scope.req;
  const res = scope.store.strategy.resource;
  const apiVersion = res.group ? `${res.group}/${res.version}` : res.version;
  const text = typeof body === "string" ? body : "";
  // kubectl's imperative creates send protobuf (negotiation/protobuf-object.ts).
  // Duplicate keys matter only to a fieldValidation that warns or refuses (1.23 ignores them otherwise).
  const findDuplicates = scope.fieldValidation === "Strict" || scope.fieldValidation === "Warn";
  const d = Buffer.isBuffer(body) && isProtobufBody(contentType) ? { value: decodeProtobufBounded(body), duplicateFields: [] as string[] } : decodeBody(contentType, text, bodyMediaTypes, { findDuplicates });
  const obj = d.value;
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw newBadRequest("Object 'Kind' is missing in '" + text.slice(0, 80) + "'");
  const o = obj as APIObject;
  // 1.23's serializer defaults a missing apiVersion or kind to the endpoint's (gvkWithDefaults);
  // any other group/version/kind cannot be decoded into this kind (transformDecodeError).
  if (o.apiVersion === undefined || o.apiVersion === "") o.apiVersion = apiVersion;
  if (o.kind === undefined || o.kind === "") o.kind = res.kind;
  if (o.apiVersion !== apiVersion || o.kind !== res.kind) {
    const gv = String(o.apiVersion);
    throw newBadRequest(`${String(o.kind)} in version "${gv.slice(gv.indexOf("/") + 1)}" cannot be handled as a ${res.kind}: no kind "${String(o.kind)}" is registered for version "${gv}"`);
  }
  assertObjectDepth(o);
  const decoded = scope.config.decode(res, o);
  if (!decoded.ok) throw newBadRequest(decoded.message);
  const problems = [...decoded.unknownFields.map((f) => `unknown field "${f}"`), ...d.duplicateFields.map((f) => `duplicate field "${f}"`)];
  if (scope.fieldValidation === "Strict" && problems.length > 0) throw newBadRequest(`strict decoding error: ${problems.join(", ")}`);
  if (scope.fieldValidation === "Warn") scope.ctx.warnings.push(...problems);
  if (o.metadata?.namespace && scope.ctx.namespace && o.metadata.namespace !== scope.ctx.namespace) {
    throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  scope.store.strategy.applyDefaults(decoded.value);
  return decoded.value;
}

/**
 * Decodes a patched or applied object into the endpoint's kind and applies its defaults. With
 * `strict`, unknown fields follow `fieldValidation` as in {@link decodeRequestObject}.
 * @throws StatusError 400 (not a JSON object; type errors; strict unknown fields)
 */
export function decodePatchedObject(scope: RequestScope, o: unknown, strict: boolean): APIObject {
  const value = decodeStructurally(scope, o, strict);
  scope.store.strategy.applyDefaults(value);
  return value;
}

/**
 * Structural decoding only (no defaults): what an apply configuration is checked with before it
 * is merged (its own fields, not the defaults, are the applier's). The object is first held to the
 * decoders' bounds (`maxDocumentDepth` levels, no cycle) and to `maxPatchedObjectBytes`.
 * @throws StatusError 400 as {@link decodePatchedObject} and for a too deep object; 413 for one
 *   larger than `maxPatchedObjectBytes`
 */
export function decodeStructurally(scope: RequestScope, o: unknown, strict: boolean): APIObject {
  if (!o || typeof o !== "object" || Array.isArray(o)) throw newBadRequest("the patched object must be a JSON object");
  // A patch can nest or grow what it patches: the result is held to the decoders' bounds.
  assertDocumentLimits(o, "error decoding the patched object: ");
  assertObjectDepth(o as APIObject);
  const bytes = JSON.stringify(o).length;
  if (bytes > maxPatchedObjectBytes) throw newRequestEntityTooLarge(`the patched object is ${bytes} bytes, larger than the limit of ${maxPatchedObjectBytes} bytes`);
  const decoded = scope.config.decode(scope.store.strategy.resource, o as APIObject);
  if (!decoded.ok) throw newBadRequest(decoded.message);
  const problems = decoded.unknownFields.map((f) => `unknown field "${f}"`);
  if (strict && scope.fieldValidation === "Strict" && problems.length > 0) throw newBadRequest(`strict decoding error: ${problems.join(", ")}`);
  if (strict && scope.fieldValidation === "Warn") scope.ctx.warnings.push(...problems);
  return decoded.value;
}
