import { existsSync } from "node:fs";
import type { Pod } from "@skiff/api-types";
import { milliOf, podQOSClass, podRequestsAndLimits, valueOfMilli, type PodQOSClass } from "../pods/resources.js";
import { CgroupError, CgroupManager, cgroupNameToCgroupfs, cgroupNameToSystemd, parseCgroupfsToCgroupName, type CgroupName, type ResourceConfig } from "./cgroup-manager.js";
import { CPUManager, discoverTopology, type CPUManagerOptions } from "./cpumanager/index.js";
import { MemoryManager, MemoryManagerStateError, type MemoryManagerOptions } from "./memorymanager/index.js";
import { SystemContainers, type SystemContainersOptions } from "./system-containers.js";
import { TopologyManager } from "./topologymanager/index.js";
import { cgroupConfigOf, cgroupMilliCPUToShares, resourceConfigForPod } from "./helpers.js";
import { hugePageSizeOfResource } from "./hugepages.js";
import { agentTracer } from "../internal/trace.js";

/** The node's capacity as the container manager sees it (the kubelet's `internalCapacity`). */
export interface NodeCapacity {
  /** CPU in milli-cores. */
  readonly cpuMilli: bigint;
  /** Memory in bytes. */
  readonly memoryBytes: bigint;
  /** `kernel.pid_max`; 0 when unknown (then no `pid` capacity). */
  readonly pids: bigint;
  /** `hugepages-<size>` → bytes of hugepages of that size (every size the machine supports). */
  readonly hugePages?: ReadonlyMap<string, bigint>;
}

/**
 * Everything the container manager reads: the node agent's cgroup configuration (flag names in
 * the docs) and the node's capacity.
 * @see pkg/kubelet/cm/container_manager.go (NodeConfig) in kubernetes/kubernetes v1.23
 */
export interface ContainerManagerOptions {
  /** `--cgroups-per-qos`: the kubepods / QoS / pod cgroup hierarchy. @defaultValue true */
  readonly cgroupsPerQOS: boolean;
  /** `--cgroup-root` (cgroupfs path); `""` means `/`. Must exist when `cgroupsPerQOS`. */
  readonly cgroupRoot: string;
  /** `--cgroup-driver`: `cgroupfs`, or `systemd` (refused: see {@link ContainerManager.start}). */
  readonly cgroupDriver: string;
  /** `--cpu-cfs-quota`. */
  readonly cpuCFSQuota: boolean;
  /** `--cpu-cfs-quota-period` in µs. */
  readonly cpuCFSQuotaPeriodUs: bigint;
  /** The CustomCPUCFSQuotaPeriod gate. */
  readonly customCPUCFSQuotaPeriod: boolean;
  /** `--pod-max-pids`: `pids.max` of each pod cgroup; ≤ 0 leaves it unlimited. */
  readonly podPidsLimit: number;
  /** `--enforce-node-allocatable`: `pods`, `system-reserved`, `cluster-reserved`, `none`. */
  readonly enforceNodeAllocatable: readonly string[];
  /** `--system-reserved` (resource → quantity). */
  readonly systemReserved: Readonly<Record<string, string>>;
  /** `--cluster-reserved` (the kubelet's `--kube-reserved`). */
  readonly clusterReserved: Readonly<Record<string, string>>;
  /** `--system-reserved-cgroup`; required (and must exist) with `system-reserved` enforcement. */
  readonly systemReservedCgroup: string;
  /** `--cluster-reserved-cgroup`; required (and must exist) with `cluster-reserved` enforcement. */
  readonly clusterReservedCgroup: string;
  /** `--qos-reserved` (`memory` → `<n>%`); applied only when {@link qosReservedEnabled}. */
  readonly qosReserved: Readonly<Record<string, string>>;
  /** The QOSReserved gate. */
  readonly qosReservedEnabled: boolean;
  /** The node's capacity. */
  readonly capacity: NodeCapacity;
  /** The cgroup mount root (tests point it at a fake tree). @defaultValue `/sys/fs/cgroup` */
  readonly cgroupFsRoot?: string;
  /** The machine's hugepage sizes (`1GB`, `2MB`). @defaultValue read from `/sys/kernel/mm/hugepages` */
  readonly hugePageSizes?: readonly string[];
  /** Whether systemd runs this host (`/run/systemd/system` exists). @defaultValue that check */
  readonly systemdRunning?: () => boolean;
  /** Runs `busctl` for the systemd driver (tests). @defaultValue the `busctl` binary */
  readonly busctl?: (args: readonly string[]) => Promise<void>;
  /** Log sink; level 0 is info. */
  readonly log?: (message: string, level?: number) => void;
  /** The CPU manager (`--cpu-manager-policy` and friends); started by {@link ContainerManager.start}. Absent: none. */
  readonly cpuManager?: CPUManagerOptions;
  /**
   * `--agent-cgroups`, `--runtime-cgroups`, `--system-cgroups` and what they need: kept by
   * {@link SystemContainers} from start-up on. Absent: none.
   */
  readonly systemContainers?: Omit<SystemContainersOptions, "cgroups" | "log">;
  /** The memory manager (`--memory-manager-policy`, `--reserved-memory`); started after the CPU manager. Absent: none. */
  readonly memoryManager?: MemoryManagerOptions;
  /** The topology manager (`--topology-manager-policy`, `--topology-manager-scope`); needs {@link cpuManager}. */
  readonly topologyManager?: { readonly policy: string; readonly scope: string };
}

/** The top-level cgroup holding every pod, under `--cgroup-root`. */
export const nodeAllocatableCgroupName = "kubepods";

/** Errors of container manager start-up; `reason` is stable. */
export class ContainerManagerError extends Error {
  constructor(
    readonly reason: "InvalidConfiguration" | "NotSupported" | "EnforcementFailed" | "CPUManager" | "MemoryManager" | "SystemContainers",
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ContainerManagerError";
  }
}

function toMilliList(rl: Readonly<Record<string, string>>): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [k, v] of Object.entries(rl)) {
    const m = milliOf(v);
    if (m !== undefined) out.set(k, m);
  }
  return out;
}

/**
 * The node agent's container manager for pods' cgroups, cgroupfs driver: the `kubepods` cgroup
 * under `--cgroup-root` (limited to the node's capacity, or its allocatable with
 * `--enforce-node-allocatable=pods`), the `burstable` and `besteffort` QoS cgroups below it
 * (Guaranteed pods sit directly in `kubepods`), one `pod<uid>` cgroup per pod with the pod's
 * summed limits (and `--pod-max-pids`), handed to the runtime as the sandbox's `cgroup_parent`,
 * removed when the pod goes; the reserved cgroups' limits with `system-reserved` /
 * `cluster-reserved` enforcement; `--qos-reserved=memory=<n>%` limits of the QoS cgroups.
 *
 * @see pkg/kubelet/cm/container_manager_linux.go, qos_container_manager_linux.go,
 *   pod_container_manager_linux.go, node_container_manager_linux.go in kubernetes/kubernetes v1.23
 */
export class ContainerManager {
  readonly #o: ContainerManagerOptions;
  readonly #cgroups: CgroupManager | undefined;
  /** `kubepods` under the cgroup root, or undefined without cgroups-per-qos. */
  readonly #podsRoot: CgroupName | undefined;
  readonly #log: (message: string, level?: number) => void;
  #cpuManager: CPUManager | undefined;
  #memoryManager: MemoryManager | undefined;
  #systemContainers: SystemContainers | undefined;
  #topologyManager: TopologyManager | undefined;
  // UIDs whose pod cgroup this agent created or found while syncing the pod: orphan clean-up only
  // touches these, so agents sharing one host (tests, local clusters) leave each other's alone.
  readonly #owned = new Set<string>();

  private constructor(o: ContainerManagerOptions, cgroups: CgroupManager | undefined, podsRoot: CgroupName | undefined) {
    this.#o = o;
    this.#cgroups = cgroups;
    this.#podsRoot = podsRoot;
    this.#log = o.log ?? (() => {});
  }

  /**
   * Checks the configuration and sets up the node's cgroups (kubepods, QoS cgroups, node
   * allocatable and reserved cgroups). Nothing is created without `cgroupsPerQOS`.
   *
   * @throws ContainerManagerError `NotSupported` for `--cgroup-driver=systemd` (with why: systemd
   *   not running, or the driver not implemented), `InvalidConfiguration` (`invalid configuration:
   *   cgroup-root "/x" doesn't exist`), `EnforcementFailed` (`Failed to enforce System Reserved
   *   Cgroup Limits on "/x": "/x" cgroup does not exist`, as 1.23), `CPUManager` (`start cpu
   *   manager error: <why>`, see {@link CPUManager.start}).
   * @see pkg/kubelet/cm/container_manager_linux.go (NewContainerManager, setupNode) in kubernetes/kubernetes v1.23
   */
  static async start(o: ContainerManagerOptions): Promise<ContainerManager> {
    const systemd = o.cgroupDriver === "systemd";
    if (systemd && !(o.systemdRunning ?? (() => existsSync("/run/systemd/system")))()) {
      throw new ContainerManagerError("NotSupported", "--cgroup-driver=systemd: systemd is not running on this host (no /run/systemd/system); use --cgroup-driver=cgroupfs");
    }
    const cgroupOptions = { ...(o.cgroupFsRoot === undefined ? {} : { root: o.cgroupFsRoot }), ...(o.hugePageSizes === undefined ? {} : { hugePageSizes: o.hugePageSizes }) };
    const system = o.systemContainers ? await ContainerManager.#startSystemContainers(o, cgroupOptions) : undefined;
    if (!o.cgroupsPerQOS) {
      const plain = new ContainerManager(o, undefined, undefined);
      plain.#systemContainers = system;
      plain.#startCPUManager();
      return plain;
    }
    const cgroups = new CgroupManager({ ...cgroupOptions, ...(systemd ? { driver: "systemd" as const } : {}), ...(o.busctl ? { busctl: o.busctl } : {}) });
    const rootText = o.cgroupRoot === "" ? "/" : o.cgroupRoot;
    const root = parseCgroupfsToCgroupName(rootText);
    if (!cgroups.exists(root)) throw new ContainerManagerError("InvalidConfiguration", `invalid configuration: cgroup-root ${JSON.stringify(rootText)} doesn't exist`);
    const cm = new ContainerManager(o, cgroups, [...root, nodeAllocatableCgroupName]);
    cm.#systemContainers = system;
    await cm.#setupNodeAllocatable();
    await cm.#startQOS();
    cm.#startCPUManager();
    return cm;
  }

  // setupNode's system containers: checked once now (a failure stops start-up), then every minute.
  static async #startSystemContainers(o: ContainerManagerOptions, cgroupOptions: { root?: string; hugePageSizes?: readonly string[] }): Promise<SystemContainers | undefined> {
    const sc = o.systemContainers;
    if (!sc || (sc.agentCgroups === "" && sc.runtimeCgroups === "" && sc.systemCgroups === "")) return undefined;
    let system: SystemContainers;
    try {
      system = new SystemContainers({ ...sc, cgroups: new CgroupManager(cgroupOptions), log: o.log ?? (() => {}) });
      await system.start();
    } catch (err) {
      throw new ContainerManagerError("SystemContainers", (err as Error).message, { cause: err });
    }
    return system;
  }

  /** Stops the periodic checks of the system containers. */
  stop(): void {
    this.#systemContainers?.stop();
  }

  /** The system containers (`--agent-cgroups`, `--runtime-cgroups`, `--system-cgroups`), when any is set. */
  get systemContainers(): SystemContainers | undefined {
    return this.#systemContainers;
  }

  #startCPUManager(): void {
    if (!this.#o.cpuManager) return;
    const o = this.#o.cpuManager;
    let cpu: CPUManager;
    try {
      cpu = CPUManager.start({ log: this.#log, ...o });
    } catch (err) {
      throw new ContainerManagerError("CPUManager", `start cpu manager error: ${(err as Error).message}`, { cause: err });
    }
    this.#cpuManager = cpu;
    if (this.#o.memoryManager) {
      try {
        this.#memoryManager = MemoryManager.start({ log: this.#log, ...this.#o.memoryManager });
      } catch (err) {
        const message = err instanceof MemoryManagerStateError ? `start memory manager error: ${err.message}` : (err as Error).message;
        throw new ContainerManagerError("MemoryManager", message, { cause: err });
      }
    }
    const t = this.#o.topologyManager;
    if (!t) return;
    try {
      const numaNodes = (cpu.topology ?? (t.policy === "none" ? undefined : discoverTopology(o.sysfsRoot)))?.numaNodes() ?? [0];
      this.#topologyManager = new TopologyManager(t.policy, t.scope, cpu, numaNodes, this.#log, this.#memoryManager);
    } catch (err) {
      throw new ContainerManagerError("CPUManager", `failed to initialize topology manager: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The topology manager, when configured; it fronts the CPU manager at pod admission. */
  get topologyManager(): TopologyManager | undefined {
    return this.#topologyManager;
  }

  /** The memory manager, when configured. */
  get memoryManager(): MemoryManager | undefined {
    return this.#memoryManager;
  }

  /** The CPU manager, when configured. */
  get cpuManager(): CPUManager | undefined {
    return this.#cpuManager;
  }

  /** The cgroup version in use, or `none` without cgroups-per-qos. */
  get cgroupVersion(): "v1" | "v2" | "none" {
    return this.#cgroups?.version ?? "none";
  }

  /** The cgroup manager (tests and diagnostics); undefined without cgroups-per-qos. */
  get cgroupManager(): CgroupManager | undefined {
    return this.#cgroups;
  }

  /** The capacity minus system and cluster reservations (negative → 0), milli-units by resource name (`cpu`, `memory`, `pid`). */
  nodeAllocatableAbsolute(): Map<string, bigint> {
    const cap = this.#capacityList();
    const reserved = toMilliList(this.#o.systemReserved);
    for (const [k, v] of toMilliList(this.#o.clusterReserved)) reserved.set(k, (reserved.get(k) ?? 0n) + v);
    const out = new Map<string, bigint>();
    for (const [k, v] of cap) {
      const left = v - (reserved.get(k) ?? 0n);
      out.set(k, left < 0n ? 0n : left);
    }
    return out;
  }

  #capacityList(): Map<string, bigint> {
    const c = this.#o.capacity;
    const m = new Map<string, bigint>([
      ["cpu", c.cpuMilli],
      ["memory", c.memoryBytes * 1000n],
    ]);
    if (c.pids > 0n) m.set("pid", c.pids * 1000n);
    for (const [name, bytes] of c.hugePages ?? []) m.set(name, bytes * 1000n);
    return m;
  }

  // createNodeAllocatableCgroups + enforceNodeAllocatableCgroups
  async #setupNodeAllocatable(): Promise<void> {
    const cgroups = this.#cgroups as CgroupManager;
    const podsRoot = this.#podsRoot as CgroupName;
    const enforce = new Set(this.#o.enforceNodeAllocatable);
    const limits = enforce.has("pods") ? this.nodeAllocatableAbsolute() : this.#capacityList();
    const rc = cgroupConfigOf(limits) ?? {};
    if (!cgroups.exists(podsRoot)) await cgroups.create(podsRoot, rc);
    try {
      await cgroups.update(podsRoot, rc);
      this.#log(`Updated Node Allocatable limit across pods on ${cgroupNameToCgroupfs(podsRoot)}`);
    } catch (err) {
      this.#log(`Failed to update Node Allocatable Limits ${JSON.stringify(cgroupNameToCgroupfs(podsRoot))}: ${(err as Error).message}`);
    }
    const reserved: Array<[string, string, Readonly<Record<string, string>>, string]> = [
      ["system-reserved", this.#o.systemReservedCgroup, this.#o.systemReserved, "System Reserved"],
      ["cluster-reserved", this.#o.clusterReservedCgroup, this.#o.clusterReserved, "Kube Reserved"],
    ];
    for (const [key, cgroup, list, words] of reserved) {
      if (!enforce.has(key)) continue;
      const name = parseCgroupfsToCgroupName(cgroup);
      const fail = (why: string): never => {
        throw new ContainerManagerError("EnforcementFailed", `Failed to enforce ${words} Cgroup Limits on ${JSON.stringify(cgroup)}: ${why}`);
      };
      if (!cgroups.exists(name)) fail(`${JSON.stringify(cgroupNameToCgroupfs(name))} cgroup does not exist`);
      try {
        await cgroups.update(name, cgroupConfigOf(toMilliList(list)) ?? {});
      } catch (err) {
        fail((err as Error).message);
      }
      this.#log(`Updated limits on ${words.toLowerCase()} cgroup ${cgroup}`);
    }
  }

  #qosCgroup(qos: Exclude<PodQOSClass, "Guaranteed">): CgroupName {
    return [...(this.#podsRoot as CgroupName), qos === "Burstable" ? "burstable" : "besteffort"];
  }

  // setHugePagesUnbounded: the QoS cgroups' hugetlb limits are 1<<62 for every page size.
  #hugePagesUnbounded(): Map<bigint, bigint> {
    const out = new Map<bigint, bigint>();
    for (const name of this.#o.capacity.hugePages?.keys() ?? []) {
      const size = hugePageSizeOfResource(name);
      if (size !== undefined) out.set(size, 1n << 62n);
    }
    return out;
  }

  // qosContainerManagerImpl.Start: BestEffort gets 2 shares; both are created or updated.
  async #startQOS(): Promise<void> {
    const cgroups = this.#cgroups as CgroupManager;
    for (const qos of ["Burstable", "BestEffort"] as const) {
      const name = this.#qosCgroup(qos);
      const rc: ResourceConfig = qos === "BestEffort" ? { cpuShares: 2n, hugePageLimit: this.#hugePagesUnbounded() } : { hugePageLimit: this.#hugePagesUnbounded() };
      if (!cgroups.exists(name)) await cgroups.create(name, rc);
      else await cgroups.update(name, rc);
    }
  }

  /**
   * Sets the QoS cgroups from the active pods: BestEffort 2 shares, Burstable the shares of the
   * summed CPU requests of Burstable pods; with `--qos-reserved=memory=P%` (gate QOSReserved)
   * Burstable's memory limit is allocatable − P% of Guaranteed requests and BestEffort's that
   * minus P% of Burstable requests. No-op without cgroups-per-qos.
   * @throws CgroupError when a QoS cgroup cannot be written.
   * @see pkg/kubelet/cm/qos_container_manager_linux.go (UpdateCgroups, setCPUCgroupConfig, setMemoryReserve) in kubernetes/kubernetes v1.23
   */
  async updateQOSCgroups(activePods: readonly Pod[]): Promise<void> {
    const cgroups = this.#cgroups;
    if (!cgroups) return;
    const { burstable, besteffort } = this.#qosConfigs(activePods);
    await Promise.all([cgroups.update(this.#qosCgroup("Burstable"), burstable), cgroups.update(this.#qosCgroup("BestEffort"), besteffort)]);
    this.#lastQOS = qosKey(burstable, besteffort);
  }

  // The QoS cgroups' settings last written (updateQOSCgroups), so that a pod start whose pods do
  // not change them writes nothing; housekeeping still rewrites them every period.
  #lastQOS: string | undefined;

  // updateQOSCgroups unless the active pods give the settings last written.
  async #updateQOSCgroupsIfChanged(activePods: readonly Pod[]): Promise<void> {
    if (this.#lastQOS === undefined) return this.updateQOSCgroups(activePods);
    const { burstable, besteffort } = this.#qosConfigs(activePods);
    if (this.#lastQOS !== qosKey(burstable, besteffort)) await this.updateQOSCgroups(activePods);
  }

  // What updateQOSCgroups writes for `activePods`.
  #qosConfigs(activePods: readonly Pod[]): { burstable: ResourceConfig; besteffort: ResourceConfig } {
    let burstableCPU = 0n;
    const memoryRequests = { Guaranteed: 0n, Burstable: 0n };
    for (const pod of activePods) {
      const qos = podQOSClass(pod);
      if (qos === "BestEffort") continue;
      const { requests } = podRequestsAndLimits(pod);
      if (qos === "Burstable") burstableCPU += requests.get("cpu") ?? 0n;
      memoryRequests[qos] += valueOfMilli(requests.get("memory") ?? 0n);
    }
    const burstable: ResourceConfig = { cpuShares: cgroupMilliCPUToShares(burstableCPU), hugePageLimit: this.#hugePagesUnbounded() };
    const besteffort: ResourceConfig = { cpuShares: 2n, hugePageLimit: this.#hugePagesUnbounded() };
    const percent = this.#o.qosReserved.memory;
    if (this.#o.qosReservedEnabled && percent !== undefined) {
      const p = BigInt(Number.parseInt(percent, 10) || 0);
      const allocatable = valueOfMilli(this.nodeAllocatableAbsolute().get("memory") ?? 0n);
      if (allocatable > 0n) {
        burstable.memory = allocatable - (memoryRequests.Guaranteed * p) / 100n;
        besteffort.memory = burstable.memory - (memoryRequests.Burstable * p) / 100n;
      } else this.#log("Allocatable memory value could not be determined, not setting QoS memory limits", 2);
    }
    return { burstable, besteffort };
  }

  /** The cgroup name of a pod: `pod<uid>` under its QoS cgroup; undefined without cgroups-per-qos. */
  podCgroupName(pod: Pod): CgroupName | undefined {
    if (!this.#podsRoot) return undefined;
    const qos = podQOSClass(pod);
    const parent = qos === "Guaranteed" ? this.#podsRoot : this.#qosCgroup(qos);
    return [...parent, `pod${pod.metadata?.uid ?? ""}`];
  }

  /**
   * The CRI sandbox `cgroup_parent` of a pod: the cgroupfs path (`/kubepods/burstable/pod<uid>`),
   * or with the systemd driver its systemd form (`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid with _>.slice`);
   * `""` without cgroups-per-qos.
   * @see pkg/kubelet/cm/cgroup_manager_linux.go (Name) in kubernetes/kubernetes v1.23
   */
  cgroupParent(pod: Pod): string {
    const name = this.podCgroupName(pod);
    if (name === undefined) return "";
    return this.#cgroups?.driver === "systemd" ? cgroupNameToSystemd(name) : cgroupNameToCgroupfs(name);
  }

  /**
   * Creates the pod's cgroup with {@link resourceConfigForPod} (plus `pids.max` from
   * `--pod-max-pids`) when it does not exist yet, after updating the QoS cgroups with
   * `activePods`. An existing pod cgroup is left as it is (as 1.23). No-op without cgroups-per-qos.
   * @throws Error `failed to create container for /kubepods/pod<uid> : <cause>`.
   * @see pkg/kubelet/cm/pod_container_manager_linux.go (EnsureExists) in kubernetes/kubernetes v1.23
   */
  async ensurePod(pod: Pod, activePods: readonly Pod[]): Promise<void> {
    const cgroups = this.#cgroups;
    const name = this.podCgroupName(pod);
    if (!cgroups || !name) return;
    this.#owned.add(pod.metadata?.uid ?? "");
    if (cgroups.exists(name)) return;
    const tq = agentTracer.now();
    await this.#updateQOSCgroupsIfChanged(activePods).catch((err: unknown) => this.#log(`Failed to update QoS cgroups while syncing pod: ${(err as Error).message}`, 2));
    agentTracer.record("qos-update", tq, agentTracer.now(), { uid: pod.metadata?.uid ?? "" });
    const rc = resourceConfigForPod(pod, { enforceCPULimits: this.#o.cpuCFSQuota, cpuPeriodUs: this.#o.cpuCFSQuotaPeriodUs, customCPUCFSQuotaPeriod: this.#o.customCPUCFSQuotaPeriod });
    if (this.#o.podPidsLimit > 0) rc.pidsLimit = BigInt(this.#o.podPidsLimit);
    try {
      await cgroups.create(name, rc);
    } catch (err) {
      throw new Error(`failed to create container for ${cgroupNameToCgroupfs(name)} : ${(err as Error).message}`, { cause: err });
    }
  }

  /**
   * Removes the cgroup of the pod with `uid` (wherever its QoS class put it) once its processes
   * are gone. Missing cgroups are fine.
   * @throws CgroupError `CgroupBusy` while processes remain (retried by {@link cleanupOrphans}).
   */
  async removePod(uid: string): Promise<void> {
    const cgroups = this.#cgroups;
    if (!cgroups || !this.#podsRoot || uid === "") return;
    for (const parent of [this.#podsRoot, this.#qosCgroup("Burstable"), this.#qosCgroup("BestEffort")]) {
      const name = [...parent, `pod${uid}`];
      if (cgroups.allPaths(name).some((p) => existsSync(p))) await cgroups.destroy(name);
    }
    this.#owned.delete(uid);
  }

  /** The UIDs that have a pod cgroup. */
  async podCgroupUIDs(): Promise<string[]> {
    const cgroups = this.#cgroups;
    if (!cgroups || !this.#podsRoot) return [];
    const out: string[] = [];
    for (const parent of [this.#podsRoot, this.#qosCgroup("Burstable"), this.#qosCgroup("BestEffort")]) {
      for (const child of await cgroups.children(parent)) if (child.startsWith("pod")) out.push(child.slice(3));
    }
    return out;
  }

  /**
   * Removes the cgroups of pods not in `activeUIDs` (pods gone or terminated) among those this
   * manager created or synced; a busy one is logged and tried again at the next call. Only those
   * pods are looked at (no listing of the QoS cgroups' children: on v1 that is every hierarchy's
   * directory, with every pod cgroup of the host in it, every housekeeping period).
   * @see pkg/kubelet/kubelet_pods.go (cleanupOrphanedPodCgroups) in kubernetes/kubernetes v1.23
   */
  async cleanupOrphans(activeUIDs: ReadonlySet<string>): Promise<void> {
    for (const uid of [...this.#owned].sort()) {
      if (activeUIDs.has(uid)) continue;
      await this.removePod(uid).then(
        () => this.#owned.delete(uid),
        (err: unknown) => {
        const why = err instanceof CgroupError ? err.message : String(err);
          this.#log(`Failed to remove orphaned pod cgroup of pod ${uid}: ${why}`, 2);
        },
      );
    }
  }
}

// A ResourceConfig pair as text (bigints and Maps included), to compare with what was written.
function qosKey(...rcs: readonly ResourceConfig[]): string {
  return JSON.stringify(rcs, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v instanceof Map ? [...(v as Map<unknown, unknown>)] : v));
}
