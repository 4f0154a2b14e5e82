/**
 * The checkpoint files of the node agent's resource managers (`cpu_manager_state`,
 * `memory_manager_state`): restored at start with 1.23's refusal texts, written through
 * atomically (temp file + rename, mode 0644) at every change.
 *
 * @see pkg/kubelet/checkpointmanager/checkpoint_manager.go and
 *   pkg/kubelet/cm/{cpumanager,memorymanager}/state/state_checkpoint.go in kubernetes/kubernetes v1.23
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { agentTracer } from "../internal/trace.js";

/** What {@link restoreCheckpoint} needs to know about one manager's checkpoint. */
export interface CheckpointFile<S extends { readonly policyName: string }> {
  /** The file's path. */
  readonly path: string;
  /** The configured policy; a checkpoint of another policy is refused. */
  readonly policyName: string;
  /** The manager's name in the refusal (`CPU manager`, `memory manager`). */
  readonly managerName: string;
  /** The prefix of the policy-mismatch reason (`[memorymanager] ` for the memory manager, as 1.23). */
  readonly policyMismatchPrefix?: string;
  /** Decodes the file's text. @throws Error naming what is wrong (a corrupt file, a bad checksum). */
  decode(text: string): S;
}

/**
 * Restores a checkpoint: undefined when the file does not exist (the caller writes its fresh
 * state), else the decoded state.
 * @throws Error `could not restore state from checkpoint: <why>, please drain this node and
 *   delete the <manager> checkpoint file "<path>" before restarting Nodeagent` for a corrupt file
 *   or one written by another policy (`configured policy "x" differs from state checkpoint policy "y"`).
 */
export function restoreCheckpoint<S extends { readonly policyName: string }>(f: CheckpointFile<S>): S | undefined {
  const fail = (why: string): never => {
    throw new Error(`could not restore state from checkpoint: ${why}, please drain this node and delete the ${f.managerName} checkpoint file ${JSON.stringify(f.path)} before restarting Nodeagent`);
  };
  if (!existsSync(f.path)) return undefined;
  let restored: S | undefined;
  try {
    restored = f.decode(readFileSync(f.path, "utf8"));
  } catch (err) {
    fail((err as Error).message);
  }
  const r = restored as S;
  if (r.policyName !== f.policyName) fail(`${f.policyMismatchPrefix ?? ""}configured policy ${JSON.stringify(f.policyName)} differs from state checkpoint policy ${JSON.stringify(r.policyName)}`);
  return r;
}

/** Writes a checkpoint's text atomically (temp file + rename, mode 0644), creating its directory. */
export function writeCheckpoint(path: string, text: string): void {
  const t0 = agentTracer.now();
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o644 });
  renameSync(tmp, path);
  agentTracer.record("checkpoint-write", t0, agentTracer.now(), { attrs: { file: basename(path) } });
}

/**
 * Writes one manager's checkpoint file: at once, or, inside {@link batch}, once at the end of a run
 * of changes when anything changed (the file ends the same, written fewer times).
 */
export class CheckpointWriter {
  #batching = 0;
  #dirty = false;

  /** `encode` gives the file's text from the state in memory at the time of writing. */
  constructor(
    private readonly path: string,
    private readonly encode: () => string,
  ) {}

  /** Writes the checkpoint now, or marks it to be written at the end of the current batch. @throws Error (fs) */
  store(): void {
    if (this.#batching > 0) {
      this.#dirty = true;
      return;
    }
    writeCheckpoint(this.path, this.encode());
  }

  /**
   * Runs `fn` (a run of changes of one manager operation) and writes the checkpoint once at its
   * end when anything changed. Written even when `fn` throws, so the file always matches the
   * state in memory.
   */
  batch<T>(fn: () => T): T {
    this.#batching++;
    try {
      return fn();
    } finally {
      this.#batching--;
      if (this.#batching === 0 && this.#dirty) {
        this.#dirty = false;
        this.store();
      }
    }
  }
}
