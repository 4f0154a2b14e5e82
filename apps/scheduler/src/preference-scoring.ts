/**
 * The scores of a pod's and the cluster's preferences, beside the resource scores: NodeAffinity
 * (preferred node affinity), TaintToleration (PreferNoSchedule taints), InterPodAffinity
 * (preferred pod affinity and anti-affinity, the existing pods' too, and their required affinity
 * at weight 1), PodTopologySpread (`whenUnsatisfiable: ScheduleAnyway` constraints) and
 * ImageLocality (the pod's images already on the node), each 0..100 as 1.23's plugins score and
 * normalize them, summed with 1.23's default plugin weights (1, 1, 1, 2 and 1).
 *
 * @see pkg/scheduler/framework/plugins/{nodeaffinity,tainttoleration,interpodaffinity/scoring.go,podtopologyspread/scoring.go,imagelocality}, pkg/scheduler/framework/plugins/helper/normalize_score.go, pkg/scheduler/apis/config/v1beta2/default_plugins.go in kubernetes/kubernetes v1.23
 */

import { NodeHostnameLabel as hostnameLabel, type Node, type Pod, type WeightedPodAffinityTerm } from "@skiff/api-types";
import type { Selector } from "@skiff/apimachinery";
import { compileTerm, matchesNodeSelectorAndAffinity, selectorOf, termMatches, type AffinityTerm, type NamespaceLabels } from "./inter-pod.js";
import { nodeSelectorTermMatches, taintToleratedBy } from "@skiff/component-helpers";
import type { NodeInfo } from "./predicates.js";
import { maxNodeScore } from "./scoring.js";


// helper.DefaultNormalizeScore: scaled to 0..max by the highest score; reversed on request.
function defaultNormalize(scores: number[], reverse: boolean): number[] {
  const max = Math.max(0, ...scores);
  if (max === 0) return scores.map(() => (reverse ? maxNodeScore : 0));
  return scores.map((s) => {
    const v = Math.trunc((maxNodeScore * s) / max);
    return reverse ? maxNodeScore - v : v;
  });
}

function nodeAffinityScores(pod: Pod, feasible: readonly NodeInfo[]): number[] {
  const terms = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  if (terms.length === 0) return feasible.map(() => 0);
  return defaultNormalize(
    feasible.map((i) => terms.reduce((sum, t) => (t.weight !== 0 && nodeSelectorTermMatches(t.preference, i.node) ? sum + t.weight : sum), 0)),
    false,
  );
}

function taintTolerationScores(pod: Pod, feasible: readonly NodeInfo[]): number[] {
  const tolerations = (pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === "PreferNoSchedule");
  const counts = feasible.map((i) => (i.node.spec?.taints ?? []).filter((taint) => taint.effect === "PreferNoSchedule" && !taintToleratedBy(taint, tolerations)).length);
  return defaultNormalize(counts, true);
}

// ---- ImageLocality ---------------------------------------------------------------------------

const mb = 1024 * 1024;
/** Below this sum of image sizes a node scores 0. */
const imageMinThreshold = 23 * mb;
/** Per container: from this sum up a node scores 100. */
const imageMaxContainerThreshold = 1000 * mb;

// Per Node object (replaced on change, never mutated): its images by every name, with their size.
const imagesOf = new WeakMap<Node, ReadonlyMap<string, number>>();

function nodeImages(node: Node): ReadonlyMap<string, number> {
  let m = imagesOf.get(node);
  if (m === undefined) {
    const built = new Map<string, number>();
    for (const image of node.status?.images ?? []) for (const name of image.names ?? []) built.set(name, Number(image.sizeBytes ?? 0));
    imagesOf.set(node, (m = built));
  }
  return m;
}

/** An image name as the node status reports it: `:latest` added when it has no tag. */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(":") <= name.lastIndexOf("/") ? `${name}:latest` : name;
}

/**
 * ImageLocality: per node, the sum over the pod's app containers of the size of their image on
 * the node scaled by the share of all nodes that have it (so an image everywhere does not tip the
 * choice), clamped to [23 MiB, 1000 MiB × containers] and scaled to 0..100 (integer division).
 * @see pkg/scheduler/framework/plugins/imagelocality/image_locality.go in kubernetes/kubernetes v1.23
 */
export function imageLocalityScores(pod: Pod, feasible: readonly NodeInfo[], all: readonly NodeInfo[]): number[] {
  const containers = pod.spec?.containers ?? [];
  if (containers.length === 0 || all.length === 0) return feasible.map(() => 0);
  const names = containers.map((c) => normalizedImageName(c.image ?? ""));
  const spread = new Map<string, number>();
  for (const name of new Set(names)) spread.set(name, all.filter((i) => nodeImages(i.node).has(name)).length / all.length);
  const maxThreshold = imageMaxContainerThreshold * containers.length;
  return feasible.map((i) => {
    const images = nodeImages(i.node);
    let sum = 0;
    for (const name of names) {
      const size = images.get(name);
      if (size !== undefined) sum += Math.trunc(size * (spread.get(name) ?? 0));
    }
    const clamped = Math.min(Math.max(sum, imageMinThreshold), maxThreshold);
    return Math.trunc((maxNodeScore * (clamped - imageMinThreshold)) / (maxThreshold - imageMinThreshold));
  });
}

// ---- InterPodAffinity ------------------------------------------------------------------------

type Term = AffinityTerm & { readonly weight: number };

const weighted = (terms: readonly WeightedPodAffinityTerm[] | undefined, ns: string): Term[] => (terms ?? []).map((t) => ({ ...compileTerm(t.podAffinityTerm, ns), weight: t.weight }));

function hasAffinityTerms(p: Pod): boolean {
  const a = p.spec?.affinity;
  return (
    (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 ||
    (a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 ||
    (a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0
  );
}

/** 1.23's default `hardPodAffinityWeight`: an existing pod's required affinity counts as a preference of this weight. */
const hardPodAffinityWeight = 1;

function interPodAffinityScores(pod: Pod, feasible: readonly NodeInfo[], all: readonly NodeInfo[], nsLabels: NamespaceLabels): number[] {
  const ns = pod.metadata?.namespace ?? "";
  const affinity = weighted(pod.spec?.affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution, ns);
  const anti = weighted(pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution, ns);
  const own = affinity.length + anti.length > 0;
  // topologyKey → value → score
  const topo = new Map<string, Map<string, number>>();
  const add = (key: string, value: string, by: number) => {
    let m = topo.get(key);
    if (!m) topo.set(key, (m = new Map()));
    m.set(value, (m.get(value) ?? 0) + by);
  };
  const process = (terms: readonly Term[], target: Pod, labels: Readonly<Record<string, string>>, sign: number) => {
    for (const t of terms) {
      const value = labels[t.topologyKey];
      if (value !== undefined && termMatches(t, target, nsLabels)) add(t.topologyKey, value, t.weight * sign);
    }
  };
  let anyExisting = false;
  for (const info of all) {
    // Without rules of its own, only the pods with affinity rules can score the pod.
    const candidates = own ? info.pods : info.podsWithAffinity;
    if (candidates.length === 0) continue;
    const labels = info.node.metadata?.labels ?? {};
    for (const existing of candidates) {
      const existingHas = hasAffinityTerms(existing);
      if (!own && !existingHas) continue;
      anyExisting ||= existingHas;
      process(affinity, existing, labels, 1);
      process(anti, existing, labels, -1);
      if (!existingHas) continue;
      const ens = existing.metadata?.namespace ?? "";
      const a = existing.spec?.affinity;
      process((a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => ({ ...compileTerm(t, ens), weight: hardPodAffinityWeight })), pod, labels, 1);
      process(weighted(a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution, ens), pod, labels, 1);
      process(weighted(a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution, ens), pod, labels, -1);
    }
  }
  if (!own && !anyExisting) return feasible.map(() => 0);
  const raw = feasible.map((i) => {
    const labels = i.node.metadata?.labels ?? {};
    let s = 0;
    for (const [key, values] of topo) {
      const v = labels[key];
      if (v !== undefined) s += values.get(v) ?? 0;
    }
    return s;
  });
  // interpodaffinity NormalizeScore: (s - min) * 100 / (max - min), 0 when all are equal.
  const max = Math.max(...raw);
  const min = Math.min(...raw);
  return raw.map((s) => (max === min ? 0 : Math.trunc(maxNodeScore * ((s - min) / (max - min)))));
}

// ---- PodTopologySpread -----------------------------------------------------------------------

function topologySpreadScores(pod: Pod, feasible: readonly NodeInfo[], all: readonly NodeInfo[]): number[] {
  const ns = pod.metadata?.namespace ?? "";
  const constraints = (pod.spec?.topologySpreadConstraints ?? [])
    .filter((c) => c.whenUnsatisfiable === "ScheduleAnyway")
    .map((c) => ({ maxSkew: c.maxSkew, key: c.topologyKey, selector: selectorOf(c.labelSelector) }));
  if (constraints.length === 0 || feasible.length === 0) return feasible.map(() => 0);
  const hasKeys = (i: NodeInfo) => constraints.every((c) => (i.node.metadata?.labels ?? {})[c.key] !== undefined);
  const countOn = (i: NodeInfo, selector: Selector) =>
    i.pods.reduce((n, p) => (!p.metadata?.deletionTimestamp && (p.metadata?.namespace ?? "") === ns && selector.matches(p.metadata?.labels ?? {}) ? n + 1 : n), 0);
  // The domains of the feasible nodes that have every key (the others are ignored: score 0).
  const ignored = feasible.map((i) => !hasKeys(i));
  const pairs = constraints.map(() => new Map<string, number>());
  for (const i of feasible) {
    if (!hasKeys(i)) continue;
    constraints.forEach((c, ci) => {
      if (c.key !== hostnameLabel) pairs[ci]?.set((i.node.metadata?.labels ?? {})[c.key] ?? "", 0);
    });
  }
  const eligible = feasible.length - ignored.filter(Boolean).length;
  const weights = constraints.map((c, ci) => Math.log((c.key === hostnameLabel ? eligible : (pairs[ci]?.size ?? 0)) + 2));
  // Pods are counted on every node the pod's node selector and affinity allow, in those domains.
  for (const i of all) {
    const labels = i.node.metadata?.labels ?? {};
    if (!hasKeys(i) || !matchesNodeSelectorAndAffinity(pod, i.node)) continue;
    constraints.forEach((c, ci) => {
      if (c.key === hostnameLabel) return;
      const m = pairs[ci];
      const v = labels[c.key] ?? "";
      if (m?.has(v)) m.set(v, (m.get(v) ?? 0) + countOn(i, c.selector));
    });
  }
  const raw = feasible.map((i, fi) => {
    if (ignored[fi]) return 0;
    const labels = i.node.metadata?.labels ?? {};
    let s = 0;
    constraints.forEach((c, ci) => {
      const cnt = c.key === hostnameLabel ? countOn(i, c.selector) : (pairs[ci]?.get(labels[c.key] ?? "") ?? 0);
      s += cnt * (weights[ci] ?? 0) + (c.maxSkew - 1);
    });
    return Math.round(s);
  });
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  raw.forEach((s, fi) => {
    if (ignored[fi]) return;
    min = Math.min(min, s);
    max = Math.max(max, s);
  });
  return raw.map((s, fi) => (ignored[fi] ? 0 : max === 0 ? maxNodeScore : Math.trunc((maxNodeScore * (max + min - s)) / max)));
}

/**
 * The preference scores of placing `pod` on each of the `feasible` nodes (index-aligned):
 * NodeAffinity + TaintToleration + InterPodAffinity + 2 × PodTopologySpread + ImageLocality, each
 * 0..100. `all`: every node of the snapshot (pods and images are counted on all of them). Pure;
 * does not mutate.
 */
export function preferenceScores(pod: Pod, feasible: readonly NodeInfo[], all: readonly NodeInfo[], nsLabels: NamespaceLabels): number[] {
  const na = nodeAffinityScores(pod, feasible);
  const tt = taintTolerationScores(pod, feasible);
  const ipa = interPodAffinityScores(pod, feasible, all, nsLabels);
  const pts = topologySpreadScores(pod, feasible, all);
  const il = imageLocalityScores(pod, feasible, all);
  return feasible.map((_, i) => (na[i] ?? 0) + (tt[i] ?? 0) + (ipa[i] ?? 0) + 2 * (pts[i] ?? 0) + (il[i] ?? 0));
}
