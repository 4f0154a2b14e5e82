import { describe, expect, it } from "vitest";
import { errorToStatus } from "@skiff/apimachinery";
import { MemoryStorage, StorageError } from "@skiff/storage";
import { GenericStore } from "./store.js";
import type { ResourceStrategy } from "./strategy.js";

const store = new GenericStore({ resource: { group: "batch", plural: "jobs", kind: "Job" } } as unknown as ResourceStrategy, new MemoryStorage());

describe("GenericStore.interpret", () => {
  it("answers storage Unreachable (also a write whose outcome is unknown) as 1.23's Interpret*Error: 500 ServerTimeout, retry after 2 s", () => {
    const unreachable = new StorageError("Unreachable", { key: "/registry/batch/jobs/default/pi", detail: "the outcome of the write is unknown: etcd: 14 UNAVAILABLE" });
    for (const operation of ["create", "get", "list", "update", "delete"] as const) {
      const status = errorToStatus(store.interpret(unreachable, "pi", operation));
      expect(status).toMatchObject({
        code: 500,
        reason: "ServerTimeout",
        message: `The ${operation} operation against jobs.batch could not be completed at this time, please try again.`,
        details: { name: operation, group: "batch", kind: "jobs", retryAfterSeconds: 2 },
      });
    }
    // Never a conflict.
    expect(errorToStatus(store.interpret(unreachable, "pi")).code).toBe(500);
  });
});
