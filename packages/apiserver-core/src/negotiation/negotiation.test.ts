import { describe, expect, it } from "vitest";
import { isStatusError } from "@skiff/apimachinery";
import { decodeBody, findDuplicateJSONKeys, negotiateResponse } from "./negotiation.js";

describe("findDuplicateJSONKeys", () => {
  it("finds nested duplicates with paths", () => {
    expect(findDuplicateJSONKeys('{"a":1,"b":{"c":[{"d":1,"d":2}],"c":"x\\"y"},"a":[]}')).toEqual(["b.c.d", "b.c", "a"]);
    expect(findDuplicateJSONKeys('{"a":{},"b":[],"c":null}')).toEqual([]);
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
});
