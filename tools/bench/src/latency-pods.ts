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
import { envNumber } from "./env.js";

/** How many latency pods density creates for a cluster of `nodes` nodes. */
export function latencyPodCount(nodes: number): number {
  return envNumber("SKIFF_BENCH_LATENCY_PODS", Math.max(500, nodes), { min: 0, integer: true, unit: "pods" });
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
  /** Creates sent per second, first to last (below `perSecond` only when `maxInFlight` held them back). */
  readonly sentPerSecond: number;
  /** Seconds spent waiting for the cluster to settle before the first create (see {@link settle}). */
  readonly settleSeconds: number;
  /** The cluster's CPU use when the phase began, in cores (`undefined`: no CPU source given). */
  readonly settledCores: number | undefined;
  readonly p50S: number;
  readonly p99S: number;
}

/** How {@link settle} decides the cluster is quiet. */
export interface SettleOptions {
  /** CPU seconds used so far by all the cluster's processes (summed over processes). */
  readonly cpuSeconds: () => number;
  /** Quiet enough at once below this many cores (default 0.2). */
  readonly quietCores?: number;
  /** Sampling window, ms (default 2,000). */
  readonly windowMs?: number;
  /** Give up waiting after this long, ms (default 120,000). */
  readonly maxMs?: number;
}

/**
 * Waits until the cluster's CPU use stops falling after a burst of work: sampled over `windowMs`
 * windows, it ends when a window uses less than `quietCores`, or no less than 90 % of the window
 * before it (a steady state such as a fleet's heartbeats), or after `maxMs`. Returns the seconds
 * waited and the last window's use in cores. Density measures its latency pods while the saturation
 * pods run steadily, not while the cluster is still draining their start-up.
 */
export async function settle(opts: SettleOptions): Promise<{ seconds: number; cores: number }> {
  const quiet = opts.quietCores ?? 0.2;
  const windowMs = opts.windowMs ?? 2000;
  const maxMs = opts.maxMs ?? 120_000;
  const t0 = performance.now();
  let before = opts.cpuSeconds();
  let previous = Infinity;
  for (;;) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = opts.cpuSeconds();
    const cores = (now - before) / (windowMs / 1000);
    before = now;
    const waited = performance.now() - t0;
    if (cores < quiet || cores >= previous * 0.9 || waited >= maxMs) return { seconds: waited / 1000, cores };
    previous = cores;
  }
}

/**
 * Creates `count` bare pods labelled `group=latency` in `namespace`, each running `sleep 3600`
 * (busybox), waits until every one created is Running (at most `timeoutMs`), and deletes them. As
 * clusterloader2's `Uniform5qps`, create i is sent at `i / perSecond` s without waiting for the
 * answers of the ones before, at most `maxInFlight` (default 50) unanswered at once. With `settle`,
 * first waits for the cluster's CPU use to settle (see {@link settle}). A create that fails is
 * counted in `failures`, not thrown.
 */
export async function measureLatencyPods(
  client: Client,
  opts: { readonly count: number; readonly namespace?: string; readonly perSecond?: number; readonly maxInFlight?: number; readonly timeoutMs?: number; readonly settle?: SettleOptions },
): Promise<LatencyPods> {
  const namespace = opts.namespace ?? "default";
  const perSecond = opts.perSecond ?? 5;
  const maxInFlight = opts.maxInFlight ?? 50;
  const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
  const settled = opts.settle ? await settle(opts.settle) : undefined;
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
  const inFlight = new Set<Promise<void>>();
  let t0 = performance.now();
  let lastSent = t0;
  try {
    await informer.waitForSync();
    t0 = performance.now();
    for (let i = 0; i < opts.count; i++) {
      const due = t0 + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
      const name = `latency-${String(i)}`;
      lastSent = performance.now();
      const sent: Promise<void> = client.pods
        .create(
          {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name, namespace, labels: { group: "latency" } },
            spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 0, containers: [{ name: "main", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 3600"] }] },
          },
          { namespace },
        )
        .then(
          () => void names.push(name),
          (e: unknown) => void failures.push(`${name}: ${e instanceof Error ? e.message : String(e)}`),
        )
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    }
    await Promise.all(inFlight);
    const deadline = performance.now() + timeoutMs;
    while (started.size < names.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  } finally {
    informer.stop();
  }
  const seconds = (performance.now() - t0) / 1000;
  const sentPerSecond = opts.count <= 1 ? perSecond : (opts.count - 1) / Math.max(1e-3, (lastSent - t0) / 1000);
  for (const name of names) await client.pods.delete(name, { namespace }).catch(() => undefined);
  const startupMs = [...started.values()].sort((a, b) => a - b);
  return {
    startupMs,
    created: names.length,
    failures,
    seconds,
    sentPerSecond,
    settleSeconds: settled?.seconds ?? 0,
    settledCores: settled?.cores,
    p50S: percentile(startupMs, 50) / 1000,
    p99S: percentile(startupMs, 99) / 1000,
  };
}

function settledNote(l: LatencyPods): string {
  return l.settledCores === undefined ? "" : `, after ${l.settleSeconds.toFixed(0)} s for the cluster to settle (then ${l.settledCores.toFixed(2)} cores busy)`;
}

/** The bench rows of {@link measureLatencyPods}' result (`undefined`: not run, or `count` 0: skipped). */
export function latencyRows(l: LatencyPods | undefined, count: number): BenchRow[] {
  if (l === undefined) return [{ what: `latency pods: ${count === 0 ? "skipped (SKIFF_BENCH_LATENCY_PODS=0)" : "not run (the Job did not finish)"}`, value: 0, unit: "-" }];
  const failed = l.failures.length === 0 ? "" : `; ${l.failures.length} creates failed, first: ${l.failures[0] ?? ""}`;
  const all = (l.startupMs.length === l.created ? "" : `; only ${l.startupMs.length} of ${l.created} Running within 15 min`) + failed;
  return [
    { what: `pod start-up p50 (${l.created} latency pods created at 5/s after the Job, as density does)`, value: l.p50S, unit: "s", note: `${l.seconds.toFixed(0)} s in all, creates sent at ${l.sentPerSecond.toFixed(1)}/s${settledNote(l)}${all}` },
    { what: "pod start-up p99 (latency pods)", value: l.p99S, unit: "s", note: `SLO <= 5 s: ${l.p99S <= 5 && all === "" ? "met" : "NOT met"}${all}` },
  ];
}
