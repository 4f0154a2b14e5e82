/**
 * Composes the stats side of the agent for `app.ts`: the metrics registries, the volume cache, the
 * stats provider over the pod runtime's CRI clients, and the endpoints the servers serve.
 * @see pkg/kubelet/kubelet.go (NewMainKubelet: StatsProvider, resourceAnalyzer) in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import type { PodRuntime } from "../pods/index.js";
import type { StatsEndpoints } from "../server/index.js";
import { prometheusTextContentType } from "../server/index.js";
import { AgentMetrics, instrumentCRIClient } from "./agent-metrics.js";
import type { HostPaths } from "./host.js";
import { StatsProvider } from "./provider.js";
import { formatResourceMetrics } from "./resource-metrics.js";
import { VolumeStatsCache } from "./volume-stats.js";

/** Options of {@link AgentStats}. */
export interface AgentStatsOptions {
  readonly nodeName: string;
  readonly rootDir: string;
  readonly podLogsDir: string;
  /** `--volume-stats-agg-period` in ms; 0 disables volume stats. */
  readonly volumeStatsAggPeriodMs: number;
  /** `--agent-cgroups`, `--runtime-cgroups`, `--system-cgroups`. */
  readonly systemCgroups?: { readonly kubelet?: string; readonly runtime?: string; readonly misc?: string };
  readonly hostPaths?: HostPaths;
  /** The pods' allocatable memory in bytes (the stats provider's option of that name: the `pods` system container). */
  readonly podsAllocatableMemoryBytes?: number;
  readonly log: (message: string) => void;
  /** Housekeeping period of the CPU samples, ms. @defaultValue 10_000 */
  readonly housekeepingMs?: number;
}

/**
 * The agent's stats: create it before the pod runtime (its {@link instrumentCRI} and
 * {@link onProbeResult} go into the runtime's options), {@link attach} the runtime, then
 * {@link start}. {@link endpoints} is what `ServerOptions.stats` takes; {@link provider} is the
 * stats provider the eviction manager and image GC will read.
 */
export class AgentStats {
  readonly metrics = new AgentMetrics();
  private runtime: PodRuntime | undefined;
  private volumes: VolumeStatsCache | undefined;
  private statsProvider: StatsProvider | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly o: AgentStatsOptions) {
    this.metrics.setNodeName(o.nodeName);
  }

  /** Records every CRI call in `kubelet_runtime_operations_*`. */
  readonly instrumentCRI = <T extends object>(client: T): T => instrumentCRIClient(client, this.metrics);

  /** Counts probe results in `prober_probe_total`. */
  readonly onProbeResult = (kind: string, result: "successful" | "failed" | "unknown", pod: Pod, container: string): void => {
    this.metrics.recordProbe(kind, result, { name: pod.metadata?.name ?? "", namespace: pod.metadata?.namespace ?? "", uid: pod.metadata?.uid ?? "" }, container);
  };

  /** Connects the pod runtime: its CRI clients, its pods (volumes) and its status changes (pod start durations). */
  attach(runtime: PodRuntime): void {
    this.runtime = runtime;
    this.volumes = new VolumeStatsCache({ rootDir: this.o.rootDir, periodMs: this.o.volumeStatsAggPeriodMs, pods: () => runtime.listPods(), log: this.o.log });
    this.statsProvider = new StatsProvider({
      nodeName: this.o.nodeName,
      rootDir: this.o.rootDir,
      podLogsDir: this.o.podLogsDir,
      cri: runtime.cri,
      volumes: this.volumes,
      ...(this.o.systemCgroups ? { systemCgroups: this.o.systemCgroups } : {}),
      ...(this.o.hostPaths ? { hostPaths: this.o.hostPaths } : {}),
      ...(this.o.podsAllocatableMemoryBytes !== undefined ? { podsAllocatableMemoryBytes: this.o.podsAllocatableMemoryBytes } : {}),
      log: this.o.log,
    });
    this.unsubscribe = runtime.onStatusChange((pod, status) => this.metrics.observePodPhase(pod.metadata?.uid ?? "", status.phase));
    this.metrics.setRunningCounts(async () => {
      const [sandboxes, containers] = await Promise.all([runtime.cri.runtime.listPodSandbox({}), runtime.cri.runtime.listContainers({})]);
      const byState: Record<string, number> = {};
      const names: Record<string, string> = { CONTAINER_RUNNING: "running", CONTAINER_EXITED: "exited", CONTAINER_CREATED: "created" };
      for (const c of containers.containers) {
        const s = names[c.state] ?? "unknown";
        byState[s] = (byState[s] ?? 0) + 1;
      }
      return { runningPods: sandboxes.items.filter((s) => s.state === "SANDBOX_READY").length, containersByState: byState };
    });
  }

  /** The stats provider (after {@link attach}). @throws Error before attach. */
  get provider(): StatsProvider {
    if (!this.statsProvider) throw new Error("AgentStats.provider read before attach()");
    return this.statsProvider;
  }

  /** Starts the CPU housekeeping and the volume measurements. */
  start(): void {
    this.provider.start(this.o.housekeepingMs ?? 10_000);
    this.volumes?.start();
  }

  stop(): void {
    this.statsProvider?.stop();
    this.volumes?.stop();
    this.unsubscribe?.();
  }

  /** The servers' view of the stats. */
  get endpoints(): StatsEndpoints {
    return {
      summary: (only) => this.provider.summary(only),
      resourceMetrics: async () => {
        try {
          return formatResourceMetrics(await this.provider.summary(true));
        } catch (err) {
          this.o.log(`Error getting summary for resourceMetric prometheus endpoint: ${err instanceof Error ? err.message : String(err)}`);
          return formatResourceMetrics(undefined);
        }
      },
      metrics: async () => ({ contentType: prometheusTextContentType, body: await this.metrics.registry.metrics() }),
      probeMetrics: async () => ({ contentType: prometheusTextContentType, body: await this.metrics.probeRegistry.metrics() }),
    };
  }
}
