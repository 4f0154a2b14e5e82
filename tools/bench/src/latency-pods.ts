/**
 * Pod start-up latency measured as Kubernetes' density test measures its SLO (perf-tests
 * `clusterloader2/testing/density/config.yaml`): after the saturation pods, `max(500, nodes)`
 * "latency pods" are created one at a time at 5 per second (its `Uniform5qps` tuning set), each
 * running until deleted, and the SLO (p99 ≤ 5 s) applies to them. The saturation pods' own
 * start-up (all created at once) is reported beside it, as density's `SaturationPodStartupLatency`,
 * whose threshold is the run's length, not 5 s.
 *
 * Start-up is first seen (ADDED) → first seen with a started container, both on one watch, so the
 * watch's own delay cancels (the SLI: "schedulable pod creation to all containers reported started
 * and observed via watch", image pulls excluded).
 */
import type { Pod } from "@skiff/api-types";
import { createInformer } from "@skiff/client";
import type { Client } from "@skiff/client";
import type { BenchRow } from "./report.js";
import { percentile } from "./timeline.js";

/** How many latency pods density creates for a cluster of `nodes` nodes. */
export function latencyPodCount(nodes: number): number {
  const fromEnv = process.env["SKIFF_BENCH_LATENCY_PODS"];
  if (fromEnv !== undefined) {
    const n = Number(fromEnv);
    if (!(Number.isInteger(n) && n >= 0)) throw new Error(`SKIFF_BENCH_LATENCY_PODS must be a whole number >= 0, got ${JSON.stringify(fromEnv)}`);
    return n;
  }
  return Math.max(500, nodes);
}

/** What {@link measureLatencyPods} saw. */
export interface LatencyPods {
  /** Start-up latencies in ms, ascending, of the pods seen Running. */
  readonly startupMs: readonly number[];
  readonly created: number;
  /** Creates the apiserver refused (name: message); the SLO is then not met. */
  readonly failures: readonly string[];
  /** Seconds from the first create to the last pod Running (or to the timeout). */
  readonly seconds: number;
  readonly p50S: number;
  readonly p99S: number;
}

/**
 * Creates `count` bare pods labelled `group=latency` in `namespace` at `perSecond`, each running
 * `sleep 3600` (busybox), waits until every one created is Running (at most `timeoutMs`), and
 * deletes them. A create that fails is counted in `failures`, not thrown.
 */
export async function measureLatencyPods(client: Client, opts: { readonly count: number; readonly namespace?: string; readonly perSecond?: number; readonly timeoutMs?: number }): Promise<LatencyPods> {
  const namespace = opts.namespace ?? "default";
  const perSecond = opts.perSecond ?? 5;
  const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
  const firstSeen = new Map<string, number>();
  const started = new Map<string, number>();
  const observe = (p: Pod): void => {
    const uid = p.metadata?.uid ?? "";
    const now = performance.now();
    if (!firstSeen.has(uid)) firstSeen.set(uid, now);
    if (started.has(uid)) return;
    const st = p.status?.containerStatuses?.[0]?.state;
    if (p.status?.phase === "Running" || st?.running !== undefined || st?.terminated !== undefined) started.set(uid, now - (firstSeen.get(uid) ?? now));
  };
  const informer = createInformer(client.pods, { namespace, labelSelector: "group=latency", onError: () => undefined });
  informer.addEventHandler({ onAdd: observe, onUpdate: (_old, p) => observe(p) });
  informer.start();
  const names: string[] = [];
  const failures: string[] = [];
  const t0 = performance.now();
  try {
    await informer.waitForSync();
    for (let i = 0; i < opts.count; i++) {
      const due = t0 + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const name = `latency-${String(i)}`;
      const ok = await client.pods.create(
        {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name, namespace, labels: { group: "latency" } },
          spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 3600"] }] },
        },
        { namespace },
      ).then(
        () => true,
        (e: unknown) => {
          failures.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
          return false;
        },
      );
      if (ok) names.push(name);
    }
    const deadline = performance.now() + timeoutMs;
    while (started.size < names.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  } finally {
    informer.stop();
  }
  const seconds = (performance.now() - t0) / 1000;
  for (const name of names) await client.pods.delete(name, { namespace }).catch(() => undefined);
  const startupMs = [...started.values()].sort((a, b) => a - b);
  return { startupMs, created: names.length, failures, seconds, p50S: percentile(startupMs, 50) / 1000, p99S: percentile(startupMs, 99) / 1000 };
}

/** The bench rows of {@link measureLatencyPods}' result (`undefined`: not run, or `count` 0: skipped). */
export function latencyRows(l: LatencyPods | undefined, count: number): BenchRow[] {
  if (l === undefined) return [{ what: `latency pods: ${count === 0 ? "skipped (SKIFF_BENCH_LATENCY_PODS=0)" : "not run (the Job did not finish)"}`, value: 0, unit: "-" }];
  const failed = l.failures.length === 0 ? "" : `; ${l.failures.length} creates failed, first: ${l.failures[0] ?? ""}`;
  const all = (l.startupMs.length === l.created ? "" : `; only ${l.startupMs.length} of ${l.created} Running within 15 min`) + failed;
  return [
    { what: `pod start-up p50 (${l.created} latency pods created at 5/s after the Job, as density does)`, value: l.p50S, unit: "s", note: `${l.seconds.toFixed(0)} s in all${all}` },
    { what: "pod start-up p99 (latency pods)", value: l.p99S, unit: "s", note: `SLO <= 5 s: ${l.p99S <= 5 && all === "" ? "met" : "NOT met"}${all}` },
  ];
}
