import type { Container, Node, Pod, PodStatus, Volume } from "@skiff/api-types";
import type { ImageClient, Mount, RuntimeClient } from "@skiff/cri-api";
import type { AgentView } from "../agent-view.js";
import type { DockerKeyring } from "../credentialprovider/index.js";
import type { PodObjectManagers } from "./pod-objects.js";
import type { ContainerResourceSettings } from "./resources.js";
import type { AdmitResult } from "./admission.js";
import type { ContainerGCPolicy } from "./container-gc.js";
import type { CRIDialer } from "./runtime-clients.js";
import type { KubernetesServiceAddress } from "./service-env.js";

/** A line sink for the pod runtime's log; `level` 0 is info, higher numbers are more verbose. */
export type PodRuntimeLog = (message: string, level?: number) => void;

/**
 * Everything {@link createPodRuntime} needs, as plain values (units in the names). The options
 * layer maps the node agent's flags/config onto it.
 *
 * @see pkg/kubelet/apis/config/types.go (KubeletConfiguration) in kubernetes/kubernetes v1.23
 */
/**
 * What the pod runtime needs of the device manager (`../cm/devicemanager/`).
 * @see pkg/kubelet/cm/devicemanager/manager.go in kubernetes/kubernetes v1.23
 */
export interface PodDeviceHooks {
  /**
   * Allocates the pod's devices; a refusal is 1.23's `UnexpectedAdmissionError`. `active`: the other
   * admitted pods; `sourcesReady`: every pod source has delivered (only then are the allocations
   * of pods not in `active` forgotten, as 1.23's UpdateAllocatedDevices).
   */
  admitPod(pod: Pod, active: readonly Pod[], sourcesReady: boolean): AdmitResult;
  /**
   * The plugin calls of 1.23's admission-time `Allocate`, before the pod's first sync: the
   * rejection message (the pod is then written Failed `UnexpectedAdmissionError`), or undefined.
   */
  allocatePending?(pod: Pod): Promise<string | undefined>;
  /** The envs, mounts, devices and annotations the container's devices add. @throws Error when the plugin cannot answer. */
  runContainerOptions(pod: Pod, container: Container): Promise<DeviceContainerOptions | undefined>;
  /** Releases the pod's devices. */
  removePod(uid: string): void;
  /** The device plugin resources' allocatable for the resource fit (whole units). */
  admissionAllocatable?(): ReadonlyMap<string, bigint>;
}

/** What a container's devices add to its CRI `ContainerConfig`. */
export interface DeviceContainerOptions {
  readonly envs: readonly { key: string; value: string }[];
  readonly mounts: readonly { containerPath: string; hostPath: string; readonly: boolean }[];
  readonly devices: readonly { containerPath: string; hostPath: string; permissions: string }[];
  readonly annotations: Readonly<Record<string, string>>;
}

export interface PodRuntimeOptions {
  /** The node's name; static pod names get `-<nodeName>`. Lower-cased by the caller. */
  readonly nodeName: string;
  /** `--root-dir`; `<rootDir>/pods/<uid>` is created per pod. */
  readonly rootDir: string;
  /** Where CRI container logs go. @defaultValue `/var/log/pods` */
  readonly podLogsDir?: string;
  /** `--container-runtime-endpoint` (`unix:///...` or a path). */
  readonly containerRuntimeEndpoint: string;
  /** `--image-service-endpoint`: image calls go there over their own channel. @defaultValue the runtime endpoint */
  readonly imageServiceEndpoint?: string;
  /**
   * Admission handlers run before the resource check, first refusal wins (the eviction manager's
   * `Admit`). A refused pod is written `Failed` with the reason and `Pod <message>`, never started.
   */
  readonly admitHandlers?: readonly ((pod: Pod) => AdmitResult)[];
  /**
   * The Node as the agent last saw it, for admission's node checks (node affinity and selector,
   * node name, host ports, NoExecute taints): in API-server mode the node informer's, else the node
   * built from the flags (1.23's `getNodeAnyWay`). Absent: those checks are skipped (embedders
   * without a Node).
   */
  readonly node?: () => Node;
  /**
   * Container garbage collection (`--minimum-container-ttl-duration`,
   * `--maximum-dead-containers-per-container`, `--maximum-dead-containers`), run every minute.
   * Without it each pod sync keeps the newest dead instance of each container and removes older ones.
   */
  readonly containerGC?: ContainerGCPolicy;
  /** How often container GC runs, ms. @defaultValue 60_000 */
  readonly containerGCPeriodMs?: number;
  /** API-server mode: pods of unknown UIDs are "gone" for garbage collection only once `setApiPods` was called. */
  readonly apiSource?: boolean;
  /**
   * Opens the CRI clients instead of dialing gRPC to `containerRuntimeEndpoint` (an in-process
   * runtime, e.g. a simulated fleet's hollow nodes); called again on each reconnect.
   * @defaultValue gRPC clients of `containerRuntimeEndpoint` and `imageServiceEndpoint`
   */
  readonly criDialer?: CRIDialer;
  /**
   * Awaited by each pod worker before each sync or termination. Several in-process agents that share
   * one event loop (a simulated fleet) pass one admission that holds work back while the loop lags,
   * so that their heartbeats are not queued behind a burst of other nodes' pod work. A kubelet gets
   * this from Go's scheduler, which runs a waiting goroutine however many others are busy.
   * @defaultValue none (every sync starts at once)
   */
  readonly syncAdmission?: () => Promise<void>;
  /** Wraps each CRI client (runtime operation metrics). @defaultValue none */
  readonly instrumentCRI?: <T extends object>(client: T) => T;
  /** Told each probe attempt's result (`prober_probe_total`): `successful`, `failed` or `unknown` (the probe could not run). */
  readonly onProbeResult?: (kind: string, result: "successful" | "failed" | "unknown", pod: Pod, container: string) => void;
  /** `--runtime-request-timeout` in ms. @defaultValue 120_000 */
  readonly runtimeRequestTimeoutMs?: number;
  /** `--sync-frequency` in ms: maximum period between syncs of a pod. @defaultValue 60_000 */
  readonly syncFrequencyMs?: number;
  /** `--pod-manifest-path`: a directory or one file; empty or absent disables the file source. */
  readonly staticPodPath?: string;
  /** `--file-check-frequency` in ms. @defaultValue 20_000 */
  readonly fileCheckFrequencyMs?: number;
  /** `--manifest-url`; empty or absent disables the URL source. */
  readonly staticPodURL?: string;
  /** `--manifest-url-header`: header name → values, in order. */
  readonly staticPodURLHeader?: Readonly<Record<string, readonly string[]>>;
  /** `--http-check-frequency` in ms. @defaultValue 20_000 */
  readonly httpCheckFrequencyMs?: number;
  /** `--serialize-image-pulls`. @defaultValue true */
  readonly serializeImagePulls?: boolean;
  /** `--registry-qps`; 0 = unlimited. @defaultValue 5 */
  readonly registryPullQPS?: number;
  /** `--registry-burst`; only used when `registryPullQPS` > 0. @defaultValue 10 */
  readonly registryBurst?: number;
  /**
   * The node's image pull credentials (its docker config files and the exec plugins of
   * `--image-credential-provider-config`), consulted after a pod's `imagePullSecrets` on every
   * pull. @defaultValue the node's docker config files only (see `createNodeKeyring`)
   */
  readonly keyring?: DockerKeyring;
  /** `--container-log-max-size` in bytes. @defaultValue 10 MiB */
  readonly containerLogMaxSizeBytes?: number;
  /** `--container-log-max-files` (≥ 2). @defaultValue 5 */
  readonly containerLogMaxFiles?: number;
  /** `--max-pods`; pods beyond it are rejected (phase Failed, reason `OutOfpods`). @defaultValue 110 */
  readonly maxPods?: number;
  /**
   * `--keep-terminated-pod-volumes`: keep a terminated (Succeeded/Failed) pod's volumes until the
   * pod is deleted; false tears them down when the pod terminates, as 1.23. @defaultValue false
   */
  readonly keepTerminatedPodVolumes?: boolean;
  /** `--experimental-mounter-path`: the mounter tmpfs (memory-backed emptyDir) mounts run through. @defaultValue "" (plain `mount`) */
  readonly mounterPath?: string;
  /** `--pod-infra-container-image`; informational (the CRI runtime picks its sandbox image). */
  readonly podInfraImage?: string;
  /** Log sink. @defaultValue discards everything */
  readonly log?: PodRuntimeLog;
  /** The node's IP, reported as `status.hostIP`. @defaultValue the first non-internal IPv4, else `127.0.0.1` */
  readonly hostIP?: string;
  /** First crash-loop back-off in ms (tests shorten it). @defaultValue 10_000 */
  readonly backOffInitialMs?: number;
  /** Maximum crash-loop back-off in ms. @defaultValue 300_000 */
  readonly backOffMaxMs?: number;
  /** Period of the runtime relist (PLEG) in ms. @defaultValue 1_000 */
  readonly relistPeriodMs?: number;
  /** Period of the runtime health probe in ms (kubelet: 5 s). @defaultValue 5_000 */
  readonly runtimeCheckPeriodMs?: number;
  /** Period of the log rotation check in ms (kubelet: 10 s). @defaultValue 10_000 */
  readonly logRotatePeriodMs?: number;
  /** Period of the pod cgroup housekeeping (orphan removal, QoS cgroup update) in ms. @defaultValue 10_000 */
  readonly housekeepingPeriodMs?: number;
  /** Period of stopping orphaned runtime pods (1.23's housekeeping, HandlePodCleanups) in ms. @defaultValue 2_000 */
  readonly orphanCleanupPeriodMs?: number;
  /**
   * Volume hooks for the kinds not built in (CSI inline volumes); emptyDir, hostPath, downwardAPI,
   * projected, configMap and secret volumes are handled by the pod runtime itself.
   */
  readonly volumes?: PodVolumeHooks;
  /** `--cluster-dns`: cluster DNS server IPs for `ClusterFirst` pods. @defaultValue none */
  readonly clusterDNS?: readonly string[];
  /** `--cluster-domain`: the `<ns>.svc.<domain>` search paths and subdomain FQDNs. @defaultValue `""` */
  readonly clusterDomain?: string;
  /** `--resolv-conf`: the base resolver file of pod DNS; `""` disables it. @defaultValue /etc/resolv.conf */
  readonly resolvConf?: string;
  /**
   * API-server mode: the ConfigMap and Secret managers (see `createPodObjectManagers`). Pods are
   * registered with them as they come and go; env and configMap/secret/projected volumes read
   * through them. The pod runtime stops them in {@link PodRuntime.stop}. Absent (standalone mode):
   * referencing a ConfigMap or Secret fails with 1.23's `no kubeClient defined` error.
   */
  readonly objects?: PodObjectManagers;
  /**
   * API-server mode: where pods reach the API server, given to every container as the `kubernetes`
   * service's variables (`KUBERNETES_SERVICE_HOST`, ... — see `./service-env.ts`). Absent
   * (standalone mode): no service variables, as a kubelet without an API server.
   */
  readonly kubernetesService?: KubernetesServiceAddress;
  /** Event sink (`Unhealthy`, `Killing`, `FailedMount`, ...); events are logged too. @defaultValue logs only */
  readonly onEvent?: PodEventRecorder;
  /**
   * How containers' requests and limits become CRI `LinuxContainerResources` (`--cpu-cfs-quota`,
   * `--cpu-cfs-quota-period`, the node's memory capacity for OOM scores).
   * @defaultValue memory capacity `os.totalmem()`, CFS quota on, period 100ms
   */
  readonly containerResources?: ContainerResourceSettings;
  /**
   * Pod cgroups (the container manager of `--cgroups-per-qos`): created before the sandbox, named
   * as its `cgroup_parent`, removed when the pod goes. Absent: no pod cgroups, `cgroup_parent` "".
   */
  readonly podCgroups?: PodCgroupHooks;
  /**
   * The resource managers (the CPU manager of `--cpu-manager-policy=static`, the memory manager of
   * `--memory-manager-policy=Static`, behind the topology manager): consulted at pod admission
   * after the allocatable check, asked for each container's CPU set and memory nodes (CRI
   * `cpuset_cpus`, `cpuset_mems`), told when pods go, and reconciled against the running containers every
   * {@link resourceManagerReconcilePeriodMs}. Absent: none.
   */
  readonly resourceManagers?: PodResourceManagerHooks;
  /**
   * The device manager (gate DevicePlugins): consulted at admission after the admit handlers and
   * before the allocatable check (1.23's topology manager admit handler runs first), asked before
   * each container is created what its devices add to its CRI config, told when pods go. Absent: none.
   */
  readonly devices?: PodDeviceHooks;
  /** `--cpu-manager-reconcile-period` in ms. @defaultValue 10000 */
  readonly resourceManagerReconcilePeriodMs?: number;
  /**
   * The node's allocatable resources (capacity minus reservations and hard eviction thresholds):
   * what pods are admitted against (`OutOfcpu`, `OutOfmemory`, `OutOfpods`) and the value of a
   * `resourceFieldRef` limit a container does not set (env and downward API files), as 1.23 takes
   * it from the Node's `status.allocatable`. @defaultValue only `pods` = `maxPods` is checked; the
   * machine's CPUs and memory for `resourceFieldRef`
   */
  readonly nodeAllocatable?: NodeAllocatable;
  /**
   * The feature gates the pod runtime reads. @defaultValue `GRPCContainerProbe` on (beta),
   * `ProbeTerminationGracePeriod` off (beta)
   */
  readonly featureGates?: PodRuntimeFeatureGates;
  /**
   * `--allowed-unsafe-sysctls`: sysctl names or prefixes ending in `*` a pod may set beyond the
   * safe ones; each must be known to be namespaced (`createPodRuntime` throws otherwise).
   * @defaultValue none
   */
  readonly allowedUnsafeSysctls?: readonly string[];
  /** `--seccomp-default`: `RuntimeDefault` for containers that set no seccomp profile. @defaultValue false */
  readonly seccompDefault?: boolean;
  /** Whether the host enforces AppArmor (tests). @defaultValue read from /sys as runc does */
  readonly hostAppArmorEnabled?: () => boolean;
}

/** The node's allocatable resources for admission (node status `allocatable`). */
export interface NodeAllocatable {
  /** CPU in milli-cores. */
  readonly cpuMilli: bigint;
  /** Memory in bytes. */
  readonly memoryBytes: bigint;
  /** Pods: `--max-pods`, or cores × `--pods-per-core` when smaller. */
  readonly pods: number;
  /** Ephemeral storage in bytes; unchecked when absent. */
  readonly ephemeralStorageBytes?: bigint;
  /** Hugepages by resource name (`hugepages-2Mi`) in bytes; unchecked when absent. */
  readonly hugePages?: ReadonlyMap<string, bigint>;
}

/**
 * What the pod runtime asks of the container manager's pod cgroups (`../cm/`).
 * @see pkg/kubelet/cm/pod_container_manager_linux.go in kubernetes/kubernetes v1.23
 */
export interface PodCgroupHooks {
  /** Creates the pod's cgroup (updating the QoS cgroups from `activePods` first) unless it exists. */
  ensurePod(pod: Pod, activePods: readonly Pod[]): Promise<void>;
  /** The sandbox's `cgroup_parent` for the pod (`/kubepods/burstable/pod<uid>`). */
  cgroupParent(pod: Pod): string;
  /** Removes the pod's cgroup; throws while processes remain. */
  removePod(uid: string): Promise<void>;
  /** Removes the cgroups of pods not in `activeUIDs`; never throws. */
  cleanupOrphans(activeUIDs: ReadonlySet<string>): Promise<void>;
  /** Sets the QoS cgroups from the active pods. */
  updateQOSCgroups(activePods: readonly Pod[]): Promise<void>;
}

/**
 * What the pod runtime asks of the resource managers (`../cm/cpumanager/`).
 * @see pkg/kubelet/cm/cpumanager/cpu_manager.go (Manager) in kubernetes/kubernetes v1.23
 */
export interface PodResourceManagerHooks {
  /** Allocates the pod's resources against the other `activePods`; the 1.23 reason and message when it cannot. */
  admitPod(pod: Pod, activePods: readonly Pod[]): { readonly reason: string; readonly message: string } | undefined;
  /** The CPU set (`0-1,4`) the container is created with; undefined leaves the runtime's default. */
  containerCPUSet(pod: Pod, container: Container): string | undefined;
  /** The memory NUMA nodes (`0,1`, CRI `cpuset_mems`) the container is created with; undefined leaves the runtime's default. */
  containerMemoryNodes?(pod: Pod, container: Container): string | undefined;
  /** Releases what pods not in `activePods` hold (called only once every pod source has been seen). */
  removeStaleState(activePods: readonly Pod[]): void;
  /** Releases what the pod with `uid` holds (it finished or was removed). */
  removePod(uid: string): void;
  /**
   * Writes changed CPU sets of running containers through `update` (CRI UpdateContainerResources);
   * with `sweepStale` also releases what pods not in `activePods` hold.
   */
  reconcile(activePods: readonly Pod[], running: ReadonlyArray<{ podUID: string; containerName: string; containerId: string }>, update: (containerId: string, cpusetCpus: string) => Promise<void>, sweepStale: boolean): Promise<void>;
}

/** The feature gates the pod runtime reads; absent names take their defaults. */
export interface PodRuntimeFeatureGates {
  /** grpc probes run; off → such a probe errors with `missing probe handler`. @defaultValue true */
  readonly GRPCContainerProbe?: boolean;
  /** A liveness/startup probe's `terminationGracePeriodSeconds` is used when it kills. @defaultValue false */
  readonly ProbeTerminationGracePeriod?: boolean;
  /** Pod DNS search lists may hold 32 paths / 2048 characters (instead of 6 / 256). @defaultValue false */
  readonly ExpandedDNSConfig?: boolean;
  /** AppArmor annotations are enforced (else a pod asking for a profile is blocked). @defaultValue true */
  readonly AppArmor?: boolean;
  /** `procMount: Unmasked` takes effect. @defaultValue false */
  readonly ProcMountType?: boolean;
  /** Memory-backed emptyDirs are sized to the node's allocatable memory, the pod's limit or their `sizeLimit`. @defaultValue true */
  readonly SizeMemoryBackedVolumes?: boolean;
}

/**
 * Records an event on a pod (API-server mode passes its event recorder). `reason` is the
 * kubelet's (`Unhealthy`, `ProbeWarning`, `Killing`, `FailedMount`).
 */
export type PodEventRecorder = (pod: Pod, type: "Normal" | "Warning", reason: string, message: string) => void;

/**
 * What the pod runtime asks of a volume manager: publish a pod's volumes before its containers
 * start (called at every sync; idempotent), unpublish them when the pod is removed, and the CRI
 * mounts of one container. `setUp` throws an Error whose message becomes the containers' waiting
 * message (reason `ContainerCreating`).
 * @see pkg/kubelet/volumemanager/volume_manager.go (WaitForAttachAndMount) in kubernetes/kubernetes v1.23
 */
export interface PodVolumeHooks {
  /**
   * Whether these hooks handle volume `v` (1.23's `VolumePlugin.CanSupport`). A volume that neither
   * the built-in kinds nor the hooks support fails to mount (`no volume plugin matched`).
   * @defaultValue the volumes with a `csi` source
   */
  canSupport?(v: Volume): boolean;
  setUp(pod: Pod): Promise<void>;
  tearDown(pod: Pod): Promise<void>;
  mounts(pod: Pod, container: Container): Mount[];
}

/** One pod's outcome of {@link PodRuntime.runOnce}. */
export interface RunOnceResultItem {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** `Running`/`Succeeded` count as started; anything else is a failure. */
  readonly phase: NonNullable<PodStatus["phase"]>;
  readonly ok: boolean;
  /** Why the pod did not start, when `ok` is false. */
  readonly message?: string;
}

/** The result of {@link PodRuntime.runOnce}. */
export interface RunOnceResult {
  /** True when every pod is running or succeeded. */
  readonly ok: boolean;
  readonly pods: readonly RunOnceResultItem[];
  /** Set when no pod update came from the static sources in time (`no pod manifest update after 1s`). */
  readonly error?: string;
}

/** Whether the CRI runtime answers and reports `RuntimeReady`. */
export interface RuntimeState {
  /** No runtime error (1.23's `runtimeErrors()` is nil): pods are synced. */
  readonly ready: boolean;
  /** Why not ready (or `""`): {@link errors} as one message (`[a, b]` for several). */
  readonly message: string;
  /** Each runtime error: not checked yet or down, a failed health check (PLEG), RuntimeReady=false. */
  readonly errors: readonly string[];
  /** 1.23's `networkErrors()`: why the runtime's network is not ready, or `""`. Only pods on the host network start while it is set. */
  readonly networkError: string;
  /** `runtimeName` from the runtime's Version answer, once known. */
  readonly runtimeName: string;
  /** `runtimeVersion` from the runtime's Version answer, once known (node status `containerRuntimeVersion`). */
  readonly runtimeVersion?: string;
}

/** Records an event on this agent's Node: its type, reason and message (as `record.EventRecorder.Event` with the node reference). */
export type NodeEventRecorder = (type: "Normal" | "Warning", reason: string, message: string) => void;

/** A listener of pod status changes (the seam for API-server mode's PATCH of pods/status). */
export type PodStatusListener = (pod: Pod, status: PodStatus) => void;

/**
 * The node agent's pod machinery: sources → pod config → pod workers → CRI runtime manager, with
 * the status manager and the container log manager. Implements {@link AgentView} for the servers.
 */
export interface PodRuntime extends AgentView {
  /** Starts the sources, the sync loop, the relist and the log rotation. Resolves once started. */
  start(): Promise<void>;
  /** Stops every loop and closes the CRI channels; running containers are left alone (as the kubelet). Idempotent. */
  stop(): Promise<void>;
  /**
   * `--runonce`: reads the static sources once, runs their pods, waits until each is running or
   * failed (at most `timeoutMs`), and reports per pod. Does not start the loops of {@link start}.
   * @see pkg/kubelet/runonce.go
   */
  runOnce(timeoutMs: number): Promise<RunOnceResult>;
  /**
   * The CRI runtime's readiness (reported; it never fails `/healthz`, as in the kubelet): not ready
   * before the first successful status check, after 30 s without one, while the PLEG has not
   * relisted for 3 min, or while the runtime says RuntimeReady=false (see `RuntimeClients.current`).
   */
  runtimeState(): RuntimeState;
  /** The CRI clients (getters: a reconnect replaces them), for the stats provider. */
  readonly cri: { readonly runtime: RuntimeClient; readonly images: ImageClient };
  /** Subscribes to status changes; returns the unsubscribe function. */
  onStatusChange(listener: PodStatusListener): () => void;
  /**
   * Sets where events about the Node go (API-server mode, once the node reference exists; set it
   * before {@link start}): today the start-up `CheckLimitsForResolvConf` warning. Until set, they
   * are only logged (they are logged either way, as the kubelet's event broadcaster logs events).
   */
  setNodeEventRecorder(record: NodeEventRecorder): void;
  /**
   * API-server mode: replaces the complete list of pods bound to this node (source `api`). Mirror
   * pods must be filtered out by the caller. A pod with `metadata.deletionTimestamp` is stopped
   * with its grace period and stays listed (not restarted) until it leaves the list. Does not
   * mutate `pods`.
   */
  setApiPods(pods: readonly Pod[]): void;
  /**
   * Subscribes to "pod stopped for deletion": called once the containers and sandbox of a pod
   * with a `deletionTimestamp` are stopped and removed (the API source then deletes the object
   * with grace period 0). Returns the unsubscribe function.
   */
  onPodTerminated(listener: (pod: Pod) => void): () => void;
  /** Admitted pods that are not finished (what admission counts and the eviction manager ranks). */
  activePods(): Pod[];
  /** The UIDs of the pods of {@link AgentView.listPods}, without copying the pods (the periodic status resync's input). */
  podUIDs(): string[];
  /** The static pods (sources `file` and `http`) of {@link AgentView.listPods}, each with its current status; only these are copied. */
  listStaticPods(): Pod[];
  /**
   * Evicts `pod`: its status becomes `Failed`, reason `Evicted`, `message` (kept through later
   * syncs), its containers are stopped with `gracePeriodSeconds` (undefined: the pod's own) and
   * it never starts again. Resolves once the containers are stopped.
   * @throws CRIError when the runtime cannot stop them (the pod stays Failed; the next sync retries the kill).
   * @see pkg/kubelet/pod_workers.go (killPodNow, SyncPodKill with a status function) in kubernetes/kubernetes v1.23
   */
  evictPod(pod: Pod, gracePeriodSeconds: number | undefined, message: string): Promise<void>;
  /** Whether an evicted or finished pod has no running container left (or is gone). */
  podCleanedUp(pod: Pod): boolean;
  /** Container GC's reclaim for disk pressure: every dead container and sandbox the policy allows, also of finished pods. */
  deleteAllUnusedContainers(): Promise<void>;
}
