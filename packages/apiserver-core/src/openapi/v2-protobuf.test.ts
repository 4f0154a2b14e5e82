import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse as parseYAML } from "yaml";
import { convertOpenAPIV3ToV2, encodeOpenAPIV2Protobuf } from "./index.js";
import type { OpenAPIDocument } from "./index.js";

// A generic proto3 wire-format reader: field number → values (varint as bigint, 64-bit as a
// double, length-delimited as bytes). Independent of the encoder, so field numbers are checked
// against gnostic's OpenAPIv2.proto as written here.
type Value = bigint | number | Uint8Array;
type Fields = Map<number, Value[]>;

function decode(bytes: Uint8Array): Fields {
  const out: Fields = new Map();
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[i++];
      if (b === undefined) throw new Error("truncated varint");
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < bytes.length) {
    const key = Number(varint());
    const field = key >> 3;
    const wire = key & 7;
    let value: Value;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = Buffer.from(bytes.subarray(i, i + 8)).readDoubleLE(0);
      i += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      value = bytes.subarray(i, i + len);
      if (value.length !== len) throw new Error("truncated bytes");
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const bytesOf = (v: Value | undefined): Uint8Array => {
  if (!(v instanceof Uint8Array)) throw new Error("not length-delimited");
  return v;
};
const msg = (f: Fields, n: number): Fields => decode(bytesOf(f.get(n)?.[0]));
const msgs = (f: Fields, n: number): Fields[] => (f.get(n) ?? []).map((v) => decode(bytesOf(v)));
const str = (f: Fields, n: number): string | undefined => (f.has(n) ? Buffer.from(bytesOf(f.get(n)?.[0])).toString("utf8") : undefined);
const strs = (f: Fields, n: number): string[] => (f.get(n) ?? []).map((v) => Buffer.from(bytesOf(v)).toString("utf8"));
// NamedX: name = 1, value = 2.
const named = (list: Fields[]): Map<string, Fields> => new Map(list.map((n) => [str(n, 1) ?? "", msg(n, 2)]));
// NamedAny → value.yaml parsed.
const extensions = (f: Fields, n: number): Record<string, unknown> =>
  Object.fromEntries(msgs(f, n).map((na) => [str(na, 1), parseYAML(str(msg(na, 2), 2) ?? "") as unknown]));

const require = createRequire(import.meta.url);
const doc = JSON.parse(readFileSync(require.resolve("@skiff/api-types/openapi.json"), "utf8")) as OpenAPIDocument;
const swagger = convertOpenAPIV3ToV2(doc);
const document = decode(encodeOpenAPIV2Protobuf(swagger as unknown as Record<string, unknown>));

describe("encodeOpenAPIV2Protobuf (gnostic openapi.v2.Document)", () => {
  it("Document: swagger = 1, info = 2 (title 1, version 2), security = 12, securityDefinitions = 13", () => {
    expect(str(document, 1)).toBe("2.0");
    const info = msg(document, 2);
    expect(str(info, 1)).toBe("Skiff");
    expect(str(info, 2)).toBe("unversioned");
    const security = msgs(document, 12);
    expect(security).toHaveLength(1);
    expect(str(msgs(security[0] ?? new Map(), 1)[0] ?? new Map(), 1)).toBe("BearerToken");
    const bearer = named(msgs(msg(document, 13), 1)).get("BearerToken");
    const apiKey = msg(bearer ?? new Map(), 2);
    expect([str(apiKey, 1), str(apiKey, 2), str(apiKey, 3)]).toEqual(["apiKey", "authorization", "header"]);
  });

  it("definitions = 9: every definition by name; Job's GVK is a yaml vendor extension (31); properties (25) and $ref (1)", () => {
    const defs = named(msgs(msg(document, 9), 1));
    expect([...defs.keys()].sort()).toEqual(Object.keys(swagger.definitions).sort());
    const job = defs.get("io.example.api.batch.v1.Job") ?? new Map();
    expect(strs(msg(job, 22), 1)).toEqual(["object"]);
    expect(str(job, 4)).toMatch(/^A batch workload/);
    expect(extensions(job, 31)).toEqual({ "x-kubernetes-group-version-kind": [{ group: "batch", version: "v1", kind: "Job" }] });
    const props = named(msgs(msg(job, 25), 1));
    expect([...props.keys()]).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    expect(str(props.get("spec") ?? new Map(), 1)).toBe("#/definitions/io.example.api.batch.v1.JobSpec");
    const intOrString = defs.get("io.example.apimachinery.pkg.util.intstr.IntOrString") ?? new Map();
    expect([strs(msg(intOrString, 22), 1), str(intOrString, 2)]).toEqual([["string"], "int-or-string"]);
  });

  it("arrays carry items (23) with exactly one schema; enums are yaml Any (20); required is repeated (19)", () => {
    const defs = named(msgs(msg(document, 9), 1));
    const spec = defs.get("io.example.api.storage.v1.CSIDriverSpec") ?? new Map();
    const modes = named(msgs(msg(spec, 25), 1)).get("volumeLifecycleModes") ?? new Map();
    expect(strs(msg(modes, 22), 1)).toEqual(["array"]);
    const items = msgs(msg(modes, 23), 1);
    expect(items).toHaveLength(1);
    const driver = defs.get("io.example.api.storage.v1.CSINodeDriver") ?? new Map();
    expect(strs(driver, 19)).toEqual(expect.arrayContaining(["name", "nodeID"]));
  });

  it("paths = 8: PATCH (8) of a job carries GVK/action extensions (13) and fieldValidation as a query parameter", () => {
    const paths = named(msgs(msg(document, 8), 2));
    const item = paths.get("/apis/batch/v1/namespaces/{namespace}/jobs/{name}") ?? new Map();
    const patch = msg(item, 8);
    expect(extensions(patch, 13)).toEqual({ "x-kubernetes-action": "patch", "x-kubernetes-group-version-kind": { group: "batch", version: "v1", kind: "Job" } });
    // ParametersItem.parameter (1) → Parameter.non_body_parameter (2) → query_parameter_sub_schema (3): name = 4, type = 6.
    const query = msgs(patch, 8)
      .map((pi) => msg(pi, 1))
      .filter((p) => p.has(2))
      .map((p) => msg(p, 2))
      .filter((nb) => nb.has(3))
      .map((nb) => msg(nb, 3));
    const fv = query.find((q) => str(q, 4) === "fieldValidation") ?? new Map();
    expect([str(fv, 2), str(fv, 6)]).toEqual(["query", "string"]);
    // path parameter (4): required = 1, name = 4, type = 5.
    const pathParams = msgs(patch, 8).map((pi) => msg(pi, 1)).filter((p) => p.has(2)).map((p) => msg(p, 2)).filter((nb) => nb.has(4)).map((nb) => msg(nb, 4));
    expect(pathParams.map((p) => [p.get(1)?.[0], str(p, 4), str(p, 5)])).toEqual(expect.arrayContaining([[1n, "namespace", "string"], [1n, "name", "string"]]));
    // body parameter: Parameter.body_parameter (1): name = 2, in = 3, required = 4, schema = 5.
    const body = msgs(patch, 8).map((pi) => msg(pi, 1)).find((p) => p.has(1));
    const bp = msg(body ?? new Map(), 1);
    expect([str(bp, 2), str(bp, 3), bp.get(4)?.[0]]).toEqual(["body", "body", 1n]);
    // responses (9) → response_code (1) named "200" → ResponseValue.response (1) → schema (2) → SchemaItem.schema (1) → $ref.
    const responses = named(msgs(msg(patch, 9), 1));
    const ok = msg(msg(responses.get("200") ?? new Map(), 1), 2);
    expect(str(msg(ok, 1), 1)).toBe("#/definitions/io.example.api.batch.v1.Job");
    expect(strs(patch, 7)).toEqual(expect.arrayContaining(["application/json-patch+json", "application/merge-patch+json"]));
  });

  it("encodes additionalProperties false, negative int64, doubles and the oneof variants", () => {
    const out = decode(
      encodeOpenAPIV2Protobuf({
        definitions: { A: { additionalProperties: false, minLength: -1, maximum: 2.5, minimum: 0, uniqueItems: false, default: { on: "yes" } } },
        paths: { "/p": { get: { parameters: [{ $ref: "#/parameters/P" }, { name: "h", in: "header", type: "string" }, { name: "f", in: "formData", type: "integer", allowEmptyValue: true }] }, "x-p": 1 } },
      }),
    );
    const a = named(msgs(msg(out, 9), 1)).get("A") ?? new Map();
    expect(msg(a, 21).get(2)).toEqual([0n]);
    expect(a.get(12)).toEqual([2n ** 64n - 1n]);
    expect(a.get(7)).toEqual([2.5]);
    expect(a.has(9) || a.has(16)).toBe(false);
    // YAML 1.1: `yes` stays a string for gopkg.in/yaml.v2 readers.
    expect(str(msg(a, 5), 2)).toBe('"on": "yes"\n');
    const item = named(msgs(msg(out, 8), 2)).get("/p") ?? new Map();
    expect(extensions(item, 10)).toEqual({ "x-p": 1 });
    const params = msgs(msg(item, 2), 8);
    expect(str(msg(params[0] ?? new Map(), 2), 1)).toBe("#/parameters/P");
    const header = msg(msg(msg(params[1] ?? new Map(), 1), 2), 1);
    expect([str(header, 4), str(header, 5)]).toEqual(["h", "string"]);
    const form = msg(msg(msg(params[2] ?? new Map(), 1), 2), 2);
    expect([str(form, 4), form.get(5), str(form, 6)]).toEqual(["f", [1n], "integer"]);
  });

  it("round-trips arbitrary descriptions, enums and integers through the wire format", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { maxLength: 4 }), fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), (description, values, n) => {
        const out = decode(encodeOpenAPIV2Protobuf({ definitions: { S: { description, enum: values, maxItems: n } } }));
        const s = named(msgs(msg(out, 9), 1)).get("S") ?? new Map();
        expect(str(s, 4) ?? "").toBe(description);
        expect(msgs(s, 20).map((any) => parseYAML(str(any, 2) ?? "", { version: "1.1" }) as unknown)).toEqual(values);
        const encoded = s.get(14)?.[0];
        expect(encoded === undefined ? 0 : Number(BigInt.asIntN(64, encoded as bigint))).toBe(n);
      }),
    );
  });

  it("skips malformed entries instead of throwing", () => {
    const bytes = encodeOpenAPIV2Protobuf({ swagger: 2, info: "x", paths: { "/a": "b", "/c": { get: "d", parameters: ["e"] } }, definitions: { A: 1, B: { properties: { x: 1 }, items: [1] } }, security: ["x"], tags: [1, { name: "t" }] });
    const out = decode(bytes);
    expect(out.has(1)).toBe(false);
    expect([...named(msgs(msg(out, 9), 1)).keys()]).toEqual(["B"]);
    expect(str(msg(out, 14), 1)).toBe("t");
  });
});
