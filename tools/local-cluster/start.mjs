// `pnpm start`: the local cluster, from this workspace. Builds what it runs when needed (package by
// package with progress: build.mjs), then starts, in order, the apiserver (https://127.0.0.1:6443,
// SQLite in <state>/data, anonymous auth off, a token file, RBAC with each component's own 1.23
// identity: apps/skiff/src/cluster/credentials.ts), the job controller (with the node
// lifecycle controller), the scheduler and one node agent: on containerd when it can be set up here
// (root, and containerd, runc, busybox-static and the CNI plugins already installed:
// tools/containerd/setup.sh), otherwise on the process CRI server (tools/cri-process-server), which
// it starts too. The cluster itself is @skiff/cli's (apps/skiff/src/cluster/), which `skiff up`
// runs from the installed packages; this file adds the workspace's build and containerd.
//
// Installs nothing. Writes <state>/kubeconfig (admin) and a clusterconfig per component, logs of
// each component to <state>/logs/<name>.log, the node agent's configuration file to
// <state>/nodeagent/config.yaml (container logs in <state>/pod-logs, so a non-root user can run
// pods), and keeps data across restarts. Ctrl-C stops the children in reverse order (SIGTERM,
// SIGKILL after a timeout) and the containerd it started.
//
// Environment: SKIFF_PORT (6443), SKIFF_STATE_DIR (<repo>/.skiff), SKIFF_RUNTIME (auto | process |
// containerd), SKIFF_PROCESS_ISOLATION (namespaces: bubblewrap, which must be installed | none), SKIFF_NODE_NAME (the hostname), SKIFF_NODEAGENT_PORT (10250; healthz on the port - 2),
// SKIFF_FROM_SOURCE=1 (run the TypeScript sources through tsx; no build), SKIFF_STOP_TIMEOUT_MS (10000).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";
import { buildWorkspace } from "./build.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
// The cluster's code runs from its TypeScript sources (it needs no build of its own).
register();
const { LocalClusterError, resolveProcessIsolation, shownPath, startLocalCluster } = await import("../../apps/skiff/src/index.ts");

const state = process.env.SKIFF_STATE_DIR ? resolve(process.env.SKIFF_STATE_DIR) : join(root, ".skiff");
const port = Number(process.env.SKIFF_PORT ?? 6443);
const fromSource = process.env.SKIFF_FROM_SOURCE === "1";
const runtime = process.env.SKIFF_RUNTIME ?? "auto";
const isolationEnv = process.env.SKIFF_PROCESS_ISOLATION;
const nodeName = (process.env.SKIFF_NODE_NAME ?? hostname()).toLowerCase().replace(/[^a-z0-9.-]/g, "-");
const agentPort = Number(process.env.SKIFF_NODEAGENT_PORT ?? 10250);
const stopTimeoutMs = Number(process.env.SKIFF_STOP_TIMEOUT_MS ?? 10_000);
const noIsolationCommand = "SKIFF_PROCESS_ISOLATION=none pnpm start";

const apps = {
  apiserver: "apps/apiserver",
  "job-controller": "apps/job-controller",
  scheduler: "apps/scheduler",
  nodeagent: "apps/nodeagent",
  "cri-process-server": "tools/cri-process-server",
};

const say = (line) => process.stdout.write(`${line}\n`);
const warn = (line) => process.stderr.write(`skiff: ${line}\n`);

function command(name, args) {
  const dir = apps[name];
  if (fromSource) return [process.execPath, ["--conditions=@skiff/source", "--import", "tsx", join(root, dir, "src/main.ts"), ...args]];
  return [process.execPath, [join(root, dir, "dist/main.js"), ...args]];
}

// --- containerd ----------------------------------------------------------------------------------
let containerdDir;

/** The containerd endpoint when it can be used here, or the reason it cannot. */
function setUpContainerd() {
  if (process.getuid?.() !== 0) return { reason: "not running as root" };
  const onPath = (bin) => spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0;
  const missing = [
    ["containerd", onPath("containerd") && onPath("ctr")],
    ["runc", onPath("runc")],
    ["busybox-static", existsSync("/bin/busybox")],
    ["containernetworking-plugins", existsSync("/usr/lib/cni/bridge")],
  ].filter(([, ok]) => !ok);
  if (missing.length > 0) return { reason: `not installed: ${missing.map(([p]) => p).join(", ")} (pnpm start installs nothing; tools/containerd/setup.sh does)` };
  let dir = join(state, "containerd");
  if (join(dir, "containerd.sock.ttrpc").length > 100) dir = join(tmpdir(), `skiff-ctd-${createHash("sha256").update(state).digest("hex").slice(0, 8)}`);
  const wasRunning = (() => {
    try {
      process.kill(Number(readFileSync(join(dir, "containerd.pid"), "utf8")), 0);
      return true;
    } catch {
      return false;
    }
  })();
  const r = spawnSync("bash", [join(root, "tools/containerd/setup.sh"), "--dir", dir], { encoding: "utf8", timeout: 300_000 });
  writeFileSync(join(state, "logs", "containerd-setup.log"), `${r.stderr ?? ""}${r.stdout ?? ""}`);
  const endpoint = (r.stdout ?? "").trim().split("\n").at(-1) ?? "";
  if (r.status !== 0 || !endpoint.startsWith("unix://")) {
    return { reason: `tools/containerd/setup.sh failed (${shownPath(join(state, "logs", "containerd-setup.log"))})` };
  }
  if (!wasRunning) containerdDir = dir;
  return { endpoint };
}

function stopContainerd() {
  if (containerdDir === undefined) return;
  spawnSync("bash", [join(root, "tools/containerd/stop.sh"), "--dir", containerdDir], { stdio: ["ignore", "ignore", "ignore"], timeout: 120_000 });
  containerdDir = undefined;
  say("  ✓ stopped containerd");
}

// --- run -----------------------------------------------------------------------------------------
const abort = new AbortController();
let cluster;
let exiting = false;

async function exit(code) {
  if (exiting) return;
  exiting = true;
  abort.abort();
  await cluster?.stop();
  stopContainerd();
  process.exit(code);
}

process.on("exit", () => cluster?.kill());
let interrupts = 0;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    interrupts++;
    if (interrupts > 1) {
      cluster?.kill();
      process.exit(130);
    }
    void exit(0);
  });
}

async function main() {
  if (isolationEnv !== undefined && isolationEnv !== "namespaces" && isolationEnv !== "none") {
    throw new LocalClusterError(`SKIFF_PROCESS_ISOLATION must be namespaces or none, not ${JSON.stringify(isolationEnv)}`);
  }
  // Asked for the process runtime: say what is missing before building or starting anything.
  let processIsolation = isolationEnv;
  if (runtime === "process") processIsolation = resolveProcessIsolation(isolationEnv, noIsolationCommand, warn);
  if (!fromSource) await buildWorkspace({ root, roots: Object.values(apps), say });
  cluster = await startLocalCluster({
    state,
    port,
    agentPort,
    nodeName,
    runtime: runtime === "process" || runtime === "containerd" ? runtime : "auto",
    processIsolation,
    stopTimeoutMs,
    command,
    cwd: root,
    setUpContainerd,
    noIsolationCommand,
    nextSteps: (kc) => [
      `  export KUBECONFIG=${kc.startsWith("/") ? kc : `$PWD/${kc}`}`,
      "  kubectl get nodes",
      "  kubectl apply -f examples/indexed-job.yaml",
      "  kubectl wait --for=condition=complete job/indexed --timeout=120s",
      "  kubectl get pods -l job-name=indexed",
      "  kubectl logs job/indexed",
      "",
      `Logs: ${shownPath(join(state, "logs"))}/<component>.log. Ctrl-C stops the cluster; the data stays in ${shownPath(state)}.`,
    ],
    say,
    warn,
    onComponentExit: (message) => {
      warn(message);
      void exit(1);
    },
    tty: process.stdout.isTTY === true,
    signal: abort.signal,
  });
}

main().catch((e) => {
  if (exiting) return;
  warn(e instanceof Error ? e.message : String(e));
  void exit(1);
});
