/**
 * core/v1 PodTemplate (namespaced, no status) and its printer.
 * @see pkg/registry/core/podtemplate/strategy.go
 * @see pkg/printers/internalversion/printers.go (printPodTemplate)
 */
import type { PodTemplate } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { dropDisabledPodSpecFields, kindValidators, setPodTemplateDefaults } from "@skiff/validation";
import { defaultPodSpecGates, validationOptionsFor, type PodSpecGates } from "../../../internal/pod-spec-gates.js";
import { createSimpleStrategy, formatLabels, nameColumn } from "../../../internal/simple-strategy.js";

type T = PodTemplate & Record<string, unknown>;
const col = (name: string, description: string) => ({ name, type: "string", format: "", description, priority: 0 });

/** PodTemplate table: NAME, CONTAINERS, IMAGES, POD LABELS. */
export const podTemplateTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    col("Containers", "Names of each container in the template."),
    col("Images", "Images referenced by each container in the template."),
    col("Pod Labels", "The labels for the pod template."),
  ],
  cells(p) {
    const containers = p.template?.spec?.containers ?? [];
    return [
      p.metadata?.name ?? "",
      containers.map((c) => c.name).join(","),
      containers.map((c) => c.image ?? "").join(","),
      formatLabels(p.template?.metadata?.labels),
    ];
  },
};

/**
 * The PodTemplate strategy; generation bumps when `template` changes. The template's spec loses the
 * fields of disabled gates (`dropDisabledPodSpecFields`) unless the old template used them.
 */
export function createPodTemplateStrategy(gates: PodSpecGates = defaultPodSpecGates): ResourceStrategy<T> {
  return createSimpleStrategy<T>({
    group: "",
    plural: "podtemplates",
    applyDefaults: setPodTemplateDefaults,
    prepare: (t, old) => dropDisabledPodSpecFields(t.template?.spec, old?.template?.spec, gates),
    validators: kindValidators.PodTemplate,
    validationOptions: validationOptionsFor(gates),
    generationField: "template",
    table: podTemplateTable,
  });
}
