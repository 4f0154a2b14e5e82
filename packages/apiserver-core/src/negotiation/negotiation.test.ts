import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStatusError } from "@skiff/apimachinery";
import { decodeBody, findDuplicateJSONKeys, negotiateResponse } from "./negotiation.js";

describe("findDuplicateJSONKeys", () => {
  it("finds nested duplicates with paths", () => {
    expect(findDuplicateJSONKeys('{"a":1,"b":{"c":[{"d":1,"d":2}],"c":"x\\"y"},"a":[]}')).toEqual(["b.c.d", "b.c", "a"]);
    expect(findDuplicateJSONKeys('{"a":{},"b":[],"c":null}')).toEqual([]);
    expect(findDuplicateJSONKeys('{ "a" : { "x\\u0041" : 1 , "xA" : 2 } ,\n\t"a" : -1.5e3 }')).toEqual(["a.xA", "a"]);
  });

  // The JSON text of `v` where objects are lists of entries, so keys may repeat; and the
  // duplicates a reader of that text meets, in text order (the expected answer).
  type Doc = null | boolean | number | string | Doc[] | { entries: [string, Doc][] };
  const render = (d: Doc, ws: string, path: string[], dups: string[]): string => {
    if (d === null || typeof d !== "object") return JSON.stringify(d);
    if (Array.isArray(d)) return `[${ws}${d.map((x) => render(x, ws, path, dups)).join(`${ws},${ws}`)}${ws}]`;
    const seen = new Set<string>();
    const parts = d.entries.map(([k, v]) => {
      if (seen.has(k)) dups.push([...path, k].join("."));
      seen.add(k);
      // Escape some keys the long way, as a client may.
      const key = k.length % 2 === 0 ? JSON.stringify(k) : `"${[...k].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"`;
      return `${key}${ws}:${ws}${render(v, ws, [...path, k], dups)}`;
    });
    return `{${ws}${parts.join(`${ws},${ws}`)}${ws}}`;
  };
  const doc: fc.Arbitrary<Doc> = fc.letrec<{ doc: Doc }>((tie) => ({
    doc: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(),
      fc.array(tie("doc"), { maxLength: 4 }),
      fc.record({ entries: fc.array(fc.tuple(fc.constantFrom("a", "b", "ab", "k\"q", "é", ""), tie("doc")), { maxLength: 5 }) }),
    ),
  })).doc;

  it("agrees with a reader of any JSON text: every duplicate, with its path, in order", () => {
    fc.assert(
      fc.property(doc, fc.constantFrom("", " ", "\n  ", "\t"), (d, ws) => {
        const dups: string[] = [];
        const text = render(d, ws, [], dups);
        JSON.parse(text);
        expect(findDuplicateJSONKeys(text)).toEqual(dups);
      }),
      { numRuns: 500 },
    );
  });
});

describe("negotiateResponse", () => {
  it("picks forms and exact content types", () => {
    expect(negotiateResponse(undefined).form).toBe("json");
    expect(negotiateResponse("*/*").form).toBe("json");
    expect(negotiateResponse("application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json").contentType).toBe(
      "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
    );
    expect(negotiateResponse("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1").form).toBe("partial");
    expect(negotiateResponse("application/yaml").form).toBe("yaml");
  });
  it("406 for protobuf only", () => {
    expect(() => negotiateResponse("application/vnd.kubernetes.protobuf")).toThrow(/only the following media types/);
  });
});

describe("decodeBody", () => {
  it("415 for unknown types, 400 for malformed bodies", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isStatusError(e) ? e.status.code : -1;
      }
      return 0;
    };
    expect(code(() => decodeBody("text/plain", "{}", ["application/json"]))).toBe(415);
    expect(code(() => decodeBody("application/json", "{", ["application/json"]))).toBe(400);
    expect(code(() => decodeBody("application/yaml", "a: [", ["application/yaml"]))).toBe(400);
    expect(decodeBody("application/yaml", "a: 1", ["application/yaml"]).value).toEqual({ a: 1 });
  });

  it("lists duplicate JSON keys unless asked not to look for them", () => {
    const text = '{"metadata":{"name":"a","name":"b"}}';
    expect(decodeBody("application/json", text, ["application/json"]).duplicateFields).toEqual(["metadata.name"]);
    const d = decodeBody("application/json", text, ["application/json"], { findDuplicates: false });
    expect(d.duplicateFields).toEqual([]);
    expect(d.value).toEqual({ metadata: { name: "b" } });
  });
});
