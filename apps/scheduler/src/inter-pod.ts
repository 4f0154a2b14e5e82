/**
 * The filters that look at the other pods of the cluster, not only at the node: NodePorts (host
 * ports), PodTopologySpread (`whenUnsatisfiable: DoNotSchedule` constraints) and InterPodAffinity
 * (required pod affinity and anti-affinity, the incoming pod's and, symmetrically, the existing
 * pods' anti-affinity). As 1.23's framework, each has a pre-filter computed once per scheduling
 * cycle over the snapshot ({@link prepareClusterFilters}) and a per-node check.
 *
 * @see pkg/scheduler/framework/plugins/{nodeports,podtopologyspread,interpodaffinity} in kubernetes/kubernetes v1.23
 */

import type { LabelSelector, Node, Pod, PodAffinityTerm } from "@skiff/api-types";
import { labelSelectorAsSelector, nothingSelector, type Selector } from "@skiff/apimachinery";
import { hostPortsFit, podHostPorts, requiredNodeAffinityMatches, type HostPort } from "@skiff/component-helpers";
import type { NodeInfo } from "./predicates.js";

/** NodePorts' reason. @see pkg/scheduler/framework/plugins/nodeports/node_ports.go (`ErrReason`) */
export const reasonNodePorts = "node(s) didn't have free ports for the requested pod ports";
/** InterPodAffinity's reasons. @see pkg/scheduler/framework/plugins/interpodaffinity/filtering.go */
export const reasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
export const reasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";
export const reasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules";
/** PodTopologySpread's reasons. @see pkg/scheduler/framework/plugins/podtopologyspread/filtering.go */
export const reasonTopologySpreadNotMatch = "node(s) didn't match pod topology spread constraints";
export const reasonTopologySpreadMissingLabel = "node(s) didn't match pod topology spread constraints (missing required label)";

/** The labels of a namespace by name (undefined when it is not known), for namespace selectors. */
export type NamespaceLabels = (namespace: string) => Readonly<Record<string, string>> | undefined;

// ---- NodePorts -----------------------------------------------------------------------------

/**
 * NodePorts: the pod's host ports must be free on the node (same port and protocol, and the same
 * IP or either on 0.0.0.0, taken by a pod there).
 * @see pkg/scheduler/framework/plugins/nodeports/node_ports.go (`fitsPorts`), pkg/scheduler/framework/types.go (`HostPortInfo.CheckConflict`)
 */
export function checkNodePorts(wanted: readonly HostPort[], info: NodeInfo): string[] {
  return hostPortsFit(wanted, info.pods) ? [] : [reasonNodePorts];
}

// ---- affinity terms ------------------------------------------------------------------------

/** A pod affinity term ready to match: its selectors parsed, its namespaces resolved. */
export interface AffinityTerm {
  readonly selector: Selector;
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector: Selector;
  readonly topologyKey: string;
}

/** A structured selector as a {@link Selector}; a missing or unreadable one selects nothing. */
export function selectorOf(s: LabelSelector | undefined): Selector {
  const r = labelSelectorAsSelector(s);
  // The apiserver validates selectors; one that cannot be read selects nothing (1.23 logs and skips).
  return r.ok ? r.value : nothingSelector();
}

/**
 * The term of a pod in `podNamespace`, ready to match: as 1.23's newAffinityTerm, no namespaces
 * and no namespace selector mean the pod's own namespace.
 */
export function compileTerm(term: PodAffinityTerm, podNamespace: string): AffinityTerm {
  const namespaces = new Set(term.namespaces ?? []);
  if (namespaces.size === 0 && term.namespaceSelector === undefined) namespaces.add(podNamespace);
  return { selector: selectorOf(term.labelSelector), namespaces, namespaceSelector: selectorOf(term.namespaceSelector), topologyKey: term.topologyKey };
}

/** Whether `t` selects `pod`: its namespace listed or selected, then its labels selected. */
export function termMatches(t: AffinityTerm, pod: Pod, nsLabels: NamespaceLabels): boolean {
  const ns = pod.metadata?.namespace ?? "";
  if (!t.namespaces.has(ns) && !t.namespaceSelector.matches(nsLabels(ns) ?? {})) return false;
  return t.selector.matches(pod.metadata?.labels ?? {});
}

const pairKey = (key: string, value: string) => `${key}\u0000${value}`;

// ---- topology spread -----------------------------------------------------------------------

interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: Selector;
}

// ---- the cycle's state ---------------------------------------------------------------------

/** What the cluster filters computed for one pod in one scheduling cycle; see {@link prepareClusterFilters}. */
export interface ClusterFilters {
  /** NodePorts on one node: its reason, or empty when the pod's host ports are free there. */
  ports(info: NodeInfo): string[];
  /** PodTopologySpread then InterPodAffinity on one node: the first failing one's reason, empty when the node fits. */
  check(info: NodeInfo): string[];
}

/**
 * The pre-filters of NodePorts, PodTopologySpread and InterPodAffinity for `pod` over the
 * snapshot `infos` (their pods assigned and assumed, terminated ones excluded). Costs nothing
 * beyond a scan of the pods with required anti-affinity when the pod has no host ports, no
 * DoNotSchedule constraint and no required pod (anti-)affinity.
 * @see pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (PreFilter, Filter), podtopologyspread/filtering.go (calPreFilterState, Filter) in kubernetes/kubernetes v1.23
 */
export function prepareClusterFilters(pod: Pod, infos: readonly NodeInfo[], nsLabels: NamespaceLabels): ClusterFilters {
  const ns = pod.metadata?.namespace ?? "";
  const labels = pod.metadata?.labels ?? {};
  const hostPorts = podHostPorts(pod);

  // InterPodAffinity.
  const affinity = (pod.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileTerm(t, ns));
  const antiAffinity = (pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileTerm(t, ns));
  const existingAnti = new Map<string, number>();
  const affinityCounts = new Map<string, number>();
  const antiCounts = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const info of infos) {
    const nodeLabels = info.node.metadata?.labels ?? {};
    for (const existing of info.podsWithRequiredAntiAffinity) {
      const existingNs = existing.metadata?.namespace ?? "";
      for (const term of existing.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
        const t = compileTerm(term, existingNs);
        const value = nodeLabels[t.topologyKey];
        if (value !== undefined && termMatches(t, pod, nsLabels)) bump(existingAnti, pairKey(t.topologyKey, value));
      }
    }
    if (affinity.length === 0 && antiAffinity.length === 0) continue;
    for (const existing of info.pods) {
      if (affinity.length > 0 && affinity.every((t) => termMatches(t, existing, nsLabels))) {
        for (const t of affinity) {
          const value = nodeLabels[t.topologyKey];
          if (value !== undefined) bump(affinityCounts, pairKey(t.topologyKey, value));
        }
      }
      for (const t of antiAffinity) {
        const value = nodeLabels[t.topologyKey];
        if (value !== undefined && termMatches(t, existing, nsLabels)) bump(antiCounts, pairKey(t.topologyKey, value));
      }
    }
  }
  // The first pod of a group whose affinity selects itself may go anywhere its topology keys exist.
  const selfAffine = affinity.length > 0 && affinityCounts.size === 0 && affinity.every((t) => termMatches(t, pod, nsLabels));

  // PodTopologySpread (DoNotSchedule constraints; the pod's namespace only).
  const spread: SpreadConstraint[] = (pod.spec?.topologySpreadConstraints ?? [])
    .filter((c) => c.whenUnsatisfiable === "DoNotSchedule")
    .map((c) => ({ maxSkew: c.maxSkew, topologyKey: c.topologyKey, selector: selectorOf(c.labelSelector) }));
  const spreadCounts = new Map<string, number>();
  const minMatch = new Map<string, number>();
  if (spread.length > 0) {
    for (const info of infos) {
      const nodeLabels = info.node.metadata?.labels ?? {};
      // Only nodes the pod could go to by its node selector and required node affinity, and that
      // have every constraint's key, are counted.
      if (!matchesNodeSelectorAndAffinity(pod, info.node) || spread.some((c) => nodeLabels[c.topologyKey] === undefined)) continue;
      for (const c of spread) {
        let n = 0;
        for (const p of info.pods) {
          if (p.metadata?.deletionTimestamp || (p.metadata?.namespace ?? "") !== ns) continue;
          if (c.selector.matches(p.metadata?.labels ?? {})) n++;
        }
        const k = pairKey(c.topologyKey, nodeLabels[c.topologyKey] ?? "");
        spreadCounts.set(k, (spreadCounts.get(k) ?? 0) + n);
      }
    }
    for (const [k, n] of spreadCounts) {
      const key = k.slice(0, k.indexOf("\u0000"));
      minMatch.set(key, Math.min(minMatch.get(key) ?? Number.MAX_SAFE_INTEGER, n));
    }
  }

  return {
    ports: (info: NodeInfo) => checkNodePorts(hostPorts, info),
    check(info: NodeInfo): string[] {
      const nodeLabels = info.node.metadata?.labels ?? {};
      for (const c of spread) {
        const value = nodeLabels[c.topologyKey];
        if (value === undefined) return [reasonTopologySpreadMissingLabel];
      }
      for (const c of spread) {
        const self = c.selector.matches(labels) ? 1 : 0;
        const matched = spreadCounts.get(pairKey(c.topologyKey, nodeLabels[c.topologyKey] ?? "")) ?? 0;
        const min = minMatch.get(c.topologyKey) ?? Number.MAX_SAFE_INTEGER;
        if (matched + self - min > c.maxSkew) return [reasonTopologySpreadNotMatch];
      }
      if (affinity.length > 0) {
        let podsExist = true;
        for (const t of affinity) {
          const value = nodeLabels[t.topologyKey];
          if (value === undefined) return [reasonAffinityRulesNotMatch];
          if ((affinityCounts.get(pairKey(t.topologyKey, value)) ?? 0) <= 0) podsExist = false;
        }
        if (!podsExist && !selfAffine) return [reasonAffinityRulesNotMatch];
      }
      for (const t of antiAffinity) {
        const value = nodeLabels[t.topologyKey];
        if (value !== undefined && (antiCounts.get(pairKey(t.topologyKey, value)) ?? 0) > 0) return [reasonAntiAffinityRulesNotMatch];
      }
      if (existingAnti.size > 0) {
        for (const [k, v] of Object.entries(nodeLabels)) if ((existingAnti.get(pairKey(k, v)) ?? 0) > 0) return [reasonExistingAntiAffinityRulesNotMatch];
      }
      return [];
    },
  };
}

/** Whether `node` passes the pod's nodeSelector and required node affinity (PodTopologySpread counts only such nodes). */
export function matchesNodeSelectorAndAffinity(pod: Pod, node: Node): boolean {
  return requiredNodeAffinityMatches(pod, node);
}
