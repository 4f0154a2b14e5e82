import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statfsSync, statSync, writeFileSync } from "node:fs";
import type { Dirent } from "node:fs";
import { mkdir, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { agentTracer } from "../internal/trace.js";
import { hugePageSizes, hugePageUnitSize, readMachineHugePages } from "./hugepages.js";

/**
 * The limits written to one cgroup; absent fields are left as they are. Units: CPU shares (cgroup
 * v1 `cpu.shares`, converted to `cpu.weight` on v2), CFS quota/period in µs (quota −1 = unlimited),
 * memory in bytes (−1 = unlimited), pids (−1 = unlimited).
 * @see pkg/kubelet/cm/types.go (ResourceConfig) in kubernetes/kubernetes v1.23
 */
export interface ResourceConfig {
  cpuShares?: bigint;
  cpuQuota?: bigint;
  cpuPeriod?: bigint;
  memory?: bigint;
  pidsLimit?: bigint;
  /**
   * Hugetlb limits: page size in bytes → limit in bytes. When set, every page size of the
   * machine is written (0 for those not in the map), as 1.23's toResources.
   */
  hugePageLimit?: ReadonlyMap<bigint, bigint>;
}

/** A cgroup name: its path components below the hierarchy root (`["kubepods", "burstable"]`); `[]` is the root. */
export type CgroupName = readonly string[];

/** The cgroupfs path of a name: `/` + components joined (`/kubepods/burstable`); `/` for the root. */
export function cgroupNameToCgroupfs(name: CgroupName): string {
  return `/${name.join("/")}`;
}

/**
 * The systemd form of a cgroup name, expanded into its cgroupfs path: each component with `-`
 * replaced by `_`, joined by `-` into a slice name, then expanded into its parent slices:
 * `["kubepods", "burstable", "pod12-34"]` → `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice`;
 * `[]` → `/`.
 * @see pkg/kubelet/cm/cgroup_manager_linux.go (CgroupName.ToSystemd), libcontainer systemd.ExpandSlice in kubernetes/kubernetes v1.23
 */
export function cgroupNameToSystemd(name: CgroupName): string {
  if (name.length === 0 || (name.length === 1 && name[0] === "")) return "/";
  const parts = name.map((p) => p.replaceAll("-", "_"));
  let path = "";
  let prefix = "";
  for (const p of parts) {
    prefix = prefix === "" ? p : `${prefix}-${p}`;
    path += `/${prefix}.slice`;
  }
  return path;
}

/**
 * Parses a systemd slice (`/kubepods.slice/kubepods-burstable.slice`, or its last part) into a
 * cgroup name (`["kubepods", "burstable"]`), `_` back to `-`.
 * @see pkg/kubelet/cm/cgroup_manager_linux.go (ParseSystemdToCgroupName) in kubernetes/kubernetes v1.23
 */
export function parseSystemdToCgroupName(path: string): CgroupName {
  const base = path.split("/").filter(Boolean).pop() ?? "";
  const driverName = base.endsWith(".slice") ? base.slice(0, -".slice".length) : base;
  if (driverName === "") return [];
  return driverName.split("-").map((p) => p.replaceAll("_", "-"));
}

/**
 * Parses a cgroupfs path (`/kubepods/burstable`, `kubepods`, `/`) into a name.
 * @see pkg/kubelet/cm/cgroup_manager_linux.go (ParseCgroupfsToCgroupName) in kubernetes/kubernetes v1.23
 */
export function parseCgroupfsToCgroupName(path: string): CgroupName {
  return path.split("/").filter((p) => p !== "" && p !== ".");
}

/**
 * Errors of the cgroup manager; `reason` is stable: `CgroupNotFound` (updating a missing cgroup),
 * `CgroupWriteFailed` (a directory or file could not be written), `CgroupBusy` (removal while
 * processes remain), `CgroupsUnavailable` (no usable cgroup mount).
 */
export class CgroupError extends Error {
  constructor(
    readonly reason: "CgroupNotFound" | "CgroupWriteFailed" | "CgroupBusy" | "CgroupsUnavailable",
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "CgroupError";
  }
}

/** Where cgroups are mounted and which version. */
export interface CgroupManagerOptions {
  /** The cgroup mount root. @defaultValue `/sys/fs/cgroup` */
  readonly root?: string;
  /** The machine's hugepage sizes (`1GB`, `2MB`), as libcontainer's HugePageSizes. @defaultValue read from `/sys/kernel/mm/hugepages` */
  readonly hugePageSizes?: readonly string[];
  /**
   * `cgroupfs` (names are paths) or `systemd` (names are slices, created and stopped through
   * systemd's D-Bus API with `busctl`; limits are then written to their cgroup files, as
   * libcontainer's systemd driver does). @defaultValue `cgroupfs`
   */
  readonly driver?: "cgroupfs" | "systemd";
  /** Runs `busctl` with these arguments (tests). @defaultValue the `busctl` binary */
  readonly busctl?: (args: readonly string[]) => Promise<void>;
}

/** v1 subsystems whose files the manager writes; each pod cgroup is also created in every other mounted hierarchy. */
const v1Writable = ["cpu", "cpuset", "memory", "pids"] as const;

/**
 * Converts cgroup v1 CPU shares [2, 262144] to cgroup v2 `cpu.weight` [1, 10000]; 0 stays 0 (unset).
 * @see vendor/github.com/opencontainers/runc/libcontainer/cgroups/utils.go (ConvertCPUSharesToCgroupV2Value)
 */
export function cpuSharesToWeight(shares: bigint): bigint {
  if (shares === 0n) return 0n;
  return 1n + ((shares - 2n) * 9999n) / 262142n;
}

/**
 * The cgroupfs driver: creates, updates, lists and removes cgroups by writing the cgroup
 * filesystem directly, for cgroup v1 (one hierarchy per subsystem: `cpu.shares`,
 * `cpu.cfs_period_us`, `cpu.cfs_quota_us`, `memory.limit_in_bytes`, `pids.max`,
 * `hugetlb.<size>.limit_in_bytes`; `cpuset.cpus`
 * and `cpuset.mems` copied from the parent) and v2 (unified: `cpu.weight`, `cpu.max`,
 * `memory.max`, `pids.max`, `hugetlb.<size>.max`, controllers enabled in the parents' `cgroup.subtree_control`). The
 * version is detected: v2 when `<root>/cgroup.controllers` exists.
 *
 * @see pkg/kubelet/cm/cgroup_manager_linux.go (cgroupManagerImpl) in kubernetes/kubernetes v1.23
 */
export class CgroupManager {
  readonly root: string;
  /** `v1` (per-subsystem hierarchies) or `v2` (unified). */
  readonly version: "v1" | "v2";
  /** The machine's hugepage sizes (`1GB`, `2MB`). */
  readonly hugePageSizes: readonly string[];
  /** The cgroup driver. */
  readonly driver: "cgroupfs" | "systemd";
  readonly #busctl: (args: readonly string[]) => Promise<void>;
  // v1: hierarchy directories (one per mount, `unified` excluded) and subsystem → directory.
  readonly #hierarchies: string[] = [];
  readonly #subsystems = new Map<string, string>();
  // v1 hybrid: the cgroup2 hierarchy at <root>/unified, where runc mirrors the containers' cgroups
  // (and so their parents): not written, but cleaned up with the pod.
  #unified: string | undefined;

  /** @throws CgroupError `CgroupsUnavailable` when no cgroup hierarchy is mounted under the root. */
  constructor(o: CgroupManagerOptions = {}) {
    this.root = o.root ?? "/sys/fs/cgroup";
    this.hugePageSizes = o.hugePageSizes ?? hugePageSizes(readMachineHugePages());
    this.driver = o.driver ?? "cgroupfs";
    this.#busctl = o.busctl ?? runBusctl;
    this.version = existsSync(join(this.root, "cgroup.controllers")) ? "v2" : "v1";
    if (this.version === "v2") return;
    const seen = new Set<string>();
    let names: string[] = [];
    try {
      names = readdirSync(this.root);
    } catch (err) {
      throw new CgroupError("CgroupsUnavailable", `no cgroup filesystem at ${this.root}: ${(err as Error).message}`, { cause: err });
    }
    for (const name of names.sort()) {
      const dir = join(this.root, name);
      if (name === "unified") {
        if (existsSync(join(dir, "cgroup.controllers"))) this.#unified = dir;
        continue;
      }
      let real: string;
      try {
        if (!statSync(dir).isDirectory()) continue;
        real = realpathSync(dir);
      } catch {
        continue;
      }
      if (!seen.has(real)) {
        seen.add(real);
        this.#hierarchies.push(real);
      }
      for (const s of name.split(",")) if (!this.#subsystems.has(s)) this.#subsystems.set(s, real);
    }
    if (!this.#subsystems.has("cpu") || !this.#subsystems.has("memory")) throw new CgroupError("CgroupsUnavailable", `cgroup v1 hierarchies cpu and memory must be mounted under ${this.root}`);
  }

  /** The directories a cgroup has (one per v1 hierarchy, one on v2). */
  paths(name: CgroupName): string[] {
    const fs = this.#fs(name);
    if (this.version === "v2") return [join(this.root, ...fs)];
    return this.#hierarchies.map((h) => join(h, ...fs));
  }

  /** The directory of `name` for a v1 subsystem (`cpu`, `memory`...), or the unified one on v2; undefined when not mounted. */
  subsystemPath(subsystem: string, name: CgroupName): string | undefined {
    const fs = this.#fs(name);
    if (this.version === "v2") return join(this.root, ...fs);
    const h = this.#subsystems.get(subsystem);
    return h === undefined ? undefined : join(h, ...fs);
  }

  /** Whether the cgroup exists (on v1: in the cpu, cpuset, memory and pids hierarchies that are mounted). */
  exists(name: CgroupName): boolean {
    if (this.version === "v2") return existsSync(join(this.root, ...this.#fs(name)));
    return v1Writable.every((s) => {
      const p = this.subsystemPath(s, name);
      return p === undefined || existsSync(p);
    });
  }

  /**
   * Creates the cgroup (and missing parents) in every hierarchy, then applies `rc`. Idempotent.
   * @throws CgroupError `CgroupWriteFailed` naming the file that could not be written.
   */
  async create(name: CgroupName, rc: ResourceConfig = {}): Promise<void> {
    if (this.driver === "systemd") {
      await this.#createSlices(name);
    } else if (this.version === "v2") {
      await this.#enableControllersV2(name);
      await mkdir(join(this.root, ...name), { recursive: true }).catch((err: unknown) => {
        throw new CgroupError("CgroupWriteFailed", `failed to create cgroup ${cgroupNameToCgroupfs(name)}: ${(err as Error).message}`, { cause: err });
      });
    } else {
      // Each hierarchy, each level after its parent, synchronously: a cgroupfs mkdir, read or write
      // of an empty cgroup takes microseconds, where each asynchronous call waited its turn in the
      // thread pool (a pod start spent 90 ms here under load, a dozen round trips in the cpuset
      // hierarchy alone). The first failure is thrown once every hierarchy was tried.
      let failed: unknown;
      for (const h of this.#hierarchies) {
        const isCpuset = this.#subsystems.get("cpuset") === h;
        const t0 = agentTracer.now();
        try {
          for (let i = 1; i <= name.length; i++) {
            const dir = join(h, ...name.slice(0, i));
            if (!existsSync(dir)) {
              try {
                mkdirSync(dir);
              } catch (err) {
                if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new CgroupError("CgroupWriteFailed", `failed to create cgroup ${dir}: ${(err as Error).message}`, { cause: err });
              }
            }
            if (isCpuset) this.#copyCpuset(join(h, ...name.slice(0, i - 1)), dir);
          }
        } catch (err) {
          failed ??= err;
        }
        agentTracer.record("cgroup-mkdir", t0, agentTracer.now(), { attrs: { hierarchy: h } });
      }
      if (failed !== undefined) throw failed;
    }
    await this.update(name, rc);
  }

  /**
   * Writes `rc` to the cgroup's files (absent fields untouched).
   * @throws CgroupError `CgroupNotFound` when the cgroup does not exist, `CgroupWriteFailed` when a file write fails.
   */
  async update(name: CgroupName, rc: ResourceConfig): Promise<void> {
    if (!this.exists(name)) throw new CgroupError("CgroupNotFound", `cgroup ${cgroupNameToCgroupfs(name)} does not exist`);
    // The writes are queued per subsystem (in order within one: cpu period before quota) and the
    // subsystems written side by side; the first failure is thrown once all have settled.
    const queues = new Map<string, Array<[string, string]>>();
    const w = (subsystem: string, file: string, value: string): Promise<void> => {
      const q = queues.get(subsystem) ?? [];
      q.push([file, value]);
      queues.set(subsystem, q);
      return Promise.resolve();
    };
    const flush = async (subsystem: string, q: ReadonlyArray<[string, string]>): Promise<void> => {
      const dir = this.subsystemPath(subsystem, name);
      if (dir === undefined) return;
      for (const [file, value] of q) {
        const path = join(dir, file);
        // Synchronous: a cgroup file write is one short kernel call (0.03–0.8 ms measured here),
        // where the thread pool's round trip behind the agent's other file work took 5–9 ms of a
        // pod start.
        try {
          writeFileSync(path, value);
        } catch (err) {
          throw new CgroupError("CgroupWriteFailed", `failed to write ${JSON.stringify(value)} to ${path}: ${(err as Error).message}`, { cause: err });
        }
      }
    };
    if (this.version === "v1") {
      if (rc.cpuShares !== undefined && rc.cpuShares !== 0n) await w("cpu", "cpu.shares", String(rc.cpuShares));
      if (rc.cpuPeriod !== undefined && rc.cpuPeriod !== 0n) await w("cpu", "cpu.cfs_period_us", String(rc.cpuPeriod));
      if (rc.cpuQuota !== undefined && rc.cpuQuota !== 0n) await w("cpu", "cpu.cfs_quota_us", String(rc.cpuQuota));
      if (rc.memory !== undefined && rc.memory !== 0n) await w("memory", "memory.limit_in_bytes", String(rc.memory));
    } else {
      const weight = cpuSharesToWeight(rc.cpuShares ?? 0n);
      if (weight !== 0n) await w("cpu", "cpu.weight", String(weight));
      if ((rc.cpuQuota ?? 0n) !== 0n || (rc.cpuPeriod ?? 0n) !== 0n) {
        let text = (rc.cpuQuota ?? 0n) > 0n ? String(rc.cpuQuota) : "max";
        if ((rc.cpuPeriod ?? 0n) !== 0n) text += ` ${String(rc.cpuPeriod)}`;
        await w("cpu", "cpu.max", text);
      }
      if (rc.memory !== undefined && rc.memory !== 0n) await w("memory", "memory.max", rc.memory < 0n ? "max" : String(rc.memory));
    }
    if (rc.pidsLimit !== undefined && rc.pidsLimit !== 0n) await w("pids", "pids.max", rc.pidsLimit > 0n ? String(rc.pidsLimit) : "max");
    if (rc.hugePageLimit !== undefined && this.#hugetlbAvailable()) {
      const limits = new Map<string, bigint>();
      for (const [size, limit] of rc.hugePageLimit) {
        try {
          limits.set(hugePageUnitSize(size), limit);
        } catch {
          // An invalid page size is skipped, as 1.23 (logged there).
        }
      }
      for (const size of this.hugePageSizes) if (!limits.has(size)) limits.set(size, 0n);
      for (const [size, limit] of limits) await w("hugetlb", this.version === "v1" ? `hugetlb.${size}.limit_in_bytes` : `hugetlb.${size}.max`, String(limit));
    }
    // On v2 every subsystem is the same directory: one queue keeps the order 1.23 writes in.
    const groups = this.version === "v2" ? [[...queues].flatMap(([sub, q]) => q.map(([f, v]) => [sub, f, v] as const))] : [...queues].map(([sub, q]) => q.map(([f, v]) => [sub, f, v] as const));
    const results = await Promise.allSettled(groups.map(async (g) => {
      const t0 = agentTracer.now();
      for (const [sub, f, v] of g) await flush(sub, [[f, v]]);
      agentTracer.record("cgroup-write", t0, agentTracer.now(), { attrs: { files: g.map(([, f]) => f).join(",") } });
    }));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  // hugetlb is optional: v1 needs its hierarchy mounted, v2 the controller at the root.
  #hugetlbAvailable(): boolean {
    if (this.version === "v1") return this.#subsystems.has("hugetlb");
    try {
      return readFileSync(join(this.root, "cgroup.controllers"), "utf8").split(/\s+/).includes("hugetlb");
    } catch {
      return false;
    }
  }

  /** The directories {@link destroy} removes: {@link paths} and, on a v1 hybrid host, the unified hierarchy's. */
  allPaths(name: CgroupName): string[] {
    const out = this.paths(name);
    if (this.#unified !== undefined) out.push(join(this.#unified, ...this.#fs(name)));
    return out;
  }

  /**
   * Removes the cgroup from every hierarchy (with a v1 hybrid host's unified one), its empty child
   * cgroups first (those the runtime left). Missing directories are fine.
   * @throws CgroupError `CgroupBusy` when a cgroup still has processes.
   */
  async destroy(name: CgroupName): Promise<void> {
    if (this.driver === "systemd" && name.length > 0) {
      const unit = cgroupNameToSystemd(name).split("/").pop() ?? "";
      await this.#busctl(["call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "StopUnit", "ss", unit, "replace"]).catch(() => undefined);
    }
    for (const dir of this.allPaths(name)) await removeTree(dir);
  }

  /** The names of the child cgroups of `name` in any hierarchy (sorted, no duplicates). */
  async children(name: CgroupName): Promise<string[]> {
    const out = new Set<string>();
    for (const dir of this.allPaths(name)) {
      // Synchronously: a cgroupfs directory is listed in microseconds, and the pod cgroup
      // housekeeping lists a dozen of them every 10 s (a thread-pool round trip each at idle).
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        entries = [];
      }
      for (const e of entries) {
        if (!e.isDirectory()) continue;
        // systemd: a child slice's name is its last component (`pod<uid>`, `-` restored).
        if (this.driver === "systemd") {
          if (e.name.endsWith(".slice")) out.add(parseSystemdToCgroupName(e.name).at(-1) ?? e.name);
        } else out.add(e.name);
      }
    }
    return [...out].sort();
  }

  /**
   * Moves process `pid` into the cgroup (created when missing) in every hierarchy by writing
   * `cgroup.procs`.
   * @throws CgroupError `CgroupWriteFailed` naming the file that could not be written.
   */
  async moveProcess(name: CgroupName, pid: number): Promise<void> {
    if (!this.exists(name)) await this.create(name);
    for (const dir of this.paths(name)) {
      const path = join(dir, "cgroup.procs");
      await writeFile(path, String(pid)).catch((err: unknown) => {
        throw new CgroupError("CgroupWriteFailed", `failed to move process ${pid} into ${path}: ${(err as Error).message}`, { cause: err });
      });
    }
  }

  /** Reads one file of the cgroup (tests, diagnostics); undefined when absent. */
  readFile(subsystem: string, name: CgroupName, file: string): string | undefined {
    const dir = this.subsystemPath(subsystem, name);
    if (dir === undefined) return undefined;
    try {
      return readFileSync(join(dir, file), "utf8").trim();
    } catch {
      return undefined;
    }
  }

  // The path components of a name under a hierarchy: itself (cgroupfs) or its expanded slices (systemd).
  #fs(name: CgroupName): string[] {
    return this.driver === "systemd" ? cgroupNameToSystemd(name).split("/").filter(Boolean) : [...name];
  }

  // libcontainer's systemd Apply for slices: one transient slice unit per level (its parent is
  // implied by the name); an existing unit is fine.
  async #createSlices(name: CgroupName): Promise<void> {
    for (let i = 1; i <= name.length; i++) {
      const unit = cgroupNameToSystemd(name.slice(0, i)).split("/").pop() ?? "";
      if (this.exists(name.slice(0, i))) continue;
      const props = ["Description", "s", `nodeagent ${unit}`, "DefaultDependencies", "b", "false", "CPUAccounting", "b", "true", "MemoryAccounting", "b", "true", "TasksAccounting", "b", "true"];
      try {
        await this.#busctl(["call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "StartTransientUnit", "ssa(sv)a(sa(sv))", unit, "replace", String(props.length / 3), ...props, "0"]);
      } catch (err) {
        if (!/already exists|UnitExists/i.test((err as Error).message)) throw new CgroupError("CgroupWriteFailed", `failed to create systemd slice ${unit}: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  #copyCpuset(parent: string, dir: string): void {
    const read = (path: string): string | undefined => {
      try {
        return readFileSync(path, "utf8");
      } catch {
        return undefined;
      }
    };
    for (const f of ["cpuset.cpus", "cpuset.mems"]) {
      const own = read(join(dir, f));
      if (own === undefined || own.trim() !== "") continue;
      const value = (read(join(parent, f)) ?? "").trim();
      if (value !== "") {
        try {
          writeFileSync(join(dir, f), value);
        } catch (err) {
          throw new CgroupError("CgroupWriteFailed", `failed to write ${f} of ${dir}: ${(err as Error).message}`, { cause: err });
        }
      }
    }
  }

  // cgroup v2: a controller is usable in a cgroup only when every ancestor enables it for its children.
  async #enableControllersV2(name: CgroupName): Promise<void> {
    const available = (await readFile(join(this.root, "cgroup.controllers"), "utf8").catch(() => "")).trim().split(/\s+/).filter(Boolean);
    const wanted = ["cpu", "cpuset", "memory", "pids", "io", "hugetlb"].filter((c) => available.includes(c));
    for (let i = 0; i < name.length; i++) {
      const dir = join(this.root, ...name.slice(0, i));
      if (i > 0) await mkdir(dir, { recursive: true });
      const control = join(dir, "cgroup.subtree_control");
      const current = (await readFile(control, "utf8").catch(() => "")).trim().split(/\s+/);
      const missing = wanted.filter((c) => !current.includes(c));
      if (missing.length === 0) continue;
      const all = await writeFile(control, missing.map((c) => `+${c}`).join(" ")).then(
        () => true,
        () => false,
      );
      if (all) continue;
      // One at a time: cpuset, io and hugetlb are optional; cpu, memory and pids are required.
      for (const c of missing) {
        await writeFile(control, `+${c}`).catch((err: unknown) => {
          if (["cpu", "memory", "pids"].includes(c)) throw new CgroupError("CgroupWriteFailed", `failed to enable controller ${c} in ${control}: ${(err as Error).message}`, { cause: err });
        });
      }
    }
  }
}

// busctl from systemd; its stderr is the error message.
function runBusctl(args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("busctl", [...args], { timeout: 30_000 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(stderr.trim() || err.message));
      else resolve();
    });
  });
}

async function removeTree(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  });
  if (entries === undefined) return;
  for (const e of entries) if (e.isDirectory()) await removeTree(join(dir, e.name));
  try {
    await rmdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    // A real cgroupfs never answers ENOTEMPTY for its control files (a populated cgroup is EBUSY);
    // a plain directory standing in for one (tests' fake root) holds the files written into it.
    if (code === "ENOTEMPTY" && !isCgroupfs(dir)) {
      await rm(dir, { recursive: true, force: true });
      return;
    }
    throw new CgroupError("CgroupBusy", `failed to remove cgroup ${dir}: ${(err as Error).message}`, { cause: err });
  }
}

const cgroupSuperMagic = 0x27e0eb;
const cgroup2SuperMagic = 0x63677270;

function isCgroupfs(dir: string): boolean {
  try {
    const t = statfsSync(dir).type;
    return t === cgroupSuperMagic || t === cgroup2SuperMagic;
  } catch {
    return false;
  }
}
