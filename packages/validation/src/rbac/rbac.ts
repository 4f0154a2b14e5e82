/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding: validation and
 * the v1 defaults (`roleRef.apiGroup`, `subjects[].apiGroup`), in Kubernetes 1.23's rules and words.
 *
 * @see pkg/apis/rbac/validation/validation.go in kubernetes/kubernetes v1.23
 * @see pkg/apis/rbac/v1/defaults.go in kubernetes/kubernetes v1.23
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from "@skiff/api-types";
import { fieldPath, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from "../core/core-meta.js";
import { validateLabelSelector } from "../meta/labels.js";
import { nameIsDNSSubdomain, nameIsPathSegment } from "../meta/names.js";
import { field } from "../meta/internal/field.js";

/** The RBAC API group, the only `roleRef.apiGroup` and the User/Group subjects' `apiGroup`. */
const rbacGroup = "rbac.authorization.k8s.io";

/**
 * Checks one rule: `verbs` non-empty; a non-resource rule is cluster-only and has no
 * apiGroups/resources/resourceNames; a resource rule has apiGroups and resources.
 * Exported for the escalation checks and other kinds that embed rules.
 * @see pkg/apis/rbac/validation/validation.go `ValidatePolicyRule`
 */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if ((rule.verbs ?? []).length === 0) errs.push(field.required(path.child("verbs"), "verbs must contain at least one value"));
  const nonResourceURLs = rule.nonResourceURLs ?? [];
  if (nonResourceURLs.length > 0) {
    if (namespaced) errs.push(field.invalid(path.child("nonResourceURLs"), nonResourceURLs, "namespaced rules cannot apply to non-resource URLs"));
    if ((rule.apiGroups ?? []).length > 0 || (rule.resources ?? []).length > 0 || (rule.resourceNames ?? []).length > 0) {
      errs.push(field.invalid(path.child("nonResourceURLs"), nonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return errs;
  }
  if ((rule.apiGroups ?? []).length === 0) errs.push(field.required(path.child("apiGroups"), "resource rules must supply at least one api group"));
  if ((rule.resources ?? []).length === 0) errs.push(field.required(path.child("resources"), "resource rules must supply at least one resource"));
  return errs;
}

function validateRules(rules: readonly PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  return (rules ?? []).flatMap((r, i) => validatePolicyRule(r, namespaced, fieldPath("rules").index(i)));
}

/**
 * Validates a Role for create: namespaced object meta (the name a path segment: not `.`/`..`, no
 * `/` or `%`), then each rule (no `nonResourceURLs` in a namespaced rule). Never throws.
 * @see pkg/apis/rbac/validation/validation.go `ValidateRole`
 * @example validateRole({ metadata: { name: "r", namespace: "default" }, rules: [{ verbs: [] }] }) // 3 errors
 */
export function validateRole(role: Role): FieldError[] {
  return [...validateCoreObjectMeta(role.metadata, { namespaced: true, nameValidator: nameIsPathSegment }), ...validateRules(role.rules, true)];
}

/** Validates a Role update: the create rules and the object-meta update rules. @see pkg/apis/rbac/validation/validation.go `ValidateRoleUpdate` */
export function validateRoleUpdate(role: Role, old: Role): FieldError[] {
  return [...validateRole(role), ...validateCoreObjectMetaUpdate(role.metadata, old.metadata)];
}

/**
 * Validates a ClusterRole for create: cluster-scoped object meta, the rules, and an
 * `aggregationRule` with at least one valid label selector.
 * @see pkg/apis/rbac/validation/validation.go `ValidateClusterRole`
 */
export function validateClusterRole(role: ClusterRole): FieldError[] {
  const errs = [...validateCoreObjectMeta(role.metadata, { namespaced: false, nameValidator: nameIsPathSegment }), ...validateRules(role.rules, false)];
  const agg = role.aggregationRule;
  if (agg !== undefined && agg !== null) {
    const selectors = agg.clusterRoleSelectors ?? [];
    const path = fieldPath("aggregationRule", "clusterRoleSelectors");
    if (selectors.length === 0) errs.push(field.required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil"));
    selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, path.index(i))));
  }
  return errs;
}

/** Validates a ClusterRole update. @see pkg/apis/rbac/validation/validation.go `ValidateClusterRoleUpdate` */
export function validateClusterRoleUpdate(role: ClusterRole, old: ClusterRole): FieldError[] {
  return [...validateClusterRole(role), ...validateCoreObjectMetaUpdate(role.metadata, old.metadata)];
}

function validateRoleRef(ref: RoleRef | undefined, kinds: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroup = ref?.apiGroup ?? "";
  if (apiGroup !== rbacGroup) errs.push(field.notSupported(fieldPath("roleRef", "apiGroup"), apiGroup, [rbacGroup]));
  const kind = ref?.kind ?? "";
  if (!kinds.includes(kind)) errs.push(field.notSupported(fieldPath("roleRef", "kind"), kind, kinds));
  const name = ref?.name ?? "";
  if (name === "") errs.push(field.required(fieldPath("roleRef", "name"), ""));
  else for (const msg of nameIsPathSegment(name, false)) errs.push(field.invalid(fieldPath("roleRef", "name"), name, msg));
  return errs;
}

/**
 * Checks one subject: a name; a ServiceAccount's name a DNS subdomain, its apiGroup empty and (in
 * a ClusterRoleBinding) its namespace set; a User's or Group's apiGroup `rbac.authorization.k8s.io`.
 * @see pkg/apis/rbac/validation/validation.go `ValidateRoleBindingSubject`
 */
export function validateRoleBindingSubject(subject: Subject, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = subject.name ?? "";
  const apiGroup = subject.apiGroup ?? "";
  if (name === "") errs.push(field.required(path.child("name"), ""));
  switch (subject.kind) {
    case "ServiceAccount":
      if (name !== "") for (const msg of nameIsDNSSubdomain(name, false)) errs.push(field.invalid(path.child("name"), name, msg));
      if (apiGroup !== "") errs.push(field.notSupported(path.child("apiGroup"), apiGroup, [""]));
      if (!namespaced && (subject.namespace ?? "") === "") errs.push(field.required(path.child("namespace"), ""));
      break;
    case "User":
    case "Group":
      if (apiGroup !== rbacGroup) errs.push(field.notSupported(path.child("apiGroup"), apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(field.notSupported(path.child("kind"), subject.kind ?? "", ["ServiceAccount", "User", "Group"]));
  }
  return errs;
}

function validateSubjects(subjects: readonly Subject[] | undefined, namespaced: boolean): FieldError[] {
  return (subjects ?? []).flatMap((s, i) => validateRoleBindingSubject(s, namespaced, fieldPath("subjects").index(i)));
}

function roleRefChanged(a: RoleRef | undefined, b: RoleRef | undefined): FieldError[] {
  if ((a?.apiGroup ?? "") === (b?.apiGroup ?? "") && (a?.kind ?? "") === (b?.kind ?? "") && (a?.name ?? "") === (b?.name ?? "")) return [];
  // Go prints the struct with %v of the internal type: {APIGroup Kind Name}.
  return [field.invalid(fieldPath("roleRef"), { apiGroup: a?.apiGroup ?? "", kind: a?.kind ?? "", name: a?.name ?? "" }, "cannot change roleRef")];
}

/**
 * Validates a RoleBinding for create: namespaced meta, `roleRef` (apiGroup rbac, kind Role or
 * ClusterRole, a valid name), each subject.
 * @see pkg/apis/rbac/validation/validation.go `ValidateRoleBinding`
 */
export function validateRoleBinding(rb: RoleBinding): FieldError[] {
  return [
    ...validateCoreObjectMeta(rb.metadata, { namespaced: true, nameValidator: nameIsPathSegment }),
    ...validateRoleRef(rb.roleRef, ["Role", "ClusterRole"]),
    ...validateSubjects(rb.subjects, true),
  ];
}

/** Validates a RoleBinding update: the create rules, meta update rules, and an unchanged `roleRef` (`cannot change roleRef`). */
export function validateRoleBindingUpdate(rb: RoleBinding, old: RoleBinding): FieldError[] {
  return [...validateRoleBinding(rb), ...validateCoreObjectMetaUpdate(rb.metadata, old.metadata), ...roleRefChanged(rb.roleRef, old.roleRef)];
}

/**
 * Validates a ClusterRoleBinding for create: cluster-scoped meta, `roleRef` of kind ClusterRole,
 * each subject (a ServiceAccount needs its namespace).
 * @see pkg/apis/rbac/validation/validation.go `ValidateClusterRoleBinding`
 */
export function validateClusterRoleBinding(crb: ClusterRoleBinding): FieldError[] {
  return [
    ...validateCoreObjectMeta(crb.metadata, { namespaced: false, nameValidator: nameIsPathSegment }),
    ...validateRoleRef(crb.roleRef, ["ClusterRole"]),
    ...validateSubjects(crb.subjects, false),
  ];
}

/** Validates a ClusterRoleBinding update (as {@link validateRoleBindingUpdate}). */
export function validateClusterRoleBindingUpdate(crb: ClusterRoleBinding, old: ClusterRoleBinding): FieldError[] {
  return [...validateClusterRoleBinding(crb), ...validateCoreObjectMetaUpdate(crb.metadata, old.metadata), ...roleRefChanged(crb.roleRef, old.roleRef)];
}

/**
 * The v1 defaults of a RoleBinding or ClusterRoleBinding, in place: an empty `roleRef.apiGroup`
 * becomes `rbac.authorization.k8s.io`; a User or Group subject without `apiGroup` gets
 * `rbac.authorization.k8s.io` (a ServiceAccount keeps none). Idempotent.
 * @see pkg/apis/rbac/v1/defaults.go (SetDefaults_RoleBinding, SetDefaults_Subject)
 */
export function setBindingDefaults(binding: RoleBinding | ClusterRoleBinding): void {
  if (binding.roleRef !== undefined && (binding.roleRef.apiGroup ?? "") === "") binding.roleRef.apiGroup = rbacGroup;
  for (const s of binding.subjects ?? []) {
    if ((s.apiGroup ?? "") !== "") continue;
    // A ServiceAccount keeps "" (omitted on the wire, as `omitempty` writes it).
    if (s.kind === "User" || s.kind === "Group") s.apiGroup = rbacGroup;
  }
}
