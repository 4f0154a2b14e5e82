import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Creates `dir` and its missing parents (as `mkdir -p`, Go's `os.MkdirAll`), with `mode` for each
 * folder it creates (before the umask). Resolves when `dir` exists as a folder.
 *
 * Node's recursive mkdir reports ENOENT for a parent it could not create, whatever the reason; on
 * a full or read-only file system that hides the cause. On failure this creates the missing
 * levels one at a time to throw the system's own error for the first one that fails (`ENOSPC: no
 * space left on device, mkdir '…'`, `EROFS`, `EACCES`…).
 *
 * @throws NodeJS.ErrnoException as described; ENOTDIR/EEXIST when a level is a file.
 */
export async function mkdirAll(dir: string, mode = 0o777): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode });
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    if (await stat(d).then(() => true, () => false)) break;
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      await mkdir(d, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}
