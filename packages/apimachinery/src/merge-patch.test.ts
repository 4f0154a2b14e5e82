import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyMergePatch, createMergePatch } from "./merge-patch.js";

describe("applyMergePatch", () => {
  it("follows the RFC 7386 examples", () => {
    // RFC 7386 appendix A
    const cases: Array<[unknown, unknown, unknown]> = [
      [{ a: "b" }, { a: "c" }, { a: "c" }],
      [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
      [{ a: "b" }, { a: null }, {}],
      [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
      [{ a: ["b"] }, { a: "c" }, { a: "c" }],
      [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
      [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
      [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
      [["a", "b"], ["c", "d"], ["c", "d"]],
      [{ a: "b" }, ["c"], ["c"]],
      [{ a: "foo" }, null, null],
      [{ a: "foo" }, "bar", "bar"],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: "b", c: null }, { a: "b" }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [doc, patch, want] of cases) expect(applyMergePatch(doc, patch)).toEqual(want);
  });

  it("keeps lists' nulls and replaces lists whole", () => {
    expect(applyMergePatch({ a: [1, 2] }, { a: [null, { x: null }] })).toEqual({ a: [null, { x: null }] });
  });

  it("never mutates its inputs nor aliases them", () => {
    const doc = { spec: { a: { b: 1 }, list: [{ x: 1 }] } };
    const patch = { spec: { c: { d: [1] }, a: { e: 2 } } };
    const docCopy = structuredClone(doc);
    const patchCopy = structuredClone(patch);
    const out = applyMergePatch(doc, patch) as { spec: { c: { d: number[] }; list: { x: number }[] } };
    expect(doc).toEqual(docCopy);
    expect(patch).toEqual(patchCopy);
    out.spec.c.d.push(2);
    out.spec.list[0]!.x = 9;
    expect(patch.spec.c.d).toEqual([1]);
    expect(doc.spec.list[0]!.x).toBe(1);
  });

  it("treats __proto__ as an ordinary key", () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}');
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe("createMergePatch", () => {
  it("diffs objects", () => {
    expect(createMergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1] }, { b: { c: 2, d: 4 }, l: [1, 2], n: "x" })).toEqual({
      a: null,
      b: { d: 4 },
      l: [1, 2],
      n: "x",
    });
    expect(createMergePatch({ a: 1 }, { a: 1 })).toEqual({});
    expect(createMergePatch({ a: { b: 1 } }, { a: 5 })).toEqual({ a: 5 });
    expect(createMergePatch([1], { a: 1 })).toEqual({ a: 1 });
    expect(createMergePatch({ a: 1 }, [1])).toEqual([1]);
  });
});

// JSON values without nulls inside objects (a merge patch cannot set a key to null).
const nullFreeJSON = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.array(tie("value"), { maxLength: 3 }),
    tie("object"),
  ),
  object: fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 4 }),
})).object as fc.Arbitrary<Record<string, unknown>>;

const anyJSON = fc.jsonValue();

describe("merge patch laws", () => {
  it("applying createMergePatch(a, b) to a gives b", () => {
    fc.assert(
      fc.property(nullFreeJSON, nullFreeJSON, (a, b) => {
        expect(applyMergePatch(a, createMergePatch(a, b))).toEqual(b);
      }),
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(anyJSON, anyJSON, (doc, patch) => {
        const once = applyMergePatch(doc, patch);
        expect(applyMergePatch(once, patch)).toEqual(once);
      }),
    );
  });

  it("an empty patch changes no object", () => {
    fc.assert(
      fc.property(nullFreeJSON, (doc) => {
        expect(applyMergePatch(doc, {})).toEqual(doc);
      }),
    );
  });

  it("the diff of a document with itself is empty", () => {
    fc.assert(
      fc.property(anyJSON, (doc) => {
        const p = createMergePatch(doc, doc);
        if (typeof doc === "object" && doc !== null && !Array.isArray(doc)) expect(p).toEqual({});
        else expect(p).toEqual(doc);
      }),
    );
  });
});
