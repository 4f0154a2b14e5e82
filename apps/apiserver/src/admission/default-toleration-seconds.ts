/**
 * The DefaultTolerationSeconds admission plugin of 1.23 (mutating, pods on CREATE and UPDATE,
 * not their subresources): a pod with no toleration for `node.example.io/not-ready:NoExecute`
 * gets `{key: node.example.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds:
 * <--default-not-ready-toleration-seconds>}`, and likewise for `node.example.io/unreachable`
 * (`--default-unreachable-toleration-seconds`). A toleration counts when its key is that key or
 * empty and its effect is NoExecute or empty (operator and value are not looked at, as in 1.23).
 * So a pod on a node that stops reporting is evicted by the node lifecycle controller after 300 s,
 * not at once.
 *
 * @see plugin/pkg/admission/defaulttolerationseconds/admission.go (kubernetes/kubernetes v1.23)
 */
import { NodeNotReadyTaintKey, NodeUnreachableTaintKey } from "@skiff/api-types";
import type { Pod, Toleration } from "@skiff/api-types";
import type { AdmissionPlugin } from "@skiff/apiserver-core";

/** Options of {@link defaultTolerationSecondsAdmission}: the apiserver flags of the same names. */
export interface DefaultTolerationSecondsOptions {
  /** `--default-not-ready-toleration-seconds`. @defaultValue 300 */
  readonly defaultNotReadyTolerationSeconds?: number;
  /** `--default-unreachable-toleration-seconds`. @defaultValue 300 */
  readonly defaultUnreachableTolerationSeconds?: number;
}

function tolerates(tolerations: readonly Toleration[], key: string): boolean {
  return tolerations.some((t) => (t.key === key || !t.key) && (t.effect === "NoExecute" || !t.effect));
}

/**
 * Adds the default not-ready / unreachable NoExecute tolerations a pod lacks (see the module
 * comment). Mutates `pod.spec.tolerations` (appends; never changes an existing entry); returns
 * `pod`. A pod without `spec` is left alone (validation refuses it).
 * @example addDefaultTolerations(pod, 300, 300).spec.tolerations // [..., {key: "node.example.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300}, ...]
 */
export function addDefaultTolerations(pod: Pod, notReadySeconds: number, unreachableSeconds: number): Pod {
  const spec = pod.spec;
  if (spec === undefined || spec === null || typeof spec !== "object") return pod;
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const add: Toleration[] = [];
  if (!tolerates(tolerations, NodeNotReadyTaintKey)) add.push({ key: NodeNotReadyTaintKey, operator: "Exists", effect: "NoExecute", tolerationSeconds: notReadySeconds });
  if (!tolerates(tolerations, NodeUnreachableTaintKey)) add.push({ key: NodeUnreachableTaintKey, operator: "Exists", effect: "NoExecute", tolerationSeconds: unreachableSeconds });
  if (add.length > 0) spec.tolerations = [...tolerations, ...add];
  return pod;
}

/**
 * The plugin; see the module comment. Only `mutate`.
 * @example admission: [namespaceLifecycle(storage), serviceAccountAdmission(...), defaultTolerationSecondsAdmission({ defaultNotReadyTolerationSeconds: 300 })]
 */
export function defaultTolerationSecondsAdmission(o: DefaultTolerationSecondsOptions = {}): AdmissionPlugin {
  const notReady = o.defaultNotReadyTolerationSeconds ?? 300;
  const unreachable = o.defaultUnreachableTolerationSeconds ?? 300;
  return {
    name: "DefaultTolerationSeconds",
    mutate(attrs) {
      if (attrs.operation === "DELETE" || attrs.object === undefined) return;
      if (attrs.info.apiGroup !== "" || attrs.info.resource !== "pods" || attrs.info.subresource !== "") return;
      addDefaultTolerations(attrs.object as Pod, notReady, unreachable);
    },
  };
}
