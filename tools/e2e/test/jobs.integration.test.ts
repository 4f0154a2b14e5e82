// The whole system as real processes: apiserver, job controller (with the TTL and node lifecycle
// controllers), scheduler and two node agents on process CRI servers, plus one node agent on real
// containerd when it can be set up (root; with CI=true it must be).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job, Node, Pod } from "@skiff/api-types";
import { isApiStatus, runKubectl, setUpContainerd, startCluster, waitFor } from "../src/index.js";
import type { Cluster, ContainerdSetup, NodeSpec } from "../src/index.js";
import { condition, job, jobsPath, podsOf, podsPath, waitForCondition } from "./helpers.js";

const ci = process.env.CI === "true";
// Set up while the file is collected, so that `it.runIf` knows whether there is a containerd node.
const containerd: ContainerdSetup = setUpContainerd();
if (containerd.endpoint === undefined && !ci) console.warn(`e2e: no containerd node: ${containerd.reason}`);
let cluster: Cluster;

beforeAll(async () => {
  const nodes: NodeSpec[] = [
    { name: "node-a", runtime: "process" },
    { name: "node-b", runtime: "process" },
  ];
  // Only pods that select it land on the containerd node (a NoSchedule taint they tolerate).
  if (containerd.endpoint !== undefined) nodes.push({ name: "node-ctd", runtime: "containerd", endpoint: containerd.endpoint, args: ["--register-with-taints=runtime=containerd:NoSchedule"] });
  cluster = await startCluster({
    nodes,
    jobControllerArgs: ["--node-monitor-period=500ms", "--node-monitor-grace-period=4s", "--default-unreachable-toleration-seconds=2", "--default-not-ready-toleration-seconds=2"],
    // 1.23's DefaultTolerationSeconds admission gives every pod these tolerations (300 s by default).
    apiserverArgs: ["--default-unreachable-toleration-seconds=2", "--default-not-ready-toleration-seconds=2"],
  });
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
  containerd.stop();
}, 300_000);

describe("e2e: Jobs on real node agents", () => {
  it("an Indexed Job of 20 completions, parallelism 4, completes with completedIndexes 0-19 on both nodes", async () => {
    await cluster.api.create(jobsPath, job("indexed", { completionMode: "Indexed", completions: 20, parallelism: 4 }, 'echo "index $JOB_COMPLETION_INDEX"'));
    const done = await waitForCondition(cluster.api, "indexed", "Complete");
    expect(done.status?.succeeded).toBe(20);
    expect(done.status?.completedIndexes).toBe("0-19");
    expect(done.status?.active ?? 0).toBe(0);
    const pods = await podsOf(cluster.api, "indexed");
    const indexes = new Set(pods.filter((p) => p.status?.phase === "Succeeded").map((p) => p.metadata?.annotations?.["batch.example.io/job-completion-index"]));
    expect(indexes.size).toBe(20);
    expect(new Set(pods.map((p) => p.spec?.nodeName))).toEqual(new Set(["node-a", "node-b"]));
    // kubectl logs goes through the apiserver to the node agent.
    const one = pods.find((p) => p.metadata?.annotations?.["batch.example.io/job-completion-index"] === "7");
    const logs = await runKubectl(cluster.kubeconfig, ["logs", one?.metadata?.name ?? "missing"]);
    expect(logs.stderr).toBe("");
    expect(logs.stdout).toBe("index 7\n");
  });

  it("a Job whose pods fail reaches Failed with BackoffLimitExceeded after backoffLimit + 1 pods", async () => {
    await cluster.api.create(jobsPath, job("failing", { backoffLimit: 1 }, "exit 1"));
    const failed = await waitForCondition(cluster.api, "failing", "Failed");
    expect(condition(failed, "Failed")?.reason).toBe("BackoffLimitExceeded");
    expect(failed.status?.failed).toBe(2);
    expect(condition(failed, "Complete")).toBeUndefined();
    const pods = await podsOf(cluster.api, "failing");
    expect(pods.filter((p) => p.status?.phase === "Failed")).toHaveLength(2);
  });

  it("a suspended Job runs no pods until resumed, then completes", async () => {
    await cluster.api.create(jobsPath, job("paused", { suspend: true, completions: 2, parallelism: 2 }, "echo resumed"));
    const suspended = await waitForCondition(cluster.api, "paused", "Suspended");
    expect(suspended.status?.active ?? 0).toBe(0);
    expect(await podsOf(cluster.api, "paused")).toEqual([]);
    await cluster.api.patch(`${jobsPath}/paused`, { spec: { suspend: false } });
    const done = await waitForCondition(cluster.api, "paused", "Complete");
    expect(done.status?.succeeded).toBe(2);
    expect(done.status?.conditions?.find((c) => c.type === "Suspended")?.status).toBe("False");
  });

  it("ttlSecondsAfterFinished deletes the finished Job and its pods", async () => {
    await cluster.api.create(jobsPath, job("short-lived", { ttlSecondsAfterFinished: 1 }, "true"));
    await waitFor(
      "the Job deleted",
      async () => {
        try {
          await cluster.api.get(`${jobsPath}/short-lived`);
          return false;
        } catch (e) {
          return isApiStatus(e, 404);
        }
      },
      120_000,
      200,
    );
    await waitFor("its pods deleted", async () => (await podsOf(cluster.api, "short-lived")).length === 0, 60_000, 200);
  });

  it.runIf(containerd.endpoint !== undefined || ci)("runs a Job on the containerd node (real busybox in runc)", async () => {
    expect(containerd.endpoint, "containerd must be set up in CI").toBeDefined();
    await cluster.api.create(
      jobsPath,
      job("on-containerd", { completions: 2, parallelism: 2 }, "echo from $(hostname) in runc; cat /proc/1/cmdline | tr '\\0' ' '", {
        nodeSelector: { "example.io/hostname": "node-ctd" },
        tolerations: [{ key: "runtime", operator: "Equal", value: "containerd", effect: "NoSchedule" }],
      }),
    );
    const done = await waitForCondition(cluster.api, "on-containerd", "Complete");
    expect(done.status?.succeeded).toBe(2);
    const pods = await podsOf(cluster.api, "on-containerd");
    expect(pods.every((p) => p.spec?.nodeName === "node-ctd")).toBe(true);
    const logs = await runKubectl(cluster.kubeconfig, ["logs", pods[0]?.metadata?.name ?? "missing"]);
    // PID 1 of the container is its own shell: it runs in its own PID namespace, not on the host.
    expect(logs.stdout).toMatch(/^from \S+ in runc\nsh -c /);
  });

  it("a node agent killed mid-Job: its node goes NotReady (tainted), its pods are evicted and the Job completes on the other node", async () => {
    await cluster.api.create(
      jobsPath,
      job("survivor", { completions: 4, parallelism: 4 }, "sleep 6; echo survived", {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "example.io/hostname", operator: "In", values: ["node-a", "node-b"] }] }] } } },
      }),
    );
    const onB = await waitFor(
      "a running pod on node-b",
      async () => {
        const pods = await podsOf(cluster.api, "survivor");
        return pods.find((p) => p.spec?.nodeName === "node-b" && p.status?.phase === "Running");
      },
      120_000,
      100,
    );
    await cluster.kill("node-b");
    const node = await waitFor(
      "node-b NotReady",
      async () => {
        const n = await cluster.api.get<Node>("/api/v1/nodes/node-b");
        return n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "Unknown") && (n.spec?.taints ?? []).length > 0 ? n : undefined;
      },
      60_000,
      200,
    );
    expect(node.spec?.taints?.map((x) => `${x.key}:${x.effect}`).sort()).toEqual(["node.example.io/unreachable:NoExecute", "node.example.io/unreachable:NoSchedule"]);
    const done = await waitForCondition(cluster.api, "survivor", "Complete");
    expect(done.status?.succeeded).toBe(4);
    const evicted = await cluster.api.get<Pod>(`${podsPath}/${onB.metadata?.name ?? ""}`).catch(() => undefined);
    // Evicted: marked for deletion (1.23 leaves it Terminating while the node is unreachable) or gone.
    expect(evicted === undefined || evicted.metadata?.deletionTimestamp !== undefined).toBe(true);
    const succeeded = (await podsOf(cluster.api, "survivor")).filter((p) => p.status?.phase === "Succeeded");
    expect(succeeded.filter((p) => p.spec?.nodeName === "node-a").length).toBeGreaterThanOrEqual(1);
    expect(succeeded.some((p) => p.metadata?.uid === onB.metadata?.uid)).toBe(false);
    const final = await cluster.api.get<Job>(`${jobsPath}/survivor`);
    expect(condition(final, "Failed")).toBeUndefined();
    // kubectl shows a node whose Ready condition is not True as NotReady (1.23 printNode: "Not" + type).
    const nodes = await runKubectl(cluster.kubeconfig, ["get", "nodes", "node-b", "--no-headers"]);
    expect(nodes.stdout).toMatch(/^node-b\s+NotReady\s/);
  });
});
