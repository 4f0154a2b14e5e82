import { describe, expect, it } from "vitest";
import {
  FieldErrorType,
  duplicate,
  fieldPath,
  forbidden,
  formatFieldError,
  formatFieldErrorBody,
  formatFieldErrors,
  internalError,
  invalid,
  notFound,
  notSupported,
  required,
  tooLong,
  tooMany,
} from "./field-errors.js";

// Expected strings follow k8s.io/apimachinery/pkg/util/validation/field/errors.go (1.23).
describe("formatFieldError", () => {
  it("prints type text, Go-quoted string values and the detail", () => {
    expect(formatFieldError(invalid("metadata.name", "Pi", "must be lowercase"))).toBe('metadata.name: Invalid value: "Pi": must be lowercase');
  });

  it("prints numbers and booleans as Go's %v", () => {
    expect(formatFieldError(invalid("spec.parallelism", -1, "must be greater than or equal to 0"))).toBe(
      "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
    );
    expect(formatFieldError(invalid("spec.suspend", true, "x"))).toBe("spec.suspend: Invalid value: true: x");
    expect(formatFieldError(invalid("f", 1.5, ""))).toBe("f: Invalid value: 1.5");
    expect(formatFieldError(invalid("f", 0.00001, ""))).toBe("f: Invalid value: 1e-05");
  });

  it("prints null as null and objects as JSON", () => {
    expect(formatFieldError(invalid("f", null, "d"))).toBe("f: Invalid value: null: d");
    expect(formatFieldError(invalid("f", { a: [1] }, "d"))).toBe('f: Invalid value: {"a":[1]}: d');
    expect(formatFieldError(invalid("f", [1, "a"], "d"))).toBe('f: Invalid value: [1,"a"]: d');
    expect(formatFieldError(invalid("f", [], "d"))).toBe("f: Invalid value: []: d");
  });

  it("prints lists of strings as Go's []string", () => {
    expect(formatFieldError(invalid("f", ["a", 'b"'], "d"))).toBe('f: Invalid value: []string{"a", "b\\""}: d');
  });

  it("quotes like strconv.Quote (escapes, control characters, unicode kept)", () => {
    expect(formatFieldError(invalid("f", 'a"b\\c\n\t\x01\x7f', ""))).toBe('f: Invalid value: "a\\"b\\\\c\\n\\t\\x01\\x7f"');
    expect(formatFieldError(invalid("f", "héllo", ""))).toBe('f: Invalid value: "héllo"');
  });

  it("omits the value for Required, Forbidden, TooLong and Internal", () => {
    expect(formatFieldError(required("spec.template", ""))).toBe("spec.template: Required value");
    expect(formatFieldError(required("spec.template", "must be set"))).toBe("spec.template: Required value: must be set");
    expect(formatFieldError(forbidden("spec.selector", "field is immutable"))).toBe("spec.selector: Forbidden: field is immutable");
    expect(formatFieldError(tooLong("metadata.annotations", "x".repeat(10), 5))).toBe("metadata.annotations: Too long: must have at most 5 bytes");
    expect(formatFieldError(internalError("spec", new Error("boom")))).toBe("spec: Internal error: boom");
    expect(formatFieldError(internalError("spec", "plain"))).toBe("spec: Internal error: plain");
  });

  it("shows the actual count for TooMany, as 1.23 does", () => {
    expect(formatFieldError(tooMany("spec.items", 5, 3))).toBe("spec.items: Too many: 5: must have at most 3 items");
  });

  it("lists supported values with Go quoting", () => {
    expect(formatFieldError(notSupported("spec.completionMode", "Foo", ["Indexed", "NonIndexed"]))).toBe(
      'spec.completionMode: Unsupported value: "Foo": supported values: "Indexed", "NonIndexed"',
    );
    expect(formatFieldError(notSupported("f", "x", []))).toBe('f: Unsupported value: "x"');
  });

  it("formats Duplicate and NotFound with their value and no detail", () => {
    expect(formatFieldError(duplicate("spec.containers[1].name", "a"))).toBe('spec.containers[1].name: Duplicate value: "a"');
    expect(formatFieldError(notFound("spec.volumes[0]", "v"))).toBe('spec.volumes[0]: Not found: "v"');
  });

  it("leaves out an absent bad value", () => {
    expect(formatFieldErrorBody({ type: FieldErrorType.Invalid, field: "f", detail: "bad" })).toBe("Invalid value: bad");
    expect(formatFieldErrorBody({ type: FieldErrorType.TypeInvalid, field: "f", badValue: "x", detail: "" })).toBe('Invalid value: "x"');
  });

  it("keeps every error type's Kubernetes name", () => {
    expect(Object.values(FieldErrorType).sort()).toEqual(
      [
        "FieldValueDuplicate",
        "FieldValueForbidden",
        "FieldValueInvalid",
        "FieldValueNotFound",
        "FieldValueNotSupported",
        "FieldValueRequired",
        "FieldValueTooLong",
        "FieldValueTooMany",
        "FieldValueTypeInvalid",
        "InternalError",
      ].sort(),
    );
  });
});

describe("formatFieldErrors", () => {
  it("aggregates like ToAggregate().Error()", () => {
    const a = required("a");
    const b = invalid("b", 1, "x");
    expect(formatFieldErrors([])).toBe("");
    expect(formatFieldErrors([a])).toBe("a: Required value");
    expect(formatFieldErrors([a, b])).toBe("[a: Required value, b: Invalid value: 1: x]");
    expect(formatFieldErrors([a, a])).toBe("a: Required value");
    expect(formatFieldErrors([a, b, a])).toBe("[a: Required value, b: Invalid value: 1: x]");
  });
});

describe("FieldPath", () => {
  it("builds dotted paths with indexes and keys", () => {
    expect(fieldPath("spec").child("template", "spec").child("containers").index(0).child("image").toString()).toBe(
      "spec.template.spec.containers[0].image",
    );
    expect(fieldPath("metadata").child("labels").key("app").toString()).toBe("metadata.labels[app]");
    expect(fieldPath().child("spec").toString()).toBe("spec");
  });

  it("is immutable", () => {
    const p = fieldPath("spec");
    p.child("x");
    p.index(1);
    expect(p.toString()).toBe("spec");
  });
});
