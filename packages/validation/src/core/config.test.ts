import type { ConfigMap, Secret, ServiceAccount } from "@skiff/api-types";
import { formatFieldError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { decodeObject, formatDecodeError } from "../decode.js";
import { applyDefaults } from "../defaults/apply.js";
import { goUnmarshalMapError } from "../internal/go-json.js";
import { goBase64ErrorOffset } from "../schemas/primitives.js";
import { validateObject, validateObjectUpdate } from "../validate.js";
import { setSecretDefaults, validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate, validateServiceAccount, validateServiceAccountUpdate } from "./config.js";

const meta = (name = "x") => ({ name, namespace: "default", resourceVersion: "1" });
const cm = (extra: Partial<ConfigMap> = {}): ConfigMap => ({ apiVersion: "v1", kind: "ConfigMap", metadata: meta(), ...extra });
const secret = (extra: Partial<Secret> = {}): Secret => ({ apiVersion: "v1", kind: "Secret", metadata: meta(), type: "Opaque", ...extra });
const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
const msgs = (errs: readonly Parameters<typeof formatFieldError>[0][]) => errs.map(formatFieldError);
const causes = (errs: readonly Parameters<typeof formatFieldError>[0][]) => errs.map((e) => [e.field, e.type]);

describe("validateConfigMap", () => {
  it("accepts data and binaryData with config keys, and an empty ConfigMap", () => {
    expect(validateConfigMap(cm({ data: { "a.b_c-D": "v" }, binaryData: { bin: b64("\u0000\u0001") } }))).toEqual([]);
    expect(validateConfigMap(cm())).toEqual([]);
  });

  it("rejects bad keys with IsConfigMapKey's messages and a key in both bags", () => {
    expect(msgs(validateConfigMap(cm({ data: { "a/b": "1", "..x": "2", k: "3" }, binaryData: { k: "", ".": "" } })))).toEqual([
      `data[..x]: Invalid value: "..x": must not start with '..'`,
      `data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      `data[k]: Invalid value: "k": duplicate of key present in binaryData`,
      `binaryData[.]: Invalid value: ".": must not be '.'`,
    ]);
  });

  it("counts UTF-8 bytes of data plus decoded bytes of binaryData against 1 MiB; the error is at the empty path", () => {
    const half = 512 * 1024;
    expect(validateConfigMap(cm({ data: { a: "a".repeat(half) }, binaryData: { b: b64(Buffer.alloc(half)) } }))).toEqual([]);
    const over = validateConfigMap(cm({ data: { a: "a".repeat(half) }, binaryData: { b: b64(Buffer.alloc(half + 1)) } }));
    expect(causes(over)).toEqual([["", "FieldValueTooLong"]]);
    expect(msgs(over)).toEqual([": Too long: must have at most 1048576 bytes"]);
    // "é" is two bytes in UTF-8.
    expect(causes(validateConfigMap(cm({ data: { a: "é".repeat(half) + "x" } })))).toEqual([["", "FieldValueTooLong"]]);
  });

  it("checks the metadata: a namespaced DNS-1123 subdomain name", () => {
    expect(msgs(validateConfigMap({ metadata: { name: "Bad_Name", namespace: "default" } }))[0]).toMatch(/^metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    expect(msgs(validateConfigMap({ metadata: { name: "x" } }))).toEqual(["metadata.namespace: Required value"]);
  });

  it("an immutable ConfigMap keeps data, binaryData and immutable; metadata may change", () => {
    const old = cm({ data: { a: "1" }, binaryData: { b: b64("x") }, immutable: true });
    expect(validateConfigMapUpdate({ ...old, metadata: { ...meta(), labels: { l: "v" } } }, old)).toEqual([]);
    expect(msgs(validateConfigMapUpdate({ ...old, data: { a: "2" }, binaryData: {}, immutable: false }, old))).toEqual([
      "immutable: Forbidden: field is immutable when `immutable` is set",
      "data: Forbidden: field is immutable when `immutable` is set",
      "binaryData: Forbidden: field is immutable when `immutable` is set",
    ]);
    const mutable = cm({ data: { a: "1" } });
    expect(validateConfigMapUpdate(cm({ data: { a: "2" }, immutable: true }), mutable)).toEqual([]);
  });

  it("is dispatched through kindValidators", () => {
    expect(validateObject("ConfigMap", cm({ data: { "a b": "" } }))).toHaveLength(1);
    expect(validateObjectUpdate("ConfigMap", cm(), cm({ immutable: true }))).toHaveLength(1);
  });
});

describe("validateSecret", () => {
  it("accepts every 1.23 type with its required keys", () => {
    const ok: Secret[] = [
      secret({ data: { any: b64("x") } }),
      secret({ type: "kubernetes.io/service-account-token", metadata: { ...meta(), annotations: { "kubernetes.io/service-account.name": "default" } } }),
      secret({ type: "kubernetes.io/dockercfg", data: { ".dockercfg": b64("{}") } }),
      secret({ type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64('{"auths":{"r.io":{"auth":"dTpw"}}}') } }),
      secret({ type: "kubernetes.io/basic-auth", data: { password: "" } }),
      secret({ type: "kubernetes.io/ssh-auth", data: { "ssh-privatekey": b64("KEY") } }),
      secret({ type: "kubernetes.io/tls", data: { "tls.crt": b64("C"), "tls.key": b64("K") } }),
      secret({ type: "bootstrap.kubernetes.io/token" }),
      secret({ type: "example.io/custom" }),
    ];
    for (const s of ok) expect(validateSecret(s), s.type).toEqual([]);
  });

  it("reports missing keys at 1.23's field paths (the literal data[%s] for basic-auth and ssh-auth)", () => {
    const paths = (s: Secret) => causes(validateSecret(s));
    expect(paths(secret({ type: "kubernetes.io/service-account-token" }))).toEqual([["metadata.annotations[kubernetes.io/service-account.name]", "FieldValueRequired"]]);
    expect(paths(secret({ type: "kubernetes.io/dockercfg" }))).toEqual([["data[.dockercfg]", "FieldValueRequired"]]);
    expect(paths(secret({ type: "kubernetes.io/dockerconfigjson" }))).toEqual([["data[.dockerconfigjson]", "FieldValueRequired"]]);
    expect(paths(secret({ type: "kubernetes.io/basic-auth" }))).toEqual([
      ["data[%s][username]", "FieldValueRequired"],
      ["data[%s][password]", "FieldValueRequired"],
    ]);
    expect(paths(secret({ type: "kubernetes.io/ssh-auth", data: { "ssh-privatekey": "" } }))).toEqual([["data[%s][ssh-privatekey]", "FieldValueRequired"]]);
    expect(paths(secret({ type: "kubernetes.io/tls", data: { "tls.key": b64("K") } }))).toEqual([["data[tls.crt]", "FieldValueRequired"]]);
  });

  it("checks that docker configs are JSON objects, redacting the contents and wording Go's errors", () => {
    const bad = (text: string) => msgs(validateSecret(secret({ type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64(text) } })));
    expect(bad('{"a":')).toEqual([`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`]);
    expect(bad("[1]")).toEqual([`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}`]);
    expect(bad("hunter2")).toEqual([`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'h' looking for beginning of value`]);
    expect(bad("null")).toEqual([]);
    for (const m of bad("{secret-password}")) expect(m).not.toContain("secret-password");
  });

  it("limits the decoded data to 1 MiB at path data, and checks keys", () => {
    expect(causes(validateSecret(secret({ data: { a: b64(Buffer.alloc(1024 * 1024)) } })))).toEqual([]);
    expect(msgs(validateSecret(secret({ data: { a: b64(Buffer.alloc(1024 * 1024 + 1)) } })))).toEqual(["data: Too long: must have at most 1048576 bytes"]);
    expect(causes(validateSecret(secret({ data: { "a b": "" } })))).toEqual([["data[a b]", "FieldValueInvalid"]]);
  });

  it("keeps type on update, and data and immutable once immutable", () => {
    const old = secret({ data: { a: b64("1") }, immutable: true });
    expect(validateSecretUpdate({ ...old, metadata: { ...meta(), annotations: { n: "v" } } }, old)).toEqual([]);
    expect(msgs(validateSecretUpdate({ ...old, type: "kubernetes.io/tls", data: { "tls.crt": "", "tls.key": "" }, immutable: false }, old))).toEqual([
      `type: Invalid value: "kubernetes.io/tls": field is immutable`,
      "immutable: Forbidden: field is immutable when `immutable` is set",
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
  });
});

describe("setSecretDefaults", () => {
  it("merges stringData into data (overwriting), drops stringData and defaults type to Opaque", () => {
    const s: Secret = { metadata: meta(), data: { a: b64("old"), b: b64("keep") }, stringData: { a: "new", c: "é" } };
    setSecretDefaults(s);
    expect(s).toEqual({ metadata: meta(), data: { a: b64("new"), b: b64("keep"), c: b64("é") }, type: "Opaque" });
    setSecretDefaults(s);
    expect(s.type).toBe("Opaque");
    const t: Secret = { metadata: meta(), type: "kubernetes.io/tls", stringData: {} };
    applyDefaults("Secret", t);
    expect(t).toEqual({ metadata: meta(), type: "kubernetes.io/tls" });
  });
});

describe("ServiceAccount", () => {
  it("validates only its metadata", () => {
    const sa: ServiceAccount = { metadata: meta("default"), secrets: [{ name: "s" }], imagePullSecrets: [{ name: "p" }], automountServiceAccountToken: false };
    expect(validateServiceAccount(sa)).toEqual([]);
    expect(validateServiceAccountUpdate({ ...sa, automountServiceAccountToken: true }, sa)).toEqual([]);
    expect(causes(validateServiceAccount({ metadata: { name: "UPPER", namespace: "default" } }))).toEqual([["metadata.name", "FieldValueInvalid"]]);
  });
});

describe("decoding []byte maps", () => {
  it("accepts standard padded base64 and rejects the rest with Go's byte offset", () => {
    expect(goBase64ErrorOffset("")).toBeUndefined();
    expect(goBase64ErrorOffset("YWJj")).toBeUndefined();
    expect(goBase64ErrorOffset("YQ==")).toBeUndefined();
    expect(goBase64ErrorOffset("YW\nJj")).toBeUndefined();
    expect(goBase64ErrorOffset("abc!defg")).toBe(3);
    expect(goBase64ErrorOffset("YQ")).toBe(0);
    expect(goBase64ErrorOffset("YWJjZA")).toBe(4);
    expect(goBase64ErrorOffset("YQ=")).toBe(3);
    expect(goBase64ErrorOffset("YQ==YQ==")).toBe(4);
    expect(goBase64ErrorOffset("YW-j")).toBe(2);
  });

  it("answers a ConfigMap's or Secret's bad base64 with Go's error", () => {
    const r = decodeObject("ConfigMap", { metadata: { name: "x" }, binaryData: { k: "abc!defg" } }, { fieldValidation: "Strict" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map(formatDecodeError)).toEqual(["illegal base64 data at input byte 3"]);
    const s = decodeObject("Secret", { metadata: { name: "x" }, data: { k: 5 } }, { fieldValidation: "Strict" });
    expect(s.ok).toBe(false);
  });
});

describe("goUnmarshalMapError", () => {
  it("words Go's scanner and type errors", () => {
    const e = (t: string) => goUnmarshalMapError(Buffer.from(t));
    expect(e('{"a": 1, "b": [true, null, "x\\n"]}')).toBeUndefined();
    expect(e("")).toBe("unexpected end of JSON input");
    expect(e('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(e('{"a":1 "b"}')).toBe(`invalid character '"' after object key:value pair`);
    expect(e("{a}")).toBe("invalid character 'a' looking for beginning of object key string");
    expect(e("{} x")).toBe("invalid character 'x' after top-level value");
    expect(e("tru")).toBe("unexpected end of JSON input");
    expect(e("trux")).toBe("invalid character 'x' in literal true (expecting 'e')");
    expect(e('"s"')).toBe("json: cannot unmarshal string into Go value of type map[string]interface {}");
    expect(e("12")).toBe("json: cannot unmarshal number into Go value of type map[string]interface {}");
    expect(e("\u0001")).toBe("invalid character '\\x01' looking for beginning of value");
    expect(e("{'a':1}")).toBe("invalid character '\\'' looking for beginning of object key string");
  });
});
