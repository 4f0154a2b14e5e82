import { createHash } from "node:crypto";
import type { OpenAPIDocument } from "./openapi.js";
import { encodeOpenAPIV2Protobuf } from "./v2-protobuf.js";

/** A Swagger 2.0 document as JSON (`definitions` named as the OpenAPI 3 `components.schemas`). */
export interface Swagger2Document {
  readonly swagger: "2.0";
  readonly info: unknown;
  readonly paths: Readonly<Record<string, unknown>>;
  readonly definitions: Readonly<Record<string, unknown>>;
  readonly securityDefinitions?: Readonly<Record<string, unknown>>;
  readonly security?: unknown;
}

/** The served `/openapi/v2`: the JSON and protobuf bodies with their ETags (quoted SHA-512 hex). */
export interface OpenAPIV2Service {
  readonly json: { readonly body: string; readonly etag: string };
  readonly protobuf: { readonly body: Uint8Array; readonly etag: string };
}

/** An HTTP answer whose body is text (JSON) or bytes (protobuf). */
export interface OpenAPIV2Response {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

/**
 * The protobuf media type of `/openapi/v2` (gnostic `openapi.v2.Document`) as clients ask for it
 * (kubectl ≤ 1.27 sends exactly this Accept). The `@` makes it unparseable by Go's
 * `mime.ParseMediaType`, so answers carry {@link openAPIV2ProtobufContentType} instead.
 */
export const openAPIV2ProtobufMediaType = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/** The Content-Type of protobuf `/openapi/v2` answers (also accepted in `Accept`), as kube-openapi returns it. */
export const openAPIV2ProtobufContentType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

const schemaRef = "#/components/schemas/";
const primitiveTypes = new Set(["string", "integer", "number", "boolean"]);
const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch"]);

function rewriteRef(ref: string): string {
  for (const [from, to] of [
    [schemaRef, "#/definitions/"],
    ["#/components/parameters/", "#/parameters/"],
    ["#/components/responses/", "#/responses/"],
  ] as const)
    if (ref.startsWith(from)) return to + ref.slice(from.length);
  return ref;
}

// oneOf/anyOf of primitives (IntOrString, Quantity) → one Swagger 2 type as Kubernetes publishes
// them: `string` + format `int-or-string` when an integer is allowed, plain `string` otherwise.
function collapseAlternatives(alternatives: readonly unknown[]): Json | undefined {
  const types = alternatives.map((a) => (isObject(a) && typeof a["type"] === "string" && primitiveTypes.has(a["type"]) ? a["type"] : undefined));
  if (types.some((t) => t === undefined)) return undefined;
  if (types.includes("string")) return types.includes("integer") ? { type: "string", format: "int-or-string" } : { type: "string" };
  const only = new Set(types);
  if (only.size === 1) return { type: types[0] };
  if ([...only].every((t) => t === "integer" || t === "number")) return { type: "number" };
  return undefined;
}

function convertSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(convertSchema);
  if (!isObject(value)) return value;
  const out: Json = {};
  const allOf = value["allOf"];
  // `allOf: [{$ref}]` with siblings (description, default) is how v3 annotates a reference;
  // Swagger 2 readers (kubectl's proto models) take `$ref` with the siblings beside it.
  const single = Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0]) && typeof allOf[0]["$ref"] === "string" && Object.keys(allOf[0]).length === 1 ? allOf[0]["$ref"] : undefined;
  if (typeof single === "string" && value["$ref"] === undefined && value["type"] === undefined && value["properties"] === undefined) out["$ref"] = rewriteRef(single);
  const alternatives = Array.isArray(value["oneOf"]) ? value["oneOf"] : Array.isArray(value["anyOf"]) ? value["anyOf"] : undefined;
  if (alternatives !== undefined && value["type"] === undefined && value["$ref"] === undefined) Object.assign(out, collapseAlternatives(alternatives));
  for (const [k, v] of Object.entries(value)) {
    switch (k) {
      case "allOf":
        if (out["$ref"] === undefined) out[k] = convertSchema(v);
        break;
      case "oneOf":
      case "anyOf":
      case "not":
      case "nullable":
      case "writeOnly":
      case "deprecated":
        break;
      case "discriminator":
        if (typeof v === "string") out[k] = v;
        break;
      case "$ref":
        if (typeof v === "string") out[k] = rewriteRef(v);
        break;
      case "properties":
        out[k] = isObject(v) ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, convertSchema(s)])) : v;
        break;
      case "additionalProperties":
      case "items":
        out[k] = convertSchema(v);
        break;
      case "format":
      case "type":
        if (out[k] === undefined) out[k] = v;
        break;
      default:
        out[k] = v;
    }
  }
  return out;
}

const parameterSchemaKeys = [
  "type", "format", "items", "collectionFormat", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
  "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf",
] as const;

function convertParameter(p: unknown): unknown {
  if (!isObject(p)) return p;
  if (typeof p["$ref"] === "string") return { $ref: rewriteRef(p["$ref"]) };
  const out: Json = { name: p["name"], in: p["in"] };
  for (const k of ["description", "required", "allowEmptyValue"] as const) if (p[k] !== undefined) out[k] = p[k];
  const schema = isObject(p["schema"]) ? (convertSchema(p["schema"]) as Json) : {};
  for (const k of parameterSchemaKeys) if (schema[k] !== undefined) out[k] = schema[k];
  if (typeof out["type"] !== "string" || !(primitiveTypes.has(out["type"]) || out["type"] === "array")) {
    out["type"] = "string";
    delete out["format"];
  }
  for (const [k, v] of Object.entries(p)) if (k.startsWith("x-")) out[k] = v;
  return out;
}

function pickContentSchema(content: unknown): unknown {
  if (!isObject(content)) return undefined;
  const json = content["application/json"];
  const entry = isObject(json) ? json : Object.values(content).find(isObject);
  return entry?.["schema"];
}

function convertOperation(op: Json): Json {
  const out: Json = {};
  for (const k of ["tags", "summary", "description", "externalDocs", "operationId"] as const) if (op[k] !== undefined) out[k] = op[k];
  const body = op["requestBody"];
  const consumes = isObject(body) && isObject(body["content"]) ? Object.keys(body["content"]) : [];
  const produces = new Set<string>();
  const responses: Json = {};
  if (isObject(op["responses"]))
    for (const [code, r] of Object.entries(op["responses"])) {
      if (!isObject(r)) continue;
      if (typeof r["$ref"] === "string") {
        responses[code] = { $ref: rewriteRef(r["$ref"]) };
        continue;
      }
      const res: Json = { description: typeof r["description"] === "string" ? r["description"] : "" };
      if (isObject(r["content"])) for (const type of Object.keys(r["content"])) produces.add(type);
      const schema = pickContentSchema(r["content"]);
      if (schema !== undefined) res["schema"] = convertSchema(schema);
      for (const [k, v] of Object.entries(r)) if (k.startsWith("x-")) res[k] = v;
      responses[code] = res;
    }
  if (consumes.length > 0) out["consumes"] = consumes;
  if (produces.size > 0) out["produces"] = [...produces];
  const parameters = Array.isArray(op["parameters"]) ? op["parameters"].map(convertParameter) : [];
  if (isObject(body)) {
    const bodyParam: Json = { name: "body", in: "body", required: body["required"] === true };
    if (typeof body["description"] === "string") bodyParam["description"] = body["description"];
    const schema = pickContentSchema(body["content"]);
    bodyParam["schema"] = schema === undefined ? {} : convertSchema(schema);
    parameters.push(bodyParam);
  }
  if (parameters.length > 0) out["parameters"] = parameters;
  out["responses"] = responses;
  out["schemes"] = ["https"];
  for (const k of ["deprecated", "security"] as const) if (op[k] !== undefined) out[k] = op[k];
  for (const [k, v] of Object.entries(op)) if (k.startsWith("x-")) out[k] = v;
  return out;
}

function convertSecurityScheme(s: unknown): Json | undefined {
  if (!isObject(s)) return undefined;
  const description = typeof s["description"] === "string" ? { description: s["description"] } : {};
  if (s["type"] === "apiKey") return { type: "apiKey", name: s["name"], in: s["in"], ...description };
  if (s["type"] === "http" && typeof s["scheme"] === "string" && s["scheme"].toLowerCase() === "basic") return { type: "basic", ...description };
  if (s["type"] === "http" && typeof s["scheme"] === "string" && s["scheme"].toLowerCase() === "bearer")
    return { type: "apiKey", name: "authorization", in: "header", ...description };
  return undefined;
}

/**
 * Converts the OpenAPI 3 document into the Swagger 2.0 document Kubernetes serves at
 * `/openapi/v2`: `components.schemas` → `definitions` (same names), `#/components/schemas/X` →
 * `#/definitions/X`, a lone `allOf: [{$ref}]` → `$ref` with its siblings kept, primitive
 * `oneOf`/`anyOf` (IntOrString, Quantity) → `type: string` (+ `format: int-or-string` when an
 * integer is allowed), `nullable`/`not`/`writeOnly` dropped; paths keep every operation with
 * `x-kubernetes-*` extensions, parameters flattened from `schema`, `requestBody` → a `body`
 * parameter and `consumes`, response content → `schema` and `produces`; securitySchemes →
 * securityDefinitions. Paths outside `/api` and `/apis` are kept too. Does not mutate `document`.
 *
 * @see staging/src/k8s.io/kube-openapi/pkg/builder/openapi.go (the v2 builder's output shape)
 * @example const swagger = convertOpenAPIV3ToV2(openapiJson); swagger.definitions["io.example.api.batch.v1.Job"]
 */
export function convertOpenAPIV3ToV2(document: OpenAPIDocument): Swagger2Document {
  const paths: Json = {};
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    const out: Json = {};
    for (const [k, v] of Object.entries(item)) {
      if (methods.has(k) && isObject(v)) out[k] = convertOperation(v);
      else if (k === "parameters" && Array.isArray(v)) out[k] = v.map(convertParameter);
      else if (k === "$ref" && typeof v === "string") out[k] = v;
      else if (k.startsWith("x-")) out[k] = v;
    }
    paths[path] = out;
  }
  const definitions: Json = {};
  for (const [name, s] of Object.entries(document.components?.schemas ?? {})) definitions[name] = convertSchema(s);
  const securityDefinitions: Json = {};
  for (const [name, s] of Object.entries(document.components?.securitySchemes ?? {})) {
    const converted = convertSecurityScheme(s);
    if (converted !== undefined) securityDefinitions[name] = converted;
  }
  const info = isObject(document.info) ? Object.fromEntries(Object.entries(document.info).filter(([k]) => ["title", "version", "description", "termsOfService"].includes(k) || k.startsWith("x-"))) : { title: "", version: "" };
  const out: { -readonly [K in keyof Swagger2Document]: Swagger2Document[K] } = { swagger: "2.0", info, paths, definitions };
  if (Object.keys(securityDefinitions).length > 0) out.securityDefinitions = securityDefinitions;
  if (document["security"] !== undefined) out.security = document["security"];
  return out;
}

const etagOf = (body: string | Uint8Array) => `"${createHash("sha512").update(body).digest("hex").toUpperCase()}"`;

/**
 * Builds the `/openapi/v2` bodies once: the Swagger 2.0 JSON of {@link convertOpenAPIV3ToV2} and
 * its gnostic protobuf encoding, each with an ETag (quoted upper-case SHA-512 hex of the bytes, as
 * kube-openapi computes it). Does not mutate `document`.
 *
 * @see staging/src/k8s.io/kube-openapi/pkg/handler/handler.go (BuildAndRegisterOpenAPIVersionedService)
 * @example const v2 = buildOpenAPIV2(openapiJson); handleOpenAPIV2(v2, "/openapi/v2", { accept })
 */
export function buildOpenAPIV2(document: OpenAPIDocument): OpenAPIV2Service {
  const swagger = convertOpenAPIV3ToV2(document);
  const json = JSON.stringify(swagger);
  const protobuf = encodeOpenAPIV2Protobuf(swagger as unknown as Record<string, unknown>);
  return { json: { body: json, etag: etagOf(json) }, protobuf: { body: protobuf, etag: etagOf(protobuf) } };
}

interface AcceptClause {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
  readonly order: number;
}

function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  header.split(",").forEach((raw, order) => {
    const [range = "", ...params] = raw.split(";").map((s) => s.trim());
    const slash = range.indexOf("/");
    if (slash <= 0) return;
    let q = 1;
    for (const p of params) {
      const m = /^q=([0-9.]+)$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (!Number.isFinite(q) || q <= 0) return;
    clauses.push({ type: range.slice(0, slash).toLowerCase(), subtype: range.slice(slash + 1).toLowerCase(), q, order });
  });
  const specificity = (c: AcceptClause) => (c.type === "*" ? 0 : c.subtype === "*" ? 1 : 2);
  return clauses.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
}

function etagMatches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(",").some((t) => {
    const v = t.trim().replace(/^W\//, "");
    return v === "*" || v === etag;
  });
}

/**
 * Answers `GET /openapi/v2` as kube-openapi does: the first Accept clause (by q, then
 * specificity) matching `application/json` or either gnostic protobuf type
 * ({@link openAPIV2ProtobufMediaType}, {@link openAPIV2ProtobufContentType}) picks the body (no or
 * empty Accept → JSON; protobuf answered as {@link openAPIV2ProtobufContentType}); none matching → 406. Sets `ETag`, `Vary: Accept` and answers 304 to a
 * matching `If-None-Match`. `undefined` for any other path (the caller answers 404).
 *
 * @see staging/src/k8s.io/kube-openapi/pkg/handler/handler.go (RegisterOpenAPIVersionedService)
 */
export function handleOpenAPIV2(
  service: OpenAPIV2Service,
  path: string,
  request: { readonly accept?: string; readonly ifNoneMatch?: string } = {},
): OpenAPIV2Response | undefined {
  if (path.replace(/\/+$/, "") !== "/openapi/v2") return undefined;
  const accept = request.accept === undefined || request.accept.trim() === "" ? "*/*" : request.accept;
  const offers = [
    { type: "application", subtype: "json", mediaType: "application/json", variant: service.json },
    { type: "application", subtype: openAPIV2ProtobufMediaType.slice("application/".length), mediaType: openAPIV2ProtobufContentType, variant: service.protobuf },
    { type: "application", subtype: openAPIV2ProtobufContentType.slice("application/".length), mediaType: openAPIV2ProtobufContentType, variant: service.protobuf },
  ];
  for (const clause of parseAccept(accept)) {
    const offer = offers.find((o) => (clause.type === "*" || clause.type === o.type) && (clause.subtype === "*" || clause.subtype === o.subtype));
    if (offer === undefined) continue;
    const headers = { etag: offer.variant.etag, vary: "Accept", "content-type": offer.mediaType };
    if (request.ifNoneMatch !== undefined && etagMatches(request.ifNoneMatch, offer.variant.etag)) return { status: 304, headers, body: "" };
    return { status: 200, headers, body: offer.variant.body };
  }
  return { status: 406, headers: { vary: "Accept", "content-type": "text/plain; charset=utf-8" }, body: "406 Not Acceptable: /openapi/v2 serves application/json and the gnostic protobuf" };
}
