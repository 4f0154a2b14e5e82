// `pnpm start`: the local cluster. Starts, in order, the apiserver (https://127.0.0.1:6443, SQLite in
// <state>/data, anonymous auth off, a token file), the job controller (with the node lifecycle
// controller), the scheduler and one node agent: on containerd when it can be set up here (root, and
// containerd, runc, busybox-static and the CNI plugins already installed: tools/containerd/setup.sh),
// otherwise on the process CRI server (tools/cri-process-server), which it starts too.
//
// Installs nothing. Builds the workspace (`pnpm build`) when an app's build output is missing or
// older than the sources. Writes <state>/kubeconfig (admin) and a clusterconfig per component, logs
// of each component to <state>/logs/<name>.log, the node agent's configuration file to
// <state>/nodeagent/config.yaml (container logs in <state>/pod-logs, so a non-root user can run
// pods: nodeagent-config.mjs), and keeps data across restarts. Ctrl-C stops the
// children in reverse order (SIGTERM, SIGKILL after a timeout) and the containerd it started.
//
// Environment: SKIFF_PORT (6443), SKIFF_STATE_DIR (<repo>/.skiff), SKIFF_RUNTIME (auto | process |
// containerd), SKIFF_PROCESS_ISOLATION (namespaces: bubblewrap, which must be installed | none), SKIFF_NODE_NAME (the hostname), SKIFF_NODEAGENT_PORT (10250; healthz on the port - 2),
// SKIFF_FROM_SOURCE=1 (run the TypeScript sources through tsx; no build), SKIFF_STOP_TIMEOUT_MS (10000).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, statSync, writeFileSync, writeSync } from "node:fs";
import { request } from "node:https";
import { hostname, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { nodeAgentArgs, writeNodeAgentConfig } from "./nodeagent-config.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const state = process.env.SKIFF_STATE_DIR ? resolve(process.env.SKIFF_STATE_DIR) : join(root, ".skiff");
const port = Number(process.env.SKIFF_PORT ?? 6443);
const fromSource = process.env.SKIFF_FROM_SOURCE === "1";
const runtimeChoice = process.env.SKIFF_RUNTIME ?? "auto";
// Unset: namespaces when bubblewrap is installed, else plain processes with a warning saying what to
// install (so that the README's first command still starts a working cluster); set: exactly that.
let processIsolation = process.env.SKIFF_PROCESS_ISOLATION ?? "namespaces";
const nodeName = (process.env.SKIFF_NODE_NAME ?? hostname()).toLowerCase().replace(/[^a-z0-9.-]/g, "-");
const agentPort = Number(process.env.SKIFF_NODEAGENT_PORT ?? 10250);
const stopTimeoutMs = Number(process.env.SKIFF_STOP_TIMEOUT_MS ?? 10_000);
const shown = (p) => (relative(process.cwd(), p).startsWith("..") ? p : relative(process.cwd(), p) || ".");
const tty = process.stdout.isTTY === true;

const apps = {
  apiserver: "apps/apiserver",
  "job-controller": "apps/job-controller",
  scheduler: "apps/scheduler",
  nodeagent: "apps/nodeagent",
  "cri-process-server": "tools/cri-process-server",
};

/** @type {Array<{ name: string, child: import("node:child_process").ChildProcess, log: string }>} */
const children = [];
let containerdDir;
let stopping = false;

function say(line) {
  process.stdout.write(`${line}\n`);
}

function fail(message) {
  process.stderr.write(`skiff: ${message}\n`);
  void stopAll(1);
}

/** Throws what to install when the process CRI server cannot isolate containers here. */
function checkProcessIsolation() {
  if (processIsolation !== "namespaces" && processIsolation !== "none") throw new Error(`SKIFF_PROCESS_ISOLATION must be namespaces or none, not ${JSON.stringify(processIsolation)}`);
  if (processIsolation === "namespaces" && findOnPath("bwrap") === undefined) {
    const explain = [
      "bubblewrap (bwrap) is not installed: the process CRI server runs each container in its own mount, UTS and PID namespaces with it,",
      "so that volumes, /etc/hosts, /etc/resolv.conf and the pod's host name are where the pod spec says. Install it:",
      "  sudo apt-get install -y bubblewrap        (Debian/Ubuntu; or run tools/scripts/install-system-deps.sh)",
      "  sudo dnf install -y bubblewrap            (Fedora)",
    ];
    if (process.env.SKIFF_PROCESS_ISOLATION === "namespaces") {
      throw new Error([...explain, "or start without isolation (containers then see the host's filesystem; volumes are not applied):", "  SKIFF_PROCESS_ISOLATION=none pnpm start"].join("\n"));
    }
    process.stderr.write(`skiff: ${[...explain, "Starting without isolation for now: containers run as plain processes and see the host's filesystem; volumes are not applied."].join("\n")}\n`);
    processIsolation = "none";
  }
}

function findOnPath(name) {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

// --- build -------------------------------------------------------------------------------------
function newestMtimeMs(dir) {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtimeMs(p));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function buildIfNeeded() {
  if (fromSource) return;
  const mains = Object.values(apps).map((dir) => join(root, dir, "dist/main.js"));
  const missing = mains.filter((m) => !existsSync(m));
  let reason = missing.length > 0 ? `missing ${missing.map((m) => relative(root, m)).join(", ")}` : undefined;
  if (reason === undefined) {
    const built = Math.min(...mains.map((m) => statSync(m).mtimeMs));
    const sources = [...readdirSync(join(root, "packages")).map((d) => join(root, "packages", d, "src")), ...Object.values(apps).map((d) => join(root, d, "src"))];
    const stale = sources.find((src) => newestMtimeMs(src) > built);
    if (stale !== undefined) reason = `${relative(root, stale)} changed since the last build`;
  }
  if (reason === undefined) return;
  say(`skiff: building the workspace (${reason})...`);
  const started = Date.now();
  const pnpm = process.env.npm_execpath;
  if (pnpm && /pnpm/.test(pnpm)) execFileSync(process.execPath, [pnpm, "-s", "build"], { cwd: root, stdio: "inherit" });
  else execFileSync("pnpm", ["-s", "build"], { cwd: root, stdio: "inherit" });
  say(`  ✓ build ${seconds(started)}`);
}

// --- credentials -------------------------------------------------------------------------------
const users = {
  admin: { user: "admin", groups: "system:masters" },
  "job-controller": { user: "system:skiff-job-controller", groups: "system:authenticated" },
  scheduler: { user: "system:skiff-scheduler", groups: "system:authenticated" },
  nodeagent: { user: `system:node:${nodeName}`, groups: "system:nodes" },
};

/** Token per user name; appends lines for users the token file lacks (a file from an older start keeps its admin token). */
function ensureTokens(tokenFile) {
  const lines = existsSync(tokenFile) ? readFileSync(tokenFile, "utf8").split("\n").filter((l) => l.trim() !== "") : [];
  const byUser = new Map();
  for (const line of lines) {
    const [token, user] = line.split(",");
    if (token && user) byUser.set(user, token);
  }
  const out = {};
  for (const [name, u] of Object.entries(users)) {
    let token = byUser.get(u.user);
    if (token === undefined) {
      token = randomBytes(24).toString("hex");
      lines.push(`${token},${u.user},${u.user},"${u.groups}"`);
      byUser.set(u.user, token);
    }
    out[name] = token;
  }
  writeFileSync(tokenFile, lines.join("\n") + "\n", { mode: 0o600 });
  return out;
}

function writeConfig(file, user, token, caFile) {
  const ca = readFileSync(caFile).toString("base64");
  const text = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: skiff\n  cluster:\n    server: https://127.0.0.1:${port}\n    certificate-authority-data: ${ca}`,
    "users:",
    `- name: ${user}\n  user:\n    token: ${token}`,
    "contexts:",
    `- name: skiff\n  context:\n    cluster: skiff\n    user: ${user}\n    namespace: default`,
    "current-context: skiff",
    "",
  ].join("\n");
  writeFileSync(file, text, { mode: 0o600 });
}

// --- processes ---------------------------------------------------------------------------------
function seconds(startedMs) {
  return `(${((Date.now() - startedMs) / 1000).toFixed(1)} s)`;
}

function command(name, args) {
  const dir = apps[name];
  if (fromSource) return [process.execPath, ["--conditions=@skiff/source", "--import", "tsx", join(root, dir, "src/main.ts"), ...args]];
  return [process.execPath, [join(root, dir, "dist/main.js"), ...args]];
}

function startChild(name, args) {
  const log = join(state, "logs", `${name}.log`);
  const fd = openSync(log, "a");
  writeSync(fd, `--- ${new Date().toISOString()} skiff start: ${name}\n`);
  const [file, argv] = command(name, args);
  // Its own process group: Ctrl-C in the terminal reaches only the launcher, which stops the
  // children in reverse order (a launcher killed with SIGKILL leaves them running).
  const child = spawn(file, argv, { cwd: root, stdio: ["ignore", fd, fd], detached: true });
  closeSync(fd);
  const entry = { name, child, log };
  children.push(entry);
  child.on("exit", (code, signal) => {
    entry.exited = true;
    if (!stopping) fail(`${name} exited (${signal ?? `code ${code}`}); its log: ${shown(log)}\n${tail(log, 20)}`);
  });
  return entry;
}

function tail(file, lines) {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).map((l) => `    ${l}`).join("\n");
  } catch {
    return "";
  }
}

async function waitUntil(what, entry, check, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stopping) throw new Error("stopping");
    if (entry?.exited) throw new Error(`${what} exited`);
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${timeoutMs / 1000} s; see ${entry ? shown(entry.log) : "its log"}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function step(label, run) {
  const started = Date.now();
  if (tty) process.stdout.write(`  … ${label}`);
  try {
    const detail = await run();
    const line = `  ✓ ${label}${detail ? ` ${detail}` : ""} ${seconds(started)}`;
    if (tty) process.stdout.write(`\r\x1b[K${line}\n`);
    else say(line);
  } catch (e) {
    if (tty) process.stdout.write(`\r\x1b[K  ✗ ${label}\n`);
    else say(`  ✗ ${label}`);
    throw e;
  }
}

function logContains(entry, text) {
  return readFileSync(entry.log, "utf8").includes(text);
}

function apiGet(path, token, caFile) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: "GET", ca: readFileSync(caFile), headers: { authorization: `Bearer ${token}` }, timeout: 5000 },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end();
  });
}

// --- containerd ----------------------------------------------------------------------------------
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
    return { reason: `tools/containerd/setup.sh failed (${shown(join(state, "logs", "containerd-setup.log"))})` };
  }
  if (!wasRunning) containerdDir = dir;
  return { endpoint, dir };
}

// --- stop ----------------------------------------------------------------------------------------
function stopChild(entry) {
  return new Promise((resolve) => {
    if (entry.exited || entry.child.exitCode !== null) return resolve();
    const timer = setTimeout(() => entry.child.kill("SIGKILL"), stopTimeoutMs);
    entry.child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    entry.child.kill("SIGTERM");
  });
}

async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  if (children.some((c) => !c.exited)) say("skiff: stopping...");
  for (const entry of [...children].reverse()) {
    if (entry.exited || entry.child.exitCode !== null) continue;
    await stopChild(entry);
    say(`  ✓ stopped ${entry.name}`);
  }
  if (containerdDir !== undefined) {
    spawnSync("bash", [join(root, "tools/containerd/stop.sh"), "--dir", containerdDir], { stdio: ["ignore", "ignore", "ignore"], timeout: 120_000 });
    say("  ✓ stopped containerd");
  }
  process.exit(code);
}

process.on("exit", () => {
  for (const c of children) if (!c.exited) c.child.kill("SIGKILL");
});

let interrupts = 0;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    interrupts++;
    if (interrupts > 1) {
      for (const c of children) c.child.kill("SIGKILL");
      process.exit(130);
    }
    void stopAll(0);
  });
}

// --- main ----------------------------------------------------------------------------------------
async function main() {
  // Asked for the process runtime: say what is missing before starting anything.
  if (runtimeChoice === "process") checkProcessIsolation();
  buildIfNeeded();
  for (const d of ["logs", "data", "pki", "nodeagent", "cri"]) mkdirSync(join(state, d), { recursive: true });
  const tokenFile = join(state, "tokens.csv");
  const tokens = ensureTokens(tokenFile);
  const caFile = join(state, "pki/ca.crt");
  say(`skiff: starting a local cluster (state in ${shown(state)}, logs in ${shown(join(state, "logs"))})`);

  const apiserver = startChild("apiserver", [
    "--bind-address=127.0.0.1",
    `--secure-port=${port}`,
    `--data-dir=${join(state, "data")}`,
    `--cert-dir=${join(state, "pki")}`,
    `--token-auth-file=${tokenFile}`,
    "--anonymous-auth=false",
  ]);
  await step("apiserver", async () => {
    await waitUntil("the apiserver", apiserver, async () => existsSync(caFile) && (await apiGet("/readyz", tokens.admin, caFile)).status === 200);
    return `https://127.0.0.1:${port}`;
  });
  const kubeconfig = join(state, "kubeconfig");
  writeConfig(kubeconfig, "admin", tokens.admin, caFile);
  const configs = {};
  for (const name of ["job-controller", "scheduler", "nodeagent"]) {
    configs[name] = join(state, `${name}.clusterconfig`);
    writeConfig(configs[name], users[name].user, tokens[name], caFile);
  }

  const jc = startChild("job-controller", [`--clusterconfig=${configs["job-controller"]}`]);
  await step("job controller (Job, TTL-after-finished, node lifecycle)", () => waitUntil("the job controller", jc, () => logContains(jc, "skiff-job-controller started")));
  const sched = startChild("scheduler", [`--clusterconfig=${configs.scheduler}`]);
  await step("scheduler", () => waitUntil("the scheduler", sched, () => logContains(sched, "scheduler started")));

  let endpoint;
  let runtimeName;
  if (runtimeChoice === "auto" || runtimeChoice === "containerd") {
    let ctd;
    await step("containerd", async () => {
      ctd = setUpContainerd();
      if (ctd.endpoint === undefined) return `not used: ${ctd.reason}`;
      return ctd.endpoint;
    }).catch(() => {});
    if (ctd?.endpoint !== undefined) {
      endpoint = ctd.endpoint;
      runtimeName = "containerd";
    } else if (runtimeChoice === "containerd") {
      throw new Error(`containerd asked for (SKIFF_RUNTIME=containerd) but ${ctd?.reason ?? "setup failed"}`);
    }
  }
  if (endpoint === undefined) {
    const sock = join(state, "cri", "cri.sock");
    checkProcessIsolation();
    const cri = startChild("cri-process-server", ["--listen", sock, "--state-dir", join(state, "cri", "state"), "--isolation", processIsolation]);
    const label = processIsolation === "namespaces" ? "process CRI server (containers in their own namespaces via bubblewrap)" : "process CRI server (containers run as plain processes)";
    // A bwrap that cannot create namespaces here makes the server exit with what to install; its
    // log tail is printed then.
    await step(label, () => waitUntil("the process CRI server", cri, () => existsSync(sock)));
    endpoint = `unix://${sock}`;
    runtimeName = "the process CRI server";
  }

  // The configuration file sets podLogsDir under the state directory (see nodeagent-config.mjs).
  const configFile = writeNodeAgentConfig(state);
  const agent = startChild("nodeagent", nodeAgentArgs({ state, configFile, clusterconfig: configs.nodeagent, endpoint, nodeName, agentPort }));
  await step(`node agent (node ${nodeName} on ${runtimeName})`, () =>
    waitUntil("the node agent", agent, async () => {
      const r = await apiGet(`/api/v1/nodes/${nodeName}`, tokens.admin, caFile);
      if (r.status !== 200) return false;
      const node = JSON.parse(r.body);
      return (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
    }),
  );

  const kc = shown(kubeconfig);
  say(
    [
      "",
      `skiff: the cluster is up: apiserver, job controller, scheduler and node ${nodeName} on ${runtimeName}. Next:`,
      `  export KUBECONFIG=${kc.startsWith("/") ? kc : `$PWD/${kc}`}`,
      "  kubectl get nodes",
      "  kubectl apply -f examples/indexed-job.yaml",
      "  kubectl wait --for=condition=complete job/indexed --timeout=120s",
      "  kubectl get pods -l job-name=indexed",
      "  kubectl logs job/indexed",
      "",
      `Logs: ${shown(join(state, "logs"))}/<component>.log. Ctrl-C stops the cluster; the data stays in ${shown(state)}.`,
    ].join("\n"),
  );
}

main().catch((e) => {
  if (stopping) return;
  fail(e instanceof Error ? e.message : String(e));
});
