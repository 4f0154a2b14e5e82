/**
 * core/v1 ServiceAccount (namespaced, no status) and its printer.
 * @see pkg/registry/core/serviceaccount/strategy.go
 * @see pkg/printers/internalversion/printers.go (printServiceAccount)
 */
import type { ServiceAccount } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { kindValidators } from "@skiff/validation";
import { ageColumn, createSimpleStrategy, nameColumn } from "../../../internal/simple-strategy.js";

type T = ServiceAccount & Record<string, unknown>;

/** ServiceAccount table: NAME, SECRETS (number of `secrets`), AGE. */
export const serviceAccountTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    { name: "Secrets", type: "string", format: "", description: "Secrets is the list of secrets allowed to be used by pods running using this ServiceAccount. More info: https://kubernetes.io/docs/concepts/configuration/secret", priority: 0 },
    ageColumn,
  ],
  cells(sa, now) {
    return [sa.metadata?.name ?? "", (sa.secrets ?? []).length, translateTimestampSince(sa.metadata?.creationTimestamp, now)];
  },
};

// 1.23 keeps only the name of each `secrets` reference (cleanSecretReferences).
function cleanSecretReferences(sa: T): void {
  if (sa.secrets !== undefined) sa.secrets = sa.secrets.map((s) => (s.name !== undefined ? { name: s.name } : {}));
}

/**
 * The ServiceAccount strategy: on create and update each `secrets` entry is cut down to its
 * name, as 1.23's `cleanSecretReferences`; DELETE answers a `Status`.
 */
export function createServiceAccountStrategy(): ResourceStrategy<T> {
  const base = createSimpleStrategy<T>({ group: "", plural: "serviceaccounts", validators: kindValidators.ServiceAccount, table: serviceAccountTable });
  return {
    ...base,
    prepareForCreate(ctx, obj) {
      cleanSecretReferences(obj);
      base.prepareForCreate(ctx, obj);
    },
    prepareForUpdate(ctx, obj, old) {
      cleanSecretReferences(obj);
      base.prepareForUpdate(ctx, obj, old);
    },
    returnDeletedObject: false,
  };
}
