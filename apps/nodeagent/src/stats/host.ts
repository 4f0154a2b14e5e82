/**
 * Host readers of the stats provider: `/proc` (meminfo, stat, loadavg, net/dev, a process's
 * cgroups), cgroup files (v1, or v2 detected by `cgroup.controllers` at the cgroup mount) and
 * `statfs`. Every reader takes its roots from a {@link HostPaths}, so tests run them over fixture
 * trees; none throws: what cannot be read is `undefined`.
 * @see pkg/kubelet/stats/helper.go, pkg/kubelet/stats/pidlimit/pidlimit_linux.go in kubernetes/kubernetes v1.23
 * @see google/cadvisor container/libcontainer/handler.go (setMemoryStats: working set = usage - inactive_file)
 */
import { execFileSync } from "node:child_process";
import { access, lstat, readdir, statfs } from "node:fs/promises";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import type { BigIntStats } from "node:fs";
import { dirname } from "node:path";

/** Where the host's pseudo-filesystems are (tests point them at fixtures). */
export interface HostPaths {
  /** @defaultValue "/proc" */
  readonly procRoot: string;
  /** The cgroup mount: v1 has one directory per controller below it, v2 is unified. @defaultValue "/sys/fs/cgroup" */
  readonly cgroupRoot: string;
}

/** The real host. */
export const defaultHostPaths: HostPaths = Object.freeze({ procRoot: "/proc", cgroupRoot: "/sys/fs/cgroup" });

/**
 * Reads a pseudo-file of `/proc` or the cgroup mount. Synchronously: the kernel generates these
 * on read, in microseconds, while an asynchronous read costs four thread-pool round trips (open,
 * fstat, read, close); a summary of 100 pods reads a few hundred of them.
 */
const read = (path: string): Promise<string | undefined> => {
  try {
    return Promise.resolve(readFileSync(path, "utf8"));
  } catch {
    return Promise.resolve(undefined);
  }
};

function num(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** `key value` lines (memory.stat, cpu.stat) as numbers. Pure. */
export function parseKeyValues(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const [k, v] = line.trim().split(/\s+/);
    if (k !== undefined && v !== undefined && Number.isFinite(Number(v))) out.set(k, Number(v));
  }
  return out;
}

/** `/proc/meminfo` in bytes: `MemTotal`, `MemAvailable` (kB in the file). */
export async function readMemInfo(paths: HostPaths): Promise<{ totalBytes?: number; availableBytes?: number; freeBytes?: number }> {
  const text = (await read(`${paths.procRoot}/meminfo`)) ?? "";
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+)(?: kB)?$`, "m").exec(text);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const out: { totalBytes?: number; availableBytes?: number; freeBytes?: number } = {};
  const t = kb("MemTotal");
  const a = kb("MemAvailable");
  const f = kb("MemFree");
  if (t !== undefined) out.totalBytes = t;
  if (a !== undefined) out.availableBytes = a;
  if (f !== undefined) out.freeBytes = f;
  return out;
}

let clockTicks: number | undefined;
/** `getconf CLK_TCK` (USER_HZ), 100 when it cannot be asked. */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * Parses `/proc/stat`: the cumulative busy CPU time of all cores (user + nice + system + irq +
 * softirq + steal, i.e. everything but idle and iowait; guest time is already inside user) in
 * nanoseconds, and `btime` (boot time, seconds since the epoch). Pure.
 */
export function parseProcStat(text: string, ticksPerSecond: number): { usageCoreNanoSeconds?: number; bootTimeSeconds?: number } {
  const out: { usageCoreNanoSeconds?: number; bootTimeSeconds?: number } = {};
  const cpu = /^cpu\s+(.+)$/m.exec(text);
  if (cpu?.[1] !== undefined) {
    const f = cpu[1].trim().split(/\s+/).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
    const ticks = user + nice + system + irq + softirq + steal;
    if (Number.isFinite(ticks)) out.usageCoreNanoSeconds = Math.round((ticks * 1e9) / ticksPerSecond);
  }
  const bt = /^btime\s+(\d+)$/m.exec(text);
  if (bt?.[1] !== undefined) out.bootTimeSeconds = Number(bt[1]);
  return out;
}

/** The node's CPU time and boot time from `/proc/stat`. */
export function readProcStat(paths: HostPaths): Promise<{ usageCoreNanoSeconds?: number; bootTimeSeconds?: number }> {
  return Promise.resolve(readProcStatSync(paths));
}

/**
 * {@link readProcStat}, synchronously: a CPU sample's timestamp is taken right after it, so that
 * the rate is computed over the times the counter was read, not over when a promise resolved.
 */
export function readProcStatSync(paths: HostPaths): { usageCoreNanoSeconds?: number; bootTimeSeconds?: number } {
  let text: string;
  try {
    text = readFileSync(`${paths.procRoot}/stat`, "utf8");
  } catch {
    return {};
  }
  return parseProcStat(text, clockTicksPerSecond());
}

/**
 * PID limits: `maxpid` from `/proc/sys/kernel/pid_max`, `curproc` the kernel's task count (the
 * fourth field of `/proc/loadavg`, what `sysinfo(2)` reports as `procs`).
 * @see pkg/kubelet/stats/pidlimit/pidlimit_linux.go in kubernetes/kubernetes v1.23
 */
export async function readPidLimits(paths: HostPaths): Promise<{ maxpid?: number; curproc?: number }> {
  const out: { maxpid?: number; curproc?: number } = {};
  const max = num(await read(`${paths.procRoot}/sys/kernel/pid_max`));
  if (max !== undefined) out.maxpid = max;
  const m = /^\S+ \S+ \S+ \d+\/(\d+)/.exec((await read(`${paths.procRoot}/loadavg`)) ?? "");
  if (m?.[1] !== undefined) out.curproc = Number(m[1]);
  return out;
}

/** One interface's counters from `/proc/net/dev`. */
export interface InterfaceCounters {
  readonly name: string;
  readonly rxBytes: number;
  readonly rxErrors: number;
  readonly txBytes: number;
  readonly txErrors: number;
}

/** Parses `/proc/net/dev`, leaving out `lo`. Pure. */
export function parseNetDev(text: string): InterfaceCounters[] {
  const out: InterfaceCounters[] = [];
  for (const line of text.split("\n").slice(2)) {
    const m = /^\s*([^:]+):\s*(.*)$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    const name = m[1].trim();
    if (name === "lo") continue;
    const f = m[2].trim().split(/\s+/).map(Number);
    out.push({ name, rxBytes: f[0] ?? 0, rxErrors: f[2] ?? 0, txBytes: f[8] ?? 0, txErrors: f[10] ?? 0 });
  }
  return out;
}

/** The host network namespace's interfaces (without `lo`). */
export async function readNetDev(paths: HostPaths): Promise<InterfaceCounters[]> {
  const text = await read(`${paths.procRoot}/net/dev`);
  return text === undefined ? [] : parseNetDev(text);
}

/** The interfaces (without `lo`) of the network namespace process `pid` is in (`/proc/<pid>/net/dev`); [] when unreadable. */
export async function readProcessNetDev(paths: HostPaths, pid: number): Promise<InterfaceCounters[]> {
  const text = await read(`${paths.procRoot}/${pid}/net/dev`);
  return text === undefined ? [] : parseNetDev(text);
}

/** Which cgroup hierarchy is mounted at `cgroupRoot`. */
export type CgroupVersion = "v1" | "v2";

/** `v2` when `<cgroupRoot>/cgroup.controllers` exists (a unified mount), else `v1`. */
export async function detectCgroupVersion(paths: HostPaths): Promise<CgroupVersion> {
  return access(`${paths.cgroupRoot}/cgroup.controllers`).then(
    () => "v2",
    () => "v1",
  );
}

/** Usage of one cgroup, as cadvisor derives it from the cgroup files. */
export interface CgroupUsage {
  /** Cumulative CPU time, nanoseconds (`cpuacct.usage`; v2 `cpu.stat` usage_usec × 1000). */
  readonly usageCoreNanoSeconds?: number;
  /** `memory.usage_in_bytes` (v2 `memory.current`). */
  readonly usageBytes?: number;
  /** Usage minus `total_inactive_file` (v2 `inactive_file`), never below 0. */
  readonly workingSetBytes?: number;
  /** `total_rss` (v2 `anon`). */
  readonly rssBytes?: number;
  readonly pageFaults?: number;
  readonly majorPageFaults?: number;
  /** `memory.limit_in_bytes` (v2 `memory.max`); undefined when unlimited. */
  readonly limitBytes?: number;
  /** `pids.current`. */
  readonly processCount?: number;
}

// Limits at or above this are "unlimited" (v1 writes PAGE_COUNTER_MAX × page size).
const unlimitedBytes = 2 ** 62;

/**
 * Reads the usage of cgroup `path` (absolute within the hierarchy, e.g. `/` or `/k8s.io/<id>`).
 * Values that cannot be read are absent; a cgroup that does not exist gives `{}`.
 */
export async function readCgroupUsage(paths: HostPaths, version: CgroupVersion, path: string): Promise<CgroupUsage> {
  const rel = path === "/" ? "" : path;
  const out: { -readonly [K in keyof CgroupUsage]: CgroupUsage[K] } = {};
  if (version === "v2") {
    const dir = `${paths.cgroupRoot}${rel}`;
    const cpu = parseKeyValues((await read(`${dir}/cpu.stat`)) ?? "");
    const usec = cpu.get("usage_usec");
    if (usec !== undefined) out.usageCoreNanoSeconds = usec * 1000;
    const stat = parseKeyValues((await read(`${dir}/memory.stat`)) ?? "");
    let usage = num(await read(`${dir}/memory.current`));
    // The root cgroup of v2 has no memory.current: the sum of what memory.stat accounts.
    if (usage === undefined && rel === "" && stat.size > 0) usage = (stat.get("anon") ?? 0) + (stat.get("file") ?? 0) + (stat.get("kernel_stack") ?? 0) + (stat.get("slab") ?? 0) + (stat.get("sock") ?? 0);
    if (usage !== undefined) {
      out.usageBytes = usage;
      out.workingSetBytes = Math.max(0, usage - (stat.get("inactive_file") ?? 0));
    }
    if (stat.has("anon")) out.rssBytes = stat.get("anon") ?? 0;
    if (stat.has("pgfault")) out.pageFaults = stat.get("pgfault") ?? 0;
    if (stat.has("pgmajfault")) out.majorPageFaults = stat.get("pgmajfault") ?? 0;
    const max = (await read(`${dir}/memory.max`))?.trim();
    if (max !== undefined && max !== "max" && Number(max) < unlimitedBytes) out.limitBytes = Number(max);
    const pids = num(await read(`${dir}/pids.current`));
    if (pids !== undefined) out.processCount = pids;
    return out;
  }
  const cpu = num(await read(`${paths.cgroupRoot}/cpuacct${rel}/cpuacct.usage`));
  if (cpu !== undefined) out.usageCoreNanoSeconds = cpu;
  const mem = `${paths.cgroupRoot}/memory${rel}`;
  const usage = num(await read(`${mem}/memory.usage_in_bytes`));
  const stat = parseKeyValues((await read(`${mem}/memory.stat`)) ?? "");
  const pick = (k: string) => stat.get(`total_${k}`) ?? stat.get(k);
  if (usage !== undefined) {
    out.usageBytes = usage;
    out.workingSetBytes = Math.max(0, usage - (pick("inactive_file") ?? 0));
  }
  const rss = pick("rss");
  if (rss !== undefined) out.rssBytes = rss;
  const pgfault = pick("pgfault");
  if (pgfault !== undefined) out.pageFaults = pgfault;
  const pgmajfault = pick("pgmajfault");
  if (pgmajfault !== undefined) out.majorPageFaults = pgmajfault;
  const limit = num(await read(`${mem}/memory.limit_in_bytes`));
  if (limit !== undefined && limit < unlimitedBytes) out.limitBytes = limit;
  const pids = num(await read(`${paths.cgroupRoot}/pids${rel}/pids.current`));
  if (pids !== undefined) out.processCount = pids;
  return out;
}

/** `pids.current` of cgroup `path` (the number of tasks in it); undefined when unreadable. */
export async function readCgroupProcessCount(paths: HostPaths, version: CgroupVersion, path: string): Promise<number | undefined> {
  const rel = path === "/" ? "" : path;
  return num(await read(version === "v2" ? `${paths.cgroupRoot}${rel}/pids.current` : `${paths.cgroupRoot}/pids${rel}/pids.current`));
}

/**
 * The cgroup path of process `pid` for the hierarchy that holds memory (v1: the `memory`
 * controller's line of `/proc/<pid>/cgroup`; v2: the `0::` line). Undefined when unreadable.
 */
export async function readProcessCgroup(paths: HostPaths, version: CgroupVersion, pid: number): Promise<string | undefined> {
  const text = await read(`${paths.procRoot}/${pid}/cgroup`);
  if (text === undefined) return undefined;
  for (const line of text.split("\n")) {
    const [id, controllers, path] = line.split(":", 3);
    if (path === undefined) continue;
    if (version === "v2" ? id === "0" && controllers === "" : (controllers ?? "").split(",").includes("memory")) return path;
  }
  return undefined;
}

/** Capacity and usage of a filesystem (`statfs`), bytes and inodes. */
export interface FsUsage {
  readonly capacityBytes: number;
  readonly availableBytes: number;
  /** Blocks in use (total minus free), bytes. */
  readonly usedBytes: number;
  readonly inodes: number;
  readonly inodesFree: number;
  readonly inodesUsed: number;
}

/**
 * `statfs` of the filesystem holding `path`; a path that does not exist yet is measured at its
 * nearest existing ancestor. Undefined only when nothing can be measured.
 */
export async function readFsUsage(path: string): Promise<FsUsage | undefined> {
  let p = path;
  for (;;) {
    try {
      const s = await statfs(p);
      const bsize = Number(s.bsize);
      const files = Number(s.files);
      const ffree = Number(s.ffree);
      return {
        capacityBytes: Number(s.blocks) * bsize,
        availableBytes: Number(s.bavail) * bsize,
        usedBytes: (Number(s.blocks) - Number(s.bfree)) * bsize,
        inodes: files,
        inodesFree: ffree,
        inodesUsed: files - ffree,
      };
    } catch {
      const up = dirname(p);
      if (up === p) return undefined;
      p = up;
    }
  }
}

/** Disk usage of a directory tree, as `du -s -B1` and `find | wc -l` count it. */
export interface DirUsage {
  /** Allocated bytes (st_blocks × 512), each inode counted once. */
  readonly usedBytes: number;
  /** Inodes under (and including) the directory. */
  readonly inodesUsed: number;
}

/**
 * Walks `dir` without crossing into other filesystems (like `du -x`) and sums allocated bytes and
 * inodes, hard links counted once. Undefined when `dir` does not exist.
 * @see pkg/volume/util/fs/fs.go (DiskUsage) in kubernetes/kubernetes v1.23
 */
export async function readDirUsage(dir: string): Promise<DirUsage | undefined> {
  const root = await lstat(dir, { bigint: true }).catch(() => undefined);
  if (!root) return undefined;
  const seen = new Set<bigint>();
  let usedBytes = 0;
  let inodesUsed = 0;
  const visit = async (path: string, st: BigIntStats): Promise<void> => {
    if (st.dev !== root.dev) return;
    if (!seen.has(st.ino)) {
      seen.add(st.ino);
      usedBytes += Number(st.blocks) * 512;
      inodesUsed++;
    }
    if (!st.isDirectory()) return;
    const names = await readdir(path).catch(() => [] as string[]);
    for (const name of names) {
      const child = `${path}/${name}`;
      const cst = await lstat(child, { bigint: true }).catch(() => undefined);
      if (cst) await visit(child, cst);
    }
  };
  await visit(dir, root);
  return { usedBytes, inodesUsed };
}

/** {@link DirUsage} of a directory, and of each of its direct entries. */
export interface DirUsageTree extends DirUsage {
  /** Entry name → the usage of that entry (a sub-directory: its whole tree). */
  readonly children: ReadonlyMap<string, DirUsage>;
}

/**
 * {@link readDirUsage} of `dir` and of each of its direct entries in one walk (a pod's log
 * directory and its containers' sub-directories), synchronously: meant for the small trees the
 * runtime writes (a few log files per container), where each asynchronous `lstat` would cost a
 * thread-pool round trip. Hard links are counted once over the whole walk. Undefined when `dir`
 * does not exist.
 * @see pkg/volume/util/fs/fs.go (DiskUsage) in kubernetes/kubernetes v1.23
 */
export function readDirUsageTreeSync(dir: string): DirUsageTree | undefined {
  let root: BigIntStats;
  try {
    root = lstatSync(dir, { bigint: true });
  } catch {
    return undefined;
  }
  const seen = new Set<bigint>();
  const visit = (path: string, st: BigIntStats, acc: { usedBytes: number; inodesUsed: number }): void => {
    if (st.dev !== root.dev) return;
    if (!seen.has(st.ino)) {
      seen.add(st.ino);
      acc.usedBytes += Number(st.blocks) * 512;
      acc.inodesUsed++;
    }
    if (!st.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names) {
      const child = `${path}/${name}`;
      try {
        visit(child, lstatSync(child, { bigint: true }), acc);
      } catch {
        // gone meanwhile
      }
    }
  };
  const total = { usedBytes: 0, inodesUsed: 0 };
  const children = new Map<string, DirUsage>();
  seen.add(root.ino);
  total.usedBytes += Number(root.blocks) * 512;
  total.inodesUsed++;
  let names: string[] = [];
  if (root.isDirectory()) {
    try {
      names = readdirSync(dir);
    } catch {
      names = [];
    }
  }
  for (const name of names) {
    const child = `${dir}/${name}`;
    const acc = { usedBytes: 0, inodesUsed: 0 };
    try {
      visit(child, lstatSync(child, { bigint: true }), acc);
    } catch {
      continue;
    }
    children.set(name, acc);
    total.usedBytes += acc.usedBytes;
    total.inodesUsed += acc.inodesUsed;
  }
  return { ...total, children };
}
