import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FieldSet, FieldsV1Error, comparePathElements, formatFieldPath, keyElement, parseFieldsV1, valueElement } from "./field-set.js";

// Sets of up to `maxPaths` paths of 1–3 elements over a small alphabet of fields and values.
function smallSetArb(maxPaths: number): fc.Arbitrary<FieldSet> {
  const pe = fc.oneof(fc.constantFrom("a", "b", "c").map((n) => `f:${n}`), fc.constantFrom(1, 2).map((n) => valueElement(n)));
  return fc.array(fc.array(pe, { minLength: 1, maxLength: 3 }), { maxLength: maxPaths }).map((paths) => {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  });
}

describe("FieldSet and FieldsV1", () => {
  it("encodes members, children and '.' as Kubernetes does", () => {
    const s = new FieldSet();
    s.insert(["f:spec", "f:containers", 'k:{"name":"a"}']);
    s.insert(["f:spec", "f:containers", 'k:{"name":"a"}', "f:image"]);
    s.insert(["f:spec", "f:containers", 'k:{"name":"a"}', "f:name"]);
    s.insert(["f:metadata", "f:labels", "f:app"]);
    expect(s.toFieldsV1()).toEqual({
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": { "f:containers": { 'k:{"name":"a"}': { ".": {}, "f:image": {}, "f:name": {} } } },
    });
    expect(JSON.stringify(s.toFieldsV1())).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:image":{},"f:name":{}}}}}',
    );
  });

  it("round-trips through parseFieldsV1", () => {
    const v = { "f:spec": { "f:parallelism": {}, "f:template": { "f:spec": { "f:volumes": { 'k:{"name":"x"}': { ".": {}, "f:name": {} } } } } } };
    const s = parseFieldsV1(v);
    expect(s.has(["f:spec", "f:parallelism"])).toBe(true);
    expect(s.has(["f:spec"])).toBe(false);
    expect(s.has(["f:spec", "f:template", "f:spec", "f:volumes", 'k:{"name":"x"}'])).toBe(true);
    expect(s.toFieldsV1()).toEqual(v);
  });

  it("rejects malformed FieldsV1", () => {
    expect(() => parseFieldsV1([])).toThrow(FieldsV1Error);
    expect(() => parseFieldsV1({ "x:y": {} })).toThrow(/unknown prefix/);
    expect(() => parseFieldsV1({ "k:notjson": {} })).toThrow(/not JSON/);
    expect(() => parseFieldsV1({ "k:[1]": {} })).toThrow(/non-empty object/);
    expect(() => parseFieldsV1({ "f:a": 1 })).toThrow(/must be an object/);
    expect(() => parseFieldsV1({ "i:x": {} })).toThrow(FieldsV1Error);
  });

  it("sorts elements fields, keys, values, indexes", () => {
    const els = ["i:2", 'v:"b"', 'k:{"name":"b"}', "f:z", 'k:{"name":"a"}', "f:a", "i:10", 'v:"a"'];
    expect([...els].sort(comparePathElements)).toEqual(["f:a", "f:z", 'k:{"name":"a"}', 'k:{"name":"b"}', 'v:"a"', 'v:"b"', "i:2", "i:10"]);
  });

  it("formats paths as conflict messages print them", () => {
    expect(formatFieldPath(["f:spec", "f:parallelism"])).toBe(".spec.parallelism");
    expect(formatFieldPath(["f:spec", "f:containers", keyElement({ name: "a" }), "f:image"])).toBe('.spec.containers[name="a"].image');
    expect(formatFieldPath(["f:ports", keyElement({ protocol: "TCP", containerPort: 80 })])).toBe('.ports[containerPort=80,protocol="TCP"]');
    expect(formatFieldPath(["f:modes", valueElement("Ephemeral")])).toBe('.modes[="Ephemeral"]');
    expect(formatFieldPath(["f:items", "i:0"])).toBe(".items[0]");
  });

  it("set algebra", () => {
    const a = parseFieldsV1({ "f:a": {}, "f:b": { "f:c": {}, "f:d": {} } });
    const b = parseFieldsV1({ "f:b": { "f:c": {} }, "f:e": {} });
    expect(a.union(b).toFieldsV1()).toEqual({ "f:a": {}, "f:b": { "f:c": {}, "f:d": {} }, "f:e": {} });
    expect(a.intersection(b).toFieldsV1()).toEqual({ "f:b": { "f:c": {} } });
    expect(a.difference(b).toFieldsV1()).toEqual({ "f:a": {}, "f:b": { "f:d": {} } });
    const status = new FieldSet();
    status.insert(["f:b"]);
    expect(a.recursiveDifference(status).toFieldsV1()).toEqual({ "f:a": {} });
    expect(a.hasPrefix(["f:b"])).toBe(true);
    expect(a.hasPrefix(["f:x"])).toBe(false);
    expect(new FieldSet().empty()).toBe(true);
  });

  it("property: parse(toFieldsV1(s)) equals s; union/difference laws", () => {
    const pe = fc.oneof(
      fc.constantFrom("a", "b", "c").map((n) => `f:${n}`),
      fc.constantFrom("x", "y").map((n) => keyElement({ name: n })),
      fc.constantFrom(1, 2).map((n) => valueElement(n)),
    );
    const setArb = fc.array(fc.array(pe, { minLength: 1, maxLength: 4 }), { maxLength: 8 }).map((paths) => {
      const s = new FieldSet();
      for (const p of paths) s.insert(p);
      return s;
    });
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        expect(parseFieldsV1(a.toFieldsV1()).equals(a)).toBe(true);
        expect(a.union(b).difference(b).intersection(b).empty()).toBe(true);
        for (const p of a.paths()) expect(a.union(b).has(p)).toBe(true);
      }),
    );
  });

  it("answers the very JSON a set was parsed from when it is already in Kubernetes' form, and a fresh encoding otherwise", () => {
    const canonical = { "f:metadata": { "f:labels": { ".": {}, "f:a": {}, "f:b": {} } }, "f:spec": { "f:x": {} } };
    expect(parseFieldsV1(canonical).toFieldsV1()).toBe(canonical);
    // Not in that form: out of order, "." not first, "." alone, "." with members, "." at the top: re-encoded as 1.23 re-encodes.
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ ".": {}, "f:a": {} }, { "f:a": {} }],
      [{ "f:spec": {}, "f:metadata": {} }, { "f:metadata": {}, "f:spec": {} }],
      [{ "f:labels": { "f:a": {}, ".": {} } }, { "f:labels": { ".": {}, "f:a": {} } }],
      [{ "f:labels": { ".": {} } }, { "f:labels": {} }],
      [{ "f:labels": { ".": { "f:zzz": {} }, "f:a": {} } }, { "f:labels": { ".": {}, "f:a": {} } }],
      [{ "f:list": { [keyElement({ name: "b" })]: {}, [keyElement({ name: "a" })]: {} } }, { "f:list": { [keyElement({ name: "a" })]: {}, [keyElement({ name: "b" })]: {} } }],
    ];
    for (const [input, want] of cases) {
      const out = parseFieldsV1(input).toFieldsV1();
      expect(out).not.toBe(input);
      expect(JSON.stringify(out)).toBe(JSON.stringify(want));
    }
    // A parsed set changed afterwards encodes what it now holds.
    const s = parseFieldsV1(canonical);
    s.insert(["f:spec", "f:y"]);
    expect(s.toFieldsV1()).not.toBe(canonical);
    expect(s.toFieldsV1()).toEqual({ "f:metadata": { "f:labels": { ".": {}, "f:a": {}, "f:b": {} } }, "f:spec": { "f:x": {}, "f:y": {} } });
    expect(canonical["f:spec"]).toEqual({ "f:x": {} });
  });

  it("property: any FieldsV1 encodes to what its set encodes when built path by path", () => {
    const pe = fc.oneof(fc.constantFrom("a", "b", "c").map((n) => `f:${n}`), fc.constantFrom("x", "y").map((n) => keyElement({ name: n })), fc.constantFrom(2, 10).map((n) => valueElement(n)));
    // Arbitrary FieldsV1 trees: any key order, "." markers anywhere.
    const tree: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
      node: fc.array(fc.tuple(fc.oneof(pe, fc.constant(".")), fc.oneof({ depthSize: "small" }, fc.constant({}), tie("node"))), { maxLength: 4 }).map((entries) => Object.fromEntries(entries.map(([k, v]) => [k, k === "." ? {} : v]))),
    })).node;
    fc.assert(
      fc.property(tree, (json) => {
        const parsed = parseFieldsV1(json);
        const rebuilt = new FieldSet();
        for (const p of parsed.paths()) rebuilt.insert(p);
        expect(JSON.stringify(parsed.toFieldsV1())).toBe(JSON.stringify(rebuilt.toFieldsV1()));
      }),
      { numRuns: 500 },
    );
  });

  it("property: overlaps is whether the intersection has a member", () => {
    const setArb = smallSetArb(6);
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        expect(a.overlaps(b)).toBe(!a.intersection(b).empty());
      }),
      { numRuns: 500 },
    );
  });

  it("property: the set operations agree with a model of plain path sets", () => {
    const setArb = smallSetArb(8);
    const model = (s: FieldSet) => new Set(s.paths().map((p) => JSON.stringify(p)));
    const sorted = (xs: Iterable<string>) => [...xs].sort();
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        const ma = model(a);
        const mb = model(b);
        expect(sorted(model(a.union(b)))).toEqual(sorted(new Set([...ma, ...mb])));
        expect(sorted(model(a.intersection(b)))).toEqual(sorted([...ma].filter((p) => mb.has(p))));
        expect(sorted(model(a.difference(b)))).toEqual(sorted([...ma].filter((p) => !mb.has(p))));
        const underB = (p: string) => {
          const path = JSON.parse(p) as string[];
          return path.some((_, i) => mb.has(JSON.stringify(path.slice(0, i + 1))));
        };
        expect(sorted(model(a.recursiveDifference(b)))).toEqual(sorted([...ma].filter((p) => !underB(p))));
        expect(sorted(model(a.clone()))).toEqual(sorted(ma));
        expect(a.union(b).empty()).toBe(ma.size + mb.size === 0);
      }),
      { numRuns: 500 },
    );
  });
});
