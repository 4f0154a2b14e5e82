/**
 * @skiff/storage benchmarks (SQLite backend, 1 KiB Job-like objects): durable creates/s (NORMAL
 * and FULL), get latency, 10k-object list (full and in pages of 500), watch fan-out to 1,000
 * in-process watchers, p99 write latency at 200 writes/s with 5k objects stored, and RSS with
 * 100k objects stored (measured in a child process so earlier runs do not count).
 * Targets from the storage issue are printed as notes.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SqliteStorage, StoredObject, Watcher } from "@skiff/storage";
import { openSqliteStorage } from "@skiff/storage";
import type { BenchRow } from "./report.js";

export const name = "@skiff/storage (SQLite)";

const childFlag = "SKIFF_STORAGE_BENCH_CHILD";

/** A Job of about 1 KiB as JSON. */
function job(namespace: string, name: string): StoredObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace,
      uid: `0b6c2f0e-9a3e-4c55-8f7e-${name.padStart(12, "0").slice(-12)}`,
      creationTimestamp: "2024-01-01T00:00:00Z",
      labels: { app: "bench", "controller-uid": "6d1f3c0a-1111-2222-3333-444455556666", tier: "batch" },
      annotations: { "batch.example.io/job-tracking": "" },
    },
    spec: {
      parallelism: 4,
      completions: 16,
      completionMode: "Indexed",
      backoffLimit: 6,
      selector: { matchLabels: { "controller-uid": "6d1f3c0a-1111-2222-3333-444455556666" } },
      template: {
        metadata: { labels: { app: "bench", "job-name": name } },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "worker",
              image: "registry.example.io/bench/worker:1.2.3",
              command: ["/bin/sh", "-c", "echo processing item $JOB_COMPLETION_INDEX && sleep 1"],
              env: [{ name: "MODE", value: "benchmark" }, { name: "LOG_LEVEL", value: "info" }],
              resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } },
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
              imagePullPolicy: "IfNotPresent",
            },
          ],
          terminationGracePeriodSeconds: 30,
          dnsPolicy: "ClusterFirst",
          schedulerName: "default-scheduler",
        },
      },
    },
    status: { active: 4, succeeded: 3, completedIndexes: "0-2", startTime: "2024-01-01T00:00:01Z" },
  };
}

function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return 0;
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor((p / 100) * sortedMs.length))] ?? 0;
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

async function withStore<T>(fn: (s: SqliteStorage) => Promise<T>, synchronous: "NORMAL" | "FULL" = "NORMAL"): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), "skiff-bench-storage-"));
  const s = await openSqliteStorage({ dataDir, synchronous, compactionIntervalMs: 0 });
  try {
    return await fn(s);
  } finally {
    await s.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function createsPerSecond(n: number, synchronous: "NORMAL" | "FULL"): Promise<number> {
  return withStore(async (s) => {
    const t0 = nowMs();
    for (let i = 0; i < n; i++) await s.create(`/registry/jobs/ns${i % 10}/job-${i}`, job(`ns${i % 10}`, `job-${i}`));
    return n / ((nowMs() - t0) / 1000);
  }, synchronous);
}

async function concurrentCreatesPerSecond(clients: number, perClient: number): Promise<number> {
  return withStore(async (s) => {
    const t0 = nowMs();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < perClient; i++) await s.create(`/registry/jobs/c${c}/job-${i}`, job(`c${c}`, `job-${i}`));
      }),
    );
    return (clients * perClient) / ((nowMs() - t0) / 1000);
  });
}

function keyOf(i: number): string {
  return `/registry/jobs/ns${i % 10}/job-${String(i).padStart(6, "0")}`;
}

async function fill(s: SqliteStorage, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await s.create(keyOf(i), job(`ns${i % 10}`, `job-${i}`));
}

async function readBench(rows: BenchRow[]): Promise<void> {
  await withStore(async (s) => {
    await fill(s, 10_000);
    const lat: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      const key = keyOf((i * 7919) % 10_000);
      const t0 = nowMs();
      await s.get(key);
      lat.push(nowMs() - t0);
    }
    lat.sort((a, b) => a - b);
    rows.push({ what: "get (10k stored) p50", value: percentile(lat, 50) * 1000, unit: "µs" });
    rows.push({ what: "get (10k stored) p99", value: percentile(lat, 99) * 1000, unit: "µs" });

    const full: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = nowMs();
      const page = await s.list("/registry/jobs");
      full.push(nowMs() - t0);
      if (page.items.length !== 10_000) throw new Error(`listed ${page.items.length}`);
    }
    full.sort((a, b) => a - b);
    rows.push({ what: "list 10k objects (full)", value: percentile(full, 50), unit: "ms", note: "target < 300 ms" });

    const paged: number[] = [];
    let pages = 0;
    for (let r = 0; r < 5; r++) {
      const t0 = nowMs();
      let page = await s.list("/registry/jobs", { limit: 500 });
      let n = page.items.length;
      pages = 1;
      while (page.continue !== undefined) {
        page = await s.list("/registry/jobs", { limit: 500, continue: page.continue });
        n += page.items.length;
        pages++;
      }
      paged.push(nowMs() - t0);
      if (n !== 10_000) throw new Error(`paged ${n}`);
    }
    paged.sort((a, b) => a - b);
    const total = percentile(paged, 50);
    rows.push({ what: "list 10k objects (pages of 500, all)", value: total, unit: "ms", note: `${(total / pages).toFixed(1)} ms/page` });
  });
}

async function fanOutBench(rows: BenchRow[]): Promise<void> {
  await withStore(async (s) => {
    const watcherCount = 1000;
    const writes = 200;
    const start = await s.create("/registry/jobs/ns/seed", job("ns", "seed"));
    const watchers: Watcher[] = [];
    for (let i = 0; i < watcherCount; i++) watchers.push(await s.watch("/registry/jobs", { recursive: true, resourceVersion: start.revision }));
    const received = new Map<number, number>();
    const sentAt = new Map<number, number>();
    const latencies: number[] = [];
    let done!: () => void;
    const allDone = new Promise<void>((r) => (done = r));
    for (const w of watchers) {
      void (async () => {
        for await (const e of w) {
          if (e.type !== "ADDED") continue;
          const n = (received.get(e.revision) ?? 0) + 1;
          received.set(e.revision, n);
          if (n === watcherCount) {
            latencies.push(nowMs() - (sentAt.get(e.revision) as number));
            if (latencies.length === writes) done();
          }
        }
      })();
    }
    for (let i = 0; i < writes; i++) {
      const t0 = nowMs();
      const r = await s.create(`/registry/jobs/ns/w${i}`, job("ns", `w${i}`));
      sentAt.set(r.revision, t0);
      // Space writes out so each one's fan-out is measured on its own.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await allDone;
    for (const w of watchers) w.stop();
    latencies.sort((a, b) => a - b);
    rows.push({ what: "watch fan-out to 1,000 watchers p50", value: percentile(latencies, 50), unit: "ms", note: "write → delivered to all (consumers parse JSON)" });
    rows.push({ what: "watch fan-out to 1,000 watchers p99", value: percentile(latencies, 99), unit: "ms" });
  });
}

async function writeLatencyBench(rows: BenchRow[]): Promise<void> {
  await withStore(async (s) => {
    await fill(s, 5000);
    const ratePerSecond = 200;
    const total = 1000;
    const latencies: number[] = [];
    const intervalMs = 1000 / ratePerSecond;
    const t0 = nowMs();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + i * intervalMs;
      const wait = due - nowMs();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const key = keyOf((i * 37) % 5000);
      const started = nowMs();
      pending.push(
        s.guaranteedUpdate(key, (cur) => ({ ...cur, status: { ...(cur.status as object), succeeded: i } })).then(() => {
          latencies.push(nowMs() - started);
        }),
      );
    }
    await Promise.all(pending);
    latencies.sort((a, b) => a - b);
    rows.push({ what: "update latency @200/s, 5k stored p50", value: percentile(latencies, 50), unit: "ms" });
    const p99 = percentile(latencies, 99);
    rows.push({ what: "update latency @200/s, 5k stored p99", value: p99, unit: "ms", note: `target < 20 ms: ${p99 < 20 ? "met" : "MISSED"}` });
  });
}

/** Child mode: store 100k Jobs, then report RSS and heap as JSON on stdout. */
async function rssChild(): Promise<void> {
  const result = await withStore(async (s) => {
    await fill(s, 100_000);
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    return { rssMiB: m.rss / 2 ** 20, heapMiB: m.heapUsed / 2 ** 20, count: await s.count("/registry/jobs") };
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function rssBench(rows: BenchRow[]): Promise<void> {
  const file = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [...process.execArgv, "--expose-gc", file], {
    env: { ...process.env, [childFlag]: "rss" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  if (code !== 0) throw new Error(`rss child exited with ${code}`);
  const r = JSON.parse(out.trim().split("\n").pop() as string) as { rssMiB: number; heapMiB: number; count: number };
  if (r.count !== 100_000) throw new Error(`rss child stored ${r.count}`);
  rows.push({
    what: "RSS with 100k Jobs stored (storage only)",
    value: r.rssMiB,
    unit: "MiB",
    note: `heap ${r.heapMiB.toFixed(0)} MiB; target < 300 MiB (whole apiserver): ${r.rssMiB < 300 ? "met" : "MISSED"}`,
  });
}

export default async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const normal = await createsPerSecond(20_000, "NORMAL");
  rows.push({ what: "creates/s, sequential (WAL, NORMAL)", value: normal, unit: "ops/s", note: `target ≥ 3,000: ${normal >= 3000 ? "met" : "MISSED"}; survives SIGKILL` });
  const concurrent = await concurrentCreatesPerSecond(200, 100);
  rows.push({ what: "creates/s, 200 concurrent clients", value: concurrent, unit: "ops/s" });
  const full = await createsPerSecond(1000, "FULL");
  rows.push({ what: "creates/s, sequential (WAL, FULL)", value: full, unit: "ops/s", note: "fsync per commit; survives power loss" });
  await readBench(rows);
  await fanOutBench(rows);
  await writeLatencyBench(rows);
  await rssBench(rows);
  return rows;
}

if (process.env[childFlag] === "rss") await rssChild();
