import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContinueTokenError, ResourceVersionError, decodeContinue, encodeContinue, formatResourceVersion, parseResourceVersion } from "./resource-version.js";

function rvError(s: string): ResourceVersionError {
  try {
    parseResourceVersion(s);
  } catch (e) {
    if (e instanceof ResourceVersionError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

function tokenError(t: string): string {
  try {
    decodeContinue(t);
  } catch (e) {
    if (e instanceof ContinueTokenError) return e.message;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(t)} to fail`);
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64url");

describe("parseResourceVersion", () => {
  it("parses decimal uint64 values", () => {
    expect(parseResourceVersion("1")).toBe(1n);
    expect(parseResourceVersion("12345")).toBe(12345n);
    expect(parseResourceVersion("007")).toBe(7n);
    expect(parseResourceVersion("18446744073709551615")).toBe(18446744073709551615n);
  });

  it("gives 0 for empty and zero", () => {
    expect(parseResourceVersion("")).toBe(0n);
    expect(parseResourceVersion("0")).toBe(0n);
  });

  it("rejects other syntax with Kubernetes' message", () => {
    const e = rvError("abc");
    expect(e.reason).toBe("InvalidSyntax");
    expect(e.message).toBe('resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
    for (const s of ["-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "１", "1_000"]) expect(rvError(s).reason).toBe("InvalidSyntax");
  });

  it("rejects values over uint64", () => {
    const e = rvError("18446744073709551616");
    expect(e.reason).toBe("OutOfRange");
    expect(e.message).toBe('resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range');
  });
});

describe("formatResourceVersion", () => {
  it("formats numbers and bigints", () => {
    expect(formatResourceVersion(0)).toBe("0");
    expect(formatResourceVersion(42)).toBe("42");
    expect(formatResourceVersion(18446744073709551615n)).toBe("18446744073709551615");
  });

  it("rejects values outside uint64 or not integers", () => {
    for (const v of [-1, 1.5, Number.NaN, 2 ** 60, -1n, 18446744073709551616n]) expect(() => formatResourceVersion(v)).toThrow(ResourceVersionError);
  });

  it("round-trips with parseResourceVersion", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 18446744073709551615n }), (n) => {
        expect(parseResourceVersion(formatResourceVersion(n))).toBe(n);
      }),
    );
  });
});

describe("continue tokens", () => {
  it("encode exactly as Kubernetes does", () => {
    const t = encodeContinue({ resourceVersion: 42n, startKey: "default/pi\u0000" });
    expect(Buffer.from(t, "base64url").toString()).toBe('{"v":"meta.k8s.io/v1","rv":42,"start":"default/pi\\u0000"}');
    expect(t).not.toMatch(/[=+/]/);
    expect(Buffer.from(encodeContinue({ resourceVersion: 1n, startKey: "a<b>&c" }), "base64url").toString()).toBe(
      '{"v":"meta.k8s.io/v1","rv":1,"start":"a\\u003cb\\u003e\\u0026c"}',
    );
  });

  it("round-trip", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) }),
        fc.array(fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,8}$/), { minLength: 1, maxLength: 3 }),
        (rv, parts) => {
          const startKey = `${parts.join("/")}\u0000`;
          expect(decodeContinue(encodeContinue({ resourceVersion: rv, startKey }))).toEqual({ resourceVersion: rv, startKey });
        },
      ),
    );
  });

  it("decode tokens Kubernetes produced", () => {
    const t = b64('{"v":"meta.k8s.io/v1","rv":1234,"start":"kube-system/coredns\\u0000"}');
    expect(decodeContinue(t)).toEqual({ resourceVersion: 1234n, startKey: "kube-system/coredns\u0000" });
    expect(decodeContinue(`${t.slice(0, 10)}\r\n${t.slice(10)}`)).toEqual({ resourceVersion: 1234n, startKey: "kube-system/coredns\u0000" });
  });

  it("accept a leading slash and a negative (inconsistent) revision, as 1.23 does", () => {
    expect(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":5,"start":"/default/a"}'))).toEqual({ resourceVersion: 5n, startKey: "default/a" });
    expect(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":-1,"start":"a"}'))).toEqual({ resourceVersion: -1n, startKey: "a" });
  });

  it("reject keys that escape the prefix or are not clean", () => {
    for (const start of ["../secrets/a", "a/../../b", "a/./b", "a//b", "a/", "./a", "/.."]) {
      expect(tokenError(b64(JSON.stringify({ v: "meta.k8s.io/v1", rv: 1, start })))).toBe(`continue key is not valid: ${start}`);
    }
  });

  it("reject malformed tokens with Kubernetes' messages", () => {
    expect(tokenError(b64('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'))).toBe(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
    expect(tokenError(b64('{"v":"meta.k8s.io/v1","start":"a"}'))).toBe(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
    expect(tokenError(b64('{"v":"meta.k8s.io/v1","rv":3,"start":""}'))).toBe(
      "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)",
    );
    expect(tokenError(b64('{"v":"v2","rv":3,"start":"a"}'))).toBe('continue key is not valid: server does not recognize this encoded version "v2"');
    expect(tokenError(b64("{}"))).toBe('continue key is not valid: server does not recognize this encoded version ""');
    expect(tokenError("abc$")).toBe("continue key is not valid: illegal base64 data at input byte 3");
    expect(tokenError("abc=")).toBe("continue key is not valid: illegal base64 data at input byte 3");
    expect(tokenError("abcde")).toBe("continue key is not valid: illegal base64 data at input byte 4");
    expect(tokenError(b64("not json"))).toMatch(/^continue key is not valid: /);
    expect(tokenError(b64("[1]"))).toBe("continue key is not valid: the token is not a JSON object");
    expect(tokenError(b64('{"v":1}'))).toBe("continue key is not valid: field v is not a string");
    expect(tokenError(b64('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'))).toBe("continue key is not valid: field rv is not an integer");
    expect(tokenError(b64('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'))).toBe("continue key is not valid: field rv is not an integer");
    expect(tokenError(b64('{"v":"meta.k8s.io/v1","rv":9007199254740993,"start":"a"}'))).toBe("continue key is not valid: field rv is out of range");
    expect(tokenError(b64('{"v":"meta.k8s.io/v1","rv":1,"start":7}'))).toBe("continue key is not valid: field start is not a string");
    expect(tokenError("")).toMatch(/^continue key is not valid: /);
  });

  it("refuse to encode tokens that would not decode", () => {
    expect(() => encodeContinue({ resourceVersion: 0n, startKey: "a" })).toThrow(ContinueTokenError);
    expect(() => encodeContinue({ resourceVersion: 2n ** 63n, startKey: "a" })).toThrow(ContinueTokenError);
    expect(() => encodeContinue({ resourceVersion: 1n, startKey: "" })).toThrow("encoded start key empty");
    expect(() => encodeContinue({ resourceVersion: 1n, startKey: "../a" })).toThrow("continue key is not valid: ../a");
  });

  it("carry a stable reason", () => {
    expect(new ContinueTokenError("x").reason).toBe("InvalidContinueToken");
    expect(new ContinueTokenError("x").name).toBe("ContinueTokenError");
  });
});
