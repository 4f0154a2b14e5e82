import { describe, expect, it } from "vitest";
import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain, nameIsPathSegment } from "./names.js";

describe("name validators", () => {
  it("accepts valid names and rejects invalid ones", () => {
    expect(nameIsDNSSubdomain("my.pod-1", false)).toEqual([]);
    expect(nameIsDNSSubdomain("My_Pod", false)).toHaveLength(1);
    expect(nameIsDNSSubdomain("a".repeat(254), false)[0]).toBe("must be no more than 253 characters");
    expect(nameIsDNSLabel("ns-1", false)).toEqual([]);
    expect(nameIsDNSLabel("a.b", false)).toHaveLength(1);
    expect(nameIsDNS1035Label("svc", false)).toEqual([]);
    expect(nameIsDNS1035Label("1svc", false)).toHaveLength(1);
  });

  it("allows a trailing dash only in prefix (generateName) mode", () => {
    expect(nameIsDNSSubdomain("web-", false)).toHaveLength(1);
    expect(nameIsDNSSubdomain("web-", true)).toEqual([]);
    expect(nameIsDNSLabel("web-", true)).toEqual([]);
    expect(nameIsDNS1035Label("web-", true)).toEqual([]);
    // Masking does not rescue other problems, nor a lone dash.
    expect(nameIsDNSSubdomain("Web-", true)).toHaveLength(1);
    expect(nameIsDNSSubdomain("-", true)).toHaveLength(1);
  });

  it("checks path segments as the generic registry does", () => {
    expect(nameIsPathSegment("anything:goes", false)).toEqual([]);
    expect(nameIsPathSegment(".", false)).toEqual(["may not be '.'"]);
    expect(nameIsPathSegment("..", false)).toEqual(["may not be '..'"]);
    expect(nameIsPathSegment("a/b%c", false)).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(nameIsPathSegment("..", true)).toEqual([]);
    expect(nameIsPathSegment("a/", true)).toEqual(["may not contain '/'"]);
  });
});
