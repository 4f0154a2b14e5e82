import { watch, type FSWatcher } from "node:fs";
import { lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";

/** A socket found under the watched directory: its path and inode (a re-created socket is a new plugin). */
export interface FoundSocket {
  readonly path: string;
  readonly ino: number;
}

/**
 * Lists the unix sockets under `dir`, walking sub-directories; names starting with `.` and
 * non-socket files are skipped. A missing directory yields `[]`.
 * @see pkg/kubelet/pluginmanager/pluginwatcher/plugin_watcher.go (traversePluginDir) in kubernetes/kubernetes v1.23
 */
export async function listPluginSockets(dir: string): Promise<FoundSocket[]> {
  const out: FoundSocket[] = [];
  const walk = async (d: string, depth: number): Promise<void> => {
    const names = await readdir(d).catch(() => [] as string[]);
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const p = join(d, name);
      const st = await lstat(p).catch(() => undefined);
      if (!st) continue;
      if (st.isSocket()) out.push({ path: p, ino: st.ino });
      else if (st.isDirectory() && depth < 8) await walk(p, depth + 1);
    }
  };
  await walk(dir, 0);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** What {@link PluginWatcher} reports. */
export interface PluginWatcherOptions {
  /** `<root-dir>/plugins_registry`; created (0755) when missing. */
  readonly dir: string;
  /** Period of the full re-scan, in ms (fs events only speed things up). @defaultValue 1_000 */
  readonly scanPeriodMs?: number;
  /** Called with the current sockets after each scan (the desired state of world). */
  readonly onScan: (sockets: readonly FoundSocket[]) => void;
}

/**
 * Watches the plugin-registration directory: a scan at start, on every fs event (debounced) and
 * every `scanPeriodMs`; each scan reports the full list of sockets, so additions and removals are
 * found by comparing with the previous list (see the plugin manager).
 * @see pkg/kubelet/pluginmanager/pluginwatcher/plugin_watcher.go in kubernetes/kubernetes v1.23
 */
export class PluginWatcher {
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private scanning = false;
  private again = false;
  private stopped = false;

  constructor(private readonly o: PluginWatcherOptions) {}

  /** Creates the directory, scans once, then keeps watching. @throws Error when the directory cannot be created. */
  async start(): Promise<void> {
    await mkdir(this.o.dir, { recursive: true, mode: 0o755 });
    await this.scan();
    try {
      this.watcher = watch(this.o.dir, { recursive: true }, () => void this.scan());
      this.watcher.on("error", () => undefined);
    } catch {
      // Recursive watches are not available everywhere; the periodic scan covers it.
    }
    this.timer = setInterval(() => void this.scan(), this.o.scanPeriodMs ?? 1_000);
    this.timer.unref();
  }

  /** Scans now (coalesced with a running scan). */
  async scan(): Promise<void> {
    if (this.stopped) return;
    if (this.scanning) {
      this.again = true;
      return;
    }
    this.scanning = true;
    try {
      do {
        this.again = false;
        const sockets = await listPluginSockets(this.o.dir);
        if (!this.stopped) this.o.onScan(sockets);
      } while (this.again && !this.stopped);
    } finally {
      this.scanning = false;
    }
  }

  /** Stops watching. Idempotent. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.watcher?.close();
  }
}
