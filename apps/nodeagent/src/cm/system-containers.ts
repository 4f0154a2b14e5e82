import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cgroupNameToCgroupfs, parseCgroupfsToCgroupName, type CgroupManager, type CgroupName } from "./cgroup-manager.js";

/** What {@link SystemContainers} keeps processes in (flag names in the docs). */
export interface SystemContainersOptions {
  /** `--agent-cgroups` (the kubelet's `--kubelet-cgroups`): this agent's process is kept there. `""`: none. */
  readonly agentCgroups: string;
  /** `--runtime-cgroups`: the container runtime's process (the one serving {@link runtimeEndpoint}) is kept there. `""`: none. */
  readonly runtimeCgroups: string;
  /** `--system-cgroups`: the non-kernel processes of the root cgroup are moved there. `""`: none; `/` is refused. */
  readonly systemCgroups: string;
  /** `--container-runtime-endpoint` (`unix:///run/containerd/containerd.sock`). */
  readonly runtimeEndpoint: string;
  /** `--oom-score-adj`, applied to the agent each time it is checked. */
  readonly oomScoreAdj: number;
  /** The cgroup manager (cgroupfs, v1 or v2). */
  readonly cgroups: CgroupManager;
  /** `/proc` (tests: a real one; the pids are real). @defaultValue `/proc` */
  readonly proc?: string;
  /** The pid kept in {@link agentCgroups}. @defaultValue process.pid */
  readonly agentPid?: number;
  /**
   * The cgroup whose processes {@link systemCgroups} takes: the host's root cgroup, as 1.23. Tests
   * point it at a private subtree so only their own processes move. @defaultValue `/`
   */
  readonly systemSource?: string;
  /** How often the placements are checked again. @defaultValue 60000 (1.23: every minute) */
  readonly periodMs?: number;
  /** Log sink; level 0 is info. */
  readonly log?: (message: string, level?: number) => void;
}

/**
 * The cgroup (cgroupfs path) process `pid` is in, from `/proc/<pid>/cgroup`: on cgroup v1 its
 * `cpu` hierarchy's, on v2 the unified one's; undefined when the process is gone.
 * @see pkg/kubelet/cm/container_manager_linux.go (getContainer) in kubernetes/kubernetes v1.23
 */
export function cgroupOfProcess(pid: number, version: "v1" | "v2", proc = "/proc"): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(proc, String(pid), "cgroup"), "utf8");
  } catch {
    return undefined;
  }
  for (const line of text.split("\n")) {
    const a = line.indexOf(":");
    const b = line.indexOf(":", a + 1);
    if (a < 0 || b < 0) continue;
    const controllers = line.slice(a + 1, b);
    const path = line.slice(b + 1);
    if (version === "v2" && controllers === "") return path;
    if (version === "v1" && controllers.split(",").includes("cpu")) return path;
  }
  return undefined;
}

/** Whether `pid` is a kernel thread (no executable), as 1.23's isKernelPid. */
export function isKernelPid(pid: number, proc = "/proc"): boolean {
  try {
    readlinkSync(join(proc, String(pid), "exe"));
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/**
 * The pid of the process listening on a unix socket path (`/run/containerd/containerd.sock`):
 * its inode from `/proc/net/unix`, then the process holding `socket:[inode]` among `/proc/<pid>/fd`.
 * Undefined when none is found (not running, or not a unix socket).
 */
export function unixSocketOwner(socketPath: string, proc = "/proc"): number | undefined {
  let table: string;
  try {
    table = readFileSync(join(proc, "net", "unix"), "utf8");
  } catch {
    return undefined;
  }
  const inodes = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    const cols = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; flags 00010000 = listening.
    if (cols.length >= 8 && cols[7] === socketPath) inodes.add(cols[6] ?? "");
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync(proc)) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(join(proc, entry, "fd"));
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(join(proc, entry, "fd", fd));
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1] ?? "")) return Number(entry);
    }
  }
  return undefined;
}

/**
 * The node agent's system containers, as 1.23's container manager keeps them: the agent's
 * process in `--agent-cgroups` (with `--oom-score-adj`), the container runtime's process (found
 * as the listener of `--container-runtime-endpoint`) in `--runtime-cgroups`, and every non-kernel
 * process of the root cgroup but pid 1 in `--system-cgroups`; each cgroup is created when
 * missing. Checked at {@link start} and every minute; failures are logged (`Failed to ensure
 * state: <why>`) and start-up goes on, as 1.23. The stats provider reads these cgroups for `node.systemContainers`.
 * @see pkg/kubelet/cm/container_manager_linux.go (setupNode, ensureSystemCgroups, ensureProcessInContainerWithOOMScore), pkg/kubelet/dockershim/cm/container_manager_linux.go (ensureDockerInContainer) in kubernetes/kubernetes v1.23
 */
export class SystemContainers {
  readonly #o: SystemContainersOptions;
  readonly #proc: string;
  readonly #log: (message: string, level?: number) => void;
  #timer: NodeJS.Timeout | undefined;

  /** @throws Error `system container cannot be root ("/")` (1.23's words). */
  constructor(o: SystemContainersOptions) {
    if (o.systemCgroups !== "" && parseCgroupfsToCgroupName(o.systemCgroups).length === 0) throw new Error('system container cannot be root ("/")');
    this.#o = o;
    this.#proc = o.proc ?? "/proc";
    this.#log = o.log ?? (() => {});
  }

  /** Whether any placement is configured. */
  get enabled(): boolean {
    return this.#o.agentCgroups !== "" || this.#o.runtimeCgroups !== "" || this.#o.systemCgroups !== "";
  }

  /**
   * Runs {@link ensure} now and then every period; failures are logged (`Failed to ensure state:
   * <why>`), never thrown, as 1.23's wait.Until loop.
   */
  async start(): Promise<void> {
    if (!this.enabled) return;
    const pass = async () => {
      for (const e of await this.ensure()) this.#log(`Failed to ensure state: ${e}`);
    };
    await pass();
    this.#timer = setInterval(() => void pass(), this.#o.periodMs ?? 60_000);
    this.#timer.unref();
  }

  /** Stops the periodic checks. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One pass over the three placements; returns the failures (empty when all hold). */
  async ensure(): Promise<string[]> {
    const errors: string[] = [];
    const o = this.#o;
    if (o.systemCgroups !== "") {
      const err = await this.#ensureSystem(parseCgroupfsToCgroupName(o.systemCgroups));
      if (err) errors.push(err);
    }
    if (o.agentCgroups !== "") {
      const err = await this.#ensureProcess(o.agentPid ?? process.pid, parseCgroupfsToCgroupName(o.agentCgroups), o.oomScoreAdj);
      if (err) errors.push(err);
    }
    if (o.runtimeCgroups !== "") {
      const socket = o.runtimeEndpoint.replace(/^unix:\/\//, "");
      const pid = unixSocketOwner(socket, this.#proc);
      if (pid === undefined) errors.push(`failed to find the container runtime's process (no listener on ${socket}) to move into ${o.runtimeCgroups}`);
      else {
        const err = await this.#ensureProcess(pid, parseCgroupfsToCgroupName(o.runtimeCgroups));
        if (err) errors.push(err);
      }
    }
    return errors;
  }

  // ensureProcessInContainerWithOOMScore
  async #ensureProcess(pid: number, name: CgroupName, oomScoreAdj?: number): Promise<string | undefined> {
    const cgroups = this.#o.cgroups;
    const want = cgroupNameToCgroupfs(name);
    const current = cgroupOfProcess(pid, cgroups.version, this.#proc);
    const errs: string[] = [];
    if (current !== want) {
      try {
        await cgroups.moveProcess(name, pid);
        this.#log(`Moved process ${pid} (in ${JSON.stringify(current ?? "")}) to ${JSON.stringify(want)}`, 2);
      } catch (err) {
        errs.push(`failed to move PID ${pid} (in ${JSON.stringify(current ?? "")}) to ${JSON.stringify(want)}: ${(err as Error).message}`);
      }
    }
    if (oomScoreAdj !== undefined) {
      await writeFile(join(this.#proc, String(pid), "oom_score_adj"), String(oomScoreAdj)).catch((err: unknown) => errs.push(`failed to apply oom score ${oomScoreAdj} to PID ${pid}: ${(err as Error).message}`));
    }
    return errs.length === 0 ? undefined : errs.join("; ");
  }

  // ensureSystemCgroups: up to 11 rounds until no non-kernel process but pid 1 is left in the root.
  async #ensureSystem(name: CgroupName): Promise<string | undefined> {
    const cgroups = this.#o.cgroups;
    const source = parseCgroupfsToCgroupName(this.#o.systemSource ?? "/");
    const sourceDir = cgroups.subsystemPath("cpu", source) as string;
    let finalErr: string | undefined;
    for (let i = 0; i <= 10; i++) {
      let all: number[];
      try {
        all = readFileSync(join(sourceDir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
      } catch (err) {
        finalErr = `failed to list PIDs for root: ${(err as Error).message}`;
        continue;
      }
      const pids = all.filter((pid) => pid !== 1 && !isKernelPid(pid, this.#proc));
      if (pids.length === 0) return undefined;
      this.#log(`Moving non-kernel processes ${pids.join(",")}`, 3);
      for (const pid of pids) {
        try {
          await cgroups.moveProcess(name, pid);
        } catch (err) {
          finalErr = `failed to move PID ${pid} (in ${JSON.stringify(cgroupNameToCgroupfs(source))}) into the system container ${JSON.stringify(cgroupNameToCgroupfs(name))}: ${(err as Error).message}`;
        }
      }
    }
    return finalErr;
  }
}
