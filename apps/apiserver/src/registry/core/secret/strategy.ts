/**
 * core/v1 Secret (namespaced, no status) and its printer.
 * @see pkg/registry/core/secret/strategy.go
 * @see pkg/printers/internalversion/printers.go (printSecret)
 */
import type { Secret } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { kindValidators, setSecretDefaults } from "@skiff/validation";
import { ageColumn, createSimpleStrategy, nameColumn, nameIndexedField } from "../../../internal/simple-strategy.js";

type T = Secret & Record<string, unknown>;
const col = (name: string, description: string) => ({ name, type: "string", format: "", description, priority: 0 });

/** Secret table: NAME, TYPE, DATA (number of keys), AGE. Never shows a value. */
export const secretTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    col("Type", "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
    col(
      "Data",
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ),
    ageColumn,
  ],
  cells(s, now) {
    return [s.metadata?.name ?? "", s.type ?? "", Object.keys(s.data ?? {}).length, translateTimestampSince(s.metadata?.creationTimestamp, now)];
  },
};

/**
 * The Secret strategy. Defaulting (at decode, as 1.23's conversion and defaults) merges
 * `stringData` into `data` and sets `type` Opaque; an update without a type keeps the old one;
 * the field selector `type` is supported; DELETE answers a `Status`.
 */
export function createSecretStrategy(): ResourceStrategy<T> {
  const base = createSimpleStrategy<T>({
    group: "",
    plural: "secrets",
    applyDefaults: setSecretDefaults,
    validators: kindValidators.Secret,
    table: secretTable,
    fieldSelectorKeys: ["type"],
    fields: (s) => ({ type: s.type ?? "" }),
  });
  return {
    ...base,
    indexedField: nameIndexedField,
    prepareForUpdate(ctx, obj, old) {
      if ((obj.type ?? "") === "" && old.type !== undefined) obj.type = old.type;
      base.prepareForUpdate(ctx, obj, old);
    },
    returnDeletedObject: false,
  };
}
