import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { CRILineSplitter, CRILogFile } from "./cri-log-writer.js";
import { nowNs } from "./clock.js";

export interface ProcessExit {
  /** 0..255, or 128 + signal number for a signal death (what runc reports). */
  exitCode: number;
  signal: NodeJS.Signals | null;
  finishedAtNs: bigint;
}

export interface StartOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Absolute log file path; empty to discard the output. */
  logPath: string;
}

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
export class ContainerProcess {
  readonly pid: number;
  /** Resolves once the process exited and its output is flushed to the log. */
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly logFile: CRILogFile | undefined,
  ) {
    this.pid = child.pid as number;
    this.exited = this.track();
  }

  static async start(options: StartOptions): Promise<ContainerProcess> {
    const [file, ...args] = options.argv;
    if (file === undefined) throw new Error("empty command");
    const logFile = options.logPath ? await CRILogFile.open(options.logPath) : undefined;
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: logFile ? ["ignore", "pipe", "pipe"] : "ignore",
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", reject);
      });
    } catch (err) {
      await logFile?.close();
      throw err;
    }
    return new ContainerProcess(child, logFile);
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) killGroup(this.pid, signal);
  }

  async reopenLog(): Promise<void> {
    await this.logFile?.reopen();
  }

  private async track(): Promise<ProcessExit> {
    const { child, logFile } = this;
    const drained: Promise<void>[] = [];
    if (logFile) {
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
    }
    const exit = await new Promise<ProcessExit>((resolve) => {
      child.once("exit", (code, signal) => {
        resolve({ exitCode: code ?? 128 + signalNumber(signal), signal, finishedAtNs: nowNs() });
      });
    });
    killGroup(this.pid, "SIGKILL");
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
