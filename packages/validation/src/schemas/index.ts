import type {
  Binding,
  Role,
  RoleList,
  ClusterRole,
  ClusterRoleList,
  RoleBinding,
  RoleBindingList,
  ClusterRoleBinding,
  ClusterRoleBindingList,
  ConfigMap,
  ConfigMapList,
  CSIDriver,
  CSIDriverList,
  CSINode,
  CSINodeList,
  DeleteOptions,
  Event,
  EventList,
  Job,
  JobList,
  Lease,
  LeaseList,
  Namespace,
  NamespaceList,
  Node,
  NodeList,
  Pod,
  PodList,
  PodTemplate,
  PodTemplateList,
  PriorityClass,
  PriorityClassList,
  Secret,
  SecretList,
  ServiceAccount,
  ServiceAccountList,
} from "@skiff/api-types";
import type { z } from "zod";
import { jobListSchema, jobSchema } from "./batch.js";
import { configMapListSchema, configMapSchema, secretListSchema, secretSchema, serviceAccountListSchema, serviceAccountSchema } from "./config.js";
import { leaseListSchema, leaseSchema } from "./coordination.js";
import { clusterRoleBindingListSchema, clusterRoleBindingSchema, clusterRoleListSchema, clusterRoleSchema, roleBindingListSchema, roleBindingSchema, roleListSchema, roleSchema } from "./rbac.js";
import {
  bindingSchema,
  eventListSchema,
  eventSchema,
  namespaceListSchema,
  namespaceSchema,
  nodeListSchema,
  nodeSchema,
  podListSchema,
  podSchema,
  podTemplateListSchema,
  podTemplateSchema,
} from "./core.js";
import { deleteOptionsSchema } from "./meta.js";
import { priorityClassListSchema, priorityClassSchema } from "./scheduling.js";
import { csiDriverListSchema, csiDriverSchema, csiNodeListSchema, csiNodeSchema } from "./storage.js";

/**
 * The TypeScript type (from `@skiff/api-types`) of each kind `decodeObject` and the schemas know:
 * the served kinds, their lists, `Binding` (the `pods/binding` body) and `DeleteOptions`.
 */
export interface KindTypes {
  Job: Job;
  JobList: JobList;
  CSIDriver: CSIDriver;
  CSIDriverList: CSIDriverList;
  CSINode: CSINode;
  CSINodeList: CSINodeList;
  Lease: Lease;
  LeaseList: LeaseList;
  PriorityClass: PriorityClass;
  PriorityClassList: PriorityClassList;
  PodTemplate: PodTemplate;
  PodTemplateList: PodTemplateList;
  Pod: Pod;
  PodList: PodList;
  Node: Node;
  NodeList: NodeList;
  Event: Event;
  EventList: EventList;
  Namespace: Namespace;
  NamespaceList: NamespaceList;
  ConfigMap: ConfigMap;
  ConfigMapList: ConfigMapList;
  Secret: Secret;
  SecretList: SecretList;
  ServiceAccount: ServiceAccount;
  ServiceAccountList: ServiceAccountList;
  Role: Role;
  RoleList: RoleList;
  ClusterRole: ClusterRole;
  ClusterRoleList: ClusterRoleList;
  RoleBinding: RoleBinding;
  RoleBindingList: RoleBindingList;
  ClusterRoleBinding: ClusterRoleBinding;
  ClusterRoleBindingList: ClusterRoleBindingList;
  Binding: Binding;
  DeleteOptions: DeleteOptions;
}

/** A kind name `decodeObject` accepts: `"Job"`, `"JobList"`, `"CSIDriver"`, ..., `"DeleteOptions"`. */
export type KindName = keyof KindTypes;

/**
 * The strict zod schema of every {@link KindName}: structural decode only (JSON types, integer
 * ranges, RFC 3339 timestamps, quantity syntax); semantic rules live in the validators. Each schema
 * is typed `satisfies z.ZodType<X>` against `@skiff/api-types`, so schemas and types cannot drift.
 * Objects are strict: undeclared members are reported as unrecognized keys (see `decodeObject`).
 *
 * @example
 * kindSchemas.Job.safeParse({ spec: { template: {} } }).success // true
 */
export const kindSchemas: { readonly [K in KindName]: z.ZodType<KindTypes[K]> } = {
  Job: jobSchema,
  JobList: jobListSchema,
  CSIDriver: csiDriverSchema,
  CSIDriverList: csiDriverListSchema,
  CSINode: csiNodeSchema,
  CSINodeList: csiNodeListSchema,
  Lease: leaseSchema,
  LeaseList: leaseListSchema,
  PriorityClass: priorityClassSchema,
  PriorityClassList: priorityClassListSchema,
  PodTemplate: podTemplateSchema,
  PodTemplateList: podTemplateListSchema,
  Pod: podSchema,
  PodList: podListSchema,
  Node: nodeSchema,
  NodeList: nodeListSchema,
  Event: eventSchema,
  EventList: eventListSchema,
  Namespace: namespaceSchema,
  NamespaceList: namespaceListSchema,
  ConfigMap: configMapSchema,
  ConfigMapList: configMapListSchema,
  Secret: secretSchema,
  SecretList: secretListSchema,
  ServiceAccount: serviceAccountSchema,
  ServiceAccountList: serviceAccountListSchema,
  Role: roleSchema,
  RoleList: roleListSchema,
  ClusterRole: clusterRoleSchema,
  ClusterRoleList: clusterRoleListSchema,
  RoleBinding: roleBindingSchema,
  RoleBindingList: roleBindingListSchema,
  ClusterRoleBinding: clusterRoleBindingSchema,
  ClusterRoleBindingList: clusterRoleBindingListSchema,
  Binding: bindingSchema,
  DeleteOptions: deleteOptionsSchema,
};

/** Whether `name` is a {@link KindName}. */
export function isKindName(name: string): name is KindName {
  return Object.prototype.hasOwnProperty.call(kindSchemas, name);
}
