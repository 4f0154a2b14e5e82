import type { Job } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { dropDisabledJobFields } from "./drop-disabled.js";
import { JobTrackingAnnotation } from "./job.js";

const make = (): Job => ({
  metadata: { name: "j", annotations: { [JobTrackingAnnotation]: "", other: "x" } },
  spec: { template: {} },
  status: { ready: 2, uncountedTerminatedPods: { succeeded: ["a"] }, active: 1 },
});
const on = { jobReadyPods: true, jobTrackingWithFinalizers: true };
const off = { jobReadyPods: false, jobTrackingWithFinalizers: false };

describe("dropDisabledJobFields", () => {
  it("keeps everything when the gates are on", () => {
    const j = make();
    expect(dropDisabledJobFields(j, undefined, on)).toEqual(make());
  });

  it("drops gated fields on create when the gates are off, mutating and returning the same object", () => {
    const j = make();
    const r = dropDisabledJobFields(j, undefined, off);
    expect(r).toBe(j);
    expect(j).toEqual({ metadata: { name: "j", annotations: { other: "x" } }, spec: { template: {} }, status: { active: 1 } });
  });

  it("removes an annotations map emptied by the drop", () => {
    const j: Job = { metadata: { name: "j", annotations: { [JobTrackingAnnotation]: "" } }, spec: { template: {} } };
    dropDisabledJobFields(j, undefined, off);
    expect(j.metadata).toEqual({ name: "j" });
  });

  it("keeps fields the old object already used", () => {
    const j = make();
    dropDisabledJobFields(j, make(), off);
    expect(j).toEqual(make());
  });

  it("drops each field only by its own gate", () => {
    const j = make();
    dropDisabledJobFields(j, undefined, { jobReadyPods: false, jobTrackingWithFinalizers: true });
    expect(j.status).toEqual({ uncountedTerminatedPods: { succeeded: ["a"] }, active: 1 });
    expect(j.metadata?.annotations).toHaveProperty(JobTrackingAnnotation);
    const k = make();
    dropDisabledJobFields(k, { spec: { template: {} }, status: { ready: 0 } }, { jobReadyPods: false, jobTrackingWithFinalizers: false });
    expect(k.status).toEqual({ ready: 2, active: 1 });
  });
});
