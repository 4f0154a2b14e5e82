import type { Node, Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { prepareClusterFilters } from "./inter-pod.js";
import { filterNode, newNodeInfo, type NodeInfo } from "./predicates.js";
import { moreImportantPod, pickOneNodeForPreemption, podEligibleToPreemptOthers, preempt, reasonPreemptionNotHelpful, selectVictimsOnNode, type PreemptionFilter } from "./preemption.js";

const node = (name: string, cpu = "4", labels: Record<string, string> = {}): Node => ({
  metadata: { name, labels: { "example.io/hostname": name, ...labels } },
  status: { allocatable: { cpu, memory: "8Gi", pods: "110" }, conditions: [{ type: "Ready", status: "True" }] },
});
const pod = (name: string, priority: number, cpu: string, extra: { startTime?: string; deleting?: boolean; spec?: Partial<NonNullable<Pod["spec"]>>; nominated?: string } = {}): Pod => ({
  metadata: { name, namespace: "default", ...(extra.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
  spec: { priority, containers: [{ name: "c", image: "i", resources: { requests: { cpu } } }], ...extra.spec },
  status: { ...(extra.startTime ? { startTime: extra.startTime } : {}), ...(extra.nominated ? { nominatedNodeName: extra.nominated } : {}) },
});
const filter: PreemptionFilter = (p, info, all) => filterNode(p, info, prepareClusterFilters(p, all, () => undefined));
const now = Date.parse("2026-06-01T00:00:00Z");

// The cycle as the scheduler runs it: filter every node, then preempt.
function run(incoming: Pod, infos: NodeInfo[]) {
  const reasons = new Map(infos.map((i) => [i.node.metadata?.name ?? "", filter(incoming, i, infos)]));
  return preempt(incoming, infos, reasons, filter, now);
}

describe("preemption (1.23 DefaultPreemption)", () => {
  it("orders pods by importance: priority, then the earlier start; a pod not started counts as starting now", () => {
    expect(moreImportantPod(pod("a", 10, "1"), pod("b", 5, "1"), now)).toBe(true);
    expect(moreImportantPod(pod("a", 5, "1", { startTime: "2026-01-01T00:00:00Z" }), pod("b", 5, "1", { startTime: "2026-02-01T00:00:00Z" }), now)).toBe(true);
    expect(moreImportantPod(pod("a", 5, "1"), pod("b", 5, "1", { startTime: "2026-02-01T00:00:00Z" }), now)).toBe(false);
  });

  it("a pod with preemptionPolicy Never, or nominated where a lower-priority pod still terminates, does not preempt", () => {
    const n1 = newNodeInfo(node("n1"), [pod("low", 1, "4", { deleting: true })]);
    expect(podEligibleToPreemptOthers(pod("p", 10, "1", { spec: { preemptionPolicy: "Never" } }), [n1], undefined)).toBe(false);
    expect(podEligibleToPreemptOthers(pod("p", 10, "1", { nominated: "n1" }), [n1], ["Insufficient cpu"])).toBe(false);
    // The nominated node now fails for a reason preemption cannot help: try again.
    expect(podEligibleToPreemptOthers(pod("p", 10, "1", { nominated: "n1" }), [n1], ["node(s) didn't match Pod's node affinity/selector"])).toBe(true);
    expect(podEligibleToPreemptOthers(pod("p", 10, "1"), [n1], undefined)).toBe(true);
    expect(run(pod("p", 10, "1", { spec: { preemptionPolicy: "Never" } }), [newNodeInfo(node("n1"), [pod("low", 1, "4")])])).toEqual({ outcome: "ineligible" });
  });

  it("removes every lower-priority pod, then reprieves the most important ones while the pod still fits", () => {
    const info = newNodeInfo(node("n1", "4"), [pod("high", 20, "1"), pod("old", 1, "1", { startTime: "2026-01-01T00:00:00Z" }), pod("new", 1, "1", { startTime: "2026-03-01T00:00:00Z" }), pod("mid", 5, "1")]);
    const r = selectVictimsOnNode(pod("p", 10, "2"), info, [info], filter, now);
    // Room for 2 cpu: mid (the most important) is reprieved; with it back, neither old nor new fits.
    expect("victims" in r && r.victims.map((v) => v.metadata?.name)).toEqual(["old", "new"]);
    const needsAll = selectVictimsOnNode(pod("p", 10, "3"), info, [info], filter, now);
    expect("victims" in needsAll && needsAll.victims.map((v) => v.metadata?.name)).toEqual(["mid", "old", "new"]);
    // Even without every lower-priority pod it does not fit: the filter's reason.
    expect(selectVictimsOnNode(pod("p", 10, "4"), info, [info], filter, now)).toEqual({ reasons: ["Insufficient cpu"] });
    expect(selectVictimsOnNode(pod("p", 1, "1"), info, [info], filter, now)).toEqual({ reasons: ["No victims found on node n1 for preemptor pod p"] });
  });

  it("picks the node with the lowest highest-priority victim, then the lowest priority sum, then the fewest victims, then the latest start", () => {
    const c = (nodeName: string, ...victims: Pod[]) => ({ nodeName, victims });
    expect(pickOneNodeForPreemption([c("a", pod("x", 5, "1")), c("b", pod("y", 3, "1"), pod("z", 3, "1"))], now)?.nodeName).toBe("b");
    expect(pickOneNodeForPreemption([c("a", pod("x", 5, "1"), pod("w", 4, "1")), c("b", pod("y", 5, "1"), pod("z", 1, "1"))], now)?.nodeName).toBe("b");
    expect(pickOneNodeForPreemption([c("a", pod("x", 5, "1"), pod("w", -2147483648, "1")), c("b", pod("y", 5, "1"))], now)?.nodeName).toBe("b");
    expect(pickOneNodeForPreemption([c("a", pod("x", 5, "1", { startTime: "2026-01-01T00:00:00Z" })), c("b", pod("y", 5, "1", { startTime: "2026-02-01T00:00:00Z" }))], now)?.nodeName).toBe("b");
    expect(pickOneNodeForPreemption([c("a", pod("x", 5, "1")), c("b", pod("y", 5, "1"))], now)?.nodeName).toBe("a");
    expect(pickOneNodeForPreemption([c("a", pod("x", 5, "1")), c("b")], now)?.nodeName).toBe("b");
    expect(pickOneNodeForPreemption([], now)).toBeUndefined();
  });

  it("only nodes preemption can help are tried; the FitError of the dry run is 1.23's", () => {
    const infos = [
      newNodeInfo(node("a", "2"), [pod("a-low", 1, "2")]),
      newNodeInfo(node("b", "2"), [pod("b-same", 10, "2")]),
      newNodeInfo(node("c", "2", { zone: "other" }), [pod("c-low", 1, "2")]),
    ];
    const incoming = pod("p", 10, "2", { spec: { nodeSelector: { "example.io/hostname": "a" } } });
    expect(run(incoming, infos)).toEqual({ outcome: "candidate", candidate: { nodeName: "a", victims: [infos[0]!.pods[0]] } });
    const nowhere = pod("q", 10, "2", { spec: { nodeSelector: { "example.io/hostname": "b" } } });
    expect(run(nowhere, infos)).toEqual({
      outcome: "none",
      message: `0/3 nodes are available: 1 No victims found on node b for preemptor pod q, 2 ${reasonPreemptionNotHelpful}.`,
      clearNomination: false,
    });
    const offAll = pod("r", 10, "1", { spec: { nodeSelector: { zone: "none" } } });
    expect(run(offAll, infos)).toEqual({ outcome: "none", message: `0/3 nodes are available: 3 ${reasonPreemptionNotHelpful}.`, clearNomination: true });
  });

  it("anti-affinity is resolvable: the matching lower-priority pod is the victim, the cluster filters recomputed without it", () => {
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "db" } }, topologyKey: "example.io/hostname" }] } };
    const db = { ...pod("db", 1, "100m"), metadata: { name: "db", namespace: "default", labels: { app: "db" } } };
    const infos = [newNodeInfo(node("a"), [db, pod("other", 1, "100m")])];
    const r = run(pod("p", 10, "100m", { spec: { affinity: anti } }), infos);
    expect(r).toEqual({ outcome: "candidate", candidate: { nodeName: "a", victims: [db] } });
  });
});
