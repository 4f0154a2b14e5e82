import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyMergePatch } from "./merge-patch.js";
import { PatchError } from "./patch-error.js";
import { PatchSchemaError, emptyPatchSchema, patchSchemaFromOpenAPI } from "./patch-schema.js";
import type { PatchSchema } from "./patch-schema.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

// A test type in the spirit of Kubernetes' own strategicpatch test type (MergeItem).
const ref = (name: string) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });
const openapi = {
  openapi: "3.0.0",
  components: {
    schemas: {
      MergeItem: {
        type: "object",
        properties: {
          name: { type: "string" },
          value: { type: "string" },
          other: { type: "string" },
          mergingList: { type: "array", items: ref("MergeItem"), "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
          nonMergingList: { type: "array", items: ref("MergeItem") },
          mergingIntList: { type: "array", items: { type: "integer" }, "x-kubernetes-patch-strategy": "merge" },
          nonMergingIntList: { type: "array", items: { type: "integer" } },
          simpleMap: { type: "object", additionalProperties: { type: "string" } },
          replacingItem: { type: "object", "x-kubernetes-patch-strategy": "replace" },
          retainKeysMap: { ...ref("RetainKeysMergeItem"), "x-kubernetes-patch-strategy": "retainKeys" },
          retainKeysMergingList: {
            type: "array",
            items: ref("MergeItem"),
            "x-kubernetes-patch-strategy": "merge,retainKeys",
            "x-kubernetes-patch-merge-key": "name",
          },
          noKeyList: { type: "array", items: ref("MergeItem"), "x-kubernetes-patch-strategy": "merge" },
          badStrategy: { type: "object", "x-kubernetes-patch-strategy": "merge,replace,retainKeys" },
        },
      },
      RetainKeysMergeItem: {
        type: "object",
        properties: {
          name: { type: "string" },
          value: { type: "string" },
          simpleMap: { type: "object", additionalProperties: { type: "string" } },
          mergingList: { type: "array", items: ref("MergeItem"), "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
        },
      },
    },
  },
};

const schema = patchSchemaFromOpenAPI(openapi, "MergeItem");
const apply = (doc: unknown, patch: unknown, s: PatchSchema = schema) => applyStrategicMergePatch(doc, patch, s);

function failure(doc: unknown, patch: unknown, s: PatchSchema = schema): PatchError {
  try {
    apply(doc, patch, s);
  } catch (e) {
    if (e instanceof PatchError) return e;
    throw e;
  }
  throw new Error("expected the patch to fail");
}

describe("maps", () => {
  it("adds, changes and deletes fields", () => {
    expect(apply({ name: "1", other: "a" }, { value: "1" })).toEqual({ name: "1", value: "1", other: "a" });
    expect(apply({ name: "1", other: "a" }, { name: null, value: "1" })).toEqual({ value: "1", other: "a" });
    expect(apply({ name: "1", value: "1", other: "a" }, { name: null, value: null })).toEqual({ other: "a" });
    expect(apply({ name: "1" }, {})).toEqual({ name: "1" });
    expect(apply({ name: "1" }, { missing: null })).toEqual({ name: "1" });
  });

  it("merges nested maps and deletes nested keys", () => {
    expect(apply({ simpleMap: { key1: "1", key2: "1", other: "a" } }, { simpleMap: { key2: null } })).toEqual({ simpleMap: { key1: "1", other: "a" } });
  });

  it("$patch: delete empties a map; $patch: replace replaces it", () => {
    expect(apply({ simpleMap: { key1: "1" } }, { simpleMap: { $patch: "delete" } })).toEqual({ simpleMap: {} });
    expect(apply({ name: "1", value: "1" }, { $patch: "replace" })).toEqual({});
    expect(apply({ name: "1", value: "1" }, { other: "a", $patch: "replace" })).toEqual({ other: "a" });
    expect(apply({ simpleMap: { a: "1", b: "2" } }, { simpleMap: { c: "3", $patch: "replace" } })).toEqual({ simpleMap: { c: "3" } });
    expect(apply({ name: "x" }, { $patch: "delete" })).toEqual({});
  });

  it("rejects other $patch values on maps", () => {
    const e = failure({ simpleMap: {} }, { simpleMap: { $patch: "merge", a: "1" } });
    expect(e.reason).toBe("BadRequest");
    expect(e.message).toBe("unknown patch type: merge in map: map[$patch:merge a:1]");
    expect(failure({}, { $patch: 5 }).message).toBe("unknown patch type: %!s(float64=5) in map: map[$patch:5]");
  });

  it("replaces fields with strategy replace", () => {
    expect(apply({ replacingItem: { a: 1, b: { c: 1 } } }, { replacingItem: { b: { d: 2 } } })).toEqual({ replacingItem: { b: { d: 2 } } });
  });

  it("merges unknown map fields and replaces unknown lists", () => {
    expect(apply({ unknown: { a: 1, b: 2 }, list: [1, 2] }, { unknown: { b: null, c: 3 }, list: [3] })).toEqual({ unknown: { a: 1, c: 3 }, list: [3] });
  });

  it("replaces values whose JSON type changes", () => {
    expect(apply({ name: { a: 1 } }, { name: "x" })).toEqual({ name: "x" });
    expect(apply({ simpleMap: "x" }, { simpleMap: { a: "1", b: null } })).toEqual({ simpleMap: { a: "1" } });
    expect(apply({ mergingList: { a: 1 } }, { mergingList: [{ name: "1" }] })).toEqual({ mergingList: [{ name: "1" }] });
    expect(apply({ name: null }, { name: { a: 1 } })).toEqual({ name: { a: 1 } });
  });

  it("keeps directives and nulls out of values it introduces", () => {
    expect(
      apply(
        {},
        {
          simpleMap: { a: "1", b: null, $retainKeys: ["a"], "$setElementOrder/x": [], "$deleteFromPrimitiveList/y": [] },
          mergingList: [{ name: "1", value: null }, { name: "2", $patch: "delete" }, { $patch: "replace" }],
          nested: { gone: { $patch: "delete" }, kept: { $patch: "replace", x: 1 } },
        },
      ),
    ).toEqual({ simpleMap: { a: "1" }, mergingList: [{ name: "1" }], nested: { kept: { x: 1 } } });
    expect(apply({}, { simpleMap: { $patch: "delete" } })).toEqual({});
    expect(failure({}, { mergingList: [{ name: "1", $patch: "merge" }] }).message).toBe("merging lists cannot yet be specified in the patch");
    expect(failure({}, { simpleMap: { $patch: "bogus" } }).reason).toBe("BadRequest");
  });
});

describe("merging lists of maps", () => {
  it("merges elements with the same merge key and keeps server-only fields", () => {
    expect(
      apply({ mergingList: [{ name: "1", other: "a" }, { name: "2", value: "2", other: "b" }] }, { mergingList: [{ name: "1", value: "1" }] }),
    ).toEqual({ mergingList: [{ name: "1", other: "a", value: "1" }, { name: "2", value: "2", other: "b" }] });
  });

  it("deletes fields of elements with null", () => {
    expect(apply({ mergingList: [{ name: "bar" }, { name: "foo", value: "a" }] }, { mergingList: [{ name: "foo", value: null }] })).toEqual({
      mergingList: [{ name: "bar" }, { name: "foo" }],
    });
  });

  it("keeps the patch's order and interleaves server-only elements", () => {
    const original = { mergingList: [{ name: "1" }, { name: "2", value: "b" }, { name: "3" }] };
    expect(
      apply(original, {
        mergingList: [
          { name: "3", value: "c" },
          { name: "1", value: "a" },
          { name: "2", other: "x" },
        ],
      }),
    ).toEqual({ mergingList: [{ name: "3", value: "c" }, { name: "1", value: "a" }, { name: "2", value: "b", other: "x" }] });
    expect(apply(original, { mergingList: [{ name: "3", value: "c" }, { name: "1", value: "a" }] })).toEqual({
      mergingList: [{ name: "2", value: "b" }, { name: "3", value: "c" }, { name: "1", value: "a" }],
    });
  });

  it("puts new elements before the server elements they are not preceded by", () => {
    expect(apply({ mergingList: [{ name: "1" }, { name: "2" }] }, { mergingList: [{ name: "3" }] })).toEqual({
      mergingList: [{ name: "3" }, { name: "1" }, { name: "2" }],
    });
    expect(apply({ mergingList: [{ name: "1" }, { name: "2" }, { name: "3" }] }, { mergingList: [{ name: "2", value: "x" }, { name: "9" }] })).toEqual({
      mergingList: [{ name: "1" }, { name: "2", value: "x" }, { name: "9" }, { name: "3" }],
    });
  });

  it("deletes every element with the merge key of a $patch: delete element", () => {
    expect(
      apply(
        { mergingList: [{ name: "1" }, { name: "1" }, { name: "2", value: "a" }, { name: "3" }, { name: "3" }] },
        { mergingList: [{ name: "1", $patch: "delete" }, { name: "3", $patch: "delete" }] },
      ),
    ).toEqual({ mergingList: [{ name: "2", value: "a" }] });
    expect(apply({ mergingList: [] }, { mergingList: [{ name: "1", $patch: "delete" }] })).toEqual({ mergingList: [] });
    expect(apply({ mergingList: [{ name: "1", other: "a" }, { name: "2" }] }, { mergingList: [{ name: "1", $patch: "delete" }, { name: "2", $patch: "delete" }] })).toEqual({
      mergingList: [],
    });
  });

  it("$patch: replace in a list replaces the list with the other elements", () => {
    expect(apply({ mergingList: [{ name: "1" }, { name: "2" }] }, { mergingList: [{ $patch: "replace" }] })).toEqual({ mergingList: [] });
    expect(apply({ mergingList: [{ name: "1", value: "a" }, { name: "2" }] }, { mergingList: [{ name: "1", other: "b" }, { $patch: "replace" }] })).toEqual({
      mergingList: [{ name: "1", other: "b" }],
    });
  });

  it("rejects $patch: merge and unknown directives in list elements", () => {
    const merge = failure({ mergingList: [{ name: "1" }] }, { mergingList: [{ name: "1", $patch: "merge" }] });
    expect(merge.reason).toBe("BadRequest");
    expect(merge.message).toBe("merging lists cannot yet be specified in the patch");
    expect(failure({ mergingList: [{ name: "1" }] }, { mergingList: [{ name: "1", $patch: "zap" }] }).message).toBe("unknown patch type: zap in map: map[$patch:zap name:1]");
  });

  it("requires the merge key", () => {
    const e = failure({ mergingList: [{ name: "1", value: "a" }] }, { mergingList: [{ value: "b" }] });
    expect(e.reason).toBe("Invalid");
    expect(e.code).toBe(422);
    expect(e.message).toBe("map: map[value:b] does not contain declared merge key: name");
    expect(failure({ mergingList: [{ name: "1" }] }, { mergingList: [{ $patch: "delete" }] }).message).toBe(
      "map: map[$patch:delete] does not contain declared merge key: name",
    );
    expect(failure({ mergingList: [{ value: "x" }] }, { mergingList: [{ name: "1" }] }).message).toBe("map: map[value:x] does not contain declared merge key: name");
  });

  it("needs a merge key in the schema to merge lists of maps", () => {
    const e = failure({ noKeyList: [{ name: "1" }] }, { noKeyList: [{ name: "2" }] });
    expect(e.reason).toBe("Invalid");
    expect(e.message).toBe("cannot merge lists without merge key for noKeyList");
  });

  it("merges nested lists recursively", () => {
    expect(
      apply(
        { mergingList: [{ name: "1", mergingList: [{ name: "a", value: "x" }, { name: "b" }], nonMergingList: [{ name: "z" }] }] },
        { mergingList: [{ name: "1", mergingList: [{ name: "b", value: "y" }, { name: "a", $patch: "delete" }], nonMergingList: [{ name: "q" }] }] },
      ),
    ).toEqual({ mergingList: [{ name: "1", mergingList: [{ name: "b", value: "y" }], nonMergingList: [{ name: "q" }] }] });
  });

  it("rejects mixed element types and lists of lists", () => {
    const mixed = failure({ mergingList: [{ name: "1" }] }, { mergingList: ["x"] });
    expect(mixed.reason).toBe("Invalid");
    expect(mixed.message).toBe("list element types are not identical: [[map[name:1]] [x]]");
    const nested = failure({ mergingIntList: [[1]] }, { mergingIntList: [[2]] });
    expect(nested.message).toBe("lists of lists are not supported");
  });

  it("leaves empty lists empty", () => {
    expect(apply({ mergingList: [] }, { mergingList: [] })).toEqual({ mergingList: [] });
  });
});

describe("lists of scalars", () => {
  it("merges as sets, keeping patch order against server order", () => {
    expect(apply({ mergingIntList: [1, 2] }, { mergingIntList: [2, 3] })).toEqual({ mergingIntList: [1, 2, 3] });
    expect(apply({ mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1, 2] })).toEqual({ mergingIntList: [3, 1, 2] });
    expect(apply({ mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] })).toEqual({ mergingIntList: [2, 3, 1] });
    expect(apply({ mergingIntList: [1, 2] }, { mergingIntList: [4, 4] })).toEqual({ mergingIntList: [4, 1, 2] });
  });

  it("replaces lists without merge strategy", () => {
    expect(apply({ nonMergingIntList: [1, 2] }, { nonMergingIntList: [2, 3] })).toEqual({ nonMergingIntList: [2, 3] });
    expect(apply({ nonMergingList: [{ name: "1", value: "a" }] }, { nonMergingList: [{ name: "1" }] })).toEqual({ nonMergingList: [{ name: "1" }] });
  });

  it("$deleteFromPrimitiveList removes every occurrence", () => {
    expect(apply({ mergingIntList: [1, 2, 3, 3, 4] }, { "$deleteFromPrimitiveList/mergingIntList": [3] })).toEqual({ mergingIntList: [1, 2, 4] });
    expect(apply({ mergingIntList: [1, 2] }, { "$deleteFromPrimitiveList/mergingIntList": [9] })).toEqual({ mergingIntList: [1, 2] });
    expect(apply({}, { "$deleteFromPrimitiveList/mergingIntList": [1] })).toEqual({});
    expect(apply({ mergingIntList: "x" }, { "$deleteFromPrimitiveList/mergingIntList": [1] })).toEqual({ mergingIntList: "x" });
  });

  it("applies deletions after additions of the same map", () => {
    expect(apply({ mergingIntList: [1, 2, 3] }, { "$deleteFromPrimitiveList/mergingIntList": [3, 5], mergingIntList: [5, 6] })).toEqual({ mergingIntList: [6, 1, 2] });
  });

  it("rejects malformed deletion lists", () => {
    for (const patch of [
      { $deleteFromPrimitiveList: [1] },
      { "$deleteFromPrimitiveListmergingIntList": [1] },
      { "$deleteFromPrimitiveList/mergingIntList": 1 },
      { "$deleteFromPrimitiveList/mergingIntList": null },
      { "$deleteFromPrimitiveList/mergingIntList": [{ a: 1 }] },
    ]) {
      const e = failure({ mergingIntList: [1] }, patch);
      expect(e.reason).toBe("BadRequest");
      expect(e.message).toBe("invalid patch format of primitive list");
    }
    expect(failure({ mergingList: [{ name: "1" }] }, { "$deleteFromPrimitiveList/mergingList": ["1"] }).message).toBe("invalid patch format of primitive list");
  });
});

describe("$setElementOrder", () => {
  it("orders a merged list of maps, new and server-only elements included", () => {
    expect(
      apply(
        { mergingList: [{ name: "1", other: "a" }, { name: "2", value: "2", other: "b" }] },
        {
          "$setElementOrder/mergingList": [{ name: "4" }, { name: "1" }, { name: "2" }, { name: "3" }],
          mergingList: [
            { name: "4", value: "4" },
            { name: "3", value: "3" },
          ],
        },
      ),
    ).toEqual({
      mergingList: [
        { name: "4", value: "4" },
        { name: "1", other: "a" },
        { name: "2", value: "2", other: "b" },
        { name: "3", value: "3" },
      ],
    });
  });

  it("emits a server-only element as soon as it precedes the next ordered element on the server", () => {
    expect(
      apply(
        { mergingList: [{ name: "a" }, { name: "x" }, { name: "b" }, { name: "c" }] },
        { "$setElementOrder/mergingList": [{ name: "c" }, { name: "a" }, { name: "b" }] },
      ),
    ).toEqual({ mergingList: [{ name: "x" }, { name: "c" }, { name: "a" }, { name: "b" }] });
    expect(
      apply(
        { mergingList: [{ name: "a" }, { name: "b" }, { name: "x" }, { name: "c" }] },
        { "$setElementOrder/mergingList": [{ name: "a" }, { name: "c" }, { name: "b" }] },
      ),
    ).toEqual({ mergingList: [{ name: "a" }, { name: "x" }, { name: "c" }, { name: "b" }] });
  });

  it("ignores order entries that are not in the list", () => {
    expect(
      apply(
        { mergingList: [{ name: "1" }, { name: "3" }] },
        { "$setElementOrder/mergingList": [{ name: "3" }, { name: "2" }, { name: "1" }], mergingList: [{ name: "3", value: "3" }, { name: "1", value: "1" }] },
      ),
    ).toEqual({ mergingList: [{ name: "3", value: "3" }, { name: "1", value: "1" }] });
    expect(apply({ mergingIntList: [1, 3] }, { "$setElementOrder/mergingIntList": [3, 2, 1] })).toEqual({ mergingIntList: [3, 1] });
  });

  it("works with deletion lists, as kubectl apply sends them", () => {
    expect(apply({ mergingIntList: [1, 2, 3, 4] }, { "$setElementOrder/mergingIntList": [1, 2], "$deleteFromPrimitiveList/mergingIntList": [3] })).toEqual({
      mergingIntList: [1, 2, 4],
    });
    expect(
      apply({ mergingIntList: [1, 2, 3, 4] }, { "$setElementOrder/mergingIntList": [1, 2, 4], "$deleteFromPrimitiveList/mergingIntList": [3], mergingIntList: [4] }),
    ).toEqual({ mergingIntList: [1, 2, 4] });
    expect(
      apply(
        { mergingList: [{ name: "1" }, { name: "2" }, { name: "3" }] },
        { "$setElementOrder/mergingList": [{ name: "3" }, { name: "1" }], mergingList: [{ name: "2", $patch: "delete" }] },
      ),
    ).toEqual({ mergingList: [{ name: "3" }, { name: "1" }] });
  });

  it("adds a list the server does not have, in the given order", () => {
    expect(apply({}, { "$setElementOrder/mergingList": [{ name: "b" }, { name: "a" }], mergingList: [{ name: "b", value: null }, { name: "a" }] })).toEqual({
      mergingList: [{ name: "b" }, { name: "a" }],
    });
    expect(apply({}, { "$setElementOrder/mergingList": [{ name: "b" }] })).toEqual({});
  });

  it("applies to nested maps inside list elements", () => {
    expect(
      apply(
        { mergingList: [{ name: "1", mergingIntList: [1, 2] }] },
        { mergingList: [{ name: "1", "$setElementOrder/mergingIntList": [2, 1] }], "$setElementOrder/mergingList": [{ name: "1" }] },
      ),
    ).toEqual({ mergingList: [{ name: "1", mergingIntList: [2, 1] }] });
  });

  it("rejects a patch list whose order contradicts the order list", () => {
    const e = failure(
      { mergingList: [{ name: "1" }, { name: "3" }, { name: "2" }] },
      { "$setElementOrder/mergingList": [{ name: "1" }, { name: "2" }, { name: "3" }], mergingList: [{ name: "3", value: "3" }, { name: "1", value: "1" }] },
    );
    expect(e.reason).toBe("BadRequest");
    expect(e.message).toBe(
      "The order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
    );
    expect(failure({ mergingIntList: [1, 3, 2] }, { "$setElementOrder/mergingIntList": [1, 2, 3], mergingIntList: [3, 1] }).message).toContain("doesn't match");
  });

  it("rejects malformed order directives", () => {
    for (const patch of [{ "$setElementOrder/mergingList": "x" }, { $setElementOrder: [] }, { "$setElementOrderX/mergingList": [] }, { "$setElementOrder/mergingList": [], mergingList: "x" }]) {
      const e = failure({ mergingList: [{ name: "1" }] }, patch);
      expect(e.reason).toBe("BadRequest");
      expect(e.message).toBe("invalid patch format of setElementOrder list");
    }
    expect(failure({ mergingList: "x" }, { "$setElementOrder/mergingList": [] }).message).toBe("expected a []interface {}, but received a string");
    expect(failure({ mergingList: [{ name: "1" }] }, { "$setElementOrder/mergingList": ["1"] }).message).toBe("value for key 0 is not a map.");
  });
});

describe("$retainKeys", () => {
  it("clears every key not listed", () => {
    expect(apply({ retainKeysMap: { name: "foo", value: "a", simpleMap: { a: "1" } } }, { retainKeysMap: { $retainKeys: ["name", "value"], value: "b" } })).toEqual({
      retainKeysMap: { name: "foo", value: "b" },
    });
    expect(apply({ retainKeysMap: { name: "foo" } }, { retainKeysMap: { $retainKeys: [] } })).toEqual({ retainKeysMap: {} });
  });

  it("leaves maps alone without the directive", () => {
    expect(apply({ retainKeysMap: { name: "foo", value: "a" } }, { retainKeysMap: {} })).toEqual({ retainKeysMap: { name: "foo", value: "a" } });
    expect(apply({ retainKeysMap: { name: "foo" } }, { retainKeysMap: { value: "bar" } })).toEqual({ retainKeysMap: { name: "foo", value: "bar" } });
  });

  it("works inside elements of a merging list", () => {
    expect(
      apply(
        { retainKeysMergingList: [{ name: "bar" }, { name: "foo", value: "a", other: "x" }] },
        { retainKeysMergingList: [{ name: "foo", $retainKeys: ["name", "other"], value: null }] },
      ),
    ).toEqual({ retainKeysMergingList: [{ name: "bar" }, { name: "foo", other: "x" }] });
  });

  it("requires a list naming every key the patch sets", () => {
    for (const patch of [{ retainKeysMap: { $retainKeys: "name" } }, { retainKeysMap: { $retainKeys: ["name"], value: "x" } }]) {
      const e = failure({ retainKeysMap: { name: "a" } }, patch);
      expect(e.reason).toBe("BadRequest");
      expect(e.message).toBe("invalid patch format of retainKeys");
    }
    expect(apply({ retainKeysMap: { name: "a", value: "b" } }, { retainKeysMap: { $retainKeys: ["name"], value: null } })).toEqual({ retainKeysMap: { name: "a" } });
  });
});

describe("inputs and errors", () => {
  it("never mutates its inputs nor aliases them", () => {
    const doc = { mergingList: [{ name: "1", simpleMap: { a: "1" } }], simpleMap: { k: "v" } };
    const patch = {
      mergingList: [{ name: "2", simpleMap: { b: "2" } }, { name: "1", $patch: "delete" }],
      simpleMap: { k: null, n: "x" },
      "$setElementOrder/mergingList": [{ name: "2" }],
      newMap: { deep: { x: 1 } },
    };
    const docCopy = structuredClone(doc);
    const patchCopy = structuredClone(patch);
    const out = apply(doc, patch) as { mergingList: { simpleMap: Record<string, string> }[]; newMap: { deep: { x: number } } };
    expect(doc).toEqual(docCopy);
    expect(patch).toEqual(patchCopy);
    out.newMap.deep.x = 2;
    out.mergingList[0]!.simpleMap.b = "changed";
    expect(patch.newMap.deep.x).toBe(1);
    expect(patch.mergingList[0]?.simpleMap?.b).toBe("2");
  });

  it("treats a missing document as {} and rejects non-objects", () => {
    expect(apply(undefined, { name: "x" })).toEqual({ name: "x" });
    expect(apply(null, { name: "x" })).toEqual({ name: "x" });
    expect(failure([1], {}).message).toBe("invalid JSON document");
    for (const patch of [[], "x", null, 1]) expect(failure({}, patch).reason).toBe("BadRequest");
  });

  it("reports impossible strategies in the schema", () => {
    expect(() => apply({ badStrategy: { a: 1 } }, { badStrategy: { b: 1 } })).toThrow(PatchSchemaError);
    expect(() => apply({ badStrategy: { a: 1 } }, { badStrategy: { b: 1 } })).toThrow("unexpected patch strategy: [merge replace retainKeys]");
  });

  it("accepts hand-written schemas", () => {
    const custom: PatchSchema = {
      lookup: (key) => (key === "items" ? { schema: emptyPatchSchema, meta: { strategies: ["retainKeys", "merge"], mergeKey: "id" } } : { schema: custom, meta: { strategies: [] } }),
    };
    expect(apply({ items: [{ id: 1, a: 1 }] }, { items: [{ id: 1, b: 2 }, { id: 2 }] }, custom)).toEqual({ items: [{ id: 1, a: 1, b: 2 }, { id: 2 }] });
  });

  it("treats __proto__ as an ordinary key", () => {
    const out = apply({}, JSON.parse('{"__proto__": {"polluted": true}, "a": {"__proto__": 1}}')) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

// Patches and documents without directives, and without nulls inside lists.
const key = fc.string({ maxLength: 3 }).filter((k) => !k.startsWith("$"));
const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean());
const plain = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("inList"), { maxLength: 3 }), tie("object")),
  inList: fc.oneof({ depthSize: "small" }, scalar, fc.dictionary(key, tie("inList"), { maxKeys: 3 })),
  object: fc.dictionary(key, fc.oneof(tie("value"), fc.constant(null)), { maxKeys: 4 }),
}));
const plainObject = plain.object as fc.Arbitrary<Record<string, unknown>>;

describe("without schema and directives", () => {
  it("is the JSON merge patch", () => {
    fc.assert(
      fc.property(plainObject, plainObject, (doc, patch) => {
        expect(applyStrategicMergePatch(doc, patch, emptyPatchSchema)).toEqual(applyMergePatch(doc, patch));
      }),
    );
  });
});

const apiTypesOpenAPI = createRequire(import.meta.url).resolve("@skiff/api-types/openapi.json");

describe("with the @skiff/api-types OpenAPI document", () => {
  const document = JSON.parse(readFileSync(apiTypesOpenAPI, "utf8")) as { components?: { schemas?: Record<string, unknown> } };
  const name = Object.keys(document.components?.schemas ?? {}).find((n) => /(^|\.)batch\.v1\.Job$/.test(n)) ?? "io.example.api.batch.v1.Job";

  it("patches a Job as Kubernetes would", () => {
    const job = patchSchemaFromOpenAPI(document, name);
    const current = {
      metadata: { name: "pi", labels: { app: "pi" }, finalizers: ["a"] },
      spec: {
        template: {
          spec: {
            containers: [
              { name: "pi", image: "perl:5", env: [{ name: "A", value: "1" }] },
              { name: "side", image: "busybox" },
            ],
          },
        },
      },
      status: { uncountedTerminatedPods: { succeeded: ["u1", "u2"] } },
    };
    const patch = {
      metadata: { labels: { tier: "batch" }, finalizers: ["b"] },
      spec: { template: { spec: { containers: [{ name: "pi", image: "perl:6", env: [{ name: "B", value: "2" }] }] } } },
      status: { uncountedTerminatedPods: { succeeded: ["u2"] } },
    };
    expect(applyStrategicMergePatch(current, patch, job)).toEqual({
      metadata: { name: "pi", labels: { app: "pi", tier: "batch" }, finalizers: ["b", "a"] },
      spec: {
        template: {
          spec: {
            containers: [
              { name: "pi", image: "perl:6", env: [{ name: "B", value: "2" }, { name: "A", value: "1" }] },
              { name: "side", image: "busybox" },
            ],
          },
        },
      },
      // a list-type "set" without patch strategy is replaced, as in Kubernetes 1.23
      status: { uncountedTerminatedPods: { succeeded: ["u2"] } },
    });
  });
});
