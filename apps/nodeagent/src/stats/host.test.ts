import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detectCgroupVersion, parseNetDev, parseProcStat, readCgroupUsage, readDirUsage, readDirUsageTreeSync, readMemInfo, readPidLimits, readProcessCgroup } from "./host.js";

const root = mkdtempSync(join(tmpdir(), "skiff-host-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(base: string, files: Record<string, string>): { procRoot: string; cgroupRoot: string } {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), text);
  }
  return { procRoot: join(base, "proc"), cgroupRoot: join(base, "cgroup") };
}

describe("host readers over fixture trees", () => {
  it("reads cgroup v1: CPU from cpuacct.usage, working set = usage - total_inactive_file, limit, pids", async () => {
    const paths = tree(join(root, "v1"), {
      "cgroup/memory/k8s.io/abc/memory.usage_in_bytes": "104857600\n",
      "cgroup/memory/k8s.io/abc/memory.stat": "cache 1000\ninactive_file 5\ntotal_inactive_file 20971520\ntotal_rss 73400320\ntotal_pgfault 900\ntotal_pgmajfault 3\n",
      "cgroup/memory/k8s.io/abc/memory.limit_in_bytes": "9223372036854771712\n",
      "cgroup/cpuacct/k8s.io/abc/cpuacct.usage": "123456789\n",
      "cgroup/pids/k8s.io/abc/pids.current": "4\n",
      "proc/42/cgroup": "12:pids:/k8s.io/abc\n4:memory:/k8s.io/abc\n2:cpu,cpuacct:/k8s.io/abc\n0::/\n",
    });
    expect(await detectCgroupVersion(paths)).toBe("v1");
    expect(await readProcessCgroup(paths, "v1", 42)).toBe("/k8s.io/abc");
    expect(await readCgroupUsage(paths, "v1", "/k8s.io/abc")).toEqual({
      usageCoreNanoSeconds: 123456789,
      usageBytes: 104857600,
      workingSetBytes: 104857600 - 20971520,
      rssBytes: 73400320,
      pageFaults: 900,
      majorPageFaults: 3,
      processCount: 4,
    });
    expect(await readCgroupUsage(paths, "v1", "/missing")).toEqual({});
  });

  it("reads cgroup v2 (detected by cgroup.controllers): usage_usec × 1000, memory.current - inactive_file, memory.max", async () => {
    const paths = tree(join(root, "v2"), {
      "cgroup/cgroup.controllers": "cpu memory pids\n",
      "cgroup/pod/c1/cpu.stat": "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n",
      "cgroup/pod/c1/memory.current": "50000000\n",
      "cgroup/pod/c1/memory.stat": "anon 30000000\nfile 20000000\ninactive_file 10000000\npgfault 10\npgmajfault 1\n",
      "cgroup/pod/c1/memory.max": "max\n",
      "cgroup/pod/c1/pids.current": "2\n",
      "proc/7/cgroup": "0::/pod/c1\n",
    });
    expect(await detectCgroupVersion(paths)).toBe("v2");
    expect(await readProcessCgroup(paths, "v2", 7)).toBe("/pod/c1");
    expect(await readCgroupUsage(paths, "v2", "/pod/c1")).toEqual({ usageCoreNanoSeconds: 2_500_000, usageBytes: 50_000_000, workingSetBytes: 40_000_000, rssBytes: 30_000_000, pageFaults: 10, majorPageFaults: 1, processCount: 2 });
  });

  it("reads /proc: meminfo in bytes, busy CPU time and boot time from /proc/stat, pid_max and the task count", async () => {
    const paths = tree(join(root, "proc1"), {
      "proc/meminfo": "MemTotal:       1000 kB\nMemFree:         300 kB\nMemAvailable:    600 kB\n",
      "proc/sys/kernel/pid_max": "4194304\n",
      "proc/loadavg": "0.10 0.20 0.30 2/345 999\n",
    });
    expect(await readMemInfo(paths)).toEqual({ totalBytes: 1000 * 1024, availableBytes: 600 * 1024, freeBytes: 300 * 1024 });
    expect(await readPidLimits(paths)).toEqual({ maxpid: 4194304, curproc: 345 });
    // user nice system idle iowait irq softirq steal guest guest_nice, at 100 ticks per second.
    expect(parseProcStat("cpu  100 20 30 5000 40 5 5 10 7 0\ncpu0 1 2 3\nbtime 1700000000\n", 100)).toEqual({ usageCoreNanoSeconds: 1.7e9, bootTimeSeconds: 1700000000 });
  });

  it("parses /proc/net/dev without lo", () => {
    const text = "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo: 100 1 0 0 0 0 0 0 100 1 0 0 0 0 0 0\n  eth0: 5000 10 2 0 0 0 0 0 7000 20 3 0 0 0 0 0\n";
    expect(parseNetDev(text)).toEqual([{ name: "eth0", rxBytes: 5000, rxErrors: 2, txBytes: 7000, txErrors: 3 }]);
  });

  it("measures a directory tree as du does: allocated bytes, inodes, hard links once", async () => {
    const dir = join(root, "du");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(join(dir, "a.bin"), Buffer.alloc(65536, 1));
    writeFileSync(join(dir, "sub", "b.txt"), "x");
    const u = await readDirUsage(dir);
    expect(u?.inodesUsed).toBe(4);
    expect(u?.usedBytes).toBeGreaterThanOrEqual(65536);
    expect(await readDirUsage(join(root, "nope"))).toBeUndefined();
  });

  it("measures a pod log directory and each container's sub-directory in one walk, as readDirUsage would each", async () => {
    const dir = join(root, "podlogs");
    mkdirSync(join(dir, "c1"), { recursive: true });
    mkdirSync(join(dir, "c2"), { recursive: true });
    writeFileSync(join(dir, "c1", "0.log"), Buffer.alloc(65536, 1));
    writeFileSync(join(dir, "c2", "0.log"), "x");
    writeFileSync(join(dir, "c2", "1.log"), "y");
    const tree = readDirUsageTreeSync(dir);
    expect(tree).toBeDefined();
    const whole = await readDirUsage(dir);
    expect({ usedBytes: tree?.usedBytes, inodesUsed: tree?.inodesUsed }).toEqual(whole);
    expect(tree?.children.get("c1")).toEqual(await readDirUsage(join(dir, "c1")));
    expect(tree?.children.get("c2")).toEqual(await readDirUsage(join(dir, "c2")));
    expect(tree?.children.get("c2")?.inodesUsed).toBe(3);
    expect(readDirUsageTreeSync(join(root, "nope"))).toBeUndefined();
    // A file is its own tree, without children.
    expect(readDirUsageTreeSync(join(dir, "c2", "0.log"))?.inodesUsed).toBe(1);
  });
});
