/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import { FieldErrorType, formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { Node } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { setNodeDefaults } from "./defaults.js";
import { validateNode, validateNodeUpdate } from "./node.js";

type Obj = Record<string, any>;
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const node = (patch: (n: Obj) => void = () => {}): Node => {
  const n: Obj = {
    metadata: { name: "node-1", resourceVersion: "1", uid: "u" },
    spec: { podCIDR: "10.244.1.0/24", providerID: "skiff://node-1" },
    status: { capacity: { cpu: "4", memory: "8Gi", pods: "110" }, addresses: [{ type: "InternalIP", address: "10.0.0.5" }] },
  };
  setNodeDefaults(n as Node);
  patch(n);
  return n as Node;
};
const clone = (n: Node): Obj => structuredClone(n) as Obj;

describe("validateNode", () => {
  it("accepts a registered node", () => {
    expect(validateNode(node())).toEqual([]);
  });

  it("requires a cluster-scoped DNS-subdomain name", () => {
    expect(summary(validateNode(node((n) => ((n["metadata"].name = "Node_1"), (n["metadata"].namespace = "default")))))).toEqual([
      "FieldValueInvalid metadata.name",
      "FieldValueForbidden metadata.namespace",
    ]);
  });

  it("checks taints, reported under metadata.taints as Kubernetes does", () => {
    const errs = validateNode(
      node((n) => {
        n["spec"].taints = [
          { key: "node.example.io/unschedulable", effect: "NoSchedule" },
          { key: "node.example.io/unschedulable", effect: "NoSchedule" },
          { key: "k", value: "bad value", effect: "" },
          { key: "bad key", effect: "Sometimes" },
        ];
      }),
    );
    expect(errs.map((e) => `${e.type} ${e.field} ${e.detail.slice(0, 30)}`)).toEqual([
      "FieldValueDuplicate metadata.taints[1] taints must be unique by key a",
      "FieldValueInvalid metadata.taints[2].value a valid label must be an empty",
      "FieldValueRequired metadata.taints[2].effect ",
      "FieldValueInvalid metadata.taints[3].key name part must consist of alph",
      'FieldValueNotSupported metadata.taints[3].effect supported values: "NoSchedule"',
    ]);
    // The same key with another effect is fine.
    expect(
      validateNode(node((n) => (n["spec"].taints = [{ key: "k", effect: "NoSchedule" }, { key: "k", effect: "NoExecute" }]))),
    ).toEqual([]);
  });

  it("checks capacity and allocatable quantities", () => {
    const errs = validateNode(node((n) => (n["status"].capacity = { cpu: "-1", pods: "1.5", memory: "x" })));
    expect(summary(errs)).toEqual([
      "FieldValueInvalid status.capacity.cpu",
      "FieldValueInvalid status.capacity.pods",
      "FieldValueInvalid status.capacity.memory",
    ]);
    expect(errs[1]?.detail).toBe("must be an integer");
  });

  it("checks pod CIDRs", () => {
    expect(validateNode(node((n) => (n["spec"] = { podCIDRs: ["10.244.1.0/24", "fd00:1::/64"] })))).toEqual([]);
    const errs = validateNode(node((n) => (n["spec"] = { podCIDRs: ["10.244.1.0/33", "10.0.0.0/8", "10.0.0.0/8"] })));
    expect(summary(errs)).toEqual(["FieldValueInvalid spec.podCIDRs[0]", "FieldValueDuplicate spec.podCIDRs[2]"]);
    expect(errs[0]?.detail).toBe("must be valid CIDR");
    expect(validateNode(node((n) => (n["spec"] = { podCIDRs: ["10.0.0.0/8", "11.0.0.0/8"] }))).map(formatFieldError)).toEqual([
      'spec.podCIDRs: Invalid value: []string{"10.0.0.0/8", "11.0.0.0/8"}: may specify no more than one CIDR for each IP family',
    ]);
  });
});

describe("validateNodeUpdate", () => {
  const old = node();

  it("accepts status, label, unschedulable and taint changes", () => {
    const n = clone(old);
    n["metadata"].labels = { "example.io/hostname": "node-1" };
    n["spec"].unschedulable = true;
    n["spec"].taints = [{ key: "node.example.io/unschedulable", effect: "NoSchedule" }];
    n["status"].allocatable = { cpu: "3" };
    expect(validateNodeUpdate(n as Node, old)).toEqual([]);
  });

  it("lets podCIDR and providerID be set once, then keeps them", () => {
    const bare = node((n) => (n["spec"] = {}));
    const set = clone(bare);
    set["spec"] = { podCIDR: "10.1.0.0/24", podCIDRs: ["10.1.0.0/24"], providerID: "p" };
    expect(validateNodeUpdate(set as Node, bare)).toEqual([]);
    const changed = clone(old);
    changed["spec"].podCIDR = "10.9.0.0/24";
    changed["spec"].podCIDRs = ["10.9.0.0/24"];
    changed["spec"].providerID = "other";
    expect(validateNodeUpdate(changed as Node, old).map(formatFieldError)).toEqual([
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
  });

  it("rejects duplicate addresses, bad taints and metadata changes", () => {
    const n = clone(old);
    n["status"].addresses = [{ type: "InternalIP", address: "10.0.0.5" }, { type: "InternalIP", address: "10.0.0.5" }];
    n["spec"].taints = [{ key: "k" }];
    n["metadata"].uid = "other";
    n["spec"].externalID = "x";
    expect(summary(validateNodeUpdate(n as Node, old))).toEqual([
      "FieldValueInvalid metadata.uid",
      "FieldValueDuplicate status.addresses[1]",
      "FieldValueRequired metadata.taints[0].effect",
      "FieldValueForbidden spec.externalID",
    ]);
  });

  it("does not throw on malformed nodes", () => {
    expect(() => validateNodeUpdate({ spec: [], status: 5 } as unknown as Node, null as unknown as Node)).not.toThrow();
  });
});

describe("setNodeDefaults", () => {
  it("copies capacity to allocatable and syncs the pod CIDR fields", () => {
    const n = node();
    const o = n as Obj;
    expect(o["status"].allocatable).toEqual({ cpu: "4", memory: "8Gi", pods: "110" });
    expect(o["spec"].podCIDRs).toEqual(["10.244.1.0/24"]);
    const m: Obj = { spec: { podCIDRs: ["fd00::/64"] }, status: { capacity: { cpu: "1" }, allocatable: { cpu: "500m" } } };
    setNodeDefaults(m as Node);
    expect(m["spec"].podCIDR).toBe("fd00::/64");
    expect(m["status"].allocatable).toEqual({ cpu: "500m" });
    expect(() => setNodeDefaults(null as unknown as Node)).not.toThrow();
    expect(FieldErrorType.Invalid).toBe("FieldValueInvalid");
  });
});
