import type { CSIDriver, CSINode, Job, Pod } from "@skiff/api-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JobTrackingAnnotation } from "./batch/job.js";
import { decodeObject } from "./decode.js";
import { applyDefaults } from "./defaults/apply.js";
import { defaultValidationOptions, kindValidators, validateObject, validateObjectUpdate, validateStatusUpdate } from "./validate.js";
import type { ValidatedKindName } from "./validate.js";

const uid = "8f1c0e9a-0000-4000-8000-000000000001";

function generatedJob(name: string, spec: Omit<NonNullable<Job["spec"]>, "template" | "selector">, containers: string[], restartPolicy: "OnFailure" | "Never"): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "default", uid, resourceVersion: "1" },
    spec: {
      ...spec,
      selector: { matchLabels: { "controller-uid": uid } },
      template: {
        metadata: { labels: { "controller-uid": uid, "job-name": name } },
        spec: { restartPolicy, containers: containers.map((c) => ({ name: c, image: `registry.example.io/${c}:1` })) },
      },
    },
  };
}

describe("dispatchers", () => {
  it("validateObject dispatches per kind", () => {
    const job = generatedJob("pi", {}, ["pi"], "Never");
    applyDefaults("Job", job);
    expect(validateObject("Job", job)).toEqual([]);
    const driver: CSIDriver = { metadata: { name: "Csi.Example" }, spec: {} };
    expect(validateObject("CSIDriver", driver).map((e) => e.field)).toEqual([
      "spec.attachedRequired",
      "spec.podInfoOnMount",
      "spec.storageCapacity",
    ]);
    applyDefaults("CSIDriver", driver);
    expect(validateObject("CSIDriver", driver)).toEqual([]);
    const node: CSINode = { metadata: { name: "n1" }, spec: { drivers: [{ name: "d", nodeID: "x".repeat(200) }] } };
    expect(validateObject("CSINode", node)).toEqual([]);
    expect(validateObject("CSINode", node, { ...defaultValidationOptions, allowLongCSINodeID: false })).toHaveLength(1);
    const pod: Pod = { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    applyDefaults("Pod", pod);
    expect(validateObject("Pod", pod)).toEqual([]);
    const badPod: Pod = { metadata: { name: "p", namespace: "default" }, spec: { containers: [] } };
    expect(validateObject("Pod", badPod).map((e) => e.field)).toContain("spec.containers");
  });

  it("passes the tracking gate through to Job validation on create, and the old object on update", () => {
    const job = generatedJob("pi", {}, ["pi"], "Never");
    job.metadata!.annotations = { [JobTrackingAnnotation]: "" };
    applyDefaults("Job", job);
    expect(validateObject("Job", job).map((e) => e.field)).toEqual(["metadata.annotations[batch.example.io/job-tracking]"]);
    expect(validateObject("Job", job, { ...defaultValidationOptions, jobTrackingWithFinalizers: true })).toEqual([]);
    const old = structuredClone(job);
    expect(validateObjectUpdate("Job", job, old)).toEqual([]);
    const oldWithout = structuredClone(job);
    delete oldWithout.metadata!.annotations;
    expect(validateObjectUpdate("Job", job, oldWithout, { ...defaultValidationOptions, jobTrackingWithFinalizers: true })).toHaveLength(1);
  });

  it("derives mutable scheduling directives from the old Job and the gate", () => {
    const old = generatedJob("pi", { suspend: true }, ["pi"], "Never");
    applyDefaults("Job", old);
    const job = structuredClone(old);
    job.spec!.template.spec!.nodeSelector = { disk: "ssd" };
    expect(validateObjectUpdate("Job", job, old)).toEqual([]);
    expect(validateObjectUpdate("Job", job, old, { ...defaultValidationOptions, jobMutableNodeSchedulingDirectives: false })).toHaveLength(1);
  });

  it("validateStatusUpdate uses the status rules for Jobs and the update rules for kinds without status", () => {
    const old = generatedJob("pi", {}, ["pi"], "Never");
    applyDefaults("Job", old);
    const job = structuredClone(old);
    job.status = { active: -1 };
    expect(validateStatusUpdate("Job", job, old).map((e) => e.field)).toEqual(["status.active"]);
    expect(validateObjectUpdate("Job", job, old)).toEqual([]);
    const d: CSIDriver = { metadata: { name: "d", resourceVersion: "1" }, spec: {} };
    applyDefaults("CSIDriver", d);
    const d2 = structuredClone(d);
    d2.spec.attachRequired = false;
    expect(validateStatusUpdate("CSIDriver", d2, d).map((e) => e.field)).toEqual(["spec.attachedRequired"]);
  });
});

describe("kindValidators", () => {
  it("is what the dispatchers call: same errors, status falling back to the update rules", () => {
    const driver: CSIDriver = { metadata: { name: "Csi.Example", resourceVersion: "1" }, spec: {} };
    const changed: CSIDriver = { ...driver, spec: { attachRequired: false } };
    expect(validateObject("CSIDriver", driver)).toEqual(kindValidators.CSIDriver.validate(driver, defaultValidationOptions));
    expect(validateObjectUpdate("CSIDriver", changed, driver)).toEqual(kindValidators.CSIDriver.validateUpdate(changed, driver, defaultValidationOptions));
    expect(validateStatusUpdate("CSIDriver", changed, driver)).toEqual(kindValidators.CSIDriver.validateUpdate(changed, driver, defaultValidationOptions));
    const old = generatedJob("pi", {}, ["pi"], "Never");
    applyDefaults("Job", old);
    const job = structuredClone(old);
    job.status = { active: -1 };
    expect(validateStatusUpdate("Job", job, old)).toEqual(kindValidators.Job.validateStatusUpdate(job, old, defaultValidationOptions));
  });

  it("answers no errors for a name outside the table, inherited Object members included", () => {
    for (const name of ["Deployment", "toString", "constructor", "__proto__"]) {
      const kind = name as ValidatedKindName;
      const obj = { metadata: { name: "x" } } as never;
      expect(validateObject(kind, obj)).toEqual([]);
      expect(validateObjectUpdate(kind, obj, obj)).toEqual([]);
      expect(validateStatusUpdate(kind, obj, obj)).toEqual([]);
    }
  });
});

const dnsLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,18}[a-z0-9])?$/);

const jobSkeleton = fc
  .record({
    name: dnsLabel,
    containers: fc.uniqueArray(dnsLabel, { minLength: 1, maxLength: 3 }),
    restartPolicy: fc.constantFrom("OnFailure", "Never"),
    indexed: fc.boolean(),
    parallelism: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
    completions: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
    backoffLimit: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
    activeDeadlineSeconds: fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: undefined }),
    ttlSecondsAfterFinished: fc.option(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { nil: undefined }),
    suspend: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map((s) => {
    const spec: Omit<NonNullable<Job["spec"]>, "template" | "selector"> = {};
    if (s.parallelism !== undefined) spec.parallelism = s.parallelism;
    if (s.indexed) {
      spec.completionMode = "Indexed";
      spec.completions = s.completions ?? 1;
    } else if (s.completions !== undefined) spec.completions = s.completions;
    if (s.backoffLimit !== undefined) spec.backoffLimit = s.backoffLimit;
    if (s.activeDeadlineSeconds !== undefined) spec.activeDeadlineSeconds = s.activeDeadlineSeconds;
    if (s.ttlSecondsAfterFinished !== undefined) spec.ttlSecondsAfterFinished = s.ttlSecondsAfterFinished;
    if (s.suspend !== undefined) spec.suspend = s.suspend;
    return generatedJob(s.name, spec, s.containers, s.restartPolicy);
  });

describe("property: defaulting a valid Job skeleton yields a valid Job", () => {
  it("decode → default → validate is clean, and the result decodes to itself", () => {
    fc.assert(
      fc.property(jobSkeleton, (skeleton) => {
        const decoded = decodeObject("Job", JSON.parse(JSON.stringify(skeleton)), { fieldValidation: "Strict" });
        expect(decoded.ok && decoded.unknownFields).toEqual([]);
        if (!decoded.ok) return;
        const job = decoded.value;
        applyDefaults("Job", job);
        expect(validateObject("Job", job)).toEqual([]);
        expect(validateObjectUpdate("Job", structuredClone(job), job)).toEqual([]);
        const again = decodeObject("Job", JSON.parse(JSON.stringify(job)), { fieldValidation: "Strict" });
        expect(again.ok && again.unknownFields).toEqual([]);
        expect(again.ok && again.value).toEqual(job);
      }),
      { numRuns: 200 },
    );
  });
});

describe("container lifecycle hooks", () => {
  const raw = (lifecycle: unknown): unknown => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "c", image: "busybox", lifecycle }] },
  });

  it("decodes postStart and preStop under Strict, defaults the httpGet action and validates clean", () => {
    const r = decodeObject("Pod", raw({ postStart: { exec: { command: ["sh", "-c", "echo hi"] } }, preStop: { httpGet: { port: 8080 } } }), { fieldValidation: "Strict" });
    expect(r.ok && r.unknownFields).toEqual([]);
    if (!r.ok) return;
    const pod = r.value as Pod;
    applyDefaults("Pod", pod);
    expect(pod.spec?.containers[0]?.lifecycle).toEqual({ postStart: { exec: { command: ["sh", "-c", "echo hi"] } }, preStop: { httpGet: { port: 8080, path: "/", scheme: "HTTP" } } });
    expect(validateObject("Pod", pod)).toEqual([]);
  });

  it("names the field of a hook without a handler, with two handlers, or with a bad port; grpc is unknown there", () => {
    const r = decodeObject("Pod", raw({ postStart: {}, preStop: { exec: { command: ["true"] }, httpGet: { port: 0 }, grpc: { port: 9 } } }), { fieldValidation: "Strict" });
    expect(r.ok && r.unknownFields).toEqual(["spec.containers[0].lifecycle.preStop.grpc"]);
    if (!r.ok) return;
    const pod = r.value as Pod;
    applyDefaults("Pod", pod);
    expect(validateObject("Pod", pod).map((e) => `${e.type} ${e.field}`)).toEqual([
      "FieldValueRequired spec.containers[0].lifecycle.postStart",
      "FieldValueForbidden spec.containers[0].lifecycle.preStop.httpGet",
    ]);
  });

  it("property: any JSON as a lifecycle decodes or is refused with field errors, and what decodes defaults and validates without throwing", () => {
    const handler = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ exec: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ command: fc.array(fc.string(), { maxLength: 3 }) })), httpGet: fc.jsonValue({ maxDepth: 2 }), tcpSocket: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
    );
    const lifecycle = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ postStart: handler, preStop: handler }, { requiredKeys: [] }));
    fc.assert(
      fc.property(lifecycle, (l) => {
        const r = decodeObject("Pod", raw(l), { fieldValidation: "Strict" });
        if (!r.ok) {
          expect(r.errors.length).toBeGreaterThan(0);
          return;
        }
        const pod = r.value as Pod;
        applyDefaults("Pod", pod);
        for (const e of validateObject("Pod", pod)) expect(e.field).toMatch(/^spec\.containers\[0\]\.lifecycle/);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a handler of the wrong JSON type at decode time, naming the field", () => {
    const r = decodeObject("Pod", raw({ preStop: { exec: { command: "true" } } }), { fieldValidation: "Strict" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field)).toEqual(["spec.containers[0].lifecycle.preStop.exec.command"]);
  });
});
