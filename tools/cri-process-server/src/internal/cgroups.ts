import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import type { LinuxContainerResources__Output } from "@skiff/cri-api";

/** One cgroup directory of a container and the files written to it. */
export interface CgroupDir {
  readonly dir: string;
  readonly files: ReadonlyArray<readonly [name: string, value: string]>;
}

const int = (v: unknown): bigint => {
  try {
    return BigInt(String(v ?? 0));
  } catch {
    return 0n;
  }
};

// runc's ConvertCPUSharesToCgroupV2Value.
const weightOf = (shares: bigint): bigint => (shares === 0n ? 0n : 1n + ((shares - 2n) * 9999n) / 262142n);

/**
 * The segments of a cgroup path, cleaned as runc's `CleanPath`: `..` cannot climb above the
 * root (`../../etc` is `etc`, `/a/../../b` is `b`), so a `cgroup_parent` from a CRI request always
 * names a cgroup lexically under the cgroup filesystem's root. Pure.
 * @see libcontainer/cgroups/utils.go (CleanPath) in opencontainers/runc
 */
export function cgroupPathSegments(path: string): string[] {
  return posix.normalize(`/${path}`).split("/").filter(Boolean);
}

/**
 * The cgroup directories of a container (`<cgroupParent>/<id>`) under `root` and the limit files
 * runc would write from its CRI resources: cgroup v1 `cpu.shares`, `cpu.cfs_period_us`,
 * `cpu.cfs_quota_us`, `memory.limit_in_bytes`, `cpuset.cpus` / `cpuset.mems` (the given sets, else
 * the parent's, which v1 requires), `pids` for placement; v2 `cpu.weight`, `cpu.max`,
 * `memory.max`, `cpuset.cpus`, `cpuset.mems`. Zero values are left unset. Pure but for reading the
 * mounts (v2: `<root>/cgroup.controllers`; v1: one directory per subsystem).
 */
export function containerCgroupDirs(root: string, cgroupParent: string, id: string, r: LinuxContainerResources__Output | null | undefined): CgroupDir[] {
  const rel = [...cgroupPathSegments(cgroupParent), ...cgroupPathSegments(id)];
  const shares = int(r?.cpuShares);
  const quota = int(r?.cpuQuota);
  const period = int(r?.cpuPeriod);
  const memory = int(r?.memoryLimitInBytes);
  const cpus = r?.cpusetCpus ?? "";
  const mems = r?.cpusetMems ?? "";
  if (existsSync(join(root, "cgroup.controllers"))) {
    const files: Array<[string, string]> = [];
    if (shares !== 0n) files.push(["cpu.weight", String(weightOf(shares))]);
    if (quota !== 0n || period !== 0n) files.push(["cpu.max", `${quota > 0n ? String(quota) : "max"}${period !== 0n ? ` ${period}` : ""}`]);
    if (memory !== 0n) files.push(["memory.max", String(memory)]);
    if (cpus !== "") files.push(["cpuset.cpus", cpus]);
    if (mems !== "") files.push(["cpuset.mems", mems]);
    return [{ dir: join(root, ...rel), files }];
  }
  const out: CgroupDir[] = [];
  const sub = (s: string): string | undefined => {
    const d = join(root, s);
    try {
      return statSync(d).isDirectory() ? realpathSync(d) : undefined;
    } catch {
      return undefined;
    }
  };
  const cpu = sub("cpu");
  if (cpu) {
    const files: Array<[string, string]> = [];
    if (shares !== 0n) files.push(["cpu.shares", String(shares)]);
    if (period !== 0n) files.push(["cpu.cfs_period_us", String(period)]);
    if (quota !== 0n) files.push(["cpu.cfs_quota_us", String(quota)]);
    out.push({ dir: join(cpu, ...rel), files });
  }
  const memoryDir = sub("memory");
  if (memoryDir) out.push({ dir: join(memoryDir, ...rel), files: memory !== 0n ? [["memory.limit_in_bytes", String(memory)]] : [] });
  const cpuset = sub("cpuset");
  if (cpuset) out.push({ dir: join(cpuset, ...rel), files: [["cpuset.cpus", cpus], ["cpuset.mems", mems]] });
  const pids = sub("pids");
  if (pids) out.push({ dir: join(pids, ...rel), files: [] });
  return out;
}

/** Whether cgroups can be used here: a v1 `cpu` hierarchy or a v2 root under `root`. */
export function cgroupsAvailable(root: string): boolean {
  if (existsSync(join(root, "cgroup.controllers"))) return true;
  try {
    return readdirSync(root).includes("cpu");
  } catch {
    return false;
  }
}

/** Whether the cgroup `cgroupParent` exists (v2: under `root`; v1: in the `cpu` hierarchy). */
export function cgroupParentExists(root: string, cgroupParent: string): boolean {
  const rel = cgroupPathSegments(cgroupParent);
  return existsSync(existsSync(join(root, "cgroup.controllers")) ? join(root, ...rel) : join(root, "cpu", ...rel));
}

/**
 * Creates the container's cgroups and writes their limits (v1 cpuset: an empty set is copied from
 * the parent; v2: the controllers are enabled in the parent). Returns the `cgroup.procs` files to
 * join.
 * @throws Error naming the directory or file that could not be written.
 */
export async function createContainerCgroups(root: string, dirs: readonly CgroupDir[]): Promise<string[]> {
  const v2 = existsSync(join(root, "cgroup.controllers"));
  // Each directory is its own hierarchy on v1 (one on v2): they are set up side by side, so a
  // container start waits for the slowest, not for the sum; the first failure is thrown.
  const results = await Promise.allSettled(dirs.map(async ({ dir, files }) => {
    const parent = join(dir, "..");
    if (v2) {
      const available = (await readFile(join(root, "cgroup.controllers"), "utf8").catch(() => "")).split(/\s+/);
      for (const c of ["cpu", "memory", "pids", "cpuset"].filter((x) => available.includes(x))) await writeFile(join(parent, "cgroup.subtree_control"), `+${c}`).catch(() => undefined);
    }
    await mkdir(dir, { recursive: true }).catch((err: unknown) => {
      throw new Error(`failed to create cgroup ${dir}: ${(err as Error).message}`, { cause: err });
    });
    for (const [name, value] of files) {
      let v = value;
      if (v === "" && (name === "cpuset.cpus" || name === "cpuset.mems")) v = await inheritedCpuset(parent, name);
      if (v === "") continue;
      await writeFile(join(dir, name), v).catch((err: unknown) => {
        throw new Error(`failed to write ${JSON.stringify(v)} to ${join(dir, name)}: ${(err as Error).message}`, { cause: err });
      });
    }
  }));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return dirs.map((d) => join(d.dir, "cgroup.procs"));
}

/**
 * The v1 `cpuset.cpus` / `cpuset.mems` (`name`) of cgroup `dir`; when empty (a parent created
 * here, such as the default parent), it first gets its own parent's, recursively up to the
 * hierarchy's root, because v1 admits no process to a cpuset whose sets are empty. "" when the file
 * does not exist (above the root).
 */
async function inheritedCpuset(dir: string, name: string): Promise<string> {
  let own: string;
  try {
    own = (await readFile(join(dir, name), "utf8")).trim();
  } catch {
    return "";
  }
  if (own !== "") return own;
  const up = await inheritedCpuset(join(dir, ".."), name);
  if (up !== "") await writeFile(join(dir, name), up).catch(() => undefined);
  return up;
}

/** Removes the container's cgroups (once its processes are gone); errors are ignored. */
export async function removeContainerCgroups(dirs: readonly CgroupDir[]): Promise<void> {
  for (const { dir } of dirs) await rmdir(dir).catch(() => undefined);
}

/**
 * `argv` run by a shell that first writes its own pid into each `procs` file (joining the
 * container's cgroups, so nothing the command starts escapes them), closes its file descriptor 3
 * (the server's sign that it is ready: `StartOptions.readyOnFd3Close`), then execs it; a failed
 * write ends it with exit code 126, as runc does for a container it cannot start. Pure.
 */
export function wrapJoiningCgroups(argv: readonly string[], procs: readonly string[]): string[] {
  if (procs.length === 0) return [...argv];
  return ["/bin/sh", "-c", 'for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 126; shift; done; shift; exec 3>&-; exec "$@"', "sh", ...procs, "--", ...argv];
}
