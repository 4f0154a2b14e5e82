import { describe, expect, it } from "vitest";
import { StorageError, StorageErrorCode, isStorageError } from "./errors.js";

describe("StorageError", () => {
  it("words messages as Kubernetes' StorageError does", () => {
    const e = new StorageError("InvalidObj", { key: "/registry/jobs/ns/a", detail: "Precondition failed: UID in precondition: x, UID in object meta: y" });
    expect(e.message).toBe(
      "StorageError: invalid object, Code: 4, Key: /registry/jobs/ns/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: x, UID in object meta: y",
    );
    expect(new StorageError("KeyNotFound", { key: "/k", revision: 3 }).message).toBe(
      "StorageError: key not found, Code: 1, Key: /k, ResourceVersion: 3, AdditionalErrorMsg: <nil>",
    );
    expect(new StorageError("KeyExists", { key: "/k" }).message).toContain("key exists, Code: 2");
    expect(new StorageError("Conflict", { key: "/k" }).message).toContain("resource version conflicts, Code: 3");
    expect(new StorageError("Unreachable").message).toContain("server unreachable, Code: 5");
    expect(new StorageError("ResourceVersionExpired", { revision: 5, compactedRevision: 9 }).message).toBe("too old resource version: 5 (9)");
    expect(new StorageError("TooLargeResourceVersion", { revision: 12, currentRevision: 9, retryAfterSeconds: 1 }).message).toBe(
      "Too large resource version: 12, current: 9",
    );
    expect(new StorageError("InvalidError", { detail: "bad limit" }).message).toBe("bad limit");
  });

  it("carries code, key, revision and optional fields, and its cause", () => {
    const cause = new Error("disk");
    const e = new StorageError("Unreachable", { key: "/k", revision: 2, cause });
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ name: "StorageError", code: "Unreachable", key: "/k", revision: 2, detail: "" });
    expect(e.cause).toBe(cause);
    expect("retryAfterSeconds" in e).toBe(false);
    const t = new StorageError("TooLargeResourceVersion", { revision: 3, currentRevision: 2, retryAfterSeconds: 1 });
    expect(t).toMatchObject({ retryAfterSeconds: 1, currentRevision: 2 });
  });
});

describe("isStorageError", () => {
  it("recognises storage errors by name and code, also from another copy of the package", () => {
    const e = new StorageError("KeyExists", { key: "/k" });
    expect(isStorageError(e)).toBe(true);
    expect(isStorageError(e, "KeyExists")).toBe(true);
    expect(isStorageError(e, "KeyNotFound")).toBe(false);
    const foreign = Object.assign(new Error("x"), { name: "StorageError", code: "Conflict" });
    expect(isStorageError(foreign, "Conflict")).toBe(true);
  });

  it("rejects everything else", () => {
    for (const v of [null, undefined, "StorageError", 3, new Error("x"), { name: "StorageError", code: "Nope" }, { name: "Other", code: "Conflict" }]) {
      expect(isStorageError(v)).toBe(false);
    }
  });

  it("lists every code once", () => {
    expect(Object.keys(StorageErrorCode)).toEqual(Object.values(StorageErrorCode));
  });
});
