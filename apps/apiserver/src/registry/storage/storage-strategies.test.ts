import type { CSIDriver, CSINode } from "@skiff/api-types";
import type { RequestContext } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { createCSIDriverStrategy, csiDriverTable } from "./csidriver/strategy.js";
import { createCSINodeStrategy, csiNodeTable } from "./csinode/strategy.js";

const ctx: RequestContext = { namespace: undefined, user: { username: "u", groups: [] }, now: new Date(), dryRun: false, warnings: [] };
const now = new Date("2024-01-01T00:05:00Z");

describe("CSIDriver", () => {
  const s = createCSIDriverStrategy();
  const d = (): CSIDriver & Record<string, unknown> => ({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: "csi.example.com", creationTimestamp: "2024-01-01T00:00:00Z" }, spec: {} });
  it("identity", () => {
    expect(s.resource).toMatchObject({ group: "storage.example.io", plural: "csidrivers", namespaced: false });
    expect(s.returnDeletedObject).toBe(true);
    expect(s.getAttrs(d()).fields).toEqual({ "metadata.name": "csi.example.com" });
  });
  it("defaults then validates; rejects a bad name", () => {
    const o = d();
    s.applyDefaults(o);
    s.prepareForCreate(ctx, o);
    expect(s.validate(ctx, o)).toEqual([]);
    const bad = d();
    bad.metadata!.name = "Bad_Name";
    s.applyDefaults(bad);
    expect(s.validate(ctx, bad).length).toBeGreaterThan(0);
  });
  it("printer: unset spec fields", () => {
    expect(csiDriverTable.cells(d(), now)).toEqual(["csi.example.com", true, false, false, "<unset>", false, "<none>", "5m"]);
    expect(csiDriverTable.columns.map((c) => c.name.toUpperCase())).toEqual(["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"]);
  });
  it("printer: set spec fields", () => {
    const o = d();
    o.spec = { attachRequired: false, podInfoOnMount: true, storageCapacity: true, tokenRequests: [{ audience: "a" }, { audience: "b" }], requiresRepublish: true, volumeLifecycleModes: ["Persistent", "Ephemeral"] };
    expect(csiDriverTable.cells(o, now)).toEqual(["csi.example.com", false, true, true, "a,b", true, "Persistent,Ephemeral", "5m"]);
  });
});

describe("CSINode", () => {
  const s = createCSINodeStrategy();
  it("identity, validation and printer", () => {
    expect(s.resource).toMatchObject({ plural: "csinodes", namespaced: false });
    expect(s.returnDeletedObject).toBe(true);
    const n: CSINode & Record<string, unknown> = {
      apiVersion: "storage.example.io/v1",
      kind: "CSINode",
      metadata: { name: "node1", creationTimestamp: "2024-01-01T00:00:00Z" },
      spec: { drivers: [{ name: "csi.example.com", nodeID: "n1" }] },
    };
    expect(s.validate(ctx, n)).toEqual([]);
    expect(csiNodeTable.cells(n, now)).toEqual(["node1", 1, "5m"]);
    const dup = structuredClone(n);
    dup.spec.drivers.push({ name: "csi.example.com", nodeID: "n1" });
    expect(s.validate(ctx, dup).map((e) => e.type)).toContain("FieldValueDuplicate");
  });
});
