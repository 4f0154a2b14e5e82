/**
 * coordination.k8s.io/v1 Lease (namespaced, no status) and its printer. As 1.23: PUT may create
 * (node agents create-or-update their lease), an update must carry a resourceVersion, DELETE
 * answers with a Status, and the MicroTime fields are stored with six fractional digits.
 * @see pkg/registry/coordination/lease/strategy.go
 * @see pkg/registry/coordination/lease/storage/storage.go
 * @see pkg/printers/internalversion/printers.go (printLease)
 */
import type { Lease } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { kindValidators } from "@skiff/validation";
import { ageColumn, createSimpleStrategy, nameColumn } from "../../../internal/simple-strategy.js";
import { canonicalMicroTime } from "../../core/event/strategy.js";

type T = Lease & Record<string, unknown>;

/** Lease table: NAME, HOLDER (`spec.holderIdentity`, empty when unset), AGE. */
export const leaseTable: TableConvertor<T> = {
  columns: [
    nameColumn,
    { name: "Holder", type: "string", format: "", description: "holderIdentity contains the identity of the holder of a current lease.", priority: 0 },
    ageColumn,
  ],
  cells(l, now) {
    return [l.metadata?.name ?? "", l.spec?.holderIdentity ?? "", translateTimestampSince(l.metadata?.creationTimestamp, now)];
  },
};

/** The Lease strategy. */
export function createLeaseStrategy(): ResourceStrategy<T> {
  const strategy = createSimpleStrategy<T>({
    group: "coordination.k8s.io",
    plural: "leases",
    validators: kindValidators.Lease,
    table: leaseTable,
  });
  return {
    ...strategy,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: false,
    returnDeletedObject: false,
    canonicalize(l) {
      if (typeof l.spec?.acquireTime === "string") l.spec.acquireTime = canonicalMicroTime(l.spec.acquireTime);
      if (typeof l.spec?.renewTime === "string") l.spec.renewTime = canonicalMicroTime(l.spec.renewTime);
    },
  };
}
