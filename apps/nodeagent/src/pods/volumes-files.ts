import { open, stat } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import type { Container, DownwardAPIVolumeFile, Pod } from "@skiff/api-types";
import { formatGoQuoted, parseQuantity, quantityMilliValue, quantityValue } from "@skiff/flags";
import { mkdirAll } from "../internal/mkdir-all.js";
import { writeAtomically, type AtomicWriteCache } from "./atomic-writer.js";

/**
 * A labels/annotations file of a downward API volume: one `key="value"` line per entry (value
 * Go-quoted), keys sorted, no trailing newline. Pure.
 * @see pkg/fieldpath/fieldpath.go (FormatMap) in kubernetes/kubernetes v1.23
 */
export function formatDownwardMap(m: Readonly<Record<string, string>>): string {
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${formatGoQuoted(m[k] ?? "")}`)
    .join("\n");
}

/** Node capacity used for `resourceFieldRef` limits a container does not set. */
export interface NodeAllocatable {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly ephemeralStorageBytes: number;
}

/** The machine's CPUs and memory; ephemeral storage is unknown (0 → reported as 0). */
export function machineAllocatable(): NodeAllocatable {
  return { cpuMilli: cpus().length * 1000, memoryBytes: totalmem(), ephemeralStorageBytes: 0 };
}

/** A downward API item that cannot be rendered; `message` is the kubelet's wording where it has one. */
export class DownwardAPIError extends Error {
  override readonly name = "DownwardAPIError";
  readonly reason = "InvalidDownwardAPI";
}

function quantityOf(v: unknown): ReturnType<typeof parseQuantity> | undefined {
  if (v === undefined || v === null) return undefined;
  return parseQuantity(String(v));
}

/**
 * The value of a `resourceFieldRef` (`limits.cpu`, `requests.memory`, `limits.hugepages-2Mi`, ...),
 * divided by `divisor` (default 1) and rounded up; cpu, memory and ephemeral-storage limits not set
 * fall back to the node's allocatable, hugepages to 0.
 * @throws DownwardAPIError for an unknown resource, a bad quantity or a zero divisor.
 * @see pkg/api/v1/resource/helpers.go (ExtractContainerResourceValue) in kubernetes/kubernetes v1.23
 */
export function resolveResourceFieldRef(container: Container, resource: string, divisor: unknown, node: NodeAllocatable): string {
  const [kind, name] = resource.split(".", 2) as [string, string | undefined];
  const hugePages = name !== undefined && name.startsWith("hugepages-");
  if ((kind !== "limits" && kind !== "requests") || (name !== "cpu" && name !== "memory" && name !== "ephemeral-storage" && !hugePages)) {
    throw new DownwardAPIError(`unsupported container resource : ${resource}`);
  }
  const list = (kind === "limits" ? container.resources?.limits : container.resources?.requests) ?? {};
  const d = quantityOf(divisor) ?? parseQuantity("1");
  if (!d.ok) throw new DownwardAPIError(`invalid divisor ${String(divisor)}`);
  const raw = quantityOf(list[name]);
  if (raw && !raw.ok) throw new DownwardAPIError(`invalid quantity ${String(list[name])} for ${resource}`);
  if (name === "cpu") {
    const dm = Number(quantityMilliValue(d.value));
    if (dm === 0) throw new DownwardAPIError(`invalid divisor ${String(divisor)}`);
    const milli = raw ? Number(quantityMilliValue(raw.value)) : kind === "limits" ? node.cpuMilli : 0;
    return String(Math.ceil(milli / dm));
  }
  const dv = Number(quantityValue(d.value));
  if (dv === 0) throw new DownwardAPIError(`invalid divisor ${String(divisor)}`);
  // Hugepages (requests./limits.hugepages-<size>) have no node default: 0 when not set.
  const fallback = hugePages ? 0 : name === "memory" ? node.memoryBytes : node.ephemeralStorageBytes;
  const v = raw ? Number(quantityValue(raw.value)) : kind === "limits" ? fallback : 0;
  return String(Math.ceil(v / dv));
}

/**
 * The content of one downward API volume file: `metadata.name|namespace|uid`, `metadata.labels`,
 * `metadata.annotations` (as {@link formatDownwardMap}), `metadata.labels['k']`,
 * `metadata.annotations['k']`, or a `resourceFieldRef` of a container of the pod.
 * @throws DownwardAPIError for an unsupported field path or an unknown container.
 * @see pkg/volume/downwardapi/downwardapi.go (CollectData) in kubernetes/kubernetes v1.23
 */
export function downwardAPIFileContent(pod: Pod, item: DownwardAPIVolumeFile, node: NodeAllocatable): string {
  const meta = pod.metadata ?? {};
  if (item.fieldRef) {
    const path = item.fieldRef.fieldPath;
    const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
    if (m) return (m[1] === "labels" ? meta.labels : meta.annotations)?.[m[2] ?? ""] ?? "";
    switch (path) {
      case "metadata.name":
        return meta.name ?? "";
      case "metadata.namespace":
        return meta.namespace ?? "";
      case "metadata.uid":
        return meta.uid ?? "";
      case "metadata.labels":
        return formatDownwardMap(meta.labels ?? {});
      case "metadata.annotations":
        return formatDownwardMap(meta.annotations ?? {});
      default:
        throw new DownwardAPIError(`unsupported fieldPath: ${path}`);
    }
  }
  if (item.resourceFieldRef) {
    const ref = item.resourceFieldRef;
    const name = ref.containerName ?? "";
    const container = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((c) => c.name === name);
    if (!container) throw new DownwardAPIError(`container ${JSON.stringify(name)} not found in pod ${meta.namespace ?? ""}/${meta.name ?? ""}`);
    return resolveResourceFieldRef(container, ref.resource, ref.divisor, node);
  }
  throw new DownwardAPIError(`downward API item ${JSON.stringify(item.path)} has neither fieldRef nor resourceFieldRef`);
}

/** One file of an atomically written volume: relative path, content and permission bits. */
export interface VolumeFile {
  readonly path: string;
  readonly data: string | Uint8Array;
  readonly mode: number;
}

/**
 * Writes `files` into `dir` with the kubelet's atomic writer ({@link writeAtomically}): a new
 * `..<timestamp>` directory, `..data` switched to it with a rename, top-level names as symlinks
 * into `..data`; unchanged payloads are not rewritten; names of the previous payload that are gone
 * are removed. A later file with the same path wins. Returns whether anything was written. `cache`
 * as {@link writeAtomically}'s.
 * @throws AtomicWriterError for a path that is absolute, empty or contains `..`; fs errors as-is.
 * @see pkg/volume/util/atomic_writer.go in kubernetes/kubernetes v1.23
 */
export async function writeVolumeFilesAtomically(dir: string, files: readonly VolumeFile[], cache?: AtomicWriteCache): Promise<boolean> {
  return writeAtomically(dir, new Map(files.map((f) => [f.path, { data: f.data, mode: f.mode }])), cache);
}

/** A hostPath whose type check failed; the message is the kubelet's. */
export class HostPathTypeError extends Error {
  override readonly name = "HostPathTypeError";
  readonly reason = "HostPathTypeCheckFailed";
}

/**
 * Checks (and for the `...OrCreate` types creates: directory 0755 with parents, empty file 0644)
 * the path of a hostPath volume; `""` checks nothing. Symlinks are followed.
 * @throws HostPathTypeError with 1.23's messages (`hostPath type check failed: <path> is not a
 *   directory`, `... is not a file`, `... is not a socket file`, `... is not a character device`,
 *   `... is not a block device`, `<type> is an invalid volume type`); fs errors of the creation as-is.
 * @see pkg/volume/hostpath/host_path.go (checkTypeInternal, makeDir, makeFile) in kubernetes/kubernetes v1.23
 */
export async function checkHostPathType(path: string, type: string): Promise<void> {
  const st = async () => stat(path).catch(() => undefined);
  const fail = (what: string) => new HostPathTypeError(`hostPath type check failed: ${path} is not a ${what}`);
  switch (type) {
    case "":
      return;
    case "DirectoryOrCreate":
    case "Directory":
      if (type === "DirectoryOrCreate" && !(await st())) {
        await mkdirAll(path, 0o755);
        return;
      }
      if (!(await st())?.isDirectory()) throw fail("directory");
      return;
    case "FileOrCreate":
    case "File":
      if (type === "FileOrCreate" && !(await st())) {
        const fh = await open(path, "a", 0o644);
        await fh.close();
        return;
      }
      if (!(await st())?.isFile()) throw fail("file");
      return;
    case "Socket":
      if (!(await st())?.isSocket()) throw fail("socket file");
      return;
    case "CharDevice":
      if (!(await st())?.isCharacterDevice()) throw fail("character device");
      return;
    case "BlockDevice":
      if (!(await st())?.isBlockDevice()) throw fail("block device");
      return;
    default:
      throw new HostPathTypeError(`${type} is an invalid volume type`);
  }
}
