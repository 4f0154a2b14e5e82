/**
 * The node's capacity (from the machine) and allocatable (capacity minus reservations), as the
 * kubelet 1.23's MachineInfo setter and container manager compute them.
 *
 * @see pkg/kubelet/nodestatus/setters.go (MachineInfo) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/cm/node_container_manager_linux.go (GetNodeAllocatableReservation, hardEvictionReservation)
 */
import { statfs } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { formatQuantity, newQuantity, parseQuantity, quantityMilliValue } from "@skiff/flags";
import { hugePageResourceNameOf, readMachineHugePages } from "../cm/hugepages.js";

/** What the machine has: whole CPU cores, memory and root-dir filesystem size in bytes. */
export interface MachineResources {
  readonly cpuCores: number;
  readonly memoryBytes: number;
  /** Size of the filesystem holding `--root-dir`; 0 when unknown (then no `ephemeral-storage`). */
  readonly rootfsBytes: number;
  /** Hugepages by resource name (`hugepages-2Mi`) → bytes (pages × page size), every size the machine supports. @defaultValue none */
  readonly hugePages?: Readonly<Record<string, number>>;
}

/**
 * Reads the machine's resources: `os.cpus().length`, `os.totalmem()`, `statfs(rootDir)`
 * (blocks × block size) and the hugepages of `<sysfsRoot>/kernel/mm/hugepages` (cAdvisor's
 * HugePages). Never throws: an unreadable `rootDir` gives `rootfsBytes: 0`.
 */
export async function readMachineResources(rootDir: string, sysfsRoot = "/sys"): Promise<MachineResources> {
  let rootfsBytes = 0;
  try {
    const s = await statfs(rootDir);
    rootfsBytes = Number(s.blocks) * Number(s.bsize);
  } catch {
    rootfsBytes = 0;
  }
  const hugePages: Record<string, number> = {};
  for (const h of readMachineHugePages(sysfsRoot)) hugePages[hugePageResourceNameOf(h.pageSizeBytes)] = Number(h.pageSizeBytes * h.numPages);
  return { cpuCores: Math.max(1, cpus().length), memoryBytes: totalmem(), rootfsBytes, hugePages };
}

/** Capacity and allocatable as v1 ResourceLists (quantity strings). */
export interface NodeResources {
  readonly capacity: Record<string, string>;
  readonly allocatable: Record<string, string>;
}

/** The configuration parts {@link computeNodeResources} reads. */
export interface NodeResourceSettings {
  /** `--max-pods`. */
  readonly maxPods: number;
  /** `--pods-per-core`; 0 disables. Pods = min(cores × podsPerCore, maxPods) when > 0. */
  readonly podsPerCore: number;
  /** `--system-reserved` (resource name → quantity). */
  readonly systemReserved: Readonly<Record<string, string>>;
  /** `--cluster-reserved` (the kubelet's `--kube-reserved`). */
  readonly clusterReserved: Readonly<Record<string, string>>;
  /** `--eviction-hard` (signal → `<quantity>` or `<percent>%`); `memory.available` and `nodefs.available` reserve. */
  readonly evictionHard: Readonly<Record<string, string>>;
  /** `--experimental-allocatable-ignore-eviction`: do not subtract hard eviction thresholds. @defaultValue false */
  readonly ignoreEviction?: boolean;
}

/** Resource name → milli-units; bytes and cores alike (exact integers as bigint). */
type MilliList = Map<string, bigint>;

function milliOf(text: string): bigint | undefined {
  const r = parseQuantity(text);
  return r.ok ? quantityMilliValue(r.value) : undefined;
}

// A threshold is either an absolute quantity or a percentage of the capacity (GetThresholdQuantity).
function thresholdMilli(value: string, capacityMilli: bigint): bigint | undefined {
  if (value.endsWith("%")) {
    const p = Number(value.slice(0, -1));
    if (!Number.isFinite(p)) return undefined;
    // Percentages apply to whole units (bytes), as resource.NewQuantity(int64(float64(capacity.Value()) * percentage)).
    const units = capacityMilli / 1000n;
    return BigInt(Math.floor(Number(units) * (p / 100))) * 1000n;
  }
  return milliOf(value);
}

function formatMilli(name: string, milli: bigint): string {
  if (name === "cpu") return milli % 1000n === 0n ? String(milli / 1000n) : `${milli}m`;
  const units = milli / 1000n;
  return name === "pods" ? String(units) : formatQuantity(newQuantity(units, "BinarySI"));
}

/**
 * Computes `status.capacity` and `status.allocatable`:
 * - capacity: `cpu` = cores, `memory` = bytes, `pods` = `maxPods` (or cores × `podsPerCore` when
 *   that is smaller and `podsPerCore` > 0), `ephemeral-storage` = the root-dir filesystem's size
 *   (omitted when unknown);
 * - allocatable = capacity − systemReserved − clusterReserved − hard eviction thresholds
 *   (`memory.available` → memory, `nodefs.available` → ephemeral-storage; percentages of capacity),
 *   never below zero; `hugepages-<size>` = pages × size from the machine, allocatable memory less
 *   every hugepage size's capacity. Reservations of resources the node does not have are ignored; unparsable
 *   quantities count as zero (the options layer validated them). Pure; does not mutate its inputs.
 *
 * @see pkg/kubelet/nodestatus/setters.go (MachineInfo) in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/cm/node_container_manager_linux.go (GetNodeAllocatableReservation)
 * @example
 * computeNodeResources({ cpuCores: 4, memoryBytes: 8 << 30, rootfsBytes: 0 }, { maxPods: 110, podsPerCore: 0, systemReserved: { cpu: "500m" }, clusterReserved: {}, evictionHard: { "memory.available": "100Mi" } });
 * // capacity { cpu: "4", memory: "8Gi", pods: "110" }, allocatable { cpu: "3500m", memory: "8092Mi", pods: "110" }
 */
export function computeNodeResources(machine: MachineResources, settings: NodeResourceSettings): NodeResources {
  const capacity: MilliList = new Map();
  capacity.set("cpu", BigInt(machine.cpuCores) * 1000n);
  capacity.set("memory", BigInt(Math.floor(machine.memoryBytes)) * 1000n);
  let pods = settings.maxPods;
  if (settings.podsPerCore > 0) pods = Math.min(machine.cpuCores * settings.podsPerCore, settings.maxPods);
  capacity.set("pods", BigInt(pods) * 1000n);
  if (machine.rootfsBytes > 0) capacity.set("ephemeral-storage", BigInt(Math.floor(machine.rootfsBytes)) * 1000n);
  for (const [name, bytes] of Object.entries(machine.hugePages ?? {})) capacity.set(name, BigInt(Math.floor(bytes)) * 1000n);

  const reservation: MilliList = new Map();
  const add = (name: string, milli: bigint | undefined) => {
    if (milli === undefined || !capacity.has(name)) return;
    reservation.set(name, (reservation.get(name) ?? 0n) + milli);
  };
  for (const m of [settings.systemReserved, settings.clusterReserved]) for (const [name, v] of Object.entries(m)) add(name, milliOf(v));
  if (!settings.ignoreEviction) {
    const signals: Readonly<Record<string, string>> = { "memory.available": "memory", "nodefs.available": "ephemeral-storage" };
    for (const [signal, resource] of Object.entries(signals)) {
      const v = settings.evictionHard[signal];
      const cap = capacity.get(resource);
      if (v === undefined || cap === undefined) continue;
      add(resource, thresholdMilli(v, cap));
    }
  }
  // Every hugepage size's capacity comes out of allocatable memory (setters.go MachineInfo).
  for (const [name, milli] of capacity) if (name.startsWith("hugepages-")) add("memory", milli);
  const capOut: Record<string, string> = {};
  const allocOut: Record<string, string> = {};
  for (const [name, milli] of capacity) {
    capOut[name] = formatMilli(name, milli);
    const left = milli - (reservation.get(name) ?? 0n);
    allocOut[name] = formatMilli(name, left < 0n ? 0n : left);
  }
  return { capacity: capOut, allocatable: allocOut };
}
