/**
 * core/v1 Namespace (cluster-scoped, /status, /finalize) and its printer. Create sets phase
 * `Active` and the `kubernetes` finalizer; the first DELETE sets `deletionTimestamp` and phase
 * `Terminating` and keeps the namespace while `spec.finalizers` is not empty (the namespace
 * controller empties it through `/finalize` once the namespace's content is gone). Every namespace
 * carries the label `example.io/metadata.name` with its name.
 * @see pkg/registry/core/namespace/strategy.go
 * @see pkg/registry/core/namespace/storage/storage.go (Delete, ShouldDeleteNamespaceDuringUpdate)
 */
import type { Namespace } from "@skiff/api-types";
import { LabelMetadataName, findResource } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { defaultValidationOptions, kindValidators, setNamespaceDefaults } from "@skiff/validation";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { ageColumn, nameColumn } from "../../../internal/simple-strategy.js";
import { keepAllButStatus } from "../../../internal/status-split.js";

type T = Namespace & Record<string, unknown>;

// The name label: set when the name is known (defaulting; generateName resolves later, so
// canonicalize sets it again), and a client cannot set it to anything else.
function setNameLabel(ns: T): void {
  const name = ns.metadata?.name;
  if (!name) return;
  ns.metadata = { ...ns.metadata, labels: { ...ns.metadata?.labels, [LabelMetadataName]: name } };
}

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
  const validators = kindValidators.Namespace;
  const opts = defaultValidationOptions;
  return {
    resource,
    applyDefaults(ns) {
      setNamespaceDefaults(ns);
      setNameLabel(ns);
    },
    canonicalize: (ns) => setNameLabel(ns),
    prepareForCreate(_c, ns) {
      ns.status = { phase: "Active" };
      const finalizers = ns.spec?.finalizers ?? [];
      ns.spec = { ...ns.spec, finalizers: finalizers.includes(namespaceFinalizer) ? finalizers : [...finalizers, namespaceFinalizer] };
    },
    validate: (_c, ns) => validators.validate(ns, opts),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForUpdate(_c, ns, old) {
      // spec.finalizers change only through /finalize; status only through /status.
      if (old.spec === undefined) delete ns.spec;
      else ns.spec = structuredClone(old.spec);
      if (old.status === undefined) delete ns.status;
      else ns.status = structuredClone(old.status);
    },
    validateUpdate: (_c, ns, old) => validators.validateUpdate(ns, old, opts),
    status: {
      prepareForUpdate: (_c, ns, old) => keepAllButStatus(ns, old),
      validateUpdate: (_c, ns, old) => validators.validateStatusUpdate(ns, old, opts),
    },
    subresourceUpdates: {
      // PUT /api/v1/namespaces/{name}/finalize: metadata and spec.finalizers from the request,
      // status from the stored object.
      finalize: {
        prepareForUpdate(_c, ns, old) {
          if (old.status === undefined) delete ns.status;
          else ns.status = structuredClone(old.status);
        },
        validateUpdate: (_c, ns, old) => validators.validateFinalizeUpdate(ns, old, opts),
      },
    },
    hasPendingFinalization: (ns) => (ns.spec?.finalizers ?? []).length > 0,
    prepareForDeletion(ns) {
      ns.status = { ...ns.status, phase: "Terminating" };
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
