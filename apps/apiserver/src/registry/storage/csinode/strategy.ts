/**
 * storage.example.io/v1 CSINode (cluster-scoped, no status) and its printer.
 * @see pkg/registry/storage/csinode/strategy.go
 * @see pkg/printers/internalversion/printers.go (printCSINode)
 */
import type { CSINode } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { kindValidators } from "@skiff/validation";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { ageColumn, createSimpleStrategy, nameColumn } from "../../../internal/simple-strategy.js";

type T = CSINode & Record<string, unknown>;

/** CSINode table: NAME, DRIVERS (count), AGE. */
export const csiNodeTable: TableConvertor<T> = {
  columns: [nameColumn, { name: "Drivers", type: "integer", format: "", description: "Drivers indicates the number of CSI drivers registered on the node", priority: 0 }, ageColumn],
  cells(n, now) {
    return [n.metadata?.name ?? "", (n.spec?.drivers ?? []).length, translateTimestampSince(n.metadata?.creationTimestamp, now)];
  },
};

/** The CSINode strategy. As 1.23: no generation, and an update must carry a resourceVersion (`AllowUnconditionalUpdate` false). */
export function createCSINodeStrategy(): ResourceStrategy<T> {
  return createSimpleStrategy<T>({
    group: "storage.example.io",
    plural: "csinodes",
    allowUnconditionalUpdate: false,
    validators: kindValidators.CSINode,
    table: csiNodeTable,
  });
}
