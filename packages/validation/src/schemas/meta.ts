import type {
  DeleteOptions,
  LabelSelector,
  LabelSelectorRequirement,
  ListMeta,
  ManagedFieldsEntry,
  ObjectMeta,
  OwnerReference,
  Preconditions,
} from "@skiff/api-types";
import type { z } from "zod";
import { bool, freeForm, int64, listOf, objectOf, str, stringList, stringMap, time } from "./primitives.js";

/** `metav1.OwnerReference`. */
export const ownerReferenceSchema = objectOf<OwnerReference>()("OwnerReference", {
  apiVersion: str(),
  kind: str(),
  name: str(),
  uid: str(),
  controller: bool().exactOptional(),
  blockOwnerDeletion: bool().exactOptional(),
}) satisfies z.ZodType<OwnerReference>;

/** `metav1.ManagedFieldsEntry`; `fieldsV1` is free-form and keeps every key. */
export const managedFieldsEntrySchema = objectOf<ManagedFieldsEntry>()("ManagedFieldsEntry", {
  manager: str().exactOptional(),
  operation: str().exactOptional(),
  apiVersion: str().exactOptional(),
  time: time().exactOptional(),
  fieldsType: str().exactOptional(),
  fieldsV1: freeForm().exactOptional(),
  subresource: str().exactOptional(),
}) satisfies z.ZodType<ManagedFieldsEntry>;

/** `metav1.ObjectMeta` (1.23 fields); labels and annotations are free-form string maps. */
export const objectMetaSchema = objectOf<ObjectMeta>()("ObjectMeta", {
  name: str().exactOptional(),
  generateName: str().exactOptional(),
  namespace: str().exactOptional(),
  selfLink: str().exactOptional(),
  uid: str().exactOptional(),
  resourceVersion: str().exactOptional(),
  generation: int64().exactOptional(),
  creationTimestamp: time().exactOptional(),
  deletionTimestamp: time().exactOptional(),
  deletionGracePeriodSeconds: int64().exactOptional(),
  labels: stringMap().exactOptional(),
  annotations: stringMap().exactOptional(),
  ownerReferences: listOf(ownerReferenceSchema).exactOptional(),
  finalizers: stringList().exactOptional(),
  clusterName: str().exactOptional(),
  managedFields: listOf(managedFieldsEntrySchema).exactOptional(),
}) satisfies z.ZodType<ObjectMeta>;

/** `metav1.ListMeta`. */
export const listMetaSchema = objectOf<ListMeta>()("ListMeta", {
  selfLink: str().exactOptional(),
  resourceVersion: str().exactOptional(),
  continue: str().exactOptional(),
  remainingItemCount: int64().exactOptional(),
}) satisfies z.ZodType<ListMeta>;

/**
 * The `TypeMeta` members that open every top-level kind, list and DeleteOptions: `apiVersion` and
 * `kind`, both optional strings (the server fills them from the URL). Spread first into a shape,
 * so that decoded objects keep the key order `apiVersion, kind, metadata, ...`.
 */
export function typeMetaShape() {
  return { apiVersion: str().exactOptional(), kind: str().exactOptional() };
}

/**
 * The envelope of a top-level kind: {@link typeMetaShape} and an optional `metadata`
 * ({@link objectMetaSchema}). A kind whose `metadata` is required (Event) spreads
 * {@link typeMetaShape} and declares `metadata` itself.
 *
 * @example
 * const leaseSchema = objectOf<Lease>()("Lease", { ...kindEnvelope(), spec: leaseSpecSchema.exactOptional() });
 */
export function kindEnvelope() {
  return { ...typeMetaShape(), metadata: objectMetaSchema.exactOptional() };
}

type ListEnvelopeKeys = "apiVersion" | "kind" | "metadata" | "items";

/**
 * The schema of a `<Kind>List` `L`: {@link typeMetaShape}, an optional `metadata`
 * ({@link listMetaSchema}) and the required `items` (`[]<item>`), a strict object named `goName`
 * in decode errors. Compiles only if `L` has no member besides those four, as {@link objectOf}
 * checks for other objects.
 *
 * @example
 * const jobListSchema = kindListOf<JobList>()("JobList", jobSchema) satisfies z.ZodType<JobList>;
 */
export function kindListOf<L extends { items: unknown }>() {
  return <S extends z.ZodType>(goName: string, item: [Exclude<keyof L, ListEnvelopeKeys>] extends [never] ? S : never) =>
    objectOf<{ [K in ListEnvelopeKeys]: unknown }>()(goName, {
      ...typeMetaShape(),
      metadata: listMetaSchema.exactOptional(),
      items: listOf(item),
    });
}

/** `metav1.LabelSelectorRequirement`. */
export const labelSelectorRequirementSchema = objectOf<LabelSelectorRequirement>()("LabelSelectorRequirement", {
  key: str(),
  operator: str(),
  values: stringList().exactOptional(),
}) satisfies z.ZodType<LabelSelectorRequirement>;

/** `metav1.LabelSelector`. */
export const labelSelectorSchema = objectOf<LabelSelector>()("LabelSelector", {
  matchLabels: stringMap().exactOptional(),
  matchExpressions: listOf(labelSelectorRequirementSchema).exactOptional(),
}) satisfies z.ZodType<LabelSelector>;

/** `metav1.Preconditions`. */
export const preconditionsSchema = objectOf<Preconditions>()("Preconditions", {
  uid: str().exactOptional(),
  resourceVersion: str().exactOptional(),
}) satisfies z.ZodType<Preconditions>;

/** `metav1.DeleteOptions` (a request body of delete and deletecollection). */
export const deleteOptionsSchema = objectOf<DeleteOptions>()("DeleteOptions", {
  ...typeMetaShape(),
  gracePeriodSeconds: int64().exactOptional(),
  preconditions: preconditionsSchema.exactOptional(),
  orphanDependents: bool().exactOptional(),
  propagationPolicy: str().exactOptional(),
  dryRun: stringList().exactOptional(),
}) satisfies z.ZodType<DeleteOptions>;
