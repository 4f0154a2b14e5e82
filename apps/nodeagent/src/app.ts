/**
 * The node agent's composition: options → logging → lock file → pod runtime → servers → wait
 * for SIGINT/SIGTERM or lock contention → stop. `main.ts` only calls {@link runNodeAgent}.
 *
 * @see cmd/kubelet/app/server.go (`Run`, `run`, `RunKubelet`, `startKubelet`) in kubernetes/kubernetes v1.23
 */
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { networkInterfaces, hostname as osHostname } from "node:os";
import { join } from "node:path";
import { formatQuantity, mustParseQuantity, newQuantity, parseQuantity, quantityMilliValue, quantityToNumber, quantityValue } from "@skiff/flags";
import type { PodResourcesServer } from "./podresources/index.js";
import { DeviceManager } from "./cm/devicemanager/index.js";
import { podResourcesProviders, podResourcesSocketPath, startPodResourcesServer } from "./podresources/index.js";
import type { ClusterClients } from "./cluster/index.js";
import { ClusterMode, computeNodeResources, connectCluster, createAccessReviewer, createEventRecorder, createTokenReviewer, initialNodeFor, readMachineResources } from "./cluster/index.js";
import { applyOOMScoreAdj, checkSwap, ContainerManager, parseCPUSet, reservationsWithReservedCPUs, setMaxOpenFiles, setupKernelTunables, unsupportedSettings } from "./cm/index.js";
import { CredentialProviderError, createNodeKeyring, registerCredentialProviderPlugins, type DockerKeyring } from "./credentialprovider/index.js";
import type { CsiSupport } from "./csi/index.js";
import { createCsiSupport, migratedInTreePlugins } from "./csi/index.js";
import type { HeldLock } from "./lock-file.js";
import { acquireLockFile } from "./lock-file.js";
import type { Logger } from "./logging.js";
import { createLogger } from "./logging.js";
import type { NodeAgentConfiguration, NodeAgentOptions, TextSink } from "./options/index.js";
import { loadNodeAgentOptions, nodeAgentVersion } from "./options/index.js";
import type { PodRuntime, PodRuntimeOptions } from "./pods/index.js";
import { createPodObjectManagers, createPodRuntime, isChangeDetectionStrategy } from "./pods/index.js";
import type { PodEventRecorder } from "./pods/index.js";
import { kubernetesServiceAddressFor, type KubernetesServiceAddress } from "./pods/service-env.js";
import type { RunningServers, ServerOptions, TLSVersionName } from "./server/index.js";
import { startServers } from "./server/index.js";
import { AgentStats } from "./stats/agent-stats.js";
import { EvictionManager, parseThresholdConfig } from "./eviction/index.js";
import { ImageGCManager } from "./images/index.js";
import { hugePageSizes, readMachineHugePages } from "./cm/hugepages.js";
import { effectiveHairpinMode, execIPTables, initNetworkUtil, networkUtilUnavailable } from "./cm/network-util.js";

/** Where {@link runNodeAgent} writes and how it is told to stop. */
export interface AppIO {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Stops the agent when aborted (tests). Without it the agent stops on SIGINT or SIGTERM.
   */
  readonly stopSignal?: AbortSignal;
  /** The OS host name (tests). @defaultValue os.hostname() */
  readonly hostname?: () => string;
  /** The process's user id (tests); not 0 logs `"nodeagent running with insufficient permissions"`. @defaultValue process.getuid() */
  readonly getuid?: () => number;
  /** Called once the agent runs (servers listening), with their bound addresses (tests, benchmarks). */
  readonly onReady?: (servers: RunningServers | undefined) => void;
  /**
   * Host paths the container manager reads and writes (tests point them at fakes). With `proc`
   * set, `--max-open-files` is not applied to this process (it is a test's process).
   * @defaultValue `/proc`, `/proc/sys`, `/proc/swaps`, `/sys/fs/cgroup`
   */
  readonly hostPaths?: HostPaths;
  /**
   * The clock of the service-account token manager (projected token volumes, CSI `tokenRequests`),
   * ms since the epoch: tests move it forward to reach a token's refresh at 80 % of its lifetime
   * without waiting (the apiserver's minimum lifetime is 10 minutes). @defaultValue Date.now
   */
  readonly now?: () => number;
}

/** Host paths of {@link AppIO.hostPaths}. */
export interface HostPaths {
  /** The pid `--agent-cgroups` moves (tests, with a fake `proc`). @defaultValue process.pid */
  readonly agentPid?: number;
  readonly proc?: string;
  readonly procSys?: string;
  readonly swaps?: string;
  readonly cgroupFs?: string;
  /** sysfs, where the CPU manager reads the CPU topology. @defaultValue `/sys` */
  readonly sysfs?: string;
  /** The cgroup `--system-cgroups` takes processes from (tests: a private subtree). @defaultValue `/`, the root cgroup */
  readonly systemCgroupsSource?: string;
}

/**
 * The node-level set-up the kubelet does before running pods: refuses settings the node agent
 * cannot honour (`--runtime-cgroups`, `--memory-manager-policy=Static`...), fails with swap on
 * (`--fail-swap-on`), applies `--oom-score-adj` and `--max-open-files` to this process (failures
 * logged, as 1.23), checks or sets the kernel tunables (`--protect-kernel-defaults`), and starts
 * the container manager (kubepods, QoS and pod cgroups, node allocatable enforcement, the CPU
 * manager with its `cpu_manager_state` under `--root-dir`, the topology manager).
 * @throws Error with the kubelet's message when start-up must fail.
 * @see cmd/kubelet/app/server.go (run), pkg/kubelet/cm/container_manager_linux.go in kubernetes/kubernetes v1.23
 */
export async function setUpNode(o: NodeAgentOptions, log: Logger, paths: HostPaths = {}): Promise<ContainerManager> {
  const c = o.config;
  const refused = unsupportedSettings({ ...c, runtimeCgroups: o.flags.runtimeCgroups });
  if (refused.length > 0) throw new Error(refused.join("; "));
  await checkSwap(c.failSwapOn, paths.swaps, (m) => log.info(m));
  const oom = await applyOOMScoreAdj(c.oomScoreAdj, paths.proc);
  if (oom !== undefined) log.info("Failed to ApplyOOMScoreAdj", { err: oom });
  if (paths.proc === undefined) {
    const nofile = await setMaxOpenFiles(c.maxOpenFiles);
    if (nofile !== undefined) log.error("Failed to set rlimit on max file handles", { err: nofile });
  }
  const machine = await readMachineResources(o.flags.rootDir, paths.sysfs);
  const pidMax = await readFile(join(paths.procSys ?? "/proc/sys", "kernel", "pid_max"), "utf8").then((t) => BigInt(t.trim()), () => 0n);
  await setupKernelTunables(c.protectKernelDefaults, paths.procSys, (m) => log.info(m));
  if (c.reservedSystemCPUs !== "") log.info("Option --reserved-cpus is specified, it will overwrite the cpu setting in KubeReserved and SystemReserved", { kubeReservedCPUs: c.clusterReserved.cpu ?? "", systemReservedCPUs: c.systemReserved.cpu ?? "" });
  const reserved = reservationsWithReservedCPUs(c.reservedSystemCPUs, c);
  const reservedMilliCPU = [reserved.systemReserved.cpu, reserved.clusterReserved.cpu].reduce((sum, v) => {
    const q = parseQuantity(v ?? "0");
    return sum + (q.ok ? quantityMilliValue(q.value) : 0n);
  }, 0n);
  return ContainerManager.start({
    cgroupsPerQOS: c.cgroupsPerQOS,
    cgroupRoot: c.cgroupRoot,
    cgroupDriver: c.cgroupDriver,
    cpuCFSQuota: c.cpuCFSQuota,
    cpuCFSQuotaPeriodUs: c.cpuCFSQuotaPeriod.nanoseconds / 1000n,
    customCPUCFSQuotaPeriod: o.featureGates.enabled("CustomCPUCFSQuotaPeriod"),
    podPidsLimit: c.podPidsLimit,
    enforceNodeAllocatable: c.enforceNodeAllocatable,
    ...reserved,
    systemReservedCgroup: c.systemReservedCgroup,
    clusterReservedCgroup: c.clusterReservedCgroup,
    qosReserved: c.qosReserved,
    qosReservedEnabled: o.featureGates.enabled("QOSReserved"),
    capacity: { cpuMilli: BigInt(machine.cpuCores) * 1000n, memoryBytes: BigInt(machine.memoryBytes), pids: pidMax, hugePages: new Map(Object.entries(machine.hugePages ?? {}).map(([k, v]) => [k, BigInt(v)])) },
    hugePageSizes: hugePageSizes(readMachineHugePages(paths.sysfs)),
    ...(paths.cgroupFs !== undefined ? { cgroupFsRoot: paths.cgroupFs } : {}),
    log: (m, level = 0) => (level === 0 ? log.info(m) : log.v(level).info(m)),
    cpuManager: {
      policy: c.cpuManagerPolicy,
      policyOptions: c.cpuManagerPolicyOptions,
      alphaOptions: o.featureGates.enabled("CPUManagerPolicyAlphaOptions"),
      betaOptions: o.featureGates.enabled("CPUManagerPolicyBetaOptions"),
      reservedCPUs: parseCPUSet(c.reservedSystemCPUs),
      reservedMilliCPU,
      stateDir: o.flags.rootDir,
      ...(paths.sysfs !== undefined ? { sysfsRoot: paths.sysfs } : {}),
    },
    // 1.23 builds the memory manager only with its gate (beta, on by default).
    ...(o.featureGates.enabled("MemoryManager")
      ? {
          memoryManager: {
            policy: c.memoryManagerPolicy,
            reservedMemory: c.reservedMemory,
            nodeAllocatableReservation: memoryAllocatableReservation(c, machine.memoryBytes, o.flags.experimentalAllocatableIgnoreEviction),
            stateDir: o.flags.rootDir,
            machineMemoryBytes: machine.memoryBytes,
            ...(paths.sysfs !== undefined ? { sysfsRoot: paths.sysfs } : {}),
          },
        }
      : {}),
    topologyManager: { policy: c.topologyManagerPolicy, scope: c.topologyManagerScope },
    systemContainers: {
      agentCgroups: c.agentCgroups,
      runtimeCgroups: o.flags.runtimeCgroups,
      systemCgroups: c.systemCgroups,
      runtimeEndpoint: o.flags.containerRuntimeEndpoint !== "" ? o.flags.containerRuntimeEndpoint : defaultContainerRuntimeEndpoint,
      oomScoreAdj: c.oomScoreAdj,
      ...(paths.agentPid !== undefined ? { agentPid: paths.agentPid } : {}),
      ...(paths.proc !== undefined ? { proc: paths.proc } : {}),
      ...(paths.systemCgroupsSource !== undefined ? { systemSource: paths.systemCgroupsSource } : {}),
    },
  });
}

/**
 * The node allocatable reservation of the memory types, as the quantities that add up to it in
 * 1.23's order: `--system-reserved`, `--cluster-reserved` (the kubelet's kube-reserved), then the
 * hard eviction threshold `memory.available` (a percentage of the machine's memory; none with
 * `--experimental-allocatable-ignore-eviction`). What `--reserved-memory` must add up to.
 * @see pkg/kubelet/cm/node_container_manager_linux.go (GetNodeAllocatableReservation, hardEvictionReservation) in kubernetes/kubernetes v1.23
 */
export function memoryAllocatableReservation(
  c: Pick<NodeAgentOptions["config"], "systemReserved" | "clusterReserved" | "evictionHard">,
  machineMemoryBytes: number,
  ignoreEviction: boolean,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (name: string, v: string) => (out[name] ??= []).push(v);
  for (const list of [c.systemReserved, c.clusterReserved]) {
    for (const [name, v] of Object.entries(list)) if (name === "memory" || name.startsWith("hugepages-")) add(name, v);
  }
  const hard = c.evictionHard["memory.available"];
  if (!ignoreEviction && hard !== undefined) {
    if (hard.endsWith("%")) add("memory", formatQuantity(newQuantity(BigInt(Math.floor(machineMemoryBytes * (Number(hard.slice(0, -1)) / 100))), "BinarySI")));
    else add("memory", hard);
  }
  return out;
}

/**
 * The memory the node allows its pods, in bytes: capacity − `--system-reserved` − `--kube-reserved`
 * (1.23's `GetNodeAllocatableAbsolute`, the pods cgroup's limit; eviction thresholds not taken
 * off). The stats summary's `pods` system container reports it, less the pods' working set, as
 * the `allocatableMemory.available` signal.
 * @see pkg/kubelet/cm/node_container_manager_linux.go (GetNodeAllocatableAbsolute) in kubernetes/kubernetes v1.23
 */
async function podsAllocatableMemoryBytes(o: NodeAgentOptions): Promise<number> {
  const c = o.config;
  const machine = await readMachineResources(o.flags.rootDir);
  const { allocatable } = computeNodeResources(machine, { maxPods: c.maxPods, podsPerCore: c.podsPerCore, ...reservationsWithReservedCPUs(c.reservedSystemCPUs, c), evictionHard: {}, ignoreEviction: true });
  const q = parseQuantity(allocatable.memory ?? "0");
  return q.ok ? Number(quantityValue(q.value)) : 0;
}

/**
 * The resource side of the pod runtime's options: container resources for CRI (CFS quota and
 * period, the node's memory capacity), the node's allocatable for admission (`--max-pods`,
 * `--pods-per-core`, reservations with `--reserved-cpus` replacing their cpu, and hard eviction
 * thresholds, as node status reports it), the pod cgroups of `containerManager`, and its topology
 * manager / CPU manager as the resource managers (reconciled every `--cpu-manager-reconcile-period`,
 * or `--node-status-update-frequency` when that is 0, as 1.23).
 */
export async function podResourceOptionsFrom(o: NodeAgentOptions, containerManager: ContainerManager | undefined, sysfs?: string): Promise<Pick<PodRuntimeOptions, "containerResources" | "nodeAllocatable" | "podCgroups" | "resourceManagers" | "resourceManagerReconcilePeriodMs">> {
  const c = o.config;
  const machine = await readMachineResources(o.flags.rootDir, sysfs);
  const { allocatable } = computeNodeResources(machine, {
    maxPods: c.maxPods,
    podsPerCore: c.podsPerCore,
    ...reservationsWithReservedCPUs(c.reservedSystemCPUs, c),
    evictionHard: c.evictionHard,
    ignoreEviction: o.flags.experimentalAllocatableIgnoreEviction,
  });
  const milli = (v: string | undefined) => {
    const q = parseQuantity(v ?? "0");
    return q.ok ? quantityMilliValue(q.value) : 0n;
  };
  return {
    containerResources: {
      memoryCapacityBytes: BigInt(machine.memoryBytes),
      cpuCFSQuota: c.cpuCFSQuota,
      cpuCFSQuotaPeriodUs: c.cpuCFSQuotaPeriod.nanoseconds / 1000n,
      customCPUCFSQuotaPeriod: o.featureGates.enabled("CustomCPUCFSQuotaPeriod"),
      hugePageSizes: hugePageSizes(readMachineHugePages(sysfs)),
      nodeSwap: o.featureGates.enabled("NodeSwap"),
    },
    nodeAllocatable: {
      cpuMilli: milli(allocatable.cpu),
      memoryBytes: milli(allocatable.memory) / 1000n,
      pods: Number(milli(allocatable.pods) / 1000n),
      ...(allocatable["ephemeral-storage"] !== undefined ? { ephemeralStorageBytes: milli(allocatable["ephemeral-storage"]) / 1000n } : {}),
      hugePages: new Map(Object.entries(allocatable).filter(([k]) => k.startsWith("hugepages-")).map(([k, v]) => [k, milli(v) / 1000n])),
    },
    ...(containerManager && containerManager.cgroupVersion !== "none" ? { podCgroups: containerManager } : {}),
    ...(containerManager?.topologyManager && (containerManager.topologyManager.policy !== "none" || containerManager.topologyManager.cpuManager.policy !== "none" || containerManager.memoryManager?.policy === "Static")
      ? { resourceManagers: containerManager.topologyManager, resourceManagerReconcilePeriodMs: c.cpuManagerReconcilePeriod.ms > 0 ? c.cpuManagerReconcilePeriod.ms : c.nodeStatusUpdateFrequency.ms }
      : {}),
  };
}

/** `--container-runtime-endpoint` when none is given: containerd's default socket. */
export const defaultContainerRuntimeEndpoint = "unix:///run/containerd/containerd.sock";

/**
 * The node name: `--hostname-override` or the OS host name, trimmed and lower-cased.
 * @throws Error `empty hostname is invalid` when that is empty.
 */
export function resolveNodeName(override: string, hostname: () => string): string {
  const name = (override !== "" ? override : hostname()).trim().toLowerCase();
  if (name === "") throw new Error("empty hostname is invalid");
  return name;
}

/** The directories the agent creates under `--root-dir` at start-up (mode 0750), the kubelet's `setupDataDirs`. */
export const rootDirLayout: readonly string[] = Object.freeze(["pods", "plugins", "plugins_registry", "pod-resources"]);

/**
 * Creates `--root-dir` and {@link rootDirLayout} under it (0750; existing directories are left as
 * they are).
 * @throws Error (Node's fs error) when a directory cannot be created.
 * @see pkg/kubelet/kubelet.go (setupDataDirs) in kubernetes/kubernetes v1.23
 */
export function setupDataDirs(rootDir: string): void {
  mkdirSync(rootDir, { recursive: true, mode: 0o750 });
  for (const dir of rootDirLayout) mkdirSync(join(rootDir, dir), { recursive: true, mode: 0o750 });
}

/** The usable addresses of `--node-ip` and the entries that did not parse. */
export interface ParsedNodeIPs {
  /** One address, or a dual-stack pair (one IPv4, one IPv6), in the given order. */
  readonly ips: readonly string[];
  /** Entries that are not IP addresses: logged `"Could not parse --node-ip ignoring"` and dropped. */
  readonly ignored: readonly string[];
}

function ipFamily(ip: string): 4 | 6 {
  return isIP(ip) === 4 || /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip) ? 4 : 6;
}

/**
 * Parses `--node-ip` as the kubelet's `RunKubelet` does: comma-separated, blanks trimmed,
 * unparsable entries ignored (reported to `onIgnored` first); the rest must be one address or a
 * dual-stack pair.
 * @throws Error `bad --node-ip "<v>"; must contain either a single IP or a dual-stack pair of IPs`
 *   (three or more, or two of one family), `dual-stack --node-ip "<v>" not supported when using a
 *   cloud provider`, `dual-stack --node-ip "<v>" cannot include '0.0.0.0' or '::'`.
 * @see cmd/kubelet/app/server.go (`RunKubelet`) in kubernetes/kubernetes v1.23
 */
export function parseNodeIPs(nodeIP: string, cloudProvider: string, onIgnored?: (entry: string) => void): ParsedNodeIPs {
  const ips: string[] = [];
  const ignored: string[] = [];
  if (nodeIP !== "") {
    for (const entry of nodeIP.split(",")) {
      const ip = entry.trim();
      if (isIP(ip) !== 0) ips.push(ip);
      else {
        ignored.push(entry);
        onIgnored?.(entry);
      }
    }
  }
  const quoted = JSON.stringify(nodeIP);
  if (ips.length > 2 || (ips.length === 2 && ipFamily(ips[0] ?? "") === ipFamily(ips[1] ?? ""))) {
    throw new Error(`bad --node-ip ${quoted}; must contain either a single IP or a dual-stack pair of IPs`);
  }
  if (ips.length === 2 && cloudProvider !== "") throw new Error(`dual-stack --node-ip ${quoted} not supported when using a cloud provider`);
  if (ips.length === 2 && ips.some((ip) => /^(0\.0\.0\.0|::|::0|0:0:0:0:0:0:0:0)$/.test(ip))) throw new Error(`dual-stack --node-ip ${quoted} cannot include '0.0.0.0' or '::'`);
  return { ips, ignored };
}

/**
 * The node's image pull keyring from the options, as 1.23's `NewKubeGenericRuntimeManager`: the
 * node's docker config files, plus the exec plugins of `--image-credential-provider-config` /
 * `--image-credential-provider-bin-dir` when gate `NodeAgentCredentialProviders` is on (with the
 * gate off the flags are logged as ignored, as upstream). `--vendor-container-registry-config`
 * reaches here only with gate `DisableNodeAgentCloudCredentialProviders` on (validation refuses it
 * otherwise) and is logged as disabled.
 * @throws CredentialProviderError when the plugins cannot be registered (the agent exits 1 with
 *   `Failed to register CRI auth plugins`, as the kubelet).
 * @see pkg/kubelet/kuberuntime/kuberuntime_manager.go (NewKubeGenericRuntimeManager) in kubernetes/kubernetes v1.23
 */
export async function nodeKeyringFrom(o: NodeAgentOptions, log: Logger): Promise<DockerKeyring> {
  const f = o.flags;
  if (f.vendorContainerRegistryConfig !== "") {
    log.info("Cloud vendor credential provider is now disabled. Please refer to sig-cloud-provider for guidance on external credential provider integration", { path: f.vendorContainerRegistryConfig });
  }
  const wanted = f.imageCredentialProviderConfig !== "" || f.imageCredentialProviderBinDir !== "";
  const gate = o.featureGates.enabled("NodeAgentCredentialProviders");
  if (wanted && !gate) {
    log.info("Flags --image-credential-provider-config or --image-credential-provider-bin-dir were set but the feature gate was disabled, these flags will be ignored", {
      featureGate: "NodeAgentCredentialProviders",
    });
  }
  const pluginLog = (line: string, level = 0) => (level === 0 ? log.info(line) : log.v(level).info(line));
  const plugins = wanted && gate ? await registerCredentialProviderPlugins(f.imageCredentialProviderConfig, f.imageCredentialProviderBinDir, pluginLog) : [];
  return createNodeKeyring(f.rootDir, plugins, (line) => log.v(4).info(line));
}

/**
 * Where the agent's pods reach the API server at `server` (its `--clusterconfig` server URL), given
 * to them as the `kubernetes` service's variables: that host and port, a loopback host replaced by
 * the node's address (the first `--node-ip` unless it is loopback, else the machine's first
 * non-internal IPv4), which a pod in its own network namespace can reach.
 * @throws TypeError when `server` is not a URL.
 * @see pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap) in kubernetes/kubernetes v1.23
 */
export function kubernetesServiceOf(o: NodeAgentOptions, server: string): KubernetesServiceAddress {
  const nodeIP = parseNodeIPs(o.flags.nodeIP, "").ips.find((ip) => !ip.startsWith("127.") && ip !== "::1");
  const primary = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;
  return kubernetesServiceAddressFor(server, nodeIP ?? primary ?? "127.0.0.1");
}

/** Maps the options onto the pod runtime's options. */
export function podRuntimeOptionsFrom(o: NodeAgentOptions, nodeName: string, log: Logger): PodRuntimeOptions {
  const nodeIPs = parseNodeIPs(o.flags.nodeIP, "").ips;
  const c = o.config;
  const f = o.flags;
  return {
    nodeName,
    rootDir: f.rootDir,
    containerRuntimeEndpoint: f.containerRuntimeEndpoint !== "" ? f.containerRuntimeEndpoint : defaultContainerRuntimeEndpoint,
    ...(f.imageServiceEndpoint !== "" ? { imageServiceEndpoint: f.imageServiceEndpoint } : {}),
    runtimeRequestTimeoutMs: c.runtimeRequestTimeout.ms,
    syncFrequencyMs: c.syncFrequency.ms,
    staticPodPath: c.staticPodPath,
    podLogsDir: c.podLogsDir,
    fileCheckFrequencyMs: c.fileCheckFrequency.ms,
    staticPodURL: c.staticPodURL,
    staticPodURLHeader: c.staticPodURLHeader,
    httpCheckFrequencyMs: c.httpCheckFrequency.ms,
    serializeImagePulls: c.serializeImagePulls,
    registryPullQPS: c.registryPullQPS,
    registryBurst: c.registryBurst,
    containerLogMaxSizeBytes: quantityToNumber(mustParseQuantity(c.containerLogMaxSize)),
    containerLogMaxFiles: c.containerLogMaxFiles,
    maxPods: c.maxPods,
    podInfraImage: f.podInfraContainerImage,
    mounterPath: f.experimentalMounterPath,
    keepTerminatedPodVolumes: f.keepTerminatedPodVolumes,
    ...(nodeIPs[0] !== undefined ? { hostIP: nodeIPs[0] } : {}),
    featureGates: {
      GRPCContainerProbe: o.featureGates.enabled("GRPCContainerProbe"),
      ProbeTerminationGracePeriod: o.featureGates.enabled("ProbeTerminationGracePeriod"),
      ExpandedDNSConfig: o.featureGates.enabled("ExpandedDNSConfig"),
      AppArmor: o.featureGates.enabled("AppArmor"),
      ProcMountType: o.featureGates.enabled("ProcMountType"),
      SizeMemoryBackedVolumes: o.featureGates.enabled("SizeMemoryBackedVolumes"),
    },
    clusterDNS: c.clusterDNS,
    clusterDomain: c.clusterDomain,
    resolvConf: c.resolvConf,
    allowedUnsafeSysctls: c.allowedUnsafeSysctls,
    seccompDefault: f.seccompDefault,
    log: (message, level = 0) => (level === 0 ? log.info(message) : log.v(level).info(message)),
  };
}

/**
 * The configuration fields the kubelet's v1beta1 `KubeletConfiguration` tags `omitempty` on a
 * non-pointer value (renamed as in `NodeAgentConfiguration`): `/configz` leaves them out when they
 * hold their zero value (`""`, `0`, `false`, `[]`, `{}`). Pointer fields (`enableServer`,
 * `healthzPort`, `failSwapOn`, ...) and durations are always written.
 */
export const configzOmitEmptyFields: readonly string[] = Object.freeze([
  "staticPodPath", "staticPodURL", "staticPodURLHeader", "address", "port", "readOnlyPort", "tlsCertFile", "tlsPrivateKeyFile",
  "tlsCipherSuites", "tlsMinVersion", "rotateCertificates", "serverTLSBootstrap", "authentication.x509.clientCAFile",
  "authorization.mode", "registryBurst", "eventBurst", "enableContentionProfiling", "healthzBindAddress", "clusterDomain",
  "clusterDNS", "nodeLeaseDurationSeconds", "agentCgroups", "systemCgroups", "cgroupRoot", "cgroupDriver", "cpuManagerPolicy",
  "cpuManagerPolicyOptions", "memoryManagerPolicy", "topologyManagerPolicy", "topologyManagerScope", "qosReserved", "hairpinMode",
  "maxPods", "podCIDR", "runOnce", "maxOpenFiles", "contentType", "clusterAPIBurst", "evictionHard", "evictionSoft",
  "evictionSoftGracePeriod", "evictionMaxPodGracePeriod", "evictionMinimumReclaim", "podsPerCore", "protectKernelDefaults",
  "featureGates", "containerLogMaxSize", "configMapAndSecretChangeDetectionStrategy", "systemReserved", "clusterReserved",
  "reservedSystemCPUs", "showHiddenMetricsForVersion", "systemReservedCgroup", "clusterReservedCgroup", "enforceNodeAllocatable",
  "allowedUnsafeSysctls", "volumePluginDir", "providerID", "kernelMemcgNotification", "reservedMemory", "registerWithTaints",
  "logging.format", "logging.vmodule", "podLogsDir",
]);

function isGoZero(v: unknown): boolean {
  if (v === "" || v === 0 || v === false || v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v).length === 0;
}

/**
 * The `/configz` body under `nodeagentconfig` (the kubelet's `kubeletconfig`): the configuration as
 * the v1beta1 JSON encoding writes it: no `kind`/`apiVersion`, durations as Go text (`"1m0s"`),
 * `logging.flushFrequency` as integer nanoseconds (a `time.Duration`), `omitempty` fields with a zero
 * value left out ({@link configzOmitEmptyFields}: `readOnlyPort` 0, empty maps...). Does not mutate `c`.
 *
 * @see cmd/kubelet/app/server.go (`initConfigz`), staging/src/k8s.io/kubelet/config/v1beta1/types.go in kubernetes/kubernetes v1.23
 */
export function configzOf(c: NodeAgentConfiguration): unknown {
  const json = JSON.parse(JSON.stringify(c)) as Record<string, unknown> & { logging: Record<string, unknown> };
  json.logging.vmodule = c.logging.vmodule.map((m) => ({ filePattern: m.pattern, verbosity: m.level }));
  json.logging.flushFrequency = c.logging.flushFrequency.ms * 1_000_000;
  for (const path of configzOmitEmptyFields) {
    const parts = path.split(".");
    const last = parts.pop() ?? "";
    let parent: unknown = json;
    for (const part of parts) parent = (parent as Record<string, unknown> | undefined)?.[part];
    if (typeof parent === "object" && parent !== null && Object.hasOwn(parent, last) && isGoZero((parent as Record<string, unknown>)[last])) {
      delete (parent as Record<string, unknown>)[last];
    }
  }
  return json;
}

/**
 * Maps the options onto the servers' options. In API-server mode (`clients` given) webhook
 * authentication and authorization post TokenReview / SubjectAccessReview through `clients.client`.
 * @throws Error when webhook authentication or authorization is asked for in standalone mode
 *   (no `clients`): `no client provided, cannot use webhook ...`, as the kubelet.
 */
export function serverOptionsFrom(o: NodeAgentOptions, nodeName: string, clients?: ClusterClients): ServerOptions {
  const c = o.config;
  if (c.authentication.webhook.enabled && !clients) throw new Error("no client provided, cannot use webhook authentication");
  if (c.authorization.mode === "Webhook" && !clients) throw new Error("no client provided, cannot use webhook authorization");
  return {
    address: c.address,
    port: c.port,
    readOnlyPort: c.readOnlyPort,
    healthzBindAddress: c.healthzBindAddress,
    healthzPort: c.healthzPort,
    enableServer: c.enableServer,
    enableDebuggingHandlers: c.enableDebuggingHandlers,
    enableSystemLogHandler: c.enableSystemLogHandler,
    enableProfilingHandler: c.enableProfilingHandler,
    enableDebugFlagsHandler: c.enableDebugFlagsHandler,
    certDir: o.flags.certDir,
    ...(c.tlsCertFile !== "" ? { tlsCertFile: c.tlsCertFile } : {}),
    ...(c.tlsPrivateKeyFile !== "" ? { tlsPrivateKeyFile: c.tlsPrivateKeyFile } : {}),
    ...(c.tlsMinVersion !== "" ? { tlsMinVersion: c.tlsMinVersion as TLSVersionName } : {}),
    ...(c.tlsCipherSuites.length > 0 ? { tlsCipherSuites: c.tlsCipherSuites } : {}),
    anonymousAuth: c.authentication.anonymous.enabled,
    ...(c.authentication.x509.clientCAFile !== "" ? { clientCAFile: c.authentication.x509.clientCAFile } : {}),
    ...(c.authentication.webhook.enabled && clients ? { tokenWebhook: { review: createTokenReviewer(clients.client), cacheTTLMs: c.authentication.webhook.cacheTTL.ms } } : {}),
    authorization:
      c.authorization.mode === "Webhook" && clients
        ? {
            mode: "Webhook",
            review: createAccessReviewer(clients.client),
            cacheAuthorizedTTLMs: c.authorization.webhook.cacheAuthorizedTTL.ms,
            cacheUnauthorizedTTLMs: c.authorization.webhook.cacheUnauthorizedTTL.ms,
          }
        : { mode: "AlwaysAllow" },
    configz: () => configzOf(c),
    logDir: "/var/log",
    hostname: nodeName,
    idleTimeoutMs: c.streamingConnectionIdleTimeout.ms,
  };
}

function waitForStop(stopSignal: AbortSignal | undefined, extra: Promise<string>): Promise<string> {
  return new Promise((resolve) => {
    const done = (why: string): void => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      stopSignal?.removeEventListener("abort", onAbort);
      resolve(why);
    };
    const onInt = (): void => done("SIGINT");
    const onTerm = (): void => done("SIGTERM");
    const onAbort = (): void => done("stop requested");
    if (stopSignal !== undefined) {
      if (stopSignal.aborted) return done("stop requested");
      stopSignal.addEventListener("abort", onAbort, { once: true });
    } else {
      process.once("SIGINT", onInt);
      process.once("SIGTERM", onTerm);
    }
    void extra.then(done);
  });
}

/**
 * Runs the node agent until stopped; resolves with the process exit code (0 after `--help`,
 * `--version`, a signal, lock contention or a successful `--runonce`; 1 on bad options or a
 * start-up failure, logged as `"Failed to run nodeagent"` with `err="failed to run Nodeagent: ..."`).
 *
 * @example
 * ```ts
 * process.exitCode = await runNodeAgent(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
 * ```
 */
export async function runNodeAgent(argv: readonly string[], io: AppIO): Promise<number> {
  const loaded = loadNodeAgentOptions(argv, io.env === undefined ? { stdout: io.stdout, stderr: io.stderr } : { env: io.env, stdout: io.stdout, stderr: io.stderr });
  if (!loaded.ok) return loaded.exitCode;
  const o = loaded.value;
  const f = o.flags;
  const root = createLogger(
    {
      verbosity: o.config.logging.verbosity,
      vmodule: o.config.logging.vmodule,
      format: o.config.logging.format,
      logtostderr: f.logtostderr,
      alsologtostderr: f.alsologtostderr,
      logFile: f.logFile,
      logDir: f.logDir,
      logFileMaxSizeMB: f.logFileMaxSize,
      stderrthreshold: f.stderrthreshold,
      skipHeaders: f.skipHeaders,
      skipLogHeaders: f.skipLogHeaders,
      jsonSplitStream: o.config.logging.options.json.splitStream,
    },
    { stdout: io.stdout, stderr: io.stderr },
  );
  const log = root.withName("app");
  const v1 = log.v(1);
  if (v1.enabled) for (const line of o.flagLog) v1.infoText(line);
  const uid = io.getuid ? io.getuid() : (process.getuid?.() ?? 0);
  if (uid !== 0) log.error("nodeagent running with insufficient permissions", { err: `nodeagent needs to run as uid \`0\`. It is being run as ${uid}` });
  log.info("Nodeagent version", { nodeagentVersion: nodeAgentVersion.gitVersion });
  const failed = (cause: unknown): number => {
    log.error("Failed to run nodeagent", { err: `failed to run Nodeagent: ${cause instanceof Error ? cause.message : String(cause)}` });
    return 1;
  };

  let lock: HeldLock | undefined;
  let runtime: PodRuntime | undefined;
  let servers: RunningServers | undefined;
  let podResources: PodResourcesServer | undefined;
  let deviceManager: DeviceManager | undefined;
  let cluster: ClusterMode | undefined;
  let csi: CsiSupport | undefined;
  let containerManager: ContainerManager | undefined;
  let stats: AgentStats | undefined;
  let eviction: EvictionManager | undefined;
  let imageGC: ImageGCManager | undefined;
  let stopNetworkUtil: (() => void) | undefined;
  let clients: ClusterClients | undefined;
  const clusterStop = new AbortController();
  let contended!: (why: string) => void;
  const contention = new Promise<string>((resolve) => (contended = resolve));
  try {
    if (f.lockFile !== "") {
      log.info("Acquiring file lock", { path: f.lockFile });
      lock = await acquireLockFile(f.lockFile, {
        ...(io.stopSignal !== undefined ? { signal: io.stopSignal } : {}),
        onWait: (pid) => log.info("Waiting for file lock held by another process", { path: f.lockFile, pid }),
      });
      log.info("Acquired file lock", { path: f.lockFile });
      if (f.exitOnLockContention) {
        log.info("Watching for lock file contention", { path: f.lockFile });
        lock.watchContention(() => contended("lock file contention"));
      }
    }
    const nodeName = resolveNodeName(f.hostnameOverride, io.hostname ?? osHostname);
    parseNodeIPs(f.nodeIP, f.cloudProvider, (entry) => log.info("Could not parse --node-ip ignoring", { IP: entry }));
    setupDataDirs(f.rootDir);
    // API-server mode: --clusterconfig (ignored by --runonce, as the kubelet's runonce mode).
    if (f.clusterconfig !== "" && !o.config.runOnce) clients = await connectCluster(o);
    else log.info("No api server defined - no events will be sent to API server");
    const serverOpts = o.config.runOnce ? undefined : serverOptionsFrom(o, nodeName, clients);
    // Pod events (probes, volumes, kills) go to the apiserver in API-server mode, to the log otherwise.
    const eventClient = clients?.eventClient;
    const onEvent: PodEventRecorder | undefined = eventClient
      ? createEventRecorder(eventClient, nodeName)
      : undefined;
    const podEvents = onEvent ? { onEvent } : {};
    containerManager = await setUpNode(o, root.withName("cm"), io.hostPaths);
    const resources = await podResourceOptionsFrom(o, containerManager, io.hostPaths?.sysfs);
    // ConfigMaps and Secrets of the pods (API-server mode), per configMapAndSecretChangeDetectionStrategy.
    const strategy = o.config.configMapAndSecretChangeDetectionStrategy;
    if (!isChangeDetectionStrategy(strategy)) throw new Error(`unknown configmap and secret manager mode: ${strategy}`);
    const objectsLog = root.withName("objects");
    const podObjects = clients
      ? {
          objects: createPodObjectManagers({
            client: clients.client,
            strategy,
            syncFrequencyMs: o.config.syncFrequency.ms,
            onError: (err, context) => objectsLog.v(2).info(`${context}: ${err instanceof Error ? err.message : String(err)}`),
            ...(io.now ? { now: io.now } : {}),
          }),
        }
      : {};
    if (clients) {
      // CSI in API-server mode: plugin registration, CSINode upkeep, inline CSI volumes (src/csi/),
      // service-account tokens for CSIDriver tokenRequests from the token manager of projected volumes.
      const cc = clients;
      const csiLog = root.withName("csi");
      const tokens = podObjects.objects?.serviceAccountTokens;
      csi = createCsiSupport({
        rootDir: f.rootDir,
        nodeName,
        client: cc.client,
        migratedPlugins: migratedInTreePlugins(o.featureGates),
        inlineVolumes: o.featureGates.enabled("CSIInlineVolume"),
        delegateFSGroupToCSIDriver: o.featureGates.enabled("DelegateFSGroupToCSIDriver"),
        log: (m) => csiLog.info(m),
        onEvent: createEventRecorder(cc.eventClient, nodeName),
        ...(tokens ? { getServiceAccountToken: tokens.get.bind(tokens) } : {}),
      });
    }
    const statsLog = root.withName("stats");
    stats = new AgentStats({
      podsAllocatableMemoryBytes: await podsAllocatableMemoryBytes(o),
      nodeName,
      rootDir: f.rootDir,
      podLogsDir: o.config.podLogsDir,
      volumeStatsAggPeriodMs: o.config.volumeStatsAggPeriod.ms,
      systemCgroups: { kubelet: o.config.agentCgroups, runtime: f.runtimeCgroups, misc: o.config.systemCgroups },
      log: (m) => statsLog.info(m),
    });
    const keyring = await nodeKeyringFrom(o, root.withName("credentialprovider"));
    // Eviction thresholds as 1.23's ParseThresholdConfig reads them (a bad one fails start-up).
    const thresholds = parseThresholdConfig({ ...o.config, enforceNodeAllocatable: o.config.enforceNodeAllocatable });
    // The device plugin manager (gate DevicePlugins), as 1.23's NewManagerImpl + Start; gate off:
    // no registration socket, as 1.23's stub manager.
    if (o.featureGates.enabled("DevicePlugins") && !o.config.runOnce) {
      const dmLog = root.withName("devicemanager");
      deviceManager = await DeviceManager.start({ rootDir: f.rootDir, log: (m, level = 0) => (level === 0 ? dmLog.info(m) : dmLog.v(level).info(m)) });
    }
    const dm = deviceManager;
    // Admission's node checks: the node informer's Node in API-server mode, else the flags' node.
    const standaloneNode = initialNodeFor(o, nodeName);
    runtime = createPodRuntime({
      ...podRuntimeOptionsFrom(o, nodeName, root.withName("pods")),
      keyring,
      ...resources,
      ...podEvents,
      ...podObjects,
      ...(clients ? { kubernetesService: kubernetesServiceOf(o, clients.server) } : {}),
      ...(csi ? { volumes: csi.volumes } : {}),
      instrumentCRI: stats.instrumentCRI,
      onProbeResult: stats.onProbeResult,
      // The eviction manager is the first admission handler, as the kubelet's.
      admitHandlers: [(pod) => eviction?.admit(pod) ?? { admit: true }],
      node: () => cluster?.node() ?? standaloneNode,
      ...(dm ? { devices: dm } : {}),
      containerGC: {
        minAgeMs: f.minimumContainerTTLDuration.ms,
        maxPerPodContainer: f.maximumDeadContainersPerContainer,
        maxContainers: f.maximumDeadContainers,
      },
      apiSource: clients !== undefined,
    });
    stats.attach(runtime);
    const rt = runtime;
    const agentStats = stats;
    const gcLog = root.withName("images");
    imageGC = new ImageGCManager({
      policy: { highThresholdPercent: o.config.imageGCHighThresholdPercent, lowThresholdPercent: o.config.imageGCLowThresholdPercent, minAgeMs: o.config.imageMinimumGCAge.ms },
      images: () => rt.cri.images,
      runtime: () => rt.cri.runtime,
      imageFsStats: () => agentStats.provider.imageFsStats(),
      sandboxImage: f.podInfraContainerImage,
      log: (m, level = 0) => (level === 0 ? gcLog.info(m) : gcLog.v(level).info(m)),
    });
    const images = imageGC;
    const evictionLog = root.withName("eviction");
    eviction = new EvictionManager({
      thresholds,
      pressureTransitionPeriodMs: o.config.evictionPressureTransitionPeriod.ms,
      maxPodGracePeriodSeconds: o.config.evictionMaxPodGracePeriod,
      summary: (updateStats, podsCpuAndMemoryOnly) => agentStats.provider.summary(false, { updateStats, podsCpuAndMemoryOnly: podsCpuAndMemoryOnly === true }),
      hasDedicatedImageFs: () => agentStats.provider.hasDedicatedImageFs(),
      activePods: () => rt.activePods(),
      evictPod: (pod, grace, message) => rt.evictPod(pod, grace, message),
      podCleanedUp: (pod) => rt.podCleanedUp(pod),
      deleteAllUnusedContainers: () => rt.deleteAllUnusedContainers(),
      deleteUnusedImages: () => images.deleteUnusedImages(),
      kernelMemcgNotification: o.config.kernelMemcgNotification,
      localStorageCapacityIsolation: o.featureGates.enabled("LocalStorageCapacityIsolation"),
      recordPodEvent: onEvent ?? ((pod, type, reason, message) => evictionLog.info(`event ${type} ${reason} on pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: ${message}`)),
      log: (m, level = 0) => (level === 0 ? evictionLog.info(m) : evictionLog.v(level).info(m)),
    });
    if (o.config.runOnce) {
      const r = await runtime.runOnce(o.config.runtimeRequestTimeout.ms);
      for (const p of r.pods) log.info(p.ok ? "Started pod" : "Failed to start pod", { pod: `${p.namespace}/${p.name}`, phase: p.phase, ...(p.message !== undefined ? { message: p.message } : {}) });
      await runtime.stop();
      containerManager.stop();
      lock?.release();
      if (r.error !== undefined) return failed(r.error);
      return r.ok ? 0 : 1;
    }
    if (clients) {
      const clusterLog = root.withName("cluster");
      const ev = eviction;
      const rt = runtime;
      cluster = new ClusterMode({
        options: o,
        nodeName,
        runtime,
        clients,
        log: (m, level = 0) => (level === 0 ? clusterLog.info(m) : clusterLog.v(level).info(m)),
        pressure: () => ev.nodePressure(),
        ...(dm ? { devicePluginResources: () => dm.getCapacity() } : {}),
        onNodeEventRecorder: (record) => {
          ev.setNodeEventRecorder(record);
          images.setNodeEventRecorder(record);
          rt.setNodeEventRecorder(record);
        },
      });
    }
    await runtime.start();
    stats.start();
    // The kubelet's StartGarbageCollection and the eviction manager (after the runtime is up).
    imageGC.start();
    eviction.start();
    // --make-iptables-util-chains as 1.23's initNetworkUtil; --hairpin-mode as effectiveHairpinMode.
    const netLog = root.withName("network");
    effectiveHairpinMode(o.config.hairpinMode, (m) => netLog.info(m));
    const netUnavailable = o.config.makeIPTablesUtilChains ? networkUtilUnavailable(process.getuid?.()) : undefined;
    if (netUnavailable !== undefined) {
      netLog.info(`Skipping --make-iptables-util-chains (--iptables-drop-bit, --iptables-masquerade-bit): ${netUnavailable}; pass --make-iptables-util-chains=false to silence this`);
    } else if (o.config.makeIPTablesUtilChains) {
      stopNetworkUtil = await initNetworkUtil([execIPTables("IPv4"), execIPTables("IPv6")], { dropBit: o.config.iptablesDropBit, masqueradeBit: o.config.iptablesMasqueradeBit }, (m) => netLog.info(m));
    }
    await csi?.start();
    const serverLog = root.withName("server");
    servers = await startServers({ ...(serverOpts as ServerOptions), stats: stats.endpoints, setVerbosity: (level) => root.setVerbosity(level) }, runtime, { info: (m, fl) => serverLog.info(m, fl), error: (m, fl) => serverLog.error(m, fl) });
    // The pod resources API (gate NodeAgentPodResources), as 1.23's ListenAndServePodResources.
    if (o.featureGates.enabled("NodeAgentPodResources")) {
      podResources = await startPodResourcesServer({
        socketPath: podResourcesSocketPath(f.rootDir),
        providers: podResourcesProviders(runtime, containerManager?.topologyManager?.cpuManager, deviceManager),
        getAllocatableEnabled: o.featureGates.enabled("NodeAgentPodResourcesGetAllocatable"),
      });
    }
    log.info("Started nodeagent", { nodeName, addresses: servers.addresses });
    if (cluster) {
      // Registration retries in the background until the apiserver answers, as the kubelet's.
      const port = servers.addresses.main?.port ?? (typeof o.config.port === "number" ? o.config.port : 0);
      cluster.start(port, clusterStop.signal).catch((e: unknown) => {
        if ((e as { code?: string }).code !== "Aborted") log.error("Failed to start API-server mode", { err: e });
      });
    }
    io.onReady?.(servers);
  } catch (e) {
    await csi?.stop().catch(() => {});
    containerManager?.stop();
    clusterStop.abort();
    cluster?.stop();
    if (!cluster) {
      clients?.client.close();
      clients?.eventClient.close();
      clients?.heartbeatClient.close();
    }
    eviction?.stop();
    imageGC?.stop();
    stats?.stop();
    stopNetworkUtil?.();
    await podResources?.close().catch(() => {});
    await deviceManager?.stop().catch(() => {});
    await servers?.close().catch(() => {});
    await runtime?.stop().catch(() => {});
    lock?.release();
    if ((e as { code?: string }).code === "Aborted") return 0;
    if (e instanceof CredentialProviderError) {
      log.error("Failed to register CRI auth plugins", { err: e.message });
      return 1;
    }
    return failed(e);
  }
  const why = await waitForStop(io.stopSignal, contention);
  log.info("Shutting down", { reason: why });
  await csi?.stop().catch((e: unknown) => log.error("Failed to stop CSI support", { err: e }));
  clusterStop.abort();
  cluster?.stop();
  eviction?.stop();
  imageGC?.stop();
  stats?.stop();
  stopNetworkUtil?.();
  await podResources?.close().catch(() => {});
  await deviceManager?.stop().catch(() => {});
  await servers.close().catch((e: unknown) => log.error("Failed to stop servers", { err: e }));
  await runtime.stop().catch((e: unknown) => log.error("Failed to stop pod runtime", { err: e }));
  containerManager?.stop();
  lock?.release();
  return 0;
}
