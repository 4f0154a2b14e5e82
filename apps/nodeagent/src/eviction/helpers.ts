/**
 * The eviction manager's pure parts: thresholds from the configuration, signal observations from
 * a stats summary, which thresholds are met (with minimum reclaim, grace periods, the pressure
 * transition period), node conditions, pod ranking and the eviction message.
 * @see pkg/kubelet/eviction/helpers.go, pkg/kubelet/eviction/api/types.go in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import { formatQuantity, mustParseDuration, newQuantity, parseQuantity, quantityToNumber, quantityValue } from "@skiff/flags";
import { podRequestsAndLimits, valueOfMilli } from "../pods/resources.js";
import type { FsStats, PodStats, Summary } from "../stats/types.js";

/** An eviction signal (Linux, 1.23). */
export type EvictionSignal =
  | "memory.available"
  | "allocatableMemory.available"
  | "nodefs.available"
  | "nodefs.inodesFree"
  | "imagefs.available"
  | "imagefs.inodesFree"
  | "pid.available";

/** The node conditions eviction reports. */
export type PressureCondition = "MemoryPressure" | "DiskPressure" | "PIDPressure";

/** The resource a signal starves: what the eviction message names and pods are ranked by. */
export type StarvedResource = "memory" | "ephemeral-storage" | "inodes" | "pids";

/** A threshold value: an absolute amount (bytes, inodes or PIDs) or a fraction of capacity in [0, 1]. */
export type ThresholdValue = { readonly quantity: number } | { readonly percentage: number };

/**
 * One eviction threshold: met when the signal's available amount is below `value`. `gracePeriodMs`
 * 0 means hard (act at once); soft thresholds carry their `--eviction-soft-grace-period`.
 */
export interface Threshold {
  readonly signal: EvictionSignal;
  readonly value: ThresholdValue;
  readonly gracePeriodMs: number;
  /** `--eviction-minimum-reclaim`: how far past the threshold reclaim must go before it counts as resolved. */
  readonly minReclaim?: ThresholdValue;
}

/** What one signal measured: available and capacity (bytes, inodes or PIDs) and when (ms since epoch). */
export interface SignalObservation {
  readonly available: number;
  readonly capacity: number;
  readonly timeMs: number;
}

/** Observations by signal; a signal that could not be measured is absent. */
export type SignalObservations = ReadonlyMap<EvictionSignal, SignalObservation>;

/** The stats of a pod by UID (from the same summary as the observations). */
export type PodStatsFunc = (pod: Pod) => PodStats | undefined;

/** `Evicted`: the reason of evicted and refused pods. */
export const evictionReason = "Evicted";

const signalToCondition: Readonly<Record<EvictionSignal, PressureCondition>> = {
  "memory.available": "MemoryPressure",
  "allocatableMemory.available": "MemoryPressure",
  "nodefs.available": "DiskPressure",
  "nodefs.inodesFree": "DiskPressure",
  "imagefs.available": "DiskPressure",
  "imagefs.inodesFree": "DiskPressure",
  "pid.available": "PIDPressure",
};

const signalToResource: Readonly<Record<EvictionSignal, StarvedResource>> = {
  "memory.available": "memory",
  "allocatableMemory.available": "memory",
  "nodefs.available": "ephemeral-storage",
  "nodefs.inodesFree": "inodes",
  "imagefs.available": "ephemeral-storage",
  "imagefs.inodesFree": "inodes",
  "pid.available": "pids",
};

function isSignal(s: string): s is EvictionSignal {
  return Object.hasOwn(signalToCondition, s);
}

/** The resource a signal reclaims. */
export function signalResource(signal: EvictionSignal): StarvedResource {
  return signalToResource[signal];
}

/** Error of {@link parseThresholdConfig}: the first bad setting, with 1.23's message. */
export class ThresholdConfigError extends Error {
  readonly reason = "InvalidEvictionThreshold";
  constructor(message: string) {
    super(message);
    this.name = "ThresholdConfigError";
  }
}

function parseValue(signal: string, text: string, what: "threshold" | "reclaim"): ThresholdValue | undefined {
  if (text.endsWith("%")) {
    // 1.23 ignores a threshold of 0% or 100% (never, or always, met).
    if (what === "threshold" && (text === "0%" || text === "100%")) return undefined;
    const n = Number(text.slice(0, -1));
    if (text.slice(0, -1).trim() === "" || !Number.isFinite(n)) throw new ThresholdConfigError(`invalid percentage: ${text}`);
    if (n < 0) throw new ThresholdConfigError(what === "threshold" ? `eviction percentage threshold ${signal} must be >= 0%: ${text}` : `negative reclaim defined for signal ${signal}: ${text}`);
    if (n > 100 && what === "threshold") throw new ThresholdConfigError(`eviction percentage threshold ${signal} must be <= 100%: ${text}`);
    return { percentage: n / 100 };
  }
  const q = parseQuantity(text);
  if (!q.ok) throw new ThresholdConfigError(`invalid ${what === "threshold" ? "eviction threshold" : "minimum reclaim"} ${signal}: ${q.errors[0]?.message ?? text}`);
  const v = quantityToNumber(q.value);
  if (what === "threshold" && v < 0) throw new ThresholdConfigError(`eviction threshold ${signal} must be positive: ${text}`);
  if (what === "reclaim" && v < 0) throw new ThresholdConfigError(`negative reclaim defined for signal ${signal}: ${text}`);
  return { quantity: v };
}

/** The eviction settings of the configuration, as {@link parseThresholdConfig} reads them. */
export interface ThresholdSettings {
  readonly evictionHard: Readonly<Record<string, string>>;
  readonly evictionSoft: Readonly<Record<string, string>>;
  /** Go durations by signal (`1m30s`). */
  readonly evictionSoftGracePeriod: Readonly<Record<string, string>>;
  readonly evictionMinimumReclaim: Readonly<Record<string, string>>;
  /** `--enforce-node-allocatable`: with `pods`, a hard `memory.available` threshold also applies to `allocatableMemory.available`. */
  readonly enforceNodeAllocatable: readonly string[];
}

/**
 * The thresholds of the configuration: hard ones (grace 0), soft ones with their grace periods,
 * minimum reclaims attached by signal, and `allocatableMemory.available` copied from a hard
 * `memory.available` when node allocatable is enforced on `pods`. `0%` and `100%` are ignored.
 * Pure; does not mutate `s`.
 * @throws ThresholdConfigError `unsupported eviction signal x`, `grace period must be specified
 *   for the soft eviction threshold x`, `eviction threshold x must be positive: v`...
 * @see pkg/kubelet/eviction/helpers.go (ParseThresholdConfig, addAllocatableThresholds) in kubernetes/kubernetes v1.23
 */
export function parseThresholdConfig(s: ThresholdSettings): Threshold[] {
  const statements = (m: Readonly<Record<string, string>>): { signal: EvictionSignal; value: ThresholdValue }[] => {
    const out: { signal: EvictionSignal; value: ThresholdValue }[] = [];
    for (const [signal, text] of Object.entries(m)) {
      if (!isSignal(signal)) throw new ThresholdConfigError(`unsupported eviction signal ${signal}`);
      const value = parseValue(signal, text, "threshold");
      if (value) out.push({ signal, value });
    }
    return out;
  };
  const hard = statements(s.evictionHard);
  const soft = statements(s.evictionSoft);
  const grace = new Map<string, number>();
  for (const [signal, text] of Object.entries(s.evictionSoftGracePeriod)) {
    if (!isSignal(signal)) throw new ThresholdConfigError(`unsupported eviction signal ${signal}`);
    const ms = Number(mustParseDuration(text).nanoseconds / 1_000_000n);
    if (ms < 0) throw new ThresholdConfigError(`invalid eviction grace period specified: ${text}, must be a positive value`);
    grace.set(signal, ms);
  }
  const reclaim = new Map<string, ThresholdValue>();
  for (const [signal, text] of Object.entries(s.evictionMinimumReclaim)) {
    if (!isSignal(signal)) throw new ThresholdConfigError(`unsupported eviction signal ${signal}`);
    const v = parseValue(signal, text, "reclaim");
    if (v) reclaim.set(signal, v);
  }
  const out: Threshold[] = hard.map((t) => ({ ...t, gracePeriodMs: 0 }));
  for (const t of soft) {
    const g = grace.get(t.signal);
    if (g === undefined) throw new ThresholdConfigError(`grace period must be specified for the soft eviction threshold ${t.signal}`);
    out.push({ ...t, gracePeriodMs: g });
  }
  const withReclaim = out.map((t) => {
    const r = reclaim.get(t.signal);
    return r ? { ...t, minReclaim: r } : t;
  });
  if (s.enforceNodeAllocatable.includes("pods")) {
    for (const t of [...withReclaim]) {
      if (t.signal === "memory.available" && t.gracePeriodMs === 0) withReclaim.push({ ...t, signal: "allocatableMemory.available" });
    }
  }
  return withReclaim;
}

/** Whether the threshold is hard (no grace period). */
export function isHardEvictionThreshold(t: Threshold): boolean {
  return t.gracePeriodMs === 0;
}

/**
 * The amount a threshold value stands for against `capacity`: the quantity, or
 * `percentage × capacity` (truncated, as Go's `int64(float64(...))`).
 * @see pkg/kubelet/eviction/api/types.go (GetThresholdQuantity) in kubernetes/kubernetes v1.23
 */
export function thresholdQuantity(v: ThresholdValue, capacity: number): number {
  return "quantity" in v ? v.quantity : Math.trunc(v.percentage * capacity);
}

function timeMs(t: string | undefined): number {
  const ms = t === undefined ? Number.NaN : Date.parse(t);
  return Number.isNaN(ms) ? 0 : ms;
}

function fsObservations(out: Map<EvictionSignal, SignalObservation>, fs: FsStats | undefined, bytes: EvictionSignal, inodes: EvictionSignal): void {
  if (!fs) return;
  if (fs.availableBytes !== undefined && fs.capacityBytes !== undefined) out.set(bytes, { available: fs.availableBytes, capacity: fs.capacityBytes, timeMs: timeMs(fs.time) });
  if (fs.inodesFree !== undefined && fs.inodes !== undefined) out.set(inodes, { available: fs.inodesFree, capacity: fs.inodes, timeMs: timeMs(fs.time) });
}

/**
 * The signals a summary shows, and the pod stats by pod: `memory.available` = the node's
 * `availableBytes` (capacity − working set, as the stats provider computes it) with capacity
 * `availableBytes + workingSetBytes`; `allocatableMemory.available` from the `pods` system
 * container; nodefs from `node.fs`, imagefs from `node.runtime.imageFs` (bytes and inodes);
 * `pid.available` = `maxpid − curproc` of `node.rlimit`. Pure.
 * @see pkg/kubelet/eviction/helpers.go (makeSignalObservations) in kubernetes/kubernetes v1.23
 */
export function makeSignalObservations(summary: Summary): { observations: SignalObservations; statsFunc: PodStatsFunc } {
  const out = new Map<EvictionSignal, SignalObservation>();
  const mem = summary.node.memory;
  if (mem?.availableBytes !== undefined && mem.workingSetBytes !== undefined) {
    out.set("memory.available", { available: mem.availableBytes, capacity: mem.availableBytes + mem.workingSetBytes, timeMs: timeMs(mem.time) });
  }
  const pods = summary.node.systemContainers?.find((c) => c.name === "pods")?.memory;
  if (pods?.availableBytes !== undefined && pods.workingSetBytes !== undefined) {
    out.set("allocatableMemory.available", { available: pods.availableBytes, capacity: pods.availableBytes + pods.workingSetBytes, timeMs: timeMs(pods.time) });
  }
  fsObservations(out, summary.node.fs, "nodefs.available", "nodefs.inodesFree");
  fsObservations(out, summary.node.runtime?.imageFs, "imagefs.available", "imagefs.inodesFree");
  const r = summary.node.rlimit;
  if (r?.maxpid !== undefined && r.curproc !== undefined) out.set("pid.available", { available: r.maxpid - r.curproc, capacity: r.maxpid, timeMs: timeMs(r.time) });
  const byUID = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
  return { observations: out, statsFunc: (pod) => byUID.get(pod.metadata?.uid ?? "") };
}

/**
 * The thresholds whose signal is below the threshold now; with `enforceMinReclaim`, below the
 * threshold plus its minimum reclaim (a met threshold stays met until reclaim went that far).
 * Thresholds without an observation are not met. Pure.
 * @see pkg/kubelet/eviction/helpers.go (thresholdsMet) in kubernetes/kubernetes v1.23
 */
export function thresholdsMet(thresholds: readonly Threshold[], observations: SignalObservations, enforceMinReclaim: boolean): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations.get(t.signal);
    if (!o) return false;
    let q = thresholdQuantity(t.value, o.capacity);
    if (enforceMinReclaim && t.minReclaim) q += thresholdQuantity(t.minReclaim, o.capacity);
    return q > o.available;
  });
}

/** The union of two threshold lists (by identity of signal, value and grace period). */
export function mergeThresholds(a: readonly Threshold[], b: readonly Threshold[]): Threshold[] {
  const out = [...a];
  for (const t of b) if (!out.some((x) => thresholdEqual(x, t))) out.push(t);
  return out;
}

function thresholdEqual(a: Threshold, b: Threshold): boolean {
  return a.signal === b.signal && a.gracePeriodMs === b.gracePeriodMs && JSON.stringify(a.value) === JSON.stringify(b.value);
}

/** When each threshold was first seen met: kept from `last` for thresholds still met, `nowMs` for new ones. */
export function thresholdsFirstObservedAt(thresholds: readonly Threshold[], last: ReadonlyMap<Threshold, number>, nowMs: number): Map<Threshold, number> {
  const out = new Map<Threshold, number>();
  for (const t of thresholds) {
    const prev = [...last.entries()].find(([k]) => thresholdEqual(k, t));
    out.set(t, prev ? prev[1] : nowMs);
  }
  return out;
}

/** The thresholds met for at least their grace period. @see helpers.go (thresholdsMetGracePeriod) */
export function thresholdsMetGracePeriod(observedAt: ReadonlyMap<Threshold, number>, nowMs: number): Threshold[] {
  return [...observedAt.entries()].filter(([t, at]) => nowMs - at >= t.gracePeriodMs).map(([t]) => t);
}

/** The node conditions the thresholds drive, in order of first appearance, without duplicates. */
export function nodeConditions(thresholds: readonly Threshold[]): PressureCondition[] {
  const out: PressureCondition[] = [];
  for (const t of thresholds) {
    const c = signalToCondition[t.signal];
    if (!out.includes(c)) out.push(c);
  }
  return out;
}

/** `last` with each of `conditions` stamped `nowMs`. */
export function nodeConditionsLastObservedAt(conditions: readonly PressureCondition[], last: ReadonlyMap<PressureCondition, number>, nowMs: number): Map<PressureCondition, number> {
  const out = new Map(last);
  for (const c of conditions) out.set(c, nowMs);
  return out;
}

/**
 * The conditions observed within the last `periodMs` (`--eviction-pressure-transition-period`):
 * a condition stays reported until it has not been seen for that long.
 * @see helpers.go (nodeConditionsObservedSince)
 */
export function nodeConditionsObservedSince(observedAt: ReadonlyMap<PressureCondition, number>, periodMs: number, nowMs: number): PressureCondition[] {
  return [...observedAt.entries()].filter(([, at]) => nowMs - at < periodMs).map(([c]) => c);
}

/**
 * The thresholds whose signal was measured again since the last synchronization (a stale
 * measurement does not evict twice for the same reading). @see helpers.go (thresholdsUpdatedStats)
 */
export function thresholdsUpdatedStats(thresholds: readonly Threshold[], observations: SignalObservations, last: SignalObservations): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations.get(t.signal);
    if (!o) return false;
    const l = last.get(t.signal);
    return !l || o.timeMs === 0 || o.timeMs > l.timeMs;
  });
}

/**
 * The thresholds in the order eviction handles them: memory signals first, then those with a
 * reclaimable resource, keeping the given order otherwise. @see helpers.go (byEvictionPriority)
 */
export function sortByEvictionPriority(thresholds: readonly Threshold[]): Threshold[] {
  const rank = (t: Threshold) => (t.signal === "memory.available" || t.signal === "allocatableMemory.available" ? 0 : 1);
  return [...thresholds].sort((a, b) => rank(a) - rank(b));
}

// ---- ranking -------------------------------------------------------------------------------

type Cmp = (a: Pod, b: Pod) => number;

function orderedBy(...cmps: Cmp[]): (pods: Pod[]) => void {
  return (pods) => {
    pods.sort((a, b) => {
      for (const c of cmps) {
        const r = c(a, b);
        if (r !== 0) return r;
      }
      return 0;
    });
  };
}

// cmpBool: a pod for which `a` holds comes first.
function cmpBool(a: boolean, b: boolean): number {
  if (a === b) return 0;
  return a ? -1 : 1;
}

/** Lower priority first. @see helpers.go (priority) */
function priority(a: Pod, b: Pod): number {
  const pa = a.spec?.priority ?? 0;
  const pb = b.spec?.priority ?? 0;
  return pa === pb ? 0 : pa > pb ? 1 : -1;
}

function podRequest(pod: Pod, resource: "memory" | "ephemeral-storage"): number {
  const m = podRequestsAndLimits(pod).requests.get(resource);
  return m === undefined ? 0 : Number(valueOfMilli(m));
}

function podMemoryUsage(s: PodStats): number {
  return s.containers.reduce((sum, c) => sum + (c.memory?.workingSetBytes ?? 0), 0);
}

/** Which parts of a pod's disk use a disk signal measures. */
export type FsStatsType = "root" | "logs" | "localVolumeSource";

const localVolumeSources = new Set(["emptyDir", "configMap", "secret", "downwardAPI", "projected"]);

function podDiskUsage(s: PodStats, pod: Pod, measure: readonly FsStatsType[], resource: "ephemeral-storage" | "inodes"): number {
  const pick = (fs: FsStats | undefined) => (resource === "inodes" ? (fs?.inodesUsed ?? 0) : (fs?.usedBytes ?? 0));
  let sum = 0;
  for (const c of s.containers) {
    if (measure.includes("root")) sum += pick(c.rootfs);
    if (measure.includes("logs")) sum += pick(c.logs);
  }
  if (measure.includes("localVolumeSource")) {
    const local = new Set((pod.spec?.volumes ?? []).filter((v) => Object.keys(v).some((k) => localVolumeSources.has(k))).map((v) => v.name));
    for (const v of s.volume ?? []) if (local.has(v.name)) sum += pick(v);
  }
  return sum;
}

/**
 * Sorts `pods` in place for memory pressure: pods whose working set exceeds their memory request
 * first, then lower priority, then by working set above the request, largest first (pods without
 * stats go first at each step).
 * @see pkg/kubelet/eviction/helpers.go (rankMemoryPressure, exceedMemoryRequests, memory) in kubernetes/kubernetes v1.23
 */
export function rankMemoryPressure(pods: Pod[], stats: PodStatsFunc): void {
  const exceeds: Cmp = (a, b) => {
    const sa = stats(a);
    const sb = stats(b);
    if (!sa || !sb) return cmpBool(!sa, !sb);
    return cmpBool(podMemoryUsage(sa) > podRequest(a, "memory"), podMemoryUsage(sb) > podRequest(b, "memory"));
  };
  const usage: Cmp = (a, b) => {
    const sa = stats(a);
    const sb = stats(b);
    if (!sa || !sb) return cmpBool(!sa, !sb);
    const ua = podMemoryUsage(sa) - podRequest(a, "memory");
    const ub = podMemoryUsage(sb) - podRequest(b, "memory");
    return ub === ua ? 0 : ub > ua ? 1 : -1;
  };
  orderedBy(exceeds, priority, usage)(pods);
}

/**
 * Sorts `pods` in place for PID pressure: lower priority first, then more processes first.
 * @see pkg/kubelet/eviction/helpers.go (rankPIDPressure, process) in kubernetes/kubernetes v1.23
 */
export function rankPIDPressure(pods: Pod[], stats: PodStatsFunc): void {
  const processes: Cmp = (a, b) => {
    const pa = stats(a)?.process_stats?.process_count ?? 0;
    const pb = stats(b)?.process_stats?.process_count ?? 0;
    return pb === pa ? 0 : pb > pa ? 1 : -1;
  };
  orderedBy(priority, processes)(pods);
}

/**
 * A ranking for a disk signal: pods whose use of the measured filesystems exceeds their
 * `ephemeral-storage` request first (inodes have no request), then lower priority, then by use
 * above the request, largest first.
 * @see pkg/kubelet/eviction/helpers.go (rankDiskPressureFunc, exceedDiskRequests, disk) in kubernetes/kubernetes v1.23
 */
export function rankDiskPressure(measure: readonly FsStatsType[], resource: "ephemeral-storage" | "inodes"): (pods: Pod[], stats: PodStatsFunc) => void {
  return (pods, stats) => {
    const req = (p: Pod) => (resource === "inodes" ? 0 : podRequest(p, "ephemeral-storage"));
    const exceeds: Cmp = (a, b) => {
      const sa = stats(a);
      const sb = stats(b);
      if (!sa || !sb) return cmpBool(!sa, !sb);
      return cmpBool(podDiskUsage(sa, a, measure, resource) > req(a), podDiskUsage(sb, b, measure, resource) > req(b));
    };
    const usage: Cmp = (a, b) => {
      const sa = stats(a);
      const sb = stats(b);
      if (!sa || !sb) return cmpBool(!sa, !sb);
      const ua = podDiskUsage(sa, a, measure, resource) - req(a);
      const ub = podDiskUsage(sb, b, measure, resource) - req(b);
      return ub === ua ? 0 : ub > ua ? 1 : -1;
    };
    orderedBy(exceeds, priority, usage)(pods);
  };
}

/**
 * The ranking of each signal. Without a dedicated image filesystem every disk signal measures a
 * pod's writable layers, logs and local volumes; with one, nodefs measures logs and local volumes
 * and imagefs the writable layers.
 * @see pkg/kubelet/eviction/helpers.go (buildSignalToRankFunc) in kubernetes/kubernetes v1.23
 */
export function buildSignalToRankFunc(withImageFs: boolean): ReadonlyMap<EvictionSignal, (pods: Pod[], stats: PodStatsFunc) => void> {
  const all: FsStatsType[] = ["root", "logs", "localVolumeSource"];
  const nodefs: FsStatsType[] = withImageFs ? ["logs", "localVolumeSource"] : all;
  const imagefs: FsStatsType[] = withImageFs ? ["root"] : all;
  return new Map<EvictionSignal, (pods: Pod[], stats: PodStatsFunc) => void>([
    ["memory.available", rankMemoryPressure],
    ["allocatableMemory.available", rankMemoryPressure],
    ["pid.available", rankPIDPressure],
    ["nodefs.available", rankDiskPressure(nodefs, "ephemeral-storage")],
    ["nodefs.inodesFree", rankDiskPressure(nodefs, "inodes")],
    ["imagefs.available", rankDiskPressure(imagefs, "ephemeral-storage")],
    ["imagefs.inodesFree", rankDiskPressure(imagefs, "inodes")],
  ]);
}

function formatBytes(n: number): string {
  return formatQuantity(newQuantity(BigInt(Math.round(n)), "BinarySI"));
}

function formatRequest(text: string | number | undefined): string {
  if (text === undefined) return "0";
  const q = parseQuantity(String(text));
  return q.ok ? formatQuantity(q.value) : String(text);
}

/**
 * The message of an eviction: `The node was low on resource: <resource>. ` followed, for each
 * container whose usage of the resource exceeds its request, by `Container <name> was using
 * <usage>, which exceeds its request of <request>. ` (usage in binary units, e.g. `1234Ki`;
 * memory: working set; ephemeral-storage: writable layer + logs). Pure.
 * @example evictionMessage("memory", pod, stats) // "The node was low on resource: memory. Container x was using 1234Ki, which exceeds its request of 0. "
 * @see pkg/kubelet/eviction/helpers.go (evictionMessage, nodeLowMessageFmt, containerMessageFmt) in kubernetes/kubernetes v1.23
 */
export function evictionMessage(resource: StarvedResource, pod: Pod, stats: PodStatsFunc): string {
  let message = `The node was low on resource: ${resource}. `;
  const s = stats(pod);
  if (!s) return message;
  for (const cs of s.containers) {
    const c = pod.spec?.containers.find((x) => x.name === cs.name);
    if (!c) continue;
    const requestText = (c.resources?.requests as Record<string, string | number> | undefined)?.[resource];
    const request = requestText === undefined ? 0 : quantityToNumber(parseQuantityOrZero(String(requestText)));
    let usage: number | undefined;
    if (resource === "memory") usage = cs.memory?.workingSetBytes;
    else if (resource === "ephemeral-storage" && cs.rootfs?.usedBytes !== undefined && cs.logs?.usedBytes !== undefined) usage = cs.rootfs.usedBytes + cs.logs.usedBytes;
    if (usage !== undefined && usage > request) message += `Container ${c.name} was using ${formatBytes(usage)}, which exceeds its request of ${formatRequest(requestText)}. `;
  }
  return message;
}

function parseQuantityOrZero(text: string): ReturnType<typeof newQuantity> {
  const q = parseQuantity(text);
  return q.ok ? q.value : newQuantity(0);
}

/**
 * The admission message under pressure: `The node had condition: [MemoryPressure]. ` (Go's
 * formatting of the condition list).
 * @see pkg/kubelet/eviction/helpers.go (nodeConditionMessageFmt) in kubernetes/kubernetes v1.23
 */
export function nodeConditionMessage(conditions: readonly PressureCondition[]): string {
  return `The node had condition: [${conditions.join(" ")}]. `;
}

// ---- local storage capacity isolation --------------------------------------------------------

/**
 * `Usage of EmptyDir volume "<volume>" exceeds the limit "<limit>". ` (Go's `%q`).
 * @see pkg/kubelet/eviction/helpers.go (emptyDirMessageFmt) in kubernetes/kubernetes v1.23
 */
export function emptyDirLimitMessage(volume: string, limit: string): string {
  return `Usage of EmptyDir volume ${JSON.stringify(volume)} exceeds the limit ${JSON.stringify(limit)}. `;
}

/**
 * `Pod ephemeral local storage usage exceeds the total limit of containers <limit>. `
 * @see pkg/kubelet/eviction/helpers.go (podEphemeralStorageMessageFmt) in kubernetes/kubernetes v1.23
 */
export function podEphemeralStorageMessage(limit: string): string {
  return `Pod ephemeral local storage usage exceeds the total limit of containers ${limit}. `;
}

/**
 * `Container <name> exceeded its local ephemeral storage limit "<limit>". `
 * @see pkg/kubelet/eviction/helpers.go (containerEphemeralStorageMessageFmt) in kubernetes/kubernetes v1.23
 */
export function containerEphemeralStorageMessage(container: string, limit: string): string {
  return `Container ${container} exceeded its local ephemeral storage limit ${JSON.stringify(limit)}. `;
}

/** A quantity of the pod spec: its value in bytes (rounded up) and its canonical text; undefined when absent or unparsable. */
function specQuantity(text: string | number | undefined): { bytes: bigint; text: string; format: ReturnType<typeof newQuantity>["format"] } | undefined {
  if (text === undefined || text === null) return undefined;
  const q = parseQuantity(String(text));
  if (!q.ok) return undefined;
  try {
    // Go compares the exact values; `used` is whole bytes, so comparing with the limit rounded up is the same.
    return { bytes: quantityValue(q.value), text: formatQuantity(q.value), format: q.value.format };
  } catch {
    return undefined;
  }
}

/**
 * The pod's `ephemeral-storage` limit as 1.23's `PodRequestsAndLimits` gives it: the sum of the
 * containers' limits (only containers that set one), the larger of that and each init container's,
 * plus the pod overhead; with the text Go's `Quantity.String()` writes (in the format of the first
 * limit seen). Undefined when no container sets one.
 */
function podEphemeralStorageLimit(pod: Pod): { bytes: bigint; text: string } | undefined {
  let sum: bigint | undefined;
  let format: ReturnType<typeof newQuantity>["format"] | undefined;
  const limitOf = (c: { resources?: { limits?: Record<string, string | number> } }) => specQuantity(c.resources?.limits?.["ephemeral-storage"]);
  for (const c of pod.spec?.containers ?? []) {
    const l = limitOf(c as never);
    if (!l) continue;
    format ??= l.format;
    sum = (sum ?? 0n) + l.bytes;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const l = limitOf(c as never);
    if (!l) continue;
    format ??= l.format;
    if (sum === undefined || l.bytes > sum) sum = l.bytes;
  }
  if (sum === undefined) return undefined;
  const overhead = specQuantity((pod.spec as { overhead?: Record<string, string> } | undefined)?.overhead?.["ephemeral-storage"]);
  if (overhead) sum += overhead.bytes;
  return { bytes: sum, text: formatQuantity(newQuantity(sum, format ?? "DecimalSI")) };
}

/**
 * Whether {@link localStorageViolation} can find anything in this pod: an `emptyDir` with a
 * `sizeLimit` above 0, or an `ephemeral-storage` limit on a container or init container. A pod
 * without any has nothing the local storage check could evict it for, whatever its usage.
 */
export function hasLocalStorageLimits(pod: Pod): boolean {
  for (const v of pod.spec?.volumes ?? []) {
    if (!v.emptyDir) continue;
    const limit = specQuantity((v.emptyDir as { sizeLimit?: string | number }).sizeLimit);
    if (limit !== undefined && limit.bytes > 0n) return true;
  }
  return podEphemeralStorageLimit(pod) !== undefined;
}

/**
 * The local storage limit a pod breaks, as the eviction message 1.23 gives it, checked in 1.23's
 * order: an emptyDir whose measured use exceeds its positive `sizeLimit`; the pod's whole
 * `ephemeral-storage` use (`podStats["ephemeral-storage"]`: writable layers, local volumes, logs,
 * etc-hosts) above the pod's limit; a container whose logs, plus its writable layer unless the
 * image fs is a device of its own, exceed its `ephemeral-storage` limit. Undefined when none is
 * broken (or not measured yet). Pure.
 * @example localStorageViolation(pod, stats, false) // `Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". `
 * @see pkg/kubelet/eviction/eviction_manager.go (localStorageEviction, emptyDirLimitEviction, podEphemeralStorageLimitEviction, containerEphemeralStorageLimitEviction) in kubernetes/kubernetes v1.23
 */
export function localStorageViolation(pod: Pod, podStats: PodStats, dedicatedImageFs: boolean): string | undefined {
  const volumeUsed = new Map((podStats.volume ?? []).map((v) => [v.name, v.usedBytes]));
  for (const v of pod.spec?.volumes ?? []) {
    if (!v.emptyDir) continue;
    const limit = specQuantity((v.emptyDir as { sizeLimit?: string | number }).sizeLimit);
    const used = volumeUsed.get(v.name);
    if (used !== undefined && limit !== undefined && limit.bytes > 0n && BigInt(Math.round(used)) > limit.bytes) return emptyDirLimitMessage(v.name, limit.text);
  }
  const podLimit = podEphemeralStorageLimit(pod);
  if (podLimit) {
    const used = BigInt(Math.round(podStats["ephemeral-storage"]?.usedBytes ?? 0));
    if (used > podLimit.bytes) return podEphemeralStorageMessage(podLimit.text);
  }
  const containerLimits = new Map<string, { bytes: bigint; text: string }>();
  for (const c of pod.spec?.containers ?? []) {
    const l = specQuantity((c.resources?.limits as Record<string, string | number> | undefined)?.["ephemeral-storage"]);
    if (l && l.bytes !== 0n) containerLimits.set(c.name, l);
  }
  for (const cs of podStats.containers) {
    const limit = containerLimits.get(cs.name);
    if (!limit) continue;
    let used = cs.logs?.usedBytes ?? 0;
    if (!dedicatedImageFs) used += cs.rootfs?.usedBytes ?? 0;
    if (BigInt(Math.round(used)) > limit.bytes) return containerEphemeralStorageMessage(cs.name, limit.text);
  }
  return undefined;
}
