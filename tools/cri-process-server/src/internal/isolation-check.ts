import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import type { Isolation } from "./runtime-core.js";

const run = promisify(execFile);

/** The runtime cannot isolate containers here; `message` says what to install or pass instead. */
export class IsolationUnavailableError extends Error {
  override readonly name = "IsolationUnavailableError";
  readonly reason = "IsolationUnavailable";
}

/** The message every "cannot isolate" error ends with. */
export const isolationHint =
  "install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap; Fedora: dnf install bubblewrap), or run the process runtime with --isolation=none (containers then see the host's filesystem: volumes, /etc/hosts and /etc/resolv.conf are not applied)";

/** The first executable `name` on `PATH`, or undefined. */
export function findExecutable(name: string, path = process.env.PATH ?? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Finds bubblewrap and checks that it can create mount, PID and UTS namespaces here (it needs root,
 * or unprivileged user namespaces); finds nsenter for ExecSync when running as root.
 * @throws IsolationUnavailableError naming what is missing and what to install.
 */
export async function checkNamespaceIsolation(bwrapPath?: string): Promise<Extract<Isolation, { mode: "namespaces" }>> {
  const bwrap = bwrapPath ?? findExecutable("bwrap");
  if (bwrap === undefined) throw new IsolationUnavailableError(`bubblewrap (bwrap) was not found on PATH: ${isolationHint}`);
  try {
    await run(bwrap, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--as-pid-1", "--unshare-uts", "--hostname", "probe", "--", "true"], { timeout: 10_000 });
  } catch (err) {
    const detail = ((err as { stderr?: string }).stderr ?? (err instanceof Error ? err.message : String(err))).trim();
    throw new IsolationUnavailableError(`bubblewrap (${bwrap}) cannot create namespaces here (${detail}); it needs root or unprivileged user namespaces: ${isolationHint}`, { cause: err });
  }
  const root = process.getuid?.() === 0;
  return { mode: "namespaces", bwrapPath: bwrap, nsenterPath: root ? (findExecutable("nsenter") ?? null) : null };
}
