import type { Taint, Toleration } from "@skiff/api-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findMatchingUntoleratedTaint, taintToleratedBy, toleratesTaint } from "./taints.js";

describe("toleratesTaint (1.23 Toleration.ToleratesTaint)", () => {
  const taint: Taint = { key: "k", value: "v", effect: "NoSchedule" };
  it.each<[string, Toleration, boolean]>([
    ["Equal key and value", { key: "k", operator: "Equal", value: "v", effect: "NoSchedule" }, true],
    ["the empty operator is Equal", { key: "k", value: "v" }, true],
    ["Equal with another value", { key: "k", value: "x" }, false],
    ["Equal without a value against a valued taint", { key: "k" }, false],
    ["Exists ignores the value", { key: "k", operator: "Exists" }, true],
    ["an empty key with Exists tolerates every taint", { operator: "Exists" }, true],
    ["another effect", { key: "k", value: "v", effect: "NoExecute" }, false],
    ["an empty effect matches every effect", { key: "k", value: "v" }, true],
    ["another key", { key: "x", operator: "Exists" }, false],
    ["an unknown operator tolerates nothing", { key: "k", operator: "Gt" as never, value: "v" }, false],
  ])("%s", (_n, t, want) => expect(toleratesTaint(t, taint)).toBe(want));

  it("a taint without a value is tolerated by Equal without a value", () => {
    expect(toleratesTaint({ key: "k", operator: "Equal" }, { key: "k", effect: "NoExecute" })).toBe(true);
    expect(toleratesTaint({ key: "k", operator: "Equal", value: "" }, { key: "k", effect: "NoExecute" })).toBe(true);
  });
});

describe("findMatchingUntoleratedTaint (1.23 component-helpers)", () => {
  const noExecute = (t: Taint) => t.effect === "NoExecute";
  it("returns the first taint in the node's order that passes the filter and is not tolerated", () => {
    const taints: Taint[] = [
      { key: "a", effect: "NoSchedule" },
      { key: "b", effect: "NoExecute" },
      { key: "c", effect: "NoExecute" },
    ];
    expect(findMatchingUntoleratedTaint(taints, [], noExecute)).toEqual({ key: "b", effect: "NoExecute" });
    expect(findMatchingUntoleratedTaint(taints, [{ key: "b", operator: "Exists" }], noExecute)).toEqual({ key: "c", effect: "NoExecute" });
    expect(findMatchingUntoleratedTaint(taints, [{ operator: "Exists", effect: "NoExecute" }], noExecute)).toBeUndefined();
    expect(findMatchingUntoleratedTaint(undefined, undefined, noExecute)).toBeUndefined();
  });

  it("property: the answer is exactly the first filtered taint no toleration tolerates", () => {
    const effect = fc.constantFrom("NoSchedule", "PreferNoSchedule", "NoExecute");
    const key = fc.constantFrom("a", "b", "c");
    const value = fc.option(fc.constantFrom("", "x", "y"), { nil: undefined });
    const taint = fc.record({ key, value, effect }, { requiredKeys: ["key", "effect"] });
    const toleration = fc.record({ key: fc.constantFrom("", "a", "b"), operator: fc.constantFrom("", "Equal", "Exists"), value, effect: fc.constantFrom("", "NoSchedule", "NoExecute") }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.array(taint, { maxLength: 5 }), fc.array(toleration, { maxLength: 4 }), (taints, tolerations) => {
        const got = findMatchingUntoleratedTaint(taints as Taint[], tolerations as Toleration[], noExecute);
        const want = (taints as Taint[]).find((t) => noExecute(t) && !taintToleratedBy(t, tolerations as Toleration[]));
        expect(got).toBe(want);
      }),
    );
  });
});
