import { FieldErrorType, fieldPath, formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { ObjectMeta, OwnerReference } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { nameIsDNSLabel, nameIsDNSSubdomain } from "./names.js";
import {
  totalAnnotationSizeLimitBytes,
  validateAnnotations,
  validateFinalizers,
  validateManagedFields,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from "./objectmeta.js";

const namespaced = { namespaced: true, nameValidator: nameIsDNSSubdomain };
const cluster = { namespaced: false, nameValidator: nameIsDNSLabel };
const meta = (m: unknown) => m as ObjectMeta;
const fields = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);

describe("validateObjectMeta", () => {
  it("accepts a valid namespaced object", () => {
    expect(
      validateObjectMeta(
        meta({
          name: "web",
          namespace: "default",
          generateName: "web-",
          labels: { app: "web" },
          annotations: { "example.io/note": "x" },
          finalizers: ["example.io/f"],
          ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "j", uid: "u", controller: true }],
        }),
        namespaced,
      ),
    ).toEqual([]);
  });

  it("requires a name, with Kubernetes' wording", () => {
    const errs = validateObjectMeta(meta({ namespace: "default" }), namespaced);
    expect(errs).toEqual([
      { type: FieldErrorType.Required, field: "metadata.name", detail: "name or generateName is required" },
    ]);
    expect(formatFieldError(errs[0] as FieldError)).toBe("metadata.name: Required value: name or generateName is required");
    expect(fields(validateObjectMeta(undefined, namespaced))).toEqual([
      "FieldValueRequired metadata.name",
      "FieldValueRequired metadata.namespace",
    ]);
  });

  it("checks name and generateName with the kind's rule", () => {
    const errs = validateObjectMeta(meta({ name: "Bad_Name", generateName: "Bad-", namespace: "default" }), namespaced);
    expect(fields(errs)).toEqual(["FieldValueInvalid metadata.generateName", "FieldValueInvalid metadata.name"]);
    expect(errs[1]?.badValue).toBe("Bad_Name");
  });

  it("requires a DNS-label namespace when namespaced and forbids one otherwise", () => {
    expect(fields(validateObjectMeta(meta({ name: "a", namespace: "a.b" }), namespaced))).toEqual([
      "FieldValueInvalid metadata.namespace",
    ]);
    const errs = validateObjectMeta(meta({ name: "a", namespace: "default" }), cluster);
    expect(errs).toEqual([{ type: FieldErrorType.Forbidden, field: "metadata.namespace", detail: "not allowed on this type" }]);
  });

  it("rejects a negative generation", () => {
    const errs = validateObjectMeta(meta({ name: "a", namespace: "d", generation: -1 }), namespaced);
    expect(errs).toEqual([
      { type: FieldErrorType.Invalid, field: "metadata.generation", badValue: -1, detail: "must be greater than or equal to 0" },
    ]);
  });

  it("validates labels, annotations, owner references, finalizers and managed fields at their paths", () => {
    const errs = validateObjectMeta(
      meta({
        name: "a",
        namespace: "d",
        labels: { "bad key": "v" },
        annotations: { "bad key": "v" },
        ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "" }],
        finalizers: ["bad finalizer"],
        managedFields: [{ manager: "m", operation: "Patch" }],
      }),
      namespaced,
    );
    expect(fields(errs)).toEqual([
      "FieldValueInvalid metadata.labels",
      "FieldValueInvalid metadata.annotations",
      "FieldValueInvalid metadata.ownerReferences.uid",
      "FieldValueInvalid metadata.finalizers",
      "FieldValueInvalid metadata.managedFields[0].operation",
    ]);
  });

  it("never throws on malformed metadata", () => {
    expect(() => validateObjectMeta(meta({ name: 5, labels: [1], ownerReferences: [null], finalizers: [7] }), namespaced)).not.toThrow();
  });
});

describe("validateAnnotations", () => {
  const p = fieldPath("metadata", "annotations");

  it("compares keys case-insensitively", () => {
    expect(validateAnnotations({ "Example.IO/Key": "v" }, p)).toEqual([]);
  });

  it("limits the total size to 256 KiB with Kubernetes' Too long wording", () => {
    const atLimit = { k: "v".repeat(totalAnnotationSizeLimitBytes - 1) };
    expect(validateAnnotations(atLimit, p)).toEqual([]);
    const errs = validateAnnotations({ k: "v".repeat(totalAnnotationSizeLimitBytes) }, p);
    expect(errs).toEqual([{ type: FieldErrorType.TooLong, field: "metadata.annotations", detail: "must have at most 262144 bytes" }]);
    expect(formatFieldError(errs[0] as FieldError)).toBe("metadata.annotations: Too long: must have at most 262144 bytes");
  });

  it("counts UTF-8 bytes", () => {
    expect(validateAnnotations({ k: "é".repeat(totalAnnotationSizeLimitBytes / 2) }, p)).toHaveLength(1);
  });
});

describe("validateOwnerReferences", () => {
  const p = fieldPath("metadata", "ownerReferences");
  const refs = (r: unknown) => r as OwnerReference[];

  it("requires apiVersion with a version, kind, name and uid (paths not indexed)", () => {
    const errs = validateOwnerReferences(refs([{ apiVersion: "batch/", kind: "", name: "", uid: "" }]), p);
    expect(errs.map((e) => [e.field, e.detail])).toEqual([
      ["metadata.ownerReferences.apiVersion", "version must not be empty"],
      ["metadata.ownerReferences.kind", "kind must not be empty"],
      ["metadata.ownerReferences.name", "name must not be empty"],
      ["metadata.ownerReferences.uid", "uid must not be empty"],
    ]);
  });

  it("bans core/v1 Event owners", () => {
    const errs = validateOwnerReferences(refs([{ apiVersion: "v1", kind: "Event", name: "e", uid: "u" }]), p);
    expect(errs[0]?.detail).toBe("/v1, Kind=Event is disallowed from being an owner");
  });

  it("allows at most one controller", () => {
    const errs = validateOwnerReferences(
      refs([
        { apiVersion: "batch/v1", kind: "Job", name: "a", uid: "1", controller: true },
        { apiVersion: "batch/v1", kind: "Job", name: "b", uid: "2", controller: false },
        { apiVersion: "batch/v1", kind: "Job", name: "c", uid: "3", controller: true },
      ]),
      p,
    );
    expect(errs).toHaveLength(1);
    expect(errs[0]?.field).toBe("metadata.ownerReferences");
    expect(errs[0]?.detail).toBe('Only one reference can have Controller set to true. Found "true" in references for Job/a and Job/c');
  });
});

describe("validateFinalizers", () => {
  const p = fieldPath("metadata", "finalizers");

  it("accepts qualified names", () => {
    expect(validateFinalizers(["kubernetes", "example.io/x", "foregroundDeletion"], p)).toEqual([]);
  });

  it("rejects orphan together with foregroundDeletion", () => {
    const errs = validateFinalizers(["orphan", "foregroundDeletion"], p);
    expect(errs).toEqual([
      {
        type: FieldErrorType.Invalid,
        field: "metadata.finalizers",
        badValue: ["orphan", "foregroundDeletion"],
        detail: "finalizer orphan and foregroundDeletion cannot be both set",
      },
    ]);
  });

  it("rejects duplicates and malformed names", () => {
    expect(fields(validateFinalizers(["a/b", "a/b", "x y"], p))).toEqual([
      "FieldValueDuplicate metadata.finalizers[1]",
      "FieldValueInvalid metadata.finalizers",
    ]);
  });
});

describe("validateManagedFields", () => {
  const p = fieldPath("metadata", "managedFields");
  it("checks operation, fieldsType, manager and subresource", () => {
    expect(validateManagedFields([{ manager: "kubectl", operation: "Apply", fieldsType: "FieldsV1" }], p)).toEqual([]);
    const errs = validateManagedFields(
      [{ manager: `m\u0007${"x".repeat(128)}`, operation: "Update", fieldsType: "FieldsV2", subresource: "s".repeat(257) }],
      p,
    );
    expect(errs.map((e) => [e.type, e.field, e.detail])).toEqual([
      [FieldErrorType.Invalid, "metadata.managedFields[0].fieldsType", "must be `FieldsV1`"],
      [FieldErrorType.TooLong, "metadata.managedFields[0].manager", "must have at most 128 bytes"],
      [FieldErrorType.Invalid, "metadata.managedFields[0].manager", "invalid character U+0007 (at position 1)"],
      [FieldErrorType.TooLong, "metadata.managedFields[0].subresource", "must have at most 256 bytes"],
    ]);
  });
});

describe("validateObjectMetaUpdate", () => {
  const old = meta({
    name: "a",
    namespace: "d",
    uid: "u1",
    resourceVersion: "5",
    generation: 2,
    creationTimestamp: "2024-01-01T00:00:00Z",
    finalizers: ["example.io/f"],
  });

  it("accepts an update that keeps the immutable fields", () => {
    expect(
      validateObjectMetaUpdate(meta({ ...old, labels: { a: "b" }, creationTimestamp: "2024-01-01T00:00:00.000Z" }), old),
    ).toEqual([]);
  });

  it("reports immutable fields as Invalid with 'field is immutable'", () => {
    const errs = validateObjectMetaUpdate(
      meta({ ...old, name: "b", namespace: "e", uid: "u2", creationTimestamp: "2024-02-01T00:00:00Z", deletionGracePeriodSeconds: 3 }),
      old,
    );
    expect(errs.map((e) => [e.type, e.field, e.detail])).toEqual([
      [FieldErrorType.Invalid, "metadata.name", "field is immutable"],
      [FieldErrorType.Invalid, "metadata.namespace", "field is immutable"],
      [FieldErrorType.Invalid, "metadata.uid", "field is immutable"],
      [FieldErrorType.Invalid, "metadata.creationTimestamp", "field is immutable"],
      [FieldErrorType.Invalid, "metadata.deletionGracePeriodSeconds", "field is immutable"],
    ]);
    expect(errs[0]?.badValue).toBe("b");
  });

  it("requires a resourceVersion and forbids decrementing generation", () => {
    const errs = validateObjectMetaUpdate(meta({ ...old, resourceVersion: "", generation: 1 }), old);
    expect(errs).toEqual([
      { type: FieldErrorType.Invalid, field: "metadata.resourceVersion", badValue: "", detail: "must be specified for an update" },
      { type: FieldErrorType.Invalid, field: "metadata.generation", badValue: 1, detail: "must not be decremented" },
    ]);
  });

  it("forbids new finalizers once the object is being deleted, and changing deletionTimestamp", () => {
    const deleting = meta({ ...old, deletionTimestamp: "2024-03-01T00:00:00Z" });
    const errs = validateObjectMetaUpdate(meta({ ...deleting, finalizers: ["example.io/f", "z/z", "b/b"] }), deleting);
    expect(errs).toEqual([
      {
        type: FieldErrorType.Forbidden,
        field: "metadata.finalizers",
        detail: 'no new finalizers can be added if the object is being deleted, found new finalizers []string{"b/b", "z/z"}',
      },
    ]);
    // Removing finalizers is fine.
    expect(validateObjectMetaUpdate(meta({ ...deleting, finalizers: [] }), deleting)).toEqual([]);
    expect(fields(validateObjectMetaUpdate(meta({ ...old, deletionTimestamp: "2024-03-01T00:00:00Z" }), old))).toEqual([
      "FieldValueInvalid metadata.deletionTimestamp",
    ]);
  });

  it("re-validates labels, annotations and owner references, at a custom path", () => {
    const errs = validateObjectMetaUpdate(meta({ ...old, labels: { "bad key": "" } }), old, fieldPath("spec", "template", "metadata"));
    expect(fields(errs)).toEqual(["FieldValueInvalid spec.template.metadata.labels"]);
  });
});
