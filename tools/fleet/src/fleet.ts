/**
 * A simulated fleet: many hollow nodes in one process, each the real node agent
 * (`startInProcessNodeAgent`: registration, Node status, Lease, `api` pod source, pod workers,
 * pod status sync, graceful deletion) over its own {@link SimulatedRuntime}.
 *
 * @see cmd/kubemark/app/hollow_node.go, pkg/kubemark/hollow_kubelet.go in kubernetes/kubernetes v1.23
 */
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClusterConfig } from "@skiff/client";
import { createClientConnections } from "@skiff/client";
import type { InProcessNodeAgent } from "@skiff/nodeagent";
import { startInProcessNodeAgent } from "@skiff/nodeagent";
import { checkFleetMemory } from "./memory.js";
import { SimulatedImageCatalog, SimulatedRuntime } from "./sim-cri.js";
import { LoopDelayGate, type LoopDelayGateStats } from "./loop-gate.js";

/** `statfs` f_type of tmpfs (TMPFS_MAGIC in linux/magic.h). */
const tmpfsMagic = 0x01021994;

/**
 * The parent of a fleet's own root directory: `/dev/shm` when it is a writable tmpfs, else the
 * system's temporary directory. The hollow nodes' files (projected token volumes, `/etc/hosts`,
 * termination logs, pod logs) are the real agent's, but a simulation's: on a memory-backed
 * filesystem they cost the fleet's one thread what the files cost, not the disk's journal
 * (measured on the issue-20 machine's ext4: 1.5 ms of blocking per pod's files, against 0.05 ms on
 * tmpfs). Their memory is not in the process's RSS; `pnpm bench fleet` reports it.
 */
export function fleetTempParent(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    if (statfsSync("/dev/shm").type === tmpfsMagic) return "/dev/shm";
  } catch {
    // no /dev/shm, or not writable
  }
  return tmpdir();
}

/**
 * The size of a fleet's shared pool of API connections for `nodes` hollow nodes: one per node (at
 * least 64). kubemark's hollow kubelets each hold their own connection (HTTP/2, requests
 * multiplexed), so a node's status writes never wait for another node's; with a pool of 64
 * HTTP/1.1 connections for 300 nodes they did (measured, `pnpm bench fleet --scale 0.3`: status
 * write queue p50 6.2 s and pod start-up p50 15.5 s, against 0 s and 3.0 s with 256).
 */
export function defaultFleetConnections(nodes: number): number {
  return Math.max(64, nodes);
}

/** Where the hollow nodes' log lines go. */
export interface FleetLogSink {
  write(text: string): unknown;
}

/**
 * The cluster DNS every hollow node is configured with unless `agentConfig` says otherwise
 * (kubeadm's defaults): a cluster has one, and without it each ClusterFirst pod costs two
 * `MissingClusterDNS` events (1.23 forms the sandbox's DNS config twice per start).
 */
const hollowNodeDNS = Object.freeze({ clusterDNS: ["10.96.0.10"], clusterDomain: "cluster.local" });

/**
 * The client rate limit of every hollow node's API requests unless `agentConfig` or `agentArgs`
 * say otherwise: kubemark's hollow kubelet builds its client with QPS 10 and burst 20 (not the
 * kubelet's kubeAPIQPS 5 / kubeAPIBurst 10), shared by the pod status writes, the service-account
 * token requests, the ConfigMap/Secret reads and registration; Node status updates and the Lease
 * go through the agent's unthrottled heartbeat client, as kubemark's `heartbeatClient` (QPS -1).
 * @see cmd/kubemark/hollow-node.go (createClientConfigFromFile) in kubernetes/kubernetes v1.23
 */
export const hollowNodeClientRateLimit = Object.freeze({ clusterAPIQPS: 10, clusterAPIBurst: 20 });

/** Options of {@link startFleet}. */
export interface FleetOptions {
  /** How many hollow nodes; an integer ≥ 1. */
  readonly nodes: number;
  /** The apiserver and credentials every hollow node uses (one kubeconfig, as kubemark's hollow nodes share one). */
  readonly clusterConfig: ClusterConfig;
  /**
   * Each node's own bearer token, by node name (replacing `clusterConfig`'s credentials), so that
   * every hollow node has a node identity as a real node has (`system:node:<name>`): API Priority
   * and Fairness then gives each node its own flow. @defaultValue every node uses `clusterConfig`'s
   */
  readonly nodeToken?: (nodeName: string) => string;
  /** Node names are `<prefix><n>`, n from 0. @defaultValue "hollow-node-" */
  readonly namePrefix?: string;
  /** The nodes' root directories (`<rootDir>/<node>`) and pod logs (`<rootDir>/pod-logs`). @defaultValue a new temporary directory under {@link fleetTempParent} (memory-backed where it can), removed by {@link Fleet.stop} */
  readonly rootDir?: string;
  /** Extra node agent flags for every hollow node (`--max-pods=50`, `-v=2`, ...). */
  readonly agentArgs?: readonly string[];
  /** Extra fields of the nodes' `NodeAgentConfiguration` file (e.g. `{ nodeLeaseDurationSeconds: 4 }`); they override {@link hollowNodeDNS} and {@link hollowNodeClientRateLimit}. */
  readonly agentConfig?: Readonly<Record<string, unknown>>;
  /**
   * Keep-alive connections shared by all hollow nodes' ordinary requests (each watch has its own).
   * @defaultValue {@link defaultFleetConnections} of the node count: one per hollow node, at least 64
   */
  readonly maxConnections?: number;
  /** Hollow nodes registering at once while the fleet starts. @defaultValue 50 */
  readonly startConcurrency?: number;
  /** Where the agents' log lines go. @defaultValue discarded */
  readonly log?: FleetLogSink;
  /**
   * Hold the hollow nodes' pod workers back while the fleet's event loop lags (see
   * {@link LoopDelayGate}); `false` lets every sync start at once, as before session 21.
   * @defaultValue true
   */
  readonly syncAdmission?: boolean;
  /** Overrides the memory check (tests): the bytes one hollow node needs. @defaultValue {@link hollowNodeMemoryBytes} */
  readonly memoryPerNodeBytes?: number;
  /** Overrides the memory check (tests): the bytes this process may still use. @defaultValue see {@link availableMemoryBytes} */
  readonly availableMemoryBytes?: number;
}

/** A running fleet (see {@link startFleet}). */
export interface Fleet {
  /** The hollow nodes' names, in order. */
  readonly nodeNames: readonly string[];
  readonly rootDir: string;
  /** Running simulated containers over all nodes. */
  runningContainers(): number;
  /** Containers that exited since the start, over all nodes. */
  exitedContainers(): number;
  /** What the pod-work admission has done (`undefined` with `syncAdmission: false`). */
  admission(): LoopDelayGateStats | undefined;
  /**
   * Stops one hollow node as a killed node agent: its Lease and status stop being renewed, its pod
   * workers stop, its containers never finish. The Node and its pods stay in the API (the node
   * lifecycle controller acts on them). @throws Error for an unknown or already stopped node.
   */
  stopNode(name: string): Promise<void>;
  /** Stops every hollow node, closes the shared connections and removes a temporary root. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The `NodeAgentConfiguration` every hollow node of a fleet rooted at `rootDir` reads: pod logs
 * under `<rootDir>/pod-logs`, {@link hollowNodeDNS}, {@link hollowNodeClientRateLimit}, then
 * `agentConfig`'s fields over them. Pure.
 */
export function hollowNodeConfiguration(rootDir: string, agentConfig?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { apiVersion: "nodeagent.config.example.io/v1beta1", kind: "NodeAgentConfiguration", podLogsDir: join(rootDir, "pod-logs"), ...hollowNodeDNS, ...hollowNodeClientRateLimit, ...agentConfig };
}

/**
 * The node IP of hollow node `n` (from 0): `10.64.0.1`, `10.64.0.2`, ... (a /10 of private
 * addresses, distinct for up to 4 million nodes). Pure.
 */
export function hollowNodeIP(n: number): string {
  const i = n + 1;
  return `10.${64 + ((i >> 16) & 63)}.${(i >> 8) & 255}.${i & 255}`;
}

/** The pod IP of the `pod`-th sandbox (from 0) on hollow node `n`: `10.128.0.0/9`, 254 addresses per node, reused round-robin. Pure. */
export function hollowPodIP(n: number, pod: number): string {
  return `10.${128 + ((n >> 8) & 127)}.${n & 255}.${(pod % 254) + 1}`;
}

/**
 * Starts `nodes` hollow nodes in this process and resolves once every Node is registered and
 * its pod watch has synced. Each runs the real node agent code with flags `--hostname-override`,
 * `--root-dir`, `--node-ip` (see {@link hollowNodeIP}) and `options.agentArgs`; none of the
 * agent's three servers runs (the Node still advertises its kubelet port, 10250 unless
 * `--port`), and neither do its container manager, stats, CSI plugin watcher and iptables set-up.
 * The nodes share one pool of keep-alive connections, one image catalogue and one admission of pod
 * work by the event loop's delay ({@link LoopDelayGate}, unless `syncAdmission: false`); each keeps
 * its own API clients and rate limiters, informer, pod workers and runtime.
 *
 * @throws FleetMemoryError (`reason: "InsufficientMemory"`) before starting anything, when the
 *   estimate does not fit (the message gives it).
 * @throws RangeError for a node count that is not an integer ≥ 1.
 * @throws Error when a hollow node fails to start (the ones started are stopped first).
 * @example
 * ```ts
 * const fleet = await startFleet({ nodes: 100, clusterConfig: await loadClusterConfig("kubeconfig") });
 * // ... create Jobs; their pods run on hollow-node-0..99 ...
 * await fleet.stop();
 * ```
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const n = options.nodes;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`nodes must be an integer >= 1, got ${String(n)}`);
  checkFleetMemory(n, {
    ...(options.memoryPerNodeBytes !== undefined ? { perNodeBytes: options.memoryPerNodeBytes } : {}),
    ...(options.availableMemoryBytes !== undefined ? { availableBytes: options.availableMemoryBytes } : {}),
  });
  const prefix = options.namePrefix ?? "hollow-node-";
  const ownRoot = options.rootDir === undefined;
  const rootDir = options.rootDir ?? mkdtempSync(join(fleetTempParent(), "skiff-fleet-"));
  mkdirSync(join(rootDir, "pod-logs"), { recursive: true });
  const configFile = join(rootDir, "nodeagent-config.json");
  writeFileSync(configFile, JSON.stringify(hollowNodeConfiguration(rootDir, options.agentConfig)));
  const connections = createClientConnections(options.clusterConfig, { maxConnections: options.maxConnections ?? defaultFleetConnections(n) });
  const catalog = new SimulatedImageCatalog();
  const gate = options.syncAdmission === false ? undefined : new LoopDelayGate();
  const sink = options.log ?? { write: () => true };
  const nodeNames = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const nodes = new Map<string, { agent: InProcessNodeAgent; runtime: SimulatedRuntime; stopped: boolean }>();
  let exited = 0;

  const startOne = async (i: number): Promise<void> => {
    const name = nodeNames[i] ?? "";
    const runtime = new SimulatedRuntime({ catalog, podIP: (k) => hollowPodIP(i, k), onContainerExit: () => void exited++ });
    const agent = await startInProcessNodeAgent(
      [`--config=${configFile}`, `--hostname-override=${name}`, `--root-dir=${join(rootDir, name)}`, `--node-ip=${hollowNodeIP(i)}`, `--container-runtime-endpoint=unix:///simulated/${name}.sock`, ...(options.agentArgs ?? [])],
      { cri: () => ({ runtime: runtime.runtimeClient(), images: runtime.imageClient() }), clusterConfig: options.nodeToken ? { ...options.clusterConfig, token: options.nodeToken(name) } : options.clusterConfig, connections, stdout: sink, stderr: sink, ...(gate ? { syncAdmission: () => gate.admit() } : {}) },
    );
    nodes.set(name, { agent, runtime, stopped: false });
    await agent.registered;
  };

  let stopping: Promise<void> | undefined;
  const stopAll = (): Promise<void> => {
    stopping ??= (async () => {
      await Promise.all(
        [...nodes.values()].map(async (node) => {
          if (node.stopped) return;
          node.stopped = true;
          await node.agent.stop().catch(() => undefined);
          node.runtime.close();
        }),
      );
      connections.close();
      gate?.close();
      if (ownRoot) rmSync(rootDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    const concurrency = Math.max(1, options.startConcurrency ?? 50);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, n) }, async () => {
        while (next < n) await startOne(next++);
      }),
    );
  } catch (e) {
    await stopAll();
    throw e;
  }

  return {
    nodeNames,
    rootDir,
    runningContainers: () => [...nodes.values()].reduce((sum, node) => sum + node.runtime.runningContainers, 0),
    exitedContainers: () => exited,
    admission: () => gate?.stats(),
    async stopNode(name) {
      const node = nodes.get(name);
      if (!node) throw new Error(`no hollow node ${JSON.stringify(name)} in this fleet`);
      if (node.stopped) throw new Error(`hollow node ${name} is already stopped`);
      node.stopped = true;
      await node.agent.stop();
      node.runtime.close();
    },
    stop: stopAll,
  };
}
