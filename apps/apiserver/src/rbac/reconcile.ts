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
import type { AggregationRule, ClusterRole, ClusterRoleBinding, LabelSelector, Subject } from "@skiff/api-types";
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
  const find = (plural: string) => {
    const s = strategies.find((st) => st.resource.group === "rbac.authorization.k8s.io" && st.resource.plural === plural);
    if (s === undefined) throw new Error(`reconciling the RBAC policy needs the ${plural} strategy`);
    return new GenericStore(s, storage);
  };
  const roleStore = find("clusterroles");
  const bindingStore = find("clusterrolebindings");
  const ctx = () => ({ namespace: undefined, user: bootstrapPolicyUser, now: new Date(), dryRun: false, warnings: [] as string[] });
  const done = new Map<string, ReconcileOperation>();
  const current = async (store: GenericStore, name: string): Promise<APIObject | undefined> => {
    try {
      return await store.get(ctx(), name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const create = async (store: GenericStore, obj: APIObject): Promise<void> => {
    try {
      await store.create(ctx(), structuredClone(obj));
    } catch (e) {
      // Several apiservers may start together on one etcd: the first create wins.
      if (!isAlreadyExists(e)) throw e;
    }
  };
  for (const expected of roles) {
    const name = expected.metadata!.name!;
    const cur = await current(roleStore, name);
    let op: ReconcileOperation = "none";
    if (cur === undefined) {
      await create(roleStore, expected as APIObject);
      op = "create";
    } else {
      const r = computeReconciledRole(cur as ClusterRole, expected);
      if (r.changed && r.protected) op = "skipped-protected";
      else if (r.changed) {
        await roleStore.update(ctx(), name, (latest) => (latest === null ? structuredClone(expected) : computeReconciledRole(latest as ClusterRole, expected).role) as APIObject);
        op = "update";
      }
    }
    done.set(`ClusterRole/${name}`, op);
  }
  for (const expected of bindings) {
    const name = expected.metadata!.name!;
    const cur = await current(bindingStore, name);
    let op: ReconcileOperation = "none";
    if (cur === undefined) {
      await create(bindingStore, expected as APIObject);
      op = "create";
    } else {
      const r = computeReconciledBinding(cur as ClusterRoleBinding, expected);
      if (r.operation !== "none" && r.protected) op = "skipped-protected";
      else if (r.operation === "recreate") {
        // roleRef is immutable: delete, then create the expected binding.
        await bindingStore.delete(ctx(), name, {});
        await create(bindingStore, expected as APIObject);
        op = "recreate";
      } else if (r.operation === "update") {
        await bindingStore.update(ctx(), name, (latest) => (latest === null ? structuredClone(expected) : computeReconciledBinding(latest as ClusterRoleBinding, expected).binding) as APIObject);
        op = "update";
      }
    }
    done.set(`ClusterRoleBinding/${name}`, op);
  }
  return done;
}
