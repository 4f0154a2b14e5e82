import type { Container, Pod } from "@skiff/api-types";
import { bitCount, type CPUManager, type ResourceAdmitFailure, type RunningContainer, type TopologyHint } from "../cpumanager/index.js";
import type { MemoryManager } from "../memorymanager/index.js";

/** The topology manager's policies (`--topology-manager-policy`). */
export type TopologyManagerPolicy = "none" | "best-effort" | "restricted" | "single-numa-node";

/** 1.23's limit on NUMA nodes the topology manager handles. */
export const maxAllowableNUMANodes = 8;

/**
 * A hint provider: a resource manager giving NUMA hints per resource (undefined: no preference)
 * and allocating with the merged affinity.
 * @see pkg/kubelet/cm/topologymanager/topology_manager.go (HintProvider) in kubernetes/kubernetes v1.23
 */
export interface HintProvider {
  containerHints(pod: Pod, container: Container): Map<string, TopologyHint[] | undefined> | undefined;
  podHints(pod: Pod): Map<string, TopologyHint[] | undefined> | undefined;
}

/** The admission failure 1.23 reports when the merged hint is not acceptable to the policy. */
export const topologyAffinityError: ResourceAdmitFailure = Object.freeze({ reason: "TopologyAffinityError", message: "Resources cannot be allocated with Topology locality" });

// filterProvidersHints: a provider/resource without hints has no preference; an empty list cannot be met.
function providersHints(all: ReadonlyArray<Map<string, TopologyHint[] | undefined> | undefined>): TopologyHint[][] {
  const out: TopologyHint[][] = [];
  for (const hints of all) {
    if (!hints || hints.size === 0) {
      out.push([{ numaNodeAffinity: undefined, preferred: true }]);
      continue;
    }
    for (const list of hints.values()) {
      if (list === undefined) out.push([{ numaNodeAffinity: undefined, preferred: true }]);
      else if (list.length === 0) out.push([{ numaNodeAffinity: undefined, preferred: false }]);
      else out.push(list);
    }
  }
  return out;
}

function isNarrowerThan(a: number, b: number): boolean {
  const ca = bitCount(a);
  const cb = bitCount(b);
  return ca === cb ? a < b : ca < cb;
}

/**
 * Merges the providers' hints as 1.23: every permutation (one hint per resource) is ANDed
 * (undefined affinities mean every node) and is preferred when all its hints are; the best is a
 * preferred one over a non-preferred one, then the narrowest (fewest nodes, then lowest mask).
 * Without any non-empty merge: every node, not preferred. Pure.
 * @see pkg/kubelet/cm/topologymanager/policy.go (mergeFilteredHints, mergePermutation) in kubernetes/kubernetes v1.23
 */
export function mergeHints(numaNodes: readonly number[], filtered: readonly TopologyHint[][]): { numaNodeAffinity: number; preferred: boolean } {
  const all = numaNodes.reduce((m, n) => m | (1 << n), 0);
  let best = { numaNodeAffinity: all, preferred: false };
  if (filtered.length === 0) return best;
  const walk = (i: number, affinity: number, preferred: boolean): void => {
    if (i === filtered.length) {
      if (affinity === 0) return;
      if (preferred && !best.preferred) best = { numaNodeAffinity: affinity, preferred };
      else if (!preferred && best.preferred) return;
      else if (isNarrowerThan(affinity, best.numaNodeAffinity)) best = { numaNodeAffinity: affinity, preferred };
      return;
    }
    for (const h of filtered[i] ?? []) walk(i + 1, affinity & (h.numaNodeAffinity ?? all), preferred && h.preferred);
  };
  walk(0, all, true);
  return best;
}

/**
 * The node agent's topology manager: at pod admission it asks the hint providers (the CPU
 * manager and, when given, the memory manager) for NUMA hints per container
 * (`--topology-manager-scope=container`) or for the whole pod (`pod`), merges them
 * ({@link mergeHints}; `single-numa-node` first keeps only single-node and any-node preferred
 * hints), rejects the pod `TopologyAffinityError` when `restricted` or `single-numa-node` get a
 * non-preferred result (`best-effort` always admits), and has the CPU and memory managers
 * allocate with the merged affinity. Policy `none` allocates without hints. Everything else (CPU
 * sets and memory nodes, reconcile, release) is the managers'.
 * @see pkg/kubelet/cm/topologymanager/topology_manager.go, scope_container.go, scope_pod.go,
 *   policy_best_effort.go, policy_restricted.go, policy_single_numa_node.go in kubernetes/kubernetes v1.23
 */
export class TopologyManager {
  readonly policy: TopologyManagerPolicy;
  readonly scope: "container" | "pod";
  readonly cpuManager: CPUManager;
  readonly memoryManager: MemoryManager | undefined;
  readonly #numaNodes: number[];
  readonly #log: (message: string, level?: number) => void;

  /**
   * @throws Error `unknown policy: "x"`, `unknown scope: "x"`, `unsupported on machines with more
   *   than 8 NUMA Nodes` (1.23's words).
   */
  constructor(policy: string, scope: string, cpuManager: CPUManager, numaNodes: readonly number[], log?: (message: string, level?: number) => void, memoryManager?: MemoryManager) {
    if (!["none", "best-effort", "restricted", "single-numa-node"].includes(policy)) throw new Error(`unknown policy: "${policy}"`);
    if (scope !== "container" && scope !== "pod") throw new Error(`unknown scope: "${scope}"`);
    if (numaNodes.length > maxAllowableNUMANodes) throw new Error(`unsupported on machines with more than ${maxAllowableNUMANodes} NUMA Nodes`);
    this.policy = policy as TopologyManagerPolicy;
    this.scope = scope;
    this.cpuManager = cpuManager;
    this.memoryManager = memoryManager;
    this.#numaNodes = [...numaNodes];
    this.#log = log ?? (() => {});
  }

  #providers(): HintProvider[] {
    const cpu = this.cpuManager;
    const mem = this.memoryManager;
    const memory: HintProvider[] = mem ? [{ containerHints: (pod, c) => mem.topologyHints(pod, c), podHints: (pod) => mem.podTopologyHints(pod) }] : [];
    return [
      {
        containerHints: (pod, c) => {
          const h = cpu.topologyHints(pod, c);
          return h === undefined ? undefined : new Map([["cpu", h]]);
        },
        podHints: (pod) => {
          const h = cpu.podTopologyHints(pod);
          return h === undefined ? undefined : new Map([["cpu", h]]);
        },
      },
      ...memory,
    ];
  }

  // calculateAffinity + the policy's Merge/canAdmitPodResult.
  #merge(hints: ReadonlyArray<Map<string, TopologyHint[] | undefined> | undefined>): { affinity: number; preferred: boolean; admit: boolean } {
    let filtered = providersHints(hints);
    if (this.policy === "single-numa-node") {
      filtered = filtered.map((list) => list.filter((h) => h.preferred && (h.numaNodeAffinity === undefined || bitCount(h.numaNodeAffinity) === 1)));
    }
    const best = mergeHints(this.#numaNodes, filtered);
    const admit = this.policy === "best-effort" || best.preferred;
    return { affinity: best.numaNodeAffinity, preferred: best.preferred, admit };
  }

  /**
   * Admits `pod` (see the class doc); undefined when admitted. On rejection nothing the pod got
   * here stays allocated. (`activePods` is unused: stale allocations are released by the caller
   * through {@link removeStaleState}.)
   */
  admitPod(pod: Pod, activePods: readonly Pod[]): ResourceAdmitFailure | undefined {
    // One checkpoint write per manager for the whole admission, not one per change.
    const mem = this.memoryManager;
    return this.cpuManager.batch(() => (mem ? mem.batch(() => this.#admitPod(pod, activePods)) : this.#admitPod(pod, activePods)));
  }

  #admitPod(pod: Pod, _activePods: readonly Pod[]): ResourceAdmitFailure | undefined {
    const cpu = this.cpuManager;
    const mem = this.memoryManager;
    const before = cpu.assignments.get(pod.metadata?.uid ?? "");
    const memBefore = mem?.containersOf(pod.metadata?.uid ?? "") ?? new Set<string>();
    const rollBack = () => {
      cpu.rollBack(pod, before);
      mem?.rollBack(pod, memBefore);
    };
    const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
    // allocateAlignedResources: the CPU manager first, then the memory manager, per container.
    const allocate = (c: (typeof containers)[number], affinity?: { affinity: number; preferred: boolean }) => {
      try {
        cpu.allocate(pod, c, affinity?.affinity);
      } catch (err) {
        return cpu.admitFailureOf(pod, err);
      }
      try {
        mem?.allocate(pod, c, affinity ? { numaNodeAffinity: affinity.affinity, preferred: affinity.preferred } : undefined);
      } catch (err) {
        this.#log(`Unable to allocate memory for pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: ${(err as Error).message}`);
        return mem?.admitFailureOf(err);
      }
      return undefined;
    };
    if (this.policy === "none") {
      for (const c of containers) {
        const failure = allocate(c);
        if (failure) {
          rollBack();
          return failure;
        }
      }
      return undefined;
    }
    const providers = this.#providers();
    if (this.scope === "pod") {
      const merged = this.#merge(providers.map((p) => p.podHints(pod)));
      this.#log(`Best TopologyHint for pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: affinity ${merged.affinity.toString(2)}, admit ${merged.admit}`, 2);
      if (!merged.admit) return topologyAffinityError;
      for (const c of containers) {
        const failure = allocate(c, merged);
        if (failure) {
          rollBack();
          return failure;
        }
      }
      return undefined;
    }
    for (const c of containers) {
      const merged = this.#merge(providers.map((p) => p.containerHints(pod, c)));
      this.#log(`Best TopologyHint for container ${c.name} of pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}: affinity ${merged.affinity.toString(2)}, admit ${merged.admit}`, 2);
      if (!merged.admit) {
        rollBack();
        return topologyAffinityError;
      }
      const failure = allocate(c, merged);
      if (failure) {
        rollBack();
        return failure;
      }
    }
    return undefined;
  }

  /** The container's CPU set (the CPU manager's). */
  containerCPUSet(pod: Pod, container: Container): string | undefined {
    return this.cpuManager.containerCPUSet(pod, container);
  }

  /** The NUMA nodes of the container's memory (CRI `cpuset_mems`, the memory manager's); undefined without blocks. */
  containerMemoryNodes(pod: Pod, container: Container): string | undefined {
    return this.memoryManager?.containerMemoryNodes(pod, container);
  }

  /** Releases what pods not in `activePods` hold (the CPU and memory managers'). */
  removeStaleState(activePods: readonly Pod[]): void {
    this.cpuManager.removeStaleState(activePods);
    this.memoryManager?.removeStaleState(activePods);
  }

  /** Releases what the pod with `uid` holds (the CPU and memory managers'). */
  removePod(uid: string): void {
    this.cpuManager.removePod(uid);
    this.memoryManager?.removePod(uid);
  }

  /** The CPU manager's reconcile pass. */
  reconcile(activePods: readonly Pod[], running: readonly RunningContainer[], update: (containerId: string, cpusetCpus: string) => Promise<void>, sweepStale = true): Promise<void> {
    if (sweepStale) this.memoryManager?.removeStaleState(activePods);
    return this.cpuManager.reconcile(activePods, running, update, sweepStale);
  }
}
