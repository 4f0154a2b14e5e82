import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FieldSet, FieldsV1Error, comparePathElements, formatFieldPath, keyElement, parseFieldsV1, valueElement } from "./field-set.js";

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

  it("property: the set operations agree with a model of plain path sets", () => {
    const pe = fc.oneof(fc.constantFrom("a", "b", "c").map((n) => `f:${n}`), fc.constantFrom(1, 2).map((n) => valueElement(n)));
    const setArb = fc.array(fc.array(pe, { minLength: 1, maxLength: 3 }), { maxLength: 8 }).map((paths) => {
      const s = new FieldSet();
      for (const p of paths) s.insert(p);
      return s;
    });
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
