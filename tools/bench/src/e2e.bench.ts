/**
 * The whole system as real processes (tools/e2e): the time from `kubectl create` of a one-pod Job
 * to its Complete condition, on the process CRI server and (when it can be set up: root) on
 * containerd; and 20 node agents on process CRI servers running a 2,000-pod Job (pods/s, and the
 * total resident memory of every process of the cluster, sampled while it runs).
 *
 * The Job controller and scheduler run with --cluster-api-qps=500 --cluster-api-burst=1000 for the
 * 2,000-pod Job (their defaults, 20/30 and 50/100, would cap it at the client rate limit).
 */
import { setUpContainerd, runKubectl, startCluster, waitFor } from "@skiff/e2e";
import type { ApiClient, Cluster, NodeSpec } from "@skiff/e2e";
import type { BenchRow } from "./report.js";

export const name = "end to end (apiserver, job controller, scheduler, node agents)";

const jobsPath = "/apis/batch/v1/namespaces/default/jobs";

interface JobStatusView {
  status?: { succeeded?: number; conditions?: Array<{ type: string; status: string }> };
}

function jobManifest(jobName: string, completions: number, parallelism: number): string {
  return JSON.stringify({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: jobName },
    spec: {
      completions,
      parallelism,
      backoffLimit: 100,
      template: {
        spec: {
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 0,
          containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["true"] }],
        },
      },
    },
  });
}

async function complete(api: ApiClient, jobName: string, timeoutMs: number): Promise<JobStatusView> {
  return waitFor(
    `${jobName} Complete`,
    async () => {
      const j = await api.get<JobStatusView>(`${jobsPath}/${jobName}`);
      return j.status?.conditions?.some((c) => c.type === "Complete" && c.status === "True") ? j : undefined;
    },
    timeoutMs,
    10,
  );
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** `kubectl create` of a one-pod Job → Complete, `runs` times (after one warm-up run). */
async function onePodJob(nodes: NodeSpec[], label: string, targetS: number, runs = 5): Promise<BenchRow[]> {
  const cluster = await startCluster({ nodes });
  try {
    const times: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const jobName = `one-${i}`;
      const t0 = performance.now();
      const r = await runKubectl(cluster.kubeconfig, ["create", "-f", "-"], jobManifest(jobName, 1, 1));
      if (r.code !== 0) throw new Error(`kubectl create: ${r.stderr}`);
      await complete(cluster.api, jobName, 60_000);
      if (i > 0) times.push((performance.now() - t0) / 1000);
    }
    const m = median(times);
    return [
      { what: `one-pod Job, kubectl create → Complete (${label}), median of ${runs}`, value: m, unit: "s", note: `target < ${targetS} s: ${m < targetS ? "met" : "NOT met"}` },
      { what: `one-pod Job (${label}), fastest`, value: Math.min(...times), unit: "s" },
    ];
  } finally {
    await cluster.stop();
  }
}

/** 20 node agents, one Job of `pods` pods with parallelism 200. */
async function fleet(pods: number, agents: number): Promise<BenchRow[]> {
  const nodes: NodeSpec[] = Array.from({ length: agents }, (_, i) => ({ name: `fleet-${String(i).padStart(2, "0")}`, runtime: "process" as const, args: ["--max-pods=250"] }));
  const qps = ["--cluster-api-qps=500", "--cluster-api-burst=1000"];
  const cluster: Cluster = await startCluster({ nodes, jobControllerArgs: qps, schedulerArgs: qps, nodeStatusUpdateFrequency: "10s" });
  try {
    const idleRss = cluster.totalRssBytes();
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, cluster.totalRssBytes())), 500);
    const t0 = performance.now();
    try {
      const r = await runKubectl(cluster.kubeconfig, ["create", "-f", "-"], jobManifest("fleet", pods, 200));
      if (r.code !== 0) throw new Error(`kubectl create: ${r.stderr}`);
      await complete(cluster.api, "fleet", 1_800_000);
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - t0) / 1000;
    const mib = (b: number): number => b / (1 << 20);
    return [
      { what: `${pods}-pod Job on ${agents} node agents (process CRI), parallelism 200`, value: pods / seconds, unit: "pods/s", note: `${seconds.toFixed(1)} s in all` },
      { what: `total RSS of the cluster's ${cluster.processes.size} processes, idle`, value: mib(idleRss), unit: "MiB" },
      { what: `total RSS of the cluster's processes, peak while running`, value: mib(peakRss), unit: "MiB" },
    ];
  } finally {
    await cluster.stop();
  }
}

export default async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  rows.push(...(await onePodJob([{ name: "bench-node", runtime: "process" }], "process CRI server", 1.5)));
  const ctd = setUpContainerd();
  if (ctd.endpoint !== undefined) {
    try {
      rows.push(...(await onePodJob([{ name: "bench-ctd", runtime: "containerd", endpoint: ctd.endpoint }], "containerd", 3)));
    } finally {
      ctd.stop();
    }
  } else {
    console.log(`  (containerd skipped: ${ctd.reason})`);
  }
  rows.push(...(await fleet(Number(process.env.SKIFF_BENCH_FLEET_PODS ?? 2000), Number(process.env.SKIFF_BENCH_FLEET_AGENTS ?? 20))));
  return rows;
}
