import { fieldPath } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { nameIsCSIDriverName, validateCSINodeDriverName } from "./csi-driver-name.js";

describe("nameIsCSIDriverName (the spec's rule)", () => {
  it.each(["a", "csi.example.com", "Hostpath.CSI.k8s.IO", "a-b.c", "9", "a..b", "x".repeat(63)])("accepts %s", (name) => {
    expect(nameIsCSIDriverName(name, false)).toEqual([]);
  });

  it.each(["-a", "a-", ".a", "a.", "a_b", "a b", "a/b", "ü", ""])("rejects %j", (name) => {
    const errs = nameIsCSIDriverName(name, false);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^a CSI driver name must consist of alphanumeric characters, '-' or '\.', and must start and end with an alphanumeric character/);
  });

  it("rejects more than 63 characters", () => {
    expect(nameIsCSIDriverName("x".repeat(64), false)).toEqual(["must be no more than 63 characters"]);
  });

  it("accepts a trailing dash in a generateName prefix only", () => {
    expect(nameIsCSIDriverName("driver-", true)).toEqual([]);
    expect(nameIsCSIDriverName("driver-", false)).toHaveLength(1);
  });
});

describe("validateCSINodeDriverName", () => {
  const p = fieldPath("spec", "drivers").index(0).child("name");
  it("requires a name", () => {
    expect(validateCSINodeDriverName("", p)).toEqual([{ type: "FieldValueRequired", field: "spec.drivers[0].name", detail: "" }]);
    expect(validateCSINodeDriverName(undefined, p)).toHaveLength(1);
  });
  it("reports Too long beyond 63 characters", () => {
    const long = "a".repeat(64);
    expect(validateCSINodeDriverName(long, p)).toEqual([
      { type: "FieldValueTooLong", field: "spec.drivers[0].name", badValue: long, detail: "must have at most 63 bytes" },
    ]);
  });
  it("reports Invalid value for bad characters and accepts upper case", () => {
    expect(validateCSINodeDriverName("Example.CSI", p)).toEqual([]);
    expect(validateCSINodeDriverName("bad_name", p)[0]).toMatchObject({ type: "FieldValueInvalid", badValue: "bad_name" });
  });
});
