/**
 * The resources Skiff serves, with the discovery facts kubectl and the generic server need. Values
 * are Kubernetes 1.23's (short names, categories, verbs), with `example` group suffixes.
 */

/** A verb a resource supports, as discovery reports it. */
export type ResourceVerb = "create" | "delete" | "deletecollection" | "get" | "list" | "patch" | "update" | "watch";

/**
 * One served resource.
 *
 * Invariants: `plural` and `singular` are lowercase; `listKind` is `kind + "List"`; `subresources`
 * are the names after `<plural>/<name>/` (status answers get/update/patch with the main kind;
 * binding answers create with a Binding; eviction answers create with a policy/v1 Eviction; the
 * Namespace's finalize answers update only).
 *
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (APIResource)
 */
export interface ResourceInfo {
  /** API group; `""` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  /** The resource name in URLs, such as `jobs`. */
  readonly plural: string;
  readonly singular: string;
  /** Whether objects live in a namespace (`/namespaces/{namespace}/<plural>`). */
  readonly namespaced: boolean;
  /** Short aliases for kubectl, such as `po`. */
  readonly shortNames: readonly string[];
  /** Categories; `all` puts the resource into `kubectl get all`. */
  readonly categories: readonly string[];
  readonly subresources: readonly string[];
  readonly verbs: readonly ResourceVerb[];
}

const allVerbs: readonly ResourceVerb[] = Object.freeze(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);

function resource(info: Omit<ResourceInfo, "listKind" | "verbs"> & { verbs?: readonly ResourceVerb[] }): ResourceInfo {
  return Object.freeze({
    ...info,
    listKind: `${info.kind}List`,
    shortNames: Object.freeze([...info.shortNames]),
    categories: Object.freeze([...info.categories]),
    subresources: Object.freeze([...info.subresources]),
    verbs: info.verbs ?? allVerbs,
  });
}

/**
 * Every resource Skiff serves, in discovery order (by group, then name). Frozen.
 *
 * @see pkg/registry/batch/job/storage/storage.go, pkg/registry/core/pod/storage/storage.go, ...
 *   (ShortNames, Categories of each REST store)
 */
export const resources: readonly ResourceInfo[] = Object.freeze([
  resource({ group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", singular: "configmap", namespaced: true, shortNames: ["cm"], categories: [], subresources: [] }),
  resource({ group: "", version: "v1", kind: "Event", plural: "events", singular: "event", namespaced: true, shortNames: ["ev"], categories: [], subresources: [] }),
  resource({
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    singular: "namespace",
    namespaced: false,
    shortNames: ["ns"],
    categories: [],
    subresources: ["status", "finalize"],
    verbs: Object.freeze(allVerbs.filter((v) => v !== "deletecollection")),
  }),
  resource({ group: "", version: "v1", kind: "Node", plural: "nodes", singular: "node", namespaced: false, shortNames: ["no"], categories: [], subresources: ["status"] }),
  resource({ group: "", version: "v1", kind: "Pod", plural: "pods", singular: "pod", namespaced: true, shortNames: ["po"], categories: ["all"], subresources: ["status", "ephemeralcontainers", "binding", "eviction", "exec", "attach", "portforward"] }),
  resource({ group: "", version: "v1", kind: "PodTemplate", plural: "podtemplates", singular: "podtemplate", namespaced: true, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "", version: "v1", kind: "Secret", plural: "secrets", singular: "secret", namespaced: true, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", singular: "serviceaccount", namespaced: true, shortNames: ["sa"], categories: [], subresources: [] }),
  resource({ group: "batch", version: "v1", kind: "Job", plural: "jobs", singular: "job", namespaced: true, shortNames: [], categories: ["all"], subresources: ["status"] }),
  resource({ group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", singular: "lease", namespaced: true, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", singular: "clusterrole", namespaced: false, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", singular: "clusterrolebinding", namespaced: false, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", singular: "role", namespaced: true, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", singular: "rolebinding", namespaced: true, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", plural: "priorityclasses", singular: "priorityclass", namespaced: false, shortNames: ["pc"], categories: [], subresources: [] }),
  resource({ group: "storage.example.io", version: "v1", kind: "CSIDriver", plural: "csidrivers", singular: "csidriver", namespaced: false, shortNames: [], categories: [], subresources: [] }),
  resource({ group: "storage.example.io", version: "v1", kind: "CSINode", plural: "csinodes", singular: "csinode", namespaced: false, shortNames: [], categories: [], subresources: [] }),
]);

/**
 * What {@link findResource} looks for: a `resource` (plural, singular or short name, any case) or
 * a `kind` (exact), optionally restricted to a `group` and `version`.
 */
export type ResourceQuery =
  | { readonly resource: string; readonly group?: string; readonly version?: string }
  | { readonly kind: string; readonly group?: string; readonly version?: string };

/**
 * Looks a served resource up the way kubectl resolves its arguments.
 *
 * - A string is `resource` or `resource.group` (`jobs`, `job`, `po`, `jobs.batch`,
 *   `csidrivers.storage.example.io`); the resource part matches plural, singular or a short name,
 *   case-insensitively.
 * - `{resource, group?, version?}` does the same with the group given separately (`""` is the
 *   core group; omitted means any group).
 * - `{kind, group?, version?}` matches the kind exactly (`Job`).
 *
 * Returns the first match in {@link resources} order, or `undefined`. Never throws; does not
 * mutate anything.
 *
 * @example
 * findResource("po")?.plural;                          // "pods"
 * findResource("jobs.batch")?.kind;                    // "Job"
 * findResource({ group: "batch", resource: "jobs" });  // the jobs entry
 * findResource({ kind: "CSINode" })?.namespaced;       // false
 */
export function findResource(query: string | ResourceQuery): ResourceInfo | undefined {
  if (typeof query === "string") {
    const dot = query.indexOf(".");
    if (dot === -1) return findResource({ resource: query });
    return findResource({ resource: query.slice(0, dot), group: query.slice(dot + 1) });
  }
  const inScope = (r: ResourceInfo) =>
    (query.group === undefined || r.group === query.group) && (query.version === undefined || r.version === query.version);
  if ("kind" in query) return resources.find((r) => inScope(r) && r.kind === query.kind);
  const name = query.resource.toLowerCase();
  if (name === "") return undefined;
  return resources.find((r) => inScope(r) && (r.plural === name || r.singular === name || r.shortNames.includes(name)));
}
