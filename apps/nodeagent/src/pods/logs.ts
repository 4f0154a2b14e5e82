import { createReadStream, createWriteStream, statSync } from "node:fs";
import { open, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { formatRFC3339Nano, parseCRILogLine } from "@skiff/cri-api";
import type { ContainerLogOptions } from "../agent-view.js";

/** `<podLogsDir>/<namespace>_<name>_<uid>`: the sandbox's CRI log directory. @see pkg/kubelet/kuberuntime/helpers.go (BuildPodLogsDirectory) */
export function buildPodLogsDirectory(podLogsDir: string, namespace: string, name: string, uid: string): string {
  return join(podLogsDir, `${namespace}_${name}_${uid}`);
}

/** `<container>/<restartCount>.log`, relative to the pod's log directory. @see pkg/kubelet/kuberuntime/helpers.go (BuildContainerLogsDirectory) */
export function buildContainerLogPath(containerName: string, restartCount: number): string {
  return join(containerName, `${restartCount}.log`);
}

const compressSuffix = ".gz";
const tmpSuffix = ".tmp";

function formatRotationTimestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** Options of {@link rotateContainerLog}. */
export interface RotateContainerLogOptions {
  /** Absolute path of the container's current log file. */
  readonly logPath: string;
  /** Rotate when the file is at least this big. */
  readonly maxSizeBytes: number;
  /** Files kept per container, the current one included (≥ 2). */
  readonly maxFiles: number;
  /** Asks the runtime to reopen the log (CRI ReopenContainerLog). */
  readonly reopen: () => Promise<void>;
  /** The rotation time, for the suffix. @defaultValue now */
  readonly now?: Date;
}

/**
 * Rotates one container log when it reached `maxSizeBytes`, as the kubelet's container log
 * manager: removes leftover `.tmp` files and uncompressed copies of compressed files, removes the
 * oldest rotated files so that `maxFiles - 2` remain, gzips the remaining uncompressed rotated
 * files, renames the log to `<log>.<YYYYMMDD-hhmmss>` and asks the runtime to reopen it (renaming
 * back when that fails). Resolves `true` when it rotated.
 * @throws the reopen error (after renaming back) or a file-system error.
 * @see pkg/kubelet/logs/container_log_manager.go (rotateLog) in kubernetes/kubernetes v1.23
 */
export async function rotateContainerLog(options: RotateContainerLogOptions): Promise<boolean> {
  const { logPath, maxSizeBytes, maxFiles } = options;
  // A synchronous stat: this runs for every running container every 10 s, and nearly always
  // finds the file under the limit (an asynchronous one is a thread-pool round trip each).
  let info: { size: number } | undefined;
  try {
    info = statSync(logPath, { throwIfNoEntry: false });
  } catch {
    info = undefined;
  }
  if (!info || info.size < maxSizeBytes) return false;
  const dir = dirname(logPath);
  const prefix = `${basename(logPath)}.`;
  let rotated = (await readdir(dir)).filter((n) => n.startsWith(prefix)).map((n) => join(dir, n));
  // Clean up: temporaries, and uncompressed files whose compressed copy exists.
  const keep: string[] = [];
  for (const f of rotated) {
    if (f.endsWith(tmpSuffix) || (!f.endsWith(compressSuffix) && rotated.includes(f + compressSuffix))) await rm(f, { force: true });
    else keep.push(f);
  }
  rotated = keep.sort();
  const maxRotated = Math.max(maxFiles - 2, 0);
  while (rotated.length > maxRotated) {
    const oldest = rotated.shift();
    if (oldest) await rm(oldest, { force: true });
  }
  for (const f of rotated) {
    if (f.endsWith(compressSuffix)) continue;
    const tmp = f + compressSuffix + tmpSuffix;
    await pipeline(createReadStream(f), createGzip(), createWriteStream(tmp));
    await rename(tmp, f + compressSuffix);
    await rm(f, { force: true });
  }
  const target = `${logPath}.${formatRotationTimestamp(options.now ?? new Date())}`;
  await rename(logPath, target);
  try {
    await options.reopen();
  } catch (err) {
    await rename(target, logPath).catch(() => undefined);
    throw err;
  }
  return true;
}

/** How {@link readContainerLog} follows a running container. */
export interface ReadContainerLogContext {
  /** Whether the container still runs (follow stops once it does not and the file is drained). */
  readonly isRunning: () => Promise<boolean>;
  /** Poll period while following, in ms. @defaultValue 200 */
  readonly pollMs?: number;
  /** The time `sinceSeconds` counts back from. @defaultValue now */
  readonly nowMs?: () => number;
}

interface ChunkState {
  remainingBytes: number;
}

function renderLines(text: string, opts: ContainerLogOptions, sinceNs: bigint | undefined, state: ChunkState): { out: string; done: boolean } {
  let out = "";
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const parsed = parseCRILogLine(line);
    if (!parsed.ok) continue;
    const v = parsed.value;
    if (sinceNs !== undefined && v.timeNs < sinceNs) continue;
    let piece = (opts.timestamps ? `${formatRFC3339Nano(v.timeNs)} ` : "") + v.content + (v.partial ? "" : "\n");
    if (opts.limitBytes !== undefined) {
      const bytes = Buffer.from(piece);
      if (bytes.length >= state.remainingBytes) {
        piece = bytes.subarray(0, state.remainingBytes).toString();
        state.remainingBytes = 0;
        return { out: out + piece, done: true };
      }
      state.remainingBytes -= bytes.length;
    }
    out += piece;
  }
  return { out, done: false };
}

/**
 * Reads a CRI log file as the kubelet serves `/containerLogs`: the message text of each line
 * (partial lines joined), optionally prefixed with the RFC3339Nano timestamp, filtered by
 * `sinceSeconds`, cut to the last `tailLines` lines and to `limitBytes` bytes; with `follow`,
 * new lines are streamed until the container stops. Unparsable lines are skipped.
 * @see pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs) in kubernetes/kubernetes v1.23
 */
export function readContainerLog(path: string, opts: ContainerLogOptions, ctx: ReadContainerLogContext): Readable {
  const nowMs = ctx.nowMs ?? Date.now;
  const sinceNs = opts.sinceSeconds !== undefined ? BigInt(Math.floor(nowMs() - opts.sinceSeconds * 1000)) * 1_000_000n : undefined;
  const state: ChunkState = { remainingBytes: opts.limitBytes ?? Number.POSITIVE_INFINITY };
  async function* generate(): AsyncGenerator<string> {
    const handle = await open(path, "r");
    let offset = 0;
    let carry = "";
    let ino = (await handle.stat()).ino;
    let fh = handle;
    try {
      const readNew = async (): Promise<string> => {
        const { size } = await fh.stat();
        if (size <= offset) return "";
        const buf = Buffer.alloc(size - offset);
        const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
        offset += bytesRead;
        const text = carry + buf.subarray(0, bytesRead).toString("utf8");
        const cut = text.lastIndexOf("\n");
        carry = cut < 0 ? text : text.slice(cut + 1);
        return cut < 0 ? "" : text.slice(0, cut + 1);
      };
      let text = await readNew();
      if (opts.tailLines !== undefined) {
        const lines = text.split("\n").filter((l) => l !== "");
        text = opts.tailLines <= 0 ? "" : lines.slice(-opts.tailLines).join("\n") + (lines.length > 0 ? "\n" : "");
      }
      const first = renderLines(text, opts, sinceNs, state);
      if (first.out) yield first.out;
      if (first.done || !opts.follow) return;
      const pollMs = ctx.pollMs ?? 200;
      for (;;) {
        const more = await readNew();
        if (more) {
          const r = renderLines(more, opts, sinceNs, state);
          if (r.out) yield r.out;
          if (r.done) return;
          continue;
        }
        // Rotated: the path now names a new file.
        const current = await stat(path).catch(() => undefined);
        if (current && current.ino !== ino) {
          await fh.close();
          fh = await open(path, "r");
          ino = current.ino;
          offset = 0;
          carry = "";
          continue;
        }
        if (!(await ctx.isRunning())) {
          const last = await readNew();
          if (last) {
            const r = renderLines(last, opts, sinceNs, state);
            if (r.out) yield r.out;
          }
          return;
        }
        await new Promise((r) => setTimeout(r, pollMs));
      }
    } finally {
      await fh.close().catch(() => undefined);
    }
  }
  return Readable.from(generate(), { objectMode: false });
}
