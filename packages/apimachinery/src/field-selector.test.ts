import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeFieldSelectorValue, fieldSelectorFromSet, parseFieldSelector, unescapeFieldSelectorValue } from "./field-selector.js";
import type { FieldSelector } from "./field-selector.js";

function parse(text: string): FieldSelector {
  const r = parseFieldSelector(text);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe("parseFieldSelector", () => {
  it("selects everything when empty", () => {
    const s = parse("");
    expect(s.empty()).toBe(true);
    expect(s.matches({})).toBe(true);
    expect(s.toString()).toBe("");
    expect(parse(",,").empty()).toBe(true);
  });

  it("parses =, == and != terms, sorted by their text", () => {
    const s = parse("status.phase!=Running,metadata.name==pi,metadata.namespace=default");
    expect(s.requirements()).toEqual([
      { field: "metadata.name", operator: "=", value: "pi" },
      { field: "metadata.namespace", operator: "=", value: "default" },
      { field: "status.phase", operator: "!=", value: "Running" },
    ]);
    expect(s.toString()).toBe("metadata.name=pi,metadata.namespace=default,status.phase!=Running");
  });

  it("matches fields, missing fields counting as empty", () => {
    const s = parse("metadata.name=pi,status.phase!=Running");
    expect(s.matches({ "metadata.name": "pi", "status.phase": "Pending" })).toBe(true);
    expect(s.matches({ "metadata.name": "pi", "status.phase": "Running" })).toBe(false);
    expect(s.matches({ "metadata.name": "pi" })).toBe(true);
    expect(s.matches({})).toBe(false);
    expect(parse("spec.nodeName=").matches({})).toBe(true);
    expect(parse("spec.nodeName!=").matches({ "spec.nodeName": "n1" })).toBe(true);
    expect(parse("constructor=").matches({})).toBe(true);
  });

  it("splits a term at its first operator", () => {
    expect(parse("a=!x").requirements()).toEqual([{ field: "a", operator: "=", value: "!x" }]);
    expect(parse("a!=b").requirements()).toEqual([{ field: "a", operator: "!=", value: "b" }]);
    expect(parse("a==b").requirements()).toEqual([{ field: "a", operator: "=", value: "b" }]);
    expect(parse("=x").requirements()).toEqual([{ field: "", operator: "=", value: "x" }]);
    expect(parse(" a = b ").requirements()).toEqual([{ field: " a ", operator: "=", value: " b " }]);
  });

  it("unescapes values and escapes them back", () => {
    const s = parse("metadata.name=a\\,b\\=c\\\\d");
    expect(s.requirements()).toEqual([{ field: "metadata.name", operator: "=", value: "a,b=c\\d" }]);
    expect(s.toString()).toBe("metadata.name=a\\,b\\=c\\\\d");
    expect(parse("a=x\\,y,b=z").requirements().map((r) => r.value)).toEqual(["x,y", "z"]);
  });

  it("reports errors with Kubernetes' wording", () => {
    expect(parseFieldSelector("status.state")).toEqual({ ok: false, error: "invalid selector: 'status.state'; can't understand 'status.state'" });
    expect(parseFieldSelector("a=b,dirty")).toEqual({ ok: false, error: "invalid selector: 'a=b,dirty'; can't understand 'dirty'" });
    expect(parseFieldSelector("a=b=c")).toEqual({ ok: false, error: "invalid field selector: unescaped character in value: 61" });
    expect(parseFieldSelector("a!==b")).toEqual({ ok: false, error: "invalid field selector: unescaped character in value: 61" });
    expect(parseFieldSelector("a=b\\x")).toEqual({ ok: false, error: "invalid field selector: invalid escape sequence: \\x" });
    expect(parseFieldSelector("a=b\\")).toEqual({ ok: false, error: "invalid field selector: invalid escape sequence: \\" });
  });

  it("answers requiresExactMatch for = terms only", () => {
    const s = parse("metadata.name=pi,spec.nodeName!=n1");
    expect(s.requiresExactMatch("metadata.name")).toBe("pi");
    expect(s.requiresExactMatch("spec.nodeName")).toBeUndefined();
    expect(s.requiresExactMatch("other")).toBeUndefined();
  });

  it("transforms fields and values into a new selector", () => {
    const s = parse("spec.host=n1,metadata.name!=x");
    const t = s.transform((field, value) => ({ field: field === "spec.host" ? "spec.nodeName" : field, value: value.toUpperCase() }));
    expect(t.toString()).toBe("metadata.name!=X,spec.nodeName=N1");
    expect(s.toString()).toBe("metadata.name!=x,spec.host=n1");
    expect(() =>
      s.transform((field) => {
        throw new Error(`field label not supported: ${field}`);
      }),
    ).toThrow("field label not supported: metadata.name");
  });

  it("round-trips any values through toString", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z][a-z.]{0,10}$/), fc.string(), { maxKeys: 4 }), (fields) => {
        const s = fieldSelectorFromSet(fields);
        const again = parse(s.toString());
        const byField = (rs: readonly { field: string }[]) => [...rs].sort((a, b) => (a.field < b.field ? -1 : 1));
        expect(byField(again.requirements())).toEqual(byField(s.requirements()));
        expect(again.matches(fields)).toBe(true);
      }),
    );
  });
});

describe("escape and unescape", () => {
  it("are inverse", () => {
    fc.assert(
      fc.property(fc.string(), (v) => {
        expect(unescapeFieldSelectorValue(escapeFieldSelectorValue(v))).toEqual({ ok: true, value: v });
      }),
    );
  });

  it("leave plain values alone", () => {
    expect(escapeFieldSelectorValue("abc")).toBe("abc");
    expect(unescapeFieldSelectorValue("abc")).toEqual({ ok: true, value: "abc" });
  });
});

describe("fieldSelectorFromSet", () => {
  it("requires every field, sorted by name", () => {
    const s = fieldSelectorFromSet({ "spec.nodeName": "n1", "metadata.name": "pi" });
    expect(s.toString()).toBe("metadata.name=pi,spec.nodeName=n1");
    expect(s.matches({ "metadata.name": "pi", "spec.nodeName": "n1" })).toBe(true);
    expect(s.matches({ "metadata.name": "pi" })).toBe(false);
  });
});
