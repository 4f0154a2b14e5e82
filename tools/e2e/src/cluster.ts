/**
 * The whole system as real processes: the apiserver (SQLite, a token file, a free port), the job
 * controller (Job, TTL-after-finished and node lifecycle controllers), the scheduler, and node
 * agents, each on its own process CRI server or on a containerd set up by tools/containerd.
 * Every process logs to `<dir>/logs/<name>.log`.
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@skiff/test-support";
import { ApiClient, waitFor } from "./api.js";
import type { ApiObject } from "./api.js";

/** The repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");

/** One node agent of the cluster. */
export interface NodeSpec {
  readonly name: string;
  /** `process`: a process CRI server started for this node; `containerd`: the given endpoint. */
  readonly runtime: "process" | "containerd";
  /** CRI endpoint (`unix://...`), for `containerd`. */
  readonly endpoint?: string;
  /** Extra node agent flags. */
  readonly args?: readonly string[];
  /** The process CRI server's `--isolation` (`process` nodes). @defaultValue its default, namespaces */
  readonly isolation?: "namespaces" | "none";
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  readonly nodes: readonly NodeSpec[];
  /** Extra job controller flags (node lifecycle periods for tests). */
  readonly jobControllerArgs?: readonly string[];
  /** Extra scheduler flags. */
  readonly schedulerArgs?: readonly string[];
  /**
   * Extra apiserver flags: e.g. `--default-unreachable-toleration-seconds` for node-loss tests
   * (the DefaultTolerationSeconds admission gives every pod these tolerations, as 1.23's).
   */
  readonly apiserverArgs?: readonly string[];
  /** Run `src/main.ts` through tsx (true) or the built `dist/main.js` (false). @defaultValue true */
  readonly fromSource?: boolean;
  /** Node agent `--node-status-update-frequency`. @defaultValue "1s" */
  readonly nodeStatusUpdateFrequency?: string;
  /**
   * Node agent `nodeLeaseDurationSeconds` (config file): the lease, renewed every quarter of it,
   * is the node's heartbeat between status reports (posted on change, or every 5 min).
   * @defaultValue 4 (a renewal a second, for the short node-monitor grace periods of tests)
   */
  readonly nodeLeaseDurationSeconds?: number;
  /**
   * The nice value (-20…19, `setpriority(2)`) of every node's processes, its agent and its process
   * CRI server, and so of what they spawn (CNI plugins, containers): a positive value gives the
   * control plane the CPU first, as its own machines would in a real cluster, when one small
   * machine runs dozens of nodes (`pnpm bench e2e`). Needs root for a negative value.
   * @defaultValue 0 (unchanged)
   */
  readonly nodeNice?: number;
  /** Extra `node` flags for every process (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). @defaultValue [] */
  readonly nodeArgs?: readonly string[];
  /** Parent of the cluster's temporary directory. @defaultValue os.tmpdir() */
  readonly tmpDir?: string;
  /**
   * The apiserver's `--authorization-mode`. With `RBAC` the components rely on 1.23's bootstrap
   * policy for their identities (the job controller with `--use-service-account-credentials`) and
   * ClusterRoleBinding `skiff:nodes` grants ClusterRole `system:node` to group `system:nodes`, as
   * the local cluster does. @defaultValue "AlwaysAllow"
   */
  readonly authorizationMode?: "AlwaysAllow" | "RBAC";
  /**
   * The apiserver's `--bind-address` (its clients keep using 127.0.0.1): `0.0.0.0` lets pods in
   * their own network namespace (containerd) reach it through their gateway. @defaultValue "127.0.0.1"
   */
  readonly apiserverBindAddress?: string;
  /**
   * More users of the apiserver's token file (e.g. a node identity per hollow node,
   * `system:node:<name>` in group `system:nodes`, so that API Priority and Fairness and
   * authorization see them as nodes). @defaultValue none
   */
  readonly extraTokens?: readonly { readonly token: string; readonly user: string; readonly uid: string; readonly groups: readonly string[] }[];
}

/** A running process of the cluster. */
export interface ClusterProcess {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly log: string;
  /** Whether the process has exited. */
  exited(): boolean;
}

/** A running cluster (see {@link startCluster}). */
export interface Cluster {
  readonly dir: string;
  /** Admin kubeconfig. */
  readonly kubeconfig: string;
  readonly api: ApiClient;
  readonly processes: ReadonlyMap<string, ClusterProcess>;
  /** Kills one process (SIGKILL by default) and waits for it to exit. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** The last `lines` lines of a process's log. */
  logTail(name: string, lines?: number): string;
  /** Sum of the resident set sizes of every running process of the cluster and their children, in bytes (Linux /proc). */
  totalRssBytes(): number;
  /**
   * Resolves once there are at least `count` Nodes and every Node is Ready without the
   * `node.example.io/not-ready` taint (the apiserver's TaintNodesByCondition admission puts it on
   * each new Node; the job controller's node lifecycle controller removes it once the node is
   * Ready). For nodes registered outside the cluster's own agents (the fleet's hollow nodes),
   * which take no pods before that. @throws Error after `timeoutMs` (default 120 s), naming the nodes still waited for.
   */
  waitForSchedulableNodes(count: number, timeoutMs?: number): Promise<void>;
  /** Stops every process (reverse start order, SIGTERM then SIGKILL after 10 s) and removes the directory unless `keep`. */
  stop(keep?: boolean): Promise<void>;
}

const appMain = {
  apiserver: "apps/apiserver",
  "job-controller": "apps/job-controller",
  scheduler: "apps/scheduler",
  nodeagent: "apps/nodeagent",
  "cri-process-server": "tools/cri-process-server",
} as const;

export { freePort };

function kubeconfigText(server: string, ca: string, user: string, token: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: skiff\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${Buffer.from(ca).toString("base64")}`,
    "users:",
    `- name: ${user}\n  user:\n    token: ${token}`,
    "contexts:",
    `- name: skiff\n  context:\n    cluster: skiff\n    user: ${user}\n    namespace: default`,
    "current-context: skiff",
    "",
  ].join("\n");
}

/**
 * Starts the cluster and waits until every node is Ready. On failure everything started is stopped
 * and the error carries the failing process's log tail.
 * @example
 * const cluster = await startCluster({ nodes: [{ name: "node-a", runtime: "process" }, { name: "node-b", runtime: "process" }] });
 * await cluster.api.create("/apis/batch/v1/namespaces/default/jobs", job);
 * await cluster.stop();
 */
export async function startCluster(o: ClusterOptions): Promise<Cluster> {
  const fromSource = o.fromSource ?? true;
  // Short: unix socket paths of the CRI servers live under it.
  const dir = mkdtempSync(join(o.tmpDir ?? tmpdir(), "skiff-e2e-"));
  mkdirSync(join(dir, "logs"));
  const processes = new Map<string, ClusterProcess>();
  const order: string[] = [];

  const start = (name: string, app: keyof typeof appMain, args: readonly string[], nice = 0): ClusterProcess => {
    const log = join(dir, "logs", `${name}.log`);
    const fd = openSync(log, "a");
    const main = fromSource ? ["--conditions=@skiff/source", "--import", "tsx", join(repoRoot, appMain[app], "src/main.ts")] : [join(repoRoot, appMain[app], "dist/main.js")];
    const proc = spawn(process.execPath, [...(o.nodeArgs ?? []), ...main, ...args], { cwd: repoRoot, stdio: ["ignore", fd, fd] });
    closeSync(fd);
    // spawn returns once the child has exec'd, before it has loaded a module or spawned anything.
    if (nice !== 0 && proc.pid !== undefined) setPriority(proc.pid, nice);
    let done = false;
    proc.once("exit", () => (done = true));
    const p: ClusterProcess = { name, proc, log, exited: () => done };
    processes.set(name, p);
    order.push(name);
    return p;
  };
  const tail = (name: string, lines = 30): string => {
    const p = processes.get(name);
    if (!p) return "";
    try {
      return readFileSync(p.log, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  };
  const ready = async (p: ClusterProcess, what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      if (p.exited()) throw new Error(`${p.name} exited before ${what}:\n${tail(p.name)}`);
      try {
        if (await check()) return;
      } catch (e) {
        last = e;
      }
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last !== undefined ? `: ${String(last)}` : ""}\n--- ${p.name} log:\n${tail(p.name)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stopProc = (p: ClusterProcess, signal: NodeJS.Signals): Promise<void> =>
    new Promise((resolve) => {
      if (p.exited()) return resolve();
      const t = setTimeout(() => p.proc.kill("SIGKILL"), 10_000);
      p.proc.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
      p.proc.kill(signal);
    });
  const stopAll = async (keep = false): Promise<void> => {
    for (const name of [...order].reverse()) {
      const p = processes.get(name);
      if (p) await stopProc(p, "SIGTERM");
    }
    if (!keep) {
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  };

  try {
    const tokens = { admin: "admin-token", jc: "jc-token", sched: "scheduler-token" } as const;
    // Each component as Kubernetes 1.23's component user (see apps/skiff/src/cluster/credentials.ts).
    const tokenLines = [`${tokens.admin},admin,admin,"system:masters"`, `${tokens.jc},system:kube-controller-manager,jc`, `${tokens.sched},system:kube-scheduler,sched`];
    const rbac = o.authorizationMode === "RBAC";
    for (const n of o.nodes) tokenLines.push(`node-${n.name}-token,system:node:${n.name},node-${n.name},"system:nodes"`);
    for (const t of o.extraTokens ?? []) tokenLines.push(`${t.token},${t.user},${t.uid}${t.groups.length > 0 ? `,"${t.groups.join(",")}"` : ""}`);
    writeFileSync(join(dir, "tokens.csv"), tokenLines.join("\n") + "\n");
    const port = await freePort();
    const apiserver = start("apiserver", "apiserver", [
      `--bind-address=${o.apiserverBindAddress ?? "127.0.0.1"}`,
      `--secure-port=${port}`,
      `--authorization-mode=${o.authorizationMode ?? "AlwaysAllow"}`,
      `--data-dir=${join(dir, "data")}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      "--anonymous-auth=false",
      ...(o.apiserverArgs ?? []),
    ]);
    const server = `https://127.0.0.1:${port}`;
    const caFile = join(dir, "pki", "ca.crt");
    let api: ApiClient | undefined;
    await ready(apiserver, "apiserver /readyz", async () => {
      if (!existsSync(caFile)) return false;
      // A new client each try: one built from a CA read too early would fail for good.
      const client = new ApiClient({ server, ca: readFileSync(caFile, "utf8"), token: tokens.admin });
      await client.get("/readyz");
      api = client;
      return true;
    });
    const ca = readFileSync(caFile, "utf8");
    const config = (file: string, user: string, token: string): string => {
      const path = join(dir, file);
      writeFileSync(path, kubeconfigText(server, ca, user, token));
      return path;
    };
    const kubeconfig = config("kubeconfig", "admin", tokens.admin);
    const adminApi = api ?? new ApiClient({ server, ca, token: tokens.admin });
    if (rbac) {
      // No Node authorizer: the node agents get ClusterRole system:node through their group.
      await adminApi.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "skiff:nodes" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:node" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:nodes" }],
      });
    }

    const jc = start("job-controller", "job-controller", [
      `--clusterconfig=${config("job-controller.clusterconfig", "system:kube-controller-manager", tokens.jc)}`,
      ...(rbac ? ["--use-service-account-credentials"] : []),
      ...(o.jobControllerArgs ?? []),
    ]);
    await ready(jc, "job controller", () => readFileSync(jc.log, "utf8").includes("skiff-job-controller started"));
    const sched = start("scheduler", "scheduler", [`--clusterconfig=${config("scheduler.clusterconfig", "system:kube-scheduler", tokens.sched)}`, ...(o.schedulerArgs ?? [])]);
    await ready(sched, "scheduler", () => readFileSync(sched.log, "utf8").includes("scheduler started"));

    const agents: Array<{ p: ClusterProcess; name: string }> = [];
    for (const n of o.nodes) {
      let endpoint = n.endpoint ?? "";
      if (n.runtime === "process") {
        const sock = join(dir, `${n.name}.sock`);
        const cri = start(`cri-${n.name}`, "cri-process-server", ["--listen", sock, "--state-dir", join(dir, "cri", n.name), ...(n.isolation ? ["--isolation", n.isolation] : [])], o.nodeNice);
        await ready(cri, `process CRI server of ${n.name}`, () => existsSync(sock));
        endpoint = `unix://${sock}`;
      }
      const agentPort = await freePort();
      const root = join(dir, "nodes", n.name);
      mkdirSync(root, { recursive: true });
      const agentConfig = join(root, "config.yaml");
      // A config file brings its own defaults for the servers' authentication (webhook, no
      // anonymous): keep the command line's (anonymous, AlwaysAllow), as these nodes had without one.
      writeFileSync(
        agentConfig,
        [
          "apiVersion: nodeagent.config.example.io/v1beta1",
          "kind: NodeAgentConfiguration",
          `nodeLeaseDurationSeconds: ${String(o.nodeLeaseDurationSeconds ?? 4)}`,
          "authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}",
          "authorization: {mode: AlwaysAllow}",
          "",
        ].join("\n"),
      );
      const p = start(n.name, "nodeagent", [
        `--config=${agentConfig}`,
        `--clusterconfig=${config(`${n.name}.clusterconfig`, `system:node:${n.name}`, `node-${n.name}-token`)}`,
        `--container-runtime-endpoint=${endpoint}`,
        `--root-dir=${root}`,
        `--cert-dir=${join(root, "pki")}`,
        `--hostname-override=${n.name}`,
        "--node-ip=127.0.0.1",
        `--port=${agentPort}`,
        "--healthz-port=0",
        "--read-only-port=0",
        `--node-status-update-frequency=${o.nodeStatusUpdateFrequency ?? "1s"}`,
        // Test machines may have swap on; the check itself is unit-tested in apps/nodeagent.
        "--fail-swap-on=false",
        ...(n.args ?? []),
      ], o.nodeNice);
      agents.push({ p, name: n.name });
    }
    // A node takes pods once it is Ready and the node lifecycle controller (in the job controller)
    // has removed the not-ready:NoSchedule taint the apiserver's TaintNodesByCondition admission
    // put on it at registration.
    for (const { p, name } of agents) {
      await ready(p, `node ${name} Ready and without the not-ready taint`, async () => isSchedulable(await adminApi.get<NodeView>(`/api/v1/nodes/${name}`)));
    }

    return {
      dir,
      kubeconfig,
      api: adminApi,
      processes,
      async kill(name, signal = "SIGKILL") {
        const p = processes.get(name);
        if (!p) throw new Error(`no process ${name}`);
        await stopProc(p, signal);
      },
      logTail: tail,
      async waitForSchedulableNodes(count, timeoutMs = 120_000) {
        let waiting: string[] = [];
        await waitFor(
          `${String(count)} Nodes Ready without the not-ready taint`,
          async () => {
            const nodes = await adminApi.list<NodeView>("/api/v1/nodes");
            waiting = nodes.filter((n) => !isSchedulable(n)).map((n) => n.metadata?.name ?? "");
            return nodes.length >= count && waiting.length === 0;
          },
          timeoutMs,
          200,
        ).catch((e: unknown) => {
          throw new Error(`${e instanceof Error ? e.message : String(e)}; still waiting for: ${waiting.slice(0, 10).join(", ") || "(more Nodes)"}`, { cause: e });
        });
      },
      totalRssBytes() {
        let total = 0;
        for (const p of processes.values()) if (!p.exited() && p.proc.pid !== undefined) total += treeRssBytes(p.proc.pid);
        return total;
      },
      stop: stopAll,
    };
  } catch (e) {
    await stopAll(true);
    throw e;
  }
}

type NodeView = ApiObject & { spec?: { taints?: Array<{ key: string; effect: string }> }; status?: { conditions?: Array<{ type: string; status: string }> } };

function isSchedulable(node: NodeView): boolean {
  const ready = (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
  return ready && !(node.spec?.taints ?? []).some((t) => t.key === "node.example.io/not-ready");
}

function treeRssBytes(pid: number): number {
  let total = 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    if (m) total += Number(m[1]) * 1024;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    for (const c of children.split(/\s+/).filter(Boolean)) total += treeRssBytes(Number(c));
  } catch {
    // gone
  }
  return total;
}

/** What {@link setUpContainerd} found: an endpoint, or why there is none. */
export type ContainerdSetup = { readonly endpoint: string; readonly dir: string; stop(): void } | { readonly endpoint?: undefined; readonly reason: string; stop(): void };

/**
 * Sets up a private containerd with tools/containerd/setup.sh in a new temporary directory, as
 * tools/cri-process-server/test/containerd.integration.test.ts does: needs root; `stop()` runs
 * stop.sh --purge. Never throws: failures come back as `reason`.
 */
export function setUpContainerd(): ContainerdSetup {
  const tools = join(repoRoot, "tools/containerd");
  if (process.getuid?.() !== 0) return { reason: "not running as root (containerd and runc need it)", stop: () => {} };
  const dir = mkdtempSync(join(tmpdir(), "skiff-ctd-"));
  const stop = (): void => {
    spawnSync("bash", [join(tools, "stop.sh"), "--dir", dir, "--purge"], { stdio: "ignore", timeout: 120_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  const r = spawnSync("bash", [join(tools, "setup.sh"), "--dir", dir], { encoding: "utf8", timeout: 600_000 });
  if (r.status !== 0) {
    stop();
    return { reason: `setup.sh exited ${String(r.status ?? r.signal)}: ${(r.stderr ?? "").trim().split("\n").slice(-15).join("\n")}`, stop: () => {} };
  }
  const endpoint = (r.stdout ?? "").trim().split("\n").at(-1) ?? "";
  if (!endpoint.startsWith("unix://")) {
    stop();
    return { reason: `setup.sh printed no endpoint: ${r.stdout}`, stop: () => {} };
  }
  return { endpoint, dir, stop };
}

/**
 * Lazily unmounts what is still mounted under `dir` (a process runtime killed before tearing its
 * pod network namespaces down leaves their bind mounts under its state dir; removing the
 * directory would then fail with EBUSY). Root only; never throws.
 */
function unmountUnder(dir: string): void {
  if (process.getuid?.() !== 0) return;
  let mounts: string;
  try {
    mounts = readFileSync("/proc/self/mounts", "utf8");
  } catch {
    return;
  }
  for (const line of mounts.split("\n")) {
    const target = (line.split(" ")[1] ?? "").replace(/\\040/g, " ");
    if (target.startsWith(`${dir}/`)) spawnSync("umount", ["-l", target], { stdio: "ignore" });
  }
}
