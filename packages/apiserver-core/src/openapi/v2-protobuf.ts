/**
 * Protobuf encoding of a Swagger 2.0 document as gnostic's `openapi.v2.Document`
 * (github.com/google/gnostic, openapiv2/OpenAPIv2.proto), which kubectl ≤ 1.27 reads from
 * `/openapi/v2`. A hand-written proto3 writer for the subset Kubernetes serves; field numbers are
 * those of OpenAPIv2.proto (noted beside each write). Values of `default`, `enum`, `example` and
 * vendor extensions travel as `Any{yaml}`, as gnostic stores them.
 */
import { stringify as stringifyYAML } from "yaml";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);

class Writer {
  private readonly parts: Uint8Array[] = [];
  length = 0;

  private push(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  private varint(n: number): void {
    const out: number[] = [];
    let v = n;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  string(field: number, s: unknown): void {
    if (typeof s !== "string" || s === "") return;
    const bytes = Buffer.from(s, "utf8");
    this.tag(field, 2);
    this.varint(bytes.length);
    this.push(bytes);
  }

  strings(field: number, list: unknown): void {
    for (const s of strings(list)) {
      const bytes = Buffer.from(s, "utf8");
      this.tag(field, 2);
      this.varint(bytes.length);
      this.push(bytes);
    }
  }

  /** `force` writes a false value too (a bool inside a oneof). */
  bool(field: number, b: unknown, force = false): void {
    if (typeof b !== "boolean" || (!b && !force)) return;
    this.tag(field, 0);
    this.varint(b ? 1 : 0);
  }

  double(field: number, n: unknown): void {
    if (typeof n !== "number" || n === 0) return;
    const buf = Buffer.alloc(8);
    buf.writeDoubleLE(n);
    this.tag(field, 1);
    this.push(buf);
  }

  int64(field: number, n: unknown): void {
    if (typeof n !== "number" || !Number.isInteger(n) || n === 0) return;
    this.tag(field, 0);
    if (n > 0) return this.varint(n);
    // Negative int64: ten-byte two's complement varint.
    let v = BigInt.asUintN(64, BigInt(n));
    const out: number[] = [];
    while (v > 0x7fn) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  /** A nested message, written even when empty (presence matters to readers). */
  message(field: number, fill: (w: Writer) => void): void {
    const sub = new Writer();
    fill(sub);
    this.tag(field, 2);
    this.varint(sub.length);
    for (const p of sub.parts) this.push(p);
  }

  bytes(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

function anyYAML(value: unknown): string {
  // YAML 1.1 output: gnostic readers parse it with gopkg.in/yaml.v2 (so `yes`/`on` get quoted).
  return stringifyYAML(value, { version: "1.1", lineWidth: 0 });
}

// Any: value = 1 (google.protobuf.Any, unused), yaml = 2.
function writeAny(w: Writer, field: number, value: unknown): void {
  w.message(field, (a) => a.string(2, anyYAML(value)));
}

// NamedAny: name = 1, value = 2. Every `x-` key of `obj` becomes one.
function writeExtensions(w: Writer, field: number, obj: Json): void {
  for (const [k, v] of Object.entries(obj)) {
    if (!k.startsWith("x-") || v === undefined) continue;
    w.message(field, (n) => {
      n.string(1, k);
      writeAny(n, 2, v);
    });
  }
}

function writeExternalDocs(w: Writer, field: number, v: unknown): void {
  if (!isObject(v)) return;
  // ExternalDocs: description = 1, url = 2, vendor_extension = 3.
  w.message(field, (e) => {
    e.string(1, v["description"]);
    e.string(2, v["url"]);
    writeExtensions(e, 3, v);
  });
}

// Schema (OpenAPIv2.proto `message Schema`).
function writeSchema(w: Writer, s: Json): void {
  w.string(1, s["$ref"]);
  w.string(2, s["format"]);
  w.string(3, s["title"]);
  w.string(4, s["description"]);
  if (s["default"] !== undefined) writeAny(w, 5, s["default"]);
  w.double(6, s["multipleOf"]);
  w.double(7, s["maximum"]);
  w.bool(8, s["exclusiveMaximum"]);
  w.double(9, s["minimum"]);
  w.bool(10, s["exclusiveMinimum"]);
  w.int64(11, s["maxLength"]);
  w.int64(12, s["minLength"]);
  w.string(13, s["pattern"]);
  w.int64(14, s["maxItems"]);
  w.int64(15, s["minItems"]);
  w.bool(16, s["uniqueItems"]);
  w.int64(17, s["maxProperties"]);
  w.int64(18, s["minProperties"]);
  w.strings(19, s["required"]);
  if (Array.isArray(s["enum"])) for (const e of s["enum"]) writeAny(w, 20, e);
  const ap = s["additionalProperties"];
  // AdditionalPropertiesItem: oneof { Schema schema = 1; bool boolean = 2; }
  if (typeof ap === "boolean") w.message(21, (a) => a.bool(2, ap, true));
  else if (isObject(ap)) w.message(21, (a) => a.message(1, (x) => writeSchema(x, ap)));
  // TypeItem: repeated string value = 1.
  const type = s["type"];
  if (typeof type === "string" || Array.isArray(type)) w.message(22, (t) => t.strings(1, typeof type === "string" ? [type] : type));
  // ItemsItem: repeated Schema schema = 1.
  const items = s["items"];
  if (isObject(items) || Array.isArray(items))
    w.message(23, (it) => {
      for (const sub of Array.isArray(items) ? items : [items]) if (isObject(sub)) it.message(1, (x) => writeSchema(x, sub));
    });
  if (Array.isArray(s["allOf"])) for (const sub of s["allOf"]) if (isObject(sub)) w.message(24, (x) => writeSchema(x, sub));
  const props = s["properties"];
  // Properties: repeated NamedSchema additional_properties = 1 (NamedSchema: name = 1, value = 2).
  if (isObject(props))
    w.message(25, (p) => {
      for (const [name, sub] of Object.entries(props)) {
        if (!isObject(sub)) continue;
        p.message(1, (n) => {
          n.string(1, name);
          n.message(2, (x) => writeSchema(x, sub));
        });
      }
    });
  w.string(26, s["discriminator"]);
  w.bool(27, s["readOnly"]);
  writeExternalDocs(w, 29, s["externalDocs"]);
  if (s["example"] !== undefined) writeAny(w, 30, s["example"]);
  writeExtensions(w, 31, s);
}

// The primitive-field run shared by PrimitivesItems (offset 0), Header/PathParameterSubSchema
// (offset 4) and Query/FormDataParameterSubSchema (offset 5): type = 1+o ... vendor_extension = 18+o.
function writePrimitiveFields(w: Writer, p: Json, o: number): void {
  w.string(1 + o, p["type"]);
  w.string(2 + o, p["format"]);
  const items = p["items"];
  if (isObject(items)) w.message(3 + o, (x) => writePrimitiveFields(x, items, 0));
  w.string(4 + o, p["collectionFormat"]);
  if (p["default"] !== undefined) writeAny(w, 5 + o, p["default"]);
  w.double(6 + o, p["maximum"]);
  w.bool(7 + o, p["exclusiveMaximum"]);
  w.double(8 + o, p["minimum"]);
  w.bool(9 + o, p["exclusiveMinimum"]);
  w.int64(10 + o, p["maxLength"]);
  w.int64(11 + o, p["minLength"]);
  w.string(12 + o, p["pattern"]);
  w.int64(13 + o, p["maxItems"]);
  w.int64(14 + o, p["minItems"]);
  w.bool(15 + o, p["uniqueItems"]);
  if (Array.isArray(p["enum"])) for (const e of p["enum"]) writeAny(w, 16 + o, e);
  w.double(17 + o, p["multipleOf"]);
  writeExtensions(w, 18 + o, p);
}

// ParametersItem: oneof { Parameter parameter = 1; JsonReference json_reference = 2; }
function writeParametersItem(w: Writer, field: number, p: Json): void {
  w.message(field, (item) => {
    if (typeof p["$ref"] === "string") {
      item.message(2, (r) => r.string(1, p["$ref"]));
      return;
    }
    item.message(1, (param) => writeParameter(param, p));
  });
}

// Parameter: oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; }
function writeParameter(w: Writer, p: Json): void {
  const where = p["in"];
  if (where === "body") {
    // BodyParameter: description = 1, name = 2, in = 3, required = 4, schema = 5, vendor_extension = 6.
    w.message(1, (b) => {
      b.string(1, p["description"]);
      b.string(2, p["name"]);
      b.string(3, where);
      b.bool(4, p["required"]);
      const schema = p["schema"];
      if (isObject(schema)) b.message(5, (x) => writeSchema(x, schema));
      writeExtensions(b, 6, p);
    });
    return;
  }
  // NonBodyParameter: header = 1, form_data = 2, query = 3, path = 4; each starts with
  // required = 1, in = 2, description = 3, name = 4 (query/formData add allow_empty_value = 5).
  const which = where === "header" ? 1 : where === "formData" ? 2 : where === "path" ? 4 : 3;
  w.message(2, (nb) =>
    nb.message(which, (x) => {
      x.bool(1, p["required"]);
      x.string(2, where);
      x.string(3, p["description"]);
      x.string(4, p["name"]);
      if (which === 2 || which === 3) {
        x.bool(5, p["allowEmptyValue"]);
        writePrimitiveFields(x, p, 5);
      } else writePrimitiveFields(x, p, 4);
    }),
  );
}

// Response: description = 1, schema = 2 (SchemaItem oneof { Schema schema = 1; }), vendor_extension = 5.
function writeResponse(w: Writer, r: Json): void {
  w.string(1, r["description"]);
  const schema = r["schema"];
  if (isObject(schema)) w.message(2, (si) => si.message(1, (x) => writeSchema(x, schema)));
  writeExtensions(w, 5, r);
}

// Operation (OpenAPIv2.proto `message Operation`).
function writeOperation(w: Writer, op: Json): void {
  w.strings(1, op["tags"]);
  w.string(2, op["summary"]);
  w.string(3, op["description"]);
  writeExternalDocs(w, 4, op["externalDocs"]);
  w.string(5, op["operationId"]);
  w.strings(6, op["produces"]);
  w.strings(7, op["consumes"]);
  if (Array.isArray(op["parameters"])) for (const p of op["parameters"]) if (isObject(p)) writeParametersItem(w, 8, p);
  const responses = op["responses"];
  // Responses: response_code = 1 (NamedResponseValue: name = 1, value = 2 (ResponseValue oneof
  // { Response response = 1; JsonReference json_reference = 2; })), vendor_extension = 2.
  if (isObject(responses))
    w.message(9, (rs) => {
      for (const [code, r] of Object.entries(responses)) {
        if (!isObject(r) || code.startsWith("x-")) continue;
        rs.message(1, (n) => {
          n.string(1, code);
          n.message(2, (rv) => {
            if (typeof r["$ref"] === "string") rv.message(2, (j) => j.string(1, r["$ref"]));
            else rv.message(1, (x) => writeResponse(x, r));
          });
        });
      }
      writeExtensions(rs, 2, responses);
    });
  w.strings(10, op["schemes"]);
  w.bool(11, op["deprecated"]);
  writeSecurity(w, 12, op["security"]);
  writeExtensions(w, 13, op);
}

// SecurityRequirement: additional_properties = 1 (NamedStringArray: name = 1, value = 2 (StringArray: value = 1)).
function writeSecurity(w: Writer, field: number, security: unknown): void {
  if (!Array.isArray(security)) return;
  for (const req of security) {
    if (!isObject(req)) continue;
    w.message(field, (sr) => {
      for (const [name, scopes] of Object.entries(req))
        sr.message(1, (n) => {
          n.string(1, name);
          n.message(2, (sa) => sa.strings(1, scopes));
        });
    });
  }
}

const methodFields: readonly (readonly [string, number])[] = [
  ["get", 2],
  ["put", 3],
  ["post", 4],
  ["delete", 5],
  ["options", 6],
  ["head", 7],
  ["patch", 8],
];

/**
 * Encodes a Swagger 2.0 document (JSON form, as {@link convertOpenAPIV3ToV2} returns it) as the
 * protobuf message `openapi.v2.Document` of gnostic's OpenAPIv2.proto — the body Kubernetes
 * serves for `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`. Covers what
 * Kubernetes documents carry: info, paths (operations, parameters of every location, responses,
 * vendor extensions), definitions (every Schema field but `xml`), parameters, responses,
 * securityDefinitions (basic, apiKey) and security. Unknown keys are dropped; vendor extensions and
 * `default`/`enum`/`example` values are YAML text in `Any.yaml`. Does not mutate `swagger`.
 *
 * @see staging/src/k8s.io/kube-openapi/pkg/handler/handler.go (ToProtoBinary)
 * @see https://github.com/google/gnostic/blob/main/openapiv2/OpenAPIv2.proto
 * @example const bytes = encodeOpenAPIV2Protobuf(convertOpenAPIV3ToV2(openapiJson));
 */
export function encodeOpenAPIV2Protobuf(swagger: Readonly<Record<string, unknown>>): Uint8Array {
  const w = new Writer();
  w.string(1, swagger["swagger"]);
  const info = swagger["info"];
  // Info: title = 1, version = 2, description = 3, terms_of_service = 4, vendor_extension = 7.
  if (isObject(info))
    w.message(2, (i) => {
      i.string(1, info["title"]);
      i.string(2, info["version"]);
      i.string(3, info["description"]);
      i.string(4, info["termsOfService"]);
      writeExtensions(i, 7, info);
    });
  w.string(3, swagger["host"]);
  w.string(4, swagger["basePath"]);
  w.strings(5, swagger["schemes"]);
  w.strings(6, swagger["consumes"]);
  w.strings(7, swagger["produces"]);
  const paths = swagger["paths"];
  // Paths: vendor_extension = 1, path = 2 (NamedPathItem: name = 1, value = 2).
  if (isObject(paths))
    w.message(8, (ps) => {
      writeExtensions(ps, 1, paths);
      for (const [path, item] of Object.entries(paths)) {
        if (path.startsWith("x-") || !isObject(item)) continue;
        ps.message(2, (n) => {
          n.string(1, path);
          // PathItem: _ref = 1, get..patch = 2..8, parameters = 9, vendor_extension = 10.
          n.message(2, (pi) => {
            pi.string(1, item["$ref"]);
            for (const [method, field] of methodFields) {
              const op = item[method];
              if (isObject(op)) pi.message(field, (o) => writeOperation(o, op));
            }
            if (Array.isArray(item["parameters"])) for (const p of item["parameters"]) if (isObject(p)) writeParametersItem(pi, 9, p);
            writeExtensions(pi, 10, item);
          });
        });
      }
    });
  const definitions = swagger["definitions"];
  // Definitions: additional_properties = 1 (NamedSchema: name = 1, value = 2).
  if (isObject(definitions))
    w.message(9, (d) => {
      for (const [name, s] of Object.entries(definitions)) {
        if (!isObject(s)) continue;
        d.message(1, (n) => {
          n.string(1, name);
          n.message(2, (x) => writeSchema(x, s));
        });
      }
    });
  const parameters = swagger["parameters"];
  // ParameterDefinitions: additional_properties = 1 (NamedParameter: name = 1, value = 2 (Parameter)).
  if (isObject(parameters))
    w.message(10, (d) => {
      for (const [name, p] of Object.entries(parameters)) {
        if (!isObject(p)) continue;
        d.message(1, (n) => {
          n.string(1, name);
          n.message(2, (x) => writeParameter(x, p));
        });
      }
    });
  const responses = swagger["responses"];
  // ResponseDefinitions: additional_properties = 1 (NamedResponse: name = 1, value = 2 (Response)).
  if (isObject(responses))
    w.message(11, (d) => {
      for (const [name, r] of Object.entries(responses)) {
        if (!isObject(r)) continue;
        d.message(1, (n) => {
          n.string(1, name);
          n.message(2, (x) => writeResponse(x, r));
        });
      }
    });
  writeSecurity(w, 12, swagger["security"]);
  const securityDefinitions = swagger["securityDefinitions"];
  // SecurityDefinitions: additional_properties = 1 (NamedSecurityDefinitionsItem: name = 1, value = 2
  // (SecurityDefinitionsItem oneof { BasicAuthenticationSecurity = 1; ApiKeySecurity = 2; ... })).
  if (isObject(securityDefinitions))
    w.message(13, (d) => {
      for (const [name, sd] of Object.entries(securityDefinitions)) {
        if (!isObject(sd) || (sd["type"] !== "basic" && sd["type"] !== "apiKey")) continue;
        d.message(1, (n) => {
          n.string(1, name);
          n.message(2, (item) => {
            if (sd["type"] === "basic")
              // BasicAuthenticationSecurity: type = 1, description = 2, vendor_extension = 3.
              item.message(1, (b) => {
                b.string(1, sd["type"]);
                b.string(2, sd["description"]);
                writeExtensions(b, 3, sd);
              });
            else
              // ApiKeySecurity: type = 1, name = 2, in = 3, description = 4, vendor_extension = 5.
              item.message(2, (k) => {
                k.string(1, sd["type"]);
                k.string(2, sd["name"]);
                k.string(3, sd["in"]);
                k.string(4, sd["description"]);
                writeExtensions(k, 5, sd);
              });
          });
        });
      }
    });
  // Tag: name = 1, description = 2, external_docs = 3, vendor_extension = 4.
  if (Array.isArray(swagger["tags"]))
    for (const t of swagger["tags"]) {
      if (!isObject(t)) continue;
      w.message(14, (x) => {
        x.string(1, t["name"]);
        x.string(2, t["description"]);
        writeExternalDocs(x, 3, t["externalDocs"]);
        writeExtensions(x, 4, t);
      });
    }
  writeExternalDocs(w, 15, swagger["externalDocs"]);
  writeExtensions(w, 16, swagger);
  return w.bytes();
}
