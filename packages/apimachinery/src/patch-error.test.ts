import { describe, expect, it } from "vitest";
import { PatchError, isPatchError } from "./patch-error.js";

describe("PatchError", () => {
  it("carries the reason, its HTTP code and the cause", () => {
    const cause = new Error("inner");
    const cases = [
      ["BadRequest", 400],
      ["Invalid", 422],
      ["RequestEntityTooLarge", 413],
    ] as const;
    for (const [reason, code] of cases) {
      const e = new PatchError(reason, "msg", { cause });
      expect(e).toBeInstanceOf(Error);
      expect(e.name).toBe("PatchError");
      expect(e.reason).toBe(reason);
      expect(e.code).toBe(code);
      expect(e.message).toBe("msg");
      expect(e.cause).toBe(cause);
    }
  });

  it("is recognised across package copies by name and reason", () => {
    expect(isPatchError(new PatchError("Invalid", "x"))).toBe(true);
    expect(isPatchError({ name: "PatchError", reason: "BadRequest" })).toBe(true);
    expect(isPatchError({ name: "PatchError" })).toBe(false);
    expect(isPatchError(new Error("PatchError"))).toBe(false);
    expect(isPatchError(undefined)).toBe(false);
  });
});
