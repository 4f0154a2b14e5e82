import { createHash, randomBytes } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { mkdirAll } from "../internal/mkdir-all.js";

/** One file of an atomically written volume: its content and permission bits (e.g. `0o644`). */
export interface FileProjection {
  /** The file's bytes; a string is written as UTF-8. */
  readonly data: Uint8Array | string;
  readonly mode: number;
}

/** A payload path the atomic writer refuses (absolute, `..`, too long); the message is 1.23's. */
export class AtomicWriterError extends Error {
  override readonly name = "AtomicWriterError";
  readonly reason = "InvalidPath";
}

const maxFileNameLength = 255;
const maxPathLength = 4096;
/** The symlink to the current timestamped directory. */
export const dataDirName = "..data";
const newDataDirName = "..data_tmp";

/**
 * Checks one payload path as the kubelet's atomic writer: not empty, relative, at most 4096
 * characters, no `..` element, no element over 255 characters, not starting with `..`.
 * @throws AtomicWriterError with 1.23's message (`invalid path: must not contain '..': ../x`).
 * @see pkg/volume/util/atomic_writer.go (validatePath) in kubernetes/kubernetes v1.23
 */
export function validatePayloadPath(targetPath: string): void {
  if (targetPath === "") throw new AtomicWriterError(`invalid path: must not be empty: ""`);
  if (targetPath.startsWith("/")) throw new AtomicWriterError(`invalid path: must be relative path: ${targetPath}`);
  if (targetPath.length > maxPathLength) throw new AtomicWriterError(`invalid path: must be less than or equal to ${maxPathLength} characters`);
  const items = targetPath.split("/");
  for (const item of items) {
    if (item === "..") throw new AtomicWriterError(`invalid path: must not contain '..': ${targetPath}`);
    if (item.length > maxFileNameLength) throw new AtomicWriterError(`invalid path: filenames must be less than or equal to ${maxFileNameLength} characters`);
  }
  const first = items[0] ?? "";
  if (first.startsWith("..") && first.length > 2) throw new AtomicWriterError(`invalid path: must not start with '..': ${targetPath}`);
}

function cleanPath(p: string): string {
  return normalize(p).replace(/\/+$/, "");
}

function bytesOf(data: Uint8Array | string): Buffer {
  return typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

async function walk(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const r = rel === "" ? e.name : `${rel}/${e.name}`;
    out.push(r);
    if (e.isDirectory()) out.push(...(await walk(root, r)));
  }
  return out;
}

function timestampDirName(now: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  // Go's ioutil.TempDir appends a random number to the `..2006_01_02_15_04_05.` prefix.
  return `..${now.getUTCFullYear()}_${p(now.getUTCMonth() + 1)}_${p(now.getUTCDate())}_${p(now.getUTCHours())}_${p(now.getUTCMinutes())}_${p(now.getUTCSeconds())}.${randomBytes(4).readUInt32BE(0)}`;
}

let umaskRead: number | null | undefined;

/**
 * The process's umask (e.g. `0o022`) from `/proc/self/status` (Linux 4.7 and later), read once;
 * undefined where it cannot be read. Not `process.umask()`: without an argument it sets the umask to
 * 0 and back (Node's DEP0139), and a file the thread pool creates in between gets mode 0666.
 */
export function processUmask(): number | undefined {
  if (umaskRead === undefined) {
    try {
      const m = /^Umask:\s*([0-7]+)\s*$/m.exec(readFileSync("/proc/self/status", "utf8"));
      umaskRead = m?.[1] !== undefined ? Number.parseInt(m[1], 8) : null;
    } catch {
      umaskRead = null;
    }
  }
  return umaskRead ?? undefined;
}

// Whether a file or folder just created with `mode` needs a chmod to have exactly `mode`: when the
// umask clears some of its bits, when it has bits beyond the permission bits (setuid, setgid,
// sticky), or when the umask is unknown.
function umaskClears(mode: number): boolean {
  const umask = processUmask();
  return umask === undefined || (mode & umask) !== 0 || (mode & ~0o777) !== 0;
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * What {@link writeAtomically} last wrote (or found already written) in each target directory: the
 * timestamped directory `..data` pointed to and a SHA-256 of the payload's paths and bytes. With it,
 * a sync whose payload is unchanged costs one `readlink` instead of reading every file back (the
 * kubelet syncs each pod's volumes at every pod sync). A change made to the files on disk behind
 * the writer's back is therefore not undone while the entry holds; a changed payload, a moved
 * `..data` or a removed directory still goes the whole way. One per volume manager;
 * {@link forgetUnder} drops a torn-down pod's entries.
 */
export class AtomicWriteCache {
  private readonly entries = new Map<string, { readonly tsName: string; readonly fingerprint: string }>();

  /** The entry of `targetDir`, if any. */
  get(targetDir: string): { readonly tsName: string; readonly fingerprint: string } | undefined {
    return this.entries.get(targetDir);
  }

  /** Records that `targetDir`'s `..data` points to `tsName`, holding the payload of `fingerprint`. */
  set(targetDir: string, tsName: string, fingerprint: string): void {
    this.entries.set(targetDir, { tsName, fingerprint });
  }

  /** Drops the entries of `dir` and of every directory below it (a pod's volumes when torn down). */
  forgetUnder(dir: string): void {
    const prefix = dir.endsWith("/") ? dir : `${dir}/`;
    for (const k of this.entries.keys()) if (k === dir || k.startsWith(prefix)) this.entries.delete(k);
  }

  /** How many target directories are remembered. */
  get size(): number {
    return this.entries.size;
  }
}

/** SHA-256 (hex) of a cleaned payload's paths and contents, in path order (modes are not compared, as 1.23's shouldWritePayload). */
function payloadFingerprint(clean: ReadonlyMap<string, FileProjection>): string {
  const h = createHash("sha256");
  for (const p of [...clean.keys()].sort()) {
    const data = bytesOf(clean.get(p)?.data ?? "");
    h.update(`${p}\0${data.length}\0`);
    h.update(data);
  }
  return h.digest("hex");
}

/**
 * Projects `payload` (relative path → content and mode) into `targetDir` the way the kubelet's
 * AtomicWriter does, so a reader never sees a half-written update:
 * 1. the paths are validated ({@link validatePayloadPath}); 2. the current `..data` target is read;
 * 3. paths of the previous payload that are gone are listed; 4. when no file's content differs and
 * nothing is gone, nothing is written; 5–6. a new `..<timestamp>.<random>` directory (0755) gets
 * the files (directories 0755, each file chmod-ed to its mode regardless of the umask);
 * 7–8. a `..data_tmp` symlink to it is renamed over `..data` (atomic); 9. each top-level name is a
 * relative symlink `<name> -> ..data/<name>`; 10. top-level names of the previous payload that are
 * gone are removed; 11. the previous timestamped directory is removed.
 * Creates `targetDir` when missing. Returns whether anything was written. Never logs content.
 * With `cache`, an unchanged payload whose `..data` still points where the last write left it
 * returns false after one synchronous `readlink` (see {@link AtomicWriteCache}).
 * @throws AtomicWriterError for a bad path; fs errors as they come.
 * @see pkg/volume/util/atomic_writer.go (Write) in kubernetes/kubernetes v1.23
 * @example
 * ```ts
 * await writeAtomically("/var/lib/nodeagent/pods/<uid>/volumes/kubernetes.io~configmap/cfg",
 *   new Map([["app.properties", { data: "a=b\n", mode: 0o644 }]]));
 * ```
 */
export async function writeAtomically(targetDir: string, payload: ReadonlyMap<string, FileProjection>, cache?: AtomicWriteCache): Promise<boolean> {
  const clean = new Map<string, FileProjection>();
  for (const [path, f] of payload) {
    validatePayloadPath(path);
    clean.set(cleanPath(path), f);
  }
  const dataDirPath = join(targetDir, dataDirName);
  const fingerprint = cache ? payloadFingerprint(clean) : "";
  const known = cache?.get(targetDir);
  if (known !== undefined && known.fingerprint === fingerprint) {
    // Synchronous: this is every pod sync's only call here, a link read the kernel answers from
    // its cache in microseconds, where an async call's thread-pool round trip cost about 100 µs
    // of CPU on a VM (`pnpm bench fleet`). Writes stay asynchronous (they may wait on the disk).
    let current = "";
    try {
      current = readlinkSync(dataDirPath);
    } catch {
      // Gone or not a link: written again below.
    }
    if (current === known.tsName) return false;
  }
  // `..data` first: for a volume already written, the folder exists and needs no mkdir.
  const oldTsDir = await readlink(dataDirPath).catch(async (err: unknown) => {
    const code = errnoCode(err);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
    await mkdirAll(targetDir);
    return "";
  });
  const oldTsPath = join(targetDir, oldTsDir);
  let pathsToRemove = new Set<string>();
  if (oldTsDir !== "") {
    const old = await walk(oldTsPath).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return [] as string[];
      throw err;
    });
    const keep = new Set<string>();
    for (const p of clean.keys()) for (let s = p; s !== "" && s !== "."; s = dirname(s)) keep.add(s);
    pathsToRemove = new Set(old.filter((p) => !keep.has(p)));
    let shouldWrite = false;
    for (const [p, f] of clean) {
      const onDisk = await readFile(join(oldTsPath, p)).catch(() => undefined);
      if (onDisk === undefined || !onDisk.equals(bytesOf(f.data))) {
        shouldWrite = true;
        break;
      }
    }
    if (!shouldWrite && pathsToRemove.size === 0) {
      cache?.set(targetDir, oldTsDir, fingerprint);
      return false;
    }
  }

  const tsName = timestampDirName(new Date());
  const tsDir = join(targetDir, tsName);
  await mkdir(tsDir, 0o755);
  // Each chmod below is skipped when the umask leaves the mode whole: the result is the same.
  if (umaskClears(0o755)) await chmod(tsDir, 0o755);
  try {
    for (const [p, f] of clean) {
      const full = join(tsDir, p);
      if (p.includes("/")) await mkdirAll(dirname(full), 0o755);
      await writeFile(full, bytesOf(f.data), { mode: f.mode });
      if (umaskClears(f.mode)) await chmod(full, f.mode);
    }
    const newDataDirPath = join(targetDir, newDataDirName);
    // A `..data_tmp` left by an interrupted write is replaced.
    await symlink(tsName, newDataDirPath).catch(async (err: unknown) => {
      if (errnoCode(err) !== "EEXIST") throw err;
      await rm(newDataDirPath, { force: true });
      await symlink(tsName, newDataDirPath);
    });
    try {
      await rename(newDataDirPath, dataDirPath);
    } catch (err) {
      await rm(newDataDirPath, { force: true });
      throw err;
    }
  } catch (err) {
    await rm(tsDir, { recursive: true, force: true });
    throw err;
  }

  // A top-level name that exists already (a symlink of an earlier payload) is kept.
  for (const top of new Set([...clean.keys()].map((p) => p.split("/")[0] ?? p))) {
    await symlink(join(dataDirName, top), join(targetDir, top)).catch((err: unknown) => {
      if (errnoCode(err) !== "EEXIST") throw err;
    });
  }
  for (const p of pathsToRemove) {
    if (p.includes("/")) continue;
    await rm(join(targetDir, p), { force: true });
  }
  if (oldTsDir !== "" && oldTsDir !== tsName) await rm(oldTsPath, { recursive: true, force: true });
  cache?.set(targetDir, tsName, fingerprint);
  return true;
}
