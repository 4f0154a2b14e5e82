/**
 * Taints and tolerations: whether a toleration tolerates a taint, and the first taint of a node
 * that none of a pod's tolerations tolerates.
 *
 * @see staging/src/k8s.io/api/core/v1/toleration.go (`ToleratesTaint`) in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go (`FindMatchingUntoleratedTaint`) in kubernetes/kubernetes v1.23
 */
import type { Taint, Toleration } from "@skiff/api-types";

/**
 * Whether `toleration` tolerates `taint`: the same effect (an empty effect matches every effect),
 * the same key (an empty key matches every key; validation allows it only with `Exists`), and
 * operator `Exists`, or `Equal` (also the empty operator) with an equal value. Any other operator
 * tolerates nothing. Pure.
 * @see staging/src/k8s.io/api/core/v1/toleration.go (`ToleratesTaint`) in kubernetes/kubernetes v1.23
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  const op = toleration.operator ?? "";
  if (op === "Exists") return true;
  if (op === "" || op === "Equal") return (toleration.value ?? "") === (taint.value ?? "");
  return false;
}

/** Whether any of `tolerations` tolerates `taint`. */
export function taintToleratedBy(taint: Taint, tolerations: readonly Toleration[]): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/**
 * The first of `taints` (in the node's order) that passes `filter` and that no toleration
 * tolerates, or `undefined` when every such taint is tolerated. The scheduler filters on
 * `NoSchedule` and `NoExecute`, the node agent's admission on `NoExecute` only. Pure.
 * @see staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go (`FindMatchingUntoleratedTaint`) in kubernetes/kubernetes v1.23
 */
export function findMatchingUntoleratedTaint(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[] | undefined, filter: (taint: Taint) => boolean): Taint | undefined {
  const tols = tolerations ?? [];
  for (const taint of taints ?? []) {
    if (!filter(taint)) continue;
    if (!taintToleratedBy(taint, tols)) return taint;
  }
  return undefined;
}
