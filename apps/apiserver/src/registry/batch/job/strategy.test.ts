import type { Job } from "@skiff/api-types";
import { JobTrackingAnnotation } from "@skiff/validation";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "@skiff/apiserver-core";
import { createJobStrategy, jobDeleteWarning } from "./strategy.js";

type J = Job & Record<string, unknown>;
const ctx: RequestContext = { namespace: "default", user: { username: "u", groups: [] }, now: new Date(), dryRun: false, warnings: [] };
const gatesOff = { jobReadyPods: false, jobTrackingWithFinalizers: false, jobMutableNodeSchedulingDirectives: true };
const gatesOn = { jobReadyPods: true, jobTrackingWithFinalizers: true, jobMutableNodeSchedulingDirectives: true };

function newJob(): J {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "pi", namespace: "default", uid: "uid-1" },
    spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
    status: { succeeded: 5, ready: 1 },
  } as J;
}

function created(gates = gatesOff): J {
  const s = createJobStrategy(gates);
  const j = newJob();
  s.applyDefaults(j);
  s.prepareForCreate(ctx, j);
  j.metadata!.resourceVersion = "1"; // the store's part, as stored
  return j;
}

describe("Job strategy", () => {
  it("identity and delete behaviour", () => {
    const s = createJobStrategy(gatesOff);
    expect(s.resource).toMatchObject({ group: "batch", version: "v1", kind: "Job", plural: "jobs", namespaced: true });
    expect(s.returnDeletedObject).toBe(false);
    expect(s.defaultGarbageCollectionPolicy(ctx)).toBe("Orphan");
    expect(s.warningsOnDefaultDelete?.(ctx, newJob())).toEqual([jobDeleteWarning]);
    expect(s.fieldSelectorKeys).toEqual(["status.successful"]);
  });

  it("prepareForCreate clears status, sets generation 1 and generates the selector", () => {
    const j = created();
    // 1.23 sets `job.Status = batch.JobStatus{}`: a struct, so it is written as `"status":{}` (clients read an empty status, not none).
    expect(j.status).toEqual({});
    expect(j.metadata?.generation).toBe(1);
    expect(j.spec?.selector).toEqual({ matchLabels: { "controller-uid": "uid-1" } });
    expect(j.spec?.template?.metadata?.labels).toEqual({ "controller-uid": "uid-1", "job-name": "pi" });
    expect(j.metadata?.annotations?.[JobTrackingAnnotation]).toBeUndefined();
    expect(createJobStrategy(gatesOff).validate(ctx, j)).toEqual([]);
  });

  it("adds the tracking annotation when JobTrackingWithFinalizers is on", () => {
    const j = created(gatesOn);
    expect(j.metadata?.annotations?.[JobTrackingAnnotation]).toBe("");
    expect(createJobStrategy(gatesOn).validate(ctx, j)).toEqual([]);
  });

  it("keeps a manual selector", () => {
    const s = createJobStrategy(gatesOff);
    const j = newJob();
    j.spec = { ...j.spec!, manualSelector: true, selector: { matchLabels: { a: "b" } } };
    s.prepareForCreate(ctx, j);
    expect(j.spec?.selector).toEqual({ matchLabels: { a: "b" } });
  });

  it("validate reports invalid specs", () => {
    const s = createJobStrategy(gatesOff);
    const j = created();
    j.spec!.parallelism = -1;
    expect(s.validate(ctx, j).map((e) => e.field)).toContain("spec.parallelism");
  });

  it("prepareForUpdate keeps status and bumps generation on spec change only", () => {
    const s = createJobStrategy(gatesOff);
    const old = created();
    old.status = { succeeded: 1 };
    const same = structuredClone(old);
    same.status = { succeeded: 9 };
    s.prepareForUpdate(ctx, same, old);
    expect(same.status).toEqual({ succeeded: 1 });
    expect(same.metadata?.generation).toBe(1);
    const changed = structuredClone(old);
    changed.spec!.parallelism = 7;
    s.prepareForUpdate(ctx, changed, old);
    expect(changed.metadata?.generation).toBe(2);
    expect(s.validateUpdate(ctx, changed, old)).toEqual([]);
  });

  it("validateUpdate rejects immutable field changes", () => {
    const s = createJobStrategy(gatesOff);
    const old = created();
    const j = structuredClone(old);
    j.spec!.completions = 3;
    expect(s.validateUpdate(ctx, j, old).map((e) => e.field)).toContain("spec.completions");
  });

  it("status strategy keeps everything but status and drops disabled fields", () => {
    const s = createJobStrategy(gatesOff);
    const old = created();
    const j = structuredClone(old);
    j.spec!.parallelism = 9;
    j.metadata!.labels = { x: "y" };
    j.status = { succeeded: 2, ready: 1 };
    s.status!.prepareForUpdate(ctx, j, old);
    expect(j.spec).toEqual(old.spec);
    expect(j.metadata).toEqual(old.metadata);
    expect(j.status).toEqual({ succeeded: 2 });
    expect(s.status!.validateUpdate(ctx, j, old)).toEqual([]);
    const on = createJobStrategy(gatesOn);
    const j2 = structuredClone(old);
    j2.status = { ready: 1 };
    on.status!.prepareForUpdate(ctx, j2, old);
    expect(j2.status).toEqual({ ready: 1 });
  });

  it("status strategy keeps the managedFields the handler recorded (the subresource: status entry)", () => {
    const s = createJobStrategy(gatesOff);
    const old = created();
    old.metadata!.managedFields = [{ manager: "kubectl-create", operation: "Update", apiVersion: "batch/v1" }];
    const j = structuredClone(old);
    const recorded = [...old.metadata!.managedFields, { manager: "job-controller", operation: "Update", apiVersion: "batch/v1", subresource: "status" }];
    j.metadata!.managedFields = recorded;
    j.metadata!.annotations = { ignored: "yes" };
    j.status = { succeeded: 1 };
    s.status!.prepareForUpdate(ctx, j, old);
    expect(j.metadata!.managedFields).toEqual(recorded);
    expect(j.metadata!.annotations).toEqual(old.metadata!.annotations);
    expect(j.status).toEqual({ succeeded: 1 });
  });

  it("getAttrs exposes status.successful", () => {
    const s = createJobStrategy(gatesOff);
    const j = created();
    expect(s.getAttrs(j).fields["status.successful"]).toBe("0");
    j.status = { succeeded: 3 };
    expect(s.getAttrs(j)).toEqual({
      labels: { "controller-uid": j.metadata?.uid, "job-name": "pi" },
      fields: { "metadata.name": "pi", "metadata.namespace": "default", "status.successful": "3" },
    });
  });
});
