/**
 * How much memory a fleet needs, and whether this process has it.
 */
import { readFileSync } from "node:fs";
import { getHeapStatistics } from "node:v8";

/**
 * Bytes one busy hollow node adds to the fleet process (its agent's objects, pod informer, API
 * clients, timers and simulated runtime, with 30 pods): measured 0.34–0.40 MiB idle, 2.9 MiB
 * (100 nodes) and 3.47 MiB (1,000 nodes) at the peak of a Job of 30 pods per node, rounded up
 * (see tools/fleet/README.md). The nodes' files (on tmpfs by default) add about 0.12 MiB.
 */
export const hollowNodeMemoryBytes = 4 * 1024 * 1024;

/** Bytes the fleet process needs besides its hollow nodes (Node, tsx, modules, shared pools): measured 158 MiB. */
export const fleetBaseMemoryBytes = 160 * 1024 * 1024;

/** Why a fleet refused to start. */
export class FleetMemoryError extends Error {
  readonly reason = "InsufficientMemory" as const;
  constructor(
    message: string,
    /** The estimate, in bytes. */
    readonly estimateBytes: number,
    /** What this process could use, in bytes. */
    readonly availableBytes: number,
  ) {
    super(message);
    this.name = "FleetMemoryError";
  }
}

function memAvailableBytes(): number {
  try {
    const m = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * The bytes this process may still use for hollow nodes: the smaller of V8's heap room
 * (`heap_size_limit` minus the heap in use; raise it with `--max-old-space-size`) and the
 * machine's `MemAvailable`.
 */
export function availableMemoryBytes(): number {
  const heap = getHeapStatistics();
  return Math.min(heap.heap_size_limit - heap.used_heap_size, memAvailableBytes());
}

const gib = (b: number): string => `${(b / 1024 ** 3).toFixed(2)} GiB`;
const mib = (b: number): string => `${(b / 1024 ** 2).toFixed(1)} MiB`;

/**
 * The estimate for `nodes` hollow nodes: `fleetBaseMemoryBytes + nodes × perNodeBytes`.
 * @throws FleetMemoryError when it exceeds `availableBytes`; the message gives the estimate, the
 *   room, and the most nodes that fit.
 */
export function checkFleetMemory(nodes: number, o: { readonly perNodeBytes?: number; readonly availableBytes?: number } = {}): { readonly estimateBytes: number; readonly availableBytes: number } {
  const perNode = o.perNodeBytes ?? hollowNodeMemoryBytes;
  const available = o.availableBytes ?? availableMemoryBytes();
  const estimateBytes = fleetBaseMemoryBytes + nodes * perNode;
  if (estimateBytes > available) {
    const fit = Math.max(0, Math.floor((available - fleetBaseMemoryBytes) / perNode));
    throw new FleetMemoryError(
      `fleet: ${nodes} hollow nodes need about ${gib(estimateBytes)} (${mib(fleetBaseMemoryBytes)} + ${mib(perNode)} per node), but this process can use ${gib(available)} ` +
        `(the smaller of V8's heap room and the machine's available memory); at most ${fit} nodes fit: run fewer, or raise node's --max-old-space-size`,
      estimateBytes,
      available,
    );
  }
  return { estimateBytes, availableBytes: available };
}

/**
 * Node (V8) flags the fleet process should run with: a young generation of 64 MiB per semi-space
 * instead of V8's 16 MiB. A busy fleet keeps thousands of requests and pod syncs in flight for
 * seconds; with the small young generation their objects outlive two scavenges, are promoted, and
 * are collected by full mark-compacts of a multi-GiB old space. Measured at 1,000 hollow nodes
 * (30,000-pod Job, first 240 s): the fleet's CPU per pod Succeeded 24.0 → 9.3 ms, pods/s 36.9 →
 * 89.1 (tools/fleet/README.md, session 16). Pass them before the script:
 * `node ${fleetNodeFlags.join(" ")} … tools/fleet/src/main.ts …`.
 */
export const fleetNodeFlags: readonly string[] = Object.freeze(["--max-semi-space-size=64"]);
