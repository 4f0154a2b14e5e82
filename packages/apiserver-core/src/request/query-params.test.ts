import { isStatusError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { convertQueryBool, convertQueryInt64, firstQueryValues, isPrettyPrint, parseGoBool, parseQueryValues } from "./query-params.js";

function statusOf(f: () => unknown) {
  try {
    f();
  } catch (e) {
    if (isStatusError(e)) return e.status;
    throw e;
  }
  throw new Error("no error");
}

describe("parseQueryValues (Go 1.17 url.ParseQuery as URL.Query() keeps it)", () => {
  it.each([
    ["a=1&a=2", { a: ["1", "2"] }],
    ["watch", { watch: [""] }],
    ["watch=", { watch: [""] }],
    ["a=x+y&b=%2F", { a: ["x y"], b: ["/"] }],
    ["a=1;b=2&c=3", { c: ["3"] }],
    ["a=%zz&b=1", { b: ["1"] }],
    ["&&a=1&", { a: ["1"] }],
    ["a=b=c", { a: ["b=c"] }],
  ])("%s", (raw, want) => {
    expect({ ...parseQueryValues(raw) }).toEqual(want);
  });
  it("the first value of a repeated parameter is the one options take", () => {
    expect(firstQueryValues(parseQueryValues("limit=1&limit=abc&fieldManager=a&fieldManager=b"))).toEqual({ limit: "1", fieldManager: "a" });
  });
});

describe("convertQueryBool (Convert_Slice_string_To_bool)", () => {
  it.each([
    [undefined, undefined],
    ["true", true],
    ["True", true],
    ["TRUE", true],
    ["1", true],
    ["", true],
    ["yes", true],
    ["no", true],
    ["t", true],
    ["f", true],
    ["false", false],
    ["False", false],
    ["FALSE", false],
    ["fAlSe", false],
    ["0", false],
    ["00", true],
  ] as const)("%j → %j", (v, want) => {
    expect(convertQueryBool(v)).toBe(want);
  });
});

describe("convertQueryInt64 (strconv.ParseInt(s, 10, 64))", () => {
  it.each([
    [undefined, undefined],
    ["0", 0],
    ["42", 42],
    ["+7", 7],
    ["-3", -3],
    ["007", 7],
    ["9223372036854775807", 2 ** 63],
    ["-9223372036854775808", -(2 ** 63)],
  ] as const)("%j → %j", (v, want) => {
    expect(convertQueryInt64(v)).toBe(want);
  });
  it.each([
    ["", "invalid syntax"],
    ["abc", "invalid syntax"],
    ["1.5", "invalid syntax"],
    ["1e3", "invalid syntax"],
    [" 1", "invalid syntax"],
    ["0x10", "invalid syntax"],
    ["1_000", "invalid syntax"],
    ["-", "invalid syntax"],
    ["9223372036854775808", "value out of range"],
    ["-9223372036854775809", "value out of range"],
  ])("%j → 400 %s", (v, what) => {
    expect(statusOf(() => convertQueryInt64(v))).toMatchObject({ code: 400, reason: "BadRequest", message: `strconv.ParseInt: parsing ${JSON.stringify(v)}: ${what}` });
  });
  it("quotes the value as Go's strconv.Quote", () => {
    expect(statusOf(() => convertQueryInt64("a\u0001")).message).toBe('strconv.ParseInt: parsing "a\\x01": invalid syntax');
  });
});

describe("isPrettyPrint (strconv.ParseBool of pretty, then the User-Agent)", () => {
  it.each([
    [undefined, undefined, false],
    ["true", undefined, true],
    ["True", undefined, true],
    ["t", undefined, true],
    ["1", undefined, true],
    ["yes", undefined, false],
    ["false", "curl/8.0", false],
    ["", "curl/8.0", true],
    [undefined, "Wget/1.21", true],
    [undefined, "Mozilla/5.0 (X11)", true],
    [undefined, "OpenAPI-Generator/12.0.1/python", false],
    [undefined, "kubectl/v1.23.0", false],
  ] as const)("pretty=%j ua=%j → %j", (p, ua, want) => {
    expect(isPrettyPrint(p, ua)).toBe(want);
  });
  it("parseGoBool", () => {
    expect(["1", "t", "T", "TRUE", "true", "True"].map(parseGoBool)).toEqual(Array(6).fill(true));
    expect(["0", "f", "F", "FALSE", "false", "False"].map(parseGoBool)).toEqual(Array(6).fill(false));
    expect(parseGoBool("tRuE")).toBeUndefined();
  });
});
