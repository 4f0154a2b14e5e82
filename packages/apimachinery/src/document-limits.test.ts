import { describe, expect, it } from "vitest";
import { applyJSONPatch } from "./json-patch.js";
import { PatchError } from "./patch-error.js";
import { checkDocumentLimits, checkObjectDepth, estimateYAMLDepth, maxDocumentDepth, maxJSONPatchCopyBytes, maxObjectDepth } from "./document-limits.js";

const nest = (d: number): unknown => JSON.parse("[".repeat(d) + "]".repeat(d));

describe("checkDocumentLimits", () => {
  it("counts containers as levels and allows exactly the bound", () => {
    expect(checkDocumentLimits(1)).toBeUndefined();
    expect(checkDocumentLimits(nest(maxDocumentDepth))).toBeUndefined();
    expect(checkDocumentLimits(nest(maxDocumentDepth + 1))).toEqual({ reason: "depth", message: "exceeded max depth of 100" });
    expect(checkDocumentLimits(nest(3), 2)).toMatchObject({ reason: "depth" });
  });
  it("walks 1,000,000 levels without recursion", () => {
    expect(checkDocumentLimits(nest(1_000_000))).toMatchObject({ reason: "depth" });
  });
  it("refuses cycles but not shared references", () => {
    const shared = { a: 1 };
    expect(checkDocumentLimits({ x: shared, y: shared, z: [shared, shared] })).toBeUndefined();
    const cyc: Record<string, unknown> = {};
    cyc["self"] = [cyc];
    expect(checkDocumentLimits({ a: cyc })).toMatchObject({ reason: "cycle" });
  });
  it("checkObjectDepth leaves managedFields out and bounds the rest at maxObjectDepth", () => {
    const deepSpec = nest(maxObjectDepth - 1);
    expect(checkObjectDepth({ metadata: { managedFields: nest(maxDocumentDepth - 2) }, spec: deepSpec })).toBeUndefined();
    expect(checkObjectDepth({ metadata: {}, spec: nest(maxObjectDepth) })).toMatchObject({ message: `exceeded max depth of ${maxObjectDepth}` });
  });
});

describe("estimateYAMLDepth", () => {
  it("is never below the real depth", () => {
    expect(estimateYAMLDepth("a: 1\n")).toBeGreaterThanOrEqual(1);
    expect(estimateYAMLDepth("[[[[1]]]]")).toBeGreaterThanOrEqual(4);
    expect(estimateYAMLDepth("- - - - 1\n")).toBeGreaterThanOrEqual(4);
    expect(estimateYAMLDepth("a:\n b:\n  c:\n   d: 1\n")).toBeGreaterThanOrEqual(4);
  });
  it("ignores brackets in quotes and comments", () => {
    expect(estimateYAMLDepth(`a: "[[[[[[" # [[[[[\nb: '{{{{'\n`)).toBeLessThan(4);
  });
});

describe("JSON Patch copy bound", () => {
  it(`refuses copies adding more than ${maxJSONPatchCopyBytes} bytes, as 422 Invalid`, () => {
    const ops = [{ op: "add", path: "/x", value: ["y".repeat(1000)] }, ...Array.from({ length: 40 }, () => ({ op: "copy", from: "/x", path: "/x/-" }))];
    let err: unknown;
    try {
      applyJSONPatch({}, ops);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PatchError);
    expect((err as PatchError).reason).toBe("Invalid");
    expect((err as PatchError).message).toMatch(/accumulated size increase of copy is \d+, exceeding the limit 3145728/);
  });
  it("still copies within the bound", () => {
    expect(applyJSONPatch({ a: { b: 1 } }, [{ op: "copy", from: "/a", path: "/c" }])).toEqual({ a: { b: 1 }, c: { b: 1 } });
  });
});
