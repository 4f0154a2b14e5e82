// A local cluster: the apiserver (https://127.0.0.1:<port> for its clients; it listens on every
// address, 0.0.0.0 as kube-apiserver's default, so that pods in their own network namespace reach
// it at the machine's address the node agent gives them as KUBERNETES_SERVICE_HOST; SQLite in
// <state>/data, anonymous auth off, a token file, RBAC: each component with its own 1.23 identity, see credentials.ts), the job controller (with the TTL-after-finished and node lifecycle
// controllers), the scheduler and one node agent, on containerd or on the process CRI server
// (started too). Shared by `pnpm start` (tools/local-cluster/start.mjs, from the workspace) and
// `skiff up` (from the installed packages): the caller says how to run each component and how to
// get a containerd.
//
// Writes <state>/kubeconfig (admin) and a clusterconfig per component, logs each component to
// <state>/logs/<name>.log, the node agent's configuration file to <state>/nodeagent/config.yaml
// (container logs in <state>/pod-logs) and keeps data across restarts. stop() stops the children
// in reverse order (SIGTERM, SIGKILL after a timeout).
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { request } from "node:https";
import { join, relative } from "node:path";
import { clusterUsers, ensureTokens, kubeconfigText } from "./credentials.js";
import { nodeAgentArgs, writeNodeAgentConfig } from "./nodeagent-config.js";

/** The processes of a local cluster. */
export type ComponentName = "apiserver" | "job-controller" | "scheduler" | "nodeagent" | "cri-process-server";

/** How the process CRI server isolates containers: bubblewrap namespaces, or plain processes. */
export type ProcessIsolation = "namespaces" | "none";

/** What a containerd setup gives: an endpoint (`unix://…`), or the reason there is none. */
export type ContainerdSetup = { endpoint: string; reason?: undefined } | { endpoint?: undefined; reason: string };

/** The options of {@link startLocalCluster}. */
export interface LocalClusterOptions {
  /** The state (data) directory, absolute. */
  state: string;
  /** The apiserver's secure port on 127.0.0.1. */
  port: number;
  /** The node agent's port (healthz on `agentPort - 2`). */
  agentPort: number;
  /** The node's name (lower-case DNS subdomain). */
  nodeName: string;
  /** `auto`: containerd when {@link setUpContainerd} gives one, else the process CRI server. */
  runtime: "auto" | "process" | "containerd";
  /** The process CRI server's isolation; `undefined`: namespaces when bubblewrap is installed, else none with a warning. */
  processIsolation: ProcessIsolation | undefined;
  /** Milliseconds between SIGTERM and SIGKILL when stopping a component. */
  stopTimeoutMs: number;
  /** The command line that runs component `name` with `args`: `[file, argv]`. */
  command(name: ComponentName, args: string[]): [string, string[]];
  /** The working directory of the components. */
  cwd: string;
  /** Gets a containerd (runtime `auto` or `containerd`); the caller stops what it started. */
  setUpContainerd(): ContainerdSetup;
  /** How the user starts the same cluster without isolation (shown when bubblewrap is missing), e.g. `SKIFF_PROCESS_ISOLATION=none pnpm start`. */
  noIsolationCommand: string;
  /** The lines printed after "the cluster is up", given the kubeconfig's path as shown. */
  nextSteps(kubeconfig: string): string[];
  /** Progress lines (stdout). */
  say(line: string): void;
  /** Warnings (stderr). */
  warn(line: string): void;
  /** Called when a component exits after the cluster is up and not stopping: message with the log tail. */
  onComponentExit(message: string): void;
  /** Whether stdout is a terminal (steps then show an in-progress line). */
  tty: boolean;
  /** Aborting it while starting stops what has started and rejects with a {@link LocalClusterError} "stopping". */
  signal?: AbortSignal;
}

/** A running local cluster. */
export interface LocalCluster {
  /** The admin kubeconfig's path. */
  kubeconfig: string;
  /** Stops the components in reverse order of start; resolves when all have exited. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILLs every component still running (for process exit). */
  kill(): void;
}

/** A local cluster could not start (the message says why and where the log is). */
export class LocalClusterError extends Error {
  readonly reason = "LocalClusterStartFailed";
  override name = "LocalClusterError";
}

interface Child {
  name: ComponentName;
  child: ChildProcess;
  log: string;
  /** The log's size before this start (the log is appended to across starts). */
  logStart: number;
  exited: boolean;
}

/** `p` relative to the working directory when it is inside it, else absolute. */
export function shownPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r.startsWith("..") ? p : r || ".";
}

/** The first directory of `PATH` holding `name`, or undefined. */
export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * The process CRI server's isolation for `asked` (`undefined`: as available): namespaces needs
 * bubblewrap (`bwrap` on PATH). Without it, asked for namespaces: throws saying what to install
 * and `noIsolationCommand`; not asked: warns the same and returns `none`.
 *
 * @throws LocalClusterError when namespaces are asked for and bubblewrap is missing.
 */
export function resolveProcessIsolation(asked: ProcessIsolation | undefined, noIsolationCommand: string, warn: (line: string) => void): ProcessIsolation {
  if (asked === "none") return "none";
  if (findOnPath("bwrap") !== undefined) return "namespaces";
  const explain = [
    "bubblewrap (bwrap) is not installed: the process CRI server runs each container in its own mount, UTS and PID namespaces with it,",
    "so that volumes, /etc/hosts, /etc/resolv.conf and the pod's host name are where the pod spec says. Install it:",
    "  sudo apt-get install -y bubblewrap        (Debian/Ubuntu; or run tools/scripts/install-system-deps.sh)",
    "  sudo dnf install -y bubblewrap            (Fedora)",
  ];
  if (asked === "namespaces") {
    throw new LocalClusterError([...explain, "or start without isolation (containers then see the host's filesystem; volumes are not applied):", `  ${noIsolationCommand}`].join("\n"));
  }
  warn([...explain, "Starting without isolation for now: containers run as plain processes and see the host's filesystem; volumes are not applied."].join("\n"));
  return "none";
}

function seconds(startedMs: number): string {
  return `(${((Date.now() - startedMs) / 1000).toFixed(1)} s)`;
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).map((l) => `    ${l}`).join("\n");
  } catch {
    return "";
  }
}

function apiGet(port: number, path: string, token: string, caFile: string, post?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = post === undefined ? undefined : JSON.stringify(post);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(data !== undefined ? { "content-type": "application/json" } : {}) };
    const req = request(
      { host: "127.0.0.1", port, path, method: data === undefined ? "GET" : "POST", ca: readFileSync(caFile), headers, timeout: 5000 },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end(data);
  });
}

/** The ClusterRoleBinding that grants the node agents (group `system:nodes`) ClusterRole `system:node`. */
const nodesBindingName = "skiff:nodes";

/**
 * Makes sure ClusterRoleBinding {@link nodesBindingName} exists (created as the admin; an existing
 * one is left as it is). Kubernetes 1.23 authorizes kubelets with the Node authorizer and keeps the
 * `system:node` binding empty; skiff-apiserver has no Node authorizer, so the local cluster grants
 * the `system:node` role to group `system:nodes` instead (as clusters without the Node authorizer
 * did before 1.8).
 * @throws LocalClusterError when the apiserver refuses the binding.
 */
async function ensureNodesBinding(o: { port: number; token: string; caFile: string }): Promise<void> {
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: nodesBindingName, labels: { "app.kubernetes.io/managed-by": "skiff" } },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:node" },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:nodes" }],
  };
  const r = await apiGet(o.port, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", o.token, o.caFile, binding);
  if (r.status !== 201 && r.status !== 409) throw new LocalClusterError(`creating ClusterRoleBinding ${nodesBindingName}: HTTP ${String(r.status)} ${r.body.slice(0, 300)}`);
}

/**
 * Whether the apiserver on 127.0.0.1:`port` answers `/readyz` with 200 (HTTPS, trusting the CA in
 * `caFile`, bearer `token`), and the names of the nodes whose Ready condition is True. Never
 * throws: an unreachable apiserver is `{apiserverReady: false, readyNodes: []}`.
 */
export async function probeCluster(o: { port: number; token: string; caFile: string }): Promise<{ apiserverReady: boolean; readyNodes: string[] }> {
  let apiserverReady = false;
  const readyNodes: string[] = [];
  try {
    apiserverReady = (await apiGet(o.port, "/readyz", o.token, o.caFile)).status === 200;
    const r = await apiGet(o.port, "/api/v1/nodes", o.token, o.caFile);
    if (r.status === 200) {
      const list = JSON.parse(r.body) as { items?: Array<{ metadata?: { name?: string }; status?: { conditions?: Array<{ type: string; status: string }> } }> };
      for (const n of list.items ?? []) {
        if ((n.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")) readyNodes.push(n.metadata?.name ?? "");
      }
    }
  } catch {
    // not reachable
  }
  return { apiserverReady, readyNodes };
}

/**
 * Starts a local cluster, component by component, printing a line per component (`✓ apiserver
 * https://127.0.0.1:6443 (1.2 s)`); resolves when the node is Ready.
 *
 * @throws LocalClusterError when a component exits or is not ready within 120 s (the components
 * started so far are stopped first), or when the process runtime cannot isolate as asked.
 */
export async function startLocalCluster(o: LocalClusterOptions): Promise<LocalCluster> {
  const children: Child[] = [];
  let stopping = false;
  let up = false;
  let failure: string | undefined;
  const { state, port } = o;
  const logDir = join(state, "logs");

  const stopChild = (entry: Child) =>
    new Promise<void>((resolve) => {
      if (entry.exited || entry.child.exitCode !== null) return resolve();
      const timer = setTimeout(() => entry.child.kill("SIGKILL"), o.stopTimeoutMs);
      entry.child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      entry.child.kill("SIGTERM");
    });
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopping = true;
    stopped ??= (async () => {
      if (children.some((c) => !c.exited)) o.say("skiff: stopping...");
      for (const entry of [...children].reverse()) {
        if (entry.exited || entry.child.exitCode !== null) continue;
        await stopChild(entry);
        o.say(`  ✓ stopped ${entry.name}`);
      }
    })();
    return stopped;
  };
  const kill = () => {
    for (const c of children) if (!c.exited) c.child.kill("SIGKILL");
  };

  const startChild = (name: ComponentName, args: string[]): Child => {
    const log = join(logDir, `${name}.log`);
    const fd = openSync(log, "a");
    const logStart = fstatSync(fd).size;
    writeSync(fd, `--- ${new Date().toISOString()} skiff start: ${name}\n`);
    const [file, argv] = o.command(name, args);
    // Its own process group: Ctrl-C in the terminal reaches only the launcher, which stops the
    // children in reverse order (a launcher killed with SIGKILL leaves them running).
    const child = spawn(file, argv, { cwd: o.cwd, stdio: ["ignore", fd, fd], detached: true });
    closeSync(fd);
    const entry: Child = { name, child, log, logStart, exited: false };
    children.push(entry);
    child.on("exit", (code, signal) => {
      entry.exited = true;
      if (stopping) return;
      const message = `${name} exited (${signal ?? `code ${String(code)}`}); its log: ${shownPath(log)}\n${tail(log, 20)}`;
      if (up) o.onComponentExit(message);
      else failure ??= message;
    });
    return entry;
  };

  const waitUntil = async (what: string, entry: Child, check: () => boolean | Promise<boolean>, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (failure !== undefined) throw new LocalClusterError(failure);
      if (stopping || o.signal?.aborted === true) throw new LocalClusterError("stopping");
      try {
        if (await check()) return;
      } catch {
        // not yet
      }
      if (Date.now() > deadline) throw new LocalClusterError(`${what} was not ready within ${timeoutMs / 1000} s; see ${shownPath(entry.log)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const step = async (label: string, run: () => Promise<string | undefined | void>) => {
    const started = Date.now();
    if (o.tty) process.stdout.write(`  … ${label}`);
    try {
      const detail = await run();
      const line = `  ✓ ${label}${detail ? ` ${detail}` : ""} ${seconds(started)}`;
      if (o.tty) process.stdout.write(`\r\x1b[K${line}\n`);
      else o.say(line);
    } catch (e) {
      if (o.tty) process.stdout.write(`\r\x1b[K  ✗ ${label}\n`);
      else o.say(`  ✗ ${label}`);
      throw e;
    }
  };
  // Only what this start wrote: a line from an earlier start is no sign of readiness.
  const logContains = (entry: Child, text: string) => readFileSync(entry.log).subarray(entry.logStart).toString("utf8").includes(text);

  // Asked for the process runtime: say what is missing before starting anything.
  let isolation: ProcessIsolation | undefined;
  if (o.runtime === "process") isolation = resolveProcessIsolation(o.processIsolation, o.noIsolationCommand, o.warn);

  try {
    for (const d of ["logs", "data", "pki", "nodeagent", "cri"]) mkdirSync(join(state, d), { recursive: true });
    const tokenFile = join(state, "tokens.csv");
    const tokens = ensureTokens(tokenFile, o.nodeName);
    const caFile = join(state, "pki/ca.crt");
    o.say(`skiff: starting a local cluster (state in ${shownPath(state)}, logs in ${shownPath(logDir)})`);

    const apiserver = startChild("apiserver", [
      // Every address: pods with their own network (containerd, the process runtime as root) call
      // it at the machine's address (KUBERNETES_SERVICE_HOST), which its certificate covers.
      "--bind-address=0.0.0.0",
      `--secure-port=${port}`,
      `--data-dir=${join(state, "data")}`,
      `--cert-dir=${join(state, "pki")}`,
      `--token-auth-file=${tokenFile}`,
      "--anonymous-auth=false",
      "--authorization-mode=RBAC",
    ]);
    await step("apiserver", async () => {
      await waitUntil("the apiserver", apiserver, async () => existsSync(caFile) && (await apiGet(port, "/readyz", tokens.admin, caFile)).status === 200);
      return `https://127.0.0.1:${port}`;
    });
    await ensureNodesBinding({ port, token: tokens.admin, caFile });
    const kubeconfig = join(state, "kubeconfig");
    const users = clusterUsers(o.nodeName);
    writeFileSync(kubeconfig, kubeconfigText({ port, user: "admin", token: tokens.admin, caFile }), { mode: 0o600 });
    const configs = {} as Record<"job-controller" | "scheduler" | "nodeagent", string>;
    for (const name of ["job-controller", "scheduler", "nodeagent"] as const) {
      configs[name] = join(state, `${name}.clusterconfig`);
      writeFileSync(configs[name], kubeconfigText({ port, user: users[name].user, token: tokens[name], caFile }), { mode: 0o600 });
    }

    const jc = startChild("job-controller", [`--clusterconfig=${configs["job-controller"]}`, "--use-service-account-credentials"]);
    await step("job controller (Job, TTL-after-finished, node lifecycle)", () => waitUntil("the job controller", jc, () => logContains(jc, "skiff-job-controller started")));
    const sched = startChild("scheduler", [`--clusterconfig=${configs.scheduler}`]);
    await step("scheduler", () => waitUntil("the scheduler", sched, () => logContains(sched, "scheduler started")));

    let endpoint: string | undefined;
    let runtimeName = "";
    if (o.runtime === "auto" || o.runtime === "containerd") {
      let ctd: ContainerdSetup | undefined;
      await step("containerd", () => {
        ctd = o.setUpContainerd();
        return Promise.resolve(ctd.endpoint ?? `not used: ${ctd.reason}`);
      }).catch(() => {});
      if (ctd?.endpoint !== undefined) {
        endpoint = ctd.endpoint;
        runtimeName = "containerd";
      } else if (o.runtime === "containerd") {
        throw new LocalClusterError(`containerd asked for but ${ctd?.reason ?? "setup failed"}`);
      }
    }
    if (endpoint === undefined) {
      const sock = join(state, "cri", "cri.sock");
      isolation ??= resolveProcessIsolation(o.processIsolation, o.noIsolationCommand, o.warn);
      const cri = startChild("cri-process-server", ["--listen", sock, "--state-dir", join(state, "cri", "state"), "--isolation", isolation]);
      const label = isolation === "namespaces" ? "process CRI server (containers in their own namespaces via bubblewrap)" : "process CRI server (containers run as plain processes)";
      // A bwrap that cannot create namespaces here makes the server exit with what to install; its
      // log tail is printed then.
      await step(label, () => waitUntil("the process CRI server", cri, () => existsSync(sock)));
      endpoint = `unix://${sock}`;
      runtimeName = "the process CRI server";
    }

    const configFile = writeNodeAgentConfig(state);
    const agent = startChild("nodeagent", nodeAgentArgs({ state, configFile, clusterconfig: configs.nodeagent, endpoint, nodeName: o.nodeName, agentPort: o.agentPort }));
    await step(`node agent (node ${o.nodeName} on ${runtimeName})`, () =>
      waitUntil("the node agent", agent, async () => (await probeCluster({ port, token: tokens.admin, caFile })).readyNodes.includes(o.nodeName)),
    );

    o.say(
      [
        "",
        `skiff: the cluster is up: apiserver, job controller, scheduler and node ${o.nodeName} on ${runtimeName}. Next:`,
        ...o.nextSteps(shownPath(kubeconfig)),
      ].join("\n"),
    );
    up = true;
    return { kubeconfig, stop, kill };
  } catch (e) {
    await stop();
    throw e;
  }
}
