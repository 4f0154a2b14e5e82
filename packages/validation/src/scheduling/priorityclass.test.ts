import type { PriorityClass } from "@skiff/api-types";
import { formatFieldError } from "@skiff/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeObject } from "../decode.js";
import { applyDefaults } from "../defaults/apply.js";
import { validateObject, validateObjectUpdate } from "../validate.js";
import { knownSystemPriorityClass, validatePriorityClass, validatePriorityClassUpdate } from "./priorityclass.js";

const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({
  apiVersion: "scheduling.k8s.io/v1",
  kind: "PriorityClass",
  metadata: { name },
  value,
  ...extra,
});

const msgs = (p: PriorityClass, old?: PriorityClass) => (old ? validatePriorityClassUpdate(p, old) : validatePriorityClass(p)).map(formatFieldError);
const withRV = (p: PriorityClass): PriorityClass => ({ ...p, metadata: { ...p.metadata, resourceVersion: "3" } });

describe("validatePriorityClass (1.23's ValidatePriorityClass)", () => {
  it("accepts user classes up to 1000000000, negative values, both policies, and the built-in classes exactly", () => {
    expect(msgs(pc("high", 1_000_000_000, { globalDefault: true, description: "x", preemptionPolicy: "Never" }))).toEqual([]);
    expect(msgs(pc("low", -10, { preemptionPolicy: "PreemptLowerPriority" }))).toEqual([]);
    expect(msgs(pc("system-node-critical", 2_000_001_000))).toEqual([]);
    expect(msgs(pc("system-cluster-critical", 2_000_000_000, { globalDefault: false }))).toEqual([]);
  });

  it("refuses values above the user maximum and reserved system- names, with 1.23's messages", () => {
    expect(msgs(pc("too-high", 1_000_000_001))).toEqual(["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]);
    expect(msgs(pc("system-mine", 5))).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
    expect(msgs(pc("system-node-critical", 7))).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
    ]);
    expect(msgs(pc("system-cluster-critical", 2_000_000_000, { globalDefault: true }))).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false",
    ]);
    expect(knownSystemPriorityClass("system-node-critical", 2_000_001_000, false)).toBeUndefined();
  });

  it("checks the preemption policy and the name", () => {
    expect(msgs(pc("p", 1, { preemptionPolicy: "Sometimes" as never }))).toEqual(['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']);
    expect(msgs(pc("p", 1, { preemptionPolicy: "" as never }))).toEqual(["preemptionPolicy: Required value"]);
    expect(validatePriorityClass(pc("Not_A_Name", 1)).map((e) => e.field)).toEqual(["metadata.name"]);
    expect(validatePriorityClass({ ...pc("p", 1), metadata: { name: "p", namespace: "default" } }).map((e) => e.field)).toEqual(["metadata.namespace"]);
  });

  it("on update: value and preemptionPolicy are immutable; description and globalDefault may change", () => {
    const old = withRV(pc("p", 100, { preemptionPolicy: "PreemptLowerPriority" }));
    expect(msgs({ ...old, description: "now described", globalDefault: true }, old)).toEqual([]);
    expect(msgs({ ...old, value: 101 }, old)).toEqual(["value: Forbidden: may not be changed in an update."]);
    expect(msgs({ ...old, preemptionPolicy: "Never" }, old)).toEqual(['preemptionPolicy: Invalid value: "Never": field is immutable']);
  });

  it("is dispatched by validateObject and validateObjectUpdate", () => {
    expect(validateObject("PriorityClass", pc("x", 2_000_000_000)).map((e) => e.field)).toEqual(["value"]);
    expect(validateObjectUpdate("PriorityClass", withRV(pc("x", 2)), withRV(pc("x", 1))).map((e) => e.field)).toEqual(["value"]);
  });
});

describe("decodeObject PriorityClass", () => {
  it("an absent value decodes as 0 (Go's zero value); defaulting sets PreemptLowerPriority", () => {
    const r = decodeObject("PriorityClass", { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "zero" } }, { fieldValidation: "Strict" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    applyDefaults("PriorityClass", r.value);
    expect(r.value).toMatchObject({ value: 0, preemptionPolicy: "PreemptLowerPriority" });
    expect(validatePriorityClass(r.value)).toEqual([]);
  });

  it("refuses wrongly typed members naming the field, and reports unknown ones", () => {
    const bad = decodeObject("PriorityClass", { metadata: { name: "x" }, value: "10" }, { fieldValidation: "Strict" });
    expect(bad.ok === false && bad.errors.map((e) => e.field)).toEqual(["value"]);
    expect(decodeObject("PriorityClass", { metadata: { name: "x" }, value: 2 ** 31 }, { fieldValidation: "Strict" }).ok).toBe(false);
    expect(decodeObject("PriorityClass", { metadata: { name: "x" }, value: 1, globalDefault: "yes" }, { fieldValidation: "Strict" }).ok).toBe(false);
    const unknown = decodeObject("PriorityClass", { metadata: { name: "x" }, value: 1, priority: 5 }, { fieldValidation: "Warn" });
    expect(unknown.ok && unknown.unknownFields).toEqual(["priority"]);
  });

  it("any JSON body decodes or is refused with field errors, then validates, and never throws", () => {
    const member = fc.oneof(fc.integer({ min: -(2 ** 32), max: 2 ** 32 }), fc.string({ maxLength: 12 }), fc.boolean(), fc.constant(null), fc.constantFrom("Never", "PreemptLowerPriority", ""));
    fc.assert(
      fc.property(
        fc.record({ metadata: fc.record({ name: fc.oneof(fc.constantFrom("p", "system-node-critical", "system-x"), fc.string({ maxLength: 8 })) }), value: member, globalDefault: member, description: member, preemptionPolicy: member }, { requiredKeys: ["metadata"] }),
        (body) => {
          const r = decodeObject("PriorityClass", body, { fieldValidation: "Strict" });
          if (!r.ok) {
            expect(r.errors.length).toBeGreaterThan(0);
            return;
          }
          applyDefaults("PriorityClass", r.value);
          for (const e of validatePriorityClass(r.value)) expect(typeof e.field).toBe("string");
        },
      ),
      { numRuns: 500 },
    );
  });
});
