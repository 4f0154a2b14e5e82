import type { Lease } from "@skiff/api-types";
import { formatFieldError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { decodeObject } from "../decode.js";
import { validateObject, validateObjectUpdate } from "../validate.js";
import { validateLease, validateLeaseUpdate } from "./lease.js";

const lease = (spec?: Lease["spec"], name = "node-1"): Lease => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name, namespace: "kube-node-lease" },
  ...(spec === undefined ? {} : { spec }),
});

const msgs = (l: Lease, old?: Lease) => (old ? validateLeaseUpdate(l, old) : validateLease(l)).map(formatFieldError);

describe("validateLease", () => {
  it("accepts a node lease, an empty spec and no spec", () => {
    const renewTime = "2024-01-02T03:04:05.123456Z";
    expect(validateLease(lease({ holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime, acquireTime: renewTime, leaseTransitions: 0 }))).toEqual([]);
    expect(validateLease(lease({}))).toEqual([]);
    expect(validateLease(lease())).toEqual([]);
  });

  it("rejects a non-positive duration and negative transitions with 1.23's messages", () => {
    expect(msgs(lease({ leaseDurationSeconds: 0 }))).toEqual(["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]);
    expect(msgs(lease({ leaseDurationSeconds: -5, leaseTransitions: -1 }))).toEqual([
      "spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must to greater or equal than 0",
    ]);
  });

  it("needs a namespace and a DNS-1123 subdomain name", () => {
    const noNamespace: Lease = { metadata: { name: "n" } };
    expect(validateLease(noNamespace).map((e) => e.field)).toEqual(["metadata.namespace"]);
    expect(validateLease(lease({}, "Node_1")).map((e) => e.field)).toEqual(["metadata.name"]);
  });

  it("on update applies the spec rules and the object-meta update rules; the spec may change freely", () => {
    const old = { ...lease({ holderIdentity: "a", leaseDurationSeconds: 40 }), metadata: { name: "node-1", namespace: "kube-node-lease", resourceVersion: "1" } };
    const next = { ...old, spec: { holderIdentity: "b", leaseDurationSeconds: 10, leaseTransitions: 1 } };
    expect(validateLeaseUpdate(next, old)).toEqual([]);
    expect(msgs({ ...next, spec: { leaseDurationSeconds: 0 } }, old)).toEqual(["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]);
    expect(validateLeaseUpdate({ ...next, metadata: { ...old.metadata, name: "other" } }, old).map((e) => e.field)).toContain("metadata.name");
  });

  it("is dispatched by validateObject and validateObjectUpdate", () => {
    expect(validateObject("Lease", lease({ leaseDurationSeconds: 0 })).map((e) => e.field)).toEqual(["spec.leaseDurationSeconds"]);
    const withRV = (l: Lease): Lease => ({ ...l, metadata: { ...l.metadata, resourceVersion: "7" } });
    expect(validateObjectUpdate("Lease", withRV(lease({ leaseTransitions: -2 })), withRV(lease({}))).map((e) => e.field)).toEqual(["spec.leaseTransitions"]);
  });
});

describe("decodeObject Lease", () => {
  it("decodes MicroTime strings and rejects malformed fields", () => {
    const ok = decodeObject("Lease", { ...lease({ renewTime: "2024-01-02T03:04:05.123456Z", leaseDurationSeconds: 40 }) }, { fieldValidation: "Strict" });
    expect(ok.ok).toBe(true);
    expect(decodeObject("Lease", lease({ renewTime: "yesterday" }), { fieldValidation: "Strict" }).ok).toBe(false);
    expect(decodeObject("Lease", { spec: { leaseDurationSeconds: "40" } }, { fieldValidation: "Strict" }).ok).toBe(false);
    expect(decodeObject("Lease", { spec: { leaseTransitions: 2 ** 31 } }, { fieldValidation: "Strict" }).ok).toBe(false);
    const unknown = decodeObject("Lease", { spec: { holder: "x" } }, { fieldValidation: "Warn" });
    expect(unknown.ok && unknown.unknownFields).toEqual(["spec.holder"]);
  });
});
