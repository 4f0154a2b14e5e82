import type { Lease } from "@skiff/api-types";
import type { RequestContext } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { createLeaseStrategy, leaseTable } from "./strategy.js";

const ctx: RequestContext = { namespace: "kube-node-lease", user: { username: "u", groups: [] }, now: new Date(), dryRun: false, warnings: [] };
const now = new Date("2024-01-01T00:05:00Z");
const lease = (): Lease & Record<string, unknown> => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name: "node-1", namespace: "kube-node-lease", creationTimestamp: "2024-01-01T00:00:00Z" },
  spec: { holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime: "2024-01-01T00:04:59.5Z" },
});

describe("Lease", () => {
  const s = createLeaseStrategy();
  it("identity: namespaced, PUT may create, updates need a resourceVersion, DELETE answers a Status", () => {
    expect(s.resource).toMatchObject({ group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", namespaced: true });
    expect(s.allowCreateOnUpdate).toBe(true);
    expect(s.allowUnconditionalUpdate).toBe(false);
    expect(s.returnDeletedObject).toBe(false);
    expect(s.getAttrs(lease()).fields).toEqual({ "metadata.name": "node-1", "metadata.namespace": "kube-node-lease" });
  });
  it("validates on create and update", () => {
    const o = lease();
    s.applyDefaults(o);
    s.prepareForCreate(ctx, o);
    expect(o.metadata?.generation).toBeUndefined();
    expect(s.validate(ctx, o)).toEqual([]);
    const bad = lease();
    bad.spec = { leaseDurationSeconds: 0 };
    expect(s.validate(ctx, bad).map((e) => e.field)).toEqual(["spec.leaseDurationSeconds"]);
    const old = { ...lease(), metadata: { ...lease().metadata, resourceVersion: "3" } };
    const next = structuredClone(old);
    next.spec = { leaseTransitions: -1 };
    expect(s.validateUpdate(ctx, next, old).map((e) => e.field)).toEqual(["spec.leaseTransitions"]);
  });
  it("canonicalizes acquireTime and renewTime to MicroTime (six fractional digits, UTC)", () => {
    const o = lease();
    o.spec = { acquireTime: "2024-01-01T01:00:00+01:00", renewTime: "2024-01-01T00:04:59.5Z", holderIdentity: "h" };
    s.canonicalize?.(o);
    expect(o.spec).toEqual({ acquireTime: "2024-01-01T00:00:00.000000Z", renewTime: "2024-01-01T00:04:59.500000Z", holderIdentity: "h" });
    const empty = lease();
    delete empty.spec;
    s.canonicalize?.(empty);
    expect(empty.spec).toBeUndefined();
  });
  it("printer: NAME, HOLDER, AGE", () => {
    expect(leaseTable.columns.map((c) => c.name.toUpperCase())).toEqual(["NAME", "HOLDER", "AGE"]);
    expect(leaseTable.cells(lease(), now)).toEqual(["node-1", "node-1", "5m"]);
    const unheld = lease();
    delete unheld.spec;
    expect(leaseTable.cells(unheld, now)).toEqual(["node-1", "", "5m"]);
  });
});
