/**
 * Reconciliation of RBAC roles and bindings as 1.23 does it for the bootstrap policy at start
 * (and `kubectl auth reconcile` on the client): a missing object is created; an existing one gets
 * the expected labels and annotations it lacks (its own values win), the missing rules (broken
 * down) and aggregation selectors, the missing subjects — additions only, user additions stay. An
 * object annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone. A binding
 * whose roleRef differs is recreated.
 *
 * @see pkg/registry/rbac/reconciliation/reconcile_role.go (computeReconciledRole)
 * @see pkg/registry/rbac/reconciliation/reconcile_rolebindings.go (computeReconciledRoleBinding)
 * @see pkg/registry/rbac/rest/storage_rbac.go (PostStartHook: ensureRBACPolicy)
 */
import type { AggregationRule, ClusterRole, ClusterRoleBinding, LabelSelector, Role, RoleBinding, Subject } from "@skiff/api-types";
import { RBACAutoUpdateAnnotation } from "@skiff/api-types";
import { GenericStore, semanticEqual } from "@skiff/apiserver-core";
import type { APIObject, ResourceStrategy } from "@skiff/apiserver-core";
import { isAlreadyExists, isNotFound } from "@skiff/apimachinery";
import type { Storage } from "@skiff/storage";
import { covers } from "./covers.js";

/** What reconciliation did to one object. */
export type ReconcileOperation = "none" | "create" | "update" | "recreate" | "skipped-protected";

// Expected values first, existing ones win (1.23's merge(expected, existing)).
function merged(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  const out = { ...expected, ...existing };
  return Object.keys(out).length === 0 ? existing : out;
}

const isProtected = (o: APIObject) => o.metadata?.annotations?.[RBACAutoUpdateAnnotation] === "false";

function missingSelectors(have: AggregationRule | undefined, want: AggregationRule | undefined): LabelSelector[] {
  const existing = have?.clusterRoleSelectors ?? [];
  return (want?.clusterRoleSelectors ?? []).filter((w) => !existing.some((e) => semanticEqual(e, w)));
}

/**
 * The reconciled role (union mode: nothing removed), and whether it changed.
 * @see pkg/registry/rbac/reconciliation/reconcile_role.go computeReconciledRole
 */
export function computeReconciledRole<T extends ClusterRole>(existing: T, expected: T): { role: T; changed: boolean; protected: boolean } {
  const role = structuredClone(existing);
  const meta = (role.metadata ??= {});
  const annotations = merged(expected.metadata?.annotations, meta.annotations);
  if (annotations !== undefined) meta.annotations = annotations;
  const labels = merged(expected.metadata?.labels, meta.labels);
  if (labels !== undefined) meta.labels = labels;
  let changed = !semanticEqual(meta.annotations, existing.metadata?.annotations) || !semanticEqual(meta.labels, existing.metadata?.labels);
  const { missing } = covers(existing.rules ?? [], expected.rules ?? []);
  if (missing.length > 0) {
    role.rules = [...(role.rules ?? []), ...missing];
    changed = true;
  }
  const selectors = missingSelectors(existing.aggregationRule, expected.aggregationRule);
  if (expected.aggregationRule === undefined && existing.aggregationRule !== undefined) {
    delete role.aggregationRule;
    changed = true;
  } else if (selectors.length > 0) {
    role.aggregationRule = { clusterRoleSelectors: [...(role.aggregationRule?.clusterRoleSelectors ?? []), ...selectors] };
    changed = true;
  }
  return { role, changed, protected: isProtected(existing) };
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? "") === (b.namespace ?? "") && (a.apiGroup ?? "") === (b.apiGroup ?? "");

/**
 * The reconciled binding (union mode), `recreate` when the roleRef differs.
 * @see pkg/registry/rbac/reconciliation/reconcile_rolebindings.go computeReconciledRoleBinding
 */
export function computeReconciledBinding<T extends ClusterRoleBinding>(existing: T, expected: T): { binding: T; operation: "none" | "update" | "recreate"; protected: boolean } {
  if (!semanticEqual(existing.roleRef, expected.roleRef)) return { binding: expected, operation: "recreate", protected: isProtected(existing) };
  const binding = structuredClone(existing);
  const meta = (binding.metadata ??= {});
  const annotations = merged(expected.metadata?.annotations, meta.annotations);
  if (annotations !== undefined) meta.annotations = annotations;
  const labels = merged(expected.metadata?.labels, meta.labels);
  if (labels !== undefined) meta.labels = labels;
  let changed = !semanticEqual(meta.annotations, existing.metadata?.annotations) || !semanticEqual(meta.labels, existing.metadata?.labels);
  const missing = (expected.subjects ?? []).filter((w) => !(existing.subjects ?? []).some((e) => sameSubject(e, w)));
  if (missing.length > 0) {
    binding.subjects = [...(binding.subjects ?? []), ...missing];
    changed = true;
  }
  return { binding, operation: changed ? "update" : "none", protected: isProtected(existing) };
}

/** The user bootstrap writes are made as (in `system:masters`, as kube-apiserver's loopback client). */
export const bootstrapPolicyUser = Object.freeze({ username: "system:apiserver", groups: ["system:masters", "system:authenticated"] });

/**
 * Reconciles `roles` and `bindings` into storage through the RBAC strategies (union mode, as the
 * apiserver's post-start hook). Resolves with what was done per object (`ClusterRole/<name>`).
 * @throws Error when the strategies lack the RBAC kinds; storage and validation errors.
 */
export async function reconcileClusterPolicy(
  strategies: readonly ResourceStrategy[],
  storage: Storage,
  roles: readonly ClusterRole[],
  bindings: readonly ClusterRoleBinding[],
): Promise<Map<string, ReconcileOperation>> {
  const done = new Map<string, ReconcileOperation>();
  await reconcileAll(rbacStore(strategies, storage, "clusterroles"), undefined, "ClusterRole", roles, done, reconcileRole);
  await reconcileAll(rbacStore(strategies, storage, "clusterrolebindings"), undefined, "ClusterRoleBinding", bindings, done, reconcileBinding);
  return done;
}

/**
 * Reconciles the namespaced bootstrap `roles` and `bindings` (namespace → objects) as
 * {@link reconcileClusterPolicy} does the cluster-wide ones; the namespaces must exist. Resolves
 * with what was done per object (`Role/<namespace>/<name>`, `RoleBinding/<namespace>/<name>`).
 * @throws Error when the strategies lack the RBAC kinds; storage and validation errors.
 * @see pkg/registry/rbac/rest/storage_rbac.go (ensureRBACPolicy: NamespaceRoles, NamespaceRoleBindings)
 */
export async function reconcileNamespacedPolicy(
  strategies: readonly ResourceStrategy[],
  storage: Storage,
  roles: Readonly<Record<string, readonly Role[]>>,
  bindings: Readonly<Record<string, readonly RoleBinding[]>>,
): Promise<Map<string, ReconcileOperation>> {
  const done = new Map<string, ReconcileOperation>();
  const roleStore = rbacStore(strategies, storage, "roles");
  const bindingStore = rbacStore(strategies, storage, "rolebindings");
  for (const [namespace, list] of Object.entries(roles)) await reconcileAll(roleStore, namespace, "Role", list, done, reconcileRole);
  for (const [namespace, list] of Object.entries(bindings)) await reconcileAll(bindingStore, namespace, "RoleBinding", list, done, reconcileBinding);
  return done;
}

function rbacStore(strategies: readonly ResourceStrategy[], storage: Storage, plural: string): GenericStore {
  const s = strategies.find((st) => st.resource.group === "rbac.authorization.k8s.io" && st.resource.plural === plural);
  if (s === undefined) throw new Error(`reconciling the RBAC policy needs the ${plural} strategy`);
  return new GenericStore(s, storage);
}

/** What one object's reconciliation decided: `next` computes the object to write from the latest stored one. */
type Decision = { operation: "none" | "update" | "recreate"; protected: boolean; next: (latest: APIObject) => APIObject };

const reconcileRole = (cur: APIObject, expected: APIObject): Decision => {
  const r = computeReconciledRole(cur as ClusterRole, expected as ClusterRole);
  return { operation: r.changed ? "update" : "none", protected: r.protected, next: (latest) => computeReconciledRole(latest as ClusterRole, expected as ClusterRole).role as APIObject };
};
const reconcileBinding = (cur: APIObject, expected: APIObject): Decision => {
  const r = computeReconciledBinding(cur as ClusterRoleBinding, expected as ClusterRoleBinding);
  return { operation: r.operation, protected: r.protected, next: (latest) => computeReconciledBinding(latest as ClusterRoleBinding, expected as ClusterRoleBinding).binding as APIObject };
};

async function reconcileAll(
  store: GenericStore,
  namespace: string | undefined,
  kind: string,
  objects: readonly object[],
  done: Map<string, ReconcileOperation>,
  decide: (cur: APIObject, expected: APIObject) => Decision,
): Promise<void> {
  const ctx = () => ({ namespace, user: bootstrapPolicyUser, now: new Date(), dryRun: false, warnings: [] as string[] });
  const create = async (obj: APIObject): Promise<void> => {
    try {
      await store.create(ctx(), structuredClone(obj));
    } catch (e) {
      // Several apiservers may start together on one etcd: the first create wins.
      if (!isAlreadyExists(e)) throw e;
    }
  };
  for (const o of objects) {
    const expected = o as APIObject;
    const name = expected.metadata!.name!;
    let cur: APIObject | undefined;
    try {
      cur = await store.get(ctx(), name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    let op: ReconcileOperation = "none";
    if (cur === undefined) {
      await create(expected);
      op = "create";
    } else {
      const d = decide(cur, expected);
      if (d.operation !== "none" && d.protected) op = "skipped-protected";
      else if (d.operation === "recreate") {
        // roleRef is immutable: delete, then create the expected binding.
        await store.delete(ctx(), name, {});
        await create(expected);
        op = "recreate";
      } else if (d.operation === "update") {
        await store.update(ctx(), name, (latest) => (latest === null ? structuredClone(expected) : d.next(latest)));
        op = "update";
      }
    }
    done.set(`${kind}/${namespace === undefined ? "" : `${namespace}/`}${name}`, op);
  }
}
