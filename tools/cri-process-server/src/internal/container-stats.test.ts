import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { containerStatsOf, parseProcStat, readGroupUsage } from "./container-stats.js";

describe("container stats from /proc", () => {
  it("parses /proc/<pid>/stat past a command name with spaces and parentheses", () => {
    const line = "1234 (my (odd) cmd) S 1 1234 1234 0 -1 4194560 500 0 7 0 250 50 0 0 20 0 1 0 100 1000000 300 18446744073709551615";
    expect(parseProcStat(line)).toEqual({ pgrp: 1234, minflt: 500, majflt: 7, utime: 250, stime: 50, rssPages: 300 });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  it("sums CPU time and resident memory of a live process group (this test's own)", async () => {
    const own = parseProcStat(readFileSync("/proc/self/stat", "utf8"));
    expect(own).toBeDefined();
    const usage = (await readGroupUsage(new Set([own?.pgrp ?? 0]))).get(own?.pgrp ?? 0);
    expect(usage?.rssBytes).toBeGreaterThan(1024 * 1024);
    expect(usage?.cpuNanoseconds).toBeGreaterThan(0n);
  });

  it("reports a stopped container (no pid) with zero usage and an empty writable layer", async () => {
    const { stats } = await containerStatsOf([{ id: "c1", metadata: { name: "app", attempt: 0 }, labels: {}, annotations: {} }]);
    expect(stats?.[0]?.cpu?.usageCoreNanoSeconds).toEqual({ value: "0" });
    expect(stats?.[0]?.memory?.workingSetBytes).toEqual({ value: "0" });
    expect(stats?.[0]?.writableLayer?.usedBytes).toEqual({ value: "0" });
  });
});
