/**
 * Node selectors and required node affinity: whether a node's labels and name satisfy a pod's
 * `spec.nodeSelector` and `requiredDuringSchedulingIgnoredDuringExecution` terms. The scheduler's
 * NodeAffinity filter and preferred-affinity scoring and the node agent's admission share it.
 *
 * @see staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go (`Requirement.Matches`) in kubernetes/kubernetes v1.23
 */
import type { Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod } from "@skiff/api-types";

const int64Pattern = /^[+-]?\d+$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(s, 10, 64)`: the value, or `undefined` when `s` is not a base-10 int64. */
function parseInt64(s: string | undefined): bigint | undefined {
  if (s === undefined || !int64Pattern.test(s)) return undefined;
  const v = BigInt(s);
  return v < int64Min || v > int64Max ? undefined : v;
}

/**
 * Whether a label requirement of a node selector term holds for `value` (the node's label,
 * `undefined` when the node has no such label). A requirement 1.23 cannot parse matches nothing:
 * `In`/`NotIn` without values, `Exists`/`DoesNotExist` with values, `Gt`/`Lt` without exactly one
 * integer value, an unknown operator. `Gt`/`Lt` compare as int64; a label that is not an int64
 * fails them. Pure.
 * @see staging/src/k8s.io/apimachinery/pkg/labels/selector.go (`NewRequirement`, `Requirement.Matches`) in kubernetes/kubernetes v1.23
 */
export function matchNodeSelectorRequirement(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case "In":
      return values.length > 0 && value !== undefined && values.includes(value);
    case "NotIn":
      return values.length > 0 && (value === undefined || !values.includes(value));
    case "Exists":
      return values.length === 0 && value !== undefined;
    case "DoesNotExist":
      return values.length === 0 && value === undefined;
    case "Gt":
    case "Lt": {
      if (values.length !== 1) return false;
      const want = parseInt64(values[0]);
      const have = parseInt64(value);
      if (want === undefined || have === undefined) return false;
      return req.operator === "Gt" ? have > want : have < want;
    }
    default:
      return false;
  }
}

/**
 * The fields a node selector term's `matchFields` may read: `metadata.name` only; any other key
 * reads as `""`, as a Go `fields.Set` does.
 */
function nodeField(node: Node, key: string): string {
  return key === "metadata.name" ? (node.metadata?.name ?? "") : "";
}

/**
 * Whether `node` matches one node selector term: every `matchExpressions` requirement against
 * its labels and every `matchFields` requirement against its fields (`In`/`NotIn` with exactly
 * one value; anything else matches nothing). A term with neither matches no node. Pure.
 * @see staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go (`nodeSelectorTerm.match`, `nodeSelectorRequirementsAsFieldSelector`) in kubernetes/kubernetes v1.23
 */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  for (const e of exprs) if (!matchNodeSelectorRequirement(e, Object.hasOwn(labels, e.key) ? labels[e.key] : undefined)) return false;
  for (const f of fields) {
    const values = f.values ?? [];
    if ((f.operator !== "In" && f.operator !== "NotIn") || values.length !== 1) return false;
    const equal = nodeField(node, f.key) === values[0];
    if (f.operator === "In" ? !equal : equal) return false;
  }
  return true;
}

/** Whether `node` matches a node selector: any of its terms (terms are ORed; no terms match nothing). Pure. */
export function nodeSelectorMatches(selector: NodeSelector, node: Node): boolean {
  return (selector.nodeSelectorTerms ?? []).some((t) => nodeSelectorTermMatches(t, node));
}

/**
 * Whether `node` satisfies what `pod` requires of its node: every `spec.nodeSelector` label with
 * the same value (an empty value still needs the label), and, when set, one of the terms of
 * `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`. Pure.
 * @see staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go (`GetRequiredNodeAffinity`, `RequiredNodeAffinity.Match`) in kubernetes/kubernetes v1.23
 */
export function requiredNodeAffinityMatches(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (!Object.hasOwn(labels, k) || labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required === undefined || nodeSelectorMatches(required, node);
}
