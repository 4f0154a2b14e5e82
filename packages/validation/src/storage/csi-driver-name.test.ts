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

describe("validateCSINodeDriverName (1.23 ValidateCSIDriverName)", () => {
  const p = fieldPath("spec", "drivers").index(0).child("name");
  const subdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  it("an empty name is Required and also Invalid (the extra cause 1.23 reports)", () => {
    expect(validateCSINodeDriverName("", p)).toEqual([
      { type: "FieldValueRequired", field: "spec.drivers[0].name", detail: "" },
      { type: "FieldValueInvalid", field: "spec.drivers[0].name", badValue: "", detail: subdomain },
    ]);
    expect(validateCSINodeDriverName(undefined, p)).toHaveLength(2);
  });
  it("reports Too long beyond 63 characters", () => {
    const long = "a".repeat(64);
    expect(validateCSINodeDriverName(long, p)).toEqual([
      { type: "FieldValueTooLong", field: "spec.drivers[0].name", badValue: long, detail: "must have at most 63 bytes" },
    ]);
  });
  it("reports the DNS-1123 subdomain problems of the lower-cased name; upper case is accepted", () => {
    expect(validateCSINodeDriverName("Example.CSI", p)).toEqual([]);
    expect(validateCSINodeDriverName("bad_name", p)).toEqual([{ type: "FieldValueInvalid", field: "spec.drivers[0].name", badValue: "bad_name", detail: subdomain }]);
  });
});
