// Shared set-up of the suites that run the node agent's container manager against a private
// containerd: a fake /proc (kernel tunables already at the kubelet's values, no swap, a writable
// oom_score_adj) and the removal of the suite's own --cgroup-root afterwards.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CgroupManager } from "../src/cm/index.js";
import { waitFor } from "./pods-helpers.js";

const cgroupFs = "/sys/fs/cgroup";

/** A fake /proc under `dir` for `setUpNode`'s host paths: tunables as the kubelet wants them, no swap. */
export function fakeProc(dir: string): { procSys: string; swaps: string; proc: string } {
  const procSys = join(dir, "proc-sys");
  const tunables: Record<string, string> = { "vm/overcommit_memory": "1", "vm/panic_on_oom": "0", "kernel/panic": "10", "kernel/panic_on_oops": "1", "kernel/keys/root_maxkeys": "1000000", "kernel/keys/root_maxbytes": "25000000", "kernel/pid_max": "32768" };
  for (const [k, v] of Object.entries(tunables)) {
    mkdirSync(join(procSys, k, ".."), { recursive: true });
    writeFileSync(join(procSys, k), `${v}\n`);
  }
  writeFileSync(join(dir, "swaps"), "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
  mkdirSync(join(dir, "proc", "self"), { recursive: true });
  writeFileSync(join(dir, "proc", "self", "oom_score_adj"), "0");
  return { procSys, swaps: join(dir, "swaps"), proc: join(dir, "proc") };
}

/**
 * Removes everything below the suite's `--cgroup-root` (v1 cpu/memory hierarchies or v2), waiting
 * up to 30 s for the runtime's processes to be gone; a failure is a warning, not a test failure.
 */
export async function removeTestCgroupRoot(cgroupRoot: string): Promise<void> {
  if (!existsSync(join(cgroupFs, "cpu", cgroupRoot)) && !existsSync(join(cgroupFs, "memory", cgroupRoot)) && !existsSync(join(cgroupFs, "cgroup.controllers"))) return;
  const cg = new CgroupManager();
  await waitFor(
    "cgroup root removed",
    async () => {
      try {
        await cg.destroy([cgroupRoot]);
        return true;
      } catch {
        return undefined;
      }
    },
    30_000,
  ).catch((err: unknown) => console.warn(String(err)));
}
