/**
 * The node agent's stats provider: pod and container usage over CRI (`ListPodSandbox`,
 * `ListContainers`, `ListContainerStats`, `ImageFsInfo`), the node's from the host (`/proc/stat`,
 * the root memory cgroup or `/proc/meminfo`, `statfs` of `--root-dir` and of the image fs,
 * `/proc/net/dev`, PID limits), volumes from the {@link VolumeStatsCache}. It is the one source
 * `/stats/summary`, `/metrics/resource` and (later) the eviction manager and image GC read.
 *
 * A runtime that answers `ListContainerStats` with `Unimplemented` is not an error: the provider
 * logs one warning and reads each container's cgroup instead (found through the pid that a verbose
 * `ContainerStatus` reports); containers it cannot place report zero usage, as 1.23 does for
 * containers without CRI stats.
 * @see pkg/kubelet/stats/cri_stats_provider.go, pkg/kubelet/stats/provider.go, pkg/kubelet/stats/helper.go in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/server/stats/summary.go in kubernetes/kubernetes v1.23
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { isCRIError } from "@skiff/cri-api";
import type { Container__Output, ContainerStats__Output, ImageClient, ImageFsInfoResponse__Output, ListContainerStatsResponse__Output, PodSandbox__Output, RuntimeClient } from "@skiff/cri-api";
import { buildPodLogsDirectory } from "../pods/logs.js";
import { CpuUsageCache } from "./cpu-usage-cache.js";
import { defaultHostPaths, detectCgroupVersion, readCgroupProcessCount, readCgroupUsage, readDirUsageTreeSync, readFsUsage, readMemInfo, readNetDev, readPidLimits, readProcessNetDev, readProcStat, readProcStatSync, readProcessCgroup } from "./host.js";
import type { CgroupVersion, DirUsageTree, FsUsage, HostPaths } from "./host.js";
import type { ContainerStats, CPUStats, FsStats, MemoryStats, NetworkStats, NodeStats, PodStats, RlimitStats, Summary, VolumeStats } from "./types.js";
import type { VolumeStatsCache } from "./volume-stats.js";

/** The CRI clients the provider calls (getters: the channels may be replaced on reconnect). */
export interface StatsCRI {
  readonly runtime: RuntimeClient;
  readonly images: ImageClient;
}

/** Options of {@link StatsProvider}. */
export interface StatsProviderOptions {
  readonly nodeName: string;
  /** `--root-dir`: its filesystem is the nodefs. */
  readonly rootDir: string;
  /** Where container logs live (`<podLogsDir>/<ns>_<name>_<uid>/<container>/`). @defaultValue "/var/log/pods" */
  readonly podLogsDir?: string;
  readonly cri: StatsCRI;
  /** Pod volumes measured in the background; without it pods report no volumes (collection disabled). */
  readonly volumes?: VolumeStatsCache;
  /** Cgroups of the system containers (`--agent-cgroups`, `--runtime-cgroups`, `--system-cgroups`); empty ones are skipped. */
  readonly systemCgroups?: { readonly kubelet?: string; readonly runtime?: string; readonly misc?: string };
  /** @defaultValue the real `/proc` and `/sys/fs/cgroup` */
  /**
   * The node allocatable of memory for pods in bytes (capacity − `--system-reserved` −
   * `--kube-reserved`, the limit 1.23 gives the pods' cgroup): with it the summary has the `pods`
   * system container, whose memory available is this minus the pods' working set (the
   * `allocatableMemory.available` signal). Without it there is no `pods` entry.
   */
  readonly podsAllocatableMemoryBytes?: number;
  readonly hostPaths?: HostPaths;
  /** Warnings (a runtime without stats...). */
  readonly log?: (message: string) => void;
  /** @defaultValue Date.now */
  readonly nowMs?: () => number;
}

// One summary stamps hundreds of entries with the same instant: the last one's text is kept.
let lastStampMs = Number.NaN;
let lastStamp = "";
const rfc3339 = (ms: number): string => {
  if (ms !== lastStampMs) {
    const iso = new Date(ms).toISOString();
    lastStamp = `${iso.slice(0, -5)}Z`;
    lastStampMs = ms;
  }
  return lastStamp;
};
const nsToMs = (ns: string | number) => Math.floor(Number(ns) / 1e6);
const u64 = (v: { value?: string | number } | null | undefined): number | undefined => (v == null ? undefined : Number(v.value ?? 0));

function fsStatsOf(timeMs: number, fs: FsUsage | undefined, used?: { usedBytes?: number; inodesUsed?: number }): FsStats {
  return {
    time: rfc3339(timeMs),
    ...(fs ? { availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes } : {}),
    ...(used?.usedBytes !== undefined ? { usedBytes: used.usedBytes } : {}),
    ...(fs ? { inodesFree: fs.inodesFree, inodes: fs.inodes } : {}),
    ...(used?.inodesUsed !== undefined ? { inodesUsed: used.inodesUsed } : {}),
  };
}

/**
 * Keeps, per pod UID, the ready sandboxes, or the newest one when none is ready (1.23's
 * `removeTerminatedPods`). Pure.
 */
export function removeTerminatedPods(sandboxes: readonly PodSandbox__Output[]): PodSandbox__Output[] {
  const byPod = new Map<string, PodSandbox__Output[]>();
  for (const s of [...sandboxes].sort((a, b) => Number(a.createdAt) - Number(b.createdAt))) {
    const key = `${s.metadata?.namespace ?? ""}/${s.metadata?.name ?? ""}/${s.metadata?.uid ?? ""}`;
    byPod.set(key, [...(byPod.get(key) ?? []), s]);
  }
  const out: PodSandbox__Output[] = [];
  for (const refs of byPod.values()) {
    const ready = refs.filter((s) => s.state === "SANDBOX_READY");
    const last = refs[refs.length - 1];
    if (refs.length === 1 || ready.length === 0) {
      if (last) out.push(last);
    } else out.push(...ready);
  }
  return out;
}

/**
 * Keeps, per sandbox and container name, the running containers, or the newest one when none runs
 * (1.23's `removeTerminatedContainers`). Pure.
 */
export function removeTerminatedContainers(containers: readonly Container__Output[]): Container__Output[] {
  const byName = new Map<string, Container__Output[]>();
  for (const c of [...containers].sort((a, b) => Number(a.createdAt) - Number(b.createdAt))) {
    const key = `${c.podSandboxId}/${c.metadata?.name ?? ""}`;
    byName.set(key, [...(byName.get(key) ?? []), c]);
  }
  const out: Container__Output[] = [];
  for (const refs of byName.values()) {
    const running = refs.filter((c) => c.state === "CONTAINER_RUNNING");
    const last = refs[refs.length - 1];
    if (running.length > 0) out.push(...running);
    else if (last) out.push(last);
  }
  return out;
}

function sum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/**
 * Adds a container's CPU and memory to its pod's (1.23's `addPodCPUMemoryStats` without a pod
 * cgroup: the pod is the sum of its containers; `usageNanoCores` counts missing values as 0).
 * Mutates `pod`.
 */
export function addContainerToPod(pod: PodStats, c: ContainerStats): void {
  if (c.cpu) {
    pod.cpu = {
      time: c.cpu.time,
      usageNanoCores: (pod.cpu?.usageNanoCores ?? 0) + (c.cpu.usageNanoCores ?? 0),
      usageCoreNanoSeconds: (pod.cpu?.usageCoreNanoSeconds ?? 0) + (c.cpu.usageCoreNanoSeconds ?? 0),
    };
  }
  if (c.memory) {
    const m: MemoryStats = { time: c.memory.time };
    const keys = ["availableBytes", "usageBytes", "workingSetBytes", "rssBytes", "pageFaults", "majorPageFaults"] as const;
    for (const k of keys) {
      const v = sum(pod.memory?.[k], c.memory[k]);
      if (v !== undefined) m[k] = v;
    }
    pod.memory = m;
  }
}

/**
 * A pod's `ephemeral-storage`: capacity and availability of the nodefs, usage of the containers'
 * writable layers, the ephemeral volumes, the pod's logs and its `etc-hosts` (1.23's
 * `calcEphemeralStorage` for the CRI provider). Pure.
 */
export function calcEphemeralStorage(containers: readonly ContainerStats[], volumes: readonly VolumeStats[], rootFs: FsUsage | undefined, nowMs: number, extra: readonly ({ usedBytes: number; inodesUsed: number } | undefined)[]): FsStats {
  let usedBytes: number | undefined;
  let inodesUsed: number | undefined;
  for (const s of [...containers.map((c) => c.rootfs), ...volumes, ...extra]) {
    if (!s) continue;
    usedBytes = sum(usedBytes, s.usedBytes);
    inodesUsed = sum(inodesUsed, s.inodesUsed);
  }
  return fsStatsOf(nowMs, rootFs, { ...(usedBytes !== undefined ? { usedBytes } : {}), ...(inodesUsed !== undefined ? { inodesUsed } : {}) });
}

/** The CPU-and-memory view of the node for eviction and `/metrics/resource`. */
export interface NodeCPUAndMemory {
  readonly cpu?: CPUStats;
  readonly memory?: MemoryStats;
}

/**
 * See the module comment. Every method resolves (never rejects) except when the runtime itself
 * fails a call it does implement (then the error propagates, so `/stats/summary` answers 500 and
 * `/metrics/resource` sets `scrape_error`).
 * @example
 * ```ts
 * const stats = new StatsProvider({ nodeName: "node-1", rootDir: "/var/lib/nodeagent", cri: runtime.cri });
 * const summary = await stats.summary(false);
 * ```
 */
export class StatsProvider {
  private readonly paths: HostPaths;
  private readonly cpuCache: CpuUsageCache;
  private readonly now: () => number;
  private cgroupVersion: Promise<CgroupVersion> | undefined;
  private criStatsUnimplemented = false;
  private sampler: NodeJS.Timeout | undefined;
  /** The CPU sample in progress (or the last one), its failure swallowed. */
  private sampling: Promise<void> = Promise.resolve();
  /** Container id → its own cgroup path (null: none of its own, e.g. the process runtime's shared one). */
  private readonly cgroupOf = new Map<string, string | null>();
  /** Sandbox id → the pid of its process (null: the runtime gives none, e.g. the process runtime). */
  private readonly sandboxPid = new Map<string, number | null>();
  /**
   * Figures 1.23 takes from cadvisor's housekeeping cache rather than reading them per summary
   * (a pod's network from its infra container's, the task count of its cgroup): read at most once
   * per housekeeping period, keyed by sandbox or container id.
   */
  private readonly housekept = new Map<string, { atMs: number; value: Promise<unknown> }>();
  private housekeepingMs = 10_000;
  /** When the last CPU sample was taken (by the housekeeping or a summary with `updateStats`). */
  private lastSampleMs: number | undefined;
  private running = false;

  constructor(private readonly o: StatsProviderOptions) {
    this.paths = o.hostPaths ?? defaultHostPaths;
    this.now = o.nowMs ?? Date.now;
    this.cpuCache = new CpuUsageCache(this.now);
  }

  /**
   * Housekeeping: {@link sampleCPU} now, then whenever no sample was taken for `periodMs` plus a
   * grace of a quarter period (at most 1.5 s). A summary with `updateStats` (the eviction manager's,
   * every 10 s, as 1.23's `Get(ctx, updateStats=true)`) is a sample and puts the housekeeping off:
   * while the eviction manager runs, one CRI listing per period serves both. Errors (runtime
   * down) are skipped silently: the next tick tries again. @defaultValue 10 s
   */
  start(periodMs = 10_000): void {
    if (this.running) return;
    this.running = true;
    this.housekeepingMs = periodMs;
    void this.sampleCPU().catch(() => undefined);
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.sampler);
    this.sampler = undefined;
  }

  // A sample was taken now: the housekeeping's next one is due a period (plus grace) from now.
  private sampled(): void {
    this.lastSampleMs = this.now();
    clearTimeout(this.sampler);
    if (!this.running) return;
    this.sampler = setTimeout(() => void this.sampleCPU().catch(() => undefined), this.housekeepingMs + Math.min(1_500, this.housekeepingMs / 4));
    this.sampler.unref();
  }

  // Whether a summary asked to update the stats takes a CPU sample: not within half a period of
  // the last one (a window shorter than a CFS period skews the rate; see sampleCPU).
  private sampleDue(): boolean {
    return this.lastSampleMs === undefined || this.now() - this.lastSampleMs >= this.housekeepingMs / 2;
  }

  /**
   * Takes one CPU sample of the node, of every container and of the system containers, and
   * prunes the CPU cache: `usageNanoCores` is the rate between two such samples. The housekeeping
   * ({@link start}) is meant to be the only caller, as 1.23's `ListPodStatsAndUpdateCPUNanoCoreUsage`
   * assumes one periodic caller ("if there exist multiple callers, the period used to compute the
   * cpu usage may vary and the usage could be incoherent"): a second sampler a few milliseconds
   * after the first makes the window shorter than a CFS period, where a container limited to
   * 500m can show a whole core. Every other read (`/stats/summary`, `/metrics/resource`, the
   * eviction manager) reads the rate of the last sample.
   * @see pkg/kubelet/stats/cri_stats_provider.go (ListPodStatsAndUpdateCPUNanoCoreUsage) in kubernetes/kubernetes v1.23
   */
  async sampleCPU(): Promise<void> {
    this.sampled();
    const work = Promise.all([this.nodeCPUAndMemory(true), this.podStats(true, true), this.systemContainerStats(true)]).then(() => this.cpuCache.cleanup());
    this.sampling = work.catch(() => undefined);
    await work;
  }

  /** Resolves once the CPU sample in progress, if any (the housekeeping's first one after {@link start}), is done; never rejects. */
  settled(): Promise<void> {
    return this.sampling;
  }

  /**
   * The `pods` system container (1.23's summary entry for the pod cgroup root): CPU and memory
   * summed over the pods (Skiff's pods have no cgroup of their own), memory available = the pods'
   * allocatable ({@link StatsProviderOptions.podsAllocatableMemoryBytes}) − their working set, not
   * below 0.
   * @see pkg/kubelet/server/stats/summary.go (SystemContainerPods) in kubernetes/kubernetes v1.23
   */
  private podsSystemContainer(pods: readonly PodStats[], time: string | undefined): ContainerStats | undefined {
    const allocatable = this.o.podsAllocatableMemoryBytes;
    if (allocatable === undefined) return undefined;
    let workingSetBytes = 0;
    let usageBytes = 0;
    let usageCoreNanoSeconds = 0;
    let usageNanoCores = 0;
    for (const p of pods) {
      workingSetBytes += p.memory?.workingSetBytes ?? 0;
      usageBytes += p.memory?.usageBytes ?? 0;
      usageCoreNanoSeconds += p.cpu?.usageCoreNanoSeconds ?? 0;
      usageNanoCores += p.cpu?.usageNanoCores ?? 0;
    }
    const t = time ?? rfc3339((this.o.nowMs ?? Date.now)());
    return {
      name: "pods",
      startTime: t,
      cpu: { time: t, usageNanoCores, usageCoreNanoSeconds },
      memory: { time: t, availableBytes: Math.max(0, allocatable - workingSetBytes), usageBytes, workingSetBytes },
    };
  }

  /** `read()`'s value, read again once it is a housekeeping period old (a failed read is not kept). */
  private perHousekeeping<T>(key: string, read: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = this.housekept.get(key);
    if (hit && now - hit.atMs < this.housekeepingMs) return hit.value as Promise<T>;
    const value = read();
    this.housekept.set(key, { atMs: now, value });
    value.catch(() => {
      if (this.housekept.get(key)?.value === value) this.housekept.delete(key);
    });
    return value;
  }

  private version(): Promise<CgroupVersion> {
    this.cgroupVersion ??= detectCgroupVersion(this.paths);
    return this.cgroupVersion;
  }

  /**
   * The whole summary, or its CPU-and-memory subset (`?only_cpu_and_memory=true`). Memory, fs and
   * cumulative CPU are read fresh; `usageNanoCores` is the rate between the last two
   * samples ({@link sampleCPU}). `updateStats` (1.23's `Get(ctx, updateStats)`, the eviction
   * manager's pass) makes this summary the period's CPU sample when the last one is at least half a
   * period old (then `usageNanoCores` is the rate up to now and the housekeeping's next sample is
   * put off a period); otherwise no caller of the summary moves that window.
   * `podsCpuAndMemoryOnly` keeps the node's entry whole but gives the pods only their CPU and
   * memory (the eviction manager's pass when no pod's disk usage matters; no log directory walks).
   * @see pkg/kubelet/server/stats/summary.go (Get) in kubernetes/kubernetes v1.23
   */
  async summary(onlyCpuAndMemory: boolean, opts: { readonly updateStats?: boolean; readonly podsCpuAndMemoryOnly?: boolean } = {}): Promise<Summary> {
    const updateCpu = opts.updateStats === true && this.sampleDue();
    if (updateCpu) this.sampled();
    // One ImageFsInfo call serves the containers' rootfs capacity and the node's image fs.
    const imageFsInfo = onlyCpuAndMemory ? undefined : this.o.cri.images.imageFsInfo({});
    imageFsInfo?.catch(() => undefined);
    const [nodeCpuMem, pods, bootTime, systemContainers] = await Promise.all([
      this.nodeCPUAndMemory(updateCpu),
      this.podStats(updateCpu, onlyCpuAndMemory || opts.podsCpuAndMemoryOnly === true, imageFsInfo),
      readProcStat(this.paths).then((s) => s.bootTimeSeconds),
      this.systemContainerStats(updateCpu),
    ]);
    if (updateCpu) this.cpuCache.cleanup();
    const podsContainer = this.podsSystemContainer(pods, nodeCpuMem.memory?.time);
    if (podsContainer) systemContainers.push(podsContainer);
    const node: NodeStats = {
      nodeName: this.o.nodeName,
      ...(systemContainers.length > 0 ? { systemContainers } : {}),
      startTime: rfc3339((bootTime ?? 0) * 1000),
      ...(nodeCpuMem.cpu ? { cpu: nodeCpuMem.cpu } : {}),
      ...(nodeCpuMem.memory ? { memory: nodeCpuMem.memory } : {}),
    };
    if (!onlyCpuAndMemory) {
      const [network, fs, imageFs, rlimit] = await Promise.all([this.nodeNetworkStats(), this.rootFsStats(), this.imageFsStats(imageFsInfo), this.rlimitStats()]);
      if (network) node.network = network;
      if (fs) node.fs = fs;
      node.runtime = imageFs ? { imageFs } : {};
      node.rlimit = rlimit;
    }
    return { node, pods };
  }

  /**
   * The node's CPU (`/proc/stat`; `usageNanoCores` since the previous sample) and memory (the
   * root memory cgroup: working set = usage − inactive file, available = MemTotal − working set;
   * `/proc/meminfo` when the cgroup cannot be read). `updateCpu` false reads the last computed
   * nano-cores without taking a sample.
   */
  async nodeCPUAndMemory(updateCpu = true): Promise<NodeCPUAndMemory> {
    // The sample's time is when the counter was read (a synchronous read, then the clock), not
    // when this call started or its other reads resolved.
    const procStat = readProcStatSync(this.paths);
    const sampledMs = this.now();
    const [memInfo, root] = await Promise.all([readMemInfo(this.paths), this.version().then((v) => readCgroupUsage(this.paths, v, "/"))]);
    const nowMs = this.now();
    let cpu: CPUStats | undefined;
    if (procStat.usageCoreNanoSeconds !== undefined) {
      const nano = updateCpu ? this.cpuCache.update("node", { timestampNs: sampledMs * 1e6, usageCoreNanoSeconds: procStat.usageCoreNanoSeconds }) : this.cpuCache.cached("node");
      cpu = { time: rfc3339(sampledMs), ...(nano !== undefined ? { usageNanoCores: nano } : {}), usageCoreNanoSeconds: procStat.usageCoreNanoSeconds };
    }
    let memory: MemoryStats | undefined;
    const total = memInfo.totalBytes;
    if (root.workingSetBytes !== undefined && root.usageBytes !== undefined) {
      memory = {
        time: rfc3339(nowMs),
        ...(total !== undefined ? { availableBytes: Math.max(0, total - root.workingSetBytes) } : {}),
        usageBytes: root.usageBytes,
        workingSetBytes: root.workingSetBytes,
        ...(root.rssBytes !== undefined ? { rssBytes: root.rssBytes } : {}),
        ...(root.pageFaults !== undefined ? { pageFaults: root.pageFaults } : {}),
        ...(root.majorPageFaults !== undefined ? { majorPageFaults: root.majorPageFaults } : {}),
      };
    } else if (total !== undefined && memInfo.availableBytes !== undefined) {
      memory = { time: rfc3339(nowMs), availableBytes: memInfo.availableBytes, usageBytes: total - (memInfo.freeBytes ?? memInfo.availableBytes), workingSetBytes: total - memInfo.availableBytes };
    }
    return { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) };
  }

  /** The nodefs: `statfs` of `--root-dir` (capacity, available, used bytes; inodes, free, used). */
  async rootFsStats(): Promise<FsStats | undefined> {
    const fs = await readFsUsage(this.o.rootDir);
    return fs ? { ...fsStatsOf(this.now(), fs), usedBytes: fs.usedBytes, inodesUsed: fs.inodesUsed } : undefined;
  }

  /**
   * The image fs: used bytes and inodes from CRI `ImageFsInfo` (its first filesystem), capacity,
   * available and inodes from `statfs` of its mountpoint. A runtime without `ImageFsInfo` (or an
   * empty answer) degrades to the nodefs's figures, with a warning.
   */
  async imageFsStats(pending?: Promise<ImageFsInfoResponse__Output>): Promise<FsStats | undefined> {
    try {
      const resp = await (pending ?? this.o.cri.images.imageFsInfo({}));
      const first = resp.imageFilesystems[0];
      if (first) {
        const fs = await readFsUsage(first.fsId?.mountpoint || this.o.rootDir);
        const used = { usedBytes: u64(first.usedBytes) ?? 0, ...(first.inodesUsed ? { inodesUsed: u64(first.inodesUsed) ?? 0 } : {}) };
        return fsStatsOf(Number(first.timestamp) > 0 ? nsToMs(first.timestamp) : this.now(), fs, used);
      }
    } catch (err) {
      if (!isCRIError(err, "Unimplemented")) throw err;
    }
    this.o.log?.("Image filesystem stats are not available from the container runtime; reporting the root filesystem instead");
    return this.rootFsStats();
  }

  /**
   * Whether the image fs is another device than `--root-dir`'s (`stat` device numbers of the CRI
   * `ImageFsInfo` mountpoint and the root dir). False when the runtime gives no image fs or
   * either path cannot be read.
   * @see pkg/kubelet/cadvisor/cadvisor_linux.go (HasDedicatedImageFs) in kubernetes/kubernetes v1.23
   */
  async hasDedicatedImageFs(): Promise<boolean> {
    try {
      const resp = await this.o.cri.images.imageFsInfo({});
      const mountpoint = resp.imageFilesystems[0]?.fsId?.mountpoint;
      if (!mountpoint) return false;
      // A mountpoint that cannot be read (a runtime reporting a path it has not created) is not a device of its own.
      const [a, b] = await Promise.all([stat(mountpoint).catch(() => undefined), stat(this.o.rootDir).catch(() => undefined)]);
      return a !== undefined && b !== undefined && a.dev !== b.dev;
    } catch (err) {
      if (isCRIError(err, "Unimplemented")) return false;
      throw err;
    }
  }

  /** `maxpid` and `curproc` now. */
  async rlimitStats(): Promise<RlimitStats> {
    return { time: rfc3339(this.now()), ...(await readPidLimits(this.paths)) };
  }

  /**
   * A pod's network: the interfaces of its sandbox process's network namespace (`/proc/<pid>/net/dev`,
   * the pid from a verbose `PodSandboxStatus`), `eth0` inline, as 1.23 reports the pod infra
   * container's network. Absent when the runtime gives no pid.
   * @see pkg/kubelet/stats/cri_stats_provider.go (makePodStats: network from the sandbox) in kubernetes/kubernetes v1.23
   */
  private async podNetworkStats(sandboxId: string, nowMs: number): Promise<NetworkStats | undefined> {
    let pid = this.sandboxPid.get(sandboxId);
    if (pid === undefined) {
      const st = await this.o.cri.runtime.podSandboxStatus({ podSandboxId: sandboxId, verbose: true }).catch(() => undefined);
      const n = Number((JSON.parse(st?.info?.["info"] ?? "{}") as { pid?: number }).pid);
      pid = Number.isInteger(n) && n > 0 ? n : null;
      if (st !== undefined) this.sandboxPid.set(sandboxId, pid);
    }
    if (pid === null) return undefined;
    const ifaces = await readProcessNetDev(this.paths, pid);
    const def = ifaces.find((i) => i.name === "eth0") ?? ifaces[0];
    if (!def) return undefined;
    return { time: rfc3339(nowMs), ...def, interfaces: ifaces.map((i) => ({ ...i })) };
  }

  private async nodeNetworkStats(): Promise<NetworkStats | undefined> {
    const ifaces = await readNetDev(this.paths);
    if (ifaces.length === 0) return undefined;
    const def = ifaces.find((i) => i.name === "eth0") ?? ifaces[0];
    if (!def) return undefined;
    return { time: rfc3339(this.now()), ...def, interfaces: ifaces.map((i) => ({ ...i })) };
  }

  private async systemContainerStats(updateCpu: boolean): Promise<ContainerStats[]> {
    const sys = this.o.systemCgroups ?? {};
    const version = await this.version();
    const out: ContainerStats[] = [];
    for (const [name, cgroup] of [["kubelet", sys.kubelet], ["runtime", sys.runtime], ["misc", sys.misc]] as const) {
      if (!cgroup) continue;
      const u = await readCgroupUsage(this.paths, version, cgroup);
      const sampledMs = this.now();
      if (u.usageCoreNanoSeconds === undefined && u.usageBytes === undefined) {
        this.o.log?.(`Failed to get system container stats for ${JSON.stringify(cgroup)}: cgroup not readable`);
        continue;
      }
      const t = rfc3339(sampledMs);
      const id = `cgroup:${cgroup}`;
      const nano = u.usageCoreNanoSeconds === undefined ? undefined : updateCpu ? this.cpuCache.update(id, { timestampNs: sampledMs * 1e6, usageCoreNanoSeconds: u.usageCoreNanoSeconds }) : this.cpuCache.cached(id);
      out.push({
        name,
        startTime: t,
        ...(u.usageCoreNanoSeconds !== undefined ? { cpu: { time: t, ...(nano !== undefined ? { usageNanoCores: nano } : {}), usageCoreNanoSeconds: u.usageCoreNanoSeconds } } : {}),
        ...(u.usageBytes !== undefined ? { memory: { time: t, usageBytes: u.usageBytes, ...(u.workingSetBytes !== undefined ? { workingSetBytes: u.workingSetBytes } : {}), ...(u.rssBytes !== undefined ? { rssBytes: u.rssBytes } : {}) } } : {}),
      });
    }
    return out;
  }

  /** Full pod stats: containers (CPU, memory, rootfs, logs), pod CPU and memory, volumes, ephemeral storage; CPU rates from the cache. */
  listPodStats(): Promise<PodStats[]> {
    return this.podStats(false, false);
  }

  /** {@link listPodStats}, taking a new CPU sample per container (see {@link sampleCPU}: meant for one periodic caller only). */
  listPodStatsAndUpdateCPUNanoCoreUsage(): Promise<PodStats[]> {
    return this.podStats(true, false);
  }

  /** CPU and memory only (no filesystems), without moving the CPU sample window. */
  listPodCPUAndMemoryStats(): Promise<PodStats[]> {
    return this.podStats(false, true);
  }

  private async containerStatsFromCRI(containers: readonly Container__Output[], pending?: Promise<ListContainerStatsResponse__Output>): Promise<Map<string, ContainerStats__Output>> {
    const out = new Map<string, ContainerStats__Output>();
    if (!this.criStatsUnimplemented) {
      try {
        const resp = await (pending ?? this.o.cri.runtime.listContainerStats({}));
        for (const s of resp.stats) if (s.attributes?.id) out.set(s.attributes.id, s);
        return out;
      } catch (err) {
        if (!isCRIError(err, "Unimplemented")) throw err;
        this.criStatsUnimplemented = true;
        this.o.log?.("The container runtime does not implement ListContainerStats; reading container usage from cgroups instead");
      }
    }
    // Fallback: the container's cgroup, found through its pid.
    const version = await this.version();
    await Promise.all(
      containers
        .filter((c) => c.state === "CONTAINER_RUNNING")
        .map(async (c) => {
          const cgroup = await this.containerCgroup(c.id);
          if (cgroup === null) return;
          const u = await readCgroupUsage(this.paths, version, cgroup);
          const ts = String(this.now() * 1e6);
          const v = (n: number | undefined) => (n === undefined ? null : { value: String(n) });
          out.set(c.id, {
            attributes: { id: c.id, metadata: c.metadata, labels: c.labels, annotations: c.annotations },
            cpu: { timestamp: ts, usageCoreNanoSeconds: v(u.usageCoreNanoSeconds), usageNanoCores: null },
            memory: { timestamp: ts, workingSetBytes: v(u.workingSetBytes), availableBytes: v(u.limitBytes !== undefined && u.workingSetBytes !== undefined ? Math.max(0, u.limitBytes - u.workingSetBytes) : undefined), usageBytes: v(u.usageBytes), rssBytes: v(u.rssBytes), pageFaults: v(u.pageFaults), majorPageFaults: v(u.majorPageFaults) },
            writableLayer: null,
          });
        }),
    );
    return out;
  }

  /**
   * The cgroup of a container's own (through the pid a verbose `ContainerStatus` reports), cached
   * per container; null when it has none of its own (no pid, or the agent's own cgroup, as with
   * the process runtime) or it cannot be read.
   */
  private async containerCgroup(containerId: string): Promise<string | null> {
    const known = this.cgroupOf.get(containerId);
    if (known !== undefined) return known;
    const version = await this.version();
    const st = await this.o.cri.runtime.containerStatus({ containerId, verbose: true }).catch(() => undefined);
    let pid = 0;
    try {
      pid = Number((JSON.parse(st?.info["info"] ?? "{}") as { pid?: unknown }).pid ?? 0);
    } catch {
      pid = 0;
    }
    let cgroup: string | null = null;
    if (pid > 0) {
      const [theirs, ours] = await Promise.all([readProcessCgroup(this.paths, version, pid), readProcessCgroup(this.paths, version, process.pid)]);
      cgroup = theirs !== undefined && theirs !== ours ? theirs : null;
    }
    // Only a running container's answer is final (a pid of 0 may mean "not started yet").
    if (pid > 0) this.cgroupOf.set(containerId, cgroup);
    return cgroup;
  }

  private makeContainerStats(stats: ContainerStats__Output | undefined, c: Container__Output, updateCpu: boolean, cpuAndMemoryOnly: boolean, imageFs: FsUsage | undefined): ContainerStats {
    const nowMs = this.now();
    const out: ContainerStats = { name: c.metadata?.name ?? "", startTime: rfc3339(nsToMs(c.createdAt)) };
    if (stats?.cpu) {
      const usage = u64(stats.cpu.usageCoreNanoSeconds);
      const tsNs = Number(stats.cpu.timestamp);
      // The rate between the agent's own samples, as 1.23 (the runtime's usageNanoCores, which
      // containerd computes since whichever stats call came before, is not read).
      const nano = usage === undefined ? undefined : updateCpu ? this.cpuCache.update(c.id, { timestampNs: tsNs, usageCoreNanoSeconds: usage }) : this.cpuCache.cached(c.id);
      out.cpu = { time: rfc3339(nsToMs(tsNs)), ...(nano !== undefined ? { usageNanoCores: nano } : {}), ...(usage !== undefined ? { usageCoreNanoSeconds: usage } : {}) };
    } else out.cpu = { time: rfc3339(nowMs), usageNanoCores: 0, usageCoreNanoSeconds: 0 };
    if (stats?.memory) {
      const m = stats.memory;
      const mem: MemoryStats = { time: rfc3339(nsToMs(m.timestamp)) };
      const fields = [
        ["availableBytes", m.availableBytes],
        ["usageBytes", m.usageBytes],
        ["workingSetBytes", m.workingSetBytes],
        ["rssBytes", m.rssBytes],
        ["pageFaults", m.pageFaults],
        ["majorPageFaults", m.majorPageFaults],
      ] as const;
      for (const [k, v] of fields) {
        const n = u64(v);
        // containerd writes 0 for "no limit": an available figure of 0 is left out, as cadvisor does for unlimited cgroups.
        if (n !== undefined && !(k === "availableBytes" && n === 0)) mem[k] = n;
      }
      out.memory = mem;
    } else out.memory = { time: rfc3339(nowMs), workingSetBytes: 0 };
    if (!cpuAndMemoryOnly) {
      const wl = stats?.writableLayer;
      out.rootfs = fsStatsOf(wl && Number(wl.timestamp) > 0 ? nsToMs(wl.timestamp) : nowMs, imageFs, {
        ...(u64(wl?.usedBytes) !== undefined ? { usedBytes: u64(wl?.usedBytes) as number } : {}),
        ...(u64(wl?.inodesUsed) !== undefined ? { inodesUsed: u64(wl?.inodesUsed) as number } : {}),
      });
    }
    return out;
  }

  private async podStats(updateCpu: boolean, cpuAndMemoryOnly: boolean, imageFsInfo?: Promise<ImageFsInfoResponse__Output>): Promise<PodStats[]> {
    const rt = this.o.cri.runtime;
    // The stats and the image fs are asked for together with the lists (one round trip to the
    // runtime, not three in a row); the stats wait for the lists only in the cgroup fallback.
    const pendingStats = this.criStatsUnimplemented ? undefined : rt.listContainerStats({});
    pendingStats?.catch(() => undefined);
    const pendingImageMount = cpuAndMemoryOnly
      ? undefined
      : (imageFsInfo ?? this.o.cri.images.imageFsInfo({}))
          .then((r) => r.imageFilesystems[0]?.fsId?.mountpoint ?? "")
          .catch(() => "");
    const [sandboxResp, containerResp] = await Promise.all([rt.listPodSandbox({}), rt.listContainers({})]);
    const sandboxes = new Map(removeTerminatedPods(sandboxResp.items).map((s) => [s.id, s]));
    const containers = removeTerminatedContainers(containerResp.containers);
    const statsById = await this.containerStatsFromCRI(containers, pendingStats);
    const nowMs = this.now();
    let rootFs: FsUsage | undefined;
    let imageFs: FsUsage | undefined;
    if (pendingImageMount) {
      const imageMount = await pendingImageMount;
      [rootFs, imageFs] = await Promise.all([readFsUsage(this.o.rootDir), readFsUsage(imageMount || this.o.rootDir)]);
    }
    const bySandbox = new Map<string, PodStats>();
    const logsDir = this.o.podLogsDir ?? "/var/log/pods";
    const placed: { c: Container__Output; ps: PodStats; cs: ContainerStats }[] = [];
    for (const c of containers) {
      const sandbox = sandboxes.get(c.podSandboxId);
      if (!sandbox) continue;
      const meta = sandbox.metadata;
      let ps = bySandbox.get(sandbox.id);
      if (!ps) {
        ps = { podRef: { name: meta?.name ?? "", namespace: meta?.namespace ?? "", uid: meta?.uid ?? "" }, startTime: rfc3339(nsToMs(sandbox.createdAt)), containers: [] };
        bySandbox.set(sandbox.id, ps);
      }
      placed.push({ c, ps, cs: this.makeContainerStats(statsById.get(c.id), c, updateCpu, cpuAndMemoryOnly, imageFs) });
    }
    // The file-system reads of every container at once (log directory usage, task counts): the
    // summary's time is that of the slowest read, not of their sum.
    // A pod's log directory is walked once: its total is the pod's log usage, its sub-directories
    // the containers'.
    const version = cpuAndMemoryOnly ? undefined : await this.version();
    const podLogs = new Map<string, DirUsageTree | undefined>();
    const podLogsOf = (ps: PodStats): DirUsageTree | undefined => {
      const dir = buildPodLogsDirectory(logsDir, ps.podRef.namespace, ps.podRef.name, ps.podRef.uid);
      if (!podLogs.has(dir)) podLogs.set(dir, readDirUsageTreeSync(dir));
      return podLogs.get(dir);
    };
    const extras = cpuAndMemoryOnly
      ? []
      : await Promise.all(
          placed.map(async ({ c, ps, cs }) => {
            const [du, processes] = await Promise.all([
              Promise.resolve(podLogsOf(ps)?.children.get(cs.name)),
              // 1.23 reads the pod cgroup's task count; without pod cgroups it is the sum over the containers' own.
              c.state === "CONTAINER_RUNNING" && version !== undefined
                ? this.perHousekeeping(`processes:${c.id}`, () => this.containerCgroup(c.id).then((cgroup) => (cgroup === null ? undefined : readCgroupProcessCount(this.paths, version, cgroup))))
                : Promise.resolve(undefined),
            ]);
            return { du, processes };
          }),
        );
    placed.forEach(({ ps, cs }, i) => {
      const extra = extras[i];
      if (extra) cs.logs = fsStatsOf(nowMs, rootFs, extra.du ?? {});
      addContainerToPod(ps, cs);
      ps.containers.push(cs);
      if (extra?.processes !== undefined) ps.process_stats = { process_count: (ps.process_stats?.process_count ?? 0) + extra.processes };
    });
    if (!cpuAndMemoryOnly) {
      const live = new Set(containers.map((c) => c.id));
      for (const id of this.cgroupOf.keys()) if (!live.has(id)) this.cgroupOf.delete(id);
      for (const id of this.sandboxPid.keys()) if (!sandboxes.has(id)) this.sandboxPid.delete(id);
      for (const key of this.housekept.keys()) {
        const id = key.slice(key.indexOf(":") + 1);
        if (!live.has(id) && !sandboxes.has(id)) this.housekept.delete(key);
      }
      await Promise.all(
        [...bySandbox].map(async ([id, ps]) => {
          const network = await this.perHousekeeping(`network:${id}`, () => this.podNetworkStats(id, nowMs));
          if (network) ps.network = network;
        }),
      );
    }
    const pods = [...bySandbox.values()];
    if (!cpuAndMemoryOnly && this.o.volumes?.enabled) {
      const cache = this.o.volumes;
      await Promise.all(
        pods.map(async (ps) => {
          // Not measured yet: no volumes and no ephemeral storage, as 1.23 before its first pass.
          if (!cache.has(ps.podRef.uid)) return;
          const volumes = cache.get(ps.podRef.uid);
          const logs = podLogsOf(ps);
          const podLogsUsage = logs === undefined ? undefined : { usedBytes: logs.usedBytes, inodesUsed: logs.inodesUsed };
          const etcHosts = readDirUsageTreeSync(join(this.o.rootDir, "pods", ps.podRef.uid, "etc-hosts"));
          const etcHostsUsage = etcHosts === undefined ? undefined : { usedBytes: etcHosts.usedBytes, inodesUsed: etcHosts.inodesUsed };
          if (volumes.length > 0) ps.volume = volumes.map((v) => ({ ...v }));
          ps["ephemeral-storage"] = calcEphemeralStorage(ps.containers, volumes, rootFs, nowMs, [podLogsUsage, etcHostsUsage]);
        }),
      );
    }
    return pods;
  }
}
