import { spawn, type ChildProcess } from "node:child_process";
import { open, readlink, realpath, type FileHandle } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import { constants } from "node:os";
import { CRILineSplitter, CRILogFile } from "./cri-log-writer.js";
import { nowNs } from "./clock.js";

export interface ProcessExit {
  /** 0..255, or 128 + signal number for a signal death (what runc reports). */
  exitCode: number;
  signal: NodeJS.Signals | null;
  finishedAtNs: bigint;
  /**
   * The exit status could not be observed (a process re-adopted after a restart of the runtime is
   * not its child): `exitCode` is then 255, as containerd reports a task lost while it was down.
   */
  unknown?: boolean;
}

/** What the runtime needs of a container's running main process: started here, or re-adopted. */
export interface ContainerRunner {
  readonly pid: number;
  readonly groupPid: number;
  readonly exited: Promise<ProcessExit>;
  readonly running: boolean;
  readonly stdin: Writable | undefined;
  signal(signal: NodeJS.Signals): void;
  reopenLog(): Promise<void>;
}

export interface StartOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Absolute log file path; empty to discard the output. */
  logPath: string;
  /**
   * Run `argv` inside bubblewrap (`bwrapPath`, with `args` before `--`, which must include
   * `--info-fd 3`): the container's PID 1 is then bubblewrap's child, and signals go to it.
   */
  isolation?: {
    bwrapPath: string;
    args: string[];
    netns?: { nsenterPath: string; path: string };
    enterPIDNamespace?: EnterPIDNamespace;
    /**
     * Places the container (e.g. writes both host PIDs into its cgroups' `cgroup.procs`) after
     * bubblewrap reported its child and before that child execs the command: bubblewrap waits on
     * a pipe (`--block-fd`) until this resolved, so nothing the command forks escapes the
     * placement. A rejection kills the container and fails the start with its error.
     */
    place?: (pids: { readonly groupPid: number; readonly pid: number }) => Promise<void>;
  };
  /** Keep the process's stdin open as a pipe (CRI `stdin`), for attach; otherwise it reads /dev/null. */
  stdin?: boolean;
  /**
   * Without isolation: `argv` is a wrapper that closes its file descriptor 3 (a pipe) once it is
   * ready, just before it execs the command (see `wrapJoiningCgroups`); `start` returns only then,
   * so a container reported running is in its cgroups and runs its own command, not the wrapper.
   */
  readyOnFd3Close?: boolean;
}

/**
 * Start the container inside the PID namespace of host process `pid` (CRI PID namespace `TARGET`):
 * bubblewrap joins it with `--pidns` (root only) and mounts that namespace's own /proc, so the
 * container sees the target's processes and not the host's; bubblewrap's arguments must then not
 * unshare the PID namespace. (`nsenter --pid` did not do this: bubblewrap, not unsharing, bound the
 * host's /proc, and the container's PID had to be looked up after it may already have exited.)
 */
export interface EnterPIDNamespace {
  readonly pid: number;
}

// The file descriptor bubblewrap reads the target PID namespace from (0-2 stdio, 3 its info fd).
const pidnsFd = 4;

// How long to wait for the output pipes to drain after the main process exited and its group was
// killed; a process that escaped the group (setsid) could otherwise hold them open forever.
const drainTimeoutMs = 2_000;

export function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? (constants.signals[signal] ?? 0) : 0;
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * One container's main process, in its own process group (a container's PID namespace stand-in):
 * its output goes to the CRI log file; when it exits, the rest of its group is killed, as the
 * kernel does to a PID namespace whose init died.
 */
export class ContainerProcess implements ContainerRunner {
  /**
   * The host PID of the container's main process (its PID 1 when isolated): the target of
   * signals and of `nsenter` for exec.
   */
  readonly pid: number;
  /** The host PID of the spawned process (bubblewrap when isolated); leads the process group. */
  readonly groupPid: number;
  /** Resolves once the process exited and its output is flushed to the log. */
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly logFile: CRILogFile | undefined,
    mainPid: number | undefined,
    private readonly exitSeen: Promise<ProcessExit>,
    private readonly drained: Promise<void>[],
  ) {
    this.groupPid = child.pid as number;
    this.pid = mainPid ?? this.groupPid;
    this.isolated = mainPid !== undefined;
    this.exited = this.track();
  }

  private readonly isolated: boolean;

  static async start(options: StartOptions): Promise<ContainerProcess> {
    if (options.argv[0] === undefined) throw new Error("empty command");
    // In a pod network namespace: nsenter joins it, then execs bubblewrap (same PID). In a target's
    // PID namespace: bubblewrap joins it itself (--pidns).
    const netns = options.isolation?.netns;
    const enter = options.isolation?.enterPIDNamespace;
    const enterArgs = netns ? [netns.nsenterPath, `--net=${netns.path}`, "--"] : [];
    let pidns: FileHandle | undefined;
    if (enter) {
      try {
        pidns = await open(`/proc/${String(enter.pid)}/ns/pid`, "r");
      } catch (err) {
        throw new Error(`the PID namespace of target process ${String(enter.pid)} cannot be opened: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
    const pidnsArgs = pidns ? ["--pidns", String(pidnsFd)] : [];
    // The pipe bubblewrap's child waits on before it execs the command, while `place` runs.
    const place = options.isolation?.place;
    const blockFd = place ? pidnsFd + (pidns ? 1 : 0) : undefined;
    const blockArgs = blockFd !== undefined ? ["--block-fd", String(blockFd)] : [];
    const [file, ...args] = options.isolation ? [...enterArgs, options.isolation.bwrapPath, ...pidnsArgs, ...blockArgs, ...options.isolation.args, "--", ...options.argv] : options.argv;
    const logFile = options.logPath ? await CRILogFile.open(options.logPath).catch(async (err: unknown) => {
      await pidns?.close();
      throw err;
    }) : undefined;
    const out = logFile ? "pipe" : "ignore";
    const child = spawn(file as string, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: options.isolation ? [options.stdin ? "pipe" : "ignore", out, out, "pipe", ...(pidns ? [pidns.fd] : []), ...(blockFd !== undefined ? ["pipe" as const] : [])] : [options.stdin ? "pipe" : "ignore", out, out, ...(options.readyOnFd3Close ? ["pipe" as const] : [])],
    });
    // Listened for at once (before the event loop runs): the wrapper may close it immediately.
    const ready = !options.isolation && options.readyOnFd3Close ? closedOrEnded(child.stdio[3]) : undefined;
    // The child holds its own copy of the namespace descriptor from here on. Not awaited here: the
    // listeners below must be attached before the event loop runs (see there).
    const pidnsClosed = pidns?.close().catch(() => undefined);
    // Listened for at once: the process may exit while bubblewrap's child PID is awaited, and Node
    // discards the output of an exited child whose streams have no reader.
    const drained = logFile ? pipeToLog(child, logFile) : [];
    const exitSeen = new Promise<ProcessExit>((resolve) => {
      child.once("exit", (code, signal) => {
        resolve({ exitCode: code ?? 128 + signalNumber(signal), signal, finishedAtNs: nowNs() });
      });
    });
    let mainPid: number | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", reject);
      });
      if (options.isolation) {
        // A host PID: bubblewrap itself stays in the host's PID namespace, even with --pidns.
        mainPid = await readChildPid(child);
        if (blockFd !== undefined) {
          const gate = child.stdio[blockFd] as Writable | null | undefined;
          gate?.on("error", () => undefined); // EPIPE: bubblewrap failed before it read the pipe
          try {
            if (mainPid !== undefined && place) await place({ groupPid: child.pid as number, pid: mainPid });
          } catch (err) {
            killGroup(child.pid, "SIGKILL");
            gate?.destroy();
            throw err;
          }
          gate?.end("1");
        }
        if (mainPid !== undefined) await waitForExec(mainPid, options.isolation.bwrapPath);
      }
      await ready;
    } catch (err) {
      await logFile?.close();
      throw err;
    } finally {
      await pidnsClosed;
    }
    return new ContainerProcess(child, logFile, mainPid, exitSeen, drained);
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** The process's stdin when it was started with `stdin` (a pipe), else undefined. */
  get stdin(): Writable | undefined {
    const s = this.child.stdin;
    if (s) s.on("error", () => undefined);
    return s ?? undefined;
  }

  /**
   * Sends `signal` to the container: isolated, to its PID 1 only (which, as in a container, ignores
   * signals it has no handler for, except SIGKILL); otherwise to the whole process group.
   */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    if (!this.isolated) {
      killGroup(this.groupPid, signal);
      return;
    }
    try {
      process.kill(this.pid, signal);
    } catch {
      // ESRCH: gone already.
    }
    if (signal === "SIGKILL") killGroup(this.groupPid, signal);
  }

  async reopenLog(): Promise<void> {
    await this.logFile?.reopen();
  }

  private async track(): Promise<ProcessExit> {
    const { child, logFile, drained } = this;
    const exit = await this.exitSeen;
    killGroup(this.groupPid, "SIGKILL");
    if (drained.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve();
        }, drainTimeoutMs);
      });
      await Promise.race([Promise.all(drained), timedOut]);
      clearTimeout(timer);
      await logFile?.close();
    }
    this.exit = exit;
    return exit;
  }
}

// How often a re-adopted process is checked for being alive.
const adoptedPollMs = 500;

/**
 * A container's main process that survived a restart of the runtime (found alive by PID and start
 * time): it is no child of this server, so its exit is seen by polling `/proc` and its exit status
 * is unknown (255, as containerd reports a task lost while it was down); its output pipes went with
 * the previous server, so nothing more reaches its log (a write to them kills it with SIGPIPE).
 * Signals go where {@link ContainerProcess.signal} sends them, after checking that the PID is still
 * the same process.
 */
export class AdoptedProcess implements ContainerRunner {
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param identity the main process (PID and `/proc/<pid>/stat` start time) and the process group
   *   leader; `isolated` when `pid` is a PID 1 inside bubblewrap.
   */
  constructor(
    private readonly identity: { pid: number; startTime: string; groupPid: number; isolated: boolean },
    private readonly alive: (identity: { pid: number; startTime: string }) => Promise<boolean>,
  ) {
    this.exited = new Promise((resolve) => {
      const check = (): void => {
        void this.alive(this.identity).then((up) => {
          if (up) {
            this.timer = setTimeout(check, adoptedPollMs);
            this.timer.unref();
            return;
          }
          killGroup(this.identity.groupPid, "SIGKILL");
          this.exit = { exitCode: 255, signal: null, finishedAtNs: nowNs(), unknown: true };
          resolve(this.exit);
        });
      };
      check();
    });
  }

  get pid(): number {
    return this.identity.pid;
  }

  get groupPid(): number {
    return this.identity.groupPid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get stdin(): Writable | undefined {
    return undefined;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    void this.alive(this.identity).then((up) => {
      if (!up) return;
      if (!this.identity.isolated) {
        killGroup(this.identity.groupPid, signal);
        return;
      }
      try {
        process.kill(this.identity.pid, signal);
      } catch {
        // ESRCH: gone already.
      }
      if (signal === "SIGKILL") killGroup(this.identity.groupPid, signal);
    });
  }

  /** The log file is not written by this server any more: nothing to reopen. */
  async reopenLog(): Promise<void> {}
}

// Splits stdout and stderr into CRI log lines; each promise resolves when its stream closed.
function pipeToLog(child: ChildProcess, logFile: CRILogFile): Promise<void>[] {
  const drained: Promise<void>[] = [];
  for (const [name, stream] of [["stdout", child.stdout], ["stderr", child.stderr]] as const) {
    if (!stream) continue;
    const splitter = new CRILineSplitter(name, logFile, nowNs);
    stream.on("data", (chunk: Buffer) => splitter.push(chunk));
    drained.push(
      new Promise<void>((resolve) => {
        stream.once("close", () => {
          splitter.end();
          resolve();
        });
      }),
    );
  }
  return drained;
}

// bubblewrap writes `{"child-pid": N, ...}` to its info fd once the container's PID 1 exists; the
// pipe closes without it when bubblewrap fails before that (its error is on stderr, in the log).
function readChildPid(child: ChildProcess): Promise<number | undefined> {
  const info = child.stdio[3] as Readable | null | undefined;
  if (!info) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = "";
    const done = (): void => {
      const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
      resolve(m ? Number(m[1]) : undefined);
    };
    // Read to the end: closing the pipe early would kill bubblewrap with SIGPIPE on its next write.
    info.on("data", (chunk: Buffer) => {
      if (text.length > 64 * 1024) return;
      text += chunk.toString("utf8");
      if (/"child-pid"\s*:\s*\d+\s*[,}\n]/.test(text)) done();
    });
    info.once("close", done);
  });
}

// bubblewrap reports its child before that child has set up the mounts and exec'd the command;
// StartContainer returns once it has (as runc's start does), so that an exec entering the
// container's namespaces finds them complete.
async function waitForExec(pid: number, bwrapPath: string): Promise<void> {
  const bwrap = await realpath(bwrapPath).catch(() => bwrapPath);
  const deadline = Date.now() + execWaitMs;
  while (Date.now() < deadline) {
    const exe = await readlink(`/proc/${pid}/exe`).catch(() => undefined);
    if (exe === undefined || exe !== bwrap) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const execWaitMs = 5_000;

export interface ExecResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
  timedOut: boolean;
}

// The CRI asks runtimes to cap ExecSync output at 16 MiB per stream (CVE-2022-1708).
const maxExecOutputBytes = 16 * 1024 * 1024;

/** Runs a command to completion in its own process group, collecting (capped) output. */
export function execCommand(
  argv: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number; onSpawn?: (pid: number) => void },
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = argv;
    if (file === undefined) {
      reject(new Error("empty command"));
      return;
    }
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const sizes = { out: 0, err: 0 };
    child.stdout.on("data", (chunk: Buffer) => {
      if (sizes.out < maxExecOutputBytes) out.push(chunk.subarray(0, maxExecOutputBytes - sizes.out));
      sizes.out += chunk.length;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (sizes.err < maxExecOutputBytes) err.push(chunk.subarray(0, maxExecOutputBytes - sizes.err));
      sizes.err += chunk.length;
    });
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    child.once("spawn", () => {
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
      if (options.timeoutMs > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          killGroup(child.pid, "SIGKILL");
        }, options.timeoutMs);
      }
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    // Whatever the command left behind in its group would hold the pipes open: kill it.
    child.once("exit", () => killGroup(child.pid, "SIGKILL"));
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), exitCode: code ?? 128 + signalNumber(signal), timedOut });
    });
  });
}

/** Resolves when `stream` (a child's extra pipe) ends or closes, or errors; at once when absent. */
function closedOrEnded(stream: unknown): Promise<void> {
  const s = stream as (NodeJS.ReadableStream & { destroyed?: boolean; resume(): void }) | null | undefined;
  if (!s || s.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => resolve();
    s.once("end", done);
    s.once("close", done);
    s.once("error", done);
    s.resume();
  });
}
