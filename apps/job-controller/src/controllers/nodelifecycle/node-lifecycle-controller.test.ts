import type { Node, Taint } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { FlagSet, wordSepNormalize } from "@skiff/flags";
import { controllerInitializers } from "../../controllers.js";
import { controllerManagerFlagTable, parseControllerManagerOptions } from "../../options.js";
import { desiredTaints, tolerationSecondsFor } from "./node-lifecycle-controller.js";
import type { NodeLifecycleOptionValues } from "./node-lifecycle-controller.js";

const unreachable: Taint = { key: "node.example.io/unreachable", effect: "NoExecute" };

function node(ready: "True" | "False" | "Unknown" | undefined, taints: Taint[] = []): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n1" },
    spec: { taints },
    status: ready === undefined ? {} : { conditions: [{ type: "Ready", status: ready }] },
  };
}

describe("tolerationSecondsFor", () => {
  it("no matching toleration: 0, or the admission default for not-ready/unreachable", () => {
    expect(tolerationSecondsFor({ key: "custom", effect: "NoExecute" }, [])).toBe(0);
    expect(tolerationSecondsFor(unreachable, [], { "node.example.io/unreachable": 300 })).toBe(300);
    expect(tolerationSecondsFor(unreachable, [{ key: "other", operator: "Exists" }], { "node.example.io/unreachable": 7 })).toBe(7);
  });
  it("the smallest tolerationSeconds of the matching tolerations; negative is 0; none set is forever", () => {
    expect(tolerationSecondsFor(unreachable, [{ operator: "Exists", tolerationSeconds: 30 }, { key: unreachable.key, operator: "Exists", tolerationSeconds: 10 }])).toBe(10);
    expect(tolerationSecondsFor(unreachable, [{ operator: "Exists", tolerationSeconds: -5 }])).toBe(0);
    expect(tolerationSecondsFor(unreachable, [{ operator: "Exists" }], { "node.example.io/unreachable": 300 })).toBeUndefined();
    expect(tolerationSecondsFor(unreachable, [{ operator: "Exists" }, { operator: "Exists", tolerationSeconds: 4 }])).toBe(4);
  });
});

describe("desiredTaints", () => {
  it("Ready=Unknown → unreachable NoSchedule + NoExecute (NoExecute with timeAdded); other taints kept", () => {
    const got = desiredTaints(node("Unknown", [{ key: "dedicated", value: "x", effect: "NoSchedule" }]));
    expect(got.map((x) => `${x.key}:${x.effect}`)).toEqual(["dedicated:NoSchedule", "node.example.io/unreachable:NoSchedule", "node.example.io/unreachable:NoExecute"]);
    // SwapNodeControllerTaint stamps every taint it adds.
    expect(got[2]?.timeAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(got[1]?.timeAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
  it("Ready=False → not-ready; swapping replaces unreachable", () => {
    const got = desiredTaints(node("False", [{ ...unreachable, timeAdded: "2020-01-01T00:00:00Z" }]));
    expect(got.map((x) => `${x.key}:${x.effect}`)).toEqual(["node.example.io/not-ready:NoSchedule", "node.example.io/not-ready:NoExecute"]);
  });
  it("existing taints keep timeAdded; Ready=True or no condition removes ours", () => {
    const kept = desiredTaints(node("Unknown", [{ ...unreachable, timeAdded: "2020-01-01T00:00:00Z" }]));
    expect(kept.find((x) => x.effect === "NoExecute")?.timeAdded).toBe("2020-01-01T00:00:00Z");
    expect(desiredTaints(node("True", [unreachable, { key: "a", effect: "NoExecute" }]))).toEqual([{ key: "a", effect: "NoExecute" }]);
    expect(desiredTaints(node(undefined, [unreachable]))).toEqual([]);
  });
  it("the apiserver's TaintNodesByCondition taint (not-ready:NoSchedule, no timeAdded) goes once Ready=True; stays while Ready=False", () => {
    const admitted: Taint = { key: "node.example.io/not-ready", effect: "NoSchedule" };
    const own: Taint = { key: "dedicated", value: "gpu", effect: "NoSchedule" };
    expect(desiredTaints(node("True", [own, admitted]))).toEqual([own]);
    const notReady = desiredTaints(node("False", [own, admitted]));
    expect(notReady.slice(0, 2)).toEqual([own, admitted]);
    expect(notReady.map((x) => `${x.key}:${x.effect}`)).toEqual(["dedicated:NoSchedule", "node.example.io/not-ready:NoSchedule", "node.example.io/not-ready:NoExecute"]);
  });
  const withConditions = (conditions: Array<[string, string]>, o: { taints?: Taint[]; unschedulable?: boolean } = {}): Node => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n1" },
    spec: { taints: o.taints ?? [], ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { conditions: conditions.map(([type, status]) => ({ type, status })) },
  });
  const keys = (taints: Taint[]) => taints.map((x) => `${x.key}:${x.effect}`);
  it("TaintNodesByCondition: each pressure / network condition that is True gets its NoSchedule taint", () => {
    const got = desiredTaints(withConditions([["Ready", "True"], ["MemoryPressure", "True"], ["DiskPressure", "True"], ["PIDPressure", "True"], ["NetworkUnavailable", "True"]]));
    expect(keys(got)).toEqual([
      "node.example.io/memory-pressure:NoSchedule",
      "node.example.io/disk-pressure:NoSchedule",
      "node.example.io/pid-pressure:NoSchedule",
      "node.example.io/network-unavailable:NoSchedule",
    ]);
    expect(got.every((x) => typeof x.timeAdded === "string")).toBe(true);
    // False and Unknown pressure conditions map to no taint (only Ready's do).
    expect(desiredTaints(withConditions([["Ready", "True"], ["MemoryPressure", "False"], ["DiskPressure", "Unknown"], ["NetworkUnavailable", "False"]]))).toEqual([]);
  });
  it("a condition that clears removes its taint; taints of others, and ours with another effect, stay", () => {
    const taints: Taint[] = [
      { key: "node.example.io/memory-pressure", effect: "NoSchedule", timeAdded: "2020-01-01T00:00:00Z" },
      { key: "node.example.io/disk-pressure", effect: "NoSchedule" },
      { key: "node.example.io/disk-pressure", effect: "PreferNoSchedule" },
      { key: "user", value: "x", effect: "NoSchedule" },
    ];
    const got = desiredTaints(withConditions([["Ready", "True"], ["MemoryPressure", "True"], ["DiskPressure", "False"]], { taints }));
    expect(got).toEqual([taints[0], taints[2], taints[3]]);
  });
  it("spec.unschedulable → node.example.io/unschedulable:NoSchedule, removed when it is unset", () => {
    expect(keys(desiredTaints(withConditions([["Ready", "True"]], { unschedulable: true })))).toEqual(["node.example.io/unschedulable:NoSchedule"]);
    expect(desiredTaints(withConditions([["Ready", "True"]], { taints: [{ key: "node.example.io/unschedulable", effect: "NoSchedule" }] }))).toEqual([]);
  });
  it("matches by key and effect: an existing taint with a value is kept as it is", () => {
    const t: Taint = { key: "node.example.io/memory-pressure", value: "v", effect: "NoSchedule" };
    expect(desiredTaints(withConditions([["MemoryPressure", "True"]], { taints: [t] }))).toEqual([t]);
  });
});

// The node lifecycle flags are parsed by the controller manager's one flag set (they used to be
// taken out of argv by a parser of their own, whose `rest` held the other arguments).
describe("node lifecycle flags (in the controller manager's flag set)", () => {
  const parse = (argv: readonly string[]) => parseControllerManagerOptions(argv, controllerInitializers);
  const nlc = (v: Record<string, unknown>) => v as unknown as NodeLifecycleOptionValues;
  it("defaults (1.23): 5s, 40s, 1m, 300, 300; other flags parse beside them", () => {
    const r = parse(["--clusterconfig", "k", "-v=2"]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([r.value.clusterconfig, r.value.verbosity]).toEqual(["k", 2]);
    const v = nlc(r.value);
    expect([v.nodeMonitorPeriod.ms, v.nodeMonitorGracePeriod.ms, v.nodeStartupGracePeriod.ms]).toEqual([5000, 40_000, 60_000]);
    expect([v.defaultNotReadyTolerationSeconds, v.defaultUnreachableTolerationSeconds]).toEqual([300, 300]);
  });
  it("takes its flags in both spellings, with _ or -; nothing after --", () => {
    const r = parseFlagsOnly(["--node-monitor-grace-period=4s", "--clusterconfig=k", "--node_monitor_period", "500ms", "--default-unreachable-toleration-seconds", "2", "--", "--node-monitor-period=1s"]);
    expect(r.ok && [nlc(r.value.values).nodeMonitorGracePeriod.ms, nlc(r.value.values).nodeMonitorPeriod.ms, nlc(r.value.values).defaultUnreachableTolerationSeconds]).toEqual([4000, 500, 2]);
    expect(r.ok && [r.value.values["clusterconfig"], r.value.args]).toEqual(["k", ["--node-monitor-period=1s"]]);
  });
  it("rejects bad values with the flag's name", () => {
    const bad = (argv: string[]): string[] => {
      const r = parse(["--clusterconfig=k", ...argv]);
      return r.ok ? [] : r.errors;
    };
    expect(bad(["--node-monitor-grace-period=soon"]).join()).toMatch(/node-monitor-grace-period/);
    expect(bad(["--node-monitor-period=0s"])).toEqual(["--node-monitor-period must be positive"]);
    expect(bad(["--default-not-ready-toleration-seconds=-1"])).toEqual(["--default-not-ready-toleration-seconds must not be negative"]);
    expect(bad(["--node-startup-grace-period"])).toEqual(["flag needs an argument: --node-startup-grace-period"]);
  });
});

function parseFlagsOnly(argv: readonly string[]) {
  return new FlagSet(controllerManagerFlagTable(controllerInitializers), { normalize: wordSepNormalize }).parse(argv);
}
