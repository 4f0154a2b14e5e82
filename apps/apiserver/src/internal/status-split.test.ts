import { describe, expect, it } from "vitest";
import type { APIObject } from "@skiff/apiserver-core";
import { keepAllButStatus } from "./status-split.js";

const stored = (): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns", labels: { a: "1" }, managedFields: [{ manager: "old", operation: "Update" }], resourceVersion: "7" },
  spec: { containers: [{ name: "c", image: "busybox" }] },
  status: { phase: "Pending" },
});

describe("keepAllButStatus", () => {
  it("keeps the stored object but the request's status and managedFields, in the stored key order", () => {
    const old = stored();
    const obj: APIObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { a: "changed" }, managedFields: [{ manager: "agent", operation: "Update", subresource: "status" }] }, spec: { containers: [] }, status: { phase: "Running" } };
    keepAllButStatus(obj, old);
    expect(obj).toEqual({ ...stored(), metadata: { ...stored().metadata, managedFields: [{ manager: "agent", operation: "Update", subresource: "status" }] }, status: { phase: "Running" } });
    expect(JSON.stringify(Object.keys(obj))).toBe(JSON.stringify(Object.keys(old)));
    expect(Object.keys(obj.metadata ?? {})).toEqual(Object.keys(old.metadata ?? {}));
    // A copy: changing the result leaves the stored object alone.
    (obj.metadata!.labels as Record<string, string>)["a"] = "x";
    (obj["spec"] as { containers: unknown[] }).containers.push({});
    expect(old).toEqual(stored());
  });

  it("drops the stored managedFields when the request has none, and a status the request leaves out", () => {
    const obj: APIObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } };
    keepAllButStatus(obj, stored());
    const { managedFields: _m, ...meta } = stored().metadata!;
    const { status: _s, ...rest } = stored();
    expect(obj).toEqual({ ...rest, metadata: meta });
  });

  it("adds the request's status when the stored object has none", () => {
    const { status: _s, ...noStatus } = stored();
    const obj: APIObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status: { phase: "Running" } };
    keepAllButStatus(obj, noStatus as APIObject);
    expect(obj["status"]).toEqual({ phase: "Running" });
    expect(Object.keys(obj).at(-1)).toBe("status");
  });
});
