import type { Lease, LeaseList, LeaseSpec } from "@skiff/api-types";
import type { z } from "zod";
import { kindEnvelope, kindListOf } from "./meta.js";
import { int32, objectOf, str, time } from "./primitives.js";

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
  ...kindEnvelope(),
  spec: leaseSpecSchema.exactOptional(),
}) satisfies z.ZodType<Lease>;

/** `coordination.k8s.io/v1` LeaseList. */
export const leaseListSchema = kindListOf<LeaseList>()("LeaseList", leaseSchema) satisfies z.ZodType<LeaseList>;
