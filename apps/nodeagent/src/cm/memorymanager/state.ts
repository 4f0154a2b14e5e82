import { join } from "node:path";
import { CheckpointWriter, restoreCheckpoint } from "../checkpoint-file.js";

/** The memory manager's checkpoint file name under `--root-dir`. */
export const memoryManagerStateFileName = "memory_manager_state";

/**
 * One memory type of one NUMA node, in bytes: `total` (the node's memory, or its hugepages of
 * one size), `systemReserved` (`--reserved-memory`), `allocatable` (total − reserved − memory
 * taken by hugepages), `reserved` (given to containers) and `free` (allocatable − reserved).
 * @see pkg/kubelet/cm/memorymanager/state/state.go (MemoryTable) in kubernetes/kubernetes v1.23
 */
export interface MemoryTable {
  total: number;
  systemReserved: number;
  allocatable: number;
  reserved: number;
  free: number;
}

/**
 * One NUMA node's memory state: how many memory blocks use it, its memory tables by resource
 * name (`memory`, `hugepages-2Mi`...), and `cells`, the group of nodes it is allocated with
 * (itself alone when unused or used for single-node blocks).
 * @see pkg/kubelet/cm/memorymanager/state/state.go (NUMANodeState) in kubernetes/kubernetes v1.23
 */
export interface NUMANodeState {
  numberOfAssignments: number;
  memoryMap: Record<string, MemoryTable>;
  cells: number[];
}

/** NUMA node id → its state. */
export type NUMANodeMap = Map<number, NUMANodeState>;

/** A memory block given to a container: `size` bytes of `type` on the NUMA nodes `numaAffinity`. */
export interface MemoryBlock {
  numaAffinity: number[];
  type: string;
  size: number;
}

/** Pod UID → container name → its memory blocks. */
export type ContainerMemoryAssignments = Map<string, Map<string, MemoryBlock[]>>;

/** The checkpoint's content in memory. */
export interface MemoryManagerState {
  readonly policyName: string;
  readonly machineState: NUMANodeMap;
  readonly assignments: ContainerMemoryAssignments;
}

/** A deep copy of a machine state. */
export function cloneMachineState(m: NUMANodeMap): NUMANodeMap {
  const out: NUMANodeMap = new Map();
  for (const [id, n] of m) {
    const memoryMap: Record<string, MemoryTable> = {};
    for (const [k, t] of Object.entries(n.memoryMap)) memoryMap[k] = { ...t };
    out.set(id, { numberOfAssignments: n.numberOfAssignments, memoryMap, cells: [...n.cells] });
  }
  return out;
}

function cloneAssignments(a: ContainerMemoryAssignments): ContainerMemoryAssignments {
  return new Map([...a].map(([pod, cs]) => [pod, new Map([...cs].map(([c, blocks]) => [c, blocks.map((b) => ({ ...b, numaAffinity: [...b.numaAffinity] }))]))]));
}

function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(text, "utf8")) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

// The checkpoint as decoded JSON keeps null where Go would hold a nil map, slice or pointer.
interface RawCheckpoint {
  policyName: string;
  machineState: Record<string, RawNode | null> | null;
  entries: Record<string, Record<string, RawBlock[] | null>> | null;
}
interface RawNode {
  numberOfAssignments: number;
  memoryMap: Record<string, MemoryTable | null> | null;
  cells: number[] | null;
}
interface RawBlock {
  numaAffinity: number[] | null;
  type: string;
  size: number;
}

const ints = (l: number[] | null) => (l === null ? "<nil>" : `[${l.join(" ")}]`);

/**
 * The checksum 1.23 writes into `memory_manager_state`: FNV-32a of the go-spew `%#v` dump of the
 * checkpoint struct with `checksum` 0 (map keys sorted, map values' pointers as `<*>`).
 * @see pkg/kubelet/cm/memorymanager/state/checkpoint.go, pkg/kubelet/checkpointmanager/checksum/checksum.go in kubernetes/kubernetes v1.23
 */
export function memoryCheckpointChecksum(cp: RawCheckpoint): number {
  const table = (t: MemoryTable | null) =>
    t === null ? "<nil>" : `<*>{TotalMemSize:(uint64)${t.total} SystemReserved:(uint64)${t.systemReserved} Allocatable:(uint64)${t.allocatable} Reserved:(uint64)${t.reserved} Free:(uint64)${t.free}}`;
  const node = (n: RawNode | null) => {
    if (n === null) return "<nil>";
    const mm = n.memoryMap === null ? "<nil>" : `map[${Object.keys(n.memoryMap).sort(byteOrder).map((k) => `${k}:${table(n.memoryMap?.[k] ?? null)}`).join(" ")}]`;
    return `<*>{NumberOfAssignments:(int)${n.numberOfAssignments} MemoryMap:(map[v1.ResourceName]*state.MemoryTable)${mm} Cells:([]int)${ints(n.cells)}}`;
  };
  const ms = cp.machineState;
  const machine = ms === null ? "<nil>" : `map[${Object.keys(ms).map(Number).sort((a, b) => a - b).map((k) => `${k}:${node(ms[String(k)] ?? null)}`).join(" ")}]`;
  const block = (b: RawBlock) => `{NUMAAffinity:([]int)${ints(b.numaAffinity)} Type:(v1.ResourceName)${b.type} Size:(uint64)${b.size}}`;
  const e = cp.entries;
  const entries =
    e === null
      ? "<nil>"
      : `map[${Object.keys(e)
          .sort(byteOrder)
          .map((pod) => {
            const cs = e[pod] ?? {};
            return `${pod}:map[${Object.keys(cs).sort(byteOrder).map((c) => { const bl = cs[c] ?? null; return `${c}:${bl === null ? "<nil>" : `[${bl.map(block).join(" ")}]`}`; }).join(" ")}]`;
          })
          .join(" ")}]`;
  return fnv32a(`(*state.MemoryManagerCheckpoint){PolicyName:(string)${cp.policyName} MachineState:(state.NUMANodeMap)${machine} Entries:(state.ContainerMemoryAssignments)${entries} Checksum:(checksum.Checksum)0}`);
}

function toRaw(s: MemoryManagerState): RawCheckpoint {
  const machineState: Record<string, RawNode> = {};
  for (const [id, n] of [...s.machineState].sort(([a], [b]) => a - b)) {
    const memoryMap: Record<string, MemoryTable> = {};
    for (const k of Object.keys(n.memoryMap).sort(byteOrder)) {
      const t = n.memoryMap[k] as MemoryTable;
      memoryMap[k] = { total: t.total, systemReserved: t.systemReserved, allocatable: t.allocatable, reserved: t.reserved, free: t.free };
    }
    machineState[String(id)] = { numberOfAssignments: n.numberOfAssignments, memoryMap, cells: [...n.cells] };
  }
  const entries: Record<string, Record<string, RawBlock[]>> = {};
  for (const [pod, cs] of [...s.assignments].sort(([a], [b]) => byteOrder(a, b))) {
    const m: Record<string, RawBlock[]> = {};
    for (const [c, blocks] of [...cs].sort(([a], [b]) => byteOrder(a, b))) m[c] = blocks.map((b) => ({ numaAffinity: [...b.numaAffinity], type: b.type, size: b.size }));
    entries[pod] = m;
  }
  return { policyName: s.policyName, machineState, entries };
}

/**
 * The checkpoint text 1.23 writes (Go's `json.Marshal`: no spaces, `entries` omitted when empty).
 * @see pkg/kubelet/cm/memorymanager/state/state_checkpoint.go (storeState) in kubernetes/kubernetes v1.23
 */
export function encodeMemoryCheckpoint(s: MemoryManagerState): string {
  const raw = toRaw(s);
  const checksum = memoryCheckpointChecksum(raw);
  const entries = raw.entries ?? {};
  return JSON.stringify({ policyName: raw.policyName, machineState: raw.machineState, ...(Object.keys(entries).length > 0 ? { entries } : {}), checksum });
}

const goType = (what: string, type: string): Error => new Error(`json: cannot unmarshal ${what} into Go struct field MemoryManagerCheckpoint.${type}`);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isUint = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isIntList = (v: unknown): v is number[] | null => v === null || (Array.isArray(v) && v.every((x) => Number.isInteger(x)));

/**
 * Parses and verifies `memory_manager_state` text.
 * @throws Error `checkpoint is corrupted` (checksum mismatch, as 1.23: a 0 checksum is not
 *   accepted), `invalid JSON: ...`, or `json: cannot unmarshal ...` for a field of the wrong shape.
 */
export function decodeMemoryCheckpoint(text: string): MemoryManagerState {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (err) {
    throw new Error(`invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!isObj(o)) throw new Error("json: cannot unmarshal into Go value of type state.MemoryManagerCheckpoint");
  const policyName = o.policyName ?? "";
  if (typeof policyName !== "string") throw goType("policyName", "policyName of type string");
  const checksum = o.checksum ?? 0;
  if (!isUint(checksum)) throw goType("checksum", "checksum of type checksum.Checksum");
  let machineState: RawCheckpoint["machineState"] = {};
  if (o.machineState === null) machineState = null;
  else if (o.machineState !== undefined) {
    if (!isObj(o.machineState)) throw goType("machineState", "machineState of type state.NUMANodeMap");
    for (const [k, n] of Object.entries(o.machineState)) {
      if (!/^-?\d+$/.test(k)) throw goType("machineState", "machineState of type int");
      if (n === null) {
        machineState[k] = null;
        continue;
      }
      if (!isObj(n) || !isUint(n.numberOfAssignments ?? 0) || !isIntList(n.cells ?? null) || !(n.memoryMap === undefined || n.memoryMap === null || isObj(n.memoryMap))) {
        throw goType("machineState", "machineState of type state.NUMANodeState");
      }
      let memoryMap: Record<string, MemoryTable | null> | null = null;
      if (isObj(n.memoryMap)) {
        memoryMap = {};
        for (const [r, t] of Object.entries(n.memoryMap)) {
          if (t === null) {
            memoryMap[r] = null;
            continue;
          }
          if (!isObj(t) || !["total", "systemReserved", "allocatable", "reserved", "free"].every((f) => isUint(t[f] ?? 0))) throw goType("machineState", "memoryMap of type state.MemoryTable");
          memoryMap[r] = { total: Number(t.total ?? 0), systemReserved: Number(t.systemReserved ?? 0), allocatable: Number(t.allocatable ?? 0), reserved: Number(t.reserved ?? 0), free: Number(t.free ?? 0) };
        }
      }
      machineState[String(Number(k))] = { numberOfAssignments: Number(n.numberOfAssignments ?? 0), memoryMap, cells: (n.cells ?? null) as number[] | null };
    }
  }
  let entries: RawCheckpoint["entries"] = {};
  if (o.entries === null) entries = null;
  else if (o.entries !== undefined) {
    if (!isObj(o.entries)) throw goType("entries", "entries of type state.ContainerMemoryAssignments");
    for (const [pod, cs] of Object.entries(o.entries)) {
      if (!isObj(cs)) throw goType("entries", "entries of type map[string][]state.Block");
      const m: Record<string, RawBlock[] | null> = {};
      for (const [c, blocks] of Object.entries(cs)) {
        if (blocks === null) {
          m[c] = null;
          continue;
        }
        if (!Array.isArray(blocks) || !blocks.every((b) => isObj(b) && isIntList(b.numaAffinity ?? null) && typeof (b.type ?? "") === "string" && isUint(b.size ?? 0))) {
          throw goType("entries", "entries of type []state.Block");
        }
        m[c] = (blocks as Array<Record<string, unknown>>).map((b) => ({ numaAffinity: (b.numaAffinity ?? null) as number[] | null, type: String(b.type ?? ""), size: Number(b.size ?? 0) }));
      }
      entries[pod] = m;
    }
  }
  if (memoryCheckpointChecksum({ policyName, machineState, entries }) !== checksum) throw new Error("checkpoint is corrupted");
  const ms: NUMANodeMap = new Map();
  for (const [k, n] of Object.entries(machineState ?? {})) {
    if (n === null) continue;
    const memoryMap: Record<string, MemoryTable> = {};
    for (const [r, t] of Object.entries(n.memoryMap ?? {})) if (t !== null) memoryMap[r] = t;
    ms.set(Number(k), { numberOfAssignments: n.numberOfAssignments, memoryMap, cells: n.cells ?? [] });
  }
  const assignments: ContainerMemoryAssignments = new Map();
  for (const [pod, cs] of Object.entries(entries ?? {})) {
    assignments.set(pod, new Map(Object.entries(cs).map(([c, blocks]) => [c, (blocks ?? []).map((b) => ({ numaAffinity: b.numaAffinity ?? [], type: b.type, size: b.size }))])));
  }
  return { policyName, machineState: ms, assignments };
}

/**
 * The memory manager's state backed by the `memory_manager_state` checkpoint: every change is
 * written through (atomically: temp file + rename, mode 0644).
 * @see pkg/kubelet/cm/memorymanager/state/state_checkpoint.go in kubernetes/kubernetes v1.23
 */
export class MemoryCheckpointState {
  readonly path: string;
  readonly policyName: string;
  #machineState: NUMANodeMap = new Map();
  #assignments: ContainerMemoryAssignments = new Map();

  readonly #writer: CheckpointWriter;

  private constructor(path: string, policyName: string) {
    this.path = path;
    this.policyName = policyName;
    this.#writer = new CheckpointWriter(path, () => encodeMemoryCheckpoint({ policyName: this.policyName, machineState: this.#machineState, assignments: this.#assignments }));
  }

  /**
   * Restores the state from `<stateDir>/memory_manager_state`, or creates the file when missing.
   * @throws Error `could not restore state from checkpoint: <why>, please drain this node and
   *   delete the memory manager checkpoint file "<path>" before restarting Nodeagent` when the
   *   file is corrupt or was written by another policy (`[memorymanager] configured policy
   *   "Static" differs from state checkpoint policy "None"`).
   */
  static open(stateDir: string, policyName: string): MemoryCheckpointState {
    const s = new MemoryCheckpointState(join(stateDir, memoryManagerStateFileName), policyName);
    const r = restoreCheckpoint({ path: s.path, policyName, managerName: "memory manager", policyMismatchPrefix: "[memorymanager] ", decode: decodeMemoryCheckpoint });
    if (r === undefined) {
      s.#store();
      return s;
    }
    s.#machineState = r.machineState;
    s.#assignments = r.assignments;
    return s;
  }

  #store(): void {
    this.#writer.store();
  }

  /**
   * Runs `fn` (a run of changes of one manager operation) and writes the checkpoint once at its
   * end when anything changed, instead of at every change (see {@link CheckpointWriter.batch}).
   */
  batch<T>(fn: () => T): T {
    return this.#writer.batch(fn);
  }



  /** A copy of the machine state. */
  get machineState(): NUMANodeMap {
    return cloneMachineState(this.#machineState);
  }
  /** A copy of the memory assignments. */
  get assignments(): ContainerMemoryAssignments {
    return cloneAssignments(this.#assignments);
  }
  /** The memory blocks of one container (a copy), if any. */
  memoryBlocks(podUID: string, containerName: string): MemoryBlock[] | undefined {
    const b = this.#assignments.get(podUID)?.get(containerName);
    return b?.map((x) => ({ ...x, numaAffinity: [...x.numaAffinity] }));
  }
  setMachineState(m: NUMANodeMap): void {
    this.#machineState = cloneMachineState(m);
    this.#store();
  }
  setMemoryBlocks(podUID: string, containerName: string, blocks: MemoryBlock[]): void {
    const m = this.#assignments.get(podUID) ?? new Map<string, MemoryBlock[]>();
    m.set(containerName, blocks.map((b) => ({ ...b, numaAffinity: [...b.numaAffinity] })));
    this.#assignments.set(podUID, m);
    this.#store();
  }
  delete(podUID: string, containerName: string): void {
    const m = this.#assignments.get(podUID);
    if (!m) return;
    m.delete(containerName);
    if (m.size === 0) this.#assignments.delete(podUID);
    this.#store();
  }
}
