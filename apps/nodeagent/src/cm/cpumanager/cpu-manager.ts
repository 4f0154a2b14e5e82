import type { Container, Pod } from "@skiff/api-types";
import { milliOf, podQOSClass } from "../../pods/resources.js";
import { takeByTopology } from "./cpu-assignment.js";
import { difference, equals, formatCPUSet, intersection, union, type CPUSet } from "./cpuset.js";
import { CheckpointState } from "./state.js";
import { discoverTopology, type CPUTopology } from "./topology.js";

/** What {@link CPUManager.start} reads: the node agent's CPU manager settings (flag names in the docs). */
export interface CPUManagerOptions {
  /** `--cpu-manager-policy`: `none` or `static`. */
  readonly policy: string;
  /** `--cpu-manager-policy-options` (`full-pcpus-only=true`). */
  readonly policyOptions: Readonly<Record<string, string>>;
  /** The feature gates CPUManagerPolicyAlphaOptions and CPUManagerPolicyBetaOptions. */
  readonly alphaOptions: boolean;
  readonly betaOptions: boolean;
  /** `--reserved-cpus` (parsed); empty derives the reserved CPUs from {@link reservedMilliCPU}. */
  readonly reservedCPUs: CPUSet;
  /** CPU reserved for system + cluster (milli-cores); the static policy reserves ceil(this/1000) CPUs. */
  readonly reservedMilliCPU: bigint;
  /** Where `cpu_manager_state` lives (`--root-dir`). */
  readonly stateDir: string;
  /** The machine's topology; read from {@link sysfsRoot} when absent. */
  readonly topology?: CPUTopology;
  /** sysfs root for topology discovery (tests point it at a prepared tree). @defaultValue `/sys` */
  readonly sysfsRoot?: string;
  /** Log sink; level 0 is info. */
  readonly log?: (message: string, level?: number) => void;
}

/** A pod admission failure of a resource manager: the 1.23 reason and message. */
export interface ResourceAdmitFailure {
  readonly reason: string;
  readonly message: string;
}

/** A running container as the reconcile loop sees it. */
export interface RunningContainer {
  readonly podUID: string;
  readonly containerName: string;
  readonly containerId: string;
}

/**
 * A NUMA affinity hint: `numaNodeAffinity` is a bit mask of NUMA node ids (bit n = node n);
 * undefined means any node.
 * @see pkg/kubelet/cm/topologymanager/topology_manager.go (TopologyHint) in kubernetes/kubernetes v1.23
 */
export interface TopologyHint {
  readonly numaNodeAffinity: number | undefined;
  readonly preferred: boolean;
}

/** The number of bits set in a NUMA mask. */
export function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

/**
 * Every non-empty mask over the NUMA node ids, by increasing size then in combination order, as
 * 1.23's bitmask.IterateBitMasks.
 */
export function numaMasks(nodes: readonly number[]): number[] {
  const out: number[] = [];
  const combos = (start: number, size: number, acc: number): void => {
    if (size === 0) {
      out.push(acc);
      return;
    }
    for (let i = start; i < nodes.length; i++) combos(i + 1, size - 1, acc | (1 << (nodes[i] as number)));
  };
  for (let size = 1; size <= nodes.length; size++) combos(0, size, 0);
  return out;
}

/** The error of `full-pcpus-only` for a request that is not a multiple of the threads per core. */
export class SMTAlignmentError extends Error {
  readonly type = "SMTAlignmentError";
  constructor(requested: number, perCore: number) {
    super(`SMT Alignment Error: requested ${requested} cpus not multiple cpus per core = ${perCore}`);
    this.name = "SMTAlignmentError";
  }
}

const betaOptions = new Set(["full-pcpus-only"]);
const alphaOptions = new Set(["distribute-cpus-across-numa"]);

function parseGoBool(name: string, value: string): boolean {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  throw new Error(`bad value for option ${JSON.stringify(name)}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/**
 * The whole CPUs a container gets exclusively under the static policy: its integer CPU request
 * when the pod is Guaranteed, else 0.
 * @see pkg/kubelet/cm/cpumanager/policy_static.go (guaranteedCPUs) in kubernetes/kubernetes v1.23
 */
export function guaranteedCPUs(pod: Pod, container: Container): number {
  if (podQOSClass(pod) !== "Guaranteed") return 0;
  const milli = milliOf(container.resources?.requests?.cpu) ?? 0n;
  if (milli % 1000n !== 0n) return 0;
  return Number(milli / 1000n);
}

/**
 * The node agent's CPU manager. Policy `none`: every container runs on all CPUs (the runtime's
 * default) and the state file only records the policy. Policy `static`: the shared pool starts as
 * every CPU; containers of Guaranteed pods with integer CPU requests get that many CPUs
 * exclusively at pod admission ({@link takeByTopology}), taken out of the shared pool; `reserved`
 * CPUs (`--reserved-cpus`, or ceil(system + cluster reserved CPU) taken by topology) stay in the
 * shared pool and are never given exclusively. Containers are created with their CPU set
 * ({@link containerCPUSet}); {@link reconcile} rewrites the shared containers' sets when the pool
 * changes; assignments of pods no longer active are released ({@link removeStaleState}). Every
 * change is written to `<root-dir>/cpu_manager_state` in 1.23's format.
 *
 * @see pkg/kubelet/cm/cpumanager/cpu_manager.go, policy_static.go, policy_none.go in kubernetes/kubernetes v1.23
 */
export class CPUManager {
  readonly policy: "none" | "static";
  readonly topology: CPUTopology | undefined;
  readonly reserved: CPUSet;
  readonly fullPCPUsOnly: boolean;
  readonly #state: CheckpointState;
  readonly #log: (message: string, level?: number) => void;
  /** pod UID → CPUs of its init containers that its app containers may reuse (one pod at a time). */
  readonly #reuse = new Map<string, CPUSet>();
  /** container id → CPU set last written through UpdateContainerResources. */
  readonly #lastUpdate = new Map<string, string>();

  private constructor(policy: "none" | "static", topology: CPUTopology | undefined, reserved: CPUSet, fullPCPUsOnly: boolean, state: CheckpointState, log: (m: string, l?: number) => void) {
    this.policy = policy;
    this.topology = topology;
    this.reserved = reserved;
    this.fullPCPUsOnly = fullPCPUsOnly;
    this.#state = state;
    this.#log = log;
  }

  /**
   * Builds the policy and restores (or creates) the state file, validating it against the
   * machine as 1.23's static policy does.
   * @throws Error with 1.23's words: `[cpumanager] the static policy requires systemreserved.cpu +
   *   kubereserved.cpu to be greater than zero`, `unknown CPU Manager Policy option: "x"`, `CPU
   *   Manager Policy Beta-level Options not enabled, but option "full-pcpus-only" provided`,
   *   `[cpumanager] unable to reserve the required amount of CPUs (size of 0-1 did not equal 3)`,
   *   `could not restore state from checkpoint: ...` (corrupt file, changed policy; names the
   *   file), `not all reserved cpus: "0" are present in defaultCpuSet: "1"` and the other
   *   state validation errors. The caller prefixes `start cpu manager error: `.
   */
  static start(o: CPUManagerOptions): CPUManager {
    const log = o.log ?? (() => {});
    if (o.policy === "none") {
      log("None policy: Start");
      return new CPUManager("none", undefined, [], false, CheckpointState.open(o.stateDir, "none"), log);
    }
    if (o.policy !== "static") throw new Error(`unknown policy: "${o.policy}"`);
    let fullPCPUsOnly = false;
    for (const [name, value] of Object.entries(o.policyOptions)) {
      if (alphaOptions.has(name)) {
        if (!o.alphaOptions) throw new Error(`CPU Manager Policy Alpha-level Options not enabled, but option ${JSON.stringify(name)} provided`);
        throw new Error(`CPU Manager policy option ${JSON.stringify(name)} is not supported by skiff nodeagent`);
      }
      if (!betaOptions.has(name)) throw new Error(`unknown CPU Manager Policy option: ${JSON.stringify(name)}`);
      if (!o.betaOptions) throw new Error(`CPU Manager Policy Beta-level Options not enabled, but option ${JSON.stringify(name)} provided`);
      fullPCPUsOnly = parseGoBool(name, value);
    }
    const topo = o.topology ?? discoverTopology(o.sysfsRoot);
    log(`Detected CPU topology: ${topo.numCPUs} CPUs, ${topo.numCores} cores, ${topo.numSockets} sockets, ${topo.numNUMANodes} NUMA nodes`);
    if (o.reservedMilliCPU <= 0n) throw new Error("[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero");
    const numReserved = Number((o.reservedMilliCPU + 999n) / 1000n);
    let reserved: CPUSet;
    if (o.reservedCPUs.length > 0) reserved = o.reservedCPUs;
    else {
      try {
        reserved = takeByTopology(topo, topo.cpus(), numReserved);
      } catch {
        reserved = [];
      }
    }
    if (reserved.length !== numReserved) throw new Error(`new static policy error: [cpumanager] unable to reserve the required amount of CPUs (size of ${formatCPUSet(reserved)} did not equal ${numReserved})`);
    log(`Reserved CPUs not available for exclusive assignment: ${formatCPUSet(reserved)}`);
    const state = CheckpointState.open(o.stateDir, "static");
    const m = new CPUManager("static", topo, reserved, fullPCPUsOnly, state, log);
    m.#validateState();
    return m;
  }

  // staticPolicy.validateState
  #validateState(): void {
    const s = this.#state;
    const topo = this.topology as CPUTopology;
    const def = s.defaultCPUSet;
    const assignments = s.assignments;
    if (def.length === 0) {
      if (assignments.size > 0) throw new Error("default cpuset cannot be empty");
      s.setDefaultCPUSet(topo.cpus());
      return;
    }
    if (!equals(intersection(this.reserved, def), this.reserved)) throw new Error(`not all reserved cpus: "${formatCPUSet(this.reserved)}" are present in defaultCpuSet: "${formatCPUSet(def)}"`);
    let known = def;
    for (const [pod, cs] of assignments) {
      for (const [name, set] of cs) {
        if (intersection(def, set).length > 0) throw new Error(`pod: ${pod}, container: ${name} cpuset: "${formatCPUSet(set)}" overlaps with default cpuset "${formatCPUSet(def)}"`);
        known = union(known, set);
      }
    }
    if (!equals(known, topo.cpus())) throw new Error(`current set of available CPUs "${formatCPUSet(topo.cpus())}" doesn't match with CPUs in state "${formatCPUSet(known)}"`);
  }

  /** The state file's path. */
  get stateFile(): string {
    return this.#state.path;
  }
  /** The shared pool (empty with policy none). */
  get defaultCPUSet(): CPUSet {
    return this.#state.defaultCPUSet;
  }
  /** The exclusive assignments (pod UID → container → CPUs). */
  get assignments(): Map<string, Map<string, CPUSet>> {
    return this.#state.assignments;
  }

  /**
   * Pod admission without topology hints (topology manager policy `none`): gives each container
   * of `pod` (init containers first) its exclusive CPUs. On failure nothing the pod got here stays
   * assigned. Undefined when admitted. (`activePods` is unused: stale assignments are released
   * by the caller through {@link removeStaleState} once every pod source has been seen.)
   * @returns `UnexpectedAdmissionError` / `Allocate failed due to not enough cpus available to
   *   satisfy request, which is unexpected`, or `SMTAlignmentError` / `SMT Alignment Error: ...`.
   * @see pkg/kubelet/cm/cpumanager/cpu_manager.go (Allocate), pkg/kubelet/cm/topologymanager/scope.go (admitPolicyNone) in kubernetes/kubernetes v1.23
   */
  admitPod(pod: Pod, _activePods: readonly Pod[]): ResourceAdmitFailure | undefined {
    if (this.policy === "none") return undefined;
    const before = this.#state.assignments.get(pod.metadata?.uid ?? "");
    try {
      for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) this.allocate(pod, c);
    } catch (err) {
      this.rollBack(pod, before);
      return this.admitFailureOf(pod, err);
    }
    return undefined;
  }

  /**
   * Runs `fn` with the state's checkpoint written once at its end (when anything changed)
   * instead of at every change; the file ends the same.
   */
  batch<T>(fn: () => T): T {
    return this.#state.batch(fn);
  }

  /** The admission failure of an {@link allocate} error, as 1.23's GetPodAdmitResult. */
  admitFailureOf(pod: Pod, err: unknown): ResourceAdmitFailure {
    if (err instanceof SMTAlignmentError) return { reason: err.type, message: err.message };
    const why = err instanceof Error ? err.message : String(err);
    this.#log(`Unable to allocate CPUs for pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: ${why}`);
    return { reason: "UnexpectedAdmissionError", message: `Allocate failed due to ${why}, which is unexpected` };
  }

  /** Releases what {@link allocate} gave the pod's containers beyond `before` (its assignments before admission). */
  rollBack(pod: Pod, before: ReadonlyMap<string, CPUSet> | undefined): void {
    this.#state.batch(() => {
      const uid = pod.metadata?.uid ?? "";
      for (const name of this.#state.assignments.get(uid)?.keys() ?? []) if (!before?.has(name)) this.#release(uid, name);
      this.#reuse.delete(uid);
    });
  }

  /**
   * Gives one container its exclusive CPUs (no-op for shared-pool containers or when already
   * assigned), preferring the CPUs of the NUMA nodes in `numaAffinity` (a bit mask; undefined or
   * 0: no preference). CPUs of the pod's init containers may be reused.
   * @throws SMTAlignmentError (full-pcpus-only), NotEnoughCPUsError.
   * @see pkg/kubelet/cm/cpumanager/policy_static.go (Allocate, allocateCPUs) in kubernetes/kubernetes v1.23
   */
  allocate(pod: Pod, c: Container, numaAffinity?: number): void {
    this.#state.batch(() => {
      if (this.policy === "none") return;
      const n = guaranteedCPUs(pod, c);
      if (n === 0) return;
      const topo = this.topology as CPUTopology;
      const perCore = topo.cpusPerCore();
      if (this.fullPCPUsOnly && n % perCore !== 0) throw new SMTAlignmentError(n, perCore);
      const uid = pod.metadata?.uid ?? "";
      for (const other of this.#reuse.keys()) if (other !== uid) this.#reuse.delete(other);
      const isInit = (pod.spec?.initContainers ?? []).some((i) => i.name === c.name);
      const updateReuse = (set: CPUSet) => {
        const cur = this.#reuse.get(uid) ?? [];
        this.#reuse.set(uid, isInit ? union(cur, set) : difference(cur, set));
      };
      const existing = this.#state.cpuSet(uid, c.name);
      if (existing) {
        updateReuse(existing);
        return;
      }
      const allocatable = union(difference(this.#state.defaultCPUSet, this.reserved), this.#reuse.get(uid) ?? []);
      let result: CPUSet = [];
      if (numaAffinity !== undefined && numaAffinity !== 0) {
        const nodes = topo.numaNodes().filter((id) => (numaAffinity & (1 << id)) !== 0);
        const aligned = intersection(allocatable, topo.cpusInNUMANodes(...nodes));
        result = takeByTopology(topo, aligned, Math.min(n, aligned.length));
      }
      result = union(result, takeByTopology(topo, difference(allocatable, result), n - result.length));
      this.#state.setDefaultCPUSet(difference(this.#state.defaultCPUSet, result));
      this.#state.setCPUSet(uid, c.name, result);
      updateReuse(result);
      this.#log(`Static policy: allocated CPUs ${formatCPUSet(result)} to container ${c.name} of pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`);
    });
  }

  /**
   * The CPU manager's NUMA hints for one container (hint provider of the topology manager):
   * undefined (no preference) for shared-pool containers and policy none; otherwise every NUMA
   * node mask with enough available (or already assigned) CPUs, preferred when it is as narrow
   * as the narrowest mask that could hold the request on this machine. An empty list means the
   * request cannot be met.
   * @see pkg/kubelet/cm/cpumanager/policy_static.go (GetTopologyHints, generateCPUTopologyHints) in kubernetes/kubernetes v1.23
   */
  topologyHints(pod: Pod, c: Container): TopologyHint[] | undefined {
    if (this.policy === "none") return undefined;
    const requested = guaranteedCPUs(pod, c);
    if (requested === 0) return undefined;
    const uid = pod.metadata?.uid ?? "";
    const allocated = this.#state.cpuSet(uid, c.name);
    if (allocated) return allocated.length === requested ? this.#hints(allocated, [], requested) : [];
    return this.#hints(difference(this.#state.defaultCPUSet, this.reserved), this.#reuse.get(uid) ?? [], requested);
  }

  /**
   * The CPU manager's NUMA hints for a whole pod (topology manager scope `pod`): as
   * {@link topologyHints} for the pod's guaranteed CPUs (max of init containers, sum of app containers).
   * @see pkg/kubelet/cm/cpumanager/policy_static.go (GetPodTopologyHints) in kubernetes/kubernetes v1.23
   */
  podTopologyHints(pod: Pod): TopologyHint[] | undefined {
    if (this.policy === "none") return undefined;
    const spec = pod.spec ?? { containers: [] };
    const init = Math.max(0, ...(spec.initContainers ?? []).map((c) => guaranteedCPUs(pod, c)));
    const app = spec.containers.reduce((sum, c) => sum + guaranteedCPUs(pod, c), 0);
    const requested = Math.max(init, app);
    if (requested === 0) return undefined;
    const uid = pod.metadata?.uid ?? "";
    let assigned: CPUSet = [];
    for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
      const allocated = this.#state.cpuSet(uid, c.name);
      if (!allocated) continue;
      if (allocated.length !== guaranteedCPUs(pod, c)) return [];
      assigned = union(assigned, allocated);
    }
    if (assigned.length === requested) return this.#hints(assigned, [], requested);
    return this.#hints(difference(this.#state.defaultCPUSet, this.reserved), union(this.#reuse.get(uid) ?? [], assigned), requested);
  }

  // generateCPUTopologyHints
  #hints(available: CPUSet, reusable: CPUSet, request: number): TopologyHint[] {
    const topo = this.topology as CPUTopology;
    const nodes = topo.numaNodes();
    let minAffinitySize = nodes.length;
    const hints: TopologyHint[] = [];
    const numaOf = (cpu: number) => topo.details.get(cpu)?.numaNodeID ?? 0;
    for (const mask of numaMasks(nodes)) {
      const inMask = (cpu: number) => (mask & (1 << numaOf(cpu))) !== 0;
      const count = bitCount(mask);
      if (topo.cpus().filter(inMask).length >= request && count < minAffinitySize) minAffinitySize = count;
      if (!reusable.every(inMask)) continue;
      if (reusable.length + available.filter(inMask).length < request) continue;
      hints.push({ numaNodeAffinity: mask, preferred: false });
    }
    return hints.map((h) => ({ ...h, preferred: bitCount(h.numaNodeAffinity ?? 0) === minAffinitySize }));
  }

  // staticPolicy.RemoveContainer: released CPUs not used by a sibling go back to the shared pool.
  #release(podUID: string, name: string): void {
    const set = this.#state.cpuSet(podUID, name);
    if (!set) return;
    let siblings: CPUSet = [];
    for (const [other, s] of this.#state.assignments.get(podUID) ?? []) if (other !== name) siblings = union(siblings, s);
    this.#state.delete(podUID, name);
    this.#state.setDefaultCPUSet(union(this.#state.defaultCPUSet, difference(set, siblings)));
    this.#log(`Static policy: released CPUs ${formatCPUSet(set)} of container ${name} of pod ${podUID}`);
  }

  /**
   * The CPU set a container is created with (CRI `cpuset_cpus`): its exclusive CPUs, else the
   * shared pool; undefined with policy none.
   * @see pkg/kubelet/cm/internal_container_lifecycle_linux.go (PreCreateContainer) in kubernetes/kubernetes v1.23
   */
  containerCPUSet(pod: Pod, container: Container): string | undefined {
    if (this.policy === "none") return undefined;
    const set = this.#state.cpuSetOrDefault(pod.metadata?.uid ?? "", container.name);
    return set.length === 0 ? undefined : formatCPUSet(set);
  }

  /**
   * Releases the exclusive CPUs of containers whose pod is not in `activePods` (pods gone or
   * finished), as 1.23's removeStaleState. Never throws.
   */
  removeStaleState(activePods: readonly Pod[]): void {
    this.#state.batch(() => {
      if (this.policy === "none") return;
      const active = new Map(activePods.map((p) => [p.metadata?.uid ?? "", new Set([...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? [])].map((c) => c.name))]));
      for (const [pod, cs] of this.#state.assignments) {
        for (const name of cs.keys()) {
          if (active.get(pod)?.has(name)) continue;
          this.#log(`RemoveStaleState: removing container ${name} of pod ${pod}`);
          this.#release(pod, name);
        }
      }
    });
  }

  /** Releases every exclusive CPU of the pod with `uid` (the pod finished or was removed). */
  removePod(uid: string): void {
    this.#state.batch(() => {
      if (this.policy === "none") return;
      for (const name of this.#state.assignments.get(uid)?.keys() ?? []) this.#release(uid, name);
      this.#reuse.delete(uid);
    });
  }

  /**
   * One pass of the reconcile loop (`--cpu-manager-reconcile-period`): releases stale assignments
   * (only with `sweepStale`: once every pod source has been seen, as 1.23's sourcesReady), then writes each running container's CPU set through `update` (CRI UpdateContainerResources
   * with `cpuset_cpus`) when it differs from the one last written. Failures are logged and
   * retried at the next pass.
   * @see pkg/kubelet/cm/cpumanager/cpu_manager.go (reconcileState) in kubernetes/kubernetes v1.23
   */
  async reconcile(activePods: readonly Pod[], running: readonly RunningContainer[], update: (containerId: string, cpusetCpus: string) => Promise<void>, sweepStale = true): Promise<void> {
    if (this.policy === "none") return;
    if (sweepStale) this.removeStaleState(activePods);
    const byUID = new Map(activePods.map((p) => [p.metadata?.uid ?? "", p]));
    const seen = new Set<string>();
    for (const rc of running) {
      const pod = byUID.get(rc.podUID);
      if (!pod) continue;
      seen.add(rc.containerId);
      const set = formatCPUSet(this.#state.cpuSetOrDefault(rc.podUID, rc.containerName));
      if (set === "" || this.#lastUpdate.get(rc.containerId) === set) continue;
      try {
        await update(rc.containerId, set);
        this.#lastUpdate.set(rc.containerId, set);
      } catch (err) {
        this.#log(`ReconcileState: failed to update container ${rc.containerName} (${rc.containerId}) of pod ${rc.podUID} to cpuset ${set}: ${(err as Error).message}`, 2);
      }
    }
    for (const id of [...this.#lastUpdate.keys()]) if (!seen.has(id)) this.#lastUpdate.delete(id);
  }
}
