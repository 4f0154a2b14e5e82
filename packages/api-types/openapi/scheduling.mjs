// scheduling.k8s.io/v1 (kept verbatim, as coordination.k8s.io: clients and kubectl know the
// group): PriorityClass, in 1.23 shape.
import { SCHEDULING, bool, enumStr, gvk, int32, kindSchema, listKindSchema, str } from "./dsl.mjs";

const S = (name) => SCHEDULING + name;

export const schedulingSchemas = {
  [S("PriorityClass")]: kindSchema({
    gvks: gvk("scheduling.k8s.io", "v1", "PriorityClass"),
    description:
      "A mapping from a priority class name to the integer priority pods of that class get. Cluster-scoped. Pods name it in spec.priorityClassName; the Priority admission plugin then sets their spec.priority and spec.preemptionPolicy from it, and the scheduler takes higher-priority pods first.",
    properties: {
      value: int32(
        "The priority of pods of this class. Higher is more important. At most 1000000000 for user classes; larger values are reserved for the built-in system-cluster-critical (2000000000) and system-node-critical (2000001000) classes. Cannot be updated.",
      ),
      globalDefault: bool(
        "Whether this class is the priority of pods that name none. At most one class may be the global default (if several are, as after a race, the one with the lowest value is used). Pods created before the default existed keep priority 0.",
      ),
      description: str("Free text: when this priority class should be used."),
      preemptionPolicy: enumStr(["Never", "PreemptLowerPriority"], "Whether pods of this class may preempt pods of lower priority. Defaults to PreemptLowerPriority. Cannot be updated."),
    },
    required: ["value"],
  }),
  [S("PriorityClassList")]: listKindSchema({ group: "scheduling.k8s.io", version: "v1", kind: "PriorityClassList", itemSchema: S("PriorityClass"), itemKind: "PriorityClass" }),
};
