import type { Node, Taint } from "@skiff/api-types";
import type { AdmissionAttributes } from "@skiff/apiserver-core";
import { describe, expect, it } from "vitest";
import { addNotReadyTaint, taintNodesByConditionAdmission } from "./taint-nodes-by-condition.js";

const notReady: Taint = { key: "node.example.io/not-ready", effect: "NoSchedule" };
const node = (taints?: Taint[]): Node => ({ apiVersion: "v1", kind: "Node", metadata: { name: "n" }, ...(taints ? { spec: { taints } } : {}) });

describe("addNotReadyTaint (1.23 TaintNodesByCondition)", () => {
  it("adds not-ready:NoSchedule to a node without spec or taints", () => {
    expect(addNotReadyTaint(node()).spec?.taints).toEqual([notReady]);
    expect(addNotReadyTaint({ ...node(), spec: {} }).spec?.taints).toEqual([notReady]);
    expect(addNotReadyTaint({ ...node(), spec: { podCIDR: "10.0.0.0/24" } }).spec).toEqual({ podCIDR: "10.0.0.0/24", taints: [notReady] });
  });
  it("appends after the node's own taints (e.g. --register-with-taints)", () => {
    const own: Taint = { key: "dedicated", value: "gpu", effect: "NoSchedule" };
    expect(addNotReadyTaint(node([own])).spec?.taints).toEqual([own, notReady]);
  });
  it.each<[string, Taint]>([
    ["the same key and effect", { key: "node.example.io/not-ready", effect: "NoSchedule" }],
    ["the same key and effect with a value", { key: "node.example.io/not-ready", value: "x", effect: "NoSchedule" }],
    ["the same key and effect with timeAdded", { key: "node.example.io/not-ready", effect: "NoSchedule", timeAdded: "2026-01-01T00:00:00Z" }],
  ])("keeps a node that already has a taint with %s as it is (no duplicate)", (_n, t) => {
    expect(addNotReadyTaint(node([t])).spec?.taints).toEqual([t]);
  });
  it.each<[string, Taint]>([
    ["the NoExecute effect", { key: "node.example.io/not-ready", effect: "NoExecute" }],
    ["the PreferNoSchedule effect", { key: "node.example.io/not-ready", effect: "PreferNoSchedule" }],
    ["another key", { key: "node.example.io/unreachable", effect: "NoSchedule" }],
  ])("still adds it next to a taint with %s", (_n, t) => {
    expect(addNotReadyTaint(node([t])).spec?.taints).toEqual([t, notReady]);
  });
});

describe("taintNodesByConditionAdmission", () => {
  const attrs = (over: Partial<{ operation: AdmissionAttributes["operation"]; resource: string; subresource: string; apiGroup: string }>, object: Node) =>
    ({
      operation: over.operation ?? "CREATE",
      info: { apiGroup: over.apiGroup ?? "", resource: over.resource ?? "nodes", subresource: over.subresource ?? "" },
      object,
      oldObject: undefined,
    }) as unknown as AdmissionAttributes;
  const plugin = taintNodesByConditionAdmission();
  it("is named as 1.23's plugin", () => {
    expect(plugin.name).toBe("TaintNodesByCondition");
    expect(plugin.validate).toBeUndefined();
  });
  it("taints a Node on CREATE", async () => {
    const n = node();
    await plugin.mutate?.(attrs({}, n));
    expect(n.spec?.taints).toEqual([notReady]);
  });
  it("leaves UPDATE alone (a node whose taint was removed is not re-tainted)", async () => {
    const n = node([]);
    await plugin.mutate?.(attrs({ operation: "UPDATE" }, n));
    expect(n.spec?.taints).toEqual([]);
  });
  it("leaves subresources, other resources and groups alone", async () => {
    for (const over of [{ subresource: "status" }, { resource: "pods" }, { apiGroup: "example.io", resource: "nodes" }]) {
      const n = node();
      await plugin.mutate?.(attrs(over, n));
      expect(n.spec).toBeUndefined();
    }
  });
  it("does nothing on DELETE", async () => {
    await expect(Promise.resolve(plugin.mutate?.({ ...attrs({ operation: "DELETE" }, node()), object: undefined }))).resolves.toBeUndefined();
  });
});
