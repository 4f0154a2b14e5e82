import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join, posix } from "node:path";

/** One bind mount into a container. */
export interface BindMount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
  /** A device node (CRI `devices`): bound with `--dev-bind`, which keeps it usable (plain binds are nodev). */
  device?: boolean;
}

/** What a container's bubblewrap command line is made of. */
export interface IsolatedCommand {
  argv: string[];
  /** The working directory inside the container; created when missing (as runc does). */
  cwd: string;
  /** UTS host name; absent → the host's UTS namespace is shared (host-network pods). */
  hostname?: string;
  /** Binds in the order given after sorting by depth (parents before children). */
  mounts: BindMount[];
  /** false → the host's filesystem is bound read-write (privileged containers). */
  rootReadonly: boolean;
  /** Capabilities to keep (`CAP_*`); undefined → all (privileged). */
  capabilities?: string[];
  /** Share the host's PID namespace (hostPID pods): no PID namespace of its own. */
  hostPID?: boolean;
  /** File descriptor bubblewrap writes `{"child-pid": N}` to. */
  infoFd: number;
}

/** The host filesystem as the planner sees it (tests pass a fake). */
export interface HostFs {
  exists(path: string): boolean;
  /** Entries of a directory: symlinks with their target; `undefined` when it cannot be read. */
  list(dir: string): Array<{ name: string; symlink?: string }> | undefined;
  /** The real path of an existing path. */
  realpath(path: string): string;
  isDirectory(path: string): boolean;
}

/** The real host filesystem. */
export const realHostFs: HostFs = {
  exists: (p) => existsSync(p),
  list: (dir) => {
    try {
      return readdirSync(dir, { withFileTypes: true }).map((e) => (e.isSymbolicLink() ? { name: e.name, symlink: readlinkSync(join(dir, e.name)) } : { name: e.name }));
    } catch {
      return undefined;
    }
  },
  realpath: (p) => realpathSync(p),
  isDirectory: (p) => {
    try {
      return lstatSync(p).isDirectory();
    } catch {
      return false;
    }
  },
};

/** Capabilities a container gets by default (containerd's and Docker's default set). */
export const defaultCapabilities = [
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID",
  "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
];

// Top-level host entries replaced by the container's own: a fresh /dev, /proc of the new PID
// namespace and a private /tmp.
const ownTopLevel = new Set(["dev", "proc", "tmp"]);

function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/**
 * The existing directories that must be rebuilt (a tmpfs directory with each host entry bound
 * individually) so that bubblewrap can create the missing mount points inside them: for each target
 * whose path does not exist on the host, its deepest existing ancestor and that one's ancestors.
 * Targets under /dev and /tmp (fresh tmpfs) need none.
 * @throws Error when a target lies under a host file that is not a directory.
 */
export function directoriesToRebuild(targets: readonly string[], fs: HostFs): Set<string> {
  const rebuild = new Set<string>(["/"]);
  for (const raw of targets) {
    const target = posix.normalize(raw);
    if (isUnder(target, "/dev") || isUnder(target, "/tmp") || isUnder(target, "/proc")) continue;
    if (fs.exists(target)) continue;
    let existing = dirname(target);
    while (existing !== "/" && !fs.exists(existing)) existing = dirname(existing);
    const real = existing === "/" ? "/" : fs.realpath(existing);
    if (!fs.isDirectory(real)) throw new Error(`cannot create mount point ${target}: ${real} is not a directory`);
    for (let d = real; ; d = dirname(d)) {
      rebuild.add(d);
      if (d === "/") break;
    }
  }
  return rebuild;
}

/**
 * Resolves a container path through the host's symlinks of its existing part, so that the mount
 * lands where the container sees it (`/var/run/x` → `/run/x`). Paths under /dev, /proc, /tmp are
 * the container's own and stay as given.
 */
export function resolveContainerPath(path: string, fs: HostFs): string {
  const p = posix.normalize(path);
  if (isUnder(p, "/dev") || isUnder(p, "/tmp") || isUnder(p, "/proc")) return p;
  let existing = p;
  const rest: string[] = [];
  while (existing !== "/" && !fs.exists(existing)) {
    rest.unshift(posix.basename(existing));
    existing = dirname(existing);
  }
  const real = existing === "/" ? "/" : fs.realpath(existing);
  return rest.length === 0 ? real : posix.join(real, ...rest);
}

/**
 * The bubblewrap arguments (before `--`) that run a container: its own mount, PID (the command is
 * PID 1, as in a container) and, with a host name, UTS namespaces; the host's filesystem bound
 * read-only (read-write when `rootReadonly` is false) with the directories holding new mount
 * points rebuilt; a fresh /dev, /proc and private /tmp; the mounts; the working directory.
 * @throws Error when a mount point cannot be created.
 * @see https://github.com/containers/bubblewrap (bwrap(1))
 */
export function bwrapArgs(cmd: IsolatedCommand, fs: HostFs = realHostFs): string[] {
  const mounts = cmd.mounts
    .map((m) => ({ ...m, containerPath: resolveContainerPath(m.containerPath, fs) }))
    .sort((a, b) => a.containerPath.split("/").length - b.containerPath.split("/").length);
  const cwd = resolveContainerPath(cmd.cwd || "/", fs);
  const tmpMounted = mounts.some((m) => m.containerPath === "/tmp");
  const rebuild = directoriesToRebuild([...mounts.map((m) => m.containerPath), cwd], fs);
  const bind = cmd.rootReadonly ? "--ro-bind-try" : "--bind-try";
  const args: string[] = ["--die-with-parent", "--info-fd", String(cmd.infoFd)];
  if (cmd.hostPID !== true) args.push("--unshare-pid", "--as-pid-1");
  if (cmd.hostname !== undefined) args.push("--unshare-uts", "--hostname", cmd.hostname);
  if (cmd.capabilities !== undefined) {
    args.push("--cap-drop", "ALL");
    for (const cap of cmd.capabilities) args.push("--cap-add", cap);
  }
  const emit = (dir: string): void => {
    for (const entry of (fs.list(dir) ?? []).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = posix.join(dir, entry.name);
      if (dir === "/" && ownTopLevel.has(entry.name) && !(entry.name === "tmp" && tmpMounted)) continue;
      if (rebuild.has(path)) {
        args.push("--dir", path);
        emit(path);
      } else if (entry.symlink !== undefined) args.push("--symlink", entry.symlink, path);
      else args.push(bind, path, path);
    }
  };
  emit("/");
  args.push("--dev", "/dev", "--proc", "/proc");
  if (!tmpMounted) args.push("--tmpfs", "/tmp");
  for (const m of mounts) args.push(m.device === true ? "--dev-bind" : m.readonly ? "--ro-bind" : "--bind", m.hostPath, m.containerPath);
  args.push("--dir", cwd, "--chdir", cwd);
  // The rebuilt directories live in bubblewrap's root tmpfs: read-only too, unless privileged.
  if (cmd.rootReadonly) args.push("--remount-ro", "/");
  return args;
}
