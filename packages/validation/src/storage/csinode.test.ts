import type { CSINode, CSINodeDriver } from "@skiff/api-types";
import { formatFieldError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { validateCSINode, validateCSINodeUpdate } from "./csinode.js";

function node(drivers: CSINodeDriver[], name = "node-1"): CSINode {
  return { apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name }, spec: { drivers } };
}

const good: CSINodeDriver = {
  name: "csi.example.com",
  nodeID: "node-1-id",
  topologyKeys: ["topology.example.io/zone", "example.io/hostname"],
  allocatable: { count: 10 },
};

const msgs = (n: CSINode, old?: CSINode) => (old ? validateCSINodeUpdate(n, old) : validateCSINode(n)).map(formatFieldError);

describe("validateCSINode", () => {
  it("accepts valid drivers and an empty driver list", () => {
    expect(validateCSINode(node([good, { name: "Other.Driver", nodeID: "x" }]))).toEqual([]);
    expect(validateCSINode(node([]))).toEqual([]);
    expect(validateCSINode(node([{ ...good, allocatable: { count: 0 } }]))).toEqual([]);
    expect(validateCSINode(node([{ ...good, allocatable: {} }]))).toEqual([]);
  });

  it("requires the name to be a node name (DNS-1123 subdomain)", () => {
    expect(validateCSINode(node([], "Node_1")).map((e) => e.field)).toEqual(["metadata.name"]);
  });

  it("checks driver names as 1.23's ValidateCSIDriverName (an empty one is Required and Invalid)", () => {
    const empty = msgs(node([{ ...good, name: "" }]));
    expect(empty[0]).toBe("spec.drivers[0].name: Required value");
    expect(empty[1]).toMatch(/^spec\.drivers\[0\]\.name: Invalid value: "": a lowercase RFC 1123 subdomain must consist of/);
    expect(empty).toHaveLength(2);
    const bad = msgs(node([{ ...good, name: "bad_driver" }]));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^spec\.drivers\[0\]\.name: Invalid value: "bad_driver": a lowercase RFC 1123 subdomain must consist of/);
    expect(validateCSINode(node([{ ...good, name: "d".repeat(64) }]))[0]).toMatchObject({
      type: "FieldValueTooLong",
      field: "spec.drivers[0].name",
      detail: "must have at most 63 bytes",
    });
  });

  it("rejects duplicate driver names", () => {
    expect(msgs(node([good, { ...good, nodeID: "other" }]))).toEqual([
      'spec.drivers[1].name: Duplicate value: "csi.example.com"',
    ]);
  });

  it("requires nodeID and limits it to 256 characters (192 without allowLongNodeID)", () => {
    expect(msgs(node([{ ...good, nodeID: "" }]))).toEqual(["spec.drivers[0].nodeID: Required value"]);
    expect(validateCSINode(node([{ ...good, nodeID: "n".repeat(256) }]))).toEqual([]);
    expect(validateCSINode(node([{ ...good, nodeID: "n".repeat(257) }]))[0]).toMatchObject({
      type: "FieldValueInvalid",
      field: "spec.drivers[0].nodeID",
      detail: "must be 256 characters or less",
    });
    const n193 = node([{ ...good, nodeID: "n".repeat(193) }]);
    expect(validateCSINode(n193, { allowLongNodeID: false })[0]).toMatchObject({ detail: "must be 192 characters or less" });
    expect(validateCSINode(node([{ ...good, nodeID: "n".repeat(192) }]), { allowLongNodeID: false })).toEqual([]);
  });

  it("rejects a negative allocatable count", () => {
    expect(msgs(node([{ ...good, allocatable: { count: -1 } }]))).toEqual([
      "spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });

  it("checks topology keys: non-empty, unique, qualified names — at the driver's path, as 1.23", () => {
    const errs = validateCSINode(node([{ ...good, topologyKeys: ["a", "", "a"] }]));
    expect(errs.map((e) => `${e.field} ${e.type}`)).toEqual([
      "spec.drivers[0] FieldValueRequired",
      // "" is not a qualified name either: 1.23 reports each problem, showing the whole key list.
      "spec.drivers[0] FieldValueInvalid",
      "spec.drivers[0] FieldValueInvalid",
      "spec.drivers[0] FieldValueDuplicate",
    ]);
    expect(errs[3]).toMatchObject({ badValue: "a" });
    const bad = validateCSINode(node([{ ...good, topologyKeys: ["bad key"] }]));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ type: "FieldValueInvalid", field: "spec.drivers[0]", badValue: ["bad key"] });
    expect(formatFieldError(bad[0]!)).toMatch(/^spec\.drivers\[0\]: Invalid value: \[\]string\{"bad key"\}: name part must consist of/);
    expect(validateCSINode(node([{ ...good, topologyKeys: ["-x.example.io/zone"] }]))[0]?.detail).toMatch(/^prefix part /);
  });
});

describe("validateCSINodeUpdate", () => {
  const old = node([good, { name: "b.example.com", nodeID: "b" }]);
  old.metadata = { ...old.metadata, uid: "u", resourceVersion: "3" };

  it("allows adding and removing drivers", () => {
    const added = structuredClone(old);
    added.spec.drivers.push({ name: "c.example.com", nodeID: "c" });
    expect(validateCSINodeUpdate(added, old)).toEqual([]);
    const removed = structuredClone(old);
    removed.spec.drivers = [];
    expect(validateCSINodeUpdate(removed, old)).toEqual([]);
  });

  it("rejects any change of an existing driver at 1.23's path CSINodeDriver, the driver printed as Go's %#v", () => {
    const n = structuredClone(old);
    n.spec.drivers = [
      { name: "b.example.com", nodeID: "b2", allocatable: { count: 1 } },
      { ...good, topologyKeys: ["example.io/hostname"] },
    ];
    expect(validateCSINodeUpdate(n, old).map(formatFieldError)).toEqual([
      'CSINodeDriver: Invalid value: storage.CSINodeDriver{Name:"csi.example.com", NodeID:"node-1-id", TopologyKeys:[]string{"example.io/hostname"}, Allocatable:(*storage.VolumeNodeResources)(0xc000000000)}: field is immutable',
      'CSINodeDriver: Invalid value: storage.CSINodeDriver{Name:"b.example.com", NodeID:"b2", TopologyKeys:[]string(nil), Allocatable:(*storage.VolumeNodeResources)(0xc000000000)}: field is immutable',
    ]);
  });

  it("reports the create rules twice on update (strategy and ValidateCSINodeUpdate both run ValidateCSINode)", () => {
    const n = structuredClone(old);
    n.spec.drivers.push({ name: "d.example.io", nodeID: "" });
    expect(validateCSINodeUpdate(n, old).map(formatFieldError)).toEqual(["spec.drivers[2].nodeID: Required value", "spec.drivers[2].nodeID: Required value"]);
  });

  it("still validates the new object and the metadata update", () => {
    const n = structuredClone(old);
    n.metadata = { ...n.metadata, uid: "other" };
    n.spec.drivers.push({ name: "", nodeID: "x" });
    const fields = validateCSINodeUpdate(n, old).map((e) => e.field);
    expect(fields).toContain("metadata.uid");
    expect(fields).toContain("spec.drivers[2].name");
  });
});
