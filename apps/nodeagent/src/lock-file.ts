/**
 * `--lock-file` / `--exit-on-lock-contention` without `flock(2)` (Node has no binding for it).
 *
 * Approach: the lock file `P` itself records its holder. It is created if missing (mode 0600)
 * and, while held, contains the holder's pid. Updates of `P` are serialised by a short-lived
 * guard file `P.guard` taken with an exclusive create (`O_CREAT|O_EXCL`); a guard older than 5 s is
 * stale (its taker died between two system calls) and is removed. A process acquires the lock when
 * `P` names no pid, its own pid, or a pid that is no longer alive (`kill(pid, 0)` fails with
 * `ESRCH`), so a holder that crashed never blocks the next one. Acquisition **blocks** (polls)
 * while a live process holds the lock, with no timeout, as the kubelet's `flock` does.
 *
 * Contention: a waiting process touches `P` (updates its times) on every attempt. The holder,
 * with `--exit-on-lock-contention`, watches `P` (inotify through `fs.watch`); any change,
 * rename or deletion of `P` by another process counts as contention (the kubelet reacts to
 * `IN_OPEN` and `IN_DELETE_SELF`; Node's watcher does not report opens, so waiters make their
 * presence visible by touching the file). Release empties `P`.
 *
 * Limits: pid reuse after a crash could make a dead holder look alive until that pid exits;
 * holders on other machines (network file systems) are not detected.
 *
 * @see cmd/kubelet/app/server.go (`watchForLockfileContention`) and pkg/util/flock in kubernetes/kubernetes v1.23
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, watch, writeFileSync } from "node:fs";
import type { FSWatcher } from "node:fs";

/** Why a lock could not be taken; `code` is stable. */
export class LockFileError extends Error {
  /** `OpenFailed`: `P` cannot be created or read. `Aborted`: the wait was cancelled. */
  readonly code: "OpenFailed" | "Aborted";
  constructor(code: LockFileError["code"], message: string) {
    super(message);
    this.name = "LockFileError";
    this.code = code;
  }
}

/** A held lock. */
export interface HeldLock {
  readonly path: string;
  /**
   * Calls `onContended` once when another process touches, replaces or deletes the lock file
   * (see the module comment). Returns a function that stops watching.
   */
  watchContention(onContended: () => void): () => void;
  /** Empties the lock file (if it still names this process) and stops watching. Idempotent. */
  release(): void;
}

/** Options of {@link acquireLockFile}. */
export interface AcquireLockOptions {
  /** Delay between attempts while the lock is held by another live process. @defaultValue 200 */
  readonly pollMs?: number;
  /** Cancels the wait (rejects with `LockFileError` `Aborted`). */
  readonly signal?: AbortSignal;
  /** Called once when the first attempt finds the lock held (e.g. to log a line). */
  readonly onWait?: (holderPid: number) => void;
}

const staleGuardMs = 5_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function tryGuard(guard: string): boolean {
  try {
    closeSync(openSync(guard, "wx", 0o600));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    try {
      if (Date.now() - statSync(guard).mtimeMs > staleGuardMs) unlinkSync(guard);
    } catch {
      // Gone already: retry.
    }
    return false;
  }
}

function readHolder(path: string): number {
  const text = readFileSync(path, "utf8").trim();
  const pid = Number(text);
  return text !== "" && Number.isInteger(pid) && pid > 0 ? pid : 0;
}

/**
 * Takes the lock file at `path`, waiting while another live process holds it (see the module
 * comment for the protocol). Resolves with the held lock.
 *
 * @throws {@link LockFileError} `OpenFailed` (`unable to acquire file lock on "P": <cause>`) when
 *   `P` cannot be created, read or written; `Aborted` when `options.signal` fires while waiting.
 * @example
 * ```ts
 * const lock = await acquireLockFile("/var/run/nodeagent.lock");
 * const stop = lock.watchContention(() => shutdown());
 * // ... on exit:
 * lock.release();
 * ```
 */
export async function acquireLockFile(path: string, options: AcquireLockOptions = {}): Promise<HeldLock> {
  const pollMs = options.pollMs ?? 200;
  const guard = `${path}.guard`;
  const self = process.pid;
  let waited = false;
  for (;;) {
    if (options.signal?.aborted) throw new LockFileError("Aborted", `waiting for file lock on ${JSON.stringify(path)} was cancelled`);
    let acquired = false;
    let holder = 0;
    try {
      closeSync(openSync(path, "a", 0o600));
      if (tryGuard(guard)) {
        try {
          holder = readHolder(path);
          if (holder === 0 || holder === self || !isAlive(holder)) {
            writeFileSync(path, `${self}\n`, { mode: 0o600 });
            acquired = true;
          }
        } finally {
          unlinkSync(guard);
        }
      }
      if (!acquired && holder !== 0) {
        const now = new Date();
        utimesSync(path, now, now);
      }
    } catch (e) {
      throw new LockFileError("OpenFailed", `unable to acquire file lock on ${JSON.stringify(path)}: ${(e as Error).message}`);
    }
    if (acquired) return heldLock(path);
    if (holder !== 0 && !waited) {
      waited = true;
      options.onWait?.(holder);
    }
    await sleep(pollMs);
  }
}

function heldLock(path: string): HeldLock {
  let watcher: FSWatcher | undefined;
  let released = false;
  const stopWatching = (): void => {
    watcher?.close();
    watcher = undefined;
  };
  return {
    path,
    watchContention(onContended) {
      stopWatching();
      let fired = false;
      const w = watch(path, { persistent: false }, () => {
        if (fired || released) return;
        fired = true;
        stopWatching();
        onContended();
      });
      w.on("error", () => {
        if (fired || released) return;
        fired = true;
        stopWatching();
        onContended();
      });
      watcher = w;
      return stopWatching;
    },
    release() {
      if (released) return;
      released = true;
      stopWatching();
      try {
        if (readHolder(path) === process.pid) writeFileSync(path, "");
      } catch {
        // The file was removed by a contender: nothing to release.
      }
    },
  };
}
