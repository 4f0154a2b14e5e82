import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Hugepages of one size on one NUMA node: the page size in KiB and the number of pages. */
export interface NUMAHugePages {
  readonly pageSizeKiB: number;
  readonly numPages: number;
}

/** One NUMA node's memory as the memory manager sees it (cAdvisor's `Node`). */
export interface NUMANodeMemory {
  readonly id: number;
  /** `MemTotal` of the node's `meminfo`, in bytes. */
  readonly memoryBytes: number;
  readonly hugePages: readonly NUMAHugePages[];
}

function readTrim(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * The hugepages of one `hugepages` directory (`hugepages-<size>kB/nr_hugepages`), by page size.
 * @throws Error `could not parse <file>: "<text>"` for unparsable counts.
 */
export function readHugePages(dir: string): NUMAHugePages[] {
  if (!existsSync(dir)) return [];
  const out: NUMAHugePages[] = [];
  for (const name of readdirSync(dir)) {
    const m = /^hugepages-(\d+)kB$/.exec(name);
    if (!m) continue;
    const file = join(dir, name, "nr_hugepages");
    const text = readTrim(file) ?? "0";
    const n = Number.parseInt(text, 10);
    if (!Number.isFinite(n) || n < 0) throw new Error(`could not parse ${file}: ${JSON.stringify(text)}`);
    out.push({ pageSizeKiB: Number(m[1]), numPages: n });
  }
  return out.sort((a, b) => a.pageSizeKiB - b.pageSizeKiB);
}

/**
 * Reads each NUMA node's memory from sysfs as cAdvisor does for the kubelet:
 * `devices/system/node/node<N>/meminfo` (`Node N MemTotal: <kB> kB`) and
 * `devices/system/node/node<N>/hugepages/hugepages-<size>kB/nr_hugepages`. Without NUMA nodes in
 * sysfs the machine is one node 0 holding `machineMemoryBytes` and the hugepages of
 * `kernel/mm/hugepages`. `sysfsRoot` is `/sys`, or a prepared tree in tests.
 * @throws Error `could not parse <file>: ...` when a node's meminfo has no MemTotal.
 * @see vendor/github.com/google/cadvisor/utils/sysinfo/sysinfo.go (GetNodesInfo) as used by pkg/kubelet/cm/memorymanager in kubernetes/kubernetes v1.23
 */
export function discoverNUMAMemory(sysfsRoot: string, machineMemoryBytes: number): NUMANodeMemory[] {
  const nodeDir = join(sysfsRoot, "devices", "system", "node");
  const ids = existsSync(nodeDir) ? readdirSync(nodeDir).filter((n) => /^node\d+$/.test(n)).map((n) => Number(n.slice(4))).sort((a, b) => a - b) : [];
  if (ids.length === 0) return [{ id: 0, memoryBytes: machineMemoryBytes, hugePages: readHugePages(join(sysfsRoot, "kernel", "mm", "hugepages")) }];
  return ids.map((id) => {
    const file = join(nodeDir, `node${id}`, "meminfo");
    const text = readTrim(file) ?? "";
    const m = /MemTotal:\s*(\d+)\s*kB/.exec(text);
    if (!m) throw new Error(`could not parse ${file}: no MemTotal`);
    return { id, memoryBytes: Number(m[1]) * 1024, hugePages: readHugePages(join(nodeDir, `node${id}`, "hugepages")) };
  });
}
