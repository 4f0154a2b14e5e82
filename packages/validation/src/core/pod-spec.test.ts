/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import { FieldErrorType, fieldPath, formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { ObjectMeta, PodSpec } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { setPodSpecDefaults } from "./defaults.js";
import { defaultPodValidationOptions } from "./options.js";
import { validatePodSpec } from "./pod-spec.js";

const opts = defaultPodValidationOptions;
const specPath = fieldPath("spec");

/** A defaulted valid spec with one container, modified by `patch` (after defaulting). */
function spec(patch: (s: Record<string, any>) => void = () => {}, defaults = true): PodSpec {
  const s: Record<string, any> = { containers: [{ name: "c", image: "busybox:1.36" }] };
  if (defaults) setPodSpecDefaults(s as PodSpec);
  patch(s);
  return s as PodSpec;
}
const validate = (s: PodSpec, meta?: ObjectMeta) => validatePodSpec(s, specPath, opts, meta);
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const c0 = (s: Record<string, any>) => s["containers"][0] as Record<string, any>;

describe("validatePodSpec basics", () => {
  it("accepts a defaulted minimal spec", () => {
    expect(validate(spec())).toEqual([]);
  });

  it("requires the defaulted enums when not defaulted", () => {
    expect(summary(validate(spec(() => {}, false)))).toEqual([
      "FieldValueRequired spec.containers[0].terminationMessagePolicy",
      "FieldValueRequired spec.containers[0].imagePullPolicy",
      "FieldValueRequired spec.restartPolicy",
      "FieldValueRequired spec.dnsPolicy",
    ]);
  });

  it("requires containers", () => {
    const errs = validate(spec((s) => (s["containers"] = [])));
    expect(errs).toEqual([{ type: FieldErrorType.Required, field: "spec.containers", detail: "" }]);
    expect(formatFieldError(errs[0] as FieldError)).toBe("spec.containers: Required value");
    expect(summary(validatePodSpec(undefined, specPath, opts))).toContain("FieldValueRequired spec.containers");
  });

  it("checks restartPolicy and dnsPolicy enums", () => {
    const errs = validate(spec((s) => ((s["restartPolicy"] = "Sometimes"), (s["dnsPolicy"] = "Weird"))));
    expect(errs.map(formatFieldError)).toEqual([
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Weird": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });

  it("checks activeDeadlineSeconds and terminationGracePeriodSeconds", () => {
    const errs = validate(spec((s) => ((s["activeDeadlineSeconds"] = 0), (s["terminationGracePeriodSeconds"] = -1))));
    expect(errs.map(formatFieldError)).toEqual([
      "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
      "spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0",
    ]);
    expect(validate(spec((s) => (s["activeDeadlineSeconds"] = 2147483648)))).toHaveLength(1);
    expect(validate(spec((s) => ((s["activeDeadlineSeconds"] = 1), (s["terminationGracePeriodSeconds"] = 0))))).toEqual([]);
  });

  it("checks hostname, subdomain, serviceAccountName, nodeName and class names", () => {
    const errs = validate(
      spec((s) => {
        s["hostname"] = "Host";
        s["subdomain"] = "a.b";
        s["serviceAccountName"] = "SA";
        s["nodeName"] = "node_1";
        s["priorityClassName"] = "High";
        s["runtimeClassName"] = "";
      }),
    );
    expect(summary(errs)).toEqual([
      "FieldValueInvalid spec.serviceAccountName",
      "FieldValueInvalid spec.nodeName",
      "FieldValueInvalid spec.hostname",
      "FieldValueInvalid spec.subdomain",
      "FieldValueInvalid spec.priorityClassName",
      "FieldValueInvalid spec.runtimeClassName",
    ]);
  });

  it("checks nodeSelector as labels and preemptionPolicy", () => {
    const errs = validate(spec((s) => ((s["nodeSelector"] = { "bad key": "x" }), (s["preemptionPolicy"] = "Sometimes"))));
    expect(summary(errs)).toEqual(["FieldValueInvalid spec.nodeSelector", "FieldValueNotSupported spec.preemptionPolicy"]);
  });

  it("never throws on malformed specs", () => {
    for (const bad of [null, 5, [], { containers: [null, 3, "x"] }, { volumes: "x", tolerations: [null], affinity: [] }]) {
      expect(() => validatePodSpec(bad as unknown as PodSpec, specPath, opts)).not.toThrow();
    }
  });
});

describe("containers", () => {
  it("requires names as unique DNS labels across containers and init containers", () => {
    const errs = validate(
      spec((s) => {
        s["containers"].push({ ...c0(s) }, { ...c0(s), name: "" }, { ...c0(s), name: "Bad_Name" });
        s["initContainers"] = [{ ...c0(s) }];
      }),
    );
    expect(errs.map((e) => [e.type, e.field, e.badValue])).toEqual([
      [FieldErrorType.Duplicate, "spec.containers[1].name", "c"],
      [FieldErrorType.Required, "spec.containers[2].name", undefined],
      [FieldErrorType.Invalid, "spec.containers[3].name", "Bad_Name"],
      [FieldErrorType.Duplicate, "spec.initContainers[0].name", "c"],
    ]);
  });

  it("requires an image", () => {
    expect(summary(validate(spec((s) => delete c0(s)["image"])))).toEqual(["FieldValueRequired spec.containers[0].image"]);
  });

  it("checks terminationMessagePolicy and imagePullPolicy", () => {
    const errs = validate(spec((s) => ((c0(s)["terminationMessagePolicy"] = "Never"), (c0(s)["imagePullPolicy"] = "Sometimes"))));
    expect(errs.map(formatFieldError)).toEqual([
      `spec.containers[0].terminationMessagePolicy: Invalid value: "Never": must be 'File' or 'FallbackToLogsOnError'`,
      'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    ]);
  });

  it("forbids lifecycle and probes on init containers", () => {
    const probe = { exec: { command: ["true"] }, successThreshold: 1 };
    const errs = validate(
      spec((s) => {
        s["initContainers"] = [
          { ...c0(s), name: "init", lifecycle: { preStop: probe }, livenessProbe: probe, readinessProbe: probe, startupProbe: probe },
        ];
      }),
    );
    expect(errs.filter((e) => e.detail === "must not be set for init containers").map((e) => e.field)).toEqual([
      "spec.initContainers[0].lifecycle",
      "spec.initContainers[0].livenessProbe",
      "spec.initContainers[0].readinessProbe",
      "spec.initContainers[0].startupProbe",
    ]);
  });
});

describe("probes and lifecycle", () => {
  const probe = (p: Record<string, unknown>) => ({ timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, ...p });

  it("accepts the three classic handlers and grpc", () => {
    const errs = validate(
      spec((s) => {
        c0(s)["livenessProbe"] = probe({ httpGet: { path: "/", port: 8080, scheme: "HTTP", httpHeaders: [{ name: "X-A", value: "b" }] } });
        c0(s)["readinessProbe"] = probe({ tcpSocket: { port: "http" } });
        c0(s)["startupProbe"] = probe({ grpc: { port: 9000 } });
        c0(s)["lifecycle"] = { postStart: { exec: { command: ["sh"] } } };
      }),
    );
    expect(errs).toEqual([]);
  });

  it("requires exactly one handler", () => {
    const errs = validate(
      spec((s) => {
        c0(s)["livenessProbe"] = probe({});
        c0(s)["readinessProbe"] = probe({ exec: { command: ["a"] }, tcpSocket: { port: 80 } });
      }),
    );
    expect(errs.map((e) => [e.type, e.field, e.detail])).toEqual([
      [FieldErrorType.Required, "spec.containers[0].livenessProbe", "must specify a handler type"],
      [FieldErrorType.Forbidden, "spec.containers[0].readinessProbe.tcpSocket", "may not specify more than 1 handler type"],
    ]);
  });

  it("checks handler contents", () => {
    const errs = validate(
      spec((s) => {
        c0(s)["livenessProbe"] = probe({ httpGet: { path: "", port: 0, scheme: "FTP", httpHeaders: [{ name: "bad header" }] } });
        c0(s)["readinessProbe"] = probe({ exec: { command: [] } });
        c0(s)["startupProbe"] = probe({ tcpSocket: { port: "8080" } });
      }),
    );
    expect(summary(errs)).toEqual([
      "FieldValueRequired spec.containers[0].livenessProbe.httpGet.path",
      "FieldValueInvalid spec.containers[0].livenessProbe.httpGet.port",
      "FieldValueNotSupported spec.containers[0].livenessProbe.httpGet.scheme",
      "FieldValueInvalid spec.containers[0].livenessProbe.httpGet.httpHeaders",
      "FieldValueInvalid spec.containers[0].startupProbe.tcpSocket.port",
      "FieldValueRequired spec.containers[0].readinessProbe.exec.command",
    ]);
    expect(errs[4]?.detail).toMatch(/^must contain at least one letter/);
  });

  it("checks timing fields and per-kind rules", () => {
    const errs = validate(
      spec((s) => {
        c0(s)["livenessProbe"] = probe({ exec: { command: ["a"] }, successThreshold: 2, initialDelaySeconds: -1 });
        c0(s)["readinessProbe"] = probe({ exec: { command: ["a"] }, terminationGracePeriodSeconds: 5 });
        c0(s)["startupProbe"] = probe({ exec: { command: ["a"] }, successThreshold: 3, terminationGracePeriodSeconds: 0 });
      }),
    );
    expect(errs.map((e) => [e.field, e.detail])).toEqual([
      ["spec.containers[0].livenessProbe.initialDelaySeconds", "must be greater than or equal to 0"],
      ["spec.containers[0].readinessProbe.terminationGracePeriodSeconds", "must not be set for readinessProbes"],
      ["spec.containers[0].startupProbe.terminationGracePeriodSeconds", "must be greater than 0"],
      ["spec.containers[0].livenessProbe.successThreshold", "must be 1"],
      ["spec.containers[0].startupProbe.successThreshold", "must be 1"],
    ]);
  });
});

describe("ports", () => {
  it("checks numbers, names, protocols and uniqueness", () => {
    const errs = validate(
      spec((s) => {
        c0(s)["ports"] = [
          { containerPort: 80, name: "http", protocol: "TCP" },
          { containerPort: 0, name: "http", protocol: "TCP" },
          { containerPort: 70000, hostPort: 70000, protocol: "ICMP", name: "Not-Valid" },
          { containerPort: 81, protocol: "" },
        ];
      }),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail}`)).toEqual([
      "FieldValueDuplicate spec.containers[0].ports[1].name ",
      "FieldValueRequired spec.containers[0].ports[1].containerPort ",
      "FieldValueInvalid spec.containers[0].ports[2].name must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
      "FieldValueInvalid spec.containers[0].ports[2].containerPort must be between 1 and 65535, inclusive",
      "FieldValueInvalid spec.containers[0].ports[2].hostPort must be between 1 and 65535, inclusive",
      'FieldValueNotSupported spec.containers[0].ports[2].protocol supported values: "SCTP", "TCP", "UDP"',
      "FieldValueRequired spec.containers[0].ports[3].protocol ",
    ]);
  });

  it("rejects host port conflicts across containers but not across init containers", () => {
    const port = { containerPort: 80, hostPort: 8080, protocol: "TCP" };
    const errs = validate(
      spec((s) => {
        c0(s)["ports"] = [port];
        s["containers"].push({ ...c0(s), name: "d", ports: [{ ...port }] });
        s["initContainers"] = [
          { ...c0(s), name: "i1", ports: [{ ...port }] },
          { ...c0(s), name: "i2", ports: [{ ...port }] },
        ];
      }),
    );
    expect(errs).toEqual([{ type: FieldErrorType.Duplicate, field: "spec.containers[1].ports[0].hostPort", badValue: "TCP//8080", detail: "" }]);
  });

  it("requires hostPort to match containerPort with hostNetwork", () => {
    const errs = validate(spec((s) => ((s["hostNetwork"] = true), (c0(s)["ports"] = [{ containerPort: 80, hostPort: 81, protocol: "TCP" }]))));
    expect(errs.map(formatFieldError)).toEqual([
      "spec.containers[0].ports[0].containerPort: Invalid value: 80: must match `hostPort` when `hostNetwork` is true",
    ]);
  });
});

describe("env and envFrom", () => {
  const env = (e: unknown[]) => spec((s) => (c0(s)["env"] = e));

  it("accepts values and each kind of source", () => {
    const errs = validate(
      env([
        { name: "A", value: "1" },
        { name: "my.var-1", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
        { name: "B", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.annotations['example.io/x']" } } },
        { name: "C", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels['app']" } } },
        { name: "D", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
        { name: "E", valueFrom: { resourceFieldRef: { resource: "requests.hugepages-2Mi" } } },
        { name: "F", valueFrom: { configMapKeyRef: { name: "cm", key: "k.e-y_1" } } },
        { name: "G", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
        { name: "H", valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "1m" } } },
      ]),
    );
    expect(errs).toEqual([]);
  });

  it("checks names and the number of sources", () => {
    const errs = validate(
      env([
        { name: "" },
        { name: "1BAD" },
        { name: "X", valueFrom: {} },
        { name: "Y", value: "v", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
        { name: "Z", valueFrom: { secretKeyRef: { name: "s", key: "k" }, configMapKeyRef: { name: "c", key: "k" } } },
      ]),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail.slice(0, 30)}`)).toEqual([
      "FieldValueRequired spec.containers[0].env[0].name ",
      "FieldValueInvalid spec.containers[0].env[1].name a valid environment variable n",
      "FieldValueInvalid spec.containers[0].env[2].valueFrom must specify one of: `fieldRef",
      "FieldValueInvalid spec.containers[0].env[3].valueFrom may not be specified when `val",
      "FieldValueInvalid spec.containers[0].env[4].valueFrom may not have more than one fie",
    ]);
    expect(errs[2]?.detail).toBe("must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`");
  });

  it("checks downward-API field paths", () => {
    const errs = validate(
      env([
        { name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: "B", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "spec.restartPolicy" } } },
        { name: "C", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.bogus" } } },
        { name: "D", valueFrom: { fieldRef: { apiVersion: "v2", fieldPath: "metadata.name" } } },
        { name: "E", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels['bad key']" } } },
        { name: "F", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name['x']" } } },
        { name: "G", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "spec.host" } } },
      ]),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail}`)).toEqual([
      "FieldValueRequired spec.containers[0].env[0].valueFrom.fieldRef.apiVersion ",
      'FieldValueNotSupported spec.containers[0].env[1].valueFrom.fieldRef.fieldPath supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP", "status.podIPs"',
      "FieldValueInvalid spec.containers[0].env[2].valueFrom.fieldRef.fieldPath error converting fieldPath: field label not supported: metadata.bogus",
      "FieldValueInvalid spec.containers[0].env[3].valueFrom.fieldRef.fieldPath error converting fieldPath: unsupported pod version: v2",
      expect.stringContaining("FieldValueInvalid spec.containers[0].env[4].valueFrom.fieldRef name part must consist"),
      "FieldValueInvalid spec.containers[0].env[5].valueFrom.fieldRef.fieldPath error converting fieldPath: field label does not support subscript: metadata.name['x']",
    ]);
  });

  it("checks resource field refs, divisors and the hugepages option", () => {
    const e = env([
      { name: "A", valueFrom: { resourceFieldRef: { resource: "limits.gpu" } } },
      { name: "B", valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "2" } } },
      { name: "C", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "3k" } } },
      { name: "D", valueFrom: { resourceFieldRef: { resource: "limits.hugepages-2Mi" } } },
      { name: "E", valueFrom: { resourceFieldRef: {} } },
    ]);
    const errs = validatePodSpec(e, specPath, { ...opts, allowDownwardAPIHugePages: false });
    expect(errs.map((x) => `${x.type} ${x.field}`)).toEqual([
      "FieldValueNotSupported spec.containers[0].env[0].valueFrom.resourceFieldRef.resource",
      "FieldValueInvalid spec.containers[0].env[1].valueFrom.resourceFieldRef.divisor",
      "FieldValueInvalid spec.containers[0].env[2].valueFrom.resourceFieldRef.divisor",
      "FieldValueNotSupported spec.containers[0].env[3].valueFrom.resourceFieldRef.resource",
      "FieldValueRequired spec.containers[0].env[4].valueFrom.resourceFieldRef.resource",
    ]);
    expect(errs[1]?.detail).toBe("only divisor's values 1m and 1 are supported with the cpu resource");
  });

  it("checks config map and secret key selectors", () => {
    const errs = validate(
      env([
        { name: "A", valueFrom: { configMapKeyRef: { name: "Bad", key: "" } } },
        { name: "B", valueFrom: { secretKeyRef: { name: "s", key: "..x" } } },
        { name: "C", valueFrom: { secretKeyRef: { name: "s", key: "a b" } } },
      ]),
    );
    expect(errs.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      expect.stringContaining("spec.containers[0].env[0].valueFrom.configMapKeyRef.name: a lowercase RFC 1123 subdomain"),
      "spec.containers[0].env[0].valueFrom.configMapKeyRef.key: ",
      "spec.containers[0].env[1].valueFrom.secretKeyRef.key: must not start with '..'",
      "spec.containers[0].env[2].valueFrom.secretKeyRef.key: a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
  });

  it("checks envFrom", () => {
    const errs = validate(
      spec((s) => {
        c0(s)["envFrom"] = [
          { configMapRef: { name: "cm" }, prefix: "P_" },
          { prefix: "1bad" },
          { configMapRef: { name: "cm" }, secretRef: { name: "s" } },
          { secretRef: { name: "" } },
        ];
      }),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail.slice(0, 30)}`)).toEqual([
      "FieldValueInvalid spec.containers[0].envFrom[1].prefix a valid environment variable n",
      "FieldValueInvalid spec.containers[0].envFrom must specify one of: `configMa",
      "FieldValueInvalid spec.containers[0].envFrom may not have more than one fie",
      "FieldValueRequired spec.containers[0].envFrom[3].secretRef.name ",
    ]);
  });
});

describe("resources", () => {
  const res = (r: unknown) => spec((s) => (c0(s)["resources"] = r));

  it("accepts requests at or below limits and extended resources with equal values", () => {
    expect(
      validate(res({ limits: { cpu: "1", memory: "1Gi", "example.com/gpu": 2 }, requests: { cpu: "500m", memory: "1Gi", "example.com/gpu": "2" } })),
    ).toEqual([]);
  });

  it("rejects requests above limits with Kubernetes' wording", () => {
    const errs = validate(res({ limits: { cpu: "500m" }, requests: { cpu: "1" } }));
    expect(errs.map(formatFieldError)).toEqual([
      'spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit',
    ]);
  });

  it("rejects negative, malformed and unknown resources", () => {
    const errs = validate(res({ limits: { cpu: "-1", memory: "lots" }, requests: { gpu: "1", "example.com/x": "0.5" } }));
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail}`)).toEqual([
      "FieldValueInvalid spec.containers[0].resources.limits[cpu] must be greater than or equal to 0",
      "FieldValueInvalid spec.containers[0].resources.limits[memory] quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      "FieldValueInvalid spec.containers[0].resources.requests[gpu] must be a standard resource type or fully qualified",
      "FieldValueInvalid spec.containers[0].resources.requests[gpu] must be a standard resource for containers",
      "FieldValueInvalid spec.containers[0].resources.requests[example.com/x] must be an integer",
      "FieldValueRequired spec.containers[0].resources.limits Limit must be set for non overcommitable resources",
    ]);
  });

  it("requires non-overcommitable requests to equal limits", () => {
    const errs = validate(res({ limits: { "example.com/gpu": "2" }, requests: { "example.com/gpu": "1" } }));
    expect(errs.map((e) => e.detail)).toEqual(["must be equal to example.com/gpu limit"]);
  });

  it("checks hugepages: divisible values and cpu or memory alongside", () => {
    const errs = validate(res({ limits: { "hugepages-2Mi": "3Mi" } }));
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail}`)).toEqual([
      "FieldValueInvalid spec.containers[0].resources.limits[hugepages-2Mi] 3Mi is not positive integer multiple of hugepages-2Mi",
      "FieldValueForbidden spec.containers[0].resources HugePages require cpu or memory",
    ]);
    expect(
      validatePodSpec(res({ limits: { "hugepages-2Mi": "3Mi", memory: "1Gi" } }), specPath, { ...opts, allowIndivisibleHugePagesValues: true }),
    ).toEqual([]);
  });

  it("checks pod overhead like limits", () => {
    expect(summary(validate(spec((s) => (s["overhead"] = { cpu: "-1" }))))).toEqual(["FieldValueInvalid spec.overhead.limits[cpu]"]);
  });
});

describe("volumes and mounts", () => {
  const withVolumes = (volumes: unknown[], mounts?: unknown[]) =>
    spec((s) => {
      s["volumes"] = volumes;
      if (mounts) c0(s)["volumeMounts"] = mounts;
    });

  it("accepts common sources and mounts referring to them", () => {
    const errs = validate(
      withVolumes(
        [
          { name: "a", emptyDir: { sizeLimit: "1Gi" } },
          { name: "b", hostPath: { path: "/data", type: "Directory" } },
          { name: "c", configMap: { name: "cm", items: [{ key: "k", path: "dir/file", mode: 0o600 }] } },
          { name: "d", secret: { secretName: "s", defaultMode: 0o400 } },
          { name: "e", csi: { driver: "csi.example.com", nodePublishSecretRef: { name: "sec" } } },
          { name: "f", persistentVolumeClaim: { claimName: "claim" } },
          { name: "g", downwardAPI: { items: [{ path: "labels", fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels" } }] } },
          {
            name: "h",
            projected: {
              sources: [
                { serviceAccountToken: { path: "token", expirationSeconds: 3600 } },
                { configMap: { name: "ca", items: [{ key: "ca.crt", path: "ca.crt" }] } },
              ],
            },
          },
          {
            name: "i",
            ephemeral: {
              volumeClaimTemplate: {
                metadata: { labels: { a: "b" } },
                spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
              },
            },
          },
          { name: "j", nfs: { server: "nfs.example.com", path: "/export" } },
        ],
        [
          { name: "a", mountPath: "/a", subPath: "x/y" },
          { name: "b", mountPath: "/b", mountPropagation: "HostToContainer" },
        ],
      ),
    );
    expect(errs).toEqual([]);
  });

  it("checks volumeDevices: claim or ephemeral volumes only, unique names and paths, no overlap with mounts", () => {
    const volumes = [
      { name: "claim", persistentVolumeClaim: { claimName: "c" } },
      { name: "eph", ephemeral: { volumeClaimTemplate: { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } } },
      { name: "scratch", emptyDir: {} },
    ];
    const withDevices = (devices: unknown[], mounts?: unknown[]) =>
      spec((s) => {
        s["volumes"] = volumes;
        c0(s)["volumeDevices"] = devices;
        if (mounts) c0(s)["volumeMounts"] = mounts;
      });
    expect(validate(withDevices([{ name: "claim", devicePath: "/dev/xvda" }, { name: "eph", devicePath: "/dev/xvdb" }]))).toEqual([]);
    const errs = validate(
      withDevices(
        [
          { name: "scratch", devicePath: "/dev/a" },
          { name: "missing", devicePath: "/dev/b" },
          { name: "claim", devicePath: "/dev/b" },
          { name: "claim", devicePath: "../dev/c" },
          { name: "", devicePath: "" },
        ],
        [{ name: "eph", mountPath: "/dev/a" }],
      ),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail}`)).toEqual([
      "FieldValueInvalid spec.containers[0].volumeMounts[0].mountPath must not already exist as a path in volumeDevices",
      "FieldValueInvalid spec.containers[0].volumeDevices[0].name can only use volume source type of PersistentVolumeClaim for block mode",
      "FieldValueInvalid spec.containers[0].volumeDevices[0].devicePath must not already exist as a path in volumeMounts",
      "FieldValueNotFound spec.containers[0].volumeDevices[1].name ",
      "FieldValueInvalid spec.containers[0].volumeDevices[2].devicePath must be unique",
      "FieldValueInvalid spec.containers[0].volumeDevices[3].name must be unique",
      "FieldValueInvalid spec.containers[0].volumeDevices[3].devicePath can not contain backsteps ('..')",
      "FieldValueRequired spec.containers[0].volumeDevices[4].name ",
      "FieldValueNotFound spec.containers[0].volumeDevices[4].name ",
      "FieldValueRequired spec.containers[0].volumeDevices[4].devicePath ",
    ]);
  });

  it("checks volume names: required, DNS labels, unique", () => {
    const errs = validate(withVolumes([{ emptyDir: {} }, { name: "Bad", emptyDir: {} }, { name: "a", emptyDir: {} }, { name: "a", emptyDir: {} }]));
    expect(summary(errs)).toEqual([
      "FieldValueRequired spec.volumes[0].name",
      "FieldValueInvalid spec.volumes[1].name",
      "FieldValueDuplicate spec.volumes[3].name",
    ]);
  });

  it("requires exactly one source", () => {
    const errs = validate(withVolumes([{ name: "a" }, { name: "b", emptyDir: {}, hostPath: { path: "/x" } }]));
    expect(errs.map(formatFieldError)).toEqual([
      "spec.volumes[0]: Required value: must specify a volume type",
      "spec.volumes[1].hostPath: Forbidden: may not specify more than 1 volume type",
    ]);
  });

  it("checks source contents", () => {
    const errs = validate(
      withVolumes([
        { name: "a", hostPath: { path: "/a/../b", type: "Weird" } },
        { name: "b", secret: { defaultMode: 0o1000, items: [{ key: "", path: "/abs" }] } },
        { name: "c", configMap: { name: "", items: [{ key: "k", path: "../x" }] } },
        { name: "d", csi: { driver: "" } },
        { name: "e", ephemeral: {} },
        { name: "f", persistentVolumeClaim: { claimName: "" } },
        { name: "g", emptyDir: { sizeLimit: "-1" } },
        { name: "h", nfs: { server: "s", path: "rel" } },
        { name: "i", gcePersistentDisk: { partition: 300 } },
      ]),
    );
    expect(summary(errs).sort()).toEqual([
      "FieldValueInvalid spec.volumes[0].hostPath.path",
      "FieldValueNotSupported spec.volumes[0].hostPath.type",
      "FieldValueInvalid spec.volumes[1].secret.defaultMode",
      "FieldValueRequired spec.volumes[1].secret.secretName",
      "FieldValueRequired spec.volumes[1].secret.items[0].key",
      "FieldValueInvalid spec.volumes[1].secret.items[0].path",
      "FieldValueRequired spec.volumes[2].configMap.name",
      "FieldValueInvalid spec.volumes[2].configMap.items[0].path",
      "FieldValueRequired spec.volumes[3].csi.driver",
      "FieldValueInvalid spec.volumes[3].csi.driver",
      "FieldValueRequired spec.volumes[4].ephemeral.volumeClaimTemplate",
      "FieldValueRequired spec.volumes[5].persistentVolumeClaim.claimName",
      "FieldValueForbidden spec.volumes[6].emptyDir.sizeLimit",
      "FieldValueInvalid spec.volumes[7].nfs.path",
      "FieldValueRequired spec.volumes[8].persistentDisk.pdName",
      "FieldValueInvalid spec.volumes[8].persistentDisk.partition",
    ].sort());
    expect(errs.find((e) => e.field === "spec.volumes[0].hostPath.path")?.detail).toBe("must not contain '..'");
    expect(errs.find((e) => e.field === "spec.volumes[1].secret.defaultMode")?.detail).toBe(
      "must be a number between 0 and 0777 (octal), both inclusive",
    );
  });

  it("checks CSI driver names like Kubernetes (63 characters, DNS subdomain)", () => {
    const errs = validate(withVolumes([{ name: "a", csi: { driver: `${"d".repeat(60)}.example.com` } }, { name: "b", csi: { driver: "CSI.Example.com" } }]));
    expect(errs).toEqual([{ type: FieldErrorType.TooLong, field: "spec.volumes[0].csi.driver", detail: "must have at most 63 bytes" }]);
  });

  it("checks ephemeral claim templates and the generated claim name", () => {
    const errs = validatePodSpec(
      withVolumes([
        {
          name: "scratch",
          ephemeral: { volumeClaimTemplate: { metadata: { name: "x" }, spec: { accessModes: ["Many"], resources: {} } } },
        },
        { name: "p", persistentVolumeClaim: { claimName: "pod-scratch" } },
      ]),
      specPath,
      opts,
      { name: "pod" },
    );
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      "FieldValueForbidden spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.name",
      "FieldValueNotSupported spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes",
      "FieldValueRequired spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]",
      "FieldValueInvalid spec.volumes[1].persistentVolumeClaim.claimName",
    ]);
  });

  it("checks projected sources", () => {
    const errs = validate(
      withVolumes([
        {
          name: "a",
          projected: {
            sources: [
              { serviceAccountToken: { path: "", expirationSeconds: 60 } },
              { secret: { name: "s", items: [{ key: "k", path: "p" }] }, configMap: { name: "c", items: [{ key: "k", path: "p" }] } },
            ],
          },
        },
      ]),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail}`)).toEqual([
      "FieldValueInvalid spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds may not specify a duration less than 10 minutes",
      "FieldValueRequired spec.volumes[0].projected.path ",
      "FieldValueInvalid spec.volumes[0].projected conflicting duplicate paths",
      "FieldValueForbidden spec.volumes[0].projected.sources[1] may not specify more than 1 volume type",
    ]);
  });

  it("checks mounts: known volume, mount path required and unique, sub-paths, propagation", () => {
    const errs = validate(
      withVolumes(
        [{ name: "a", emptyDir: {} }],
        [
          { name: "a", mountPath: "/m" },
          { name: "missing", mountPath: "/m" },
          { name: "a", mountPath: "", subPath: "../up" },
          { name: "a", mountPath: "/n", subPath: "x", subPathExpr: "/abs" },
          { name: "a", mountPath: "/o", mountPropagation: "Bidirectional" },
        ],
      ),
    );
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      "FieldValueNotFound spec.containers[0].volumeMounts[1].name",
      "FieldValueInvalid spec.containers[0].volumeMounts[1].mountPath",
      "FieldValueRequired spec.containers[0].volumeMounts[2].mountPath",
      "FieldValueInvalid spec.containers[0].volumeMounts.subPath",
      "FieldValueInvalid spec.containers[0].volumeMounts[3].subPathExpr",
      "FieldValueInvalid spec.containers[0].volumeMounts.subPathExpr",
      "FieldValueForbidden spec.containers[0].volumeMounts.mountPropagation",
    ]);
    expect(errs[0]?.badValue).toBe("missing");
    expect(formatFieldError(errs[0] as FieldError)).toBe('spec.containers[0].volumeMounts[1].name: Not found: "missing"');
    expect(errs[1]?.detail).toBe("must be unique");
    expect(errs[3]?.detail).toBe("must not contain '..'");
  });

  it("lets privileged containers use Bidirectional propagation", () => {
    const s = withVolumes([{ name: "a", emptyDir: {} }], [{ name: "a", mountPath: "/o", mountPropagation: "Bidirectional" }]);
    (s.containers[0] as Record<string, unknown>)["securityContext"] = { privileged: true };
    expect(validate(s)).toEqual([]);
  });
});

describe("scheduling", () => {
  it("checks tolerations", () => {
    const errs = validate(
      spec((s) => {
        s["tolerations"] = [
          { key: "k", operator: "Equal", value: "v", effect: "NoSchedule" },
          { operator: "Exists" },
          { key: "", operator: "Equal" },
          { key: "k", operator: "Exists", value: "v" },
          { key: "k", operator: "Maybe" },
          { key: "k", effect: "NoSchedule", tolerationSeconds: 5 },
          { key: "k", effect: "Sometimes" },
          { key: "bad key", value: "bad value" },
        ];
      }),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail.slice(0, 30)}`)).toEqual([
      "FieldValueInvalid spec.tolerations[2].operator operator must be Exists when `",
      "FieldValueInvalid spec.tolerations[3].operator value must be empty when `oper",
      'FieldValueNotSupported spec.tolerations[4].operator supported values: "Equal", "Ex',
      "FieldValueInvalid spec.tolerations[5].effect effect must be 'NoExecute' whe",
      'FieldValueNotSupported spec.tolerations[6].effect supported values: "NoSchedule"',
      "FieldValueInvalid spec.tolerations[7].key name part must consist of alph",
      "FieldValueInvalid spec.tolerations[7].operator a valid label must be an empty",
    ]);
    expect(errs[0]?.detail).toBe('operator must be Exists when `key` is empty, which means "match all values and all keys"');
  });

  it("checks node affinity terms and operators", () => {
    const errs = validate(
      spec((s) => {
        s["affinity"] = {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: "zone", operator: "In", values: ["a"] },
                    { key: "zone", operator: "In" },
                    { key: "zone", operator: "Exists", values: ["x"] },
                    { key: "cpu", operator: "Gt", values: ["1", "2"] },
                    { key: "zone", operator: "Near" },
                  ],
                  matchFields: [
                    { key: "metadata.name", operator: "In", values: ["node-1"] },
                    { key: "metadata.uid", operator: "Exists" },
                  ],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: { matchExpressions: [{ key: "a", operator: "Lt", values: ["3"] }] } }],
          },
        };
      }),
    );
    const base = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]";
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      `FieldValueRequired ${base}.matchExpressions[1].values`,
      `FieldValueForbidden ${base}.matchExpressions[2].values`,
      `FieldValueRequired ${base}.matchExpressions[3].values`,
      `FieldValueInvalid ${base}.matchExpressions[4].operator`,
      `FieldValueInvalid ${base}.matchFields[1].operator`,
      `FieldValueInvalid ${base}.matchFields[1].key`,
      "FieldValueInvalid spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
    ]);
    expect(errs[2]?.detail).toBe("must be specified single value when `operator` is 'Lt' or 'Gt'");
  });

  it("requires at least one node selector term", () => {
    const errs = validate(spec((s) => (s["affinity"] = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } })));
    expect(errs.map(formatFieldError)).toEqual([
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term",
    ]);
  });

  it("checks pod (anti-)affinity terms", () => {
    const errs = validate(
      spec((s) => {
        s["affinity"] = {
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "x" } }, topologyKey: "" }] },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 101, podAffinityTerm: { topologyKey: "example.io/hostname", namespaces: ["Bad"] } },
            ],
          },
        };
      }),
    );
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      "FieldValueRequired spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
      // The empty key also fails the qualified-name check (twice: non-empty and regex), as in Kubernetes.
      "FieldValueInvalid spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
      "FieldValueInvalid spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
      "FieldValueInvalid spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
      "FieldValueInvalid spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespace",
    ]);
  });

  it("checks topology spread constraints", () => {
    const errs = validate(
      spec((s) => {
        s["topologySpreadConstraints"] = [
          { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" },
          { maxSkew: 0, topologyKey: "", whenUnsatisfiable: "Whatever" },
          { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" },
        ];
      }),
    );
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      "FieldValueDuplicate spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}",
      "FieldValueInvalid spec.topologySpreadConstraints[1].maxSkew",
      "FieldValueRequired spec.topologySpreadConstraints[1].topologyKey",
      "FieldValueNotSupported spec.topologySpreadConstraints[1].whenUnsatisfiable",
    ]);
  });
});

describe("DNS, security and misc", () => {
  it("checks dnsConfig, especially with dnsPolicy None", () => {
    expect(validate(spec((s) => (s["dnsPolicy"] = "None"))).map(formatFieldError)).toEqual([
      "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None",
    ]);
    expect(summary(validate(spec((s) => ((s["dnsPolicy"] = "None"), (s["dnsConfig"] = {})))))).toEqual([
      "FieldValueRequired spec.dnsConfig.nameservers",
    ]);
    const errs = validate(
      spec((s) => {
        s["dnsConfig"] = {
          nameservers: ["1.1.1.1", "2.2.2.2", "3.3.3.3", "nope"],
          searches: ["a.example.com.", "Bad_Domain", "c", "d", "e", "f", "g"],
          options: [{ name: "" }],
        };
      }),
    );
    expect(summary(errs)).toEqual([
      "FieldValueInvalid spec.dnsConfig.nameservers",
      "FieldValueInvalid spec.dnsConfig.nameservers[3]",
      "FieldValueInvalid spec.dnsConfig.searches",
      "FieldValueInvalid spec.dnsConfig.searches[1]",
      "FieldValueRequired spec.dnsConfig.options[0]",
    ]);
    expect(
      validatePodSpec(spec((s) => (s["dnsConfig"] = { searches: ["a", "b", "c", "d", "e", "f", "g"] })), specPath, {
        ...opts,
        allowExpandedDNSConfig: true,
      }),
    ).toEqual([]);
  });

  it("checks pod and container security contexts", () => {
    const errs = validatePodSpec(
      spec((s) => {
        s["securityContext"] = {
          runAsUser: -1,
          fsGroup: 2147483648,
          supplementalGroups: [1, -2],
          sysctls: [{ name: "net.ipv4.ip_forward" }, { name: "net.ipv4.ip_forward" }, { name: "Bad!" }, { name: "" }],
          fsGroupChangePolicy: "Sometimes",
          seccompProfile: { type: "Localhost" },
        };
        s["shareProcessNamespace"] = true;
        s["hostPID"] = true;
        c0(s)["securityContext"] = {
          privileged: true,
          allowPrivilegeEscalation: false,
          procMount: "Weird",
          capabilities: { add: ["CAP_SYS_ADMIN"] },
          seccompProfile: { type: "RuntimeDefault", localhostProfile: "x" },
        };
      }),
      specPath,
      { ...opts, allowPrivileged: false },
    );
    expect(summary(errs)).toEqual([
      "FieldValueForbidden spec.containers[0].securityContext.privileged",
      "FieldValueNotSupported spec.containers[0].securityContext.procMount",
      "FieldValueInvalid spec.containers[0].securityContext.seccompProfile.localhostProfile",
      "FieldValueInvalid spec.containers[0].securityContext",
      "FieldValueInvalid spec.containers[0].securityContext",
      "FieldValueInvalid spec.securityContext.fsGroup",
      "FieldValueInvalid spec.securityContext.runAsUser",
      "FieldValueInvalid spec.securityContext.supplementalGroups[1]",
      "FieldValueInvalid spec.securityContext.shareProcessNamespace",
      "FieldValueDuplicate spec.securityContext.sysctls[1].name",
      "FieldValueInvalid spec.securityContext.sysctls[2].name",
      "FieldValueRequired spec.securityContext.sysctls[3].name",
      "FieldValueNotSupported spec.securityContext.fsGroupChangePolicy",
      "FieldValueRequired spec.securityContext.seccompProfile.localhostProfile",
    ]);
    expect(errs[5]?.detail).toBe("must be between 0 and 2147483647, inclusive");
  });

  it("checks readiness gates and host aliases", () => {
    const errs = validate(
      spec((s) => {
        s["readinessGates"] = [{ conditionType: "example.io/ready" }, { conditionType: "bad gate" }];
        s["hostAliases"] = [{ ip: "10.0.0.1", hostnames: ["a.local"] }, { ip: "999.1.1.1", hostnames: ["Bad_Host"] }];
      }),
    );
    expect(summary(errs)).toEqual([
      "FieldValueInvalid spec.readinessGates[1].conditionType",
      "FieldValueInvalid spec.hostAliases.ip",
      "FieldValueInvalid spec.hostAliases.hostnames",
    ]);
  });
});
