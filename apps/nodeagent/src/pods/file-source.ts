import { statSync, watch, type FSWatcher } from "node:fs";
import type { Stats } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, normalize } from "node:path";
import type { Pod } from "@skiff/api-types";
import { decodeManifest, maxManifestBytes } from "./static-pod.js";

/** Options of {@link readStaticPodPath} and {@link FileSource}. */
export interface FileSourceOptions {
  /** `--pod-manifest-path`: a directory or a single file; a trailing `/` is ignored. */
  readonly path: string;
  readonly nodeName: string;
  /** Receives one line per problem (bad file, sub-directory, missing path). */
  readonly log?: (message: string) => void;
}

/** What one read of the path produced: the good pods, and one message per skipped entry. */
export interface StaticPodPathResult {
  readonly pods: Pod[];
  readonly errors: string[];
}

/**
 * What one file decoded to, with the identity of the file version it came from (device, inode, size,
 * change and modification times in ms with their sub-millisecond fraction, a resolution of about
 * 0.25 µs at today's dates): a file whose identity is unchanged is not read nor decoded again.
 * The pods are handed out as they are; their consumer ({@link PodConfig.set}) never mutates them.
 */
interface DecodedFile {
  readonly version: FileVersion;
  readonly nodeName: string;
  readonly result: { readonly pods: Pod[]; readonly errors: string[] };
}

/** The fields of a file's stat that identify its version. */
type FileVersion = Pick<Stats, "dev" | "ino" | "size" | "mtimeMs" | "ctimeMs">;

/** Decoded files by path, shared by the reads of one {@link FileSource}. */
export type StaticPodFileCache = Map<string, DecodedFile>;

// Plain (not bigint) stats, compared field by field: a poll stats every manifest each period
// (every second in the benches), and a BigIntStats allocates a BigInt per field.
function fileVersion(info: Stats): FileVersion {
  return { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
}

function sameVersion(a: FileVersion, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

// The pods and errors of one file; on a cache hit, the cached arrays themselves (callers copy).
async function readOneFile(file: string, nodeName: string, cache?: StaticPodFileCache, known?: Stats): Promise<{ readonly pods: readonly Pod[]; readonly errors: readonly string[] }> {
  try {
    const info = known ?? (await stat(file));
    if (info.size > maxManifestBytes) return { pods: [], errors: [`${file}: file is larger than ${maxManifestBytes} bytes`] };
    const hit = cache?.get(file);
    if (hit && sameVersion(hit.version, info) && hit.nodeName === nodeName) return hit.result;
    const version = fileVersion(info);
    const text = await readFile(file, "utf8");
    const r = decodeManifest(text, nodeName, { kind: "file", path: file });
    const result = r.ok ? { pods: r.pods, errors: [] } : { pods: [], errors: r.errors.map((e) => `${file}: ${e}`) };
    cache?.set(file, { version, nodeName, result });
    return result;
  } catch (err) {
    cache?.delete(file);
    return { pods: [], errors: [`${file}: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

/**
 * Reads the static pod path once: a file → its pod; a directory → every entry not starting with
 * `.`, sorted, without descending into sub-directories (each is reported), symlinks followed; a
 * missing path → no pods (reported as `path does not exist, ignoring`). A bad file is reported and
 * skipped. Never throws. With `cache`, a file whose device, inode, size and change/modification times
 * are those of its last read is not read nor decoded again (its earlier pods are returned), and
 * entries no longer present are dropped from the cache.
 * @see pkg/kubelet/config/file.go (listConfig, extractFromDir, extractFromFile)
 */
export async function readStaticPodPath(options: FileSourceOptions, cache?: StaticPodFileCache): Promise<StaticPodPathResult> {
  const path = options.path.length > 1 ? options.path.replace(/\/+$/, "") : options.path;
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    cache?.clear();
    return { pods: [], errors: [`unable to read config path ${JSON.stringify(path)}: path does not exist, ignoring`] };
  }
  if (info.isFile()) {
    if (cache) for (const k of cache.keys()) if (k !== path) cache.delete(k);
    const r = await readOneFile(path, options.nodeName, cache, info);
    return { pods: [...r.pods], errors: [...r.errors] };
  }
  if (!info.isDirectory()) return { pods: [], errors: [`path ${JSON.stringify(path)} is not a directory or a file`] };
  const names = (await readdir(path).catch(() => [] as string[])).filter((n) => !n.startsWith(".")).sort();
  const pods: Pod[] = [];
  const errors: string[] = [];
  // join(path, name) for an entry name (no "/", never "." or ".."): the directory normalized once.
  const dir = normalize(path);
  const fileOf = (name: string) => (dir.endsWith("/") ? dir + name : `${dir}/${name}`);
  if (cache) {
    const present = new Set(names.map(fileOf));
    for (const k of cache.keys()) if (!present.has(k)) cache.delete(k);
  }
  for (const name of names) {
    const file = fileOf(name);
    // Synchronously: one stat per manifest each period (every second in the benches) costs a
    // thread-pool round trip each when asynchronous, for an answer the kernel has cached.
    let entry: Stats | undefined;
    try {
      entry = statSync(file, { throwIfNoEntry: false });
    } catch {
      entry = undefined;
    }
    if (!entry) continue;
    if (entry.isDirectory()) {
      errors.push(`${file}: not recursing into manifest path`);
      continue;
    }
    if (!entry.isFile()) continue;
    const r = await readOneFile(file, options.nodeName, cache, entry);
    pods.push(...r.pods);
    errors.push(...r.errors);
  }
  return { pods, errors };
}

/**
 * The file source: reads the path every `periodMs` and whenever `fs.watch` reports a change of a
 * non-dot entry, and hands the complete list to `onPods` whenever it differs from the last one
 * handed over (1.23 sends every read; the pod config ignores a set equal to the last, so a read
 * that found every file unchanged, the same decoded pods in the same order, is not sent).
 * @see pkg/kubelet/config/file.go, pkg/kubelet/config/file_linux.go
 */
export class FileSource {
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private running = false;
  private pending = false;
  private debounce: NodeJS.Timeout | undefined;
  private readonly lastErrors = new Set<string>();
  /** Decoded files: a poll re-reads the path as 1.23 does, but decodes only what changed. */
  private readonly decoded: StaticPodFileCache = new Map();
  /** The pods last handed to `onPods` (the decoded objects themselves). */
  private lastPods: readonly Pod[] | undefined;

  constructor(
    private readonly options: FileSourceOptions & { readonly periodMs: number },
    private readonly onPods: (pods: Pod[]) => void,
  ) {}

  /** Reads once now, then starts the poll and the watch. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.periodMs);
    this.timer.unref();
    this.startWatch();
  }

  private startWatch(): void {
    try {
      const path = this.options.path;
      this.watcher = watch(path, { persistent: false }, (_event, filename) => {
        if (filename && basename(filename.toString()).startsWith(".")) return;
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.poll(), 50);
      });
      this.watcher.on("error", () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // The path may not exist yet; the poll still picks it up.
      this.watcher = undefined;
    }
  }

  /** Reads the path and reports the result; concurrent calls coalesce. */
  async poll(): Promise<void> {
    if (this.running) {
      this.pending = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.pending = false;
        const r = await readStaticPodPath(this.options, this.decoded);
        for (const e of r.errors) if (!this.lastErrors.has(e)) this.options.log?.(e);
        this.lastErrors.clear();
        for (const e of r.errors) this.lastErrors.add(e);
        const last = this.lastPods;
        if (last === undefined || last.length !== r.pods.length || r.pods.some((p, i) => p !== last[i])) {
          this.lastPods = r.pods;
          this.onPods(r.pods);
        }
        if (!this.watcher && this.timer) this.startWatch();
      } while (this.pending);
    } finally {
      this.running = false;
    }
  }

  /** Stops polling and watching. Idempotent. */
  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.timer = undefined;
    this.watcher?.close();
    this.watcher = undefined;
  }
}
