import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { containerStatsOf, parseProcStat, readGroupUsage } from "./container-stats.js";

describe("container stats from /proc", () => {
  it("parses /proc/<pid>/stat past a command name with spaces and parentheses", () => {
    const line = "1234 (my (odd) cmd) S 1 1234 1234 0 -1 4194560 500 0 7 0 250 50 0 0 20 0 1 0 100 1000000 300 18446744073709551615";
    expect(parseProcStat(line)).toEqual({ ppid: 1, pgrp: 1234, minflt: 500, majflt: 7, utime: 250, stime: 50, rssPages: 300 });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  it("sums CPU time and resident memory of a live process group (this test's own)", async () => {
    const own = parseProcStat(readFileSync("/proc/self/stat", "utf8"));
    expect(own).toBeDefined();
    const usage = (await readGroupUsage(new Set([own?.pgrp ?? 0]))).get(own?.pgrp ?? 0);
    expect(usage?.rssBytes).toBeGreaterThan(1024 * 1024);
    expect(usage?.cpuNanoseconds).toBeGreaterThan(0n);
  });

  it("counts the descendants of an isolated container's process (bubblewrap's child in its own process group)", async () => {
    const root = mkdtempSync(join(tmpdir(), "skiff-fake-proc-"));
    try {
      // 100: bwrap (group 100); 101: its child in group 101; 102: the command, child of 101; 200: unrelated.
      const stat = (pid: number, ppid: number, pgrp: number, utime: number, rss: number) =>
        `${pid} (x) S ${ppid} ${pgrp} ${pgrp} 0 -1 0 1 0 0 0 ${utime} 0 0 0 20 0 1 0 100 1000 ${rss} 0`;
      for (const [pid, ppid, pgrp, utime, rss] of [[100, 1, 100, 1, 10], [101, 100, 101, 0, 5], [102, 101, 101, 300, 200], [200, 1, 200, 999, 999]] as const) {
        mkdirSync(join(root, String(pid)));
        writeFileSync(join(root, String(pid), "stat"), stat(pid, ppid, pgrp, utime, rss));
      }
      const usage = (await readGroupUsage(new Set([100]), root)).get(100);
      expect(usage?.rssBytes).toBe((10 + 5 + 200) * 4096);
      expect(usage?.cpuNanoseconds).toBeGreaterThan(0n);
      expect(usage?.minorFaults).toBe(3);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reports a stopped container (no pid) with zero usage and an empty writable layer", async () => {
    const { stats } = await containerStatsOf([{ id: "c1", metadata: { name: "app", attempt: 0 }, labels: {}, annotations: {} }]);
    expect(stats?.[0]?.cpu?.usageCoreNanoSeconds).toEqual({ value: "0" });
    expect(stats?.[0]?.memory?.workingSetBytes).toEqual({ value: "0" });
    expect(stats?.[0]?.writableLayer?.usedBytes).toEqual({ value: "0" });
  });
});
