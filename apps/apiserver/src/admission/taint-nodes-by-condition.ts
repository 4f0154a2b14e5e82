/**
 * The TaintNodesByCondition admission plugin of 1.23 (mutating, Nodes on CREATE only, not their
 * subresources): every new Node gets the taint `node.example.io/not-ready:NoSchedule` (no value,
 * no timeAdded), unless it already has a taint with that key and effect (the value is not looked
 * at, as 1.23's `Taint.MatchTaint`). So no pod lands on a node before it has reported Ready; the
 * node lifecycle controller (job-controller) removes the taint once the node's Ready condition is
 * True. Updates are left alone: a node agent re-registering an existing Node, or anyone removing
 * the taint by an update, is not re-tainted.
 *
 * @see plugin/pkg/admission/nodetaint/admission.go (kubernetes/kubernetes v1.23)
 */
import { NodeNotReadyTaintKey } from "@skiff/api-types";
import type { Node, Taint } from "@skiff/api-types";
import type { AdmissionPlugin } from "@skiff/apiserver-core";

/** The plugin's name, as 1.23's `--enable-admission-plugins` / `--disable-admission-plugins` spell it. */
export const TaintNodesByConditionPluginName = "TaintNodesByCondition";

/**
 * Appends `{key: node.example.io/not-ready, effect: NoSchedule}` to `node.spec.taints` unless a
 * taint with that key and effect is already there (any value). Mutates `node` (creates `spec` and
 * `spec.taints` when absent; never changes an existing entry); returns `node`.
 * @example addNotReadyTaint({ apiVersion: "v1", kind: "Node", metadata: { name: "n" } }).spec?.taints // [{ key: "node.example.io/not-ready", effect: "NoSchedule" }]
 * @see plugin/pkg/admission/nodetaint/admission.go (addNotReadyTaint) in kubernetes/kubernetes v1.23
 */
export function addNotReadyTaint(node: Node): Node {
  const spec = node.spec !== undefined && node.spec !== null && typeof node.spec === "object" ? node.spec : {};
  const taints: Taint[] = Array.isArray(spec.taints) ? spec.taints : [];
  if (taints.some((t) => t.key === NodeNotReadyTaintKey && t.effect === "NoSchedule")) return node;
  spec.taints = [...taints, { key: NodeNotReadyTaintKey, effect: "NoSchedule" }];
  node.spec = spec;
  return node;
}

/**
 * The plugin; see the module comment. Only `mutate`.
 * @example admission: [namespaceLifecycle(storage), serviceAccountAdmission(...), defaultTolerationSecondsAdmission(), taintNodesByConditionAdmission()]
 */
export function taintNodesByConditionAdmission(): AdmissionPlugin {
  return {
    name: TaintNodesByConditionPluginName,
    mutate(attrs) {
      if (attrs.operation !== "CREATE" || attrs.object === undefined) return;
      if (attrs.info.apiGroup !== "" || attrs.info.resource !== "nodes" || attrs.info.subresource !== "") return;
      addNotReadyTaint(attrs.object as Node);
    },
  };
}
