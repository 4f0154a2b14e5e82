// Pod priority and preemption on the whole system, as a user drives it with kubectl: a
// PriorityClass, a low-priority pod running on a real node agent (process CRI server), then a
// high-priority pod that does not fit. The scheduler preempts the low one (a `Preempted` event,
// the high pod nominated), the node agent stops it within its grace period, and the high pod runs
// in its place. A pod with `preemptionPolicy: Never` waits instead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKubectl, startCluster, waitFor } from "../src/index.js";
import type { Cluster } from "../src/index.js";

let cluster: Cluster;
const kubectl = (...args: string[]) => runKubectl(cluster.kubeconfig, args);
const ok = async (...args: string[]) => {
  const r = await kubectl(...args);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

beforeAll(async () => {
  cluster = await startCluster({ nodes: [{ name: "node-a", runtime: "process" }] });
  await cluster.waitForSchedulableNodes(1);
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
}, 120_000);

// A pod asking for `cpu` of the node's allocatable, sleeping until stopped.
function podManifest(name: string, cpu: string, className?: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: {
      ...(className ? { priorityClassName: className } : {}),
      terminationGracePeriodSeconds: 2,
      containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["sleep", "3600"], resources: { requests: { cpu } } }],
    },
  });
}

const phaseOf = async (name: string) => (await kubectl("get", "pod", name, "-o", "jsonpath={.status.phase}")).stdout;
const apply = async (manifest: string) => {
  const r = await runKubectl(cluster.kubeconfig, ["apply", "-f", "-"], manifest);
  expect(r.code, r.stderr).toBe(0);
};

describe("e2e: priority and preemption", () => {
  it("a high-priority pod preempts a running low-priority one and runs in its place; preemptionPolicy Never waits", async () => {
    const allocatable = await ok("get", "node", "node-a", "-o", "jsonpath={.status.allocatable.cpu}");
    const milli = allocatable.endsWith("m") ? Number(allocatable.slice(0, -1)) : Number(allocatable) * 1000;
    // The low pod takes 60 % of the node, each later pod 60 % too: two never fit together.
    const share = `${String(Math.floor(milli * 0.6))}m`;
    await ok("create", "priorityclass", "e2e-high", "--value=1000", "--description=preempts");
    await ok("create", "priorityclass", "e2e-polite", "--value=1000", "--preemption-policy=Never");

    await apply(podManifest("low", share));
    await waitFor("low running", async () => (await phaseOf("low")) === "Running", 60_000);

    await apply(podManifest("polite", share, "e2e-polite"));
    await waitFor("polite unschedulable", async () => (await ok("get", "pod", "polite", "-o", 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].reason}')) === "Unschedulable", 30_000);
    expect(await phaseOf("low")).toBe("Running");
    await ok("delete", "pod", "polite", "--grace-period=0", "--force");

    await apply(podManifest("high", share, "e2e-high"));
    await waitFor("high running", async () => (await phaseOf("high")) === "Running", 90_000);
    expect(await ok("get", "pod", "high", "-o", "jsonpath={.spec.nodeName} {.spec.priority}")).toBe("node-a 1000");
    // The victim is gone, with the scheduler's event on it.
    await waitFor("low deleted", async () => (await kubectl("get", "pod", "low")).code !== 0, 30_000);
    const events = await ok("get", "events", "--field-selector=involvedObject.name=low,reason=Preempted", "-o", "jsonpath={.items[*].message}");
    expect(events).toBe("Preempted by default/high on node node-a");
  }, 240_000);
});
