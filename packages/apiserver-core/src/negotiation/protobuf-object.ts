/**
 * Decodes the `application/vnd.kubernetes.protobuf` request bodies kubectl's imperative commands
 * send (`kubectl create namespace|job|configmap|secret|serviceaccount|role|clusterrole|rolebinding|clusterrolebinding|priorityclass`) into the JSON object the JSON path
 * would have produced: the `k8s\0` magic, the `runtime.Unknown` envelope, then the object by a
 * hand-written SUBSET of the upstream messages with upstream field numbers. Zero scalars of
 * non-pointer fields are omitted (as `omitempty` JSON omits them; gogo protobuf always writes
 * them), pointer fields keep their zero values, nested messages stay (`{}` when empty, as Go's
 * JSON writes structs), a zero `Time` is omitted (JSON `null`), `Time` becomes RFC 3339 and
 * `Quantity` its string.
 * A field outside the subset that carries data → 415 naming it; an unknown kind → 415 naming the
 * kinds that are supported. Answers stay JSON. Not exported from the package.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (the envelope)
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/generated.proto (Unknown, TypeMeta)
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto (ObjectMeta, Time, LabelSelector)
 * @see staging/src/k8s.io/api/core/v1/generated.proto (Namespace, Pod, PodTemplate, PodSpec, Container,
 *   ConfigMap, Secret, ServiceAccount)
 * @see staging/src/k8s.io/api/batch/v1/generated.proto (Job, JobSpec, JobStatus)
 * @see staging/src/k8s.io/api/rbac/v1/generated.proto (Role, ClusterRole, RoleBinding, ClusterRoleBinding)
 * @see staging/src/k8s.io/api/scheduling/v1/generated.proto (PriorityClass)
 */
import { StatusError, newBadRequest } from "@skiff/apimachinery";

/** `rawjson`: a message whose field 1 holds JSON text (FieldsV1), decoded to that JSON value. */
type Scalar = "string" | "int" | "bool" | "time" | "quantity" | "rawjson";
/** Map value types: `bytes` (`map[string][]byte`) becomes base64 text, as in the JSON form. */
type MapValue = "string" | "quantity" | "bytes";
interface Field {
  readonly n: number;
  readonly name: string;
  readonly type: Scalar | Message | { readonly map: MapValue };
  readonly repeated?: boolean;
  /** A Go pointer (`*int32`, `*bool`, `*T`): present zero values are kept. */
  readonly ptr?: boolean;
}
interface Message {
  readonly name: string;
  readonly fields: readonly Field[];
}

const msg = (name: string, fields: readonly Field[]): Message => ({ name, fields });
const f = (n: number, name: string, type: Field["type"], extra: Partial<Pick<Field, "repeated" | "ptr">> = {}): Field => ({ n, name, type, ...extra });

// ── meta/v1 ──────────────────────────────────────────────────────────────────────────────────
const ownerReference = msg("OwnerReference", [
  f(5, "apiVersion", "string"),
  f(1, "kind", "string"),
  f(3, "name", "string"),
  f(4, "uid", "string"),
  f(6, "controller", "bool", { ptr: true }),
  f(7, "blockOwnerDeletion", "bool", { ptr: true }),
]);
const objectMeta = msg("ObjectMeta", [
  f(1, "name", "string"),
  f(2, "generateName", "string"),
  f(3, "namespace", "string"),
  f(4, "selfLink", "string"),
  f(5, "uid", "string"),
  f(6, "resourceVersion", "string"),
  f(7, "generation", "int"),
  f(8, "creationTimestamp", "time"),
  f(9, "deletionTimestamp", "time"),
  f(10, "deletionGracePeriodSeconds", "int", { ptr: true }),
  f(11, "labels", { map: "string" }),
  f(12, "annotations", { map: "string" }),
  f(13, "ownerReferences", ownerReference, { repeated: true }),
  f(14, "finalizers", "string", { repeated: true }),
  // kubectl sends back what it read (auth reconcile, edit): managedFields included.
  f(
    17,
    "managedFields",
    msg("ManagedFieldsEntry", [
      f(1, "manager", "string"),
      f(2, "operation", "string"),
      f(3, "apiVersion", "string"),
      f(4, "time", "time"),
      f(6, "fieldsType", "string"),
      f(7, "fieldsV1", "rawjson"),
      f(8, "subresource", "string"),
    ]),
    { repeated: true },
  ),
]);
const labelSelector = msg("LabelSelector", [
  f(1, "matchLabels", { map: "string" }),
  f(2, "matchExpressions", msg("LabelSelectorRequirement", [f(1, "key", "string"), f(2, "operator", "string"), f(3, "values", "string", { repeated: true })]), { repeated: true }),
]);

// ── core/v1 ──────────────────────────────────────────────────────────────────────────────────
const containerPort = msg("ContainerPort", [f(1, "name", "string"), f(2, "hostPort", "int"), f(3, "containerPort", "int"), f(4, "protocol", "string"), f(5, "hostIP", "string")]);
const envVar = msg("EnvVar", [f(1, "name", "string"), f(2, "value", "string")]);
const resourceRequirements = msg("ResourceRequirements", [f(1, "limits", { map: "quantity" }), f(2, "requests", { map: "quantity" })]);
const volumeMount = msg("VolumeMount", [
  f(1, "name", "string"),
  f(2, "readOnly", "bool"),
  f(3, "mountPath", "string"),
  f(4, "subPath", "string"),
  f(5, "mountPropagation", "string", { ptr: true }),
  f(6, "subPathExpr", "string"),
]);
const container = msg("Container", [
  f(1, "name", "string"),
  f(2, "image", "string"),
  f(3, "command", "string", { repeated: true }),
  f(4, "args", "string", { repeated: true }),
  f(5, "workingDir", "string"),
  f(6, "ports", containerPort, { repeated: true }),
  f(7, "env", envVar, { repeated: true }),
  f(8, "resources", resourceRequirements),
  f(9, "volumeMounts", volumeMount, { repeated: true }),
  f(13, "terminationMessagePath", "string"),
  f(14, "imagePullPolicy", "string"),
  f(16, "stdin", "bool"),
  f(17, "stdinOnce", "bool"),
  f(18, "tty", "bool"),
  f(20, "terminationMessagePolicy", "string"),
]);
const toleration = msg("Toleration", [f(1, "key", "string"), f(2, "operator", "string"), f(3, "value", "string"), f(4, "effect", "string"), f(5, "tolerationSeconds", "int", { ptr: true })]);
const podSpec = msg("PodSpec", [
  f(2, "containers", container, { repeated: true }),
  f(3, "restartPolicy", "string"),
  f(4, "terminationGracePeriodSeconds", "int", { ptr: true }),
  f(5, "activeDeadlineSeconds", "int", { ptr: true }),
  f(6, "dnsPolicy", "string"),
  f(7, "nodeSelector", { map: "string" }),
  f(8, "serviceAccountName", "string"),
  f(9, "serviceAccount", "string"),
  f(10, "nodeName", "string"),
  f(11, "hostNetwork", "bool"),
  f(12, "hostPID", "bool"),
  f(13, "hostIPC", "bool"),
  f(15, "imagePullSecrets", msg("LocalObjectReference", [f(1, "name", "string")]), { repeated: true }),
  f(16, "hostname", "string"),
  f(17, "subdomain", "string"),
  f(19, "schedulerName", "string"),
  f(20, "initContainers", container, { repeated: true }),
  f(21, "automountServiceAccountToken", "bool", { ptr: true }),
  f(22, "tolerations", toleration, { repeated: true }),
  f(23, "hostAliases", msg("HostAlias", [f(1, "ip", "string"), f(2, "hostnames", "string", { repeated: true })]), { repeated: true }),
  f(24, "priorityClassName", "string"),
  f(25, "priority", "int", { ptr: true }),
  f(
    26,
    "dnsConfig",
    msg("PodDNSConfig", [
      f(1, "nameservers", "string", { repeated: true }),
      f(2, "searches", "string", { repeated: true }),
      f(3, "options", msg("PodDNSConfigOption", [f(1, "name", "string"), f(2, "value", "string", { ptr: true })]), { repeated: true }),
    ]),
  ),
  f(29, "runtimeClassName", "string", { ptr: true }),
  f(30, "enableServiceLinks", "bool", { ptr: true }),
  f(31, "preemptionPolicy", "string", { ptr: true }),
  f(35, "setHostnameAsFQDN", "bool", { ptr: true }),
]);
const podTemplateSpec = msg("PodTemplateSpec", [f(1, "metadata", objectMeta), f(2, "spec", podSpec)]);
const podStatus = msg("PodStatus", [
  f(1, "phase", "string"),
  f(3, "message", "string"),
  f(4, "reason", "string"),
  f(5, "hostIP", "string"),
  f(6, "podIP", "string"),
  f(7, "startTime", "time"),
  f(9, "qosClass", "string"),
  f(11, "nominatedNodeName", "string"),
]);
const pod = msg("Pod", [f(1, "metadata", objectMeta), f(2, "spec", podSpec), f(3, "status", podStatus)]);
const podTemplate = msg("PodTemplate", [f(1, "metadata", objectMeta), f(2, "template", podTemplateSpec)]);
const objectReference = msg("ObjectReference", [
  f(1, "kind", "string"),
  f(2, "namespace", "string"),
  f(3, "name", "string"),
  f(4, "uid", "string"),
  f(5, "apiVersion", "string"),
  f(6, "resourceVersion", "string"),
  f(7, "fieldPath", "string"),
]);
const configMap = msg("ConfigMap", [f(1, "metadata", objectMeta), f(2, "data", { map: "string" }), f(3, "binaryData", { map: "bytes" }), f(4, "immutable", "bool", { ptr: true })]);
const secret = msg("Secret", [
  f(1, "metadata", objectMeta),
  f(2, "data", { map: "bytes" }),
  f(3, "type", "string"),
  f(4, "stringData", { map: "string" }),
  f(5, "immutable", "bool", { ptr: true }),
]);
const serviceAccount = msg("ServiceAccount", [
  f(1, "metadata", objectMeta),
  f(2, "secrets", objectReference, { repeated: true }),
  f(3, "imagePullSecrets", msg("LocalObjectReference", [f(1, "name", "string")]), { repeated: true }),
  f(4, "automountServiceAccountToken", "bool", { ptr: true }),
]);
const namespace = msg("Namespace", [
  f(1, "metadata", objectMeta),
  f(2, "spec", msg("NamespaceSpec", [f(1, "finalizers", "string", { repeated: true })])),
  f(3, "status", msg("NamespaceStatus", [f(1, "phase", "string")])),
]);

// ── batch/v1 ─────────────────────────────────────────────────────────────────────────────────
const jobSpec = msg("JobSpec", [
  f(1, "parallelism", "int", { ptr: true }),
  f(2, "completions", "int", { ptr: true }),
  f(3, "activeDeadlineSeconds", "int", { ptr: true }),
  f(4, "selector", labelSelector, { ptr: true }),
  f(5, "manualSelector", "bool", { ptr: true }),
  f(6, "template", podTemplateSpec),
  f(7, "backoffLimit", "int", { ptr: true }),
  f(8, "ttlSecondsAfterFinished", "int", { ptr: true }),
  f(9, "completionMode", "string", { ptr: true }),
  f(10, "suspend", "bool", { ptr: true }),
]);
const jobCondition = msg("JobCondition", [
  f(1, "type", "string"),
  f(2, "status", "string"),
  f(3, "lastProbeTime", "time"),
  f(4, "lastTransitionTime", "time"),
  f(5, "reason", "string"),
  f(6, "message", "string"),
]);
const jobStatus = msg("JobStatus", [
  f(1, "conditions", jobCondition, { repeated: true }),
  f(2, "startTime", "time"),
  f(3, "completionTime", "time"),
  f(4, "active", "int"),
  f(5, "succeeded", "int"),
  f(6, "failed", "int"),
  f(7, "completedIndexes", "string"),
  f(9, "ready", "int", { ptr: true }),
]);
const job = msg("Job", [f(1, "metadata", objectMeta), f(2, "spec", jobSpec), f(3, "status", jobStatus)]);

// ── rbac.authorization.k8s.io/v1 ────────────────────────────────────────────────────────────
const policyRule = msg("PolicyRule", [
  f(1, "verbs", "string", { repeated: true }),
  f(2, "apiGroups", "string", { repeated: true }),
  f(3, "resources", "string", { repeated: true }),
  f(4, "resourceNames", "string", { repeated: true }),
  f(5, "nonResourceURLs", "string", { repeated: true }),
]);
const role = msg("Role", [f(1, "metadata", objectMeta), f(2, "rules", policyRule, { repeated: true })]);
const clusterRole = msg("ClusterRole", [
  f(1, "metadata", objectMeta),
  f(2, "rules", policyRule, { repeated: true }),
  f(3, "aggregationRule", msg("AggregationRule", [f(1, "clusterRoleSelectors", labelSelector, { repeated: true })]), { ptr: true }),
]);
const subject = msg("Subject", [f(1, "kind", "string"), f(2, "apiGroup", "string"), f(3, "name", "string"), f(4, "namespace", "string")]);
const roleRef = msg("RoleRef", [f(1, "apiGroup", "string"), f(2, "kind", "string"), f(3, "name", "string")]);
const roleBinding = msg("RoleBinding", [f(1, "metadata", objectMeta), f(2, "subjects", subject, { repeated: true }), f(3, "roleRef", roleRef)]);
const clusterRoleBinding = msg("ClusterRoleBinding", [f(1, "metadata", objectMeta), f(2, "subjects", subject, { repeated: true }), f(3, "roleRef", roleRef)]);

// ── scheduling.k8s.io/v1 ─────────────────────────────────────────────────────────────────────
const priorityClass = msg("PriorityClass", [
  f(1, "metadata", objectMeta),
  f(2, "value", "int"),
  f(3, "globalDefault", "bool"),
  f(4, "description", "string"),
  f(5, "preemptionPolicy", "string", { ptr: true }),
]);

/** The kinds a protobuf body may carry, by `apiVersion/kind`. */
const kinds: ReadonlyMap<string, Message> = new Map([
  ["rbac.authorization.k8s.io/v1/Role", role],
  ["rbac.authorization.k8s.io/v1/ClusterRole", clusterRole],
  ["rbac.authorization.k8s.io/v1/RoleBinding", roleBinding],
  ["rbac.authorization.k8s.io/v1/ClusterRoleBinding", clusterRoleBinding],
  ["scheduling.k8s.io/v1/PriorityClass", priorityClass],
  ["v1/ConfigMap", configMap],
  ["v1/Namespace", namespace],
  ["v1/Secret", secret],
  ["v1/ServiceAccount", serviceAccount],
  ["v1/Pod", pod],
  ["v1/PodTemplate", podTemplate],
  ["batch/v1/Job", job],
]);

/** The `apiVersion` `kind` pairs {@link decodeProtobufObject} reads, for messages. */
export const protobufKinds: readonly string[] = [...kinds.keys()].map((k) => {
  const i = k.lastIndexOf("/");
  return `${k.slice(i + 1)} (${k.slice(0, i)})`;
});

// ── wire ─────────────────────────────────────────────────────────────────────────────────────
/** One field as read off the wire (varint value, or the bytes of a length-delimited/fixed field). */
export interface WireField {
  readonly n: number;
  readonly wire: number;
  readonly varint?: bigint;
  readonly bytes?: Buffer;
}

function readVarint(buf: Buffer, pos: { i: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos.i >= buf.length || shift > 63n) throw newBadRequest("protobuf: truncated varint");
    const b = buf[pos.i++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return result;
    shift += 7n;
  }
}

/**
 * The fields of one protobuf message, in wire order. Shared with the review-request reader.
 * @throws StatusError 400 for truncated input, field number 0 or unknown wire types.
 */
export function readWire(buf: Buffer): WireField[] {
  const out: WireField[] = [];
  const pos = { i: 0 };
  while (pos.i < buf.length) {
    const key = readVarint(buf, pos);
    const n = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (n === 0) throw newBadRequest("protobuf: field number 0");
    if (wire === 0) out.push({ n, wire, varint: readVarint(buf, pos) });
    else if (wire === 2) {
      const len = Number(readVarint(buf, pos));
      if (pos.i + len > buf.length) throw newBadRequest("protobuf: truncated field");
      out.push({ n, wire, bytes: buf.subarray(pos.i, pos.i + len) });
      pos.i += len;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (pos.i + size > buf.length) throw newBadRequest("protobuf: truncated field");
      out.push({ n, wire, bytes: buf.subarray(pos.i, pos.i + size) });
      pos.i += size;
    } else throw newBadRequest(`protobuf: unsupported wire type ${String(wire)}`);
  }
  return out;
}

const isEmptyWire = (w: WireField): boolean => (w.wire === 0 ? w.varint === 0n : w.wire === 2 ? w.bytes!.length === 0 : false);

function unsupported(message: string): StatusError {
  return new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "UnsupportedMediaType", code: 415 });
}

function wrongWire(path: string): StatusError {
  return newBadRequest(`protobuf: field ${path} has the wrong wire type`);
}

function toInt(w: WireField, path: string): number {
  if (w.wire !== 0) throw wrongWire(path);
  // int32/int64 are two's complement in 64 bits.
  const v = BigInt.asIntN(64, w.varint!);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw newBadRequest(`protobuf: field ${path} is out of range`);
  return Number(v);
}

function toStr(w: WireField, path: string): string {
  if (w.wire !== 2) throw wrongWire(path);
  return w.bytes!.toString("utf8");
}

function toTime(w: WireField, path: string): string | undefined {
  if (w.wire !== 2) throw wrongWire(path);
  let seconds = 0;
  for (const t of readWire(w.bytes!)) {
    if (t.n === 1) seconds = toInt(t, `${path}.seconds`);
    // nanos (2): Time marshals to JSON with second precision.
  }
  // The zero Time (0001-01-01, or no seconds at all as gogo writes an unset Time) is JSON null.
  if (seconds === 0 || seconds === -62135596800) return undefined;
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) throw newBadRequest(`protobuf: field ${path} is not a valid time`);
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function toQuantity(w: WireField, path: string): string {
  if (w.wire !== 2) throw wrongWire(path);
  let s = "";
  for (const t of readWire(w.bytes!)) if (t.n === 1) s = toStr(t, `${path}.string`);
  return s;
}

function decodeMapEntry(w: WireField, path: string, value: MapValue): [string, string] {
  if (w.wire !== 2) throw wrongWire(path);
  let k = "";
  let v = "";
  for (const t of readWire(w.bytes!)) {
    if (t.n === 1) k = toStr(t, `${path}.key`);
    else if (t.n === 2) {
      if (value === "string") v = toStr(t, `${path}[${k}]`);
      else if (value === "quantity") v = toQuantity(t, `${path}[${k}]`);
      else if (t.wire !== 2) throw wrongWire(`${path}[${k}]`);
      else v = t.bytes!.toString("base64");
    }
  }
  return [k, v];
}

function decodeScalar(type: Scalar, w: WireField, path: string): unknown {
  switch (type) {
    case "string":
      return toStr(w, path);
    case "int":
      return toInt(w, path);
    case "bool":
      if (w.wire !== 0) throw wrongWire(path);
      return w.varint !== 0n;
    case "time":
      return toTime(w, path);
    case "quantity":
      return toQuantity(w, path);
    case "rawjson":
      return toRawJSON(w, path);
  }
}

function toRawJSON(w: WireField, path: string): unknown {
  if (w.wire !== 2) throw wrongWire(path);
  let raw: Buffer | undefined;
  for (const t of readWire(w.bytes!)) if (t.n === 1 && t.wire === 2) raw = t.bytes!;
  if (raw === undefined || raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8")) as unknown;
  } catch {
    throw newBadRequest(`protobuf: field ${path} does not hold JSON`);
  }
}

const isZero = (v: unknown): boolean => v === "" || v === 0 || v === false || v === undefined;

function decodeMessage(m: Message, buf: Buffer, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const byNumber = new Map(m.fields.map((x) => [x.n, x]));
  for (const w of readWire(buf)) {
    const field = byNumber.get(w.n);
    if (field === undefined) {
      if (isEmptyWire(w)) continue;
      throw unsupported(
        `protobuf field ${String(w.n)} of ${m.name}${path ? ` (${path})` : ""} is not supported by this server's protobuf decoder; send the object as application/json or application/yaml`,
      );
    }
    const here = path ? `${path}.${field.name}` : field.name;
    const t = field.type;
    if (typeof t === "object" && "map" in t) {
      const [k, v] = decodeMapEntry(w, here, t.map);
      out[field.name] = { ...(out[field.name] as Record<string, string> | undefined), [k]: v };
    } else if (typeof t === "object") {
      if (w.wire !== 2) throw wrongWire(here);
      const v = decodeMessage(t, w.bytes!, field.repeated ? `${here}[${String(((out[field.name] as unknown[] | undefined) ?? []).length)}]` : here);
      if (field.repeated) out[field.name] = [...((out[field.name] as unknown[] | undefined) ?? []), v];
      // gogo writes a struct field whenever Go's JSON would (always for non-pointers, when set for
      // pointers), so an empty message stays `{}` as in the JSON form (`resources: {}`).
      else out[field.name] = v;
    } else {
      const v = decodeScalar(t, w, here);
      if (field.repeated) out[field.name] = [...((out[field.name] as unknown[] | undefined) ?? []), v];
      else if (v !== undefined && (field.ptr || !isZero(v))) out[field.name] = v;
      else delete out[field.name];
    }
  }
  return out;
}

/** The magic prefix of every Kubernetes protobuf body. */
const magic = Buffer.from("k8s\0", "latin1");

/**
 * Decodes a Kubernetes protobuf request body to its JSON object (`apiVersion`, `kind`, and the
 * fields of the subset). Does not mutate `body`.
 * @throws StatusError 400 for a body without the `k8s\0` prefix or with malformed wire data; 415
 *   for a kind outside {@link protobufKinds}, a compressed envelope, or a field outside the subset
 *   that carries data.
 */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < magic.length || !body.subarray(0, magic.length).equals(magic)) throw newBadRequest("protobuf: missing the k8s envelope prefix");
  let apiVersion = "";
  let kind = "";
  let raw: Buffer = Buffer.alloc(0);
  for (const w of readWire(body.subarray(magic.length))) {
    if (w.n === 1) {
      if (w.wire !== 2) throw wrongWire("typeMeta");
      for (const t of readWire(w.bytes!)) {
        if (t.n === 1) apiVersion = toStr(t, "apiVersion");
        else if (t.n === 2) kind = toStr(t, "kind");
      }
    } else if (w.n === 2) {
      if (w.wire !== 2) throw wrongWire("raw");
      raw = w.bytes!;
    } else if (w.n === 3 && !isEmptyWire(w)) throw unsupported(`protobuf: content encoding "${toStr(w, "contentEncoding")}" is not supported`);
  }
  const m = kinds.get(`${apiVersion}/${kind}`);
  if (m === undefined) {
    throw unsupported(
      `protobuf bodies of ${kind || "(no kind)"} (${apiVersion || "no apiVersion"}) are not supported; protobuf is decoded for ${protobufKinds.join(", ")}; send other kinds as application/json or application/yaml`,
    );
  }
  return { apiVersion, kind, ...decodeMessage(m, raw, "") };
}
