/**
 * The Priority admission plugin of 1.23 (mutating, pods on CREATE and UPDATE, not their
 * subresources), for a cluster whose only PriorityClasses are the two built-in ones (Skiff serves
 * no `scheduling.k8s.io` PriorityClass API, so no others and no global default can exist):
 * - on create, `spec.priorityClassName` is resolved: empty → priority 0 (no default class);
 *   `system-cluster-critical` → 2000000000; `system-node-critical` → 2000001000; any other name is
 *   refused with 403 `no PriorityClass with name <name> was found`. `spec.priority` is set to the
 *   value, and `spec.preemptionPolicy` to `PreemptLowerPriority` (the classes have none). A pod
 *   that gives a different `priority` or `preemptionPolicy` itself is refused with 403 and 1.23's
 *   message.
 * - on update, a `priority` / `preemptionPolicy` the new object lacks is kept from the old one
 *   (1.23 set them at create; validation then forbids changing them).
 *
 * @see plugin/pkg/admission/priority/admission.go, pkg/apis/scheduling/types.go (SystemClusterCritical, SystemNodeCritical) in kubernetes/kubernetes v1.23
 */
import type { Pod } from "@skiff/api-types";
import { newForbidden } from "@skiff/apimachinery";
import type { AdmissionPlugin } from "@skiff/apiserver-core";

/** The plugin's name, as 1.23's `--enable-admission-plugins` spells it. */
export const PriorityPluginName = "Priority";

/** The built-in PriorityClasses and their values (1.23's `SystemPriorityClasses`). */
export const systemPriorityClasses: ReadonlyMap<string, number> = new Map([
  ["system-cluster-critical", 2_000_000_000],
  ["system-node-critical", 2_000_001_000],
]);

/** The preemption policy a PriorityClass without one gives (1.23's default). */
export const defaultPreemptionPolicy = "PreemptLowerPriority";

/**
 * Resolves a new pod's priority as the module comment says. Mutates `pod.spec` (sets
 * `priority`, `preemptionPolicy`); returns `pod`. A pod without `spec` is left alone (validation
 * refuses it).
 * @returns the refusal message when the pod must be refused (the caller turns it into a 403), else undefined.
 */
export function admitNewPodPriority(pod: Pod): string | undefined {
  const spec = pod.spec;
  if (spec === undefined || spec === null || typeof spec !== "object") return undefined;
  const className = spec.priorityClassName ?? "";
  let priority = 0;
  if (className !== "") {
    const value = systemPriorityClasses.get(className);
    if (value === undefined) return `no PriorityClass with name ${className} was found`;
    priority = value;
  }
  if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
    return `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`;
  }
  spec.priority = priority;
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== defaultPreemptionPolicy) {
    return `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${defaultPreemptionPolicy} from the given PriorityClass name`;
  }
  spec.preemptionPolicy = defaultPreemptionPolicy;
  return undefined;
}

/**
 * The plugin; see the module comment. Only `mutate`.
 * @example admission: [namespaceLifecycle(storage), serviceAccountAdmission(...), taintNodesByConditionAdmission(), priorityAdmission(), defaultTolerationSecondsAdmission()]
 */
export function priorityAdmission(): AdmissionPlugin {
  return {
    name: PriorityPluginName,
    mutate(attrs) {
      if (attrs.operation === "DELETE" || attrs.object === undefined) return;
      if (attrs.info.apiGroup !== "" || attrs.info.resource !== "pods" || attrs.info.subresource !== "") return;
      const pod = attrs.object as Pod;
      if (attrs.operation === "UPDATE") {
        const old = attrs.oldObject as Pod | undefined;
        if (pod.spec && old?.spec) {
          if (pod.spec.priority === undefined && old.spec.priority !== undefined) pod.spec.priority = old.spec.priority;
          if (pod.spec.preemptionPolicy === undefined && old.spec.preemptionPolicy !== undefined) pod.spec.preemptionPolicy = old.spec.preemptionPolicy;
        }
        return;
      }
      const refused = admitNewPodPriority(pod);
      if (refused !== undefined) {
        const name = attrs.info.name || pod.metadata?.name || pod.metadata?.generateName || "Unknown";
        throw newForbidden({ group: "", resource: "pods" }, name, new Error(refused));
      }
    },
  };
}
