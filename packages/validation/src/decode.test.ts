import { describe, expect, it } from "vitest";
import { decodeObject, formatDecodeError } from "./decode.js";
import type { DecodeFieldError } from "./decode.js";

const strict = { fieldValidation: "Strict" } as const;

function errorsOf(r: ReturnType<typeof decodeObject>): DecodeFieldError[] {
  if (r.ok) throw new Error(`expected errors, got ${JSON.stringify(r.value)}`);
  return r.errors;
}

function valueOf<T>(r: { ok: true; value: T } | { ok: false }): T {
  if (!r.ok) throw new Error("expected success");
  return r.value;
}

describe("decodeObject: unknown fields", () => {
  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "pi", bogus: true },
    spec: {
      foo: 1,
      template: {
        spec: {
          containers: [
            { name: "a", image: "busybox" },
            { name: "b", image: "busybox", imagePullPolcy: "Always", ports: [{ containerPort: 80, extra: "x" }] },
          ],
        },
      },
    },
    extraTop: {},
  };

  it("lists unknown fields at several depths, sorted, with [i] for list items", () => {
    const r = decodeObject("Job", job, strict);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.unknownFields).toEqual([
      "extraTop",
      "metadata.bogus",
      "spec.foo",
      "spec.template.spec.containers[1].imagePullPolcy",
      "spec.template.spec.containers[1].ports[0].extra",
    ]);
  });

  it("drops unknown fields from the value and keeps the known ones", () => {
    const v = valueOf(decodeObject("Job", job, strict)) as unknown as Record<string, unknown>;
    expect(v).toEqual({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "pi" },
      spec: {
        template: {
          spec: {
            containers: [
              { name: "a", image: "busybox" },
              { name: "b", image: "busybox", ports: [{ containerPort: 80 }] },
            ],
          },
        },
      },
    });
  });

  it("lists them in Warn mode and not in Ignore mode, dropping them in both", () => {
    const warn = decodeObject("Job", job, { fieldValidation: "Warn" });
    expect(warn.ok && warn.unknownFields).toContain("spec.foo");
    const ignore = decodeObject("Job", job, { fieldValidation: "Ignore" });
    expect(ignore.ok && ignore.unknownFields).toEqual([]);
    expect(JSON.stringify(valueOf(ignore))).not.toContain("foo");
  });

  it("keeps every key of free-form maps (labels, annotations, fieldsV1, nodeSelector, volumeAttributes)", () => {
    const raw = {
      metadata: {
        name: "n",
        labels: { "app.example.io/x": "y", weird_KEY: "" },
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" },
        managedFields: [{ manager: "kubectl", fieldsV1: { "f:spec": { "f:parallelism": {} } } }],
      },
      spec: {
        template: {
          spec: {
            nodeSelector: { "example.io/os": "linux" },
            containers: [{ name: "c" }],
            volumes: [{ name: "v", csi: { driver: "d", volumeAttributes: { anything: "goes" } } }],
          },
        },
      },
    };
    const r = decodeObject("Job", raw, strict);
    expect(r.ok && r.unknownFields).toEqual([]);
    expect(valueOf(r)).toEqual(raw);
  });

  it("reports a __proto__ member as unknown instead of changing the prototype", () => {
    const raw = JSON.parse('{"spec":{"__proto__":{"polluted":true},"template":{}}}') as unknown;
    const r = decodeObject("Job", raw, strict);
    expect(r.ok && r.unknownFields).toEqual(["spec.__proto__"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("drops null members and keeps a __proto__ member a member in the same body", () => {
    const raw = JSON.parse('{"metadata":{"creationTimestamp":null,"__proto__":{"polluted":true}},"spec":{"parallelism":null,"template":{"metadata":{"creationTimestamp":null}}}}') as unknown;
    const r = decodeObject("Job", raw, strict);
    expect(r.ok && r.unknownFields).toEqual(["metadata.__proto__"]);
    const v = valueOf(r) as { metadata: object; spec: Record<string, unknown> };
    expect(Object.getPrototypeOf(v.metadata)).toBe(Object.prototype);
    expect(Object.keys(v.metadata)).toEqual([]);
    expect("parallelism" in v.spec).toBe(false);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    // The input is not changed.
    expect((raw as { spec: Record<string, unknown> }).spec["parallelism"]).toBeNull();
  });

  it("reports unknown fields of CSIDriver, CSINode and list kinds", () => {
    const d = decodeObject("CSIDriver", { spec: { attachRequired: true, attachedRequired: true } }, strict);
    expect(d.ok && d.unknownFields).toEqual(["spec.attachedRequired"]);
    const n = decodeObject("CSINode", { spec: { drivers: [{ name: "a", nodeID: "n", topology: [] }] } }, strict);
    expect(n.ok && n.unknownFields).toEqual(["spec.drivers[0].topology"]);
    const l = decodeObject("JobList", { items: [{ spec: { template: {}, x: 1 } }], y: 2 }, strict);
    expect(l.ok && l.unknownFields).toEqual(["items[0].spec.x", "y"]);
  });
});

describe("decodeObject: type errors", () => {
  it("reports a string for an int32 with path, types and Go struct", () => {
    const [e, ...rest] = errorsOf(decodeObject("Job", { spec: { parallelism: "2", template: {} } }, strict));
    expect(rest).toEqual([]);
    expect(e).toEqual({
      type: "FieldValueTypeInvalid",
      field: "spec.parallelism",
      badValue: "2",
      detail: "must be of type int32",
      actualType: "string",
      expectedType: "int32",
      structName: "JobSpec",
      goFieldPath: "spec.parallelism",
    });
    expect(formatDecodeError(e!)).toBe(
      "json: cannot unmarshal string into Go struct field JobSpec.spec.parallelism of type int32",
    );
  });

  it("rejects fractions and out-of-range values for int32, and accepts the bounds", () => {
    const errs = errorsOf(
      decodeObject("Job", { spec: { completions: 1.5, backoffLimit: 2 ** 31, template: {} } }, strict),
    );
    expect(errs.map((e) => e.field)).toEqual(["spec.completions", "spec.backoffLimit"]);
    expect(formatDecodeError(errs[0]!)).toBe(
      "json: cannot unmarshal number 1.5 into Go struct field JobSpec.spec.completions of type int32",
    );
    const ok = decodeObject("Job", { spec: { completions: 2 ** 31 - 1, parallelism: -(2 ** 31), template: {} } }, strict);
    expect(ok.ok).toBe(true);
  });

  it("accepts int64 beyond int32 (activeDeadlineSeconds, expirationSeconds)", () => {
    expect(decodeObject("Job", { spec: { activeDeadlineSeconds: 2 ** 40, template: {} } }, strict).ok).toBe(true);
    const d = decodeObject("CSIDriver", { spec: { tokenRequests: [{ audience: "a", expirationSeconds: 2 ** 33 }] } }, strict);
    expect(d.ok).toBe(true);
    const bad = errorsOf(decodeObject("CSIDriver", { spec: { tokenRequests: [{ audience: "a", expirationSeconds: "1h" }] } }, strict));
    expect(bad[0]).toMatchObject({ field: "spec.tokenRequests[0].expirationSeconds", expectedType: "int64", structName: "TokenRequest" });
  });

  it("reports nested list items, map values and bools with Kubernetes paths", () => {
    const errs = errorsOf(
      decodeObject(
        "Pod",
        {
          metadata: { labels: { app: 1 } },
          spec: {
            hostNetwork: "yes",
            containers: [{ name: "a" }, { name: "b", ports: [{ containerPort: "80" }] }],
          },
        },
        strict,
      ),
    );
    expect(errs.map((e) => [e.field, e.expectedType, e.actualType])).toEqual([
      ["metadata.labels[app]", "string", "number"],
      ["spec.containers[1].ports[0].containerPort", "int32", "string"],
      ["spec.hostNetwork", "bool", "string"],
    ]);
    const port = errs[1]!;
    expect(port.structName).toBe("ContainerPort");
    expect(port.goFieldPath).toBe("spec.containers.ports.containerPort");
  });

  it("reports an object where a list belongs, without a bad value", () => {
    const [e] = errorsOf(decodeObject("Job", { spec: { template: { spec: { containers: { name: "a" } } } } }, strict));
    expect(e).toMatchObject({ field: "spec.template.spec.containers", expectedType: "[]Container", actualType: "object" });
    expect(e).not.toHaveProperty("badValue");
    expect(formatDecodeError(e!)).toBe(
      "json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []Container",
    );
  });

  it("checks RFC 3339 timestamps", () => {
    const ok = decodeObject("Job", { spec: { template: {} }, status: { startTime: "2024-01-02T03:04:05Z", completionTime: "2024-01-02T03:04:05.123+02:00" } }, strict);
    expect(ok.ok).toBe(true);
    const [e] = errorsOf(decodeObject("Job", { spec: { template: {} }, status: { startTime: "2024-01-02 03:04:05" } }, strict));
    expect(e).toMatchObject({ field: "status.startTime", expectedType: "Time", detail: "must be an RFC 3339 timestamp" });
    expect(formatDecodeError(e!)).toBe("status.startTime: must be an RFC 3339 timestamp");
    const [n] = errorsOf(decodeObject("Job", { spec: { template: {} }, status: { startTime: 5 } }, strict));
    expect(n).toMatchObject({ field: "status.startTime", actualType: "number" });
  });

  it("accepts quantities as strings or numbers and rejects malformed ones", () => {
    const raw = (limits: unknown) => ({ spec: { containers: [{ name: "a", resources: { limits } }] } });
    expect(decodeObject("Pod", raw({ cpu: "100m", memory: "1Gi", x: 2, y: "1.5e3" }), strict).ok).toBe(true);
    const errs = errorsOf(decodeObject("Pod", raw({ cpu: "1 core", memory: false }), strict));
    expect(errs.map((e) => [e.field, e.detail])).toEqual([
      ["spec.containers[0].resources.limits[cpu]", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
      ["spec.containers[0].resources.limits[memory]", "must be of type Quantity"],
    ]);
  });

  it("accepts int-or-string ports", () => {
    const probe = (port: unknown) => ({ spec: { containers: [{ name: "a", livenessProbe: { httpGet: { port } } }] } });
    expect(decodeObject("Pod", probe(8080), strict).ok).toBe(true);
    expect(decodeObject("Pod", probe("http"), strict).ok).toBe(true);
    const [e] = errorsOf(decodeObject("Pod", probe(true), strict));
    expect(e).toMatchObject({ field: "spec.containers[0].livenessProbe.httpGet.port", expectedType: "IntOrString" });
  });

  it("reports a wrong top-level type", () => {
    const [e] = errorsOf(decodeObject("Job", [1], strict));
    expect(e).toMatchObject({ field: "", expectedType: "Job", actualType: "array" });
    expect(formatDecodeError(e!)).toBe("json: cannot unmarshal array into Go value of type Job");
    expect(errorsOf(decodeObject("CSINode", "x", strict))[0]).toMatchObject({ actualType: "string", badValue: "x" });
  });

  it("reports every bad field at once", () => {
    const errs = errorsOf(
      decodeObject("CSINode", { spec: { drivers: [{ name: 1, nodeID: "n", allocatable: { count: "3" }, topologyKeys: "k" }] } }, strict),
    );
    expect(errs.map((e) => e.field)).toEqual([
      "spec.drivers[0].name",
      "spec.drivers[0].topologyKeys",
      "spec.drivers[0].allocatable.count",
    ]);
  });
});

describe("decodeObject: nulls and missing required members", () => {
  it("treats null members as absent", () => {
    const v = valueOf(
      decodeObject("Job", { metadata: { name: "a", creationTimestamp: null, labels: null }, spec: { parallelism: null, template: { spec: null } }, status: null }, strict),
    );
    expect(v).toEqual({ metadata: { name: "a" }, spec: { template: {} } });
  });

  it("fills absent required members with Go zero values so validation reports them", () => {
    expect(valueOf(decodeObject("Job", { spec: {} }, strict))).toEqual({ spec: { template: {} } });
    expect(valueOf(decodeObject("Job", { spec: { template: { spec: {} } } }, strict))).toEqual({
      spec: { template: { spec: { containers: [] } } },
    });
    expect(valueOf(decodeObject("CSIDriver", {}, strict))).toEqual({ spec: {} });
    expect(valueOf(decodeObject("CSINode", { spec: { drivers: [{ topologyKeys: [] }] } }, strict))).toEqual({
      spec: { drivers: [{ name: "", nodeID: "", topologyKeys: [] }] },
    });
    expect(valueOf(decodeObject("Pod", { spec: { containers: [{ ports: [{}], livenessProbe: { tcpSocket: {} } }] } }, strict))).toEqual({
      spec: { containers: [{ name: "", ports: [{ containerPort: 0 }], livenessProbe: { tcpSocket: { port: 0 } } }] },
    });
  });

  it("does not mutate its input", () => {
    const raw = { spec: { foo: 1, parallelism: null, template: {} } };
    const copy = structuredClone(raw);
    decodeObject("Job", raw, strict);
    expect(raw).toEqual(copy);
  });

  it("decodes Binding, DeleteOptions and the other kinds", () => {
    expect(valueOf(decodeObject("Binding", { metadata: { name: "p" } }, strict))).toEqual({ metadata: { name: "p" }, target: {} });
    const del = decodeObject("DeleteOptions", { kind: "DeleteOptions", gracePeriodSeconds: 0, propagationPolicy: "Foreground", preconditions: { uid: "u" }, dryRun: ["All"] }, strict);
    expect(del.ok && del.unknownFields).toEqual([]);
    expect(errorsOf(decodeObject("DeleteOptions", { gracePeriodSeconds: "0" }, strict))[0]).toMatchObject({ field: "gracePeriodSeconds", structName: "DeleteOptions" });
    for (const kind of ["Node", "Namespace", "Event", "PodTemplate", "PodList", "NodeList", "EventList", "NamespaceList", "PodTemplateList", "CSIDriverList", "CSINodeList", "LeaseList"] as const) {
      const r = decodeObject(kind, {}, strict);
      expect(r.ok, kind).toBe(true);
    }
  });
});

describe("decodeObject: volumeDevices", () => {
  it("is a known container field: decoded under Strict, with Go's types", () => {
    const r = decodeObject("Pod", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i", volumeDevices: [{ name: "data", devicePath: "/dev/xvda" }] }] } }, { fieldValidation: "Strict" });
    expect(r.ok && r.unknownFields).toEqual([]);
    if (r.ok) expect(r.value.spec?.containers[0]?.volumeDevices).toEqual([{ name: "data", devicePath: "/dev/xvda" }]);
    const bad = decodeObject("Pod", { metadata: { name: "p" }, spec: { containers: [{ name: "c", volumeDevices: [{ name: 5 }] }] } }, { fieldValidation: "Strict" });
    expect(bad.ok ? [] : bad.errors.map(formatDecodeError)).toEqual(["json: cannot unmarshal number 5 into Go struct field VolumeDevice.spec.containers.volumeDevices.name of type string"]);
  });
});

describe("decodeObject: spec.os and windowsOptions are known fields", () => {
  it("keeps them under Strict and reports a wrong type as Go does", () => {
    const pod = {
      metadata: { name: "p" },
      spec: {
        os: { name: "windows" },
        securityContext: { windowsOptions: { runAsUserName: "ContainerUser", hostProcess: false } },
        containers: [{ name: "c", securityContext: { windowsOptions: { gmsaCredentialSpecName: "g", gmsaCredentialSpec: "{}" } } }],
      },
    };
    const r = decodeObject("Pod", pod, { fieldValidation: "Strict" });
    expect(r.ok && r.unknownFields).toEqual([]);
    if (r.ok) {
      expect(r.value.spec?.os).toEqual({ name: "windows" });
      expect(r.value.spec?.securityContext?.windowsOptions).toEqual({ runAsUserName: "ContainerUser", hostProcess: false });
      expect(r.value.spec?.containers[0]?.securityContext?.windowsOptions).toEqual({ gmsaCredentialSpecName: "g", gmsaCredentialSpec: "{}" });
    }
    const empty = decodeObject("Pod", { metadata: { name: "p" }, spec: { os: {}, containers: [{ name: "c" }] } }, { fieldValidation: "Strict" });
    expect(empty.ok).toBe(true);
    const bad = decodeObject("Pod", { metadata: { name: "p" }, spec: { os: { name: 1 }, containers: [{ name: "c" }] } }, { fieldValidation: "Strict" });
    expect(bad.ok ? [] : bad.errors.map(formatDecodeError)).toEqual(["json: cannot unmarshal number 1 into Go struct field PodOS.spec.os.name of type string"]);
  });
});

describe("decodeObject: null map values (Go stores the value type's zero)", () => {
  it("keeps the key: a string map with \"\", a ResourceList with the zero Quantity; a free-form or []byte value is dropped", () => {
    const r = decodeObject(
      "Pod",
      {
        metadata: { name: "p", labels: { app: "web", tier: null }, annotations: { note: null } },
        spec: { nodeSelector: { disk: null }, containers: [{ name: "c", image: "i", resources: { limits: { cpu: null, memory: "1Gi" } } }] },
      },
      { fieldValidation: "Strict" },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.metadata?.labels).toEqual({ app: "web", tier: "" });
    expect(r.value.metadata?.annotations).toEqual({ note: "" });
    expect(r.value.spec?.nodeSelector).toEqual({ disk: "" });
    expect(r.value.spec?.containers[0]?.resources?.limits).toEqual({ cpu: "0", memory: "1Gi" });
    const secret = decodeObject("Secret", { metadata: { name: "s" }, data: { a: null, b: "eA==" }, stringData: { c: null } }, { fieldValidation: "Strict" });
    expect(secret.ok).toBe(true);
    if (!secret.ok) return;
    expect(secret.value.data).toEqual({ b: "eA==" });
    expect(secret.value.stringData).toEqual({ c: "" });
  });

  it("a null struct member inside a map value is still dropped, and a null map itself is absent", () => {
    const r = decodeObject("Pod", { metadata: { name: "p", labels: null }, spec: { containers: [{ name: "c", image: "i", resources: { limits: null } }] } }, { fieldValidation: "Strict" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.metadata?.labels).toBeUndefined();
    expect(r.value.spec?.containers[0]?.resources?.limits).toBeUndefined();
  });
});

describe("decodeObject: null list items (Go's zero elements)", () => {
  it("decodes [null] in a list of structs or strings as zero elements, so validation answers 422 naming the fields", () => {
    const r = decodeObject("Pod", { metadata: { name: "p", finalizers: [null] }, spec: { containers: [null] } }, { fieldValidation: "Strict" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.spec?.containers).toEqual([{ name: "" }]);
    expect(r.value.metadata?.finalizers).toEqual([""]);
  });

  it("still refuses a wrongly typed item, and a null where no list item is", () => {
    expect(decodeObject("Pod", { spec: { containers: [5] } }, { fieldValidation: "Strict" }).ok).toBe(false);
    const top = decodeObject("Pod", { spec: null, metadata: { name: "p" } }, { fieldValidation: "Strict" });
    expect(top.ok).toBe(true);
  });
});
