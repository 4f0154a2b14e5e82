import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * With `--fail-swap-on`, fails when swap is on: `/proc/swaps` has more lines than its header. A
 * missing file means no swap.
 * @throws Error `running with swap on is not supported, please disable swap! or set --fail-swap-on
 *   flag to false. /proc/swaps contained: [<line> <line>]` (1.23's words).
 * @see pkg/kubelet/cm/container_manager_linux.go (NewContainerManager) in kubernetes/kubernetes v1.23
 */
export async function checkSwap(failSwapOn: boolean, swapsFile = "/proc/swaps", log: (m: string) => void = () => {}): Promise<void> {
  if (!failSwapOn) return;
  let text: string;
  try {
    text = await readFile(swapsFile, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      log(`File does not exist, assuming that swap is disabled path=${JSON.stringify(swapsFile)}`);
      return;
    }
    throw err;
  }
  const lines = text.trim().split("\n");
  if (lines.length > 1) {
    throw new Error(`running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false. /proc/swaps contained: [${lines.join(" ")}]`);
  }
}

/**
 * The kernel tunables the kubelet wants, in the order checked: sysctl name (as a path under
 * `/proc/sys`) → value.
 * @see pkg/kubelet/cm/container_manager_linux.go (setupKernelTunables) in kubernetes/kubernetes v1.23
 */
export const desiredKernelTunables: ReadonlyArray<readonly [string, number]> = Object.freeze([
  ["vm/overcommit_memory", 1],
  ["vm/panic_on_oom", 0],
  ["kernel/panic", 10],
  ["kernel/panic_on_oops", 1],
  ["kernel/keys/root_maxkeys", 1000000],
  ["kernel/keys/root_maxbytes", 25000000],
] as const);

/**
 * Checks (`protectKernelDefaults`) or sets the kernel tunables of {@link desiredKernelTunables}.
 * Checking fails on any difference; setting writes each differing value and logs (does not fail)
 * when it cannot be written (the node agent commonly runs without the right to change host
 * sysctls).
 * @param procSysDir where sysctls live. @defaultValue `/proc/sys`
 * @throws Error `invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0`
 *   (several joined as `[a, b]`, as utilerrors.NewAggregate), or a read error.
 * @see pkg/kubelet/cm/container_manager_linux.go (setupKernelTunables) in kubernetes/kubernetes v1.23
 */
export async function setupKernelTunables(protectKernelDefaults: boolean, procSysDir = "/proc/sys", log: (m: string) => void = () => {}): Promise<void> {
  const errors: string[] = [];
  for (const [flag, expected] of desiredKernelTunables) {
    const path = join(procSysDir, flag);
    let actual: number;
    try {
      actual = Number.parseInt((await readFile(path, "utf8")).trim(), 10);
    } catch (err) {
      errors.push((err as Error).message);
      continue;
    }
    if (actual === expected) continue;
    if (protectKernelDefaults) {
      errors.push(`invalid kernel flag: ${flag}, expected value: ${expected}, actual value: ${actual}`);
      continue;
    }
    log(`Updating kernel flag flag=${JSON.stringify(flag)} expectedValue=${expected} actualValue=${actual}`);
    await writeFile(path, String(expected)).catch((err: unknown) => log(`Updating kernel flag failed flag=${JSON.stringify(flag)} err=${JSON.stringify((err as Error).message)}`));
  }
  if (errors.length === 1) throw new Error(errors[0]);
  if (errors.length > 1) throw new Error(`[${errors.join(", ")}]`);
}

/**
 * `--oom-score-adj`: writes the value to `<procDir>/self/oom_score_adj`. A failure (lowering it
 * needs CAP_SYS_RESOURCE) is returned as a message for the caller to log, as 1.23 does.
 * @returns `undefined` on success, else why it failed.
 * @see cmd/kubelet/app/server.go (run: ApplyOOMScoreAdj) in kubernetes/kubernetes v1.23
 */
export async function applyOOMScoreAdj(value: number, procDir = "/proc"): Promise<string | undefined> {
  try {
    await writeFile(join(procDir, "self", "oom_score_adj"), String(value));
    return undefined;
  } catch (err) {
    return `failed to set oom_score_adj to ${value}: ${(err as Error).message}`;
  }
}

/**
 * `--max-open-files`: sets this process's RLIMIT_NOFILE (soft and hard) to `n` with util-linux
 * `prlimit --pid <pid> --nofile=n:n`.
 * @returns `undefined` on success, else why it failed (1.23 logs "Failed to set rlimit on max file handles").
 * @see cmd/kubelet/app/server.go (RunKubelet: rlimit.SetNumFiles) in kubernetes/kubernetes v1.23
 */
export function setMaxOpenFiles(n: number, pid = process.pid): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("prlimit", ["--pid", String(pid), `--nofile=${n}:${n}`], (err, _stdout, stderr) => {
      if (!err) resolve(undefined);
      else resolve(`prlimit --pid ${pid} --nofile=${n}:${n} failed: ${(stderr || err.message).trim()}`);
    });
  });
}

/**
 * The soft and hard RLIMIT_NOFILE of a process, from `/proc/<pid>/limits`; undefined when unreadable.
 */
export async function readMaxOpenFiles(pid: number | "self" = "self", procDir = "/proc"): Promise<{ soft: string; hard: string } | undefined> {
  const text = await readFile(join(procDir, String(pid), "limits"), "utf8").catch(() => undefined);
  const m = text === undefined ? null : /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  return m ? { soft: m[1] ?? "", hard: m[2] ?? "" } : undefined;
}
