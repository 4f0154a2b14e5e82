import type {
  AggregationRule,
  ClusterRole,
  ClusterRoleBinding,
  ClusterRoleBindingList,
  ClusterRoleList,
  PolicyRule,
  Role,
  RoleBinding,
  RoleBindingList,
  RoleList,
  RoleRef,
  Subject,
} from "@skiff/api-types";
import type { z } from "zod";
import { kindEnvelope, kindListOf, labelSelectorSchema } from "./meta.js";
import { listOf, objectOf, str, stringList } from "./primitives.js";

/* rbac.authorization.k8s.io/v1 kinds in their 1.23 shapes. */

/** `rbac.authorization.k8s.io/v1` PolicyRule. */
export const policyRuleSchema = objectOf<PolicyRule>()("PolicyRule", {
  verbs: stringList(),
  apiGroups: stringList().exactOptional(),
  resources: stringList().exactOptional(),
  resourceNames: stringList().exactOptional(),
  nonResourceURLs: stringList().exactOptional(),
}) satisfies z.ZodType<PolicyRule>;

/** `rbac.authorization.k8s.io/v1` AggregationRule. */
export const aggregationRuleSchema = objectOf<AggregationRule>()("AggregationRule", {
  clusterRoleSelectors: listOf(labelSelectorSchema).exactOptional(),
}) satisfies z.ZodType<AggregationRule>;

/** `rbac.authorization.k8s.io/v1` Role. */
export const roleSchema = objectOf<Role>()("Role", { ...kindEnvelope(), rules: listOf(policyRuleSchema).exactOptional() }) satisfies z.ZodType<Role>;
/** `rbac.authorization.k8s.io/v1` RoleList. */
export const roleListSchema = kindListOf<RoleList>()("RoleList", roleSchema) satisfies z.ZodType<RoleList>;

/** `rbac.authorization.k8s.io/v1` ClusterRole. */
export const clusterRoleSchema = objectOf<ClusterRole>()("ClusterRole", {
  ...kindEnvelope(),
  rules: listOf(policyRuleSchema).exactOptional(),
  aggregationRule: aggregationRuleSchema.exactOptional(),
}) satisfies z.ZodType<ClusterRole>;
/** `rbac.authorization.k8s.io/v1` ClusterRoleList. */
export const clusterRoleListSchema = kindListOf<ClusterRoleList>()("ClusterRoleList", clusterRoleSchema) satisfies z.ZodType<ClusterRoleList>;

/** `rbac.authorization.k8s.io/v1` Subject. */
export const subjectSchema = objectOf<Subject>()("Subject", {
  kind: str(),
  apiGroup: str().exactOptional(),
  name: str(),
  namespace: str().exactOptional(),
}) satisfies z.ZodType<Subject>;

/** `rbac.authorization.k8s.io/v1` RoleRef. */
export const roleRefSchema = objectOf<RoleRef>()("RoleRef", { apiGroup: str(), kind: str(), name: str() }) satisfies z.ZodType<RoleRef>;

/** `rbac.authorization.k8s.io/v1` RoleBinding. */
export const roleBindingSchema = objectOf<RoleBinding>()("RoleBinding", {
  ...kindEnvelope(),
  subjects: listOf(subjectSchema).exactOptional(),
  roleRef: roleRefSchema,
}) satisfies z.ZodType<RoleBinding>;
/** `rbac.authorization.k8s.io/v1` RoleBindingList. */
export const roleBindingListSchema = kindListOf<RoleBindingList>()("RoleBindingList", roleBindingSchema) satisfies z.ZodType<RoleBindingList>;

/** `rbac.authorization.k8s.io/v1` ClusterRoleBinding. */
export const clusterRoleBindingSchema = objectOf<ClusterRoleBinding>()("ClusterRoleBinding", {
  ...kindEnvelope(),
  subjects: listOf(subjectSchema).exactOptional(),
  roleRef: roleRefSchema,
}) satisfies z.ZodType<ClusterRoleBinding>;
/** `rbac.authorization.k8s.io/v1` ClusterRoleBindingList. */
export const clusterRoleBindingListSchema = kindListOf<ClusterRoleBindingList>()("ClusterRoleBindingList", clusterRoleBindingSchema) satisfies z.ZodType<ClusterRoleBindingList>;
