/**
 * API-server mode (`--clusterconfig`): the clients, node registration and status, the `api` pod
 * source, pod status sync, graceful deletion, mirror pods and events, wired around a pod runtime.
 *
 * @see cmd/kubelet/app/server.go (run: kubeDeps.KubeClient, EventClient) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/kubelet.go (NewMainKubelet, Run) in kubernetes/kubernetes v1.23
 */
import { access, readFile } from "node:fs/promises";
import { networkInterfaces, release } from "node:os";
import type { Lease, Node, NodeSystemInfo } from "@skiff/api-types";
import type { Client, Informer } from "@skiff/client";
import { createClient, createInformer, isClusterConfigError, loadClusterConfig } from "@skiff/client";
import type { NodeAgentOptions } from "../options/index.js";
import { nodeAgentVersion } from "../options/index.js";
import type { PodRuntime } from "../pods/index.js";
import { isStaticPod } from "../pods/index.js";
import { ApiPodSource } from "./api-pod-source.js";
import { createEventRecorder, nodeReference } from "./event-recorder.js";
import { MirrorPodManager } from "./mirror-pods.js";
import { NodeLeaseController } from "./node-lease.js";
import { buildInitialNode, buildNodeAddresses, defaultNodeLabelKeys, goArch } from "./node-object.js";
import type { NodePressure } from "./node-object.js";
import { computeNodeResources, readMachineResources } from "./node-resources.js";
import { reservationsWithReservedCPUs } from "../cm/cpumanager/reserved-cpus.js";
import type { ClusterLog } from "./node-status-manager.js";
import { NodeStatusManager } from "./node-status-manager.js";
import { PodStatusSync } from "./pod-status-sync.js";
import { updateRuntimePodCIDR } from "./pod-cidr.js";

/** Why API-server mode could not start; `reason` is stable. */
export class ClusterModeError extends Error {
  /** `BootstrapNotSupported`: `--clusterconfig` is missing and only `--bootstrap-clusterconfig` is given; `ClusterConfig`: the file is missing or invalid. */
  readonly reason: "BootstrapNotSupported" | "ClusterConfig";
  constructor(reason: ClusterModeError["reason"], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ClusterModeError";
    this.reason = reason;
  }
}

/**
 * The API clients of the agent: requests (`--cluster-api-qps/burst`), events
 * (`--event-qps/burst`) and the heartbeat (Node status updates and the node Lease, without a
 * client-side rate limit, as 1.23's kubelet's `HeartbeatClient`, so pod traffic never delays them).
 * @see cmd/kubelet/app/server.go (buildKubeletClientConfig, heartbeatClientConfig.QPS = -1) in kubernetes/kubernetes v1.23
 */
export interface ClusterClients {
  readonly client: Client;
  readonly eventClient: Client;
  /** Node status updates and the node Lease; no rate limit. Registration uses {@link client}. */
  readonly heartbeatClient: Client;
  /** The API server's base URL from the cluster config (`https://host:port`). */
  readonly server: string;
}

/**
 * Loads `--clusterconfig` and builds the three clients. When the file does not exist and
 * `--bootstrap-clusterconfig` is given, fails: client-certificate bootstrapping is not built.
 * @throws ClusterModeError `BootstrapNotSupported` or `ClusterConfig` (missing/malformed file).
 * @example
 * const { client, eventClient } = await connectCluster(options);
 */
export async function connectCluster(o: Pick<NodeAgentOptions, "flags" | "config">): Promise<ClusterClients> {
  const path = o.flags.clusterconfig;
  const bootstrap = o.flags.bootstrapClusterconfig;
  if (bootstrap !== "" && !(await access(path).then(() => true, () => false))) {
    throw new ClusterModeError(
      "BootstrapNotSupported",
      `--clusterconfig file ${path} does not exist and client certificate bootstrapping (--bootstrap-clusterconfig=${bootstrap}) is not built into this node agent; write a cluster config with a client credential to ${path}`,
    );
  }
  let config;
  try {
    config = await loadClusterConfig(path);
  } catch (err) {
    if (isClusterConfigError(err)) throw new ClusterModeError("ClusterConfig", `invalid --clusterconfig ${path}: ${err.message}`, { cause: err });
    throw err;
  }
  const userAgent = `nodeagent/${nodeAgentVersion.gitVersion}`;
  return {
    client: createClient(config, { qps: o.config.clusterAPIQPS, burst: o.config.clusterAPIBurst, userAgent }),
    eventClient: createClient(config, { qps: o.config.eventRecordQPS, burst: o.config.eventBurst, userAgent }),
    heartbeatClient: createClient(config, { qps: -1, userAgent, timeoutMs: heartbeatTimeoutMs(o.config) }),
    server: config.server,
  };
}

/**
 * The heartbeat client's request timeout in milliseconds: `nodeStatusUpdateFrequency`, or
 * `nodeLeaseDurationSeconds` when shorter, so a hung status update or Lease renewal gives way to
 * the next one.
 * @see cmd/kubelet/app/server.go (heartbeatClientConfig.Timeout) in kubernetes/kubernetes v1.23
 */
export function heartbeatTimeoutMs(c: Pick<NodeAgentOptions["config"], "nodeStatusUpdateFrequency" | "nodeLeaseDurationSeconds">): number {
  return Math.min(c.nodeStatusUpdateFrequency.ms, c.nodeLeaseDurationSeconds * 1000);
}

function defaultNodeIP(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return "127.0.0.1";
}

async function readTrimmed(path: string): Promise<string> {
  return (await readFile(path, "utf8").catch(() => "")).trim();
}

/** nodeInfo from the host (machine-id, boot_id, product_uuid, os-release, kernel release); never throws. */
async function readNodeInfo(): Promise<NodeSystemInfo> {
  const osRelease = await readTrimmed("/etc/os-release");
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(osRelease)?.[1] ?? "Unknown";
  return {
    machineID: await readTrimmed("/etc/machine-id"),
    systemUUID: await readTrimmed("/sys/class/dmi/id/product_uuid"),
    bootID: await readTrimmed("/proc/sys/kernel/random/boot_id"),
    kernelVersion: release(),
    osImage: pretty,
    containerRuntimeVersion: "",
    kubeletVersion: nodeAgentVersion.gitVersion,
    kubeProxyVersion: nodeAgentVersion.gitVersion,
    operatingSystem: process.platform,
    architecture: goArch(process.arch),
  };
}

/** What {@link ClusterMode} needs. */
export interface ClusterModeParams {
  readonly options: NodeAgentOptions;
  readonly nodeName: string;
  readonly runtime: PodRuntime;
  readonly clients: ClusterClients;
  readonly log: ClusterLog;
  /** The eviction manager's node conditions; none reported when absent. */
  readonly pressure?: () => NodePressure;
  /** The device manager's `GetCapacity` for node status (gate DevicePlugins); absent: none. */
  readonly devicePluginResources?: () => { capacity: Record<string, number>; allocatable: Record<string, number>; removed: readonly string[] };
  /**
   * Called once, by the constructor, with the Node event recorder (the eviction manager's and
   * image GC's Node events): they start before {@link ClusterMode.start}, as the kubelet's
   * recorder exists before its StartGarbageCollection.
   */
  readonly onNodeEventRecorder?: (record: (type: "Normal" | "Warning", reason: string, message: string) => void) => void;
}

/** How long {@link ClusterMode.start} waits for the node informer's first list before starting the pod source (ms). */
const nodeSyncWaitMs = 10_000;

/**
 * The Node the agent registers, built from its flags and config (1.23's `initialNode`): name,
 * the hostname/OS/architecture labels and `--node-labels`, `registerWithTaints`, unschedulable
 * unless `--register-schedulable`, provider ID, pod CIDR and the annotations. Without an API
 * server (or before the node informer has the Node) it is also what admission checks pods against.
 * Pure.
 * @see pkg/kubelet/kubelet_node_status.go (initialNode) in kubernetes/kubernetes v1.23
 */
export function initialNodeFor(o: NodeAgentOptions, nodeName: string): Node {
  const c = o.config;
  const f = o.flags;
  return buildInitialNode({
    nodeName,
    hostname: nodeName,
    os: process.platform,
    arch: goArch(process.arch),
    nodeLabels: f.nodeLabels,
    taints: c.registerWithTaints,
    registerSchedulable: f.registerSchedulable,
    controllerAttachDetach: c.enableControllerAttachDetach,
    providerID: c.providerID,
    podCIDR: c.podCIDR,
    keepTerminatedPodVolumes: f.keepTerminatedPodVolumes,
    cloudProvider: f.cloudProvider,
  });
}

/**
 * API-server mode around a pod runtime. The constructor subscribes to the runtime (status
 * changes, stopped pods) so nothing is missed; {@link start} (after the servers listen, with the
 * main port) registers the Node, starts its status loop, its lease (the heartbeat), the `api`
 * pod source, pod status sync and mirror pods. {@link stop} stops every loop and closes the clients.
 */
export class ClusterMode {
  private readonly sync: PodStatusSync;
  private source: ApiPodSource | undefined;
  private statusManager: NodeStatusManager | undefined;
  private mirrors: MirrorPodManager | undefined;
  private lease: NodeLeaseController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;
  private readonly initialNode: Node;
  private readonly nodeInformer: Informer<Node>;

  constructor(private readonly p: ClusterModeParams) {
    this.initialNode = initialNodeFor(p.options, p.nodeName);
    this.nodeInformer = createInformer(p.clients.client.nodes, {
      fieldSelector: `metadata.name=${p.nodeName}`,
      onError: (err, context) => p.log(`node watch (${context}): ${err instanceof Error ? err.message : String(err)}`),
    });
    // Image GC's first collection runs at start, before start(): without the recorder by then
    // its FreeDiskSpaceFailed only reached the log.
    const record = createEventRecorder(p.clients.eventClient, p.nodeName, p.log);
    const nodeRef = nodeReference(p.nodeName);
    p.onNodeEventRecorder?.((type, reason, message) => record(nodeRef, type, reason, message));
    this.sync = new PodStatusSync({
      client: p.clients.client,
      log: p.log,
      mirrorPods: () => this.source?.mirrorPods() ?? [],
      cachedPod: (namespace, name) => this.source?.informer.store.get(`${namespace}/${name}`),
    });
    this.unsubscribe = p.runtime.onStatusChange((pod, status) => {
      this.sync.onStatus(pod, status);
      if (isStaticPod(pod)) void this.mirrors?.reconcile();
    });
  }

  /**
   * Registers the Node (retrying until it exists or `signal` aborts) and starts the loops.
   * @throws Error with code `Aborted` when `signal` aborts during registration.
   */
  async start(port: number, signal?: AbortSignal): Promise<void> {
    const { options: o, nodeName, runtime, clients, log } = this.p;
    const c = o.config;
    const f = o.flags;
    const record = createEventRecorder(clients.eventClient, nodeName, log);
    const nodeRef = nodeReference(nodeName);
    record(nodeRef, "Normal", "Starting", "Starting nodeagent.");
    const machine = await readMachineResources(f.rootDir);
    const resources = computeNodeResources(machine, {
      maxPods: c.maxPods,
      podsPerCore: c.podsPerCore,
      ...reservationsWithReservedCPUs(c.reservedSystemCPUs, c),
      evictionHard: c.evictionHard,
      ignoreEviction: f.experimentalAllocatableIgnoreEviction,
    });
    const initialNode = this.initialNode;
    for (const k of Object.keys(f.nodeLabels)) if (k in (initialNode.metadata?.labels ?? {}) && defaultNodeLabelKeys.includes(k)) log(`the node label ${k}=${f.nodeLabels[k] ?? ""} will overwrite default setting`);
    this.statusManager = new NodeStatusManager({
      client: clients.client,
      heartbeatClient: clients.heartbeatClient,
      initialNode,
      resources,
      ...(this.p.devicePluginResources ? { devicePluginResources: this.p.devicePluginResources } : {}),
      addresses: buildNodeAddresses(f.nodeIP, defaultNodeIP(), nodeName),
      nodeInfo: await readNodeInfo(),
      port,
      runtimeState: () => runtime.runtimeState(),
      listImages: async () => (await runtime.cri.images.listImages({})).images,
      maxImages: c.nodeStatusMaxImages,
      pressure: async () => this.p.pressure?.() ?? { memory: false, disk: false, pid: false },
      updateFrequencyMs: c.nodeStatusUpdateFrequency.ms,
      reportFrequencyMs: c.nodeStatusReportFrequency.ms,
      log,
      recordEvent: (type, reason, message) => record(nodeRef, type, reason, message),
    });
    const node = c.registerNode ? await this.statusManager.register(signal) : await clients.client.nodes.get(nodeName).catch(() => initialNode);
    // The Node's pod CIDRs (--pod-cidr at registration) reach the runtime's network configuration.
    await updateRuntimePodCIDR(runtime.cri.runtime, node, "", (m) => log(m));
    this.statusManager.start();
    // The node's heartbeat: kube-node-lease/<nodeName>, renewed every nodeLeaseDurationSeconds/4.
    this.lease = new NodeLeaseController({
      leases: clients.heartbeatClient.resource<Lease>("leases.coordination.k8s.io"),
      nodes: clients.heartbeatClient.nodes,
      nodeName,
      leaseDurationSeconds: c.nodeLeaseDurationSeconds,
      log,
    });
    this.lease.start();
    this.mirrors = new MirrorPodManager({
      client: clients.client,
      node: { name: nodeName, uid: node.metadata?.uid ?? "" },
      staticPods: () => runtime.listStaticPods(),
      mirrorPods: () => this.source?.mirrorPods() ?? [],
      log,
    });
    // The node informer (1.23's nodeLister): admission's node checks read the Node from it. Synced
    // before the first API pod arrives, so a pod placed by a label added after registration is
    // not checked against the node built from the flags; but a Node the agent may not list (RBAC)
    // must not keep it from running pods, so it waits for the first list at most nodeSyncWaitMs.
    this.nodeInformer.start();
    const timeout = AbortSignal.timeout(nodeSyncWaitMs);
    if (!(await this.nodeInformer.waitForSync(signal ? AbortSignal.any([signal, timeout]) : timeout)) && !signal?.aborted) {
      log(`the node informer has not listed Node ${nodeName} after ${nodeSyncWaitMs / 1000}s; admitting pods against the Node built from the flags until it does`);
    }
    this.source = new ApiPodSource({
      client: clients.client,
      nodeName,
      runtime,
      log,
      // A mirror pod's change (a user deleted it, say) is reconciled at once; the static pods'
      // own changes reach the mirror pods through onStatusChange, and every pass is periodic too.
      onChange: (mirrorPodChanged) => {
        if (mirrorPodChanged) void this.mirrors?.reconcile();
        this.resyncStatuses();
      },
    });
    await this.source.start(signal);
    const periodMs = Math.max(500, Math.min(c.nodeStatusUpdateFrequency.ms, 10_000));
    this.timer = setInterval(() => {
      void this.mirrors?.reconcile();
      this.resyncStatuses();
    }, periodMs);
    this.timer.unref();
  }

  /**
   * The Node as last seen (1.23's `getNodeAnyWay`): the node informer's object once it has one,
   * else the node built from the flags ({@link initialNodeFor}).
   */
  node(): Node {
    return this.nodeInformer.store.get(this.p.nodeName) ?? this.initialNode;
  }

  private resyncStatuses(): void {
    this.sync.resync(new Set(this.p.runtime.podUIDs()));
  }

  /** Stops the loops and closes the clients (open watches end). Idempotent. */
  stop(): void {
    this.unsubscribe();
    clearInterval(this.timer);
    this.statusManager?.stop();
    void this.lease?.stop();
    this.source?.stop();
    this.nodeInformer.stop();
    this.sync.stop();
    this.p.clients.client.close();
    this.p.clients.eventClient.close();
    this.p.clients.heartbeatClient.close();
  }
}
