/**
 * `POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token`: TokenRequest
 * (`authentication.k8s.io/v1`) as kube-apiserver 1.23 serves it. The body (JSON, YAML, or the
 * protobuf `kubectl create token` sends) is defaulted (`expirationSeconds` 3600) and validated
 * (at least 10 minutes, at most 2^32 seconds → 422), the service account must exist (404), a
 * `boundObjectRef` names an existing Pod running as that service account, or a Secret, and its
 * `uid` when given must match (409); audiences default to `--api-audiences`, the expiration is
 * capped by `--service-account-max-token-expiration`. Answers 201 with `status.token` and
 * `status.expirationTimestamp`; nothing is stored.
 *
 * @see pkg/registry/core/serviceaccount/storage/token.go
 * @see pkg/apis/authentication/validation/validation.go (ValidateTokenRequest)
 * @see pkg/apis/authentication/v1/defaults.go (SetDefaults_TokenRequestSpec)
 */
import { decodeBody } from "@skiff/apiserver-core";
import type { NonResourceRoute } from "@skiff/apiserver-core";
import { errorToStatus, newBadRequest, newConflict, newInvalid, newNotFound } from "@skiff/apimachinery";
import type { FieldError } from "@skiff/apimachinery";
import type { ServiceAccountKeys } from "./keys.js";
import { serviceAccountClaims, signServiceAccountToken } from "./token.js";
import type { ClaimRef } from "./token.js";

/** What the TokenRequest route needs. */
export interface TokenRequestConfig {
  /** The first `--service-account-issuer` (the `iss` claim). */
  readonly issuer: string;
  /** `--api-audiences` (the default `spec.audiences`). */
  readonly apiAudiences: readonly string[];
  /** `--service-account-max-token-expiration` in seconds; 0: no cap. */
  readonly maxExpirationSeconds: number;
  readonly keys: ServiceAccountKeys;
  /** Reads an object (`resource`: `serviceaccounts`, `pods`, `secrets`); `undefined` when not found. */
  readonly get: (resource: "serviceaccounts" | "pods" | "secrets", namespace: string, name: string) => Promise<StoredObject | undefined>;
  /** @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

/** The parts of a stored object the TokenRequest reads. */
export interface StoredObject {
  readonly metadata?: { readonly uid?: string; readonly namespace?: string };
  readonly spec?: { readonly serviceAccountName?: string };
}

/** A decoded TokenRequest `spec` after defaulting. */
export interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
}

const tokenRequestGroupKind = { group: "authentication.k8s.io", kind: "TokenRequest" };
const minExpirationSeconds = 600;
const maxExpirationSeconds = 2 ** 32;

/**
 * 1.23's `ValidateTokenRequest`: `spec.expirationSeconds` must be at least 600 and at most 2^32.
 * Returns the field errors (empty when valid); pure.
 */
export function validateTokenRequestSpec(spec: TokenRequestSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.expirationSeconds < minExpirationSeconds) {
    errs.push({ type: "FieldValueInvalid", field: "spec.expirationSeconds", badValue: spec.expirationSeconds, detail: "may not specify a duration less than 10 minutes" });
  }
  if (spec.expirationSeconds > maxExpirationSeconds) {
    errs.push({ type: "FieldValueInvalid", field: "spec.expirationSeconds", badValue: spec.expirationSeconds, detail: "may not specify a duration larger than 2^32 seconds" });
  }
  return errs;
}

/**
 * The effective lifetime of a token in seconds: the requested one, capped by `maxSeconds` when
 * that is positive. Pure.
 */
export function effectiveExpirationSeconds(requested: number, maxSeconds: number): number {
  return maxSeconds > 0 && requested > maxSeconds ? maxSeconds : requested;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/**
 * Reads a TokenRequest body into `{metadata, spec}` with the spec defaulted.
 * @throws a 400 StatusError for an undecodable body, a wrong apiVersion/kind, or ill-typed fields.
 */
export function decodeTokenRequest(contentType: string, body: string | Buffer): { metadata: Obj; spec: TokenRequestSpec } {
  const type = (contentType.split(";")[0] ?? "").trim().toLowerCase() || "application/json";
  let o: Obj;
  if (type === "application/vnd.kubernetes.protobuf") o = decodeProtobufTokenRequest(Buffer.isBuffer(body) ? body : Buffer.from(body, "latin1"));
  else {
    const v = decodeBody(type, Buffer.isBuffer(body) ? body.toString("utf8") : body, ["application/json", "application/yaml"]).value;
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw newBadRequest("the body of a TokenRequest must be an object");
    o = v as Obj;
  }
  if ((o["apiVersion"] !== undefined && o["apiVersion"] !== "authentication.k8s.io/v1") || (o["kind"] !== undefined && o["kind"] !== "TokenRequest")) {
    throw newBadRequest(`the API version in the data (${String(o["apiVersion"] ?? "")}) does not match the expected API version (authentication.k8s.io/v1)`);
  }
  const spec = asObj(o["spec"]);
  const audiences = spec["audiences"] ?? [];
  if (!Array.isArray(audiences) || !audiences.every((a) => typeof a === "string")) throw newBadRequest("spec.audiences must be a list of strings");
  const exp = spec["expirationSeconds"] ?? 3600;
  if (typeof exp !== "number" || !Number.isSafeInteger(exp)) throw newBadRequest("spec.expirationSeconds must be an integer");
  const out: TokenRequestSpec = { audiences: audiences as string[], expirationSeconds: exp };
  if (spec["boundObjectRef"] != null) {
    const r = asObj(spec["boundObjectRef"]);
    const ref: NonNullable<TokenRequestSpec["boundObjectRef"]> = {};
    for (const k of ["kind", "apiVersion", "name", "uid"] as const) {
      const v = r[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== "string") throw newBadRequest(`spec.boundObjectRef.${k} must be a string`);
      ref[k] = v;
    }
    out.boundObjectRef = ref;
  }
  return { metadata: asObj(o["metadata"]), spec: out };
}

/**
 * Issues a token for `namespace`/`name` as 1.23's `TokenREST.Create`.
 * @returns the TokenRequest answer (`apiVersion`, `kind`, `metadata`, `spec`, `status`).
 * @throws StatusErrors: 422 for the expiration, 404 for a missing service account, pod or secret,
 *   400 for a pod of another service account or an unsupported bound kind, 409 for a uid mismatch.
 */
export async function createTokenRequest(config: TokenRequestConfig, namespace: string, name: string, req: { metadata: Obj; spec: TokenRequestSpec }): Promise<Obj> {
  const spec = req.spec;
  const metaName = req.metadata["name"];
  const metaNamespace = req.metadata["namespace"];
  if (typeof metaName === "string" && metaName !== "" && metaName !== name) {
    throw newInvalid(tokenRequestGroupKind, name, [{ type: "FieldValueInvalid", field: "metadata.name", badValue: metaName, detail: "must match the service account name if specified" }]);
  }
  if (typeof metaNamespace === "string" && metaNamespace !== "" && metaNamespace !== namespace) {
    throw newInvalid(tokenRequestGroupKind, name, [{ type: "FieldValueInvalid", field: "metadata.namespace", badValue: metaNamespace, detail: "must match the service account namespace if specified" }]);
  }
  const errs = validateTokenRequestSpec(spec);
  if (errs.length > 0) throw newInvalid(tokenRequestGroupKind, "", errs);
  const sa = await config.get("serviceaccounts", namespace, name);
  if (!sa) throw newNotFound({ group: "", resource: "serviceaccounts" }, name);
  let pod: ClaimRef | undefined;
  let secret: ClaimRef | undefined;
  const ref = spec.boundObjectRef;
  if (ref) {
    const refName = ref.name ?? "";
    const [group, version] = splitAPIVersion(ref.apiVersion ?? "");
    let uid: string;
    if (group === "" && ref.kind === "Pod") {
      const p = await config.get("pods", namespace, refName);
      if (!p) throw newNotFound({ group: "", resource: "pods" }, refName);
      if (name !== (p.spec?.serviceAccountName ?? "")) throw newBadRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      uid = p.metadata?.uid ?? "";
      pod = { name: refName, uid };
    } else if (group === "" && ref.kind === "Secret") {
      const s = await config.get("secrets", namespace, refName);
      if (!s) throw newNotFound({ group: "", resource: "secrets" }, refName);
      uid = s.metadata?.uid ?? "";
      secret = { name: refName, uid };
    } else {
      throw newBadRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ""}`);
    }
    if ((ref.uid ?? "") !== "" && uid !== ref.uid) {
      throw newConflict(
        { group, resource: ref.kind },
        refName,
        new Error(`the UID in the bound object reference (${ref.uid ?? ""}) does not match the UID in record. The object might have been deleted and then recreated`),
      );
    }
  }
  const audiences = spec.audiences.length === 0 ? [...config.apiAudiences] : spec.audiences;
  const expirationSeconds = effectiveExpirationSeconds(spec.expirationSeconds, config.maxExpirationSeconds);
  const claims = serviceAccountClaims({
    issuer: config.issuer,
    serviceAccount: { namespace, name, uid: sa.metadata?.uid ?? "" },
    ...(pod ? { pod } : {}),
    ...(secret ? { secret } : {}),
    expirationSeconds,
    audiences,
    now: (config.now ?? (() => new Date()))(),
  });
  const token = await signServiceAccountToken(config.keys, claims);
  return {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: new Date(claims.exp * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") },
  };
}

function splitAPIVersion(apiVersion: string): [string, string] {
  const i = apiVersion.indexOf("/");
  return i < 0 ? ["", apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

/**
 * The TokenRequest route, to pass in `extraRoutes` (it runs behind the server's authentication and
 * authorization as `create serviceaccounts/token`).
 * @example createAPIServer({ ..., extraRoutes: [...tokenRequestRoutes(config)] });
 */
export function tokenRequestRoutes(config: TokenRequestConfig): NonResourceRoute[] {
  return [
    {
      method: "POST",
      url: "/api/v1/namespaces/:namespace/serviceaccounts/:name/token",
      handler: async (req, reply) => {
        const params = req.params as { namespace: string; name: string };
        try {
          const body = typeof req.body === "string" || Buffer.isBuffer(req.body) ? req.body : "";
          const out = await createTokenRequest(config, params.namespace, params.name, decodeTokenRequest(String(req.headers["content-type"] ?? ""), body));
          return await reply.code(201).header("content-type", "application/json").send(JSON.stringify(out));
        } catch (e) {
          const s = errorToStatus(e);
          return reply.code(s.code).header("content-type", "application/json").send(JSON.stringify(s));
        }
      },
    },
  ];
}

// --- protobuf (what kubectl create token sends) ---

type Wire = Map<number, Array<Buffer | bigint>>;

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let v = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw newBadRequest("protobuf: truncated varint");
    const b = buf[pos++] ?? 0;
    v |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [v, pos];
    shift += 7n;
    if (shift > 63n) throw newBadRequest("protobuf: varint too long");
  }
}

function readMessage(buf: Buffer): Wire {
  const out: Wire = new Map();
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos);
    pos = p1;
    const n = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    let v: Buffer | bigint;
    if (wire === 0) [v, pos] = readVarint(buf, pos);
    else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      if (p2 + Number(len) > buf.length) throw newBadRequest("protobuf: truncated field");
      v = buf.subarray(p2, p2 + Number(len));
      pos = p2 + Number(len);
    } else if (wire === 1) {
      pos += 8;
      continue;
    } else if (wire === 5) {
      pos += 4;
      continue;
    } else throw newBadRequest(`protobuf: unsupported wire type ${String(wire)}`);
    const list = out.get(n) ?? [];
    list.push(v);
    out.set(n, list);
  }
  return out;
}

const pbBytes = (m: Wire, n: number): Buffer | undefined => {
  const v = m.get(n)?.[0];
  return Buffer.isBuffer(v) ? v : undefined;
};
const pbString = (m: Wire, n: number): string | undefined => pbBytes(m, n)?.toString("utf8");

/**
 * A protobuf TokenRequest (`k8s\0` envelope) as its JSON form.
 * @see staging/src/k8s.io/api/authentication/v1/generated.proto (TokenRequest, TokenRequestSpec, BoundObjectReference)
 */
function decodeProtobufTokenRequest(body: Buffer): Obj {
  if (body.length < 4 || body.subarray(0, 4).toString("latin1") !== "k8s\0") throw newBadRequest("protobuf: missing the k8s envelope prefix");
  const unknown = readMessage(body.subarray(4));
  const typeMeta = readMessage(pbBytes(unknown, 1) ?? Buffer.alloc(0));
  const obj = readMessage(pbBytes(unknown, 2) ?? Buffer.alloc(0));
  const meta = readMessage(pbBytes(obj, 1) ?? Buffer.alloc(0));
  const specBytes = pbBytes(obj, 2);
  const out: Obj = {
    ...(pbString(typeMeta, 1) ? { apiVersion: pbString(typeMeta, 1) } : {}),
    ...(pbString(typeMeta, 2) ? { kind: pbString(typeMeta, 2) } : {}),
    metadata: { ...(pbString(meta, 1) ? { name: pbString(meta, 1) } : {}), ...(pbString(meta, 3) ? { namespace: pbString(meta, 3) } : {}) },
  };
  if (!specBytes) return out;
  const spec = readMessage(specBytes);
  const s: Obj = { audiences: (spec.get(1) ?? []).filter(Buffer.isBuffer).map((b) => b.toString("utf8")) };
  const exp = spec.get(4)?.[0];
  if (typeof exp === "bigint") s["expirationSeconds"] = Number(BigInt.asIntN(64, exp));
  const refBytes = pbBytes(spec, 3);
  if (refBytes) {
    const r = readMessage(refBytes);
    s["boundObjectRef"] = Object.fromEntries(
      (
        [
          ["kind", pbString(r, 1)],
          ["apiVersion", pbString(r, 2)],
          ["name", pbString(r, 3)],
          ["uid", pbString(r, 4)],
        ] as const
      ).filter((e) => e[1] !== undefined),
    );
  }
  out["spec"] = s;
  return out;
}
