// rbac.authorization.k8s.io/v1 (kept verbatim: kubectl create role|rolebinding and auth reconcile
// ask for it by name): Role, ClusterRole (with aggregationRule), RoleBinding, ClusterRoleBinding,
// in their 1.23 shapes.
import { META, RBAC, arrayOf, gvk, kindSchema, link, listKindSchema, object, str, strList, atomicStruct } from "./dsl.mjs";

const R = (name) => RBAC + name;

export const rbacSchemas = {
  [R("PolicyRule")]: object(
    "What a role allows: verbs on resources of API groups (optionally only the named objects), or verbs on non-resource URLs.",
    {
      verbs: strList("The verbs this rule allows (get, list, watch, create, update, patch, delete, deletecollection, use, bind, escalate, impersonate; * for all). At least one."),
      apiGroups: strList("The API groups of the resources (\"\" is the core group; * for all). Required for resource rules."),
      resources: strList("The resources this rule applies to, `resource/subresource` for a subresource; * for all, `*/sub` for a subresource of every resource."),
      resourceNames: strList("When set, only the objects of these names. Empty means every object."),
      nonResourceURLs: strList("Partial URLs (a trailing * matches any suffix) this rule allows, such as /healthz. Only in ClusterRoles bound by ClusterRoleBindings; not together with resources."),
    },
    { required: ["verbs"] },
  ),
  [R("AggregationRule")]: object("How a ClusterRole's rules are gathered from other ClusterRoles.", {
    clusterRoleSelectors: arrayOf(`${META}LabelSelector`, "ClusterRoles matching any selector contribute their rules; the controller overwrites the rules of the aggregated role."),
  }),
  [R("Role")]: kindSchema({
    gvks: gvk("rbac.authorization.k8s.io", "v1", "Role"),
    description: "A namespaced set of PolicyRules, granted to subjects by a RoleBinding in the same namespace.",
    properties: { rules: arrayOf(R("PolicyRule"), "The rules of this role.") },
  }),
  [R("RoleList")]: listKindSchema({ group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleList", itemSchema: R("Role"), itemKind: "Role" }),
  [R("ClusterRole")]: kindSchema({
    gvks: gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"),
    description: "A cluster-wide set of PolicyRules, granted by a ClusterRoleBinding (everywhere) or a RoleBinding (in one namespace).",
    properties: {
      rules: arrayOf(R("PolicyRule"), "The rules of this role."),
      aggregationRule: link(R("AggregationRule"), "When set, the rules are controlled by the aggregation controller; direct changes to rules are overwritten."),
    },
  }),
  [R("ClusterRoleList")]: listKindSchema({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleList", itemSchema: R("ClusterRole"), itemKind: "ClusterRole" }),
  [R("Subject")]: object(
    "Who a binding grants to: a User, a Group or a ServiceAccount.",
    {
      kind: str("User, Group or ServiceAccount."),
      apiGroup: str("rbac.authorization.k8s.io for User and Group (the default), \"\" for ServiceAccount."),
      name: str("The name of the subject."),
      namespace: str("The namespace of a ServiceAccount subject (required in ClusterRoleBindings)."),
    },
    { required: ["kind", "name"], extensions: atomicStruct },
  ),
  [R("RoleRef")]: object(
    "The role a binding grants. Cannot be changed once set.",
    {
      apiGroup: str("rbac.authorization.k8s.io."),
      kind: str("Role or ClusterRole (only ClusterRole in a ClusterRoleBinding)."),
      name: str("The name of the role."),
    },
    { required: ["apiGroup", "kind", "name"], extensions: atomicStruct },
  ),
  [R("RoleBinding")]: kindSchema({
    gvks: gvk("rbac.authorization.k8s.io", "v1", "RoleBinding"),
    description: "Grants the rules of a Role of its namespace, or of a ClusterRole, to subjects, in its namespace.",
    properties: {
      subjects: arrayOf(R("Subject"), "Who the role is granted to."),
      roleRef: link(R("RoleRef"), "The Role in this namespace or the ClusterRole granted. Cannot be changed."),
    },
    required: ["roleRef"],
  }),
  [R("RoleBindingList")]: listKindSchema({ group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBindingList", itemSchema: R("RoleBinding"), itemKind: "RoleBinding" }),
  [R("ClusterRoleBinding")]: kindSchema({
    gvks: gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
    description: "Grants the rules of a ClusterRole to subjects in every namespace and at the cluster scope.",
    properties: {
      subjects: arrayOf(R("Subject"), "Who the role is granted to."),
      roleRef: link(R("RoleRef"), "The ClusterRole granted. Cannot be changed."),
    },
    required: ["roleRef"],
  }),
  [R("ClusterRoleBindingList")]: listKindSchema({
    group: "rbac.authorization.k8s.io",
    version: "v1",
    kind: "ClusterRoleBindingList",
    itemSchema: R("ClusterRoleBinding"),
    itemKind: "ClusterRoleBinding",
  }),
};
