import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredObject } from "../types.js";
import { decodeObject, encodeObject, encodedWithRevision } from "./codec.js";

describe("encodedWithRevision", () => {
  // Objects as stored: any JSON members, and metadata absent, empty, or with any members
  // (keys that look like ours, integer-like keys that JSON orders first, escapes).
  const key = fc.oneof(fc.string(), fc.constantFrom("metadata", "resourceVersion", "__proto__", "0", "10", 'a"b', "é\n"));
  const json = fc.jsonValue({ maxDepth: 3 });
  const meta = fc.option(fc.dictionary(key, json, { maxKeys: 5 }), { nil: undefined });
  const object = fc.tuple(fc.dictionary(key, json, { maxKeys: 5 }), meta).map(([o, m]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) if (k !== "metadata") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    if (m !== undefined) out["metadata"] = m;
    return out as StoredObject;
  });

  it("writes exactly what JSON.stringify writes for the decoded object", () => {
    fc.assert(
      fc.property(object, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (o, revision) => {
        const stored = encodeObject("/k", o, false);
        expect(encodedWithRevision(stored, revision)).toBe(JSON.stringify(decodeObject(stored, revision)));
      }),
      { numRuns: 1000 },
    );
  });

  it("takes the long way for text of another shape (whitespace, duplicate or non-object metadata)", () => {
    for (const text of ['{ "metadata": {} }', '{"metadata":{},"metadata":{"a":1}}', '{"metadata":"x"}', '{"metadata":{"resourceVersion":"3"}}', "[]"]) {
      expect(encodedWithRevision(text, 9)).toBe(JSON.stringify(decodeObject(text, 9)));
    }
  });
});
