import { FieldErrorType, fieldPath } from "@skiff/apimachinery";
import type { LabelSelector } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { validateLabelName, validateLabelSelector, validateLabels } from "./labels.js";

const p = fieldPath("metadata", "labels");

describe("validateLabels", () => {
  it("accepts valid keys and values, including empty values and prefixes", () => {
    expect(validateLabels({ app: "web", "example.io/tier": "", "a.b/c_d": "x.y-z" }, p)).toEqual([]);
    expect(validateLabels(undefined, p)).toEqual([]);
  });

  it("reports bad keys and values at the map path", () => {
    const errs = validateLabels({ "bad key": "ok", good: "bad value", "-x": "y" }, p);
    expect(errs.map((e) => [e.type, e.field, e.badValue])).toEqual([
      [FieldErrorType.Invalid, "metadata.labels", "bad key"],
      [FieldErrorType.Invalid, "metadata.labels", "bad value"],
      [FieldErrorType.Invalid, "metadata.labels", "-x"],
    ]);
    expect(errs[1]?.detail).toContain("a valid label must be an empty string");
  });

  it("rejects long values and keys", () => {
    expect(validateLabels({ a: "v".repeat(64) }, p)[0]?.detail).toBe("must be no more than 63 characters");
    expect(validateLabelName("k".repeat(64), p)[0]?.detail).toBe("name part must be no more than 63 characters");
    expect(validateLabelName("Bad_Prefix/k", p)[0]?.detail).toContain("prefix part");
  });

  it("does not throw on malformed maps", () => {
    expect(validateLabels(["x"] as unknown as Record<string, string>, p)).toEqual([]);
    expect(validateLabels({ a: 5 } as unknown as Record<string, string>, p)).toEqual([]);
  });
});

describe("validateLabelSelector", () => {
  const sp = fieldPath("spec", "selector");
  const sel = (s: unknown) => s as LabelSelector;

  it("accepts undefined and valid selectors", () => {
    expect(validateLabelSelector(undefined, sp)).toEqual([]);
    expect(
      validateLabelSelector(
        sel({
          matchLabels: { app: "web" },
          matchExpressions: [
            { key: "tier", operator: "In", values: ["a", "b"] },
            { key: "x", operator: "DoesNotExist" },
          ],
        }),
        sp,
      ),
    ).toEqual([]);
  });

  it("requires values for In/NotIn", () => {
    const errs = validateLabelSelector(sel({ matchExpressions: [{ key: "a", operator: "NotIn", values: [] }] }), sp);
    expect(errs).toEqual([
      {
        type: FieldErrorType.Required,
        field: "spec.selector.matchExpressions[0].values",
        detail: "must be specified when `operator` is 'In' or 'NotIn'",
      },
    ]);
  });

  it("forbids values for Exists/DoesNotExist", () => {
    const errs = validateLabelSelector(sel({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }), sp);
    expect(errs).toEqual([
      {
        type: FieldErrorType.Forbidden,
        field: "spec.selector.matchExpressions[0].values",
        detail: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      },
    ]);
  });

  it("rejects unknown operators, bad keys, bad values and bad matchLabels", () => {
    const errs = validateLabelSelector(
      sel({
        matchLabels: { "bad key": "v" },
        matchExpressions: [
          { key: "a", operator: "Gt", values: ["1"] },
          { key: "bad key", operator: "In", values: ["ok", "not ok"] },
        ],
      }),
      sp,
    );
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      "FieldValueInvalid spec.selector.matchLabels",
      "FieldValueInvalid spec.selector.matchExpressions[0].operator",
      "FieldValueInvalid spec.selector.matchExpressions[1].key",
      "FieldValueInvalid spec.selector.matchExpressions[1].values[1]",
    ]);
    expect(errs[1]?.detail).toBe("not a valid selector operator");
  });
});
