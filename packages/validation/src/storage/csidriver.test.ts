import type { CSIDriver } from "@skiff/api-types";
import { formatFieldError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { setCSIDriverDefaults } from "../defaults/csidriver.js";
import { validateCSIDriver, validateCSIDriverUpdate } from "./csidriver.js";

function driver(spec: CSIDriver["spec"] = {}, name = "csi.example.com"): CSIDriver {
  const d: CSIDriver = { apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name }, spec };
  setCSIDriverDefaults(d);
  return d;
}

function messages(errs: ReturnType<typeof validateCSIDriver>): string[] {
  return errs.map(formatFieldError);
}

describe("validateCSIDriver", () => {
  it("accepts a defaulted driver", () => {
    expect(validateCSIDriver(driver())).toEqual([]);
  });

  it("applies the spec's name rule: upper case allowed, 63 characters at most, alphanumeric ends", () => {
    expect(validateCSIDriver(driver({}, "Hostpath.CSI.Example.COM"))).toEqual([]);
    expect(validateCSIDriver(driver({}, "a".repeat(63)))).toEqual([]);
    const long = validateCSIDriver(driver({}, "a".repeat(64)));
    expect(long).toHaveLength(1);
    expect(long[0]).toMatchObject({ type: "FieldValueInvalid", field: "metadata.name", detail: "must be no more than 63 characters" });
    for (const bad of ["-csi", "csi-", "csi_x", "csi/x"]) {
      const errs = validateCSIDriver(driver({}, bad));
      expect(errs.map((e) => e.field), bad).toEqual(["metadata.name"]);
    }
  });

  it("requires a name and forbids a namespace", () => {
    const d = driver();
    d.metadata = { namespace: "default" };
    const fields = validateCSIDriver(d).map((e) => e.field);
    expect(fields).toContain("metadata.name");
    expect(fields).toContain("metadata.namespace");
  });

  it("requires attachRequired, podInfoOnMount and storageCapacity (set by defaulting)", () => {
    const d: CSIDriver = { metadata: { name: "d" }, spec: {} };
    expect(messages(validateCSIDriver(d))).toEqual([
      // 1.23's path, typo included.
      "spec.attachedRequired: Required value",
      "spec.podInfoOnMount: Required value",
      "spec.storageCapacity: Required value",
    ]);
  });

  it("checks fsGroupPolicy and volumeLifecycleModes values", () => {
    expect(validateCSIDriver(driver({ fsGroupPolicy: "File", volumeLifecycleModes: ["Persistent", "Ephemeral"] }))).toEqual([]);
    expect(validateCSIDriver(driver({ fsGroupPolicy: "None" }))).toEqual([]);
    expect(messages(validateCSIDriver(driver({ fsGroupPolicy: "Always" } as unknown as CSIDriver["spec"])))).toEqual([
      'spec.fsGroupPolicy: Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"',
    ]);
    // 1.23 reports at the list's path, without the index, once per bad mode.
    expect(messages(validateCSIDriver(driver({ volumeLifecycleModes: ["Persistent", "persistent", "Bogus"] })))).toEqual([
      'spec.volumeLifecycleModes: Unsupported value: "persistent": supported values: "Persistent", "Ephemeral"',
      'spec.volumeLifecycleModes: Unsupported value: "Bogus": supported values: "Persistent", "Ephemeral"',
    ]);
  });

  describe("tokenRequests", () => {
    it("accepts distinct audiences, one empty audience and the expiration bounds", () => {
      const d = driver({
        tokenRequests: [{ audience: "" }, { audience: "a", expirationSeconds: 600 }, { audience: "b", expirationSeconds: 2 ** 32 }],
      });
      expect(validateCSIDriver(d)).toEqual([]);
    });

    it("rejects duplicate audiences, including a second empty one", () => {
      const d = driver({ tokenRequests: [{ audience: "" }, { audience: "x" }, { audience: "" }, { audience: "x" }] });
      expect(messages(validateCSIDriver(d))).toEqual([
        'spec.tokenRequests[2].audience: Duplicate value: ""',
        'spec.tokenRequests[3].audience: Duplicate value: "x"',
      ]);
    });

    it("rejects expirations below 10 minutes and above 2^32 seconds", () => {
      const d = driver({ tokenRequests: [{ audience: "a", expirationSeconds: 599 }, { audience: "b", expirationSeconds: 2 ** 32 + 1 }] });
      expect(messages(validateCSIDriver(d))).toEqual([
        "spec.tokenRequests[0].expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes",
        "spec.tokenRequests[1].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds",
      ]);
    });
  });
});

describe("validateCSIDriverUpdate", () => {
  const old = driver({ tokenRequests: [{ audience: "a" }] });
  old.metadata = { ...old.metadata, uid: "u1", resourceVersion: "1", creationTimestamp: "2024-01-01T00:00:00Z" };

  function updated(mut: (d: CSIDriver) => void): CSIDriver {
    const d = structuredClone(old);
    mut(d);
    return d;
  }

  it("accepts an unchanged driver and changes to the mutable fields", () => {
    expect(validateCSIDriverUpdate(structuredClone(old), old)).toEqual([]);
    const d = updated((x) => {
      x.spec.requiresRepublish = true;
      x.spec.storageCapacity = true;
      x.spec.tokenRequests = [{ audience: "b", expirationSeconds: 3600 }];
    });
    expect(validateCSIDriverUpdate(d, old)).toEqual([]);
  });

  it.each([
    ["attachedRequired", (d: CSIDriver): void => void (d.spec.attachRequired = false), "false"],
    ["podInfoOnMount", (d: CSIDriver): void => void (d.spec.podInfoOnMount = true), "true"],
    ["fsGroupPolicy", (d: CSIDriver): void => void (d.spec.fsGroupPolicy = "File"), '"File"'],
    ["volumeLifecycleModes", (d: CSIDriver): void => void (d.spec.volumeLifecycleModes = ["Ephemeral"]), '[]storage.VolumeLifecycleMode{"Ephemeral"}'],
  ] as const)("rejects a change at 1.23's path spec.%s", (fieldName, mut, shown) => {
    const errs = validateCSIDriverUpdate(updated(mut), old);
    expect(errs.map((e) => [e.type, e.field])).toEqual([["FieldValueInvalid", `spec.${fieldName}`]]);
    expect(messages(errs)).toEqual([`spec.${fieldName}: Invalid value: ${shown}: field is immutable`]);
  });

  it("still validates the new spec and the metadata update", () => {
    const d = updated((x) => {
      x.spec.tokenRequests = [{ audience: "a" }, { audience: "a" }];
      x.metadata = { ...x.metadata, name: "other.example.com" };
    });
    const fields = validateCSIDriverUpdate(d, old).map((e) => e.field);
    expect(fields).toContain("spec.tokenRequests[1].audience");
    expect(fields).toContain("metadata.name");
  });
});
