import type { CSIDriver, CSINode, Job, JobList, PodTemplate } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { applyDefaults } from "./apply.js";
import { setCSIDriverDefaults } from "./csidriver.js";
import { DefaultJobBackoffLimit, setJobDefaults } from "./job.js";
import { setPodTemplateDefaults } from "../core/index.js";

const template = () => ({ spec: { containers: [{ name: "c", image: "busybox" }] } });

describe("setJobDefaults", () => {
  it("defaults completions and parallelism to 1 when both are unset", () => {
    const j: Job = { spec: { template: template() } };
    setJobDefaults(j);
    expect(j.spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: "NonIndexed", suspend: false });
    expect(DefaultJobBackoffLimit).toBe(6);
  });

  it("leaves completions unset when only parallelism is set", () => {
    const j: Job = { spec: { parallelism: 3, template: template() } };
    setJobDefaults(j);
    expect(j.spec?.parallelism).toBe(3);
    expect(j.spec).not.toHaveProperty("completions");
  });

  it("defaults parallelism to 1 when only completions is set", () => {
    const j: Job = { spec: { completions: 5, template: template() } };
    setJobDefaults(j);
    expect(j.spec).toMatchObject({ completions: 5, parallelism: 1 });
  });

  it("keeps values that are set, including zeros and false", () => {
    const j: Job = {
      spec: { completions: 0, parallelism: 0, backoffLimit: 0, completionMode: "Indexed", suspend: true, manualSelector: false, template: template() },
    };
    setJobDefaults(j);
    expect(j.spec).toMatchObject({ completions: 0, parallelism: 0, backoffLimit: 0, completionMode: "Indexed", suspend: true, manualSelector: false });
  });

  it("leaves manualSelector, selector, activeDeadlineSeconds and ttlSecondsAfterFinished unset", () => {
    const j: Job = { spec: { template: template() } };
    setJobDefaults(j);
    for (const k of ["manualSelector", "selector", "activeDeadlineSeconds", "ttlSecondsAfterFinished"]) expect(j.spec).not.toHaveProperty(k);
  });

  it("keeps the metadata object it was given (callers hold references to it)", () => {
    const meta = { name: "m", uid: "u-1" };
    const j: Job = { metadata: meta, spec: { manualSelector: true, template: { metadata: { labels: { a: "b" } }, spec: template().spec } } };
    setJobDefaults(j);
    expect(j.metadata).toBe(meta);
    expect(meta).toEqual({ name: "m", uid: "u-1", labels: { a: "b" } });
  });

  it("copies the template labels to empty job labels only", () => {
    const j: Job = { spec: { template: { metadata: { labels: { app: "x" } }, spec: template().spec } } };
    setJobDefaults(j);
    expect(j.metadata?.labels).toEqual({ app: "x" });
    j.spec!.template.metadata!.labels!["app"] = "changed";
    expect(j.metadata?.labels).toEqual({ app: "x" });
    const k: Job = { metadata: { labels: { own: "y" } }, spec: { template: { metadata: { labels: { app: "x" } } } } };
    setJobDefaults(k);
    expect(k.metadata?.labels).toEqual({ own: "y" });
    const e: Job = { metadata: { name: "n", labels: {} }, spec: { template: { metadata: { labels: { app: "x" } } } } };
    setJobDefaults(e);
    expect(e.metadata).toEqual({ name: "n", labels: { app: "x" } });
  });

  it("applies the pod defaults to the template", () => {
    const j: Job = { spec: { template: template() } };
    setJobDefaults(j);
    const spec = j.spec!.template.spec!;
    expect(spec.restartPolicy).toBe("Always");
    expect(spec.dnsPolicy).toBe("ClusterFirst");
    expect(spec.containers[0]!.terminationMessagePath).toBe("/dev/termination-log");
  });

  it("is idempotent and leaves an absent spec absent", () => {
    const j: Job = { spec: { template: template() } };
    setJobDefaults(j);
    const once = structuredClone(j);
    setJobDefaults(j);
    expect(j).toEqual(once);
    const none: Job = { metadata: { name: "x" } };
    setJobDefaults(none);
    expect(none).toEqual({ metadata: { name: "x" } });
  });
});

describe("setCSIDriverDefaults", () => {
  it("sets every default", () => {
    const d: CSIDriver = { spec: {} };
    setCSIDriverDefaults(d);
    expect(d.spec).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: "ReadWriteOnceWithFSType",
      volumeLifecycleModes: ["Persistent"],
      requiresRepublish: false,
    });
  });

  it("keeps set values and replaces an empty volumeLifecycleModes list", () => {
    const d: CSIDriver = {
      spec: { attachRequired: false, podInfoOnMount: true, storageCapacity: true, fsGroupPolicy: "None", volumeLifecycleModes: [], requiresRepublish: true },
    };
    setCSIDriverDefaults(d);
    expect(d.spec).toEqual({
      attachRequired: false,
      podInfoOnMount: true,
      storageCapacity: true,
      fsGroupPolicy: "None",
      volumeLifecycleModes: ["Persistent"],
      requiresRepublish: true,
    });
    const e: CSIDriver = { spec: { volumeLifecycleModes: ["Ephemeral"] } };
    setCSIDriverDefaults(e);
    expect(e.spec.volumeLifecycleModes).toEqual(["Ephemeral"]);
  });
});

describe("setPodTemplateDefaults and applyDefaults", () => {
  it("defaults a PodTemplate's template", () => {
    const pt: PodTemplate = { metadata: { name: "t" }, template: template() };
    setPodTemplateDefaults(pt);
    expect(pt.template?.spec?.restartPolicy).toBe("Always");
    const empty: PodTemplate = { metadata: { name: "t" } };
    applyDefaults("PodTemplate", empty);
    expect(empty.template?.spec?.restartPolicy).toBe("Always");
  });

  it("dispatches per kind and defaults list items", () => {
    const j: Job = { spec: { template: template() } };
    applyDefaults("Job", j);
    expect(j.spec?.backoffLimit).toBe(6);
    const d: CSIDriver = { spec: {} };
    applyDefaults("CSIDriver", d);
    expect(d.spec.attachRequired).toBe(true);
    const list: JobList = { items: [{ spec: { template: template() } }, { spec: { parallelism: 2, template: template() } }] };
    applyDefaults("JobList", list);
    expect(list.items.map((i) => i.spec?.completions)).toEqual([1, undefined]);
    const node: CSINode = { metadata: { name: "n" }, spec: { drivers: [] } };
    applyDefaults("CSINode", node);
    expect(node).toEqual({ metadata: { name: "n" }, spec: { drivers: [] } });
    const pod = { spec: { containers: [{ name: "c", image: "busybox" }] } };
    applyDefaults("Pod", pod);
    expect(pod.spec).toHaveProperty("restartPolicy", "Always");
    applyDefaults("DeleteOptions", {});
  });
});
