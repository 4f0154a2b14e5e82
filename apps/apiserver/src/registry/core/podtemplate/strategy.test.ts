import type { PodTemplate } from "@skiff/api-types";
import type { RequestContext } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { createPodTemplateStrategy, podTemplateTable } from "./strategy.js";

const ctx: RequestContext = { namespace: "default", user: { username: "u", groups: [] }, now: new Date(), dryRun: false, warnings: [] };
const pt = (): PodTemplate & Record<string, unknown> => ({
  apiVersion: "v1",
  kind: "PodTemplate",
  metadata: { name: "t", namespace: "default" },
  template: { metadata: { labels: { b: "2", a: "1" } }, spec: { containers: [{ name: "c", image: "busybox" }, { name: "d", image: "nginx" }] } },
});

describe("PodTemplate", () => {
  const s = createPodTemplateStrategy();
  it("identity", () => {
    expect(s.resource).toMatchObject({ group: "", plural: "podtemplates", namespaced: true });
    expect(s.returnDeletedObject).toBe(true);
    expect(s.getAttrs(pt()).fields).toEqual({ "metadata.name": "t", "metadata.namespace": "default" });
  });
  it("create: generation 1 and valid; update bumps generation on template change", () => {
    const o = pt();
    s.applyDefaults(o);
    s.prepareForCreate(ctx, o);
    expect(o.metadata?.generation).toBe(1);
    expect(s.validate(ctx, o)).toEqual([]);
    const same = structuredClone(o);
    s.prepareForUpdate(ctx, same, o);
    expect(same.metadata?.generation).toBe(1);
    const changed = structuredClone(o);
    changed.template!.spec!.containers[0]!.image = "other";
    s.prepareForUpdate(ctx, changed, o);
    expect(changed.metadata?.generation).toBe(2);
  });
  it("rejects a template without containers", () => {
    const o = pt();
    o.template!.spec!.containers = [];
    expect(s.validate(ctx, o).length).toBeGreaterThan(0);
  });
  it("printer", () => {
    expect(podTemplateTable.cells(pt(), new Date())).toEqual(["t", "c,d", "busybox,nginx", "a=1,b=2"]);
    const empty = pt();
    delete empty.template!.metadata;
    expect(podTemplateTable.cells(empty, new Date())[3]).toBe("<none>");
  });
});
