import type { Node, NodeSelectorRequirement, Pod } from "@skiff/api-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchNodeSelectorRequirement, nodeSelectorTermMatches, requiredNodeAffinityMatches } from "./node-affinity.js";

const n: Node = { metadata: { name: "node-a", labels: { zone: "z1", gen: "5", disk: "ssd", empty: "" } } };
const term = (...e: NodeSelectorRequirement[]) => ({ matchExpressions: e });
const pod = (spec: Partial<NonNullable<Pod["spec"]>>): Pod => ({ metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } });
const affinity = (terms: object[]) => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });

describe("nodeSelectorTermMatches (1.23 nodeaffinity)", () => {
  it.each<[string, NodeSelectorRequirement, boolean]>([
    ["In match", { key: "zone", operator: "In", values: ["z0", "z1"] }, true],
    ["In miss", { key: "zone", operator: "In", values: ["z2"] }, false],
    ["In absent label", { key: "nope", operator: "In", values: ["z1"] }, false],
    ["In without values cannot be parsed", { key: "zone", operator: "In", values: [] }, false],
    ["NotIn match", { key: "zone", operator: "NotIn", values: ["z2"] }, true],
    ["NotIn miss", { key: "zone", operator: "NotIn", values: ["z1"] }, false],
    ["NotIn absent label matches", { key: "nope", operator: "NotIn", values: ["z1"] }, true],
    ["NotIn without values cannot be parsed", { key: "nope", operator: "NotIn" }, false],
    ["Exists", { key: "disk", operator: "Exists" }, true],
    ["Exists on an empty value", { key: "empty", operator: "Exists" }, true],
    ["Exists absent", { key: "nope", operator: "Exists" }, false],
    ["Exists with values cannot be parsed", { key: "disk", operator: "Exists", values: ["ssd"] }, false],
    ["DoesNotExist", { key: "nope", operator: "DoesNotExist" }, true],
    ["DoesNotExist present", { key: "disk", operator: "DoesNotExist" }, false],
    ["Gt", { key: "gen", operator: "Gt", values: ["4"] }, true],
    ["Gt equal fails", { key: "gen", operator: "Gt", values: ["5"] }, false],
    ["Gt with a signed value", { key: "gen", operator: "Gt", values: ["-4"] }, true],
    ["Lt", { key: "gen", operator: "Lt", values: ["6"] }, true],
    ["Lt non-integer label fails", { key: "zone", operator: "Lt", values: ["6"] }, false],
    ["Lt non-integer value fails", { key: "gen", operator: "Lt", values: ["6.5"] }, false],
    ["Gt beyond int64 fails, as strconv.ParseInt", { key: "gen", operator: "Lt", values: ["9223372036854775808"] }, false],
    ["Gt needs exactly one value", { key: "gen", operator: "Gt", values: ["1", "2"] }, false],
    ["Gt on an absent label", { key: "nope", operator: "Gt", values: ["1"] }, false],
    ["unknown operator", { key: "gen", operator: "Near" as never, values: [] }, false],
  ])("matchExpressions %s", (_n, req, want) => expect(nodeSelectorTermMatches(term(req), n)).toBe(want));

  it("matchFields: metadata.name with In/NotIn and one value; other keys read as the empty string", () => {
    expect(nodeSelectorTermMatches({ matchFields: [{ key: "metadata.name", operator: "In", values: ["node-a"] }] }, n)).toBe(true);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["node-a"] }] }, n)).toBe(false);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["node-b"] }] }, n)).toBe(true);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: "metadata.name", operator: "In", values: ["node-a", "node-b"] }] }, n)).toBe(false);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: "metadata.name", operator: "Exists" }] }, n)).toBe(false);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: "metadata.uid", operator: "In", values: ["x"] }] }, n)).toBe(false);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: "metadata.uid", operator: "NotIn", values: ["x"] }] }, n)).toBe(true);
  });

  it("an empty term matches nothing; requirements of a term are ANDed", () => {
    expect(nodeSelectorTermMatches({}, n)).toBe(false);
    expect(nodeSelectorTermMatches({ matchExpressions: [], matchFields: [] }, n)).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: "zone", operator: "In", values: ["z1"] }, { key: "disk", operator: "DoesNotExist" }), n)).toBe(false);
    expect(nodeSelectorTermMatches({ ...term({ key: "zone", operator: "In", values: ["z1"] }), matchFields: [{ key: "metadata.name", operator: "In", values: ["node-a"] }] }, n)).toBe(true);
  });

  it("a label named like an Object prototype property is not present unless the node has it", () => {
    expect(matchNodeSelectorRequirement({ key: "constructor", operator: "Exists" }, undefined)).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: "constructor", operator: "DoesNotExist" }), n)).toBe(true);
    expect(requiredNodeAffinityMatches(pod({ nodeSelector: { toString: "x" } }), n)).toBe(false);
  });
});

describe("requiredNodeAffinityMatches (1.23 GetRequiredNodeAffinity(pod).Match)", () => {
  it("nodeSelector: every label present with the same value", () => {
    expect(requiredNodeAffinityMatches(pod({}), n)).toBe(true);
    expect(requiredNodeAffinityMatches(pod({ nodeSelector: { zone: "z1", disk: "ssd" } }), n)).toBe(true);
    expect(requiredNodeAffinityMatches(pod({ nodeSelector: { zone: "z2" } }), n)).toBe(false);
    expect(requiredNodeAffinityMatches(pod({ nodeSelector: { empty: "" } }), n)).toBe(true);
    expect(requiredNodeAffinityMatches(pod({ nodeSelector: { other: "" } }), n)).toBe(false);
    expect(requiredNodeAffinityMatches(pod({ nodeSelector: { zone: "z1" } }), { metadata: { name: "bare" } })).toBe(false);
  });

  it("required terms are ORed, and ANDed with the nodeSelector", () => {
    expect(requiredNodeAffinityMatches(affinity([term({ key: "zone", operator: "In", values: ["z9"] }), term({ key: "disk", operator: "Exists" })]), n)).toBe(true);
    expect(requiredNodeAffinityMatches(affinity([term({ key: "zone", operator: "In", values: ["z9"] })]), n)).toBe(false);
    expect(requiredNodeAffinityMatches(affinity([]), n)).toBe(false);
    const both = { ...affinity([term({ key: "disk", operator: "Exists" })]) };
    both.spec = { ...both.spec!, nodeSelector: { zone: "z2" } };
    expect(requiredNodeAffinityMatches(both, n)).toBe(false);
  });

  it("property: NotIn is the negation of In for a parseable requirement, and Exists of DoesNotExist", () => {
    fc.assert(
      fc.property(fc.constantFrom("zone", "gen", "nope"), fc.array(fc.constantFrom("z1", "5", "ssd", "x"), { minLength: 1, maxLength: 3 }), (key, values) => {
        const value = n.metadata?.labels?.[key];
        expect(matchNodeSelectorRequirement({ key, operator: "NotIn", values }, value)).toBe(!matchNodeSelectorRequirement({ key, operator: "In", values }, value));
        expect(matchNodeSelectorRequirement({ key, operator: "Exists" }, value)).toBe(!matchNodeSelectorRequirement({ key, operator: "DoesNotExist" }, value));
      }),
    );
  });
});
