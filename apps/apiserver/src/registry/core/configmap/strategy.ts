/**
 * core/v1 ConfigMap (namespaced, no status) and its printer.
 * @see pkg/registry/core/configmap/strategy.go
 * @see pkg/printers/internalversion/printers.go (printConfigMap)
 */
import type { ConfigMap } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { kindValidators } from "@skiff/validation";
import { ageColumn, createSimpleStrategy, nameColumn } from "../../../internal/simple-strategy.js";

type T = ConfigMap & Record<string, unknown>;

/** ConfigMap table: NAME, DATA (number of `data` plus `binaryData` keys), AGE. */
export const configMapTable: TableConvertor<T> = {
  columns: [nameColumn, { name: "Data", type: "string", format: "", description: "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.", priority: 0 }, ageColumn],
  cells(cm, now) {
    return [cm.metadata?.name ?? "", Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length, translateTimestampSince(cm.metadata?.creationTimestamp, now)];
  },
};

/**
 * The ConfigMap strategy: no defaults, no generation; DELETE answers a `Status` (1.23's store does
 * not return the deleted object). Validation: `kindValidators.ConfigMap` (keys, 1 MiB, immutable).
 */
export function createConfigMapStrategy(): ResourceStrategy<T> {
  return {
    ...createSimpleStrategy<T>({ group: "", plural: "configmaps", validators: kindValidators.ConfigMap, table: configMapTable }),
    returnDeletedObject: false,
  };
}
