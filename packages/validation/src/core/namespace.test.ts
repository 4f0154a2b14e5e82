/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import { formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { Namespace } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { setNamespaceDefaults } from "./defaults.js";
import { validateNamespace, validateNamespaceFinalizeUpdate, validateNamespaceStatusUpdate, validateNamespaceUpdate } from "./namespace.js";

type Obj = Record<string, any>;
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const ns = (patch: (n: Obj) => void = () => {}): Namespace => {
  const n: Obj = { metadata: { name: "team-a", resourceVersion: "1" }, spec: { finalizers: ["kubernetes"] } };
  setNamespaceDefaults(n as Namespace);
  patch(n);
  return n as Namespace;
};

describe("setNamespaceDefaults", () => {
  it("sets phase and the name label", () => {
    expect(ns()).toEqual({
      metadata: { name: "team-a", resourceVersion: "1", labels: { "example.io/metadata.name": "team-a" } },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    });
  });

  it("never adds or removes finalizers (the strategy adds `kubernetes` at create only)", () => {
    const n: Obj = { metadata: { name: "x" }, spec: { finalizers: ["example.io/f"] } };
    setNamespaceDefaults(n as Namespace);
    setNamespaceDefaults(n as Namespace);
    expect(n["spec"].finalizers).toEqual(["example.io/f"]);
    const emptied: Obj = { metadata: { name: "x" }, spec: { finalizers: [] } };
    setNamespaceDefaults(emptied as Namespace);
    expect(emptied["spec"].finalizers).toEqual([]);
    const bare: Obj = { metadata: { name: "x" } };
    setNamespaceDefaults(bare as Namespace);
    expect(bare["spec"]).toBeUndefined();
    const d: Obj = { metadata: { name: "x", deletionTimestamp: "2024-01-01T00:00:00Z" }, spec: { finalizers: [] }, status: { phase: "Terminating" } };
    setNamespaceDefaults(d as Namespace);
    expect(d["spec"].finalizers).toEqual([]);
    expect(d["status"].phase).toBe("Terminating");
  });
});

describe("validateNamespace", () => {
  it("accepts a defaulted namespace", () => {
    expect(validateNamespace(ns())).toEqual([]);
  });

  it("requires a DNS-label name and no namespace", () => {
    expect(summary(validateNamespace(ns((n) => ((n["metadata"].name = "a.b"), (n["metadata"].namespace = "x")))))).toEqual([
      "FieldValueInvalid metadata.name",
      "FieldValueForbidden metadata.namespace",
    ]);
  });

  it("checks spec.finalizers names", () => {
    const errs = validateNamespace(ns((n) => (n["spec"].finalizers = ["kubernetes", "custom", "bad name/x"])));
    expect(errs.map(formatFieldError)).toEqual([
      'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
      expect.stringContaining('spec.finalizers: Invalid value: "bad name/x": prefix part'),
    ]);
  });
});

describe("namespace updates", () => {
  const old = ns();
  it("applies metadata update rules", () => {
    const n = structuredClone(old) as Obj;
    n["metadata"].labels = { a: "b" };
    expect(validateNamespaceUpdate(n as Namespace, old)).toEqual([]);
    n["metadata"].name = "team-b";
    expect(summary(validateNamespaceUpdate(n as Namespace, old))).toEqual(["FieldValueInvalid metadata.name"]);
  });

  it("ties the phase to deletionTimestamp on status updates", () => {
    const n = structuredClone(old) as Obj;
    n["status"].phase = "Terminating";
    expect(validateNamespaceStatusUpdate(n as Namespace, old).map(formatFieldError)).toEqual([
      "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
    ]);
    const deleting = structuredClone(old) as Obj;
    deleting["metadata"].deletionTimestamp = "2024-01-01T00:00:00Z";
    const d2 = structuredClone(deleting);
    expect(summary(validateNamespaceStatusUpdate(d2 as Namespace, deleting as Namespace))).toEqual(["FieldValueInvalid status.Phase"]);
    d2["status"].phase = "Terminating";
    expect(validateNamespaceStatusUpdate(d2 as Namespace, deleting as Namespace)).toEqual([]);
  });

  it("checks finalizers on /finalize with indexed paths", () => {
    const n = structuredClone(old) as Obj;
    n["spec"].finalizers = ["nope"];
    expect(summary(validateNamespaceFinalizeUpdate(n as Namespace, old))).toEqual(["FieldValueInvalid spec.finalizers[0]"]);
  });
});
