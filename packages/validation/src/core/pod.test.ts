/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import { FieldErrorType, fieldPath, formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { Binding, Pod, PodTemplate, PodTemplateSpec } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { setPodDefaults, setPodTemplateDefaults, setPodTemplateSpecDefaults } from "./defaults.js";
import { defaultPodValidationOptions as opts } from "./options.js";
import {
  validatePod,
  validatePodBinding,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodTemplateSpec,
  validatePodTemplateUpdate,
  validatePodUpdate,
} from "./pod.js";

type Obj = Record<string, any>;
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);

function pod(patch: (p: Obj) => void = () => {}): Pod {
  const p: Obj = {
    metadata: { name: "web", namespace: "default", uid: "u1", resourceVersion: "1" },
    spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
  };
  setPodDefaults(p as Pod);
  patch(p);
  return p as Pod;
}
const clone = (p: Pod): Obj => structuredClone(p) as Obj;

describe("validatePod", () => {
  it("accepts a defaulted pod", () => {
    expect(validatePod(pod(), opts)).toEqual([]);
  });

  it("validates metadata as a namespaced object with a DNS-subdomain name", () => {
    const errs = validatePod(pod((p) => ((p["metadata"].name = "Web"), delete p["metadata"].namespace)), opts);
    expect(summary(errs)).toEqual(["FieldValueInvalid metadata.name", "FieldValueRequired metadata.namespace"]);
  });

  it("requires standard names for finalizers without a domain", () => {
    const errs = validatePod(pod((p) => (p["metadata"].finalizers = ["kubernetes", "custom"])), opts);
    expect(errs.map(formatFieldError)).toEqual([
      'metadata.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it("checks pod annotations: mirror pods need a node, deletion cost is an int32", () => {
    const errs = validatePod(
      pod((p) => (p["metadata"].annotations = { "example.io/config.mirror": "h", "controller.example.io/pod-deletion-cost": "+5" })),
      opts,
    );
    expect(errs.map(formatFieldError)).toEqual([
      'metadata.annotations[example.io/config.mirror]: Invalid value: "h": must set spec.nodeName if mirror pod annotation is set',
      'metadata.annotations[controller.example.io/pod-deletion-cost]: Invalid value: "+5": must be a 32bit integer',
    ]);
    for (const ok of ["0", "-12", "2147483647"]) {
      expect(validatePod(pod((p) => (p["metadata"].annotations = { "controller.example.io/pod-deletion-cost": ok })), opts)).toEqual([]);
    }
    for (const bad of ["007", "2147483648", "1.5", ""]) {
      expect(validatePod(pod((p) => (p["metadata"].annotations = { "controller.example.io/pod-deletion-cost": bad })), opts)).toHaveLength(1);
    }
    expect(
      validatePod(pod((p) => (p["metadata"].annotations = { "controller.example.io/pod-deletion-cost": "x" })), {
        ...opts,
        allowInvalidPodDeletionCost: true,
      }),
    ).toEqual([]);
  });

  it("forbids ephemeral containers, whitespace around images and tokens without a service account", () => {
    const errs = validatePod(
      pod((p) => {
        p["spec"].ephemeralContainers = [{ name: "debug", image: "busybox", imagePullPolicy: "Always", terminationMessagePolicy: "File" }];
        p["spec"].containers[0].image = " busybox ";
        p["spec"].volumes = [{ name: "t", projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: "t", expirationSeconds: 3600 } }] } }];
      }),
      opts,
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail}`)).toEqual([
      "FieldValueForbidden spec.volumes[0].projected.sources[0].serviceAccountToken must not be specified when serviceAccountName is not set",
      "FieldValueInvalid spec.containers[0].image must not have leading or trailing whitespace",
      "FieldValueForbidden spec.ephemeralContainers cannot be set on create",
    ]);
  });
});

describe("validatePodUpdate", () => {
  const old = pod((p) => {
    p["spec"].activeDeadlineSeconds = 100;
    p["spec"].tolerations = [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }];
  });

  it("accepts an unchanged pod and the allowed changes", () => {
    expect(validatePodUpdate(clone(old) as Pod, old, opts)).toEqual([]);
    const n = clone(old);
    n["metadata"].labels = { a: "b" };
    n["spec"].containers[0].image = "busybox:1.37";
    n["spec"].activeDeadlineSeconds = 50;
    n["spec"].tolerations = [
      { key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 20 },
      { key: "new", operator: "Exists" },
    ];
    expect(validatePodUpdate(n as Pod, old, opts)).toEqual([]);
  });

  it("forbids other spec changes with Kubernetes' message", () => {
    const n = clone(old);
    n["spec"].restartPolicy = "Never";
    const errs = validatePodUpdate(n as Pod, old, opts);
    expect(errs).toHaveLength(1);
    expect(errs[0]?.type).toBe(FieldErrorType.Forbidden);
    expect(errs[0]?.field).toBe("spec");
    expect(errs[0]?.detail.startsWith(
      "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)\n",
    )).toBe(true);
    expect(errs[0]?.detail).toContain('A: Never');
  });

  it("forbids adding or removing containers, and requires images", () => {
    const n = clone(old);
    n["spec"].containers.push({ ...n["spec"].containers[0], name: "d" });
    expect(validatePodUpdate(n as Pod, old, opts).map(formatFieldError)).toEqual([
      "spec.containers: Forbidden: pod updates may not add or remove containers",
    ]);
    const m = clone(old);
    m["spec"].containers[0].image = "";
    expect(summary(validatePodUpdate(m as Pod, old, opts))).toEqual([
      "FieldValueRequired spec.containers[0].image",
      "FieldValueRequired spec.containers[0].image",
    ]);
  });

  it("only lets activeDeadlineSeconds be set or lowered", () => {
    const raised = clone(old);
    raised["spec"].activeDeadlineSeconds = 200;
    expect(validatePodUpdate(raised as Pod, old, opts).map(formatFieldError)).toEqual([
      "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value",
    ]);
    const unset = clone(old);
    delete unset["spec"].activeDeadlineSeconds;
    expect(validatePodUpdate(unset as Pod, old, opts).map(formatFieldError)).toEqual([
      "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value",
    ]);
    const fresh = pod();
    const set = clone(fresh);
    set["spec"].activeDeadlineSeconds = 30;
    expect(validatePodUpdate(set as Pod, fresh, opts)).toEqual([]);
  });

  it("only allows additions to tolerations", () => {
    const n = clone(old);
    n["spec"].tolerations = [{ key: "other", operator: "Exists" }];
    expect(validatePodUpdate(n as Pod, old, opts).map(formatFieldError)).toEqual([
      "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds",
    ]);
  });

  it("lets a negative terminationGracePeriodSeconds become 1", () => {
    const negative = pod((p) => (p["spec"].terminationGracePeriodSeconds = -5));
    const n = clone(negative);
    n["spec"].terminationGracePeriodSeconds = 1;
    expect(validatePodUpdate(n as Pod, negative, opts)).toEqual([]);
  });

  it("applies the metadata update rules and mirror-pod annotation rules", () => {
    const n = clone(old);
    n["metadata"].name = "other";
    n["metadata"].annotations = { "example.io/config.mirror": "x" };
    n["spec"].nodeName = "node";
    const errs = validatePodUpdate(n as Pod, old, opts);
    expect(summary(errs)).toEqual([
      "FieldValueInvalid metadata.name",
      "FieldValueForbidden metadata.annotations[example.io/config.mirror]",
      "FieldValueForbidden spec",
    ]);
    expect(errs[1]?.detail).toBe("may not add mirror pod annotation");
  });
});

describe("validatePodStatusUpdate", () => {
  const old = pod((p) => {
    p["spec"].restartPolicy = "Never";
    p["spec"].nodeName = "node-1";
    p["status"] = { containerStatuses: [{ name: "c", state: { terminated: { exitCode: 0 } } }] };
  });

  it("accepts status changes", () => {
    const n = clone(old);
    n["status"].phase = "Succeeded";
    n["status"].conditions = [{ type: "Ready", status: "False" }, { type: "example.io/custom", status: "True" }];
    n["status"].podIPs = [{ ip: "10.0.0.1" }, { ip: "fd00::1" }];
    expect(validatePodStatusUpdate(n as Pod, old, opts)).toEqual([]);
  });

  it("forbids changing nodeName and reviving terminated containers", () => {
    const n = clone(old);
    n["spec"].nodeName = "node-2";
    n["status"].containerStatuses = [{ name: "c", state: { running: {} } }];
    const errs = validatePodStatusUpdate(n as Pod, old, opts);
    expect(errs.map(formatFieldError)).toEqual([
      "status.nodeName: Forbidden: may not be changed directly",
      "status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state",
    ]);
  });

  it("allows failed containers to restart under OnFailure, and anything under Always", () => {
    const onFailure = clone(old);
    onFailure["spec"].restartPolicy = "OnFailure";
    onFailure["status"].containerStatuses[0].state.terminated.exitCode = 1;
    const n = clone(onFailure as Pod);
    n["status"].containerStatuses = [{ name: "c", state: { running: {} } }];
    expect(validatePodStatusUpdate(n as Pod, onFailure as Pod, opts)).toEqual([]);
    const always = clone(old);
    always["spec"].restartPolicy = "Always";
    expect(validatePodStatusUpdate(n as Pod, always as Pod, opts)).toEqual([]);
  });

  it("checks condition types, nominated node and pod IPs", () => {
    const n = clone(old);
    n["status"].conditions = [{ type: "bad type" }];
    n["status"].nominatedNodeName = "Node_X";
    n["status"].podIPs = [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }, { ip: "nope" }];
    const errs = validatePodStatusUpdate(n as Pod, old, opts);
    expect(summary(errs)).toEqual([
      "FieldValueInvalid metadata.conditions[0].Type",
      "FieldValueInvalid status.nominatedNodeName",
      "FieldValueInvalid status.podIPs[2]",
    ]);
    expect(errs[2]?.detail).toBe("must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    const dup = clone(old);
    dup["status"].podIPs = [{ ip: "10.0.0.1" }, { ip: "10.0.0.1" }];
    expect(summary(validatePodStatusUpdate(dup as Pod, old, opts))).toEqual([
      "FieldValueInvalid status.podIPs",
      "FieldValueDuplicate status.podIPs[1]",
    ]);
  });
});

describe("validatePodBinding", () => {
  const binding = (b: unknown) => b as Binding;
  it("accepts a node target", () => {
    expect(validatePodBinding(binding({ metadata: { name: "p" }, target: { kind: "Node", name: "n1" } }))).toEqual([]);
    expect(validatePodBinding(binding({ target: { name: "n1" } }))).toEqual([]);
  });
  it("rejects other kinds and a missing name", () => {
    expect(validatePodBinding(binding({ target: { kind: "Pod" } })).map(formatFieldError)).toEqual([
      'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
      "target.name: Required value",
    ]);
    expect(validatePodBinding(binding(undefined))).toHaveLength(1);
  });
});

describe("pod templates", () => {
  const tpl = (patch: (t: Obj) => void = () => {}): PodTemplateSpec => {
    const t: Obj = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } };
    setPodTemplateSpecDefaults(t as PodTemplateSpec);
    patch(t);
    return t as PodTemplateSpec;
  };
  const path = fieldPath("spec", "template");

  it("accepts a defaulted template", () => {
    expect(validatePodTemplateSpec(tpl(), path, opts)).toEqual([]);
  });

  it("reports labels and annotations at <path>.labels / .annotations and the spec at <path>.spec", () => {
    const errs = validatePodTemplateSpec(
      tpl((t) => {
        t["metadata"].labels = { "bad key": "x" };
        t["metadata"].annotations = { "bad key": "x" };
        t["spec"].containers[0].image = "";
        t["spec"].ephemeralContainers = [{ name: "e" }];
      }),
      path,
      opts,
    );
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      "FieldValueInvalid spec.template.labels",
      "FieldValueInvalid spec.template.annotations",
      "FieldValueRequired spec.template.spec.containers[0].image",
      // 1.23 validates ephemeral containers in templates too, before forbidding them.
      "FieldValueRequired spec.template.spec.ephemeralContainers[0][0].image",
      "FieldValueRequired spec.template.spec.ephemeralContainers[0][0].terminationMessagePolicy",
      "FieldValueRequired spec.template.spec.ephemeralContainers[0][0].imagePullPolicy",
      "FieldValueForbidden spec.template.spec.ephemeralContainers",
    ]);
    expect(errs[6]?.detail).toBe("ephemeral containers not allowed in pod template");
  });

  it("tolerates leading whitespace in template images (pod-only rule)", () => {
    expect(validatePodTemplateSpec(tpl((t) => (t["spec"].containers[0].image = " busybox")), path, opts)).toEqual([]);
  });

  it("validates an undefined template as empty", () => {
    expect(summary(validatePodTemplateSpec(undefined, path, opts))).toEqual([
      "FieldValueRequired spec.template.spec.containers",
      "FieldValueRequired spec.template.spec.restartPolicy",
      "FieldValueRequired spec.template.spec.dnsPolicy",
    ]);
  });

  it("validates PodTemplate objects on create and update", () => {
    const pt: Obj = { metadata: { name: "t", namespace: "default", resourceVersion: "3" }, template: tpl() };
    setPodTemplateDefaults(pt as PodTemplate);
    expect(validatePodTemplate(pt as PodTemplate, opts)).toEqual([]);
    expect(summary(validatePodTemplate({ template: tpl() } as PodTemplate, opts))).toEqual([
      "FieldValueRequired metadata.name",
      "FieldValueRequired metadata.namespace",
    ]);
    const updated = structuredClone(pt);
    updated["template"].spec.containers[0].image = "busybox:2";
    updated["template"].metadata.labels = { "bad key": "v" };
    expect(summary(validatePodTemplateUpdate(updated as PodTemplate, pt as PodTemplate, opts))).toEqual([
      "FieldValueInvalid template.labels",
    ]);
    const renamed = structuredClone(pt);
    renamed["metadata"].name = "u";
    expect(summary(validatePodTemplateUpdate(renamed as PodTemplate, pt as PodTemplate, opts))).toEqual(["FieldValueInvalid metadata.name"]);
  });
});
