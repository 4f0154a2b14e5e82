/**
 * Disk usage of pod volumes, computed in the background every `--volume-stats-agg-period` and
 * served from the cache (a `du` of a large emptyDir is too slow for each `/stats/summary`).
 * A period of 0 disables the collection: pods then report no `volume` stats, as 1.23.
 * @see pkg/kubelet/server/stats/volume_stat_calculator.go, fs_resource_analyzer.go in kubernetes/kubernetes v1.23
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { readDirUsage, readFsUsage } from "./host.js";
import type { VolumeStats } from "./types.js";

/** Plugin directories whose volumes are measured with `du` (MetricsDu in 1.23): emptyDir and the volumes built on it. */
export const measuredVolumePluginDirs: readonly string[] = Object.freeze(["kubernetes.io~empty-dir", "kubernetes.io~configmap", "kubernetes.io~secret", "kubernetes.io~projected", "kubernetes.io~downward-api"]);

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * Measures the volumes of one pod found under `<rootDir>/pods/<uid>/volumes/<plugin>/<name>`:
 * used bytes and inodes from a walk of the directory, capacity, available and free inodes from
 * `statfs` of its filesystem. Volumes are sorted by name.
 */
export async function measurePodVolumes(rootDir: string, podUID: string, nowMs: number): Promise<VolumeStats[]> {
  const base = join(rootDir, "pods", podUID, "volumes");
  const out: VolumeStats[] = [];
  for (const plugin of measuredVolumePluginDirs) {
    const names = await readdir(join(base, plugin)).catch(() => [] as string[]);
    for (const name of names) {
      const dir = join(base, plugin, name);
      const [du, fs] = await Promise.all([readDirUsage(dir), readFsUsage(dir)]);
      if (!du) continue;
      out.push({
        time: rfc3339(nowMs),
        ...(fs ? { availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes } : {}),
        usedBytes: du.usedBytes,
        ...(fs ? { inodesFree: fs.inodesFree, inodes: fs.inodes } : {}),
        inodesUsed: du.inodesUsed,
        name,
      });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Options of {@link VolumeStatsCache}. */
export interface VolumeStatsCacheOptions {
  readonly rootDir: string;
  /** `--volume-stats-agg-period` in ms; 0 disables collection. */
  readonly periodMs: number;
  /** The pods whose volumes to measure (all the agent runs). */
  readonly pods: () => readonly Pod[];
  readonly log?: (message: string) => void;
  /** @defaultValue Date.now */
  readonly nowMs?: () => number;
}

/**
 * The background volume measurer: {@link start} measures every pod now and then every period;
 * {@link get} answers from the last pass. Pods that left are dropped at the next pass.
 */
export class VolumeStatsCache {
  private readonly byPod = new Map<string, VolumeStats[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly o: VolumeStatsCacheOptions) {}

  /** Whether collection is on (`periodMs` > 0). */
  get enabled(): boolean {
    return this.o.periodMs > 0;
  }

  /** Starts the periodic measurement; logs `Volume stats collection disabled` when the period is 0. */
  start(): void {
    if (!this.enabled) {
      this.o.log?.("Volume stats collection disabled");
      return;
    }
    if (this.timer) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.o.periodMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Measures every pod once (concurrent calls share one pass). */
  refresh(): Promise<void> {
    // `finally` runs after the assignment even when the pass finishes at once (no pods): a pass
    // that cleared `running` inside its own body before `??=` stored it left a settled promise
    // behind, and no later pass ever measured anything.
    this.running ??= this.measureAll().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async measureAll(): Promise<void> {
    try {
      const now = (this.o.nowMs ?? Date.now)();
      const uids = new Set<string>();
      for (const pod of this.o.pods()) {
        const uid = pod.metadata?.uid ?? "";
        if (uid === "") continue;
        uids.add(uid);
        this.byPod.set(uid, await measurePodVolumes(this.o.rootDir, uid, now));
      }
      for (const uid of this.byPod.keys()) if (!uids.has(uid)) this.byPod.delete(uid);
    } catch (err) {
      this.o.log?.(`Failed to measure volume usage: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Whether a pass has measured the pod. */
  has(podUID: string): boolean {
    return this.byPod.has(podUID);
  }

  /** The volumes of a pod from the last pass; `[]` when disabled or not measured yet. */
  get(podUID: string): readonly VolumeStats[] {
    return this.byPod.get(podUID) ?? [];
  }
}
