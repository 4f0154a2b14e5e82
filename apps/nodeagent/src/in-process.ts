/**
 * The node agent built inside another process: the same options, pod runtime, API-server mode
 * (registration, Node status, Lease, `api` pod source, pod status sync, graceful deletion) as
 * {@link runNodeAgent}, over CRI clients and API clients the host process hands in. A simulated
 * fleet (`tools/fleet`) runs many of these in one process, as kubemark runs hollow kubelets.
 *
 * @see cmd/kubemark/app/hollow_node.go, pkg/kubemark/hollow_kubelet.go in kubernetes/kubernetes v1.23
 */
import { hostname as osHostname } from "node:os";
import { kubernetesServiceOf, resolveNodeName, setupDataDirs, podRuntimeOptionsFrom, podResourceOptionsFrom } from "./app.js";
import type { Node } from "@skiff/api-types";
import type { ClientConnections, ClusterConfig } from "@skiff/client";
import { createClient } from "@skiff/client";
import type { ClusterClients } from "./cluster/index.js";
import { ClusterMode, createEventRecorder, heartbeatTimeoutMs, initialNodeFor } from "./cluster/index.js";
import { unsupportedSettings } from "./cm/index.js";
import { createLogger } from "./logging.js";
import type { TextSink } from "./options/index.js";
import { loadNodeAgentOptions, nodeAgentVersion } from "./options/index.js";
import type { PodEventRecorder, PodRuntime } from "./pods/index.js";
import { createPodObjectManagers, createPodRuntime, isChangeDetectionStrategy } from "./pods/index.js";
import type { CRIDialer } from "./pods/runtime-clients.js";

/** What the host process gives an in-process node agent (see {@link startInProcessNodeAgent}). */
export interface InProcessNodeAgentDeps {
  /** Opens the agent's CRI runtime and image clients (instead of gRPC to `--container-runtime-endpoint`). */
  readonly cri: CRIDialer;
  /**
   * The apiserver and credentials (a loaded kubeconfig), instead of reading `--clusterconfig`.
   * The agent builds its clients from it as the binary does (`--cluster-api-qps/burst`,
   * `--event-qps/burst`, an unthrottled heartbeat client) and closes them when it stops.
   */
  readonly clusterConfig: ClusterConfig;
  /** Keep-alive connections shared with other in-process agents. @defaultValue a pool per client */
  readonly connections?: ClientConnections;
  /** Awaited by each pod worker before each sync (see `PodRuntimeOptions.syncAdmission`). @defaultValue none */
  readonly syncAdmission?: () => Promise<void>;
  /** Where option warnings and the agent's log lines go. */
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /**
   * The kubelet port written into `Node.status.daemonEndpoints` (no server listens on it in-process).
   * @defaultValue the configured `--port` (10250)
   */
  readonly daemonPort?: number;
}

/** A running in-process node agent. */
export interface InProcessNodeAgent {
  readonly nodeName: string;
  readonly runtime: PodRuntime;
  /**
   * Resolves once the Node is registered and the pod source has synced; rejects when
   * registration fails for good (not on a stop).
   */
  readonly registered: Promise<void>;
  /** Stops every loop (status, Lease, pod watch, pod workers) and closes the API clients. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a node agent in this process from node agent flags (`--hostname-override`,
 * `--root-dir`, `--node-ip`, `--config`, ...). It runs what {@link runNodeAgent} runs in API-server
 * mode except what belongs to the host rather than the node: no lock file, no container manager
 * (no cgroups, no OOM score, no kernel tunables: kubemark's stub container manager), no iptables
 * chains, no CSI plugin watcher, no stats collection and none of the three servers.
 * Registration retries in the background, as in the binary; see {@link InProcessNodeAgent.registered}.
 *
 * @throws Error when the flags do not parse (the messages were written to `deps.stderr`) or name
 *   a setting the node agent refuses (`--runtime-cgroups`, a CPU manager policy...).
 * @example
 * ```ts
 * const agent = await startInProcessNodeAgent(["--hostname-override=hollow-1", "--root-dir=/tmp/h1"], { cri, clients, stdout, stderr });
 * await agent.registered;
 * await agent.stop();
 * ```
 */
export async function startInProcessNodeAgent(argv: readonly string[], deps: InProcessNodeAgentDeps): Promise<InProcessNodeAgent> {
  const loaded = loadNodeAgentOptions(argv, { env: {}, stdout: deps.stdout, stderr: deps.stderr });
  if (!loaded.ok) throw new Error(`invalid node agent flags (exit code ${loaded.exitCode}): ${argv.join(" ")}`);
  const o = loaded.value;
  const c = o.config;
  const refused = unsupportedSettings({ ...c, runtimeCgroups: o.flags.runtimeCgroups });
  // An in-process agent shares its host's process and runs no container manager (setUpNode).
  const hostOnly: Array<[string, string, string]> = [
    ["--agent-cgroups", c.agentCgroups, ""],
    ["--runtime-cgroups", o.flags.runtimeCgroups, ""],
    ["--system-cgroups", c.systemCgroups, ""],
    ["--memory-manager-policy", c.memoryManagerPolicy, "None"],
    ["--cpu-manager-policy", c.cpuManagerPolicy, "none"],
    ["--topology-manager-policy", c.topologyManagerPolicy, "none"],
  ];
  for (const [flag, value, none] of hostOnly) if (value !== none) refused.push(`${flag}=${value} is not supported by an in-process node agent (it runs no container manager); leave it unset`);
  if (refused.length > 0) throw new Error(refused.join("; "));
  const root = createLogger(
    {
      verbosity: c.logging.verbosity,
      vmodule: c.logging.vmodule,
      format: c.logging.format,
      logtostderr: o.flags.logtostderr,
      alsologtostderr: o.flags.alsologtostderr,
      logFile: o.flags.logFile,
      logDir: o.flags.logDir,
      logFileMaxSizeMB: o.flags.logFileMaxSize,
      stderrthreshold: o.flags.stderrthreshold,
      skipHeaders: o.flags.skipHeaders,
      jsonSplitStream: c.logging.options.json.splitStream,
    },
    { stdout: deps.stdout, stderr: deps.stderr },
  );
  const nodeName = resolveNodeName(o.flags.hostnameOverride, osHostname);
  setupDataDirs(o.flags.rootDir);
  const userAgent = `nodeagent/${nodeAgentVersion.gitVersion}`;
  const shared = deps.connections ? { connections: deps.connections } : {};
  const clients: ClusterClients = {
    client: createClient(deps.clusterConfig, { qps: c.clusterAPIQPS, burst: c.clusterAPIBurst, userAgent, ...shared }),
    eventClient: createClient(deps.clusterConfig, { qps: c.eventRecordQPS, burst: c.eventBurst, userAgent, ...shared }),
    heartbeatClient: createClient(deps.clusterConfig, { qps: -1, userAgent, timeoutMs: heartbeatTimeoutMs(c), ...shared }),
    server: deps.clusterConfig.server,
  };
  const eventClient = clients.eventClient;
  const onEvent: PodEventRecorder = createEventRecorder(eventClient, nodeName);
  const strategy = c.configMapAndSecretChangeDetectionStrategy;
  if (!isChangeDetectionStrategy(strategy)) throw new Error(`unknown configmap and secret manager mode: ${strategy}`);
  const objectsLog = root.withName("objects");
  const objects = createPodObjectManagers({ client: clients.client, strategy, syncFrequencyMs: c.syncFrequency.ms, onError: (err, context) => objectsLog.v(2).info(`${context}: ${err instanceof Error ? err.message : String(err)}`) });
  // Admission's Node: the flags' until the cluster mode (and its node informer) exists.
  const flagsNode = initialNodeFor(o, nodeName);
  let nodeOf: () => Node = () => flagsNode;
  const runtime = createPodRuntime({
    ...podRuntimeOptionsFrom(o, nodeName, root.withName("pods")),
    node: () => nodeOf(),
    ...(await podResourceOptionsFrom(o, undefined)),
    onEvent,
    objects,
    kubernetesService: kubernetesServiceOf(o, clients.server),
    criDialer: deps.cri,
    ...(deps.syncAdmission ? { syncAdmission: deps.syncAdmission } : {}),
  });
  const clusterLog = root.withName("cluster");
  const cluster = new ClusterMode({ options: o, nodeName, runtime, clients, log: (m, level = 0) => (level === 0 ? clusterLog.info(m) : clusterLog.v(level).info(m)), onNodeEventRecorder: (record) => runtime.setNodeEventRecorder(record) });
  nodeOf = () => cluster.node();
  const stopping = new AbortController();
  await runtime.start();
  const port = deps.daemonPort ?? (typeof c.port === "number" ? c.port : 10250);
  const registered = cluster.start(port, stopping.signal).catch((e: unknown) => {
    if ((e as { code?: string }).code === "Aborted" || stopping.signal.aborted) return;
    throw e;
  });
  // A caller that never awaits `registered` must not see an unhandled rejection.
  registered.catch(() => undefined);
  let stopped: Promise<void> | undefined;
  return {
    nodeName,
    runtime,
    registered,
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        cluster.stop();
        await runtime.stop();
      })();
      return stopped;
    },
  };
}
