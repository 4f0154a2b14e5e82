/**
 * Just enough Kubernetes protobuf to read the review requests kubectl sends as
 * `application/vnd.kubernetes.protobuf` (`kubectl auth whoami`, `kubectl auth can-i`): the
 * `k8s\0` envelope (`runtime.Unknown`) and the spec fields of the review kinds. Answers go back
 * as JSON, which clients accept. Not exported from the package.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go
 * @see staging/src/k8s.io/api/authorization/v1/generated.proto
 * @see staging/src/k8s.io/api/authentication/v1/generated.proto
 */
import { newBadRequest } from "@skiff/apimachinery";
import { readWire } from "../negotiation/protobuf-object.js";

type Fields = Map<number, Array<Buffer | bigint>>;

// Varints and length-delimited fields by number; fixed-width fields are not used by these kinds.
function readFields(buf: Buffer): Fields {
  const out: Fields = new Map();
  for (const w of readWire(buf)) {
    if (w.wire !== 0 && w.wire !== 2) continue;
    const v = w.wire === 0 ? (w.varint ?? 0n) : (w.bytes ?? Buffer.alloc(0));
    const list = out.get(w.n) ?? [];
    list.push(v);
    out.set(w.n, list);
  }
  return out;
}

const bytesOf = (f: Fields, n: number): Buffer | undefined => {
  const v = f.get(n)?.[0];
  return Buffer.isBuffer(v) ? v : undefined;
};
const str = (f: Fields, n: number): string | undefined => bytesOf(f, n)?.toString("utf8");
const strs = (f: Fields, n: number): string[] => (f.get(n) ?? []).filter(Buffer.isBuffer).map((b) => b.toString("utf8"));
const sub = (f: Fields, n: number): Fields | undefined => {
  const b = bytesOf(f, n);
  return b === undefined ? undefined : readFields(b);
};

function definedOnly(o: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined));
}

function resourceAttributes(f: Fields | undefined) {
  if (!f) return undefined;
  return definedOnly({ namespace: str(f, 1), verb: str(f, 2), group: str(f, 3), version: str(f, 4), resource: str(f, 5), subresource: str(f, 6), name: str(f, 7) });
}
function nonResourceAttributes(f: Fields | undefined) {
  if (!f) return undefined;
  return definedOnly({ path: str(f, 1), verb: str(f, 2) });
}

/**
 * Decodes a protobuf review request into its JSON form (`apiVersion`, `kind`, `spec`).
 * @throws a 400 StatusError for a body that is not a Kubernetes protobuf envelope.
 */
export function decodeProtobufReview(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || body.subarray(0, 4).toString("latin1") !== "k8s\0") throw newBadRequest("protobuf: missing the k8s envelope prefix");
  const unknown = readFields(body.subarray(4));
  const typeMeta = sub(unknown, 1);
  const apiVersion = typeMeta ? str(typeMeta, 1) : undefined;
  const kind = typeMeta ? str(typeMeta, 2) : undefined;
  const obj = readFields(bytesOf(unknown, 2) ?? Buffer.alloc(0));
  const spec = sub(obj, 2);
  const meta = sub(obj, 1);
  const out: Record<string, unknown> = { ...(apiVersion ? { apiVersion } : {}), ...(kind ? { kind } : {}), metadata: meta && str(meta, 3) ? { namespace: str(meta, 3) } : {} };
  if (!spec) return out;
  if (kind === "TokenReview") out["spec"] = { ...definedOnly({ token: str(spec, 1) }), audiences: strs(spec, 2) };
  else if (kind === "SelfSubjectRulesReview") out["spec"] = definedOnly({ namespace: str(spec, 1) });
  else if (kind === "SelfSubjectAccessReview" || kind === "SubjectAccessReview" || kind === "LocalSubjectAccessReview") {
    const ra = resourceAttributes(sub(spec, 1));
    const nra = nonResourceAttributes(sub(spec, 2));
    out["spec"] = {
      ...(ra ? { resourceAttributes: ra } : {}),
      ...(nra ? { nonResourceAttributes: nra } : {}),
      ...(kind !== "SelfSubjectAccessReview" ? { ...definedOnly({ user: str(spec, 3), uid: str(spec, 6) }), groups: strs(spec, 4) } : {}),
    };
  }
  return out;
}
