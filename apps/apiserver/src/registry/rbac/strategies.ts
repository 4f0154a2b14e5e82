/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding: their
 * strategies (no status, no generation, PUT may create — `kubectl auth reconcile` relies on it —
 * DELETE answers a `Status`) and their printers.
 *
 * @see pkg/registry/rbac/role/strategy.go, pkg/registry/rbac/clusterrole/strategy.go,
 *   pkg/registry/rbac/rolebinding/strategy.go, pkg/registry/rbac/clusterrolebinding/strategy.go
 * @see pkg/printers/internalversion/printers.go (printRole, printClusterRole, printRoleBinding,
 *   printClusterRoleBinding) in kubernetes/kubernetes v1.23
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from "@skiff/api-types";
import type { ResourceStrategy, TableConvertor } from "@skiff/apiserver-core";
import { translateTimestampSince } from "@skiff/apiserver-core";
import { applyDefaults, kindValidators } from "@skiff/validation";
import { ageColumn, createSimpleStrategy, nameColumn } from "../../internal/simple-strategy.js";

type RoleT = Role & Record<string, unknown>;
type ClusterRoleT = ClusterRole & Record<string, unknown>;
type RoleBindingT = RoleBinding & Record<string, unknown>;
type ClusterRoleBindingT = ClusterRoleBinding & Record<string, unknown>;

const createdAtColumn = {
  name: "Created At",
  type: "date",
  format: "",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
} as const;

/** Go's `metav1.Time.UTC().Format(time.RFC3339)`; the zero time for an object without one. */
export function formatCreatedAt(timestamp: string | undefined | null): string {
  if (timestamp === undefined || timestamp === null || timestamp === "") return "0001-01-01T00:00:00Z";
  const t = new Date(timestamp);
  return Number.isNaN(t.getTime()) ? timestamp : `${t.toISOString().slice(0, 19)}Z`;
}

/** Role and ClusterRole table: NAME, CREATED AT (RFC 3339, UTC). */
export const roleTable: TableConvertor<RoleT | ClusterRoleT> = {
  columns: [nameColumn, createdAtColumn],
  cells: (r) => [r.metadata?.name ?? "", formatCreatedAt(r.metadata?.creationTimestamp)],
};

/**
 * The users, groups and service accounts of `subjects` as 1.23's `rbac.SubjectsStrings`: names,
 * service accounts as `namespace/name` (just `name` without a namespace).
 * @see pkg/apis/rbac/helpers.go (SubjectsStrings)
 */
export function subjectsStrings(subjects: readonly Subject[] | undefined): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of subjects ?? []) {
    if (s.kind === "User") out.users.push(s.name);
    else if (s.kind === "Group") out.groups.push(s.name);
    else if (s.kind === "ServiceAccount") out.serviceAccounts.push(s.namespace ? `${s.namespace}/${s.name}` : s.name);
  }
  return out;
}

function bindingTable(roleDescription: string): TableConvertor<RoleBindingT | ClusterRoleBindingT> {
  return {
    columns: [
      nameColumn,
      { name: "Role", type: "string", format: "", description: roleDescription, priority: 0 },
      ageColumn,
      { name: "Users", type: "string", format: "", description: "Users in the roleBinding", priority: 1 },
      { name: "Groups", type: "string", format: "", description: "Groups in the roleBinding", priority: 1 },
      { name: "ServiceAccounts", type: "string", format: "", description: "ServiceAccounts in the roleBinding", priority: 1 },
    ],
    cells(b, now) {
      const s = subjectsStrings(b.subjects);
      return [
        b.metadata?.name ?? "",
        `${b.roleRef?.kind ?? ""}/${b.roleRef?.name ?? ""}`,
        translateTimestampSince(b.metadata?.creationTimestamp, now),
        s.users.join(", "),
        s.groups.join(", "),
        s.serviceAccounts.join(", "),
      ];
    },
  };
}

/** RoleBinding table: NAME, ROLE (`Kind/name`), AGE; wide adds USERS, GROUPS, SERVICEACCOUNTS. */
export const roleBindingTable = bindingTable(
  "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
);
/** ClusterRoleBinding table: as {@link roleBindingTable}. */
export const clusterRoleBindingTable = bindingTable(
  "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
);

// 1.23's RBAC strategies: AllowCreateOnUpdate true, unconditional updates allowed, DELETE answers a Status.
function rbacStrategy<T extends RoleT | ClusterRoleT | RoleBindingT | ClusterRoleBindingT>(base: ResourceStrategy<T>): ResourceStrategy<T> {
  return { ...base, allowCreateOnUpdate: true, returnDeletedObject: false };
}

/** The Role strategy. @see pkg/registry/rbac/role/strategy.go */
export function createRoleStrategy(): ResourceStrategy<RoleT> {
  return rbacStrategy(createSimpleStrategy<RoleT>({ group: "rbac.authorization.k8s.io", plural: "roles", validators: kindValidators.Role, table: roleTable }));
}

/** The ClusterRole strategy. @see pkg/registry/rbac/clusterrole/strategy.go */
export function createClusterRoleStrategy(): ResourceStrategy<ClusterRoleT> {
  return rbacStrategy(createSimpleStrategy<ClusterRoleT>({ group: "rbac.authorization.k8s.io", plural: "clusterroles", validators: kindValidators.ClusterRole, table: roleTable }));
}

/** The RoleBinding strategy (defaults `roleRef.apiGroup` and subjects' `apiGroup`). @see pkg/registry/rbac/rolebinding/strategy.go */
export function createRoleBindingStrategy(): ResourceStrategy<RoleBindingT> {
  return rbacStrategy(
    createSimpleStrategy<RoleBindingT>({
      group: "rbac.authorization.k8s.io",
      plural: "rolebindings",
      validators: kindValidators.RoleBinding,
      table: roleBindingTable,
      applyDefaults: (o) => applyDefaults("RoleBinding", o),
    }),
  );
}

/** The ClusterRoleBinding strategy. @see pkg/registry/rbac/clusterrolebinding/strategy.go */
export function createClusterRoleBindingStrategy(): ResourceStrategy<ClusterRoleBindingT> {
  return rbacStrategy(
    createSimpleStrategy<ClusterRoleBindingT>({
      group: "rbac.authorization.k8s.io",
      plural: "clusterrolebindings",
      validators: kindValidators.ClusterRoleBinding,
      table: clusterRoleBindingTable,
      applyDefaults: (o) => applyDefaults("ClusterRoleBinding", o),
    }),
  );
}
