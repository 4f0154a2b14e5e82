/**
 * core/v1 Namespace (cluster-scoped, /status) and its printer. Create sets phase `Active` and the
 * `kubernetes` finalizer; marking `Terminating` on delete is the store's deletion hook (core-a).
 * @see pkg/registry/core/namespace/strategy.go
 */
import type { Namespace } from "@skiff/api-types";
import { findResource } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { setNamespaceDefaults, validateNamespace, validateNamespaceUpdate } from "@skiff/validation";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { ageColumn, nameColumn } from "../../../internal/simple-strategy.js";
import { keepAllButStatus } from "../../../internal/status-split.js";

type T = Namespace & Record<string, unknown>;

/** The finalizer every namespace gets on create. */
export const namespaceFinalizer = "kubernetes";

/** Namespace table: NAME, STATUS, AGE. */
export const namespaceTable: TableConvertor<T> = {
  columns: [nameColumn, { name: "Status", type: "string", format: "", description: "The status of the namespace", priority: 0 }, ageColumn],
  cells: (ns, now) => [ns.metadata?.name ?? "", ns.status?.phase ?? "", translateTimestampSince(ns.metadata?.creationTimestamp, now)],
};

/** The Namespace strategy. */
export function createNamespaceStrategy(): ResourceStrategy<T> {
  const resource = findResource({ group: "", resource: "namespaces" });
  if (resource === undefined) throw new Error("namespaces missing from the resources table");
  return {
    resource,
    applyDefaults: (ns) => setNamespaceDefaults(ns),
    prepareForCreate(_c, ns) {
      ns.status = { phase: "Active" };
      const finalizers = ns.spec?.finalizers ?? [];
      ns.spec = { ...ns.spec, finalizers: finalizers.includes(namespaceFinalizer) ? finalizers : [...finalizers, namespaceFinalizer] };
    },
    validate: (_c, ns) => validateNamespace(ns),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForUpdate(_c, ns, old) {
      // spec.finalizers change only through /finalize; status only through /status.
      if (old.spec === undefined) delete ns.spec;
      else ns.spec = structuredClone(old.spec);
      if (old.status === undefined) delete ns.status;
      else ns.status = structuredClone(old.status);
    },
    validateUpdate: (_c, ns, old) => validateNamespaceUpdate(ns, old),
    status: {
      prepareForUpdate: (_c, ns, old) => keepAllButStatus(ns, old),
      validateUpdate: (_c, ns, old) => validateNamespaceUpdate(ns, old),
    },
    getAttrs: (ns) => ({
      labels: { ...ns.metadata?.labels },
      fields: { "metadata.name": ns.metadata?.name ?? "", "status.phase": ns.status?.phase ?? "" },
    }),
    fieldSelectorKeys: ["status.phase"],
    defaultGarbageCollectionPolicy: () => "Background",
    returnDeletedObject: true,
    table: namespaceTable,
  };
}
