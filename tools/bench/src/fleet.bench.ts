/**
 * A thousand-node fleet at Kubernetes' scalability SLOs (issue 20): the apiserver (SQLite), the job
 * controller and the scheduler as processes (tools/e2e), and `tools/fleet` as one more process
 * hosting the hollow nodes (the real node agent over the simulated CRI). One Job of
 * `30 × nodes` pods (`sleep 5`, parallelism = completions: 30 pods per node at most) runs to
 * Complete. Printed: pods/s sustained (completions / time from create to Complete), the saturation
 * pods' start-up latency p50/p99 (created → Running, both seen on one watch, so the watch's delay
 * cancels), then the pod start-up SLO (p99 ≤ 5 s) measured as Kubernetes' density test does, on
 * `max(500, nodes)` latency pods created at 5/s after the Job (latency-pods.ts;
 * `SKIFF_BENCH_LATENCY_PODS=<n>` sets how many, 0 skips them), mutating API latency p50/p99 against
 * the 1 s SLO, total RSS and RSS per hollow node.
 *
 * Scale: 1,000 nodes and 30,000 pods by default; `pnpm bench fleet --scale 0.1` (or
 * SKIFF_BENCH_FLEET_SCALE=0.1) runs 100 nodes and 3,000 pods.
 *
 * Mutating API latency is measured by a probe, not from apiserver metrics (the apiserver keeps no
 * request-duration histogram): a client in this process PATCHes a ConfigMap every 100 ms while the
 * Job runs (no client-side rate limit), as Kubernetes' SLO probers do.
 *
 * Environment: `SKIFF_BENCH_TRACE=0` turns the span trace (and the per-pod timeline) off;
 * `SKIFF_BENCH_TRACE_OUT=<file>` keeps a copy of the trace; `SKIFF_BENCH_CPU_PROF=<dir>` has every
 * process write a V8 CPU profile there; `SKIFF_BENCH_FLEET_TIME_LIMIT_S` (3600) stops waiting for the
 * Job then and reports what the run reached (pods Succeeded by then, per second);
 * `SKIFF_BENCH_FLEET_STORAGE=etcd` stores in a three-member etcd cluster on loopback
 * (tools/etcd/start-cluster.sh, Debian's etcd-server; members from `SKIFF_BENCH_ETCD_BASE_PORT`,
 * 23790) instead of the default SQLite file, its members' CPU per pod and peak RSS printed beside the
 * others'; `SKIFF_BENCH_FLEET_IDLE_S` (15) is how long the
 * fleet's background load (no pod yet: Lease renewals, node status, PLEG relists, watches) is
 * measured before the Job, printed as % of a core per process (0 skips it);
 * `SKIFF_BENCH_FLEET_SYNC_ADMISSION=0` runs the fleet with `--no-sync-admission` (every pod sync
 * at once, as before session 21).
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { parseTraceRecords, traceFileEnv } from "@skiff/apimachinery";
import { createClient, createInformer, loadClusterConfig } from "@skiff/client";
import { startCluster, waitFor } from "@skiff/e2e";
import type { ApiClient, Cluster } from "@skiff/e2e";
import { fleetBaseMemoryBytes, fleetNodeFlags, fleetTempParent, hollowNodeMemoryBytes } from "@skiff/fleet";
import { repoRoot } from "./launch.js";
import { cpuSeconds, rssBytes, stopProcess, sumValues } from "./proc.js";
import type { BenchRow } from "./report.js";
import { latencyPodCount, latencyRows, measureLatencyPods } from "./latency-pods.js";
import { percentile, podTimeline, printTimeline } from "./timeline.js";
import { envNumber } from "./env.js";

export const name = "fleet (apiserver, job controller, scheduler, hollow nodes)";

const jobsPath = "/apis/batch/v1/namespaces/default/jobs";
const podsPerNode = 30;
const mib = (b: number): number => b / (1 << 20);

/** `--scale <f>` / `--scale=<f>` on the command line, else SKIFF_BENCH_FLEET_SCALE, else 1. */
function scale(): number {
  const argv = process.argv;
  const i = argv.findIndex((a) => a === "--scale" || a.startsWith("--scale="));
  const text = i === -1 ? process.env.SKIFF_BENCH_FLEET_SCALE : argv[i]?.includes("=") ? argv[i]?.slice("--scale=".length) : argv[i + 1];
  const s = Number(text ?? 1);
  if (!(s > 0 && s <= 5)) throw new Error(`--scale must be a number in (0, 5], got ${JSON.stringify(text)}`);
  return s;
}

/**
 * Each hollow node's identity: its own token for `system:node:<name>` in `system:nodes`, as each
 * real node has its own credentials, so that the apiserver's priority and fairness puts its
 * requests where a real node's go (`node-high` for its Node and Lease, `system` for the rest), each
 * node a flow of its own. (kubemark's hollow nodes share one kubeconfig; with one identity all
 * 1,000 nodes were one flow, its few queues full.)
 */
function hollowNodeTokens(nodes: number): { template: string; users: { token: string; user: string; uid: string; groups: string[] }[] } {
  const template = "hollow-node-token-{node}";
  const users = Array.from({ length: nodes }, (_, i) => {
    const name = `hollow-node-${String(i)}`;
    return { token: template.replace("{node}", name), user: `system:node:${name}`, uid: `hollow-${name}`, groups: ["system:nodes"] };
  });
  return { template, users };
}

/**
 * The apiserver's concurrency for the fleet, as Kubernetes' own kubemark jobs set it ("we do the
 * same in production clusters", test-infra's kubemark job env): with the defaults (400 + 200) and
 * the hollow nodes' requests limited as nodes', priority and fairness gives the nodes' Leases 98
 * seats, and at full scale renewals waited past the Lease's 40 s: nodes went NotReady and their
 * pods were evicted.
 */
const inflightLimits = ["--max-requests-inflight=1500", "--max-mutating-requests-inflight=500"] as const;

/** Starts the fleet CLI as a process and resolves once it says every hollow node is registered. */
async function startFleetProcess(nodes: number, kubeconfig: string, dir: string, rootDir: string, nodeArgs: readonly string[], nodeToken: string): Promise<{ child: ChildProcess; baseRssBytes: number; output: () => string }> {
  const heapMiB = Math.ceil(mib(fleetBaseMemoryBytes + nodes * hollowNodeMemoryBytes) * 1.5);
  const child = spawn(
    process.execPath,
    [...nodeArgs, ...fleetNodeFlags, `--max-old-space-size=${heapMiB}`, "--conditions=@skiff/source", "--import", "tsx", join(repoRoot, "tools/fleet/src/main.ts"), `--nodes=${nodes}`, `--kubeconfig=${kubeconfig}`, `--node-token=${nodeToken}`, `--log-file=${join(dir, "logs", "fleet.log")}`, `--root-dir=${rootDir}`, ...(process.env["SKIFF_BENCH_FLEET_SYNC_ADMISSION"] === "0" ? ["--no-sync-admission"] : []), "--", "--max-pods=110"],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes("hollow nodes registered")) {
        clearInterval(t);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(t);
        reject(new Error(`the fleet exited (${child.exitCode}):\n${out}`));
      }
    }, 200);
  });
  console.log(`  ${out.trim().split("\n").join("\n  ")}`);
  const base = /RSS before them (\d+) MiB/.exec(out);
  return { child, baseRssBytes: Number(base?.[1] ?? 0) * (1 << 20), output: () => out };
}

async function complete(api: ApiClient, jobName: string, timeoutMs: number): Promise<void> {
  await waitFor(
    `${jobName} Complete`,
    async () => {
      const j = await api.get<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(`${jobsPath}/${jobName}`);
      return j.status?.conditions?.some((c) => c.type === "Complete" && c.status === "True") ? true : undefined;
    },
    timeoutMs,
    250,
  );
}

/**
 * Figures of earlier runs on the 2-core issue-20 machine (from source, quiet), printed beside this
 * run's, keyed by scale. 0.03 and 0.05: before the issue-20 fixes of the s7-perf branch (a loaded
 * machine). 0.1 and 1: session 13, with the watch cache's growing window, the fleet's files on
 * tmpfs and (scale 1) one API connection per hollow node (before them, at scale 1: 4.28 pods/s,
 * stopped at 900 s with 3,866 of 30,000 pods Succeeded, the apiserver no longer accepting
 * connections; mutating p99 2.5 s). Session 19 at scale 1: the clients speak HTTP/2 to the apiserver.
 * Session 20 ran on a machine about 1.8 times slower per CPU second (at 0.1, a412973, from before
 * HTTP/2, used 13.5 ms of fleet CPU per pod there; session 17 measured 7.3): compare its figures
 * with each other. Session 21, on that slower machine: the fleet admits pod work by its event loop's
 * delay and does not resync finished pods; scale 1 completes there.
 */
const previous: Record<string, { podsPerSecond: string; startupP50: string; startupP99: string; apiP99: string; perNode: string; totalRss: string }> = {
  "0.03": { podsPerSecond: "7.55", startupP50: "70 s", startupP99: "92 s", apiP99: "644 ms", perNode: "2.55 MiB", totalRss: "n/a" },
  "0.05": { podsPerSecond: "3.97", startupP50: "148 s", startupP99: "305 s", apiP99: "1.25 s", perNode: "5.2 MiB", totalRss: "n/a" },
  "0.1": { podsPerSecond: "48.4–56.9 (session 28, a slower machine again: session 21's code ran 45.4 on it); 69.3–70.8 (session 21, the slower machine); 59.5–60.0 (session 20, a slower machine; a412973, before HTTP/2, 54.0 on it); 106 (session 17, node identities)", startupP50: "14.0–16.9 s (session 28); 11.6–12.4 s (session 21); 13.3–16.2 s (session 20); 14.3 s", startupP99: "28.6–40.7 s (session 28); 26.7–28.4 s (session 21); 31.6–32.7 s (session 20); 16.8 s", apiP99: "879–998 ms (session 28); 592–635 ms (session 21); 646–731 ms (session 20); 280 ms", perNode: "3.55–3.63 MiB (session 28); 3.89 MiB (session 20); 3.80 MiB", totalRss: "1,128–1,153 MiB (session 28); 1,140 MiB (session 20); 1,342 MiB" },
  "0.3": { podsPerSecond: "41.6 (session 26, with CPU profiles)", startupP50: "11.4 s (session 26)", startupP99: "26.7 s (session 26)", apiP99: "1,538 ms (session 26)", perNode: "3.16 MiB (session 26)", totalRss: "2,021 MiB (session 26)" },
  "1": { podsPerSecond: "32.7 (session 28, the slower machine, tests running beside it for part of the run); 43.2–46.0 (session 23, phase-locked agent loops, reverted); 52.5 (session 22); 47.7–48.5 (session 21, the slower machine, where session 20's run collapsed); 86.8 (session 19, HTTP/2 clients); 83.6–86.2 (sessions 17–18, HTTP/1.1, node identities; 88.8 with the admin token)", startupP50: "10.0 s (session 28); 9.0–12.2 s (sessions 21–23); 33.1 s (session 19); 149–151 s before HTTP/2 (3.30 s with the admin token)", startupP99: "29.9 s (session 28); 29.2–63.8 s (sessions 21–23); 127 s (session 19); 228–249 s before HTTP/2", apiP99: "2,426 ms (session 28); 1,255–1,718 ms (sessions 21–23); 678 ms (session 19); 575–624 ms before HTTP/2", perNode: "2.62 MiB (session 28); 3.49 MiB (session 19); 3.31 MiB", totalRss: "4,181 MiB (session 28); 5,262 MiB (session 19); 5,460 MiB" },
};

/** The same rows from runs on the three-member etcd (`SKIFF_BENCH_FLEET_STORAGE=etcd`), printed before the SQLite ones. */
const previousEtcd: Partial<typeof previous> = {
  "0.1": { podsPerSecond: "27.5 (session 27, writes start from the known state; 26.8 with Buffer states); 22.3 (session 27, before)", startupP50: "7.1 s (session 27); 12.3 s (before)", startupP99: "13.7 s (session 27); 41.1 s (before)", apiP99: "1,447 ms (session 27); 2,374 ms (before)", perNode: "3.26 MiB (session 27); 3.39 MiB (before)", totalRss: "1,107 MiB without etcd (session 27); 1,083 MiB (before)" },
  "1": { podsPerSecond: "16.0 (session 27, writes start from the known state: stopped at the 1,500 s limit with 24,006 of 30,000 pods Succeeded); 12.4 (session 26: stopped there with 18,554)", startupP50: "13.1 s (session 27); 19.1 s (session 26)", startupP99: "30.1 s (session 27); 85.5 s (session 26)", apiP99: "3,467 ms (session 27); 5,818 ms (session 26)", perNode: "1.91 MiB (session 27); 1.64 MiB (session 26)", totalRss: "3,310 MiB without etcd (session 27); 2,831 MiB (session 26)" },
};

/** The bytes `du` counts under `dir` (0 when it cannot). */
function diskUsageBytes(dir: string): number {
  const r = spawnSync("du", ["-sk", dir], { encoding: "utf8" });
  return Number(/^(\d+)/.exec(r.stdout ?? "")?.[1] ?? 0) * 1024;
}

/** CPU seconds of each component so far: the control plane's processes, the fleet process, and the etcd members when there are some. */
function cpuByComponent(cluster: Cluster, fleet: ChildProcess | undefined, etcd: EtcdCluster | undefined): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of cluster.processes.values()) m.set(p.name, (m.get(p.name) ?? 0) + cpuSeconds(p.proc.pid));
  m.set("fleet (hollow nodes)", cpuSeconds(fleet?.pid));
  if (etcd) m.set("etcd (three members)", etcd.pids().reduce((a, pid) => a + cpuSeconds(pid), 0));
  return m;
}

export default async function run(): Promise<BenchRow[]> {
  const s = scale();
  const nodes = Math.max(1, Math.round(1000 * s));
  const pods = nodes * podsPerNode;
  const before = previous[String(s)];
  const onEtcd = process.env["SKIFF_BENCH_FLEET_STORAGE"] === "etcd";
  const beforeEtcd = onEtcd ? previousEtcd[String(s)] : undefined;
  const was = (k: keyof NonNullable<typeof before>): string =>
    `${beforeEtcd ? `; previous at this scale on etcd: ${beforeEtcd[k]}` : ""}${before ? `; previous at this scale${onEtcd ? " (SQLite)" : ""}: ${before[k]}` : ""}`;
  const qps = ["--cluster-api-qps=500", "--cluster-api-burst=1000"];
  // Every process appends spans to one trace file (SKIFF_BENCH_TRACE=0: none; at full scale the
  // file holds ~20 records a pod).
  const tracing = process.env["SKIFF_BENCH_TRACE"] !== "0";
  const limitS = envNumber("SKIFF_BENCH_FLEET_TIME_LIMIT_S", 3600, { min: 1, unit: "seconds" });
  const idleS = envNumber("SKIFF_BENCH_FLEET_IDLE_S", 15, { min: 0, unit: "seconds" });
  // SKIFF_BENCH_CPU_PROF=<dir>: every process writes a V8 CPU profile there when it stops.
  const profDir = process.env["SKIFF_BENCH_CPU_PROF"];
  const nodeArgs = profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
  const traceDir = mkdtempSync(join(tmpdir(), "skiff-bench-fleet-trace-"));
  const fleetRoot = mkdtempSync(join(fleetTempParent(), "skiff-bench-fleet-"));
  const traceFile = join(traceDir, "trace.jsonl");
  const saved = process.env[traceFileEnv];
  if (tracing) process.env[traceFileEnv] = traceFile;
  const storage = process.env["SKIFF_BENCH_FLEET_STORAGE"] ?? "sqlite";
  if (storage !== "sqlite" && storage !== "etcd") throw new Error(`SKIFF_BENCH_FLEET_STORAGE must be sqlite or etcd, got ${JSON.stringify(storage)}`);
  const etcd = storage === "etcd" ? startEtcd() : undefined;
  const tokens = hollowNodeTokens(nodes);
  let cluster: Cluster;
  try {
    cluster = await startCluster({ nodes: [], jobControllerArgs: qps, schedulerArgs: qps, nodeArgs, extraTokens: tokens.users, apiserverArgs: [...inflightLimits, ...(etcd ? [`--etcd-servers=${etcd.endpoints}`] : [])] });
  } catch (e) {
    rmSync(traceDir, { recursive: true, force: true });
    rmSync(fleetRoot, { recursive: true, force: true });
    etcd?.stop();
    throw e;
  }
  let fleet: ChildProcess | undefined;
  let fleetOutput = (): string => "";
  try {
    const t0Fleet = performance.now();
    // The fleet's log lives in the cluster's directory, which cluster.stop() removes; its root
    // where the fleet's own default would be (memory-backed where it can), removed below.
    const started = await startFleetProcess(nodes, cluster.kubeconfig, cluster.dir, fleetRoot, nodeArgs, tokens.template);
    fleet = started.child;
    fleetOutput = started.output;
    if (saved === undefined) delete process.env[traceFileEnv];
    else process.env[traceFileEnv] = saved;
    const baseRss = started.baseRssBytes;
    const fleetStartS = (performance.now() - t0Fleet) / 1000;
    // Each hollow Node registers with the apiserver's not-ready:NoSchedule taint; the node
    // lifecycle controller removes it once the node is Ready. Pods are created after that.
    await cluster.waitForSchedulableNodes(nodes, 600_000);
    const idleFleetRss = rssBytes(fleet.pid);
    const idleClusterRss = cluster.totalRssBytes();
    // The background load of an idle fleet (Lease renewals, node status, PLEG relists, watches):
    // what each process spends with no pod at all, before the Job.
    const idleCpu0 = cpuByComponent(cluster, fleet, etcd);
    const tIdle = performance.now();
    if (idleS > 0) await new Promise((r) => setTimeout(r, idleS * 1000));
    const idleCpu1 = cpuByComponent(cluster, fleet, etcd);
    const idleSeconds = (performance.now() - tIdle) / 1000;
    const config = await loadClusterConfig(cluster.kubeconfig);
    const client = createClient(config, { qps: 0 });

    // Pod start-up: first seen (ADDED) → first seen with a started container (Running, or already finished).
    const created = new Map<string, number>();
    const startup: number[] = [];
    const seenRunning = new Set<string>();
    const succeeded = new Set<string>();
    const observe = (p: Pod): void => {
      const uid = p.metadata?.uid ?? "";
      const now = performance.now();
      if (p.status?.phase === "Succeeded") succeeded.add(uid);
      if (!created.has(uid)) created.set(uid, now);
      if (seenRunning.has(uid)) return;
      const st = p.status?.containerStatuses?.[0]?.state;
      if (p.status?.phase === "Running" || st?.running !== undefined || st?.terminated !== undefined) {
        seenRunning.add(uid);
        startup.push(now - (created.get(uid) ?? now));
      }
    };
    const informer = createInformer(client.pods, { namespace: "default", labelSelector: "job-name=fleet", onError: () => undefined });
    informer.addEventHandler({ onAdd: observe, onUpdate: (_old, p) => observe(p) });
    informer.start();
    await informer.waitForSync();

    // The mutating-call probe.
    await client.configMaps.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fleet-probe", namespace: "default" }, data: { n: "0" } }, { namespace: "default" });
    const probe: number[] = [];
    let probing = true;
    const prober = (async () => {
      for (let n = 1; probing; n++) {
        const t = performance.now();
        await client.configMaps.patch("fleet-probe", { data: { n: String(n) } }, { namespace: "default", type: "merge" }).catch(() => undefined);
        probe.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, Math.max(0, 100 - (performance.now() - t))));
      }
    })();

    let peakFleetRss = idleFleetRss;
    let peakClusterRss = idleClusterRss;
    const etcdRss = (): number => (etcd ? etcd.pids().reduce((a, pid) => a + rssBytes(pid), 0) : 0);
    let peakEtcdRss = etcdRss();
    const sampler = setInterval(() => {
      peakFleetRss = Math.max(peakFleetRss, rssBytes(fleet?.pid));
      peakClusterRss = Math.max(peakClusterRss, cluster.totalRssBytes());
      peakEtcdRss = Math.max(peakEtcdRss, etcdRss());
    }, 1000);
    const cpu0 = cpuByComponent(cluster, fleet, etcd);
    let cpu1 = cpu0;
    let seconds = 0;
    let filesBytes = 0;
    let finished = true;
    let jobDoneWallMs = Infinity;
    const t0 = performance.now();
    try {
      await cluster.api.create(jobsPath, {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "fleet" },
        spec: {
          completions: pods,
          parallelism: pods,
          backoffLimit: pods,
          template: { spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 5"] }] } },
        },
      });
      await complete(cluster.api, "fleet", limitS * 1000).catch((e: unknown) => {
        if ((performance.now() - t0) / 1000 < limitS) throw e;
        finished = false;
      });
      seconds = (performance.now() - t0) / 1000;
      jobDoneWallMs = Date.now();
      cpu1 = cpuByComponent(cluster, fleet, etcd);
      filesBytes = diskUsageBytes(fleetRoot);
    } finally {
      clearInterval(sampler);
      probing = false;
      await prober;
      informer.stop();
    }
    // Events are API writes too: how many each pod cost, by reason.
    const events = await client.events.listAll({ namespace: "default", limit: 5000 }).catch(() => undefined);
    // Then Kubernetes' SLO measurement: latency pods created at 5/s (see latency-pods.ts).
    const latencyCount = latencyPodCount(nodes);
    const latency = latencyCount > 0 && finished ? await measureLatencyPods(client, { count: latencyCount, settle: { cpuSeconds: () => sumValues(cpuByComponent(cluster, fleet, etcd)) } }) : undefined;
    client.close();
    if (events) {
      const byReason = new Map<string, number>();
      for (const e of events.items) byReason.set(e.reason ?? "", (byReason.get(e.reason ?? "") ?? 0) + 1);
      const list = [...byReason].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r} ${(n / pods).toFixed(2)}`);
      console.log(`  events per pod (namespace default, ${events.items.length} in all): ${list.join(", ")}`);
    }
    startup.sort((a, b) => a - b);
    probe.sort((a, b) => a - b);
    const p50 = percentile(startup, 50) / 1000;
    const p99 = percentile(startup, 99) / 1000;
    const m99 = percentile(probe, 99);
    // Stopped at the time limit: the pods that succeeded by then.
    const done = finished ? pods : succeeded.size;
    const podsPerSecond = done / seconds;
    const stoppedNote = finished ? "" : `; STOPPED at the ${limitS} s limit with ${done} of ${pods} pods Succeeded (${seenRunning.size} started): pods/s and latencies are of those`;
    const perNodeMiB = mib((peakFleetRss - baseRss) / nodes);
    const rows: BenchRow[] = [
      { what: `${nodes} hollow nodes registered (one fleet process)`, value: fleetStartS, unit: "s" },
      { what: `${pods}-pod Job (sleep 5) on ${nodes} hollow nodes, ${etcd ? "three-member etcd" : "SQLite"}`, value: podsPerSecond, unit: "pods/s", note: `${seconds.toFixed(1)} s in all; target >= 300 pods/s: ${podsPerSecond >= 300 ? "met" : "NOT met"}${was("podsPerSecond")}${stoppedNote}` },
      { what: `saturation pod start-up p50 (created → Running, ${startup.length} pods created at once)`, value: p50, unit: "s", note: was("startupP50").slice(2) },
      { what: "saturation pod start-up p99", value: p99, unit: "s", note: `density's threshold for these is the run's length, not the 5 s SLO${was("startupP99")}` },
      ...latencyRows(latency, latencyCount),
      { what: `mutating API call p50 (probe PATCH every 100 ms, ${probe.length} calls)`, value: percentile(probe, 50), unit: "ms" },
      { what: "mutating API call p99", value: m99, unit: "ms", note: `SLO <= 1000 ms: ${m99 <= 1000 ? "met" : "NOT met"}${was("apiP99")}` },
      { what: `fleet process RSS before any hollow node`, value: mib(baseRss), unit: "MiB" },
      { what: "fleet process RSS, idle (all nodes registered)", value: mib(idleFleetRss), unit: "MiB", note: `${mib((idleFleetRss - baseRss) / nodes).toFixed(2)} MiB per hollow node beyond the base (${mib(idleFleetRss / nodes).toFixed(2)} all-in)` },
      {
        what: "fleet process RSS, peak while running",
        value: mib(peakFleetRss),
        unit: "MiB",
        note: `${perNodeMiB.toFixed(2)} MiB per hollow node beyond the base (${mib(peakFleetRss / nodes).toFixed(2)} all-in); target <= 10 MiB: ${perNodeMiB <= 10 ? "met" : "NOT met"}${was("perNode")}`,
      },
      { what: `hollow nodes' files when the Job completed (${fleetRoot.startsWith("/dev/shm/") ? "tmpfs: memory beside the RSS" : "disk"})`, value: mib(filesBytes), unit: "MiB", note: `${mib(filesBytes / nodes).toFixed(2)} MiB per hollow node` },
      { what: "total RSS (apiserver, job controller, scheduler, fleet), peak", value: mib(peakClusterRss + peakFleetRss), unit: "MiB", note: `control plane ${mib(peakClusterRss).toFixed(0)} MiB${was("totalRss")}` },
    ];
    if (etcd) rows.push({ what: "etcd RSS (three members), peak", value: mib(peakEtcdRss), unit: "MiB", note: "beside the total above" });
    if (idleS > 0) {
      for (const [c, end] of idleCpu1) {
        const used = end - (idleCpu0.get(c) ?? 0);
        rows.push({ what: `idle CPU of ${c} (${nodes} hollow nodes, no pods)`, value: (used / idleSeconds) * 100, unit: "% of a core", note: `${used.toFixed(1)} CPU s in ${idleSeconds.toFixed(0)} s` });
      }
    }
    for (const [c, end] of cpu1) {
      const used = end - (cpu0.get(c) ?? 0);
      rows.push({ what: `CPU of ${c} per pod${finished ? "" : " Succeeded"}`, value: (used / Math.max(1, done)) * 1000, unit: "ms/pod", note: `${used.toFixed(1)} CPU s in all, ${((used / seconds) * 100).toFixed(0)} % of a core` });
    }
    if (tracing) {
      // Stopping flushes every component's trace buffer.
      await stopProcess(fleet);
      await cluster.stop();
      const text = readFileSync(traceFile, "utf8");
      const keep = process.env["SKIFF_BENCH_TRACE_OUT"];
      if (keep) writeFileSync(keep, text);
      // The Job's pods, then the latency pods, which came after it.
      const records = parseTraceRecords(text);
      printTimeline(podTimeline(records.filter((r) => r.start <= jobDoneWallMs)));
      if (latency) printTimeline(podTimeline(records.filter((r) => r.start > jobDoneWallMs)), "latency pods");
    }
    return rows;
  } finally {
    if (saved === undefined) delete process.env[traceFileEnv];
    else process.env[traceFileEnv] = saved;
    if (fleet) await stopProcess(fleet);
    // What the fleet's pod-work admission did, printed as it stops (see tools/fleet/src/loop-gate.ts).
    for (const line of fleetOutput().split("\n")) if (line.includes("pod syncs admitted")) console.log(`  ${line}`);
    await cluster.stop();
    rmSync(traceDir, { recursive: true, force: true });
    rmSync(fleetRoot, { recursive: true, force: true });
    etcd?.stop();
  }
}

/** A three-member etcd cluster of tools/etcd: its client URLs, its members' process ids (read from its pid files), and `stop`. */
interface EtcdCluster {
  endpoints: string;
  pids: () => number[];
  stop: () => void;
}

/** Starts a three-member etcd cluster in a temporary folder (tools/etcd); `stop` purges it. */
function startEtcd(): EtcdCluster {
  const dir = mkdtempSync(join(tmpdir(), "skiff-bench-etcd-"));
  const base = process.env["SKIFF_BENCH_ETCD_BASE_PORT"] ?? "23790";
  const stop = (): void => {
    spawnSync("bash", [join(repoRoot, "tools/etcd/stop-cluster.sh"), dir, "--purge"], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  };
  const r = spawnSync("bash", [join(repoRoot, "tools/etcd/start-cluster.sh"), dir, base], { encoding: "utf8" });
  const endpoints = r.stdout.trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !endpoints.startsWith("http")) {
    stop();
    throw new Error(`tools/etcd/start-cluster.sh failed (exit ${String(r.status)}): ${r.stderr.trim() || r.stdout.trim()}`);
  }
  const pids = (): number[] =>
    ["m0", "m1", "m2"].flatMap((m) => {
      try {
        const pid = Number(readFileSync(join(dir, `${m}.pid`), "utf8").trim());
        return Number.isInteger(pid) && pid > 0 ? [pid] : [];
      } catch {
        return [];
      }
    });
  return { endpoints, pids, stop };
}
