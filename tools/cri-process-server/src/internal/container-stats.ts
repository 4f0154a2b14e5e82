// ContainerStats / ListContainerStats for the process runtime: a container is a process group, so
// its usage is the sum over the processes of that group read from /proc (no cgroups here).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { ContainerStats, ContainerStatsResponse, ListContainerStatsResponse } from "@skiff/cri-api";
import type { StatsTarget } from "./runtime-core.js";

/** CPU time and resident memory of one process group. */
export interface GroupUsage {
  /** utime + stime of every live process of the group, in nanoseconds. */
  cpuNanoseconds: bigint;
  /** Sum of VmRSS, in bytes. */
  rssBytes: number;
  minorFaults: number;
  majorFaults: number;
}

let clockTicks: number | undefined;
function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * Parses `/proc/<pid>/stat` past the parenthesised command name (which may contain spaces).
 * Returns ppid, pgrp, minflt, majflt, utime, stime (ticks) and rss (pages), or undefined when malformed.
 */
export function parseProcStat(text: string): { ppid: number; pgrp: number; minflt: number; majflt: number; utime: number; stime: number; rssPages: number } | undefined {
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  // Fields after the command: state(3) ppid(4) pgrp(5) ... minflt(10) majflt(12) utime(14) stime(15) ... rss(24).
  const f = text.slice(close + 2).trim().split(/\s+/);
  const at = (field: number) => Number(f[field - 3]);
  const out = { ppid: at(4), pgrp: at(5), minflt: at(10), majflt: at(12), utime: at(14), stime: at(15), rssPages: at(24) };
  return Object.values(out).every(Number.isFinite) ? out : undefined;
}

const pageSizeBytes = 4096;

const readSync = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

/**
 * Reads /proc once and sums, per container process `pid` in `groups`, the usage of every process
 * of its process group and of every descendant of it (an isolated container's command runs below
 * bubblewrap, in a process group of its own).
 */
export async function readGroupUsage(groups: ReadonlySet<number>, procRoot = "/proc"): Promise<Map<number, GroupUsage>> {
  const out = new Map<number, GroupUsage>();
  if (groups.size === 0) return out;
  const ticks = clockTicksPerSecond();
  // Synchronously: the kernel generates these files in microseconds, while an asynchronous read
  // costs four thread-pool round trips each (open, fstat, read, close) for every process of the
  // machine, and the reads land close together in time (one sample, not a spread of them).
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    entries = [];
  }
  const procs = new Map<number, NonNullable<ReturnType<typeof parseProcStat>>>();
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    const st = parseProcStat(readSync(`${procRoot}/${pid}/stat`));
    if (st) procs.set(Number(pid), st);
  }
  // The container each process belongs to: its process group's, else its nearest listed ancestor's.
  const owner = (pid: number): number | undefined => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      const st = procs.get(p);
      if (!st) return undefined;
      if (groups.has(st.pgrp)) return st.pgrp;
      if (groups.has(p)) return p;
      p = st.ppid;
    }
    return undefined;
  };
  for (const [pid, st] of procs) {
    const root = owner(pid);
    if (root === undefined) continue;
    const u = out.get(root) ?? { cpuNanoseconds: 0n, rssBytes: 0, minorFaults: 0, majorFaults: 0 };
    u.cpuNanoseconds += (BigInt(st.utime + st.stime) * 1_000_000_000n) / BigInt(ticks);
    u.rssBytes += st.rssPages * pageSizeBytes;
    u.minorFaults += st.minflt;
    u.majorFaults += st.majflt;
    out.set(root, u);
  }
  return out;
}

function toStats(t: StatsTarget, usage: GroupUsage | undefined, nowNs: string): ContainerStats {
  const u = usage ?? { cpuNanoseconds: 0n, rssBytes: 0, minorFaults: 0, majorFaults: 0 };
  return {
    attributes: { id: t.id, metadata: t.metadata, labels: t.labels, annotations: t.annotations },
    cpu: { timestamp: nowNs, usageCoreNanoSeconds: { value: u.cpuNanoseconds.toString() } },
    memory: {
      timestamp: nowNs,
      workingSetBytes: { value: String(u.rssBytes) },
      usageBytes: { value: String(u.rssBytes) },
      rssBytes: { value: String(u.rssBytes) },
      pageFaults: { value: String(u.minorFaults + u.majorFaults) },
      majorPageFaults: { value: String(u.majorFaults) },
    },
    // No image layers are unpacked: the writable layer is empty.
    writableLayer: { timestamp: nowNs, fsId: { mountpoint: "" }, usedBytes: { value: "0" }, inodesUsed: { value: "0" } },
  };
}

const nowNanos = () => (BigInt(Date.now()) * 1_000_000n).toString();

/** The stats of the given containers (stopped ones report zero usage). */
export async function containerStatsOf(targets: readonly StatsTarget[]): Promise<ListContainerStatsResponse> {
  const usage = await readGroupUsage(new Set(targets.flatMap((t) => (t.pid !== undefined ? [t.pid] : []))));
  const now = nowNanos();
  return { stats: targets.map((t) => toStats(t, t.pid !== undefined ? usage.get(t.pid) : undefined, now)) };
}

/** The ContainerStats answer for one container. */
export async function oneContainerStats(target: StatsTarget): Promise<ContainerStatsResponse> {
  const { stats } = await containerStatsOf([target]);
  return { stats: stats?.[0] ?? null };
}
