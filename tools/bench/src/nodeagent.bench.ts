/**
 * nodeagent benchmarks against the real binary, each row with its target and, where one applies, a
 * baseline measured in the same run:
 * - issue 6: start to healthy (spawn → `/healthz` 200, median of several starts, target < 500 ms),
 *   idle RSS (target < 120 MiB), pods started per second on the process CRI server (N static pods
 *   dropped into the manifest directory → all Running in the read-only `/pods`, target ≥ 50/s);
 * - issue 16: pod start latency (`POST /manifests` → Running, one pod at a time, each removed before
 *   the next, Guaranteed pods of 500m CPU (SKIFF_BENCH_NODEAGENT_LATENCY_CPU) and 16Mi) with cgroups per QoS and the managers on (static CPU manager with
 *   `--reserved-cpus=0`, Static memory manager, best-effort topology manager) beside
 *   `--cgroups-per-qos=false` and no managers (interleaved runs: off, on, off, on, off; target < 10 %
 *   slower; needs root),
 *   and the agent's RSS with the N pods running (target < 150 MiB);
 * - issue 18: exec round trip, measured as `POST /run/{ns}/{pod}/{container}?cmd=true` on the main
 *   port (HTTPS → CRI ExecSync → a process spawn), beside a plain spawn from the bench (target p50
 *   < 50 ms); `kubectl port-forward` download throughput beside a direct loopback download from the
 *   same busybox httpd pod, in a cluster of real processes (target ≥ 50 %), the CPU per MiB that
 *   costs each process of the path beside a direct download's client (informative; steadier than
 *   the ratio on a shared machine), and, for information, `kubectl exec` (a kubectl process per call);
 * - issue 19: `GET /stats/summary` with the N pods beside `GET /healthz` on the same port (target
 *   < 50 ms) and the agent's CPU over an idle window with the N pods (/proc/<pid>/stat, target < 2 %
 *   of one core).
 *
 * The agent runs from apps/nodeagent/dist/main.js when that is newer than its sources, else from source through
 * tsx (slower to start and larger: the TypeScript loader is in the process); each row says which.
 * The process CRI server runs as its own process (its CLI). Containers write their logs under
 * /var/log/pods, as the kubelet's do, so this needs root. Sizes: SKIFF_BENCH_NODEAGENT_PODS (default
 * 100) pods, SKIFF_BENCH_NODEAGENT_STARTS (default 5) starts, SKIFF_BENCH_NODEAGENT_LATENCY_PODS
 * (default 10 per run), SKIFF_BENCH_NODEAGENT_LATENCY_ROUNDS (default 2 runs with cgroups per QoS
 * on, one more without), SKIFF_BENCH_NODEAGENT_EXECS (default 30), SKIFF_BENCH_NODEAGENT_STATS_CALLS
 * (default 20), SKIFF_BENCH_NODEAGENT_IDLE_S (default 60 s) after SKIFF_BENCH_NODEAGENT_SETTLE_S (default
 * 15 s), SKIFF_BENCH_NODEAGENT_FORWARD_MIB
 * (default 64; 0 skips the port-forward cluster); SKIFF_BENCH_NODEAGENT_CONTAINERD=1 adds the
 * latency pair on a private containerd (tools/containerd/setup.sh; root); SKIFF_BENCH_NODEAGENT_BIN
 * runs another built entry point (e.g. a bundle) instead; SKIFF_BENCH_NODEAGENT_ONLY=forward runs
 * only the port-forward cluster (issue 18's throughput pairs and kubectl exec),
 * SKIFF_BENCH_NODEAGENT_ONLY=stats only the N pods, `/stats/summary` and idle CPU (issue 19),
 * SKIFF_BENCH_NODEAGENT_ONLY=latency only the pod start latency pairs (issue 16);
 * SKIFF_BENCH_TRACE_DIR=<dir> has each agent write its trace spans (SKIFF_TRACE_FILE) to
 * `<dir>/<node name>.jsonl`.
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, runKubectl, setUpContainerd, startCluster, waitFor } from "@skiff/e2e";
import { appCommand, describeCommand } from "./launch.js";
import type { BenchRow } from "./report.js";
import { envNumber } from "./env.js";

export const name = "nodeagent (real binary, process CRI server)";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const podCount = envNumber("SKIFF_BENCH_NODEAGENT_PODS", 100, { min: 1, integer: true, unit: "pods" });
const starts = envNumber("SKIFF_BENCH_NODEAGENT_STARTS", 5, { min: 1, integer: true, unit: "starts" });
const latencyPods = envNumber("SKIFF_BENCH_NODEAGENT_LATENCY_PODS", 10, { min: 0, integer: true, unit: "pods" });
const latencyRounds = envNumber("SKIFF_BENCH_NODEAGENT_LATENCY_ROUNDS", 2, { min: 1, integer: true, unit: "rounds" });
const latencyCpu = process.env["SKIFF_BENCH_NODEAGENT_LATENCY_CPU"] ?? "500m";
const execCalls = envNumber("SKIFF_BENCH_NODEAGENT_EXECS", 30, { min: 0, integer: true, unit: "calls" });
const statsCalls = envNumber("SKIFF_BENCH_NODEAGENT_STATS_CALLS", 20, { min: 0, integer: true, unit: "calls" });
// A minute: every pod's periodic resync (each pod once a minute) falls in the window exactly once.
const idleSeconds = envNumber("SKIFF_BENCH_NODEAGENT_IDLE_S", 60, { min: 0, unit: "seconds" });
// The wait before the idle window: the pods' first status reads and the volume-stats pass after
// the wave of starts are over, so the window is the agent's steady state.
const settleSeconds = envNumber("SKIFF_BENCH_NODEAGENT_SETTLE_S", 15, { min: 0, unit: "seconds" });
const forwardMiB = envNumber("SKIFF_BENCH_NODEAGENT_FORWARD_MIB", 64, { min: 0, unit: "MiB" });
const forwardRounds = 3;
const kubectlExecs = 5;
const podLogsRoot = "/var/log/pods";

interface Launch {
  readonly argv: readonly string[];
  readonly how: string;
}

/** The built entry point when present, else the source through tsx. */
function launch(builtRel: string, sourceRel: string): Launch {
  const built = join(repoRoot, builtRel);
  if (existsSync(built)) return { argv: [built], how: "built dist" };
  return { argv: ["--conditions=@skiff/source", "--import", "tsx", join(repoRoot, sourceRel)], how: "source via tsx" };
}

const agentBin = process.env["SKIFF_BENCH_NODEAGENT_BIN"];
// The bundle only when it is newer than the sources (launch.ts), so a stale build is never measured.
const agentCommand = appCommand("nodeagent");
const agentLaunch: Launch = agentBin ? { argv: [agentBin], how: `built ${agentBin}` } : { argv: agentCommand.args, how: describeCommand("nodeagent", agentCommand) };
const criLaunch = launch("tools/cri-process-server/dist/main.js", "tools/cri-process-server/src/main.ts");

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

function stopProcess(proc: ChildProcess, graceMs = 10_000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
    proc.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill("SIGTERM");
  });
}

async function startCRI(dir: string): Promise<{ proc: ChildProcess; endpoint: string }> {
  const socket = join(dir, "cri.sock");
  const proc = spawn(process.execPath, [...criLaunch.argv, "--listen", socket, "--state-dir", join(dir, "cri-state")], { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const deadline = Date.now() + 60_000;
  while (!existsSync(socket)) {
    if (proc.exitCode !== null) throw new Error(`cri-process-server exited ${String(proc.exitCode)}: ${err}`);
    if (Date.now() > deadline) throw new Error(`cri-process-server did not listen: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { proc, endpoint: `unix://${socket}` };
}

interface Agent {
  readonly proc: ChildProcess;
  /** The main (HTTPS) port: anonymous, AlwaysAllow, debugging handlers on (the standalone defaults). */
  readonly port: number;
  readonly readOnlyPort: number;
  readonly healthzPort: number;
  readonly startedAtMs: number;
  stderr(): string;
}

async function startAgent(dir: string, nodeName: string, endpoint: string, extra: readonly string[]): Promise<Agent> {
  const [port, readOnlyPort, healthzPort] = [await freePort(), await freePort(), await freePort()];
  const startedAtMs = nowMs();
  const proc = spawn(
    process.execPath,
    [
      // SKIFF_BENCH_CPU_PROF=<dir>: each agent writes a V8 CPU profile there when it stops.
      ...(process.env["SKIFF_BENCH_CPU_PROF"] ? ["--cpu-prof", `--cpu-prof-dir=${process.env["SKIFF_BENCH_CPU_PROF"]}`] : []),
      ...agentLaunch.argv,
      `--hostname-override=${nodeName}`,
      `--root-dir=${join(dir, "root")}`,
      `--cert-dir=${join(dir, "pki")}`,
      "--address=127.0.0.1",
      `--port=${String(port)}`,
      `--read-only-port=${String(readOnlyPort)}`,
      `--healthz-port=${String(healthzPort)}`,
      `--container-runtime-endpoint=${endpoint}`,
      // The bench machine may have swap on; without root no cgroups can be created.
      "--fail-swap-on=false",
      ...(process.getuid?.() === 0 ? [] : ["--cgroups-per-qos=false", "--enforce-node-allocatable="]),
      ...extra,
    ],
    // SKIFF_BENCH_TRACE_DIR=<dir>: each agent writes its trace spans to <dir>/<node name>.jsonl.
    { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"], env: process.env["SKIFF_BENCH_TRACE_DIR"] ? { ...process.env, SKIFF_TRACE_FILE: join(process.env["SKIFF_BENCH_TRACE_DIR"], `${nodeName}.jsonl`) } : process.env },
  );
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  return { proc, port, readOnlyPort, healthzPort, startedAtMs, stderr: () => err };
}

/** Polls /healthz every 5 ms; resolves with ms from spawn to the first 200 `ok`. */
async function untilHealthy(a: Agent, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (a.proc.exitCode !== null) throw new Error(`nodeagent exited ${String(a.proc.exitCode)}: ${a.stderr()}`);
    const r = await httpGet(a.healthzPort, "/healthz").catch(() => undefined);
    if (r?.status === 200 && r.body === "ok") return nowMs() - a.startedAtMs;
    if (Date.now() > deadline) throw new Error(`nodeagent not healthy: ${a.stderr()}`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${String(pid)}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function removePodLogs(nodeName: string): void {
  const entries = existsSync(podLogsRoot) ? readdirSync(podLogsRoot) : [];
  for (const e of entries) if (e.includes(`-${nodeName}_`)) rmSync(join(podLogsRoot, e), { recursive: true, force: true });
}

function podManifest(podName: string): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: ${podName}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: main
    image: busybox
    imagePullPolicy: IfNotPresent
    command: [sh, -c, "sleep 3600"]
`;
}

interface PodSummary {
  readonly status?: { readonly phase?: string };
}

/** Polls the read-only `/pods` every 20 ms until `count` pods are Running. */
async function untilRunning(a: Agent, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let running = 0;
  while (running < count) {
    if (Date.now() > deadline) throw new Error(`only ${String(running)} of ${String(count)} pods Running after ${String(timeoutMs / 1000)} s: ${a.stderr().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 20));
    const r = await httpGet(a.readOnlyPort, "/pods").catch(() => undefined);
    if (r?.status !== 200) continue;
    const items = (JSON.parse(r.body) as { items: PodSummary[] | null }).items ?? [];
    running = items.filter((p) => p.status?.phase === "Running").length;
  }
}


const insecure = new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

/** One request to the agent's main HTTPS port (self-signed certificate; one kept-alive connection). */
function httpsCall(port: number, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
    const req = httpsRequest({ host: "127.0.0.1", port, path, method, agent: insecure, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
}

function met(ok: boolean): string {
  return ok ? "met" : "NOT met";
}

/** CPU seconds (user + system) the process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number, ticksPerSecond: number): number {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state): utime and stime are fields 14 and 15.
  return (Number(rest[11]) + Number(rest[12])) / ticksPerSecond;
}

function clockTicks(): number {
  const r = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const n = Number(r.stdout.trim());
  return n > 0 ? n : 100;
}

/** Spawns `argv` and resolves when it exits: the baseline of an exec (one process start and wait). */
function spawnAndWait(argv: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(argv[0] ?? "true", argv.slice(1), { stdio: "ignore" });
    p.on("error", reject);
    p.on("exit", () => resolve());
  });
}

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = nowMs();
  await fn();
  return nowMs() - t0;
}

interface PodItem {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly status?: { readonly phase?: string; readonly podIP?: string };
}

/**
 * Pod start latency with `extra` flags: one agent (own CRI server), a warm-up pod, then
 * `latencyPods` pods one after the other, each from `POST /manifests` to Running in the read-only
 * `/pods` (polled every 5 ms). Returns the latencies in ms.
 */
async function podStartLatencies(dir: string, nodeName: string, extra: readonly string[], containerdEndpoint?: string): Promise<number[]> {
  // Guaranteed pods: the memory manager pins their memory and the topology manager merges hints.
  // Their CPU (SKIFF_BENCH_NODEAGENT_LATENCY_CPU, 500m) is large enough that the pod's own CFS
  // quota does not throttle the runtime's set-up: with a pod cgroup, runc's init for the sandbox
  // and the container runs under the pod's quota (1.23's kubelet sets it before RunPodSandbox), so
  // a 50m pod took ~2.4x as long to start on containerd whatever the agent did; without pod
  // cgroups runc applies the container's quota only after its init.
  const resources = { requests: { cpu: latencyCpu, memory: "16Mi" }, limits: { cpu: latencyCpu, memory: "16Mi" } };
  mkdirSync(dir, { recursive: true });
  const cri = containerdEndpoint === undefined ? await startCRI(dir) : undefined;
  const a = await startAgent(dir, nodeName, cri?.endpoint ?? containerdEndpoint ?? "", extra);
  const started: string[] = [];
  try {
    await untilHealthy(a);
    const startOne = async (podName: string): Promise<number> => {
      const t0 = nowMs();
      const r = await httpsCall(a.port, "POST", "/manifests", JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: podName }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 3600"], resources }] } }));
      if (r.status !== 201) throw new Error(`POST /manifests ${podName}: ${String(r.status)} ${r.body}`);
      const created = JSON.parse(r.body) as PodItem;
      const name = created.metadata?.name ?? podName;
      started.push(name);
      const deadline = Date.now() + 120_000;
      for (;;) {
        const l = await httpGet(a.readOnlyPort, "/pods").catch(() => undefined);
        const items = l?.status === 200 ? ((JSON.parse(l.body) as { items: PodItem[] | null }).items ?? []) : [];
        if (items.some((p) => p.metadata?.name === name && p.status?.phase === "Running")) break;
        if (Date.now() > deadline) throw new Error(`pod ${name} not Running after 120 s: ${a.stderr().slice(-2000)}`);
        await new Promise((res) => setTimeout(res, 5));
      }
      const ms = nowMs() - t0;
      // Each pod goes before the next comes (not timed), so every start finds the same empty node
      // and the node's allocatable CPU holds one pod at a time.
      await removePods(a, [name]);
      return ms;
    };
    await startOne("warm");
    const out: number[] = [];
    for (let i = 0; i < latencyPods; i++) out.push(await startOne(`l${String(i)}`));
    return out;
  } finally {
    // A shared runtime (containerd) keeps its pods after the agent stops: remove them first, so the
    // next run's agent does not spend its time killing this run's sandboxes.
    const uids = await podUIDs(a);
    if (cri === undefined) await removePods(a, started).catch(() => undefined);
    await stopProcess(a.proc);
    if (cri) await stopProcess(cri.proc);
    removePodCgroups(uids);
    removePodLogs(nodeName);
  }
}

interface PodWithUID {
  readonly metadata?: { readonly uid?: string };
}

/** The UIDs of the pods the agent's read-only `/pods` lists (empty when it does not answer). */
async function podUIDs(a: Agent): Promise<string[]> {
  const l = await httpGet(a.readOnlyPort, "/pods").catch(() => undefined);
  if (l?.status !== 200) return [];
  return ((JSON.parse(l.body) as { items: PodWithUID[] | null }).items ?? []).map((p) => p.metadata?.uid ?? "").filter((u) => u !== "");
}

function removeCgroupTree(path: string): void {
  for (const e of readdirSync(path, { withFileTypes: true })) if (e.isDirectory()) removeCgroupTree(join(path, e.name));
  try {
    rmdirSync(path);
  } catch {
    // still has processes (EBUSY): leave it
  }
}

/**
 * Removes the pod cgroups (cgroupfs driver: `kubepods[/<qos>]/pod<uid>` under every hierarchy) of
 * the pods `uids`, whose processes the stopped CRI server killed behind the agent's back: the
 * kubelet removes a pod's cgroup only once the pod is gone while it runs, so every bench run would
 * otherwise leave its pods' cgroups behind. Never throws.
 */
function removePodCgroups(uids: readonly string[]): void {
  const base = "/sys/fs/cgroup";
  if (uids.length === 0 || !existsSync(base)) return;
  const roots = existsSync(join(base, "cgroup.controllers")) ? [base] : readdirSync(base).map((d) => join(base, d));
  for (const root of roots)
    for (const qos of ["kubepods", "kubepods/besteffort", "kubepods/burstable"])
      for (const uid of uids) {
        const dir = join(root, qos, `pod${uid}`);
        try {
          if (existsSync(dir)) removeCgroupTree(dir);
        } catch {
          // not ours to fight over
        }
      }
}

/** DELETEs the manifest pods `names` and waits until `/pods` lists none of them. */
/** Waits until the agent's read-only `/pods` lists no pod. @throws Error after `timeoutMs`. */
async function untilNoPods(a: Agent, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const l = await httpGet(a.readOnlyPort, "/pods").catch(() => undefined);
    if (l?.status === 200 && ((JSON.parse(l.body) as { items: PodItem[] | null }).items ?? []).length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`pods still listed after ${String(timeoutMs)} ms`);
}

async function removePods(a: Agent, names: readonly string[]): Promise<void> {
  for (const n of names) await httpsCall(a.port, "DELETE", `/manifests/default/${encodeURIComponent(n)}`);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const l = await httpGet(a.readOnlyPort, "/pods");
    const items = (JSON.parse(l.body) as { items: PodItem[] | null }).items ?? [];
    if (!items.some((p) => names.includes(p.metadata?.name ?? ""))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Issue 16: pod start latency with cgroups per QoS on beside off, in the same run, on `runtime`
 * (the process CRI server, one per agent run, or the given containerd endpoint).
 */
async function podStartLatencyRows(dir: string, suffix: string, runtime: string, containerdEndpoint?: string): Promise<BenchRow[]> {
  if (process.getuid?.() !== 0) return [{ what: `pod start latency on ${runtime}, cgroups and managers on vs off`, value: 0, unit: "ms", note: "skipped: not root (no cgroups can be created)" }];
  const offFlags = ["--cgroups-per-qos=false", "--enforce-node-allocatable="];
  const onFlags = ["--cpu-manager-policy=static", "--reserved-cpus=0", "--memory-manager-policy=Static", "--reserved-memory=0:memory=100Mi", "--topology-manager-policy=best-effort"];
  const tag = runtime === "containerd" ? "c" : "p";
  // Off, on, off, on, ..., off: the machine's load drifts; the runs interleave so both sides see it.
  const offRuns: number[][] = [];
  const onRuns: number[][] = [];
  for (let i = 0; i <= latencyRounds; i++) {
    offRuns.push(await podStartLatencies(join(dir, `lat-${tag}-off${String(i)}`), `bench-l${tag}o${String(i)}-${suffix}`, offFlags, containerdEndpoint));
    if (i < latencyRounds) onRuns.push(await podStartLatencies(join(dir, `lat-${tag}-on${String(i)}`), `bench-l${tag}n${String(i)}-${suffix}`, onFlags, containerdEndpoint));
  }
  const off = offRuns.flat();
  const on = onRuns.flat();
  const onMs = median(on);
  const offMs = median(off);
  const ratio = onMs / offMs;
  const perRun = (runs: number[][]) => runs.map((r) => median(r).toFixed(0)).join(", ");
  return [
    {
      what: `pod start latency on ${runtime}, --cgroups-per-qos=false, no managers (median of ${String(off.length)})`,
      value: offMs,
      unit: "ms",
      note: `baseline; run medians ${perRun(offRuns)} ms; p90 ${percentile(off, 90).toFixed(0)} ms; POST /manifests → Running in /pods, one pod at a time, Guaranteed ${latencyCpu} CPU / 16Mi`,
    },
    {
      what: `pod start latency on ${runtime}, cgroups per QoS + CPU/memory/topology managers on (median of ${String(on.length)})`,
      value: onMs,
      unit: "ms",
      note: `${ratio.toFixed(2)}× the baseline (${((ratio - 1) * 100).toFixed(1)} % slower); run medians ${perRun(onRuns)} ms; p90 ${percentile(on, 90).toFixed(0)} ms; target < 10 % slower: ${met(ratio < 1.1)}`,
    },
  ];
}

/** The containerd rows of issue 16 when SKIFF_BENCH_NODEAGENT_CONTAINERD=1 and tools/containerd/setup.sh works. */
async function containerdLatencyRows(dir: string, suffix: string): Promise<BenchRow[]> {
  if (process.env["SKIFF_BENCH_NODEAGENT_CONTAINERD"] !== "1") return [];
  const ctd = setUpContainerd();
  try {
    if (ctd.endpoint === undefined) return [{ what: "pod start latency on containerd", value: 0, unit: "ms", note: `skipped: ${ctd.reason}` }];
    return await podStartLatencyRows(dir, suffix, "containerd", ctd.endpoint);
  } finally {
    ctd.stop();
  }
}

/** Issue 18: `/run` (CRI ExecSync through the agent) round trips beside a direct process spawn. */
async function execRows(a: Agent, nodeName: string): Promise<BenchRow[]> {
  const path = `/run/default/p0-${nodeName}/main?cmd=true`;
  const first = await httpsCall(a.port, "POST", path);
  if (first.status !== 200) return [{ what: "exec round trip (/run)", value: 0, unit: "ms", note: `skipped: POST ${path} answered ${String(first.status)} ${first.body}` }];
  const viaAgent: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < execCalls; i++) {
    viaAgent.push(await timeMs(() => httpsCall(a.port, "POST", path)));
    direct.push(await timeMs(() => spawnAndWait(["true"])));
  }
  const p50 = percentile(viaAgent, 50);
  const base = percentile(direct, 50);
  return [
    { what: `spawn of \`true\` from the bench, p50 of ${String(execCalls)}`, value: base, unit: "ms", note: "baseline: one process start and wait, no protocol" },
    {
      what: `exec round trip, POST /run/{ns}/{pod}/{container}?cmd=true, p50 of ${String(execCalls)}`,
      value: p50,
      unit: "ms",
      note: `HTTPS (kept alive) → agent → CRI ExecSync → spawn; ${(p50 / base).toFixed(1)}× the baseline; p90 ${percentile(viaAgent, 90).toFixed(1)} ms; target p50 < 50 ms: ${met(p50 < 50)}`,
    },
  ];
}

/** `kubelet_runtime_operations_total` by operation from the agent's `/metrics`; undefined when it does not answer. */
async function runtimeOperations(a: Agent): Promise<Map<string, number> | undefined> {
  const r = await httpGet(a.readOnlyPort, "/metrics").catch(() => undefined);
  if (r?.status !== 200) return undefined;
  const out = new Map<string, number>();
  for (const m of r.body.matchAll(/^kubelet_runtime_operations_total\{operation_type="([^"]+)"\} (\S+)$/gm)) out.set(m[1] ?? "", Number(m[2]));
  // The GC counters ride along under keys no CRI operation has (the CRI total skips them).
  for (const m of r.body.matchAll(/^nodejs_gc_duration_seconds_count\{kind="([^"]+)"\} (\S+)$/gm)) out.set(`gc_count:${m[1] ?? ""}`, Number(m[2]));
  let gcSum = 0;
  for (const m of r.body.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="[^"]+"\} (\S+)$/gm)) gcSum += Number(m[1]);
  out.set("gc_sum", gcSum);
  return out;
}

/** Issue 19: `/stats/summary` time beside `/healthz` on the same port, and CPU at idle. */
async function statsRows(a: Agent, pods: number): Promise<BenchRow[]> {
  const probe = await httpGet(a.readOnlyPort, "/stats/summary");
  if (probe.status !== 200) return [{ what: "/stats/summary", value: 0, unit: "ms", note: `skipped: ${String(probe.status)} ${probe.body.slice(0, 200)}` }];
  const summaryPods = ((JSON.parse(probe.body) as { pods?: unknown[] }).pods ?? []).length;
  const summary: number[] = [];
  const healthz: number[] = [];
  for (let i = 0; i < statsCalls; i++) {
    summary.push(await timeMs(() => httpGet(a.readOnlyPort, "/stats/summary")));
    healthz.push(await timeMs(() => httpGet(a.readOnlyPort, "/healthz")));
  }
  // The agent's CPU per summary: back-to-back calls, the process's CPU time over them.
  const pid0 = a.proc.pid ?? 0;
  const cpuBefore = cpuSeconds(pid0, clockTicks());
  for (let i = 0; i < statsCalls; i++) await httpGet(a.readOnlyPort, "/stats/summary");
  const cpuPerCallMs = ((cpuSeconds(pid0, clockTicks()) - cpuBefore) / statsCalls) * 1000;
  const s50 = percentile(summary, 50);
  const h50 = percentile(healthz, 50);
  const rows: BenchRow[] = [
    { what: `GET /healthz on the read-only port, p50 of ${String(statsCalls)}`, value: h50, unit: "ms", note: "baseline: an HTTP round trip with no work" },
    {
      what: `GET /stats/summary, ${String(summaryPods)} pods in it, p50 of ${String(statsCalls)}`,
      value: s50,
      unit: "ms",
      note: `${(s50 / h50).toFixed(1)}× the baseline; ${(probe.body.length / 1024).toFixed(0)} KiB; p90 ${percentile(summary, 90).toFixed(1)} ms; target < 50 ms: ${met(s50 < 50)}`,
    },
    { what: `agent CPU per GET /stats/summary (${String(statsCalls)} back to back)`, value: cpuPerCallMs, unit: "ms", note: "utime+stime of the agent over the calls (its background loops included); informative" },
  ];
  // Idle: no request for idleSeconds; the agent's own loops (pod workers' resyncs, stats,
  // eviction, image and container GC, status) keep running.
  const pid = a.proc.pid ?? 0;
  const hz = clockTicks();
  await new Promise((r) => setTimeout(r, settleSeconds * 1000));
  const ops0 = await runtimeOperations(a);
  const c0 = cpuSeconds(pid, hz);
  const t0 = nowMs();
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const cpuPct = ((cpuSeconds(pid, hz) - c0) / ((nowMs() - t0) / 1000)) * 100;
  const idleS = (nowMs() - t0) / 1000;
  const ops1 = await runtimeOperations(a);
  rows.push({
    what: `CPU at idle, ${String(pods)} pods, over ${String(idleSeconds)} s`,
    value: cpuPct,
    unit: "% of 1 core",
    note: `/proc/<pid>/stat utime+stime; no requests; from ${String(settleSeconds)} s after the summaries; ${(cpuPct / 2).toFixed(2)}× the target; target < 2 %: ${met(cpuPct < 2)}`,
  });
  if (ops0 !== undefined && ops1 !== undefined) {
    // Garbage collections over the window (prom-client's nodejs_gc_duration_seconds): the agent's
    // allocation at idle, a figure the machine's load moves little.
    const gc = (m: Map<string, number>, kind: string) => m.get(`gc_count:${kind}`) ?? 0;
    const per10 = (kind: string) => ((gc(ops1, kind) - gc(ops0, kind)) * 10) / idleS;
    const gcMs = (((ops1.get("gc_sum") ?? 0) - (ops0.get("gc_sum") ?? 0)) * 1000 * 10) / idleS;
    rows.push({ what: `garbage collections at idle, ${String(pods)} pods, per 10 s`, value: per10("minor") + per10("major") + per10("incremental"), unit: "GCs", note: `minor ${per10("minor").toFixed(1)}, major ${per10("major").toFixed(1)}, incremental ${per10("incremental").toFixed(1)}; ${gcMs.toFixed(1)} ms of pauses; informative` });
    // The CRI calls the agent's loops make at idle (kubelet_runtime_operations_total): a figure the machine's load does not move.
    const per10s = (op: string) => (((ops1.get(op) ?? 0) - (ops0.get(op) ?? 0)) * 10) / idleS;
    const listed = ["list_podsandbox", "list_containers", "list_container_stats", "image_fs_info"].map((op) => `${op} ${per10s(op).toFixed(1)}`).join(", ");
    const total = [...ops1.keys()].filter((op) => !op.startsWith("gc_")).reduce((n, op) => n + per10s(op), 0);
    rows.push({ what: `CRI calls at idle, ${String(pods)} pods, per 10 s`, value: total, unit: "calls", note: `kubelet_runtime_operations_total over the idle window; ${listed}; informative` });
  }
  return rows;
}

/** Downloads `url` once; resolves with the bytes received and the seconds it took. */
function download(port: number, path: string, host = "127.0.0.1"): Promise<{ bytes: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const req = request({ host, port, path, agent: false }, (res) => {
      let bytes = 0;
      res.on("data", (d: Buffer) => (bytes += d.length));
      res.on("end", () => (res.statusCode === 200 ? resolve({ bytes, seconds: (nowMs() - t0) / 1000 }) : reject(new Error(`GET ${path} on ${String(port)}: ${String(res.statusCode)}`))));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** CPU seconds (user + system) of `pid` and its descendants so far; 0 for a process gone. */
function treeCpuSeconds(pid: number, ticksPerSecond: number): number {
  let total = 0;
  try {
    total = cpuSeconds(pid, ticksPerSecond);
    for (const c of readFileSync(`/proc/${String(pid)}/task/${String(pid)}/children`, "utf8").trim().split(/\s+/).filter((x) => x !== "")) total += treeCpuSeconds(Number(c), ticksPerSecond);
  } catch {
    // Exited meanwhile.
  }
  return total;
}

/** What {@link forwardPair} measures: medians in MiB/s, and CPU ms per MiB moved (forwarded: each process of the path). */
interface ForwardPair {
  readonly direct: number;
  readonly forwarded: number;
  readonly directCpuMsPerMiB: number;
  readonly forwardedCpuMsPerMiB: ReadonlyMap<string, number>;
}

/**
 * Port-forward to `pod`'s `port` and downloads /big through it and directly (`directHost`),
 * interleaved: the two medians in MiB/s, and the CPU each costs per MiB: the bench's own (the
 * client) for the direct downloads; kubectl, `path`'s processes (with their children: the CRI
 * server's include the pod's httpd) and the client for the forwarded ones. On a shared machine
 * the throughput ratio swings with the load; CPU per MiB moves much less.
 */
async function forwardPair(kubeconfig: string, pod: string, port: number, directHost: string, path: ReadonlyMap<string, number>): Promise<ForwardPair> {
  const local = await freePort();
  const proc = spawn("kubectl", ["--kubeconfig", kubeconfig, "port-forward", `pod/${pod}`, `${String(local)}:${String(port)}`], { stdio: ["ignore", "pipe", "pipe"] });
  try {
    let out = "";
    proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
    proc.stderr.on("data", (d: Buffer) => (out += d.toString()));
    for (const deadline = Date.now() + 60_000; !/Forwarding from 127\.0\.0\.1/.test(out); ) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`kubectl port-forward did not listen: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await download(local, "/big"); // warm-up: the first connection opens the SPDY streams
    const direct: number[] = [];
    const forwarded: number[] = [];
    const hz = clockTicks();
    const procs = new Map([["kubectl", proc.pid ?? 0], ...path]);
    const selfCpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    };
    let directCpu = 0;
    let directMiB = 0;
    let forwardedMiB = 0;
    const forwardedCpu = new Map<string, number>();
    for (let i = 0; i < forwardRounds; i++) {
      const c0 = selfCpu();
      const d = await download(port, "/big", directHost);
      directCpu += selfCpu() - c0;
      directMiB += d.bytes / (1024 * 1024);
      direct.push(d.bytes / (1024 * 1024) / d.seconds);
      const before = new Map([...procs].map(([n, pid]) => [n, treeCpuSeconds(pid, hz)]));
      const s0 = selfCpu();
      const f = await download(local, "/big");
      forwardedCpu.set("client", (forwardedCpu.get("client") ?? 0) + selfCpu() - s0);
      for (const [n, pid] of procs) forwardedCpu.set(n, (forwardedCpu.get(n) ?? 0) + treeCpuSeconds(pid, hz) - (before.get(n) ?? 0));
      forwardedMiB += f.bytes / (1024 * 1024);
      forwarded.push(f.bytes / (1024 * 1024) / f.seconds);
    }
    return {
      direct: median(direct),
      forwarded: median(forwarded),
      directCpuMsPerMiB: (directCpu * 1000) / directMiB,
      forwardedCpuMsPerMiB: new Map([...forwardedCpu].map(([n, sec]) => [n, (sec * 1000) / forwardedMiB])),
    };
  } finally {
    await stopProcess(proc, 2_000);
  }
}

/**
 * Issue 18: `kubectl port-forward` throughput beside a direct loopback connection to the same
 * busybox httpd, in a cluster of real processes (@skiff/e2e): a host-network pod (the streaming
 * server dials the host's 127.0.0.1) and, when the process runtime gives pods their own network
 * namespace (root), a pod-network pod (the direct download goes to the pod IP over the CNI bridge);
 * and `kubectl exec` latency, a kubectl process per call.
 */
async function portForwardRows(dir: string): Promise<BenchRow[]> {
  const cmd = appCommand("nodeagent");
  // SKIFF_BENCH_CPU_PROF=<dir>: every process of the cluster writes a V8 CPU profile there when it stops.
  const profDir = process.env["SKIFF_BENCH_CPU_PROF"];
  const cluster = await startCluster({ nodes: [{ name: "bench-pf", runtime: "process" }], fromSource: !cmd.built, ...(profDir ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profDir}`] } : {}) });
  const uids: string[] = [];
  try {
    const www = join(dir, "www");
    mkdirSync(www, { recursive: true });
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 7919) & 0xff;
    writeFileSync(join(www, "big"), Buffer.concat(Array.from({ length: forwardMiB }, () => chunk)));
    const httpPort = await freePort();
    const startWeb = async (name: string, hostNetwork: boolean): Promise<PodItem> => {
      const web = await cluster.api.create("/api/v1/namespaces/default/pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name },
        spec: {
          nodeName: "bench-pf",
          hostNetwork,
          terminationGracePeriodSeconds: 0,
          // The container's /tmp is its own (namespaces): the files come in as a hostPath volume.
          volumes: [{ name: "www", hostPath: { path: www } }],
          containers: [{ name: "web", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["busybox", "httpd", "-f", "-p", String(httpPort), "-h", "/www"], volumeMounts: [{ name: "www", mountPath: "/www", readOnly: true }] }],
        },
      });
      uids.push(web.metadata?.uid ?? "");
      return waitFor(`pod ${name} Running`, async () => {
        const p = await cluster.api.get<PodItem>(`/api/v1/namespaces/default/pods/${name}`);
        return p.status?.phase === "Running" ? p : undefined;
      }, 120_000, 200);
    };
    await startWeb("web", true);
    await waitFor("busybox httpd serving", () => download(httpPort, "/big").then(() => true, () => undefined), 120_000, 200);
    const path = new Map<string, number>();
    for (const [n, p] of cluster.processes) if (n === "apiserver" || n === "bench-pf" || n === "cri-bench-pf") path.set(n === "bench-pf" ? "nodeagent" : n === "cri-bench-pf" ? "CRI server" : n, p.proc.pid ?? 0);
    const cpuRow = (pair: ForwardPair, which: string): BenchRow => {
      const total = [...pair.forwardedCpuMsPerMiB.values()].reduce((a, b) => a + b, 0);
      const parts = [...pair.forwardedCpuMsPerMiB].map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(", ");
      return { what: `CPU per MiB port-forwarded, ${which}`, value: total, unit: "ms/MiB", note: `${parts}; a direct download costs its client ${pair.directCpuMsPerMiB.toFixed(1)} ms/MiB; ${(pair.directCpuMsPerMiB / total * 100).toFixed(0)} % of the path's; informative` };
    };
    const host = await forwardPair(cluster.kubeconfig, "web", httpPort, "127.0.0.1", path);
    const ratio = host.forwarded / host.direct;
    const rows: BenchRow[] = [
      { what: `direct loopback download of ${String(forwardMiB)} MiB (median of ${String(forwardRounds)})`, value: host.direct, unit: "MiB/s", note: "baseline: busybox httpd in a host-network process-runtime pod, straight to its port" },
      {
        what: `kubectl port-forward download of ${String(forwardMiB)} MiB (median of ${String(forwardRounds)})`,
        value: host.forwarded,
        unit: "MiB/s",
        note: `kubectl → apiserver → ${describeCommand("nodeagent", cmd)} → process CRI streaming server; ${(ratio * 100).toFixed(0)} % of the baseline; target ≥ 50 %: ${met(ratio >= 0.5)}`,
      },
      cpuRow(host, "host-network pod"),
    ];
    const netPod = await startWeb("web-net", false);
    const podIP = netPod.status?.podIP ?? "";
    if (podIP !== "" && podIP !== "127.0.0.1") {
      await waitFor("busybox httpd serving in the pod network", () => download(httpPort, "/big", podIP).then(() => true, () => undefined), 120_000, 200);
      const net = await forwardPair(cluster.kubeconfig, "web-net", httpPort, podIP, path);
      const r = net.forwarded / net.direct;
      rows.push(
        { what: `direct download of ${String(forwardMiB)} MiB from a pod-network pod's IP (median of ${String(forwardRounds)})`, value: net.direct, unit: "MiB/s", note: "baseline: the pod in its own network namespace, over the CNI bridge" },
        { what: `kubectl port-forward download of ${String(forwardMiB)} MiB from that pod (median of ${String(forwardRounds)})`, value: net.forwarded, unit: "MiB/s", note: `the streaming server dials inside the pod's network namespace; ${(r * 100).toFixed(0)} % of its baseline; informative` },
        cpuRow(net, "pod-network pod"),
      );
    } else {
      rows.push({ what: "port-forward into a pod network namespace", value: 0, unit: "MiB/s", note: "skipped: the process runtime gives pods the host's network here (not root, or no CNI plugins)" });
    }
    const execs: number[] = [];
    for (let i = 0; i < kubectlExecs; i++) {
      const t0 = nowMs();
      const r = await runKubectl(cluster.kubeconfig, ["exec", "web", "--", "true"], undefined, 60_000);
      if (r.code !== 0) throw new Error(`kubectl exec: ${r.stderr}`);
      execs.push(nowMs() - t0);
    }
    rows.push({ what: `kubectl exec web -- true, p50 of ${String(kubectlExecs)}`, value: percentile(execs, 50), unit: "ms", note: "informative: a kubectl process per call (start, kubeconfig, SPDY through the apiserver); the target is on the /run row" });
    return rows;
  } finally {
    await cluster.stop();
    removePodCgroups(uids);
  }
}

/**
 * Removes the bench's temporary directory; never throws. A CRI server killed before it tore its pod
 * networks down leaves their network namespaces mounted under it (EBUSY): those are unmounted
 * first, and a failure is only reported, so that it does not hide the error that ended the run.
 */
function removeBenchDir(dir: string): void {
  try {
    const mounts = readFileSync("/proc/self/mounts", "utf8").split("\n").map((l) => l.split(" ")[1] ?? "").filter((m) => m.startsWith(`${dir}/`));
    for (const m of mounts) spawnSync("umount", [m], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  } catch (err) {
    process.stderr.write(`nodeagent bench: could not remove ${dir}: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}

export default async function nodeagentBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), "skiff-bench-na-"));
  if (process.env["SKIFF_BENCH_NODEAGENT_ONLY"] === "forward") {
    try {
      return await portForwardRows(dir);
    } finally {
      removeBenchDir(dir);
    }
  }
  if (process.env["SKIFF_BENCH_NODEAGENT_ONLY"] === "latency") {
    // Only issue 16's pod start latency pairs (cgroups and managers on vs off).
    try {
      const suffix = Math.random().toString(36).slice(2, 8);
      return [...(await podStartLatencyRows(dir, suffix, "the process runtime")), ...(await containerdLatencyRows(dir, suffix))];
    } finally {
      removeBenchDir(dir);
    }
  }
  // SKIFF_BENCH_NODEAGENT_ONLY=stats: only the N pods, /stats/summary and idle CPU (issue 19).
  const statsOnly = process.env["SKIFF_BENCH_NODEAGENT_ONLY"] === "stats";
  const suffix = Math.random().toString(36).slice(2, 8);
  const cri = await startCRI(dir);
  const agents: Agent[] = [];
  const nodeNames: string[] = [];
  try {
    // 1. Start to healthy. The first start generates the serving certificate (two RSA keys) and
    //    warms the file cache; it is reported alone. The others reuse the same --cert-dir, node name
    //    and root dir, as restarts of one node do; the median of those is the figure.
    const times: number[] = [];
    let firstMs = 0;
    let idleRss = 0;
    if (!statsOnly) {
    const nodeName0 = `bench-s-${suffix}`;
    nodeNames.push(nodeName0);
    for (let i = 0; i <= starts; i++) {
      const a = await startAgent(join(dir, "s"), nodeName0, cri.endpoint, []);
      agents.push(a);
      const ms = await untilHealthy(a);
      if (i === 0) firstMs = ms;
      else times.push(ms);
      if (i === 1) {
        await new Promise((r) => setTimeout(r, 3_000));
        idleRss = rssMiB(a.proc.pid ?? 0);
      }
      await stopProcess(a.proc);
    }
    const startMs = median(times);
    rows.push({ what: "first start to healthy (generates the certificate)", value: firstMs, unit: "ms", note: agentLaunch.how });
    rows.push({
      what: `start to healthy (median of ${String(starts)})`,
      value: startMs,
      unit: "ms",
      note: `${agentLaunch.how}; min ${Math.min(...times).toFixed(0)} max ${Math.max(...times).toFixed(0)}; target < 500 ms: ${met(startMs < 500)}`,
    });
    rows.push({ what: "idle RSS (no pods, 3 s after healthy)", value: idleRss, unit: "MiB", note: `${agentLaunch.how}; target < 120 MiB: ${met(idleRss < 120)}` });

    // 2. Pod start latency, cgroups per QoS on beside off (issue 16).
    rows.push(...(await podStartLatencyRows(dir, suffix, "the process runtime")));
    rows.push(...(await containerdLatencyRows(dir, suffix)));
    }

    // 3. Pods started per second: N manifests dropped into the watched directory → all Running.
    const nodeName = `bench-p-${suffix}`;
    nodeNames.push(nodeName);
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    const a = await startAgent(join(dir, "pods"), nodeName, cri.endpoint, [`--pod-manifest-path=${manifests}`, "--file-check-frequency=1s", `--max-pods=${String(podCount + 11)}`]);
    agents.push(a);
    await untilHealthy(a);
    // Warm-up pod: the image is pulled once, so the measurement is pod starts, not the
    // registry limits (--registry-qps=5 turns 100 concurrent first pulls into "pull QPS exceeded" + back-off).
    writeFileSync(join(manifests, "warm.yaml"), podManifest("warm"));
    await untilRunning(a, 1, 120_000);
    const t0 = nowMs();
    for (let i = 0; i < podCount; i++) writeFileSync(join(manifests, `p${String(i)}.yaml`), podManifest(`p${String(i)}`));
    await untilRunning(a, podCount + 1, 300_000);
    const elapsedS = (nowMs() - t0) / 1000;
    const rate = podCount / elapsedS;
    rows.push({
      what: `pods started/s (${String(podCount)} static pods → Running, image present)`,
      value: rate,
      unit: "pods/s",
      note: `${agentLaunch.how}; ${elapsedS.toFixed(2)} s; target ≥ 50/s: ${met(rate >= 50)}`,
    });
    // 4. RSS with the pods running (issue 16), 3 s after the last one runs.
    await new Promise((r) => setTimeout(r, 3_000));
    const podsRss = rssMiB(a.proc.pid ?? 0);
    rows.push({ what: `RSS with ${String(podCount + 1)} pods running`, value: podsRss, unit: "MiB", note: `${agentLaunch.how}; ${(podsRss / 150).toFixed(2)}× the target; target < 150 MiB: ${met(podsRss < 150)}` });
    // 5. Exec round trip (issue 18), /stats/summary and idle CPU (issue 19) on the same agent.
    if (!statsOnly) rows.push(...(await execRows(a, nodeName)));
    rows.push(...(await statsRows(a, podCount + 1)));
    const uids = await podUIDs(a);
    // The pods go before the agent and the runtime stop: a sandbox left behind keeps its network
    // (a veth and the CNI plugins' iptables chains), and every later iptables call slows with them.
    for (const f of readdirSync(manifests)) rmSync(join(manifests, f));
    await untilNoPods(a, 120_000).catch(() => undefined);
    await stopProcess(a.proc);
    await stopProcess(cri.proc);
    removePodCgroups(uids);

    // 6. Port-forward throughput beside direct loopback (issue 18).
    if (forwardMiB > 0 && !statsOnly) rows.push(...(await portForwardRows(dir)));
    return rows;
  } finally {
    await Promise.all(agents.map((x) => stopProcess(x.proc)));
    await stopProcess(cri.proc); // kills every container it started
    for (const n of nodeNames) removePodLogs(n);
    removeBenchDir(dir);
  }
}
