import type { Lease, LeaseList, LeaseSpec } from "@skiff/api-types";
import type { z } from "zod";
import { listMetaSchema, objectMetaSchema } from "./meta.js";
import { int32, listOf, objectOf, str, time } from "./primitives.js";

/** `coordination.k8s.io/v1` LeaseSpec (`acquireTime`/`renewTime` are MicroTime: RFC 3339). */
export const leaseSpecSchema = objectOf<LeaseSpec>()("LeaseSpec", {
  holderIdentity: str().exactOptional(),
  leaseDurationSeconds: int32().exactOptional(),
  acquireTime: time().exactOptional(),
  renewTime: time().exactOptional(),
  leaseTransitions: int32().exactOptional(),
}) satisfies z.ZodType<LeaseSpec>;

/** `coordination.k8s.io/v1` Lease. */
export const leaseSchema = objectOf<Lease>()("Lease", {
  apiVersion: str().exactOptional(),
  kind: str().exactOptional(),
  metadata: objectMetaSchema.exactOptional(),
  spec: leaseSpecSchema.exactOptional(),
}) satisfies z.ZodType<Lease>;

/** `coordination.k8s.io/v1` LeaseList. */
export const leaseListSchema = objectOf<LeaseList>()("LeaseList", {
  apiVersion: str().exactOptional(),
  kind: str().exactOptional(),
  metadata: listMetaSchema.exactOptional(),
  items: listOf(leaseSchema),
}) satisfies z.ZodType<LeaseList>;
