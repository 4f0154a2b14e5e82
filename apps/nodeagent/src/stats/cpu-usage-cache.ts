/**
 * `usageNanoCores` from two samples of a cumulative CPU counter, as the kubelet's CRI stats
 * provider computes it for containers (and cadvisor for cgroups): the CPU time added between the
 * cached sample and this one, per second of wall time between their timestamps.
 * @see pkg/kubelet/stats/cri_stats_provider.go (getAndUpdateContainerUsageNanoCores, cleanupOutdatedCaches) in kubernetes/kubernetes v1.23
 */

/** One sample: cumulative CPU time (ns) at a time (ns since the epoch). */
export interface CpuSample {
  readonly timestampNs: number;
  readonly usageCoreNanoSeconds: number;
}

interface Entry {
  sample: CpuSample;
  usageNanoCores: number | undefined;
}

/**
 * Core-nanoseconds per second between two samples, rounded down; undefined when the counter went
 * backwards (a restarted container) or the interval is not positive. Pure.
 * @example usageNanoCoresBetween({ timestampNs: 0, usageCoreNanoSeconds: 0 }, { timestampNs: 2e9, usageCoreNanoSeconds: 1e9 }) // 5e8 (half a core)
 */
export function usageNanoCoresBetween(before: CpuSample, after: CpuSample): number | undefined {
  const dt = after.timestampNs - before.timestampNs;
  const du = after.usageCoreNanoSeconds - before.usageCoreNanoSeconds;
  if (dt <= 0 || du < 0) return undefined;
  return Math.floor((du / dt) * 1e9);
}

/** Entries not updated for this long are dropped (the kubelet's `defaultCachePeriod`). */
export const cpuUsageCachePeriodMs = 10 * 60_000;

/**
 * A cache of the last sample per id (container id, `node`, a cgroup...). {@link update} computes
 * against the cached sample and replaces it; {@link cached} returns the last computed value
 * without touching the cache (the kubelet's `getContainerUsageNanoCores`, used by the CPU-and-memory
 * only summary so that frequent callers do not shorten the window of the others).
 */
export class CpuUsageCache {
  private readonly entries = new Map<string, Entry & { touchedMs: number }>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Records `sample` for `id`; returns the nano-cores since the previous sample, undefined for a first sample. */
  update(id: string, sample: CpuSample): number | undefined {
    const prev = this.entries.get(id);
    let usageNanoCores: number | undefined;
    if (prev !== undefined && sample.usageCoreNanoSeconds >= prev.sample.usageCoreNanoSeconds) {
      if (sample.timestampNs <= prev.sample.timestampNs) return prev.usageNanoCores;
      usageNanoCores = usageNanoCoresBetween(prev.sample, sample);
    }
    this.entries.set(id, { sample, usageNanoCores, touchedMs: this.nowMs() });
    return usageNanoCores;
  }

  /** The last value computed for `id`, without a new sample. */
  cached(id: string): number | undefined {
    return this.entries.get(id)?.usageNanoCores;
  }

  /** Drops entries not updated within {@link cpuUsageCachePeriodMs}. */
  cleanup(): void {
    const cutoff = this.nowMs() - cpuUsageCachePeriodMs;
    for (const [id, e] of this.entries) if (e.touchedMs < cutoff) this.entries.delete(id);
  }
}
