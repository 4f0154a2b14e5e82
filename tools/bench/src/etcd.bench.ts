/**
 * @skiff/storage etcd backend beside SQLite, in the same run and with the same ~1 KiB objects:
 * sequential and concurrent creates/s, get latency, and watch delivery latency (write → event at
 * one watcher, and at each of 100 watchers). Starts its own single-member etcd (Debian's
 * etcd-server, /usr/bin/etcd or $ETCD_BIN) with its data on disk under the OS temp dir, so etcd
 * pays its fsync per write as in production; SQLite runs with its default synchronous=NORMAL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage, StoredObject, Watcher } from "@skiff/storage";
import { findEtcdBinary, openEtcdStorage, openSqliteStorage, startLocalEtcd } from "@skiff/storage";
import type { BenchRow } from "./report.js";

export const name = "@skiff/storage (etcd beside SQLite)";

interface Backend {
  readonly label: string;
  open(): Promise<{ storage: Storage; cleanup: () => Promise<void> }>;
}

function object(i: number): StoredObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `job-${i}`, namespace: "bench", uid: `uid-${i}`, labels: { app: "bench", tier: "batch" }, annotations: { note: "x".repeat(400) } },
    spec: {
      parallelism: 4,
      completions: 16,
      template: { spec: { restartPolicy: "Never", containers: [{ name: "worker", image: "registry.example.io/bench/worker:1.2.3", command: ["/bin/sh", "-c", "sleep 1"] }] } },
    },
    status: { active: 4, succeeded: 3 },
  };
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function createsPerSecond(s: Storage, n: number, tag: string): Promise<number> {
  const t0 = nowMs();
  for (let i = 0; i < n; i++) await s.create(`/registry/jobs/${tag}/job-${i}`, object(i));
  return n / ((nowMs() - t0) / 1000);
}

async function concurrentCreatesPerSecond(s: Storage, clients: number, perClient: number): Promise<number> {
  const t0 = nowMs();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < perClient; i++) await s.create(`/registry/jobs/c${c}/job-${i}`, object(i));
    }),
  );
  return (clients * perClient) / ((nowMs() - t0) / 1000);
}

async function getLatencies(s: Storage, stored: number, reads: number, tag: string): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < reads; i++) {
    const key = `/registry/jobs/${tag}/job-${(i * 7919) % stored}`;
    const t0 = nowMs();
    await s.get(key);
    lat.push(nowMs() - t0);
  }
  return lat.sort((a, b) => a - b);
}

/** Write → event latency at every one of `watcherCount` watchers (p50/p99 over all deliveries). */
async function watchLatencies(s: Storage, watcherCount: number, writes: number, tag: string): Promise<number[]> {
  const start = await s.currentRevision();
  const watchers: Watcher[] = [];
  for (let i = 0; i < watcherCount; i++) watchers.push(await s.watch(`/registry/watch-${tag}`, { recursive: true, resourceVersion: start }));
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const readers = watchers.map(async (w) => {
    let seen = 0;
    for await (const e of w) {
      if (e.type !== "ADDED") continue;
      const t = sentAt.get(e.key);
      if (t !== undefined) latencies.push(nowMs() - t);
      if (++seen === writes) break;
    }
  });
  for (let i = 0; i < writes; i++) {
    const key = `/registry/watch-${tag}/ns/w${i}`;
    sentAt.set(key, nowMs());
    await s.create(key, object(i));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(readers);
  for (const w of watchers) w.stop();
  return latencies.sort((a, b) => a - b);
}

async function measure(backend: Backend): Promise<Map<string, [number, string]>> {
  const out = new Map<string, [number, string]>();
  const { storage: s, cleanup } = await backend.open();
  try {
    out.set("creates/s (sequential)", [await createsPerSecond(s, 1000, "seq"), "op/s"]);
    out.set("creates/s (16 concurrent clients)", [await concurrentCreatesPerSecond(s, 16, 100), "op/s"]);
    const gets = await getLatencies(s, 1000, 2000, "seq");
    out.set("get p50", [percentile(gets, 50) * 1000, "µs"]);
    out.set("get p99", [percentile(gets, 99) * 1000, "µs"]);
    const one = await watchLatencies(s, 1, 200, "one");
    out.set("watch write→event p50 (1 watcher)", [percentile(one, 50), "ms"]);
    out.set("watch write→event p99 (1 watcher)", [percentile(one, 99), "ms"]);
    const many = await watchLatencies(s, 100, 100, "many");
    out.set("watch write→event p50 (100 watchers)", [percentile(many, 50), "ms"]);
    out.set("watch write→event p99 (100 watchers)", [percentile(many, 99), "ms"]);
  } finally {
    await cleanup();
  }
  return out;
}

export default async function run(): Promise<BenchRow[]> {
  if (findEtcdBinary() === undefined) {
    return [{ what: "etcd not installed (/usr/bin/etcd or $ETCD_BIN): skipped", value: 0, unit: "-" }];
  }
  const etcdDir = mkdtempSync(join(tmpdir(), "skiff-bench-etcd-"));
  const etcd = await startLocalEtcd({ dataDir: etcdDir });
  try {
    const sqlite: Backend = {
      label: "SQLite",
      open: async () => {
        const dataDir = mkdtempSync(join(tmpdir(), "skiff-bench-sqlite-"));
        const storage = await openSqliteStorage({ dataDir, compactionIntervalMs: 0 });
        return {
          storage,
          cleanup: async () => {
            await storage.close();
            rmSync(dataDir, { recursive: true, force: true });
          },
        };
      },
    };
    const etcdBackend: Backend = {
      label: "etcd",
      open: async () => {
        const storage = await openEtcdStorage({ servers: [etcd.clientUrl], prefix: "/bench", compactionIntervalMs: 0 });
        return { storage, cleanup: () => storage.close() };
      },
    };
    const a = await measure(sqlite);
    const b = await measure(etcdBackend);
    const rows: BenchRow[] = [];
    for (const [what, [value, unit]] of a) {
      const other = b.get(what);
      rows.push({ what: `SQLite ${what}`, value, unit });
      if (other !== undefined) {
        const ratio = unit === "op/s" ? value / other[0] : other[0] / value;
        rows.push({ what: `etcd   ${what}`, value: other[0], unit: other[1], note: `SQLite is ${ratio.toFixed(1)}x ${unit === "op/s" ? "faster" : "lower"}` });
      }
    }
    return rows;
  } finally {
    await etcd.stop();
    rmSync(etcdDir, { recursive: true, force: true });
  }
}
