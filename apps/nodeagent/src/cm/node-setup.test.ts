import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyOOMScoreAdj, checkSwap, desiredKernelTunables, readMaxOpenFiles, setMaxOpenFiles, setupKernelTunables } from "./node-setup.js";
import { unsupportedSettings } from "./unsupported.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "node-setup-"));
  dirs.push(d);
  return d;
}
function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe("checkSwap (--fail-swap-on)", () => {
  const header = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
  it("passes with only the header, a missing file, or --fail-swap-on=false", async () => {
    const d = tmp();
    put(join(d, "swaps"), header);
    await expect(checkSwap(true, join(d, "swaps"))).resolves.toBeUndefined();
    await expect(checkSwap(true, join(d, "none"))).resolves.toBeUndefined();
    put(join(d, "on"), `${header}/swapfile                               file\t\t1048572\t\t0\t\t-2\n`);
    await expect(checkSwap(false, join(d, "on"))).resolves.toBeUndefined();
  });
  it("fails with 1.23's message listing /proc/swaps' lines when swap is on", async () => {
    const d = tmp();
    put(join(d, "swaps"), `${header}/swapfile file 1048572 0 -2\n`);
    await expect(checkSwap(true, join(d, "swaps"))).rejects.toThrow(
      "running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false. /proc/swaps contained: [Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority /swapfile file 1048572 0 -2]",
    );
  });
});

describe("setupKernelTunables (--protect-kernel-defaults)", () => {
  function sys(values: Record<string, string>): string {
    const d = tmp();
    for (const [flag, v] of desiredKernelTunables) put(join(d, flag), `${values[flag] ?? String(v)}\n`);
    return d;
  }
  it("passes when every tunable has the kubelet's value", async () => {
    await expect(setupKernelTunables(true, sys({}))).resolves.toBeUndefined();
  });
  it("fails naming the flag, expected and actual values when protecting kernel defaults", async () => {
    await expect(setupKernelTunables(true, sys({ "vm/overcommit_memory": "0" }))).rejects.toThrow("invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0");
    await expect(setupKernelTunables(true, sys({ "vm/overcommit_memory": "0", "kernel/panic": "1" }))).rejects.toThrow(
      "[invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0, invalid kernel flag: kernel/panic, expected value: 10, actual value: 1]",
    );
  });
  it("sets differing tunables otherwise, logging what it changes", async () => {
    const d = sys({ "vm/overcommit_memory": "0", "kernel/panic_on_oops": "0" });
    const logs: string[] = [];
    await setupKernelTunables(false, d, (m) => logs.push(m));
    expect(readFileSync(join(d, "vm/overcommit_memory"), "utf8")).toBe("1");
    expect(readFileSync(join(d, "kernel/panic_on_oops"), "utf8")).toBe("1");
    expect(logs).toEqual([
      'Updating kernel flag flag="vm/overcommit_memory" expectedValue=1 actualValue=0',
      'Updating kernel flag flag="kernel/panic_on_oops" expectedValue=1 actualValue=0',
    ]);
  });
});

describe("agent process limits", () => {
  it("--oom-score-adj writes <proc>/self/oom_score_adj and reports a failure", async () => {
    const d = tmp();
    put(join(d, "self", "oom_score_adj"), "0");
    await expect(applyOOMScoreAdj(-999, d)).resolves.toBeUndefined();
    expect(readFileSync(join(d, "self", "oom_score_adj"), "utf8")).toBe("-999");
    await expect(applyOOMScoreAdj(-999, join(d, "missing"))).resolves.toContain("failed to set oom_score_adj to -999");
  });
  it("--max-open-files sets RLIMIT_NOFILE of a process with prlimit", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const pid = child.pid ?? 0;
      await expect(setMaxOpenFiles(4096, pid)).resolves.toBeUndefined();
      expect(await readMaxOpenFiles(pid)).toEqual({ soft: "4096", hard: "4096" });
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("unsupportedSettings", () => {
  it("refuses nothing: the cgroup placements and the memory manager are enforced", () => expect(unsupportedSettings({ runtimeCgroups: "/rt", systemCgroups: "/sys" })).toEqual([]));
});
