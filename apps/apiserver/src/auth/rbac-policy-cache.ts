/**
 * The RBAC authorizer's view of the roles and bindings: an in-memory copy kept current by one
 * storage watch per kind (list, then watch from the list's revision; relist when the watch ends),
 * as kube-apiserver's RBAC authorizer reads shared-informer listers instead of storage. Bindings
 * are indexed by subject (user, group, service account), so a request looks at the bindings that
 * can apply to its user, not at all of them.
 *
 * @see plugin/pkg/auth/authorizer/rbac/rbac.go (RoleGetter, RoleBindingLister, ... backed by informers)
 * @see pkg/kubeapiserver/authorizer/config.go (RBAC built on the versioned informer factory)
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from "@skiff/api-types";
import type { RBACPolicySource, UserInfo } from "@skiff/apiserver-core";
import type { Storage } from "@skiff/storage";
import { startStorageInformer } from "../internal/storage-informer.js";
import type { StorageInformerHandlers } from "../internal/storage-informer.js";

const prefixOf = (plural: string) => `/registry/rbac.authorization.k8s.io/${plural}/`;
const serviceAccountPrefix = "system:serviceaccount:";

// Index keys of a subject: `u:<name>`, `g:<name>`, `sa:<namespace>:<name>`.
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  if (s.kind === "User") return `u:${s.name}`;
  if (s.kind === "Group") return `g:${s.name}`;
  if (s.kind === "ServiceAccount") {
    const ns = s.namespace ? s.namespace : bindingNamespace;
    return ns === "" ? undefined : `sa:${ns}:${s.name}`;
  }
  return undefined;
}

function userKeys(user: UserInfo): string[] {
  const keys = [`u:${user.username}`, ...user.groups.map((g) => `g:${g}`)];
  if (user.username.startsWith(serviceAccountPrefix)) {
    const parts = user.username.slice(serviceAccountPrefix.length).split(":");
    if (parts.length === 2) keys.push(`sa:${parts[0]!}:${parts[1]!}`);
  }
  return keys;
}

/** Bindings of one scope by name, and by subject key. */
class BindingIndex<T extends RoleBinding | ClusterRoleBinding> {
  readonly byName = new Map<string, T>();
  private readonly bySubject = new Map<string, Set<string>>();

  constructor(private readonly namespace: string) {}

  keysOf(b: T): string[] {
    return [...new Set((b.subjects ?? []).map((s) => subjectKey(s, this.namespace)).filter((k): k is string => k !== undefined))];
  }

  upsert(b: T): void {
    const name = b.metadata?.name ?? "";
    this.remove(name);
    this.byName.set(name, b);
    for (const k of this.keysOf(b)) {
      let set = this.bySubject.get(k);
      if (set === undefined) this.bySubject.set(k, (set = new Set()));
      set.add(name);
    }
  }

  remove(name: string): void {
    const old = this.byName.get(name);
    if (old === undefined) return;
    this.byName.delete(name);
    for (const k of this.keysOf(old)) {
      const set = this.bySubject.get(k);
      set?.delete(name);
      if (set?.size === 0) this.bySubject.delete(k);
    }
  }

  *for(user: UserInfo): Iterable<T> {
    const seen = new Set<string>();
    for (const k of userKeys(user)) {
      for (const name of this.bySubject.get(k) ?? []) {
        if (seen.has(name)) continue;
        seen.add(name);
        const b = this.byName.get(name);
        if (b !== undefined) yield b;
      }
    }
  }
}

/** A started {@link RBACPolicySource} over storage. */
export interface RBACPolicyCache extends RBACPolicySource {
  /** Every ClusterRole (for aggregation and the escalation checks). */
  clusterRoles(): Iterable<ClusterRole>;
  /** Stops the watches. */
  stop(): void;
}


const startInformer = (storage: Storage, plural: string, handlers: StorageInformerHandlers, log: (line: string) => void) =>
  startStorageInformer(storage, prefixOf(plural), handlers, log, "rbac policy cache");

// `<prefix><ns>/<name>` or `<prefix><name>` → [namespace, name].
function splitKey(prefix: string, key: string): [string, string] {
  const rest = key.slice(prefix.length);
  const i = rest.indexOf("/");
  return i < 0 ? ["", rest] : [rest.slice(0, i), rest.slice(i + 1)];
}

/**
 * Starts the cache: lists the four RBAC kinds from `storage` and watches them. Resolves once
 * every kind has been listed (the authorizer then answers from complete data).
 * @throws StorageError when a first list fails.
 */
export async function startRBACPolicyCache(storage: Storage, log: (line: string) => void = () => {}): Promise<RBACPolicyCache> {
  const roles = new Map<string, Role>();
  const clusterRoles = new Map<string, ClusterRole>();
  const clusterRoleBindings = new BindingIndex<ClusterRoleBinding>("");
  const roleBindings = new Map<string, BindingIndex<RoleBinding>>();
  const rbPrefix = prefixOf("rolebindings");
  const informers = await Promise.all([
    startInformer(storage, "roles", {
      reset: () => roles.clear(),
      apply: (k, o) => roles.set(splitKey(prefixOf("roles"), k).join("/"), o as Role),
      remove: (k) => roles.delete(splitKey(prefixOf("roles"), k).join("/")),
    }, log),
    startInformer(storage, "clusterroles", {
      reset: () => clusterRoles.clear(),
      apply: (k, o) => clusterRoles.set(splitKey(prefixOf("clusterroles"), k)[1], o as ClusterRole),
      remove: (k) => clusterRoles.delete(splitKey(prefixOf("clusterroles"), k)[1]),
    }, log),
    startInformer(storage, "clusterrolebindings", {
      reset: () => [...clusterRoleBindings.byName.keys()].forEach((n) => clusterRoleBindings.remove(n)),
      apply: (_k, o) => clusterRoleBindings.upsert(o as ClusterRoleBinding),
      remove: (k) => clusterRoleBindings.remove(splitKey(prefixOf("clusterrolebindings"), k)[1]),
    }, log),
    startInformer(storage, "rolebindings", {
      reset: () => roleBindings.clear(),
      apply: (k, o) => {
        const [ns] = splitKey(rbPrefix, k);
        let idx = roleBindings.get(ns);
        if (idx === undefined) roleBindings.set(ns, (idx = new BindingIndex<RoleBinding>(ns)));
        idx.upsert(o as RoleBinding);
      },
      remove: (k) => {
        const [ns, name] = splitKey(rbPrefix, k);
        roleBindings.get(ns)?.remove(name);
      },
    }, log),
  ]);
  return {
    getRole: (namespace, name) => roles.get(`${namespace}/${name}`),
    getClusterRole: (name) => clusterRoles.get(name),
    clusterRoleBindingsFor: (user) => clusterRoleBindings.for(user),
    roleBindingsFor: (user, namespace) => roleBindings.get(namespace)?.for(user) ?? [],
    clusterRoles: () => clusterRoles.values(),
    stop() {
      for (const i of informers) i.stop();
    },
  };
}
