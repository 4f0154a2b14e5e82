import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { formatQuantity, newQuantity, parseQuantity, quantityValue } from "@skiff/flags";

const unitList = ["B", "KB", "MB", "GB", "TB", "PB"];

/**
 * The page size text the runtime and the cgroup files use (`2MB`, `1GB`) for a page size in
 * bytes: divided by 1024 while it divides evenly.
 * @throws Error `size: 1536KB must be guaranteed to divisible into the largest units` (1.23's words).
 * @see pkg/apis/core/v1/helper/helpers.go (HugePageUnitSizeFromByteSize) in kubernetes/kubernetes v1.23
 */
export function hugePageUnitSize(bytes: bigint): string {
  let size = bytes;
  let idx = 0;
  while (size % 1024n === 0n && size !== 0n && idx < unitList.length - 1) {
    size /= 1024n;
    idx++;
  }
  if (size > 1024n) throw new Error(`size: ${size}${unitList[idx]} must be guaranteed to divisible into the largest units`);
  return `${size}${unitList[idx]}`;
}

/** The page size in bytes of a `hugepages-<size>` resource name (`hugepages-2Mi` → 2097152); undefined for other names. */
export function hugePageSizeOfResource(name: string): bigint | undefined {
  if (!name.startsWith("hugepages-")) return undefined;
  const q = parseQuantity(name.slice("hugepages-".length));
  if (!q.ok) return undefined;
  const v = quantityValue(q.value);
  return v > 0n ? v : undefined;
}

/** The `hugepages-<size>` resource name of a page size in bytes (`hugepages-2Mi`). */
export function hugePageResourceNameOf(bytes: bigint): string {
  return `hugepages-${formatQuantity(newQuantity(bytes, "BinarySI"))}`;
}

/** One supported hugepage size of the machine and its pages. */
export interface HugePageInfo {
  /** Page size in bytes. */
  readonly pageSizeBytes: bigint;
  /** `nr_hugepages`. */
  readonly numPages: bigint;
}

/**
 * The machine's hugepage sizes from `<sysfs>/kernel/mm/hugepages/hugepages-<size>kB`, in the
 * directory's (name) order as libcontainer lists them, with their `nr_hugepages`. Empty when the
 * directory is missing; an unreadable count is 0.
 * @see vendor/github.com/opencontainers/runc/libcontainer/cgroups/utils.go (HugePageSizes), cadvisor machine.GetHugePagesInfo
 */
export function readMachineHugePages(sysfsRoot = "/sys"): HugePageInfo[] {
  const dir = join(sysfsRoot, "kernel", "mm", "hugepages");
  if (!existsSync(dir)) return [];
  const out: HugePageInfo[] = [];
  for (const name of readdirSync(dir).sort()) {
    const m = /^hugepages-(\d+)kB$/.exec(name);
    if (!m) continue;
    let numPages = 0n;
    try {
      numPages = BigInt(readFileSync(join(dir, name, "nr_hugepages"), "utf8").trim());
    } catch {
      numPages = 0n;
    }
    out.push({ pageSizeBytes: BigInt(m[1] ?? "0") * 1024n, numPages });
  }
  return out;
}

/** The page size texts (`1GB`, `2MB`) of the machine's hugepage sizes, as libcontainer's HugePageSizes. */
export function hugePageSizes(pages: readonly HugePageInfo[]): string[] {
  return pages.map((p) => hugePageUnitSize(p.pageSizeBytes));
}
