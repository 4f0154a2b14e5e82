/**
 * What the process runtime keeps on disk so that a restart (even after SIGKILL) finds its
 * sandboxes, containers and images again, as containerd's CRI plugin does with its metadata store
 * and status checkpoints: one JSON record per sandbox (`<stateDir>/sandboxes/<id>/sandbox.json`,
 * removed with the sandbox's directory), per container (`<stateDir>/containers/<id>.json`) and the
 * image list (`<stateDir>/images/images.json`). Records are replaced whole (written to a temporary
 * file, then renamed), so a kill mid-write leaves the previous record or the new one, never half.
 *
 * @see containerd pkg/cri/store/container/status.go (the status checkpoint), containerd v1.6
 */
import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";

/** The checkpoint format version; a record of another version is not loaded. */
export const checkpointVersion = 1;

/**
 * Writes `value` as JSON to `path` atomically (a temporary file in the same directory, renamed
 * over it). Bigints are written as decimal strings.
 * @throws Error when the directory does not exist or the file cannot be written.
 */
export async function writeRecord(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  try {
    await writeFile(tmp, `${text}\n`);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Reads a JSON record written by {@link writeRecord}: the parsed object, `undefined` when the file
 * does not exist, or an Error saying why it cannot be used (unreadable, not JSON, another version).
 */
export async function readRecord(path: string): Promise<Record<string, unknown> | undefined | Error> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return err instanceof Error ? err : new Error(String(err));
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return new Error(`${path}: not a JSON object`);
    const record = parsed as Record<string, unknown>;
    if (record.version !== checkpointVersion) return new Error(`${path}: checkpoint version ${JSON.stringify(record.version)}, want ${checkpointVersion}`);
    return record;
  } catch (err) {
    return new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Serialises the writes of one record: each write waits for the previous one, so the last state
 * asked for is the one on disk. `settled()` resolves once every queued write finished.
 */
export class RecordWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly onError: (err: unknown) => void) {}

  /**
   * Queues a write of whatever `value()` returns when its turn comes (the newest state); nothing is
   * written when it returns undefined (the record was removed meanwhile).
   */
  write(path: string, value: () => unknown): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        const v = value();
        if (v !== undefined) await writeRecord(path, v);
      })
      .catch((err: unknown) => this.onError(err));
    return this.chain;
  }

  /** Queues the removal of the record (after the writes before it). */
  remove(path: string): Promise<void> {
    this.chain = this.chain.then(() => rm(path, { force: true })).catch((err: unknown) => this.onError(err));
    return this.chain;
  }

  settled(): Promise<void> {
    return this.chain;
  }
}

/**
 * The start time of process `pid` (field 22 of `/proc/<pid>/stat`, clock ticks since boot), which
 * with the PID identifies one process across PID reuse; undefined when there is no such process.
 */
export async function processStartTime(pid: number, procRoot = "/proc"): Promise<string | undefined> {
  const text = await readFile(`${procRoot}/${pid}/stat`, "utf8").catch(() => undefined);
  return text === undefined ? undefined : parseStartTime(text);
}

/** Field 22 (starttime) of a `/proc/<pid>/stat` line, past the parenthesised command name. Pure. */
export function parseStartTime(stat: string): string | undefined {
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  // After ") ": state is field 3, so starttime (22) is the 20th field from there.
  const fields = stat.slice(close + 2).trim().split(/\s+/);
  const value = fields[19];
  return value !== undefined && /^\d+$/.test(value) ? value : undefined;
}

/** Whether the process started as `{pid, startTime}` is still alive (and not a zombie). */
export async function processAlive(identity: { pid: number; startTime: string }, procRoot = "/proc"): Promise<boolean> {
  const text = await readFile(`${procRoot}/${identity.pid}/stat`, "utf8").catch(() => undefined);
  if (text === undefined || parseStartTime(text) !== identity.startTime) return false;
  const state = text.slice(text.lastIndexOf(")") + 2, text.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}
