// What each `skiff` command does. Each returns the process exit code and writes to the given
// streams; none throws for a user error (it prints `skiff: …` and returns 1).
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { UpCommand } from "./args.js";
import { installedComponentScript } from "./components.js";
import { checkDataDir, markDataDir } from "./data-dir.js";
import { LocalClusterError, probeCluster, startLocalCluster, type LocalCluster } from "./cluster/local-cluster.js";
import { busyPorts } from "./ports.js";

/** Output streams of a command. */
export interface Io {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/** The supervisor's record in `<data-dir>/skiff.pid` (JSON). */
interface PidRecord {
  pid: number;
  port: number;
  nodeName: string;
  version: string;
}

const pidFile = (dataDir: string) => join(dataDir, "skiff.pid");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The running supervisor of `dataDir`, or undefined (no pid file, or its process is gone). */
export function runningCluster(dataDir: string): PidRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(pidFile(dataDir), "utf8")) as PidRecord;
    return typeof r.pid === "number" && alive(r.pid) ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The checks `skiff up` makes before touching anything: no cluster running from the data
 * directory, the directory is this version's (or new), the ports are free.
 *
 * @returns the problems, each a sentence; empty when `skiff up` may start.
 */
export async function upPreflight(c: UpCommand, version: string): Promise<string[]> {
  const running = runningCluster(c.dataDir);
  if (running !== undefined) return [`a cluster is already running from ${c.dataDir} (pid ${running.pid}, port ${running.port}); skiff down --data-dir ${c.dataDir} stops it`];
  const problem = checkDataDir(c.dataDir, version);
  if (problem !== undefined) return [problem.message];
  return busyPorts([
    { flag: "--port", port: c.port },
    { flag: "--nodeagent-port", port: c.nodeAgentPort },
    { flag: "--nodeagent-port (its healthz port, minus 2)", port: c.nodeAgentPort - 2 },
  ]);
}

function upArgs(c: UpCommand): string[] {
  return [
    "up",
    `--data-dir=${c.dataDir}`,
    `--port=${c.port}`,
    `--nodeagent-port=${c.nodeAgentPort}`,
    `--node-name=${c.nodeName}`,
    `--runtime=${c.runtime}`,
    ...(c.runtime === "containerd" ? [`--containerd-endpoint=${c.containerdEndpoint}`] : []),
    ...(c.processIsolation !== undefined ? [`--process-isolation=${c.processIsolation}`] : []),
    "--foreground",
  ];
}

/**
 * `skiff up` without `--foreground`: checks, then starts `skiff up --foreground` detached (its
 * output in `<data-dir>/logs/skiff.log`), shows that log until the cluster is up (exit 0) or the
 * supervisor exits (exit 1).
 */
export async function up(c: UpCommand, version: string, mainScript: string, io: Io): Promise<number> {
  const problems = await upPreflight(c, version);
  if (problems.length > 0) {
    for (const p of problems) io.stderr.write(`skiff: ${p}\n`);
    return 1;
  }
  markDataDir(c.dataDir, version);
  mkdirSync(join(c.dataDir, "logs"), { recursive: true });
  const log = join(c.dataDir, "logs", "skiff.log");
  const start = existsSync(log) ? statSync(log).size : 0;
  const fd = openSync(log, "a");
  const child = spawn(process.execPath, [mainScript, ...upArgs(c)], { cwd: process.cwd(), stdio: ["ignore", fd, fd], detached: true });
  closeSync(fd);
  let exited: number | null | undefined;
  child.on("exit", (code) => (exited = code ?? 1));
  let offset = start;
  const follow = (): string => {
    const rfd = openSync(log, "r");
    try {
      const buf = Buffer.alloc(64 * 1024);
      let text = "";
      for (;;) {
        const n = readSync(rfd, buf, 0, buf.length, offset);
        if (n <= 0) break;
        offset += n;
        text += buf.subarray(0, n).toString("utf8");
      }
      return text;
    } finally {
      closeSync(rfd);
    }
  };
  let seen = "";
  for (;;) {
    const text = follow();
    if (text !== "") {
      io.stdout.write(text);
      seen += text;
    }
    if (seen.includes("the cluster is up")) {
      child.unref();
      io.stdout.write(`\nThe cluster runs in the background (log: ${log}); skiff down --data-dir ${c.dataDir} stops it.\n`);
      return 0;
    }
    if (exited !== undefined) {
      const rest = follow();
      io.stdout.write(rest === "" || rest.endsWith("\n") ? rest : `${rest}\n`);
      io.stderr.write(`skiff: the cluster did not start (exit code ${exited}); its log: ${log}\n`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `skiff up --foreground`: checks, marks the data directory with this version, records its pid,
 * starts the cluster from the installed packages and runs until SIGINT/SIGTERM, then stops it.
 */
export async function upForeground(c: UpCommand, version: string, io: Io): Promise<number> {
  const problems = await upPreflight(c, version);
  if (problems.length > 0) {
    for (const p of problems) io.stderr.write(`skiff: ${p}\n`);
    return 1;
  }
  markDataDir(c.dataDir, version);
  writeFileSync(pidFile(c.dataDir), `${JSON.stringify({ pid: process.pid, port: c.port, nodeName: c.nodeName, version } satisfies PidRecord)}\n`);
  let cluster: LocalCluster | undefined;
  let signalled = false;
  const abort = new AbortController();
  let failed: ((message: string) => void) | undefined;
  const done = new Promise<number>((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      process.on(sig, () => {
        signalled = true;
        abort.abort();
        resolve(0);
      });
    }
    failed = (message: string) => {
      io.stderr.write(`skiff: ${message}\n`);
      resolve(1);
    };
  });
  process.on("exit", () => cluster?.kill());
  try {
    const started = startLocalCluster({
      state: c.dataDir,
      port: c.port,
      agentPort: c.nodeAgentPort,
      nodeName: c.nodeName,
      runtime: c.runtime,
      processIsolation: c.processIsolation,
      stopTimeoutMs: 10_000,
      command: (name, args) => [process.execPath, [installedComponentScript(name), ...args]],
      cwd: c.dataDir,
      setUpContainerd: () => {
        const path = c.containerdEndpoint.slice("unix://".length);
        return existsSync(path) ? { endpoint: c.containerdEndpoint } : { reason: `no containerd socket at ${path} (--containerd-endpoint)` };
      },
      noIsolationCommand: `skiff up --process-isolation=none --data-dir ${c.dataDir}`,
      nextSteps: (kubeconfig) => [
        `  skiff kubeconfig --data-dir ${c.dataDir} --output ~/.kube/skiff && export KUBECONFIG=~/.kube/skiff   (or KUBECONFIG=${kubeconfig})`,
        "  kubectl get nodes",
      ],
      say: (line) => io.stdout.write(`${line}\n`),
      warn: (line) => io.stderr.write(`skiff: ${line}\n`),
      onComponentExit: (message) => failed?.(message),
      tty: false,
      signal: abort.signal,
    });
    cluster = await started.catch((e: unknown) => {
      if (signalled) return undefined; // stopped while starting: what had started is stopped
      throw e;
    });
    const code = signalled ? 0 : await done;
    await cluster?.stop();
    return code;
  } catch (e) {
    io.stderr.write(`skiff: ${e instanceof LocalClusterError || e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    rmSync(pidFile(c.dataDir), { force: true });
  }
}

/** `skiff down`: SIGTERM to the supervisor, which stops the components; waits up to 2 minutes. */
export async function down(dataDir: string, io: Io): Promise<number> {
  const r = runningCluster(dataDir);
  if (r === undefined) {
    io.stdout.write(`skiff: no cluster is running from ${dataDir}\n`);
    return 0;
  }
  process.kill(r.pid, "SIGTERM");
  const deadline = Date.now() + 120_000;
  while (alive(r.pid)) {
    if (Date.now() > deadline) {
      io.stderr.write(`skiff: the cluster (pid ${r.pid}) did not stop within 2 minutes; see ${join(dataDir, "logs", "skiff.log")}\n`);
      return 1;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  io.stdout.write(`skiff: stopped the cluster of ${dataDir} (the data stays)\n`);
  return 0;
}

function adminToken(dataDir: string): string | undefined {
  const lines = readFileSync(join(dataDir, "tokens.csv"), "utf8").split("\n");
  return lines.map((l) => l.split(",")).find((f) => f[1] === "admin")?.[0];
}

/** `skiff status`: 0 when the cluster of `dataDir` runs (with what answers), 1 when it does not. */
export async function status(dataDir: string, io: Io): Promise<number> {
  const r = runningCluster(dataDir);
  if (r === undefined) {
    io.stdout.write(`skiff: not running (data directory ${dataDir})\n`);
    return 1;
  }
  let probe = { apiserverReady: false, readyNodes: [] as string[] };
  try {
    const token = adminToken(dataDir);
    if (token !== undefined) probe = await probeCluster({ port: r.port, token, caFile: join(dataDir, "pki", "ca.crt") });
  } catch {
    // not up yet
  }
  io.stdout.write(
    [
      `skiff: running from ${dataDir} (pid ${r.pid}, Skiff ${r.version})`,
      `  apiserver https://127.0.0.1:${r.port}: ${probe.apiserverReady ? "ready" : "not ready"}`,
      `  node ${r.nodeName}: ${probe.readyNodes.includes(r.nodeName) ? "Ready" : "not Ready"}`,
      `  kubeconfig: ${join(dataDir, "kubeconfig")}`,
      "",
    ].join("\n"),
  );
  return 0;
}

/** `skiff kubeconfig`: prints the admin kubeconfig, or writes it to `output` (mode 0600). */
export function kubeconfig(dataDir: string, output: string | undefined, io: Io): number {
  const file = join(dataDir, "kubeconfig");
  if (!existsSync(file)) {
    io.stderr.write(`skiff: ${dataDir} has no kubeconfig yet: skiff up --data-dir ${dataDir} writes it\n`);
    return 1;
  }
  const text = readFileSync(file, "utf8");
  if (output === undefined) {
    io.stdout.write(text);
    return 0;
  }
  try {
    writeFileSync(output, text, { mode: 0o600 });
  } catch (e) {
    io.stderr.write(`skiff: cannot write ${output}: ${(e as Error).message}\n`);
    return 1;
  }
  io.stdout.write(`skiff: wrote ${output}\n`);
  return 0;
}
