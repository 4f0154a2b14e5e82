import { join } from "node:path";
import { CheckpointWriter, restoreCheckpoint } from "../checkpoint-file.js";
import { formatCPUSet, parseCPUSet, type CPUSet } from "./cpuset.js";

/** The CPU manager's checkpoint file name under `--root-dir`. */
export const cpuManagerStateFileName = "cpu_manager_state";

/** Exclusive CPU assignments: pod UID → container name → CPUs. */
export type ContainerCPUAssignments = Map<string, Map<string, CPUSet>>;

/** The checkpoint's JSON (v2 format). */
export interface CPUManagerCheckpoint {
  policyName: string;
  defaultCPUSet: string;
  entries?: Record<string, Record<string, string>> | null;
  checksum: number;
}

function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(text, "utf8")) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function sortedKeys(o: Record<string, unknown>): string[] {
  // Go's spew sorts string keys by byte order.
  return Object.keys(o).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * The checksum 1.23 writes into `cpu_manager_state`: FNV-32a of the go-spew `%#v` dump of the
 * checkpoint struct with `checksum` 0 (`(*state.CPUManagerCheckpoint){PolicyName:(string)none ...}`).
 * @see pkg/kubelet/cm/cpumanager/state/checkpoint.go, pkg/kubelet/checkpointmanager/checksum/checksum.go in kubernetes/kubernetes v1.23
 */
export function checkpointChecksum(cp: Pick<CPUManagerCheckpoint, "policyName" | "defaultCPUSet" | "entries">): number {
  const entries = cp.entries;
  const inner = (m: Record<string, string>) => `map[${sortedKeys(m).map((k) => `${k}:${m[k] ?? ""}`).join(" ")}]`;
  const outer = entries === null || entries === undefined ? "<nil>" : `map[${sortedKeys(entries).map((k) => `${k}:${inner(entries[k] ?? {})}`).join(" ")}]`;
  return fnv32a(`(*state.CPUManagerCheckpoint){PolicyName:(string)${cp.policyName} DefaultCPUSet:(string)${cp.defaultCPUSet} Entries:(map[string]map[string]string)${outer} Checksum:(checksum.Checksum)0}`);
}

/** The checkpoint's content in memory. */
export interface CPUManagerState {
  readonly policyName: string;
  readonly defaultCPUSet: CPUSet;
  readonly assignments: ContainerCPUAssignments;
}

/**
 * The checkpoint text 1.23 writes (Go's `json.Marshal`: no spaces, `entries` omitted when empty).
 * @see pkg/kubelet/cm/cpumanager/state/state_checkpoint.go (storeState) in kubernetes/kubernetes v1.23
 */
export function encodeCheckpoint(s: CPUManagerState): string {
  const entries: Record<string, Record<string, string>> = {};
  for (const [pod, containers] of [...s.assignments].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const m: Record<string, string> = {};
    for (const [name, set] of [...containers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) m[name] = formatCPUSet(set);
    entries[pod] = m;
  }
  const cp = { policyName: s.policyName, defaultCPUSet: formatCPUSet(s.defaultCPUSet), entries };
  const checksum = checkpointChecksum(cp);
  return JSON.stringify({ policyName: cp.policyName, defaultCPUSet: cp.defaultCPUSet, ...(Object.keys(entries).length > 0 ? { entries } : {}), checksum });
}

/**
 * Parses and verifies checkpoint text (a checksum of 0 is accepted, as 1.23 does for the old file
 * backend).
 * @throws Error `checkpoint is corrupted` (bad checksum), the JSON error, or a cpuset parse error
 *   (`could not parse default cpu set "x": ...`).
 */
export function decodeCheckpoint(text: string): CPUManagerState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("json: cannot unmarshal into Go value of type state.CPUManagerCheckpointV2");
  const o = raw as Record<string, unknown>;
  const str = (k: string): string => {
    const v = o[k];
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") throw new Error(`json: cannot unmarshal ${typeof v} into Go struct field CPUManagerCheckpointV2.${k} of type string`);
    return v;
  };
  const policyName = str("policyName");
  const defaultText = str("defaultCPUSet");
  const checksum = o.checksum ?? 0;
  if (typeof checksum !== "number" || !Number.isInteger(checksum) || checksum < 0) throw new Error("json: cannot unmarshal checksum into Go struct field CPUManagerCheckpointV2.checksum of type checksum.Checksum");
  let entries: Record<string, Record<string, string>> | null = {};
  if (o.entries === null) entries = null;
  else if (o.entries !== undefined) {
    if (typeof o.entries !== "object" || Array.isArray(o.entries)) throw new Error("json: cannot unmarshal entries into Go struct field CPUManagerCheckpointV2.entries of type map[string]map[string]string");
    entries = {};
    for (const [pod, cs] of Object.entries(o.entries as Record<string, unknown>)) {
      if (typeof cs !== "object" || cs === null || Array.isArray(cs) || Object.values(cs).some((v) => typeof v !== "string")) {
        throw new Error("json: cannot unmarshal entries into Go struct field CPUManagerCheckpointV2.entries of type map[string]map[string]string");
      }
      entries[pod] = cs as Record<string, string>;
    }
  }
  if (checksum !== 0 && checkpointChecksum({ policyName, defaultCPUSet: defaultText, entries }) !== checksum) throw new Error("checkpoint is corrupted");
  let defaultCPUSet: CPUSet;
  try {
    defaultCPUSet = parseCPUSet(defaultText);
  } catch (err) {
    throw new Error(`could not parse default cpu set ${JSON.stringify(defaultText)}: ${(err as Error).message}`, { cause: err });
  }
  const assignments: ContainerCPUAssignments = new Map();
  for (const [pod, cs] of Object.entries(entries ?? {})) {
    const m = new Map<string, CPUSet>();
    for (const [name, text] of Object.entries(cs)) {
      try {
        m.set(name, parseCPUSet(text));
      } catch (err) {
        throw new Error(`could not parse cpuset ${JSON.stringify(text)} for container ${JSON.stringify(name)} in pod ${JSON.stringify(pod)}: ${(err as Error).message}`, { cause: err });
      }
    }
    assignments.set(pod, m);
  }
  return { policyName, defaultCPUSet, assignments };
}

/**
 * The CPU manager's state backed by the `cpu_manager_state` checkpoint: every change is written
 * through (atomically: temp file + rename, mode 0644).
 * @see pkg/kubelet/cm/cpumanager/state/state_checkpoint.go in kubernetes/kubernetes v1.23
 */
export class CheckpointState {
  readonly path: string;
  readonly policyName: string;
  #defaultCPUSet: CPUSet = [];
  #assignments: ContainerCPUAssignments = new Map();

  readonly #writer: CheckpointWriter;

  private constructor(path: string, policyName: string) {
    this.path = path;
    this.policyName = policyName;
    this.#writer = new CheckpointWriter(path, () => encodeCheckpoint({ policyName: this.policyName, defaultCPUSet: this.#defaultCPUSet, assignments: this.#assignments }));
  }

  /**
   * Restores the state from `<stateDir>/cpu_manager_state`, or creates the file when missing.
   * @throws Error `could not restore state from checkpoint: <why>, please drain this node and
   *   delete the CPU manager checkpoint file "<path>" before restarting Nodeagent` when the file is
   *   corrupt or was written by another policy (`configured policy "static" differs from state
   *   checkpoint policy "none"`).
   */
  static open(stateDir: string, policyName: string): CheckpointState {
    const s = new CheckpointState(join(stateDir, cpuManagerStateFileName), policyName);
    const r = restoreCheckpoint({ path: s.path, policyName, managerName: "CPU manager", decode: decodeCheckpoint });
    if (r === undefined) {
      s.#store();
      return s;
    }
    s.#defaultCPUSet = r.defaultCPUSet;
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



  /** The shared pool. */
  get defaultCPUSet(): CPUSet {
    return this.#defaultCPUSet;
  }
  /** A copy of the exclusive assignments. */
  get assignments(): ContainerCPUAssignments {
    return new Map([...this.#assignments].map(([k, v]) => [k, new Map(v)]));
  }
  /** The exclusive CPUs of one container, if any. */
  cpuSet(podUID: string, containerName: string): CPUSet | undefined {
    return this.#assignments.get(podUID)?.get(containerName);
  }
  /** The exclusive CPUs of one container, else the shared pool. */
  cpuSetOrDefault(podUID: string, containerName: string): CPUSet {
    return this.cpuSet(podUID, containerName) ?? this.#defaultCPUSet;
  }
  setDefaultCPUSet(s: CPUSet): void {
    this.#defaultCPUSet = s;
    this.#store();
  }
  setCPUSet(podUID: string, containerName: string, s: CPUSet): void {
    const m = this.#assignments.get(podUID) ?? new Map<string, CPUSet>();
    m.set(containerName, s);
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
