/**
 * scheduling.k8s.io/v1 PriorityClass (cluster-scoped, no status) and its printer. As 1.23:
 * generation 1 on create and never bumped, an update may omit resourceVersion, DELETE answers
 * with a Status. The built-in classes' protection from deletion and the one-global-default rule
 * live in the Priority admission plugin (`admission/priority.ts`).
 * @see pkg/registry/scheduling/priorityclass/strategy.go
 * @see pkg/printers/internalversion/printers.go (printPriorityClass)
 */
import type { PriorityClass } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { kindValidators, setPriorityClassDefaults } from "@skiff/validation";
import { ageColumn, createSimpleStrategy, nameColumn } from "../../../internal/simple-strategy.js";

type T = PriorityClass & Record<string, unknown>;

/** PriorityClass table: NAME, VALUE, GLOBAL-DEFAULT, AGE. */
export const priorityClassTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    { name: "Value", type: "integer", format: "", description: "The value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.", priority: 0 },
    {
      name: "Global-Default",
      type: "boolean",
      format: "",
      description:
        "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
      priority: 0,
    },
    ageColumn,
  ],
  cells(pc, now) {
    return [pc.metadata?.name ?? "", pc.value ?? 0, pc.globalDefault === true, translateTimestampSince(pc.metadata?.creationTimestamp, now)];
  },
};

/** The PriorityClass strategy. */
export function createPriorityClassStrategy(): ResourceStrategy<T> {
  const strategy = createSimpleStrategy<T>({
    group: "scheduling.k8s.io",
    plural: "priorityclasses",
    applyDefaults: setPriorityClassDefaults,
    validators: kindValidators.PriorityClass,
    table: priorityClassTable,
  });
  return {
    ...strategy,
    prepareForCreate(_ctx, pc) {
      (pc.metadata ??= {}).generation = 1;
    },
    returnDeletedObject: false,
  };
}
