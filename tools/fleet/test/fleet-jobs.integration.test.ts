// The e2e Job cases (tools/e2e/test/jobs.integration.test.ts) on 100 hollow nodes: the real
// apiserver, job controller (Job, TTL-after-finished, node lifecycle) and scheduler as processes,
// and a fleet of 100 node agents over the simulated CRI in this process.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job, JobCondition, Lease, Node, Pod } from "@skiff/api-types";
import { loadClusterConfig } from "@skiff/client";
import type { ApiClient, Cluster } from "@skiff/e2e";
import { isApiStatus, runKubectl, startCluster, waitFor } from "@skiff/e2e";
import type { Fleet } from "../src/index.js";
import { startFleet } from "../src/index.js";
import { runFleetCli } from "../src/cli.js";

const nodes = 100;
const jobsPath = "/apis/batch/v1/namespaces/default/jobs";
const podsPath = "/api/v1/namespaces/default/pods";
let cluster: Cluster;
let fleet: Fleet;

function job(name: string, spec: Partial<NonNullable<Job["spec"]>>, command: string, podSpec: Record<string, unknown> = {}): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...spec,
      template: { spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", command] }], ...podSpec } },
    } as NonNullable<Job["spec"]>,
  };
}

const condition = (j: Job, type: string): JobCondition | undefined => j.status?.conditions?.find((c) => c.type === type && c.status === "True");
const podsOf = (api: ApiClient, name: string): Promise<Pod[]> => api.list<Pod>(podsPath, `job-name=${name}`);
const waitForCondition = (name: string, type: "Complete" | "Failed" | "Suspended"): Promise<Job> =>
  waitFor(
    `job ${name} ${type}`,
    async () => {
      const j = await cluster.api.get<Job>(`${jobsPath}/${name}`);
      return condition(j, type) ? j : undefined;
    },
    120_000,
    200,
  );

// Each hollow node has its own node identity (system:node:<name> in system:nodes), as a real node,
// and the apiserver authorizes with RBAC: the nodes get ClusterRole system:node through their group.
const nodeToken = (name: string): string => `hollow-token-${name}`;

beforeAll(async () => {
  cluster = await startCluster({
    nodes: [],
    authorizationMode: "RBAC",
    extraTokens: [...Array.from({ length: nodes }, (_, i) => `hollow-node-${String(i)}`), "cli-node-0"].map((n) => ({ token: nodeToken(n), user: `system:node:${n}`, uid: n, groups: ["system:nodes"] })),
    jobControllerArgs: ["--node-monitor-period=500ms", "--node-monitor-grace-period=10s", "--default-unreachable-toleration-seconds=2", "--default-not-ready-toleration-seconds=2"],
    // 1.23's DefaultTolerationSeconds admission gives every pod these tolerations (300 s by default).
    apiserverArgs: ["--default-unreachable-toleration-seconds=2", "--default-not-ready-toleration-seconds=2"],
  });
  // A lease renewed every 2 s (8 s / 4) keeps 100 nodes inside the 10 s grace period.
  // The kubeconfig's own token is replaced by one the apiserver refuses (401): the nodes work only
  // through their node tokens.
  const clusterConfig = { ...(await loadClusterConfig(cluster.kubeconfig)), token: "not-a-known-token" };
  fleet = await startFleet({ nodes, clusterConfig, nodeToken, agentConfig: { nodeLeaseDurationSeconds: 8 } });
  // Each hollow Node registers with the apiserver's not-ready:NoSchedule taint, which the node
  // lifecycle controller removes once the node reports Ready (kubemark's hollow nodes likewise).
  await cluster.waitForSchedulableNodes(nodes);
}, 180_000);

afterAll(async () => {
  await fleet?.stop();
  await cluster?.stop();
}, 120_000);

describe(`fleet: the e2e Job cases on ${nodes} hollow nodes`, () => {
  it("every hollow node is a Ready Node with a Lease, shown by kubectl as a node", async () => {
    const list = await cluster.api.list<Node>("/api/v1/nodes");
    expect(list).toHaveLength(nodes);
    const node = list.find((n) => n.metadata?.name === "hollow-node-42");
    expect(node?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(node?.status?.addresses).toEqual([
      { type: "InternalIP", address: "10.64.0.43" },
      { type: "Hostname", address: "hollow-node-42" },
    ]);
    expect(node?.metadata?.labels?.["example.io/hostname"]).toBe("hollow-node-42");
    expect(node?.status?.nodeInfo?.containerRuntimeVersion).toBe("skiff-simulated://0.1.0");
    const lease = await cluster.api.get<Lease>("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/hollow-node-42");
    expect(lease.spec?.holderIdentity).toBe("hollow-node-42");
    const out = await runKubectl(cluster.kubeconfig, ["get", "nodes", "hollow-node-42", "--no-headers"]);
    expect(out.stdout).toMatch(/^hollow-node-42\s+Ready\s+<none>\s+\S+\s+v1\.23/);
  });

  it("an Indexed Job of 20 completions, parallelism 4, completes with completedIndexes 0-19; each pod's output is in its log file", async () => {
    await cluster.api.create(jobsPath, job("indexed", { completionMode: "Indexed", completions: 20, parallelism: 4 }, 'echo "index $JOB_COMPLETION_INDEX"'));
    const done = await waitForCondition("indexed", "Complete");
    expect(done.status?.succeeded).toBe(20);
    expect(done.status?.completedIndexes).toBe("0-19");
    const pods = await podsOf(cluster.api, "indexed");
    const succeeded = pods.filter((p) => p.status?.phase === "Succeeded");
    expect(new Set(succeeded.map((p) => p.metadata?.annotations?.["batch.example.io/job-completion-index"])).size).toBe(20);
    expect(new Set(pods.map((p) => p.spec?.nodeName)).size).toBeGreaterThan(1);
    expect(pods.every((p) => p.spec?.nodeName?.startsWith("hollow-node-"))).toBe(true);
    const one = succeeded.find((p) => p.metadata?.annotations?.["batch.example.io/job-completion-index"] === "7");
    expect(one?.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    const dir = join(fleet.rootDir, "pod-logs", `default_${one?.metadata?.name ?? ""}_${one?.metadata?.uid ?? ""}`, "main");
    const log = readFileSync(join(dir, readdirSync(dir)[0] ?? "0.log"), "utf8");
    expect(log).toMatch(/^\S+ stdout F index 7\n$/);
  });

  it("a Job whose pods fail reaches Failed with BackoffLimitExceeded after backoffLimit + 1 pods", async () => {
    await cluster.api.create(jobsPath, job("failing", { backoffLimit: 1 }, "exit 3"));
    const failed = await waitForCondition("failing", "Failed");
    expect(condition(failed, "Failed")?.reason).toBe("BackoffLimitExceeded");
    expect(failed.status?.failed).toBe(2);
    const pods = await podsOf(cluster.api, "failing");
    expect(pods.filter((p) => p.status?.phase === "Failed")).toHaveLength(2);
    expect(pods[0]?.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
  });

  it("a suspended Job runs no pods until resumed, then completes", async () => {
    await cluster.api.create(jobsPath, job("paused", { suspend: true, completions: 2, parallelism: 2 }, "echo resumed"));
    const suspended = await waitForCondition("paused", "Suspended");
    expect(suspended.status?.active ?? 0).toBe(0);
    expect(await podsOf(cluster.api, "paused")).toEqual([]);
    await cluster.api.patch(`${jobsPath}/paused`, { spec: { suspend: false } });
    const done = await waitForCondition("paused", "Complete");
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

  it("a hollow node whose agent stops mid-Job: its node goes NotReady (tainted), its pods are evicted and the Job completes elsewhere", async () => {
    await cluster.api.create(jobsPath, job("survivor", { completions: 4, parallelism: 4 }, "sleep 6; echo survived"));
    const victim = await waitFor(
      "a running pod",
      async () => (await podsOf(cluster.api, "survivor")).find((p) => p.status?.phase === "Running" && p.spec?.nodeName !== undefined),
      120_000,
      100,
    );
    const lost = victim.spec?.nodeName ?? "";
    await fleet.stopNode(lost);
    const node = await waitFor(
      `${lost} NotReady`,
      async () => {
        const n = await cluster.api.get<Node>(`/api/v1/nodes/${lost}`);
        return n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "Unknown") && (n.spec?.taints ?? []).length > 0 ? n : undefined;
      },
      60_000,
      200,
    );
    expect(node.spec?.taints?.map((x) => `${x.key}:${x.effect}`).sort()).toEqual(["node.example.io/unreachable:NoExecute", "node.example.io/unreachable:NoSchedule"]);
    const done = await waitForCondition("survivor", "Complete");
    expect(done.status?.succeeded).toBe(4);
    const evicted = await cluster.api.get<Pod>(`${podsPath}/${victim.metadata?.name ?? ""}`).catch(() => undefined);
    // Evicted: marked for deletion (1.23 leaves it Terminating while the node is unreachable) or gone.
    expect(evicted === undefined || evicted.metadata?.deletionTimestamp !== undefined).toBe(true);
    const succeeded = (await podsOf(cluster.api, "survivor")).filter((p) => p.status?.phase === "Succeeded");
    expect(succeeded.some((p) => p.metadata?.uid === victim.metadata?.uid)).toBe(false);
    expect(succeeded.every((p) => p.spec?.nodeName !== lost)).toBe(true);
    const printed = await runKubectl(cluster.kubeconfig, ["get", "nodes", lost, "--no-headers"]);
    expect(printed.stdout).toMatch(new RegExp(`^${lost}\\s+NotReady\\s`));
  });
});

describe("skiff-fleet command line against the cluster", () => {
  it("--no-sync-admission: the agents run pods with no admission gate, and the stop line says nothing of one", async () => {
    const out: string[] = [];
    const stop = new AbortController();
    let cliFleet: Fleet | undefined;
    const ready = new Promise<void>((resolve) => {
      void runFleetCli(["--nodes=1", `--kubeconfig=${cluster.kubeconfig}`, "--name-prefix=cli-node-", "--node-token=hollow-token-{node}", "--no-sync-admission"], {
        stdout: { write: (t: string) => out.push(t) },
        stderr: { write: (t: string) => out.push(t) },
        stopSignal: stop.signal,
        onReady: (f) => {
          cliFleet = f;
          resolve();
        },
      }).then((code) => out.push(`exit ${String(code)}`));
    });
    await ready;
    try {
      expect(cliFleet?.admission()).toBeUndefined();
      await cluster.api.create(podsPath, { apiVersion: "v1", kind: "Pod", metadata: { name: "cli-pod" }, spec: { nodeName: "cli-node-0", restartPolicy: "Never", containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "exit 0"] }] } });
      await waitFor("cli-pod Succeeded", async () => ((await cluster.api.get<Pod>(`${podsPath}/cli-pod`)).status?.phase === "Succeeded" ? true : undefined), 60_000, 200);
    } finally {
      stop.abort();
      await waitFor("the fleet command to exit", async () => (out.some((l) => l.startsWith("exit ")) ? true : undefined), 60_000, 100);
    }
    expect(out.join("")).toMatch(/1 hollow nodes registered/);
    expect(out.join("")).not.toMatch(/pod syncs admitted/);
    expect(out.at(-1)).toBe("exit 0");
    // the main fleet (gate on) reports what its gate did
    expect(fleet.admission()?.admitted).toBeGreaterThan(0);
  }, 120_000);
});
