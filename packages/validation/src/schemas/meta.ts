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
  apiVersion: str().exactOptional(),
  kind: str().exactOptional(),
  gracePeriodSeconds: int64().exactOptional(),
  preconditions: preconditionsSchema.exactOptional(),
  orphanDependents: bool().exactOptional(),
  propagationPolicy: str().exactOptional(),
  dryRun: stringList().exactOptional(),
}) satisfies z.ZodType<DeleteOptions>;
