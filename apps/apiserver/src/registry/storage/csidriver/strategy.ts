/**
 * storage.example.io/v1 CSIDriver (cluster-scoped, no status) and its printer.
 * @see pkg/registry/storage/csidriver/strategy.go
 * @see pkg/printers/internalversion/printers.go (printCSIDriver)
 */
import type { CSIDriver } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { kindValidators, setCSIDriverDefaults } from "@skiff/validation";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { ageColumn, createSimpleStrategy, nameColumn } from "../../../internal/simple-strategy.js";

type T = CSIDriver & Record<string, unknown>;
const col = (name: string, type: string, description: string) => ({ name, type, format: "", description, priority: 0 });

/** CSIDriver table: NAME, ATTACHREQUIRED, PODINFOONMOUNT, STORAGECAPACITY, TOKENREQUESTS, REQUIRESREPUBLISH, MODES, AGE. */
export const csiDriverTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    col("AttachRequired", "boolean", "Indicates this CSI volume driver requires an attach operation."),
    col("PodInfoOnMount", "boolean", "Indicates this CSI volume driver requires additional pod information during mount operations."),
    col("StorageCapacity", "boolean", "Indicates this CSI volume driver wants pod scheduling to consider storage capacity."),
    col("TokenRequests", "string", "Indicates the CSI volume driver requests service account tokens."),
    col("RequiresRepublish", "boolean", "Indicates the CSI volume driver wants NodePublishVolume being periodically called."),
    col("Modes", "string", "Defines the kind of volumes this CSI volume driver supports."),
    ageColumn,
  ],
  cells(d, now) {
    const spec = d.spec;
    const modes = (spec?.volumeLifecycleModes ?? []).join(",");
    const tokenRequests = spec?.tokenRequests;
    return [
      d.metadata?.name ?? "",
      spec?.attachRequired ?? true,
      spec?.podInfoOnMount ?? false,
      spec?.storageCapacity ?? false,
      tokenRequests === undefined || tokenRequests === null ? "<unset>" : tokenRequests.map((t) => t.audience).join(","),
      spec?.requiresRepublish ?? false,
      modes === "" ? "<none>" : modes,
      translateTimestampSince(d.metadata?.creationTimestamp, now),
    ];
  },
};

/**
 * The CSIDriver strategy: defaults, validation, returns the deleted object. As 1.23: no generation
 * on create, any spec change bumps it (only the mutable fields can change), and an update must
 * carry a resourceVersion (`AllowUnconditionalUpdate` false).
 */
export function createCSIDriverStrategy(): ResourceStrategy<T> {
  return createSimpleStrategy<T>({
    group: "storage.example.io",
    plural: "csidrivers",
    generationField: "spec",
    generationOnCreate: false,
    allowUnconditionalUpdate: false,
    applyDefaults: setCSIDriverDefaults,
    validators: kindValidators.CSIDriver,
    table: csiDriverTable,
  });
}
