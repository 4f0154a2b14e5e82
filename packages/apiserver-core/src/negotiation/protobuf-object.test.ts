import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStatusError } from "@skiff/apimachinery";
import { decodeProtobufObject, protobufKinds } from "./protobuf-object.js";

// What kubectl 1.32 sent for `kubectl create namespace x1` and
// `kubectl create job j1 --image=busybox -- echo hi` (captured with -v=9).
const kubectlNamespace = Buffer.from("6b3873000a0f0a02763112094e616d657370616365121a0a120a02783912001a0022002a0032003800420012001a020a001a002200", "hex");
const kubectlJob = Buffer.from(
  "6b3873000a0f0a0862617463682f763112034a6f621284010a120a026a3912001a0022002a00320038004200126432620a100a0012001a0022002a00320038004200124e122b0a026a39" +
    "120762757379626f781a046563686f1a0268692a0042006a007200800100880100900100a201001a054e65766572320042004a0052005800600068008201008a01009a0100c201001a082000280030003a001a002200",
  "hex",
);

// Minimal protobuf writer for test vectors.
const varint = (x: bigint): Buffer => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, x);
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
};
const bytes = (n: number, value: Buffer | string): Buffer => {
  const v = typeof value === "string" ? Buffer.from(value) : value;
  return Buffer.concat([varint(BigInt((n << 3) | 2)), varint(BigInt(v.length)), v]);
};
const num = (n: number, value: number | bigint): Buffer => Buffer.concat([varint(BigInt(n << 3)), varint(BigInt(value))]);
const cat = (...parts: Buffer[]) => Buffer.concat(parts);
const envelope = (apiVersion: string, kind: string, raw: Buffer, extra: Buffer = Buffer.alloc(0)) =>
  cat(Buffer.from("k8s\0", "latin1"), bytes(1, cat(bytes(1, apiVersion), bytes(2, kind))), bytes(2, raw), extra);

const statusOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (isStatusError(e)) return e.status;
    throw e;
  }
  throw new Error("no error");
};

describe("decodeProtobufObject", () => {
  it("decodes a ConfigMap (data, binaryData as base64, immutable) as kubectl create configmap sends it", () => {
    const raw = cat(bytes(1, bytes(1, "x")), bytes(2, cat(bytes(1, "a"), bytes(2, "b"))), bytes(3, cat(bytes(1, "bin"), bytes(2, Buffer.from([0, 1, 255])))), num(4, 0));
    expect(decodeProtobufObject(envelope("v1", "ConfigMap", raw))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x" },
      data: { a: "b" },
      binaryData: { bin: "AAH/" },
      immutable: false,
    });
  });

  it("decodes a Secret (data bytes, type, stringData) and a ServiceAccount (secrets, imagePullSecrets, automount)", () => {
    const secretRaw = cat(bytes(1, bytes(1, "s")), bytes(2, cat(bytes(1, "tls.crt"), bytes(2, "PEM"))), bytes(3, "kubernetes.io/tls"), bytes(4, cat(bytes(1, "k"), bytes(2, "v"))));
    expect(decodeProtobufObject(envelope("v1", "Secret", secretRaw))).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      data: { "tls.crt": Buffer.from("PEM").toString("base64") },
      type: "kubernetes.io/tls",
      stringData: { k: "v" },
    });
    const saRaw = cat(bytes(1, bytes(1, "sa")), bytes(2, cat(bytes(3, "tok"), bytes(1, "Secret"))), bytes(3, bytes(1, "pull")), num(4, 0));
    expect(decodeProtobufObject(envelope("v1", "ServiceAccount", saRaw))).toEqual({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "sa" },
      secrets: [{ kind: "Secret", name: "tok" }],
      imagePullSecrets: [{ name: "pull" }],
      automountServiceAccountToken: false,
    });
  });

  it("decodes kubectl's `create namespace` body, omitting gogo's zero values", () => {
    expect(decodeProtobufObject(kubectlNamespace)).toEqual({ apiVersion: "v1", kind: "Namespace", metadata: { name: "x9" }, spec: {}, status: {} });
  });

  it("decodes kubectl's `create job` body to what `kubectl create job -o json` shows", () => {
    expect(decodeProtobufObject(kubectlJob)).toEqual({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "j9" },
      spec: { template: { metadata: {}, spec: { containers: [{ name: "j9", image: "busybox", command: ["echo", "hi"], resources: {} }], restartPolicy: "Never" } } },
      status: {},
    });
  });

  it("decodes a Job with pointers, selector, template, containers, maps, quantities and times", () => {
    const meta = cat(
      bytes(1, "pi"),
      bytes(2, ""),
      num(7, 0),
      bytes(8, cat(num(1, 1704067200), num(2, 5))),
      bytes(11, cat(bytes(1, "app"), bytes(2, "pi"))),
      bytes(11, cat(bytes(1, "tier"), bytes(2, "batch"))),
      bytes(13, cat(bytes(5, "v1"), bytes(1, "Node"), bytes(3, "n1"), bytes(4, "u1"), num(6, 1))),
      bytes(14, "example.io/a"),
      bytes(14, "example.io/b"),
    );
    const containerMsg = cat(
      bytes(1, "c"),
      bytes(2, "busybox"),
      bytes(3, "sh"),
      bytes(4, "-c"),
      bytes(4, "exit 0"),
      bytes(6, cat(num(3, 8080), bytes(4, "TCP"))),
      bytes(7, cat(bytes(1, "K"), bytes(2, "V"))),
      bytes(8, cat(bytes(1, cat(bytes(1, "cpu"), bytes(2, bytes(1, "500m")))), bytes(2, cat(bytes(1, "memory"), bytes(2, bytes(1, "64Mi")))))),
      num(16, 0),
    );
    const podSpecMsg = cat(bytes(2, containerMsg), bytes(3, "Never"), num(4, 0), num(11, 0), bytes(22, cat(bytes(1, "k"), bytes(2, "Exists"), num(5, 30))));
    const selector = cat(bytes(1, cat(bytes(1, "app"), bytes(2, "pi"))), bytes(2, cat(bytes(1, "tier"), bytes(2, "In"), bytes(3, "batch"), bytes(3, "web"))));
    const spec = cat(num(1, 0), num(2, 3), num(7, -1), bytes(4, selector), num(5, 1), bytes(6, cat(bytes(1, Buffer.alloc(0)), bytes(2, podSpecMsg))), bytes(9, "Indexed"), num(10, 0));
    const status = cat(num(4, 0), num(5, 0), bytes(7, ""));
    const out = decodeProtobufObject(envelope("batch/v1", "Job", cat(bytes(1, meta), bytes(2, spec), bytes(3, status))));
    expect(out).toEqual({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: "pi",
        creationTimestamp: "2024-01-01T00:00:00Z",
        labels: { app: "pi", tier: "batch" },
        ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "u1", controller: true }],
        finalizers: ["example.io/a", "example.io/b"],
      },
      spec: {
        parallelism: 0,
        completions: 3,
        backoffLimit: -1,
        selector: { matchLabels: { app: "pi" }, matchExpressions: [{ key: "tier", operator: "In", values: ["batch", "web"] }] },
        manualSelector: true,
        template: {
          metadata: {},
          spec: {
            containers: [
              {
                name: "c",
                image: "busybox",
                command: ["sh"],
                args: ["-c", "exit 0"],
                ports: [{ containerPort: 8080, protocol: "TCP" }],
                env: [{ name: "K", value: "V" }],
                resources: { limits: { cpu: "500m" }, requests: { memory: "64Mi" } },
              },
            ],
            restartPolicy: "Never",
            terminationGracePeriodSeconds: 0,
            tolerations: [{ key: "k", operator: "Exists", tolerationSeconds: 30 }],
          },
        },
        completionMode: "Indexed",
        suspend: false,
      },
      status: {},
    });
  });

  it("decodes Pod and PodTemplate", () => {
    const podSpecMsg = cat(bytes(2, cat(bytes(1, "p"), bytes(2, "busybox"))), bytes(3, "Never"));
    expect(decodeProtobufObject(envelope("v1", "Pod", cat(bytes(1, bytes(1, "p")), bytes(2, podSpecMsg), bytes(3, bytes(1, "")))))).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "p", image: "busybox" }], restartPolicy: "Never" },
      status: {},
    });
    const tpl = cat(bytes(1, bytes(1, "t")), bytes(2, cat(bytes(1, bytes(11, cat(bytes(1, "a"), bytes(2, "b")))), bytes(2, podSpecMsg))));
    expect(decodeProtobufObject(envelope("v1", "PodTemplate", tpl))).toMatchObject({ metadata: { name: "t" }, template: { metadata: { labels: { a: "b" } }, spec: { restartPolicy: "Never" } } });
  });

  it("answers 415 naming the supported kinds for any other kind", () => {
    const st = statusOf(() => decodeProtobufObject(envelope("storage.example.io/v1", "CSIDriver", bytes(1, bytes(1, "d")))));
    expect(st).toMatchObject({ code: 415, reason: "UnsupportedMediaType" });
    expect(st.message).toContain("CSIDriver");
    for (const k of ["Namespace (v1)", "Pod (v1)", "PodTemplate (v1)", "Job (batch/v1)", "ConfigMap (v1)", "Secret (v1)", "ServiceAccount (v1)"]) expect(st.message).toContain(k);
    expect(protobufKinds).toHaveLength(12);
  });

  it("decodes managedFields kubectl sends back (auth reconcile), fieldsV1 as JSON", () => {
    const entry = cat(bytes(1, "kubectl-create"), bytes(2, "Update"), bytes(3, "v1"), bytes(6, "FieldsV1"), bytes(7, bytes(1, '{"f:data":{".":{}}}')));
    expect(decodeProtobufObject(envelope("v1", "ConfigMap", bytes(1, cat(bytes(1, "c"), bytes(17, entry)))))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", managedFields: [{ manager: "kubectl-create", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { ".": {} } } }] },
    });
  });

  it("decodes the RBAC kinds kubectl create role|rolebinding sends", () => {
    const rule = cat(bytes(1, "get"), bytes(1, "list"), bytes(2, ""), bytes(3, "pods"), bytes(4, "web"));
    expect(decodeProtobufObject(envelope("rbac.authorization.k8s.io/v1", "Role", cat(bytes(1, cat(bytes(1, "r"), bytes(3, "default"))), bytes(2, rule))))).toEqual({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "r", namespace: "default" },
      rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"], resourceNames: ["web"] }],
    });
    const subject = cat(bytes(1, "ServiceAccount"), bytes(2, ""), bytes(3, "sa"), bytes(4, "ns"));
    const ref = cat(bytes(1, "rbac.authorization.k8s.io"), bytes(2, "ClusterRole"), bytes(3, "view"));
    expect(decodeProtobufObject(envelope("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", cat(bytes(1, bytes(1, "b")), bytes(2, subject), bytes(3, ref))))).toEqual({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "b" },
      subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "ns" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    });
  });

  it("decodes a PriorityClass as kubectl create priorityclass sends it: negative value, globalDefault, the policy pointer", () => {
    const body = cat(bytes(1, bytes(1, "low")), num(2, -5n), num(3, 1), bytes(4, "for batch"), bytes(5, "Never"));
    expect(decodeProtobufObject(envelope("scheduling.k8s.io/v1", "PriorityClass", body))).toEqual({
      apiVersion: "scheduling.k8s.io/v1",
      kind: "PriorityClass",
      metadata: { name: "low" },
      value: -5,
      globalDefault: true,
      description: "for batch",
      preemptionPolicy: "Never",
    });
    // gogo writes the zero value and false; they are omitted as omitempty JSON would.
    expect(decodeProtobufObject(envelope("scheduling.k8s.io/v1", "PriorityClass", cat(bytes(1, bytes(1, "z")), num(2, 0), num(3, 0), bytes(4, ""))))).toEqual({
      apiVersion: "scheduling.k8s.io/v1",
      kind: "PriorityClass",
      metadata: { name: "z" },
    });
  });

  it("answers 415 for a field outside the subset that carries data, and ignores it when empty", () => {
    const volumes = bytes(1, bytes(1, "v"));
    const st = statusOf(() => decodeProtobufObject(envelope("v1", "Pod", cat(bytes(1, bytes(1, "p")), bytes(2, volumes)))));
    expect(st).toMatchObject({ code: 415 });
    expect(st.message).toContain("protobuf field 1 of PodSpec (spec)");
    expect(decodeProtobufObject(envelope("v1", "Pod", cat(bytes(1, bytes(1, "p")), bytes(2, bytes(1, Buffer.alloc(0))))))).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: {} });
    expect(statusOf(() => decodeProtobufObject(envelope("v1", "Namespace", bytes(1, bytes(1, "x")), bytes(3, "gzip"))))).toMatchObject({ code: 415 });
  });

  it("answers 400 for bodies that are not protobuf envelopes or have broken wire data", () => {
    expect(statusOf(() => decodeProtobufObject(Buffer.from("{}")))).toMatchObject({ code: 400 });
    expect(statusOf(() => decodeProtobufObject(Buffer.from("k8s\0\x0a\x05ab", "latin1")))).toMatchObject({ code: 400 });
    expect(statusOf(() => decodeProtobufObject(envelope("v1", "Namespace", num(1, 5))))).toMatchObject({ code: 400 });
    expect(statusOf(() => decodeProtobufObject(envelope("v1", "Namespace", Buffer.from([0x0b]))))).toMatchObject({ code: 400 });
  });

  it("never throws anything but a Status error on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (data, wrap) => {
        const body = wrap ? envelope("batch/v1", "Job", Buffer.from(data)) : Buffer.concat([Buffer.from("k8s\0", "latin1"), Buffer.from(data)]);
        try {
          decodeProtobufObject(body);
        } catch (e) {
          if (!isStatusError(e)) throw e;
          expect([400, 415]).toContain(e.status.code);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
