import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { buildOpenAPIV2, convertOpenAPIV3ToV2, handleOpenAPIV2, openAPIV2ProtobufContentType, openAPIV2ProtobufMediaType } from "./index.js";
import type { OpenAPIDocument } from "./index.js";

const require = createRequire(import.meta.url);
const raw = readFileSync(require.resolve("@skiff/api-types/openapi.json"), "utf8");
const doc = JSON.parse(raw) as OpenAPIDocument;
const swagger = convertOpenAPIV3ToV2(doc);
const svc = buildOpenAPIV2(doc);

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`not an object: ${JSON.stringify(v)}`);
  return v as Json;
};
const def = (name: string) => obj(swagger.definitions[name]);
const op = (path: string, method: string) => obj(obj(swagger.paths[path])[method]);

function walk(value: unknown, visit: (o: Json) => void): void {
  if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (value !== null && typeof value === "object") {
    visit(value as Json);
    for (const v of Object.values(value)) walk(v, visit);
  }
}

describe("convertOpenAPIV3ToV2 on the served document", () => {
  it("is Swagger 2.0 with every component schema as a definition under the same name", () => {
    expect(swagger.swagger).toBe("2.0");
    expect(Object.keys(swagger.definitions).sort()).toEqual(Object.keys(doc.components?.schemas ?? {}).sort());
    expect(swagger.definitions).toHaveProperty(["io.example.api.batch.v1.Job"]);
    expect(swagger.definitions).toHaveProperty(["io.example.api.storage.v1.CSIDriver"]);
  });

  it("rewrites every $ref to #/definitions/ and each one resolves; no OpenAPI 3 keywords remain", () => {
    let refs = 0;
    walk(swagger, (o) => {
      for (const k of ["oneOf", "anyOf", "nullable", "requestBody", "components"]) expect(o, k).not.toHaveProperty([k]);
      const ref = o["$ref"];
      if (typeof ref !== "string") return;
      refs++;
      expect(ref).toMatch(/^#\/definitions\//);
      expect(swagger.definitions[ref.slice("#/definitions/".length)], ref).toBeDefined();
    });
    expect(refs).toBeGreaterThan(100);
  });

  it("a lone allOf [$ref] becomes $ref with its description beside it, as Kubernetes' v2 has it", () => {
    const template = obj(obj(def("io.example.api.batch.v1.JobSpec")["properties"])["template"]);
    expect(template["$ref"]).toBe("#/definitions/io.example.api.core.v1.PodTemplateSpec");
    expect(template["description"]).toEqual(expect.any(String));
    expect(template).not.toHaveProperty(["allOf"]);
  });

  it("IntOrString and Quantity collapse to type string (IntOrString with format int-or-string)", () => {
    expect(def("io.example.apimachinery.pkg.util.intstr.IntOrString")).toMatchObject({ type: "string", format: "int-or-string", "x-kubernetes-int-or-string": true });
    const quantity = def("io.example.apimachinery.pkg.api.resource.Quantity");
    expect(quantity["type"]).toBe("string");
    expect(quantity).not.toHaveProperty(["format"]);
  });

  it("keeps x-kubernetes-group-version-kind on kinds and the list/patch-strategy extensions", () => {
    expect(def("io.example.api.batch.v1.Job")["x-kubernetes-group-version-kind"]).toEqual([{ group: "batch", version: "v1", kind: "Job" }]);
    let patchStrategies = 0;
    walk(swagger.definitions, (o) => {
      if (o["x-kubernetes-patch-strategy"] !== undefined) patchStrategies++;
    });
    expect(patchStrategies).toBeGreaterThan(0);
  });

  it("operations carry GVK and action; PATCH has the fieldValidation query parameter and a body", () => {
    const patch = op("/apis/batch/v1/namespaces/{namespace}/jobs/{name}", "patch");
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "batch", version: "v1", kind: "Job" });
    expect(patch["x-kubernetes-action"]).toBe("patch");
    const params = (patch["parameters"] as Json[]).map(obj);
    expect(params).toContainEqual(expect.objectContaining({ name: "fieldValidation", in: "query", type: "string" }));
    expect(params).toContainEqual(expect.objectContaining({ name: "namespace", in: "path", required: true, type: "string" }));
    const body = params.find((p) => p["in"] === "body");
    expect(body).toMatchObject({ name: "body", required: true });
    expect(patch["consumes"]).toEqual(expect.arrayContaining(["application/merge-patch+json", "application/strategic-merge-patch+json"]));
    for (const p of params.filter((x) => x["in"] !== "body")) expect(p, String(p["name"])).not.toHaveProperty(["schema"]);
  });

  it("responses take the JSON schema; produces lists every response media type", () => {
    const list = op("/apis/batch/v1/namespaces/{namespace}/jobs", "get");
    expect(obj(obj(list["responses"])["200"])["schema"]).toEqual({ $ref: "#/definitions/io.example.api.batch.v1.JobList" });
    expect(list["produces"]).toEqual(expect.arrayContaining(["application/json", "application/json;stream=watch"]));
  });

  it("securitySchemes become securityDefinitions; security is kept", () => {
    expect(swagger.securityDefinitions).toEqual({ BearerToken: expect.objectContaining({ type: "apiKey", name: "authorization", in: "header" }) });
    expect(swagger.security).toEqual([{ BearerToken: [] }]);
  });

  it("does not mutate its input", () => {
    expect(JSON.stringify(doc)).toBe(JSON.stringify(JSON.parse(raw)));
  });
});

describe("convertOpenAPIV3ToV2 edge cases", () => {
  const tiny = (schemas: Json, paths: Json = {}, securitySchemes?: Json): OpenAPIDocument => ({
    openapi: "3.0.0",
    info: { title: "t", version: "1", "x-extra": 1, contact: { name: "dropped" } },
    paths,
    components: securitySchemes === undefined ? { schemas } : { schemas, securitySchemes },
  });

  it("drops nullable and non-primitive oneOf, keeps multi-entry allOf with rewritten refs and boolean additionalProperties", () => {
    const out = convertOpenAPIV3ToV2(
      tiny({
        A: { type: "object", nullable: true, additionalProperties: false, properties: { x: { oneOf: [{ $ref: "#/components/schemas/B" }, { type: "string" }] } } },
        B: { allOf: [{ $ref: "#/components/schemas/A" }, { type: "object", properties: { y: { type: "integer", writeOnly: true } } }] },
        C: { anyOf: [{ type: "integer" }, { type: "number" }] },
        D: { oneOf: [{ type: "boolean" }] },
        E: { oneOf: [{ type: "boolean" }, { type: "integer" }] },
      }),
    );
    expect(out.definitions["A"]).toEqual({ type: "object", additionalProperties: false, properties: { x: {} } });
    expect(out.definitions["B"]).toEqual({ allOf: [{ $ref: "#/definitions/A" }, { type: "object", properties: { y: { type: "integer" } } }] });
    expect(out.definitions["C"]).toEqual({ type: "number" });
    expect(out.definitions["D"]).toEqual({ type: "boolean" });
    expect(out.definitions["E"]).toEqual({});
    expect(out.info).toEqual({ title: "t", version: "1", "x-extra": 1 });
  });

  it("flattens parameter schemas (non-primitive → string), rewrites parameter and response refs, maps http auth schemes", () => {
    const out = convertOpenAPIV3ToV2(
      tiny(
        {},
        {
          "/x": {
            parameters: [{ $ref: "#/components/parameters/P" }],
            summary: "dropped",
            get: {
              parameters: [
                { name: "o", in: "query", schema: { $ref: "#/components/schemas/A" } },
                { name: "l", in: "query", schema: { type: "array", items: { type: "string" }, uniqueItems: true } },
                { name: "e", in: "header", schema: { type: "string", enum: ["a", "b"], default: "a" }, "x-k": true },
              ],
              responses: { "404": { $ref: "#/components/responses/NotFound" }, "204": { description: "none" } },
            },
          },
        },
        { basic: { type: "http", scheme: "Basic" }, bearer: { type: "http", scheme: "bearer" }, oauth: { type: "oauth2", flows: {} } },
      ),
    );
    const item = obj(out.paths["/x"]);
    expect(item).toEqual({ parameters: [{ $ref: "#/parameters/P" }], get: expect.any(Object) });
    const get = obj(item["get"]);
    expect(get["parameters"]).toEqual([
      { name: "o", in: "query", type: "string" },
      { name: "l", in: "query", type: "array", items: { type: "string" }, uniqueItems: true },
      { name: "e", in: "header", type: "string", enum: ["a", "b"], default: "a", "x-k": true },
    ]);
    expect(get["responses"]).toEqual({ "404": { $ref: "#/responses/NotFound" }, "204": { description: "none" } });
    expect(get).not.toHaveProperty(["produces"]);
    expect(out.securityDefinitions).toEqual({ basic: { type: "basic" }, bearer: { type: "apiKey", name: "authorization", in: "header" } });
  });

  it("a document without components yields empty definitions and no securityDefinitions", () => {
    const out = convertOpenAPIV3ToV2({ openapi: "3.0.0", info: "bogus", paths: { "/y": "bogus" } });
    expect(out).toEqual({ swagger: "2.0", info: { title: "", version: "" }, paths: {}, definitions: {} });
  });
});

describe("handleOpenAPIV2", () => {
  it("serves protobuf to kubectl's Accept and JSON to application/json, */* and no Accept", () => {
    const pb = handleOpenAPIV2(svc, "/openapi/v2", { accept: openAPIV2ProtobufMediaType });
    expect(pb?.status).toBe(200);
    // Answered with the dotted type: Go's mime.ParseMediaType (client-go) rejects the `@` one.
    expect(pb?.headers["content-type"]).toBe(openAPIV2ProtobufContentType);
    expect(pb?.body).toBeInstanceOf(Uint8Array);
    expect(pb?.body).toBe(svc.protobuf.body);
    for (const accept of ["application/json", "*/*", "application/*", "", undefined]) {
      const res = handleOpenAPIV2(svc, "/openapi/v2/", accept === undefined ? {} : { accept });
      expect(res?.headers["content-type"], String(accept)).toBe("application/json");
      expect(JSON.parse(String(res?.body))).toEqual(swagger);
    }
  });

  it("orders Accept clauses by q, then specificity; 406 when nothing matches; q=0 excludes", () => {
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: `application/json;q=0.5, ${openAPIV2ProtobufMediaType}` })?.headers["content-type"]).toBe(openAPIV2ProtobufContentType);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: `*/*, ${openAPIV2ProtobufMediaType}` })?.headers["content-type"]).toBe(openAPIV2ProtobufContentType);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: openAPIV2ProtobufContentType })?.body).toBe(svc.protobuf.body);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: "text/html" })?.status).toBe(406);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: "application/json;q=0" })?.status).toBe(406);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: "garbage, ;;, /" })?.status).toBe(406);
  });

  it("sets ETag and Vary, answers 304 to a matching If-None-Match (per representation)", () => {
    const res = handleOpenAPIV2(svc, "/openapi/v2", { accept: openAPIV2ProtobufMediaType });
    expect(res?.headers).toMatchObject({ etag: svc.protobuf.etag, vary: "Accept" });
    expect(svc.protobuf.etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(svc.json.etag).not.toBe(svc.protobuf.etag);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: openAPIV2ProtobufMediaType, ifNoneMatch: svc.protobuf.etag })?.status).toBe(304);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: openAPIV2ProtobufMediaType, ifNoneMatch: `W/${svc.protobuf.etag}` })?.status).toBe(304);
    expect(handleOpenAPIV2(svc, "/openapi/v2", { accept: openAPIV2ProtobufMediaType, ifNoneMatch: svc.json.etag })?.status).toBe(200);
  });

  it("is undefined for other paths", () => {
    expect(handleOpenAPIV2(svc, "/openapi/v3", {})).toBeUndefined();
    expect(handleOpenAPIV2(svc, "/openapi/v2x", {})).toBeUndefined();
  });
});
