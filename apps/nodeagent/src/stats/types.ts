/**
 * The `/stats/summary` wire types: the kubelet's stats API `v1alpha1`, field names and optionality
 * as its JSON encoding writes them (optional fields are left out, never `null`). Times are RFC 3339
 * to the second (`2006-01-02T15:04:05Z`), as Go's `metav1.Time` encodes them.
 * @see staging/src/k8s.io/kubelet/pkg/apis/stats/v1alpha1/types.go in kubernetes/kubernetes v1.23
 */

/** The whole summary. `pods` is `[]` (never `null`) when there are none. */
export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

export interface NodeStats {
  nodeName: string;
  /** `kubelet`, `runtime`, `misc`, `pods`: only those whose cgroup is configured and readable. */
  systemContainers?: ContainerStats[];
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  /** The filesystem of `--root-dir` (nodefs). */
  fs?: FsStats;
  runtime?: { imageFs?: FsStats };
  rlimit?: RlimitStats;
}

export interface RlimitStats {
  time: string;
  /** `/proc/sys/kernel/pid_max`. */
  maxpid?: number;
  /** Kernel tasks (processes and threads) now, as `sysinfo.procs`. */
  curproc?: number;
}

export interface PodReference {
  name: string;
  namespace: string;
  uid: string;
}

export interface PodStats {
  podRef: PodReference;
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  volume?: VolumeStats[];
  "ephemeral-storage"?: FsStats;
  process_stats?: { process_count?: number };
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface CPUStats {
  time: string;
  /** Core-nanoseconds per second over the last sample window; absent until two samples exist. */
  usageNanoCores?: number;
  /** Cumulative CPU time, nanoseconds. */
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  /** Usage minus inactive file pages: what eviction and `kubectl top` read. */
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface InterfaceStats {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

/** The default interface's counters inline, every interface in `interfaces`. */
export interface NetworkStats extends InterfaceStats {
  time: string;
  interfaces?: InterfaceStats[];
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface VolumeStats extends FsStats {
  /** The volume's name in the pod spec. */
  name: string;
}
