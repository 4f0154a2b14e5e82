import { describe, expect, it } from "vitest";
import { applyJSONPatch, maxJSONPatchOperations } from "./json-patch.js";
import { PatchError, isPatchError } from "./patch-error.js";

function failure(doc: unknown, ops: unknown): PatchError {
  try {
    applyJSONPatch(doc, ops);
  } catch (e) {
    if (e instanceof PatchError) return e;
    throw e;
  }
  throw new Error("expected the patch to fail");
}

const job = { metadata: { name: "pi", labels: { app: "pi" } }, spec: { parallelism: 1, template: { spec: { containers: [{ name: "pi" }] } } } };

describe("applyJSONPatch", () => {
  it("applies every RFC 6902 operation in order", () => {
    const out = applyJSONPatch(job, [
      { op: "test", path: "/metadata/name", value: "pi" },
      { op: "replace", path: "/spec/parallelism", value: 2 },
      { op: "add", path: "/metadata/labels/tier", value: "batch" },
      { op: "add", path: "/spec/template/spec/containers/-", value: { name: "sidecar" } },
      { op: "copy", from: "/metadata/labels/app", path: "/metadata/labels/copy" },
      { op: "move", from: "/metadata/labels/copy", path: "/metadata/labels/moved" },
      { op: "remove", path: "/metadata/labels/app" },
    ]);
    expect(out).toEqual({
      metadata: { name: "pi", labels: { tier: "batch", moved: "pi" } },
      spec: { parallelism: 2, template: { spec: { containers: [{ name: "pi" }, { name: "sidecar" }] } } },
    });
  });

  it("unescapes ~0 and ~1 in pointers", () => {
    expect(applyJSONPatch({ metadata: { labels: {} } }, [{ op: "add", path: "/metadata/labels/example.io~1zone", value: "a" }])).toEqual({
      metadata: { labels: { "example.io/zone": "a" } },
    });
  });

  it("can replace the whole document", () => {
    expect(applyJSONPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }])).toEqual({ b: 2 });
  });

  it("returns the input unchanged for an empty patch, as a copy", () => {
    const out = applyJSONPatch(job, []);
    expect(out).toEqual(job);
    expect(out).not.toBe(job);
  });

  it("never mutates the document or the operations, nor aliases them", () => {
    const doc = structuredClone(job);
    const value = { name: "added", env: [{ name: "A" }] };
    const ops = [{ op: "add", path: "/spec/template/spec/containers/-", value }];
    const snapshot = structuredClone(ops);
    const out = applyJSONPatch(doc, ops) as typeof job;
    expect(doc).toEqual(job);
    expect(ops).toEqual(snapshot);
    (out.spec.template.spec.containers[1] as { name: string }).name = "changed";
    expect(value.name).toBe("added");
    out.metadata.labels.app = "changed";
    expect(doc.metadata.labels.app).toBe("pi");
  });

  it("rejects a patch that is not an array of objects with BadRequest", () => {
    for (const bad of [{ op: "add" }, "[]", null, 1]) {
      const e = failure(job, bad);
      expect(e.reason).toBe("BadRequest");
      expect(e.code).toBe(400);
    }
    expect(failure(job, [{ op: "test", path: "/a", value: 1 }, "x"]).message).toBe("invalid JSON Patch: operation 1 is not a JSON object");
  });

  it("rejects patches over the operation limit with Kubernetes' message", () => {
    const ops = Array.from({ length: maxJSONPatchOperations + 1 }, () => ({ op: "test", path: "/metadata/name", value: "pi" }));
    const e = failure(job, ops);
    expect(e.reason).toBe("RequestEntityTooLarge");
    expect(e.code).toBe(413);
    expect(e.message).toBe("The allowed maximum operations in a JSON patch is 10000, got 10001");
    expect(() => applyJSONPatch(job, ops.slice(1))).not.toThrow();
  });

  it("answers 422 Invalid for operations that cannot be applied", () => {
    const cases: Array<[unknown[], string]> = [
      [[{ op: "test", path: "/metadata/name", value: "other" }], "operation 0 (test /metadata/name): test failed"],
      [[{ op: "replace", path: "/spec/missing", value: 1 }], "operation 0 (replace /spec/missing): the path does not exist in the document"],
      [[{ op: "remove", path: "/metadata/nope" }], "operation 0 (remove /metadata/nope): the path does not exist in the document"],
      [[{ op: "add", path: "/nope/x", value: 1 }], "operation 0 (add /nope/x): cannot add at this path (its parent does not exist)"],
      [[{ op: "move", from: "/nope", path: "/x" }], "operation 0 (move /x): the from path does not exist in the document"],
      [[{ op: "add", path: "/spec/template/spec/containers/5", value: {} }], "operation 0 (add /spec/template/spec/containers/5): array index is out of bounds"],
      [[{ op: "add", path: "/spec/template/spec/containers/x", value: {} }], "operation 0 (add /spec/template/spec/containers/x): array index must be an unsigned base-10 integer or '-'"],
      [[{ op: "add", path: "spec", value: 1 }], "operation 0 (add spec): path must be a string starting with '/' (or empty for the whole document)"],
      [[{ op: "add", path: "/a" }], "operation 0 (add /a): 'value' is required for add, replace and test"],
      [[{ op: "copy", path: "/a" }], "operation 0 (copy /a): 'from' is required for move and copy"],
      [[{ op: "frobnicate", path: "/a" }], 'operation 0 (frobnicate /a): unknown operation "frobnicate"'],
      [[{ path: "/a" }], "operation 0 (? /a): unknown operation null"],
      [[{ op: "test", path: "/metadata/name", value: "pi" }, { op: "test", path: "/spec/parallelism", value: 9 }], "operation 1 (test /spec/parallelism): test failed"],
    ];
    for (const [ops, message] of cases) {
      const e = failure(job, ops);
      expect(e.reason, message).toBe("Invalid");
      expect(e.code).toBe(422);
      expect(e.message).toBe(message);
    }
  });

  it("is all-or-nothing", () => {
    const doc = { a: 1 };
    failure(doc, [{ op: "replace", path: "/a", value: 2 }, { op: "test", path: "/a", value: 1 }]);
    expect(doc).toEqual({ a: 1 });
  });

  it("refuses prototype pollution", () => {
    const e = failure({}, [{ op: "add", path: "/__proto__/polluted", value: true }]);
    expect(e.reason).toBe("Invalid");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps the failure as cause and is recognised by isPatchError", () => {
    const e = failure(job, [{ op: "test", path: "/metadata/name", value: "x" }]);
    expect(e.cause).toBeInstanceOf(Error);
    expect(isPatchError(e)).toBe(true);
    expect(isPatchError({ name: "PatchError", reason: "Invalid" })).toBe(true);
    expect(isPatchError(new Error("x"))).toBe(false);
    expect(isPatchError(null)).toBe(false);
  });
});

describe("applyJSONPatch on the root path", () => {
  // Found by the apiserver fuzz test: these threw TypeErrors that became 500s.
  it.each([
    [[{ op: "copy", path: "", from: "/nope/x" }]],
    [[{ op: "remove", path: "" }, { op: "add", path: "/a", value: 1 }]],
    [[{ op: "remove", path: "" }]],
    [[{ op: "move", path: "", from: "/nope" }]],
  ])("%j is an Invalid PatchError", (ops) => {
    let err: unknown;
    try {
      applyJSONPatch({ spec: { parallelism: 1 } }, ops);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PatchError);
    expect((err as PatchError).reason).toBe("Invalid");
  });

  it("replacing the root with an object is allowed", () => {
    expect(applyJSONPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }])).toEqual({ b: 2 });
  });
});
