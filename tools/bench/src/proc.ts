/**
 * Per-process resource figures from Linux /proc, for the benchmarks that run the system as
 * processes: CPU seconds (user + system, own and reaped children) and resident set size.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** CPU seconds (user + system, own and reaped children) of a process, from /proc/<pid>/stat; 0 when gone. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14–17 of proc(5) (utime, stime, cutime, cstime), 0-based 11–14 after the name.
    return [11, 12, 13, 14].reduce((a, i) => a + Number(f[i] ?? 0), 0) / 100;
  } catch {
    return 0;
  }
}

/** Resident set size of a process in bytes, from /proc/<pid>/status; 0 when gone. */
export function rssBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Stops `child` with SIGTERM, then SIGKILL after `graceMs`, and resolves once it has exited.
 * Resolves at once for a child that has already exited, by a code or by a signal (a child killed
 * by a signal has a null `exitCode`: waiting for its `exit` event again would never end).
 */
export async function stopProcess(child: ChildProcess, graceMs = 60_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** The sum of a map's values (CPU seconds by component → the cluster's). */
export function sumValues(m: ReadonlyMap<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}
