import type { Container, Pod } from "@skiff/api-types";
import { formatQuantity, newMilliQuantity, newQuantity, parseQuantity, quantityMilliValue, type QuantityFormat } from "@skiff/flags";
import { podQOSClass } from "../../pods/resources.js";
import { bitCount, numaMasks, type ResourceAdmitFailure, type TopologyHint } from "../cpumanager/index.js";
import { discoverNUMAMemory, type NUMANodeMemory } from "./numa.js";
import { MemoryCheckpointState, type MemoryBlock, type NUMANodeMap } from "./state.js";

/** One `--reserved-memory` entry: a NUMA node and the memory reserved on it by type. */
export interface MemoryReservation {
  readonly numaNode: number;
  readonly limits: Readonly<Record<string, string>>;
}

/** What {@link MemoryManager.start} reads (flag names in the docs). */
export interface MemoryManagerOptions {
  /** `--memory-manager-policy`: `None` or `Static`. */
  readonly policy: string;
  /** `--reserved-memory`. */
  readonly reservedMemory: readonly MemoryReservation[];
  /**
   * The node allocatable reservation of the memory types (`memory`, `hugepages-<size>`): the
   * quantity texts that add up to it, in order (system reserved, cluster reserved, the hard
   * eviction threshold in bytes).
   */
  readonly nodeAllocatableReservation: Readonly<Record<string, readonly string[]>>;
  /** Where `memory_manager_state` lives (`--root-dir`). */
  readonly stateDir: string;
  /** The NUMA nodes' memory; read from {@link sysfsRoot} when absent. */
  readonly numaNodes?: readonly NUMANodeMemory[];
  /** sysfs root (tests point it at a prepared tree). @defaultValue `/sys` */
  readonly sysfsRoot?: string;
  /** The machine's memory in bytes (node 0 when sysfs has no NUMA nodes). */
  readonly machineMemoryBytes: number;
  /** Log sink; level 0 is info. */
  readonly log?: (message: string, level?: number) => void;
}

/** A failure of the memory manager's start (its state file), which 1.23 reports as `start memory manager error: <why>`. */
export class MemoryManagerStateError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "MemoryManagerStateError";
  }
}

/** The affinity the topology manager hands the memory manager: undefined with topology policy none. */
export interface MemoryAffinity {
  readonly numaNodeAffinity: number | undefined;
  readonly preferred: boolean;
}

/** The resource name of hugepages of `pageSizeKiB` (`hugepages-2Mi`), as 1.23's HugePageResourceName. */
export function hugePageResourceName(pageSizeKiB: number): string {
  return `hugepages-${formatQuantity(newQuantity(BigInt(pageSizeKiB) * 1024n, "BinarySI"))}`;
}

const isMemoryType = (name: string) => name === "memory" || name.startsWith("hugepages-");

interface QuantitySum {
  milli: bigint;
  format: QuantityFormat;
}

// resource.Quantity.Add as 1.23 uses it: a zero quantity takes the format of what is added.
function addQuantity(sum: QuantitySum | undefined, text: string, keepFirst: boolean): QuantitySum | undefined {
  const q = parseQuantity(text);
  if (!q.ok) return sum;
  const milli = quantityMilliValue(q.value);
  if (!sum) return { milli, format: q.value.format };
  const format = sum.milli === 0n || !keepFirst ? q.value.format : sum.format;
  return { milli: sum.milli + milli, format: milli === 0n && sum.milli !== 0n ? sum.format : format };
}

const quantityText = (s: QuantitySum | undefined) => (s === undefined ? "0" : formatQuantity(newMilliQuantity(s.milli, s.format)));

/**
 * Checks `--reserved-memory` as 1.23: every NUMA node named exists, and for each memory type
 * named there or in the node allocatable reservation the sum over the NUMA nodes equals the
 * reservation (system + cluster reserved + hard eviction). Returns the reserved bytes per NUMA
 * node and type.
 * @throws Error `the reserved memory configuration references a NUMA node 3 that does not exist on
 *   this machine`, `the total amount "1Gi" of type "memory" is not equal to the value "100Mi"
 *   determined by Node Allocatable feature`.
 * @see pkg/kubelet/cm/memorymanager/memory_manager.go (validateReservedMemory, getSystemReservedMemory) in kubernetes/kubernetes v1.23
 */
export function systemReservedMemory(nodes: readonly NUMANodeMemory[], nodeAllocatableReservation: Readonly<Record<string, readonly string[]>>, reserved: readonly MemoryReservation[]): Map<number, Map<string, number>> {
  const ids = new Set(nodes.map((n) => n.id));
  const totals = new Map<string, QuantitySum | undefined>();
  for (const r of reserved) {
    if (!ids.has(r.numaNode)) throw new Error(`the reserved memory configuration references a NUMA node ${r.numaNode} that does not exist on this machine`);
    for (const [name, v] of Object.entries(r.limits)) totals.set(name, addQuantity(totals.get(name), v, false));
  }
  const types = new Set(totals.keys());
  for (const name of Object.keys(nodeAllocatableReservation)) if (isMemoryType(name)) types.add(name);
  for (const name of [...types].sort()) {
    let allocatable: QuantitySum | undefined;
    for (const v of nodeAllocatableReservation[name] ?? []) allocatable = addQuantity(allocatable, v, true);
    const total = totals.get(name);
    if ((allocatable?.milli ?? 0n) !== (total?.milli ?? 0n)) {
      throw new Error(`the total amount ${JSON.stringify(quantityText(total))} of type ${JSON.stringify(name)} is not equal to the value ${JSON.stringify(quantityText(allocatable))} determined by Node Allocatable feature`);
    }
  }
  const out = new Map<number, Map<string, number>>();
  for (const n of nodes) out.set(n.id, new Map());
  for (const r of reserved) {
    const m = out.get(r.numaNode) as Map<string, number>;
    for (const [name, v] of Object.entries(r.limits)) {
      const q = parseQuantity(v);
      if (q.ok) m.set(name, Number(quantityMilliValue(q.value) / 1000n));
    }
  }
  return out;
}

// The memory and hugepages requests of a container, in bytes (getRequestedResources).
function requestedResources(c: Container): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, v] of Object.entries(c.resources?.requests ?? {})) {
    if (!isMemoryType(name)) continue;
    const q = parseQuantity(String(v));
    if (!q.ok) throw new Error("[memorymanager] failed to represent quantity as int64");
    out.set(name, Number(quantityMilliValue(q.value) / 1000n));
  }
  return out;
}

// getPodRequestedResources: per type, the larger of the biggest init container and the app containers' sum.
function podRequestedResources(pod: Pod): Map<string, number> {
  const init = new Map<string, number>();
  for (const c of pod.spec?.initContainers ?? []) for (const [k, v] of requestedResources(c)) init.set(k, Math.max(init.get(k) ?? 0, v));
  const app = new Map<string, number>();
  for (const c of pod.spec?.containers ?? []) for (const [k, v] of requestedResources(c)) app.set(k, (app.get(k) ?? 0) + v);
  const out = new Map(app);
  for (const [k, v] of init) if (v > (out.get(k) ?? 0)) out.set(k, v);
  return out;
}

const bitsOf = (mask: number): number[] => {
  const out: number[] = [];
  for (let i = 0; i < 31; i++) if ((mask & (1 << i)) !== 0) out.push(i);
  return out;
};
const maskOf = (bits: readonly number[]): number => bits.reduce((m, b) => m | (1 << b), 0);
const sameGroup = (a: readonly number[], b: readonly number[]) => a.length === b.length && [...a].sort((x, y) => x - y).every((v, i) => v === [...b].sort((x, y) => x - y)[i]);
const isNarrower = (a: number, b: number) => (bitCount(a) === bitCount(b) ? a < b : bitCount(a) < bitCount(b));

// findBestHint: preferred over not, then the narrowest.
function findBestHint(hints: readonly TopologyHint[]): TopologyHint | undefined {
  let best: TopologyHint | undefined;
  for (const h of hints) {
    if (!best) best = h;
    else if (h.preferred && !best.preferred) best = h;
    else if (h.preferred === best.preferred && isNarrower(h.numaNodeAffinity ?? 0, best.numaNodeAffinity ?? 0)) best = h;
  }
  return best;
}

/**
 * The node agent's memory manager. Policy `None`: nothing is pinned and the state file only
 * records the policy. Policy `Static`: each NUMA node's memory and hugepages (from sysfs) minus
 * `--reserved-memory` is allocatable; containers of Guaranteed pods get memory blocks on the NUMA
 * nodes the topology manager's merged affinity names (extended to more nodes when it cannot hold
 * the request), are created with CRI `cpuset_mems` of those nodes, and give them back when their
 * pod goes. Its NUMA hints (every node mask with enough free memory of each requested type,
 * preferred when as narrow as the narrowest that could hold it; nodes grouped for a multi-node
 * block are only offered in that group) are merged with the CPU manager's by the topology
 * manager. Init containers run one at a time before the app containers, so what they were given
 * is reused by the pod's later containers on the same NUMA nodes (the state then shows the init
 * containers' blocks reduced by what was reused, so a pod's blocks add up to what it holds).
 * Every change is written to `<root-dir>/memory_manager_state` in 1.23's format.
 *
 * @see pkg/kubelet/cm/memorymanager/memory_manager.go, policy_static.go, policy_none.go in kubernetes/kubernetes v1.23
 */
export class MemoryManager {
  readonly policy: "None" | "Static";
  readonly #nodes: readonly NUMANodeMemory[];
  readonly #reserved: Map<number, Map<string, number>>;
  readonly #state: MemoryCheckpointState;
  readonly #log: (message: string, level?: number) => void;
  /**
   * initContainersReusableMemory: pod UID → NUMA mask → type → bytes the pod's init containers
   * hold that its later containers may reuse (only the pod being allocated is kept).
   */
  readonly #reusable = new Map<string, Map<number, Map<string, number>>>();

  private constructor(policy: "None" | "Static", nodes: readonly NUMANodeMemory[], reserved: Map<number, Map<string, number>>, state: MemoryCheckpointState, log: (m: string, l?: number) => void) {
    this.policy = policy;
    this.#nodes = nodes;
    this.#reserved = reserved;
    this.#state = state;
    this.#log = log;
  }

  /**
   * Builds the policy, restores (or creates) the state file and validates it against the machine.
   * @throws Error with 1.23's words: `unknown policy: "x"`, the {@link systemReservedMemory}
   *   errors, `[memorymanager] you should specify the system reserved memory`, `could not restore
   *   state from checkpoint: ...` (names the file), `[memorymanager] the expected machine state is
   *   different from the real one` and the other state validation errors; the state errors are
   *   {@link MemoryManagerStateError}s, which the caller prefixes `start memory manager error: `.
   */
  static start(o: MemoryManagerOptions): MemoryManager {
    const log = o.log ?? (() => {});
    const open = (policy: string) => {
      try {
        return MemoryCheckpointState.open(o.stateDir, policy);
      } catch (err) {
        throw new MemoryManagerStateError((err as Error).message, { cause: err });
      }
    };
    if (o.policy === "None") return new MemoryManager("None", [], new Map(), open("None"), log);
    if (o.policy !== "Static") throw new Error(`unknown policy: "${o.policy}"`);
    const nodes = o.numaNodes ?? discoverNUMAMemory(o.sysfsRoot ?? "/sys", o.machineMemoryBytes);
    const reserved = systemReservedMemory(nodes, o.nodeAllocatableReservation, o.reservedMemory);
    let total = 0;
    for (const m of reserved.values()) total += m.get("memory") ?? 0;
    if (total <= 0) throw new Error("[memorymanager] you should specify the system reserved memory");
    const mm = new MemoryManager("Static", nodes, reserved, open("Static"), log);
    try {
      mm.#validateState();
    } catch (err) {
      throw new MemoryManagerStateError((err as Error).message, { cause: err });
    }
    log(`Memory manager: Static policy on NUMA nodes ${nodes.map((n) => n.id).join(",")}`);
    return mm;
  }

  /** The state file's path. */
  get stateFile(): string {
    return this.#state.path;
  }
  /** A copy of the machine state. */
  get machineState(): NUMANodeMap {
    return this.#state.machineState;
  }
  /** A copy of the assignments (pod UID → container → blocks). */
  get assignments(): Map<string, Map<string, MemoryBlock[]>> {
    return this.#state.assignments;
  }

  // getDefaultMachineState
  #defaultMachineState(): NUMANodeMap {
    const out: NUMANodeMap = new Map();
    for (const n of this.#nodes) {
      const memoryMap: Record<string, { total: number; systemReserved: number; allocatable: number; reserved: number; free: number }> = {};
      const reserved = this.#reserved.get(n.id) ?? new Map<string, number>();
      let inHugePages = 0;
      for (const h of n.hugePages) {
        const name = hugePageResourceName(h.pageSizeKiB);
        const total = h.numPages * h.pageSizeKiB * 1024;
        const systemReserved = reserved.get(name) ?? 0;
        memoryMap[name] = { total, systemReserved, allocatable: total - systemReserved, reserved: 0, free: total - systemReserved };
        inHugePages += total;
      }
      const systemReserved = reserved.get("memory") ?? 0;
      const allocatable = n.memoryBytes - systemReserved - inHugePages;
      memoryMap.memory = { total: n.memoryBytes, systemReserved, allocatable, reserved: 0, free: allocatable };
      out.set(n.id, { numberOfAssignments: 0, memoryMap, cells: [n.id] });
    }
    return out;
  }

  // staticPolicy.validateState
  #validateState(): void {
    const machine = this.#state.machineState;
    const assignments = this.#state.assignments;
    if (machine.size === 0) {
      if (assignments.size > 0) throw new Error("[memorymanager] machine state can not be empty when it has memory assignments");
      this.#state.setMachineState(this.#defaultMachineState());
      return;
    }
    const expected = this.#defaultMachineState();
    for (const [pod, cs] of assignments) {
      for (const [name, blocks] of cs) {
        for (const b of blocks) {
          let size = b.size;
          for (const id of b.numaAffinity) {
            const node = expected.get(id);
            if (!node) throw new Error(`[memorymanager] (pod: ${pod}, container: ${name}) the memory assignment uses the NUMA that does not exist`);
            node.numberOfAssignments++;
            node.cells = [...b.numaAffinity];
            const t = node.memoryMap[b.type];
            if (!t) throw new Error(`[memorymanager] (pod: ${pod}, container: ${name}) the memory assignment uses memory resource that does not exist`);
            if (size === 0 || t.free <= 0) continue;
            const take = Math.min(size, t.free);
            t.reserved += take;
            t.free -= take;
            size -= take;
          }
        }
      }
    }
    if (!machineStatesEqual(machine, expected)) throw new Error("[memorymanager] the expected machine state is different from the real one");
  }

  // calculateHints
  #calculateHints(machine: NUMANodeMap, uid: string, requested: ReadonlyMap<string, number>): Map<string, TopologyHint[]> {
    const ids = [...machine.keys()].sort((a, b) => a - b);
    let minAffinitySize = ids.length;
    const hints = new Map<string, TopologyHint[]>();
    for (const mask of numaMasks(ids)) {
      const bits = bitsOf(mask);
      const single = bits.length === 1;
      const free = new Map<string, number>();
      const allocatable = new Map<string, number>();
      for (const id of bits) {
        for (const name of requested.keys()) {
          const t = machine.get(id)?.memoryMap[name];
          free.set(name, (free.get(name) ?? 0) + (t?.free ?? 0));
          allocatable.set(name, (allocatable.get(name) ?? 0) + (t?.allocatable ?? 0));
        }
      }
      if ([...requested].some(([name, size]) => (allocatable.get(name) ?? 0) < size)) continue;
      if (bits.length < minAffinitySize) minAffinitySize = bits.length;
      if (single && (machine.get(bits[0] as number)?.cells.length ?? 1) > 1) continue;
      const blocked = bits.some((id) => {
        const n = machine.get(id);
        if (single || !n || n.numberOfAssignments === 0) return false;
        return n.cells.length === 1 || !sameGroup(n.cells, bits);
      });
      if (blocked) continue;
      // What the pod's init containers hold on these nodes counts as free for it (getPodReusableMemory).
      const reusable = this.#reusable.get(uid)?.get(mask);
      if ([...requested].some(([name, size]) => (free.get(name) ?? 0) + (reusable?.get(name) ?? 0) < size)) continue;
      for (const name of requested.keys()) hints.set(name, [...(hints.get(name) ?? []), { numaNodeAffinity: mask, preferred: false }]);
    }
    for (const [name, list] of hints) hints.set(name, list.map((h) => ({ ...h, preferred: bitCount(h.numaNodeAffinity ?? 0) === minAffinitySize })));
    return hints;
  }

  // regenerateHints: a container that already has blocks gets them back as its only, preferred hints.
  #regenerateHints(c: Container, blocks: readonly MemoryBlock[], requested: ReadonlyMap<string, number>): Map<string, TopologyHint[]> | undefined {
    if (blocks.length !== requested.size) {
      this.#log(`The number of requested resources by the container ${c.name} differs from the number of memory blocks`);
      return undefined;
    }
    const hints = new Map<string, TopologyHint[]>([...requested.keys()].map((k) => [k, []]));
    for (const b of blocks) {
      if (requested.get(b.type) !== b.size) {
        this.#log(`Memory already allocated to container ${c.name} with different numbers than requested (${b.type})`);
        return undefined;
      }
      hints.get(b.type)?.push({ numaNodeAffinity: maskOf(b.numaAffinity), preferred: true });
    }
    return hints;
  }

  /**
   * The memory manager's NUMA hints for one container, by resource (`memory`, `hugepages-*`):
   * undefined with policy None or for pods that are not Guaranteed; an empty map (no
   * preference, as 1.23) when no node mask can hold the request.
   * @see pkg/kubelet/cm/memorymanager/policy_static.go (GetTopologyHints) in kubernetes/kubernetes v1.23
   */
  topologyHints(pod: Pod, c: Container): Map<string, TopologyHint[]> | undefined {
    if (this.policy === "None" || podQOSClass(pod) !== "Guaranteed") return undefined;
    let requested: Map<string, number>;
    try {
      requested = requestedResources(c);
    } catch {
      return undefined;
    }
    const blocks = this.#state.memoryBlocks(pod.metadata?.uid ?? "", c.name);
    if (blocks) return this.#regenerateHints(c, blocks, requested);
    return this.#calculateHints(this.#state.machineState, pod.metadata?.uid ?? "", requested);
  }

  /**
   * The memory manager's NUMA hints for a whole pod (topology manager scope `pod`).
   * @see pkg/kubelet/cm/memorymanager/policy_static.go (GetPodTopologyHints) in kubernetes/kubernetes v1.23
   */
  podTopologyHints(pod: Pod): Map<string, TopologyHint[]> | undefined {
    if (this.policy === "None" || podQOSClass(pod) !== "Guaranteed") return undefined;
    let requested: Map<string, number>;
    try {
      requested = podRequestedResources(pod);
    } catch {
      return undefined;
    }
    for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      const blocks = this.#state.memoryBlocks(pod.metadata?.uid ?? "", c.name);
      if (blocks) return this.#regenerateHints(c, blocks, requested);
    }
    return this.#calculateHints(this.#state.machineState, pod.metadata?.uid ?? "", requested);
  }

  /**
   * Gives one container of a Guaranteed pod its memory blocks (no-op otherwise, or when it has
   * them already) on the NUMA nodes of `affinity` (without one: the best hint this manager would
   * give), extended to a wider preferred mask when those nodes cannot hold the request.
   * @throws Error `[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with
   *   enough memory is available`, `[memorymanager] failed to find NUMA nodes to extend the
   *   current topology hint` (1.23's words; the topology manager turns them into
   *   `UnexpectedAdmissionError`).
   * @see pkg/kubelet/cm/memorymanager/policy_static.go (Allocate) in kubernetes/kubernetes v1.23
   */
  allocate(pod: Pod, c: Container, affinity?: MemoryAffinity): void {
    this.#state.batch(() => {
      if (this.policy === "None" || podQOSClass(pod) !== "Guaranteed") return;
      const uid = pod.metadata?.uid ?? "";
      const existing = this.#state.memoryBlocks(uid, c.name);
      if (existing) {
        this.#updatePodReusableMemory(pod, c, existing);
        return;
      }
      const requested = requestedResources(c);
      if (requested.size === 0) return;
      const machine = this.#state.machineState;
      let best: MemoryAffinity = affinity ?? { numaNodeAffinity: undefined, preferred: false };
      if (best.numaNodeAffinity === undefined) {
        const hints = this.#calculateHints(machine, uid, requested);
        const def = findBestHint(hints.get("memory") ?? [...hints.values()][0] ?? []);
        if (!def) throw new Error("[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available");
        if (!def.preferred && best.preferred) throw new Error("[memorymanager] failed to find the default preferred hint");
        best = def;
      }
      if (!satisfies(machine, best.numaNodeAffinity ?? 0, requested)) {
        const current = bitsOf(best.numaNodeAffinity ?? 0);
        const hints = this.#calculateHints(machine, uid, requested);
        const inGroup = (hints.get("memory") ?? [...hints.values()][0] ?? []).filter((h) => current.every((b) => ((h.numaNodeAffinity ?? 0) & (1 << b)) !== 0));
        const extended = findBestHint(inGroup);
        if (!extended) throw new Error("[memorymanager] failed to find NUMA nodes to extend the current topology hint");
        if (!extended.preferred && best.preferred) throw new Error("[memorymanager] failed to find the extended preferred hint");
        best = extended;
      }
      const mask = best.numaNodeAffinity ?? 0;
      const bits = bitsOf(mask);
      const blocks: MemoryBlock[] = [];
      for (const [type, size] of requested) {
        blocks.push({ numaAffinity: bits, type, size });
        // What the pod's earlier init containers hold on the same nodes is reused, not reserved again.
        const reusable = this.#reusable.get(uid)?.get(mask)?.get(type) ?? 0;
        updateMachineState(machine, bits, type, reusable >= size ? 0 : size - reusable);
      }
      this.#updatePodReusableMemory(pod, c, blocks);
      this.#state.setMachineState(machine);
      this.#state.setMemoryBlocks(uid, c.name, blocks);
      this.#updateInitContainersMemoryBlocks(pod, c, blocks);
      this.#log(`Static policy: allocated memory on NUMA nodes ${bits.join(",")} to container ${c.name} of pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`);
    });
  }

  // updatePodReusableMemory: an init container's blocks become reusable (the largest per mask and
  // type); an app container's blocks use that up. Entries of other pods are dropped.
  #updatePodReusableMemory(pod: Pod, c: Container, blocks: readonly MemoryBlock[]): void {
    const uid = pod.metadata?.uid ?? "";
    for (const other of this.#reusable.keys()) if (other !== uid) this.#reusable.delete(other);
    const isInit = (pod.spec?.initContainers ?? []).some((ic) => ic.name === c.name);
    if (isInit) {
      const byMask = this.#reusable.get(uid) ?? new Map<number, Map<string, number>>();
      this.#reusable.set(uid, byMask);
      for (const b of blocks) {
        const mask = maskOf(b.numaAffinity);
        const byType = byMask.get(mask) ?? new Map<string, number>();
        byMask.set(mask, byType);
        if (b.size > (byType.get(b.type) ?? 0)) byType.set(b.type, b.size);
      }
      return;
    }
    for (const b of blocks) {
      const byType = this.#reusable.get(uid)?.get(maskOf(b.numaAffinity));
      const reusable = byType?.get(b.type) ?? 0;
      if (byType && reusable !== 0) byType.set(b.type, b.size >= reusable ? 0 : reusable - b.size);
    }
  }

  // updateInitContainersMemoryBlocks: the init containers before `c` give up, in the state, the
  // size `c` reused from them, so the pod's blocks add up to what it holds on the machine.
  #updateInitContainersMemoryBlocks(pod: Pod, c: Container, blocks: readonly MemoryBlock[]): void {
    const uid = pod.metadata?.uid ?? "";
    for (const block of blocks) {
      let size = block.size;
      for (const ic of pod.spec?.initContainers ?? []) {
        if (ic.name === c.name || size === 0) break;
        const icBlocks = this.#state.memoryBlocks(uid, ic.name);
        if (!icBlocks || icBlocks.length === 0) continue;
        for (const b of icBlocks) {
          if (b.size === 0 || b.type !== block.type || maskOf(b.numaAffinity) !== maskOf(block.numaAffinity)) continue;
          const take = Math.min(b.size, size);
          b.size -= take;
          size -= take;
        }
        this.#state.setMemoryBlocks(uid, ic.name, icBlocks);
      }
    }
  }

  /**
   * Runs `fn` with the state's checkpoint written once at its end (when anything changed)
   * instead of at every change; the file ends the same.
   */
  batch<T>(fn: () => T): T {
    return this.#state.batch(fn);
  }

  /** The admission failure of an {@link allocate} error, as 1.23's GetPodAdmitResult. */
  admitFailureOf(err: unknown): ResourceAdmitFailure {
    const why = err instanceof Error ? err.message : String(err);
    return { reason: "UnexpectedAdmissionError", message: `Allocate failed due to ${why}, which is unexpected` };
  }

  /** The containers of the pod with `uid` that hold memory blocks (to roll back to). */
  containersOf(uid: string): Set<string> {
    return new Set(this.#state.assignments.get(uid)?.keys() ?? []);
  }

  /** Releases what {@link allocate} gave the pod's containers beyond `before`. */
  rollBack(pod: Pod, before: ReadonlySet<string>): void {
    this.#state.batch(() => {
      const uid = pod.metadata?.uid ?? "";
      this.#reusable.delete(uid);
      for (const name of this.containersOf(uid)) if (!before.has(name)) this.#removeContainer(uid, name);
    });
  }

  // staticPolicy.RemoveContainer
  #removeContainer(uid: string, name: string): void {
    const blocks = this.#state.memoryBlocks(uid, name);
    if (!blocks) return;
    this.#state.delete(uid, name);
    const machine = this.#state.machineState;
    for (const b of blocks) {
      let size = b.size;
      for (const id of b.numaAffinity) {
        const node = machine.get(id);
        if (!node) continue;
        node.numberOfAssignments--;
        if (node.numberOfAssignments === 0) node.cells = [id];
        const t = node.memoryMap[b.type];
        if (size === 0 || !t || t.reserved === 0) continue;
        const give = Math.min(size, t.reserved);
        t.free += give;
        t.reserved -= give;
        size -= give;
      }
    }
    this.#state.setMachineState(machine);
    this.#log(`Static policy: released memory of container ${name} of pod ${uid}`);
  }

  /** Releases every memory block of the pod with `uid` (it finished or was removed). */
  removePod(uid: string): void {
    this.#state.batch(() => {
      if (this.policy === "None") return;
      this.#reusable.delete(uid);
      for (const name of this.containersOf(uid)) this.#removeContainer(uid, name);
    });
  }

  /** Releases the blocks of containers whose pod is not in `activePods`, as 1.23's removeStaleState. */
  removeStaleState(activePods: readonly Pod[]): void {
    this.#state.batch(() => {
      if (this.policy === "None") return;
      const active = new Map(activePods.map((p) => [p.metadata?.uid ?? "", new Set([...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? [])].map((c) => c.name))]));
      for (const [pod, cs] of this.#state.assignments) {
        for (const name of cs.keys()) {
          if (active.get(pod)?.has(name)) continue;
          this.#log(`RemoveStaleState: removing container ${name} of pod ${pod}`);
          this.#removeContainer(pod, name);
        }
      }
    });
  }

  /**
   * The NUMA nodes a container is created with (CRI `cpuset_mems`, `0,1`): those of its memory
   * blocks; undefined when it has none.
   * @see pkg/kubelet/cm/memorymanager/memory_manager.go (GetMemoryNUMANodes), internal_container_lifecycle_linux.go in kubernetes/kubernetes v1.23
   */
  containerMemoryNodes(pod: Pod, c: Container): string | undefined {
    if (this.policy === "None") return undefined;
    const nodes = new Set<number>();
    for (const b of this.#state.memoryBlocks(pod.metadata?.uid ?? "", c.name) ?? []) for (const id of b.numaAffinity) nodes.add(id);
    return nodes.size === 0 ? undefined : [...nodes].sort((a, b) => a - b).join(",");
  }
}

// isAffinitySatisfyRequest
function satisfies(machine: NUMANodeMap, mask: number, requested: ReadonlyMap<string, number>): boolean {
  const bits = bitsOf(mask);
  return [...requested].every(([name, size]) => bits.reduce((sum, id) => sum + (machine.get(id)?.memoryMap[name]?.free ?? 0), 0) >= size);
}

// updateMachineState: takes `size` from the nodes in order; every node counts the assignment.
function updateMachineState(machine: NUMANodeMap, bits: readonly number[], type: string, size: number): void {
  let left = size;
  for (const id of bits) {
    const node = machine.get(id);
    if (!node) continue;
    node.numberOfAssignments++;
    node.cells = [...bits];
    const t = node.memoryMap[type];
    if (left === 0 || !t || t.free <= 0) continue;
    const take = Math.min(left, t.free);
    t.reserved += take;
    t.free -= take;
    left -= take;
  }
}

// areMachineStatesEqual
function machineStatesEqual(a: NUMANodeMap, b: NUMANodeMap): boolean {
  if (a.size !== b.size) return false;
  for (const [id, x] of a) {
    const y = b.get(id);
    if (!y || x.numberOfAssignments !== y.numberOfAssignments || !sameGroup(x.cells, y.cells)) return false;
    const kx = Object.keys(x.memoryMap);
    if (kx.length !== Object.keys(y.memoryMap).length) return false;
    for (const k of kx) {
      const tx = x.memoryMap[k];
      const ty = y.memoryMap[k];
      if (!tx || !ty || tx.total !== ty.total || tx.systemReserved !== ty.systemReserved || tx.allocatable !== ty.allocatable || tx.reserved !== ty.reserved || tx.free !== ty.free) return false;
    }
  }
  return true;
}

