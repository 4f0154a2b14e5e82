import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidAPIVersionError, apiVersionOf, isInvalidAPIVersionError, parseAPIVersion } from "./api-version.js";
import { CSIDriverGVK, JobGVK, PodGVK, TableGVK } from "./constants.js";

describe("apiVersionOf", () => {
  it("joins group and version, and leaves the core group bare", () => {
    expect(apiVersionOf(JobGVK)).toBe("batch/v1");
    expect(apiVersionOf(CSIDriverGVK)).toBe("storage.example.io/v1");
    expect(apiVersionOf(PodGVK)).toBe("v1");
    expect(apiVersionOf(TableGVK)).toBe("meta.k8s.io/v1");
  });
});

describe("parseAPIVersion", () => {
  it("splits group/version and reads a bare version as the core group", () => {
    expect(parseAPIVersion("batch/v1")).toEqual({ group: "batch", version: "v1" });
    expect(parseAPIVersion("storage.example.io/v1")).toEqual({ group: "storage.example.io", version: "v1" });
    expect(parseAPIVersion("v1")).toEqual({ group: "", version: "v1" });
  });

  it.each(["", "/", "batch/", "/v1", "a/b/c", "batch/v1/"])("rejects %j with a typed error", (text) => {
    let caught: unknown;
    try {
      parseAPIVersion(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidAPIVersionError);
    expect(isInvalidAPIVersionError(caught)).toBe(true);
    expect((caught as InvalidAPIVersionError).code).toBe("InvalidAPIVersion");
    expect((caught as InvalidAPIVersionError).apiVersion).toBe(text);
    expect((caught as Error).message).toContain(JSON.stringify(text));
  });

  it("recognizes its error by name and code only", () => {
    const lookalike = Object.assign(new Error("x"), { name: "InvalidAPIVersionError", code: "InvalidAPIVersion" });
    expect(isInvalidAPIVersionError(lookalike)).toBe(true);
    expect(isInvalidAPIVersionError(new Error("x"))).toBe(false);
    expect(isInvalidAPIVersionError({ name: "InvalidAPIVersionError", code: "InvalidAPIVersion" })).toBe(false);
    expect(isInvalidAPIVersionError(undefined)).toBe(false);
  });

  it("is the inverse of apiVersionOf", () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/);
    fc.assert(
      fc.property(fc.oneof(fc.constant(""), segment), segment, (group, version) => {
        expect(parseAPIVersion(apiVersionOf({ group, version }))).toEqual({ group, version });
      }),
    );
  });
});
