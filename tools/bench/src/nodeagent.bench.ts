/**
 * nodeagent benchmarks against the real binary (issue 6's targets): start to healthy (spawn →
 * `/healthz` 200, median of several starts, target < 500 ms), idle RSS (target < 120 MiB) and pods
 * started per second on the process CRI server (N static pods dropped into the manifest directory
 * → all Running in the read-only port's `/pods`, target ≥ 50/s).
 *
 * The agent runs from apps/nodeagent/dist/main.js when it has been built, else from source through
 * tsx (slower to start and larger: the TypeScript loader is in the process); each row says which.
 * The process CRI server runs as its own process (its CLI). Containers write their logs under
 * /var/log/pods, as the kubelet's do, so this needs root. Sizes: SKIFF_BENCH_NODEAGENT_PODS (default
 * 100) pods, SKIFF_BENCH_NODEAGENT_STARTS (default 5) starts; SKIFF_BENCH_NODEAGENT_BIN runs another
 * built entry point (e.g. a bundle) instead.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./report.js";

export const name = "nodeagent (real binary, process CRI server)";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const podCount = Number(process.env["SKIFF_BENCH_NODEAGENT_PODS"] ?? "100");
const starts = Number(process.env["SKIFF_BENCH_NODEAGENT_STARTS"] ?? "5");
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
const agentLaunch: Launch = agentBin ? { argv: [agentBin], how: `built ${agentBin}` } : launch("apps/nodeagent/dist/main.js", "apps/nodeagent/src/main.ts");
const criLaunch = launch("tools/cri-process-server/dist/main.js", "tools/cri-process-server/src/main.ts");

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
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
    { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] },
  );
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  return { proc, readOnlyPort, healthzPort, startedAtMs, stderr: () => err };
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

export default async function nodeagentBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), "skiff-bench-na-"));
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
      note: `${agentLaunch.how}; min ${Math.min(...times).toFixed(0)} max ${Math.max(...times).toFixed(0)}; target < 500 ms: ${startMs < 500 ? "met" : "NOT met"}`,
    });
    rows.push({ what: "idle RSS (no pods, 3 s after healthy)", value: idleRss, unit: "MiB", note: `${agentLaunch.how}; target < 120 MiB: ${idleRss < 120 ? "met" : "NOT met"}` });

    // 2. Pods started per second: N manifests dropped into the watched directory → all Running.
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
      note: `${agentLaunch.how}; ${elapsedS.toFixed(2)} s; target ≥ 50/s: ${rate >= 50 ? "met" : "NOT met"}`,
    });
    rows.push({ what: `RSS with ${String(podCount)} pods running`, value: rssMiB(a.proc.pid ?? 0), unit: "MiB", note: agentLaunch.how });
    return rows;
  } finally {
    await Promise.all(agents.map((a) => stopProcess(a.proc)));
    await stopProcess(cri.proc); // kills every container it started
    for (const n of nodeNames) removePodLogs(n);
    rmSync(dir, { recursive: true, force: true });
  }
}
