/**
 * Container garbage collection: dead containers beyond `--maximum-dead-containers-per-container`
 * and `--maximum-dead-containers` (older than `--minimum-container-ttl-duration`), every dead
 * container and sandbox of pods that are gone (or evicted), and the log directories of pods that
 * are gone (only of pods the runtime knows: the directory may be shared by other agents).
 * @see pkg/kubelet/kuberuntime/kuberuntime_gc.go, pkg/kubelet/container/container_gc.go in kubernetes/kubernetes v1.23
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { RuntimeClient } from "@skiff/cri-api";
import { criLabels, removeLogFiles } from "./runtime-manager.js";

/**
 * The policy: `minAgeMs` (`--minimum-container-ttl-duration`), `maxPerPodContainer`
 * (`--maximum-dead-containers-per-container`, negative: no limit), `maxContainers`
 * (`--maximum-dead-containers`, negative: no limit).
 * @see pkg/kubelet/container/container_gc.go (GCPolicy) in kubernetes/kubernetes v1.23
 */
export interface ContainerGCPolicy {
  readonly minAgeMs: number;
  readonly maxPerPodContainer: number;
  readonly maxContainers: number;
}

/** What the collector knows of pods (the pod workers' view). */
export interface PodStateProvider {
  /** The pod is gone (or evicted, or deleted and finished): everything of it may go. */
  shouldPodContentBeRemoved(uid: string): boolean;
  /** The pod is finished (or gone): its containers and sandboxes may go. */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
}

/** A dead container as the collector sees it. */
export interface GCContainer {
  readonly id: string;
  readonly podUID: string;
  readonly name: string;
  readonly createdAtMs: number;
}

/** A sandbox as the collector sees it. */
export interface GCSandbox {
  readonly id: string;
  readonly podUID: string;
  readonly createdAtMs: number;
  /** Ready, or still has containers: never removed. */
  readonly active: boolean;
}

const newestFirst = <T extends { createdAtMs: number }>(a: T, b: T) => b.createdAtMs - a.createdAtMs;

/**
 * The dead containers to remove, oldest of each evict unit (pod UID + container name) first:
 * containers younger than `minAgeMs` are kept out; with `allSourcesReady`, every container of a
 * pod whose content should be removed (with `evictNonDeletedPods`, also of finished pods); then
 * each unit cut to `maxPerPodContainer`; then, above `maxContainers` in all, each unit cut to
 * `max(1, maxContainers / units)` and the oldest overall removed down to `maxContainers`. Pure.
 * @see pkg/kubelet/kuberuntime/kuberuntime_gc.go (evictContainers, evictableContainers, enforceMaxContainersPerEvictUnit) in kubernetes/kubernetes v1.23
 */
export function planContainerRemoval(dead: readonly GCContainer[], policy: ContainerGCPolicy, nowMs: number, allSourcesReady: boolean, evictNonDeletedPods: boolean, pods: PodStateProvider): string[] {
  const units = new Map<string, GCContainer[]>();
  for (const c of dead) {
    if (nowMs - c.createdAtMs < policy.minAgeMs) continue;
    const key = `${c.podUID}/${c.name}`;
    units.set(key, [...(units.get(key) ?? []), c]);
  }
  for (const list of units.values()) list.sort(newestFirst);
  const remove: string[] = [];
  const cut = (list: GCContainer[], keep: number): GCContainer[] => {
    const k = Math.max(0, keep);
    for (const c of list.slice(k).reverse()) remove.push(c.id);
    return list.slice(0, k);
  };
  if (allSourcesReady) {
    for (const [key, list] of units) {
      const uid = list[0]?.podUID ?? "";
      if (pods.shouldPodContentBeRemoved(uid) || (evictNonDeletedPods && pods.shouldPodRuntimeBeRemoved(uid))) {
        cut(list, 0);
        units.delete(key);
      }
    }
  }
  if (policy.maxPerPodContainer >= 0) for (const [key, list] of units) units.set(key, cut(list, policy.maxPerPodContainer));
  const count = () => [...units.values()].reduce((n, l) => n + l.length, 0);
  if (policy.maxContainers >= 0 && count() > policy.maxContainers) {
    const perUnit = Math.max(1, Math.floor(policy.maxContainers / Math.max(1, units.size)));
    for (const [key, list] of units) units.set(key, cut(list, perUnit));
    if (count() > policy.maxContainers) {
      const flat = [...units.values()].flat().sort(newestFirst);
      for (const c of flat.slice(policy.maxContainers).reverse()) remove.push(c.id);
    }
  }
  return remove;
}

/**
 * The sandboxes to remove: of a pod whose content should be removed (or, with
 * `evictNonDeletedPods`, that is finished) every inactive one; otherwise all inactive but the
 * newest. Active sandboxes (ready, or with containers) stay. Pure.
 * @see pkg/kubelet/kuberuntime/kuberuntime_gc.go (evictSandboxes, removeOldestNSandboxes) in kubernetes/kubernetes v1.23
 */
export function planSandboxRemoval(sandboxes: readonly GCSandbox[], evictNonDeletedPods: boolean, pods: PodStateProvider): string[] {
  const byPod = new Map<string, GCSandbox[]>();
  for (const s of sandboxes) byPod.set(s.podUID, [...(byPod.get(s.podUID) ?? []), s]);
  const remove: string[] = [];
  for (const [uid, list] of byPod) {
    list.sort(newestFirst);
    const all = pods.shouldPodContentBeRemoved(uid) || (evictNonDeletedPods && pods.shouldPodRuntimeBeRemoved(uid));
    const n = all ? list.length : list.length - 1;
    for (const s of list.slice(list.length - Math.max(0, n))) if (!s.active) remove.push(s.id);
  }
  return remove;
}

const nsToMs = (ns: string) => Number(BigInt(ns || "0") / 1_000_000n);

/** Options of {@link ContainerGC}. */
export interface ContainerGCOptions {
  /**
   * The runtime client; with `podUID`, the one for calls about that pod (its removals mark only
   * that pod's cached runtime state stale: `RuntimeClients.forPod`).
   */
  readonly runtime: (podUID?: string) => RuntimeClient;
  readonly policy: ContainerGCPolicy;
  readonly pods: PodStateProvider;
  /** Whether every pod source has been seen once (before that, unknown pods are not treated as gone). */
  readonly allSourcesReady: () => boolean;
  /** `--pod-logs-dir` (`<namespace>_<name>_<uid>` directories). */
  readonly podLogsDir: string;
  readonly log: (message: string, level?: number) => void;
  /** @defaultValue Date.now */
  readonly clock?: () => number;
}

/**
 * The container garbage collector over CRI. {@link garbageCollect} is what the kubelet runs every
 * minute; {@link deleteAllUnusedContainers} is the eviction manager's node-level reclaim.
 * @see pkg/kubelet/kuberuntime/kuberuntime_gc.go (containerGC.GarbageCollect) in kubernetes/kubernetes v1.23
 */
export class ContainerGC {
  constructor(private readonly o: ContainerGCOptions) {}

  /**
   * Removes dead containers (their log files first), then sandboxes, then (with all sources
   * ready) the log directories of pods whose content should be removed. Errors are logged per
   * item; only a failure to list the runtime's containers or sandboxes rejects.
   * @throws CRIError when listing fails.
   */
  async garbageCollect(evictNonDeletedPods = false): Promise<void> {
    const rt = this.o.runtime();
    const ready = this.o.allSourcesReady();
    const now = (this.o.clock ?? Date.now)();
    const { containers } = await rt.listContainers({});
    const dead: GCContainer[] = containers
      .filter((c) => c.state !== "CONTAINER_RUNNING")
      .map((c) => ({ id: c.id, podUID: c.labels[criLabels.podUID] ?? "", name: c.labels[criLabels.containerName] ?? c.metadata?.name ?? "", createdAtMs: nsToMs(c.createdAt) }));
    const podOf = new Map(dead.map((c) => [c.id, c.podUID]));
    for (const id of planContainerRemoval(dead, this.o.policy, now, ready, evictNonDeletedPods, this.o.pods)) {
      try {
        const st = await rt.containerStatus({ containerId: id }).catch(() => undefined);
        const logPath = st?.status?.logPath;
        if (logPath && logPath.startsWith("/")) await removeLogFiles(logPath);
        await this.o.runtime(podOf.get(id) || undefined).removeContainer({ containerId: id });
        this.o.log(`Removed dead container ${id}`, 2);
      } catch (err) {
        this.o.log(`Failed to remove container containerID="${id}": ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const [{ items }, { containers: left }] = await Promise.all([rt.listPodSandbox({}), rt.listContainers({})]);
    const withContainers = new Set(left.map((c) => c.podSandboxId));
    const sandboxes: GCSandbox[] = items.map((s) => ({ id: s.id, podUID: s.labels[criLabels.podUID] ?? s.metadata?.uid ?? "", createdAtMs: nsToMs(s.createdAt), active: s.state === "SANDBOX_READY" || withContainers.has(s.id) }));
    const sandboxPodOf = new Map(sandboxes.map((s) => [s.id, s.podUID]));
    for (const id of planSandboxRemoval(sandboxes, evictNonDeletedPods, this.o.pods)) {
      try {
        await this.o.runtime(sandboxPodOf.get(id) || undefined).removePodSandbox({ podSandboxId: id });
        this.o.log(`Removed pod sandbox ${id}`, 2);
      } catch (err) {
        this.o.log(`Failed to remove sandbox sandboxID="${id}": ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (!ready) return;
    // Only pods this runtime has (had) containers or sandboxes of: the log directory may be shared
    // by other agents on the machine (1.23 removes every unknown pod's directory).
    const ours = new Set([...containers.map((c) => c.labels[criLabels.podUID] ?? ""), ...sandboxes.map((s) => s.podUID)]);
    for (const dir of await readdir(this.o.podLogsDir).catch(() => [] as string[])) {
      const uid = dir.split("_")[2];
      if (uid && ours.has(uid) && this.o.pods.shouldPodContentBeRemoved(uid)) {
        await rm(join(this.o.podLogsDir, dir), { recursive: true, force: true }).catch((err: unknown) => this.o.log(`Failed to remove pod logs directory path="${dir}": ${String(err)}`));
      }
    }
  }

  /**
   * Removes every dead container and sandbox the policy allows, also those of finished pods.
   * @see pkg/kubelet/container/container_gc.go (DeleteAllUnusedContainers) in kubernetes/kubernetes v1.23
   */
  deleteAllUnusedContainers(): Promise<void> {
    return this.garbageCollect(true);
  }
}
