// The REST paths of every served resource, built from one table (mirrored by src/resources.ts;
// src/document.test.ts checks that the two agree).
import { AUTHN, AUTHZ, BATCH, COORDINATION, CORE, META, RBAC, SCHEDULING, STORAGE, ref } from "./dsl.mjs";

const allVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/**
 * The served resources. `deleteReturns`: what a successful DELETE answers with, `"object"` (the
 * deleted object, as for pods) or `"Status"` (as for jobs), per Kubernetes 1.23.
 */
export const servedResources = [
  { group: "batch", version: "v1", kind: "Job", plural: "jobs", namespaced: true, schema: `${BATCH}Job`, listSchema: `${BATCH}JobList`, subresources: ["status"], verbs: allVerbs, deleteReturns: "Status" },
  { group: "storage.example.io", version: "v1", kind: "CSIDriver", plural: "csidrivers", namespaced: false, schema: `${STORAGE}CSIDriver`, listSchema: `${STORAGE}CSIDriverList`, subresources: [], verbs: allVerbs, deleteReturns: "object" },
  { group: "storage.example.io", version: "v1", kind: "CSINode", plural: "csinodes", namespaced: false, schema: `${STORAGE}CSINode`, listSchema: `${STORAGE}CSINodeList`, subresources: [], verbs: allVerbs, deleteReturns: "object" },
  { group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", namespaced: true, schema: `${COORDINATION}Lease`, listSchema: `${COORDINATION}LeaseList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", plural: "priorityclasses", namespaced: false, schema: `${SCHEDULING}PriorityClass`, listSchema: `${SCHEDULING}PriorityClassList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false, schema: `${RBAC}ClusterRole`, listSchema: `${RBAC}ClusterRoleList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false, schema: `${RBAC}ClusterRoleBinding`, listSchema: `${RBAC}ClusterRoleBindingList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", namespaced: true, schema: `${RBAC}Role`, listSchema: `${RBAC}RoleList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", namespaced: true, schema: `${RBAC}RoleBinding`, listSchema: `${RBAC}RoleBindingList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "", version: "v1", kind: "PodTemplate", plural: "podtemplates", namespaced: true, schema: `${CORE}PodTemplate`, listSchema: `${CORE}PodTemplateList`, subresources: [], verbs: allVerbs, deleteReturns: "object" },
  { group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true, schema: `${CORE}Pod`, listSchema: `${CORE}PodList`, subresources: ["status", "ephemeralcontainers", "binding", "eviction", "exec", "attach", "portforward"], verbs: allVerbs, deleteReturns: "object" },
  { group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false, schema: `${CORE}Node`, listSchema: `${CORE}NodeList`, subresources: ["status"], verbs: allVerbs, deleteReturns: "Status" },
  { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true, schema: `${CORE}ConfigMap`, listSchema: `${CORE}ConfigMapList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "", version: "v1", kind: "Secret", plural: "secrets", namespaced: true, schema: `${CORE}Secret`, listSchema: `${CORE}SecretList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true, schema: `${CORE}ServiceAccount`, listSchema: `${CORE}ServiceAccountList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  { group: "", version: "v1", kind: "Event", plural: "events", namespaced: true, schema: `${CORE}Event`, listSchema: `${CORE}EventList`, subresources: [], verbs: allVerbs, deleteReturns: "Status" },
  {
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    namespaced: false,
    schema: `${CORE}Namespace`,
    listSchema: `${CORE}NamespaceList`,
    subresources: ["status", "finalize"],
    verbs: allVerbs.filter((v) => v !== "deletecollection"),
    deleteReturns: "Status",
  },
];

/** Create-only review kinds (not stored). */
const reviews = [
  { group: "authentication.k8s.io", version: "v1", kind: "TokenReview", plural: "tokenreviews", schema: `${AUTHN}TokenReview` },
  { group: "authentication.k8s.io", version: "v1", kind: "SelfSubjectReview", plural: "selfsubjectreviews", schema: `${AUTHN}SelfSubjectReview` },
  { group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview", plural: "subjectaccessreviews", schema: `${AUTHZ}SubjectAccessReview` },
  { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview", plural: "selfsubjectaccessreviews", schema: `${AUTHZ}SelfSubjectAccessReview` },
  { group: "authorization.k8s.io", version: "v1", kind: "LocalSubjectAccessReview", plural: "localsubjectaccessreviews", schema: `${AUTHZ}LocalSubjectAccessReview`, namespaced: true },
  { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectRulesReview", plural: "selfsubjectrulesreviews", schema: `${AUTHZ}SelfSubjectRulesReview` },
];

// ── parameters ───────────────────────────────────────────────────────────────────────────────
const q = (name, type, description) => ({ name, in: "query", description, schema: { type, uniqueItems: true } });
const P = {
  namespace: () => ({ name: "namespace", in: "path", required: true, description: "Object name and auth scope, such as for teams and projects.", schema: { type: "string", uniqueItems: true } }),
  name: (kind) => ({ name: "name", in: "path", required: true, description: `Name of the ${kind}.`, schema: { type: "string", uniqueItems: true } }),
  pretty: () => q("pretty", "string", "If 'true', the output is pretty-printed."),
  allowWatchBookmarks: () =>
    q("allowWatchBookmarks", "boolean", "Asks for BOOKMARK events on a watch; servers may ignore it. Ignored unless watch is true."),
  continue: () =>
    q("continue", "string", "The continue token of the previous page of a paged list; the next page is read at the same revision. 410 Gone when that revision was compacted."),
  fieldSelector: () => q("fieldSelector", "string", "Restricts the objects by their fields, such as `metadata.name=pi`. Everything by default."),
  labelSelector: () => q("labelSelector", "string", "Restricts the objects by their labels, such as `app=web,tier!=db`. Everything by default."),
  limit: () =>
    q("limit", "integer", "Maximum number of items in the response; when more exist, metadata.continue is set. The server may return fewer items (even none) with a continue token."),
  resourceVersion: () =>
    q("resourceVersion", "string", "Which revision to serve: unset for the most recent, \"0\" for any, otherwise at least (or exactly, per resourceVersionMatch) that revision. For watches, the revision to start after."),
  resourceVersionMatch: () => q("resourceVersionMatch", "string", "How resourceVersion applies to a list: NotOlderThan or Exact."),
  timeoutSeconds: () => q("timeoutSeconds", "integer", "Time limit of the list or watch call, in seconds."),
  watch: () => q("watch", "boolean", "Stream ADDED, MODIFIED and DELETED events instead of returning a list."),
  dryRun: () => q("dryRun", "string", "When present, the request is processed but not persisted. The only value is All."),
  fieldManager: () =>
    q("fieldManager", "string", "Name of the actor making the change, at most 128 printable characters. Required for apply patches, optional otherwise."),
  fieldValidation: () =>
    q("fieldValidation", "string", "What to do with unknown or duplicate fields in the body: Ignore (drop them), Warn (drop them and return a warning) or Strict (fail)."),
  force: () => q("force", "boolean", "For apply patches: take over fields owned by other managers instead of failing with a conflict. Must be unset for other patch types."),
  gracePeriodSeconds: () => q("gracePeriodSeconds", "integer", "Seconds before the object is deleted; 0 deletes immediately. Unset uses the kind's default."),
  propagationPolicy: () => q("propagationPolicy", "string", "How dependents are garbage collected: Orphan, Background or Foreground."),
};
const qGet = () => [P.pretty()];
const qList = () => [
  P.allowWatchBookmarks(),
  P.continue(),
  P.fieldSelector(),
  P.labelSelector(),
  P.limit(),
  P.pretty(),
  P.resourceVersion(),
  P.resourceVersionMatch(),
  P.timeoutSeconds(),
  P.watch(),
];
const qWrite = () => [P.dryRun(), P.fieldManager(), P.fieldValidation(), P.pretty()];
const qPatch = () => [...qWrite(), P.force()];
const qDelete = () => [P.dryRun(), P.gracePeriodSeconds(), P.pretty(), P.propagationPolicy()];
const qDeleteCollection = () => [
  P.continue(),
  P.dryRun(),
  P.fieldSelector(),
  P.gracePeriodSeconds(),
  P.labelSelector(),
  P.limit(),
  P.pretty(),
  P.propagationPolicy(),
  P.resourceVersion(),
  P.resourceVersionMatch(),
  P.timeoutSeconds(),
];

// ── bodies and responses ─────────────────────────────────────────────────────────────────────
const json = (schemaName) => ({ "application/json": { schema: ref(schemaName) } });
const ok = (schemaName, description = "OK") => ({ description, content: json(schemaName) });
const unauthorized = () => ({ description: "Unauthorized" });
const body = (schemaName) => ({ required: true, content: json(schemaName) });
const patchBody = () => ({
  required: true,
  content: Object.fromEntries(
    ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"].map((type) => [
      type,
      { schema: ref(`${META}Patch`) },
    ]),
  ),
});
const deleteBody = () => ({ content: json(`${META}DeleteOptions`) });

function groupVersionId(group, version) {
  const base = group === "" ? "core" : group.replace(/\.(k8s|example)\.io$/, "");
  const words = base.split(/[.-]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return words.join("") + version.charAt(0).toUpperCase() + version.slice(1);
}

function prefixOf(group, version) {
  return group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
}

function operation({ r, action, id, description, parameters, requestBody, responses, kind = r.kind }) {
  const op = { description, operationId: id, parameters };
  if (requestBody) op.requestBody = requestBody;
  op.responses = { ...responses, 401: unauthorized() };
  op["x-kubernetes-action"] = action;
  op["x-kubernetes-group-version-kind"] = { group: r.group, version: r.version, kind };
  return op;
}

function resourcePaths(r) {
  const gv = groupVersionId(r.group, r.version);
  const ns = r.namespaced ? "Namespaced" : "";
  const prefix = prefixOf(r.group, r.version);
  const base = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.plural}` : `${prefix}/${r.plural}`;
  const scope = r.namespaced ? [P.namespace()] : [];
  const named = () => [P.name(r.kind), ...scope];
  const has = (verb) => r.verbs.includes(verb);
  const deleted = r.deleteReturns === "Status" ? `${META}Status` : r.schema;
  const paths = {};

  const collection = {};
  if (has("list"))
    collection.get = operation({
      r,
      action: "list",
      id: `list${gv}${ns}${r.kind}`,
      description: `List or watch ${r.kind} objects${r.namespaced ? " in a namespace" : ""}.`,
      parameters: [...scope, ...qList()],
      responses: {
        200: {
          description: "OK",
          content: { ...json(r.listSchema), "application/json;stream=watch": { schema: ref(`${META}WatchEvent`) } },
        },
      },
    });
  if (has("create"))
    collection.post = operation({
      r,
      action: "post",
      id: `create${gv}${ns}${r.kind}`,
      description: `Create a ${r.kind}.`,
      parameters: [...scope, ...qWrite()],
      requestBody: body(r.schema),
      responses: { 200: ok(r.schema), 201: ok(r.schema, "Created"), 202: ok(r.schema, "Accepted") },
    });
  if (has("deletecollection"))
    collection.delete = operation({
      r,
      action: "deletecollection",
      id: `delete${gv}Collection${ns}${r.kind}`,
      description: `Delete a collection of ${r.kind} objects.`,
      parameters: [...scope, ...qDeleteCollection()],
      requestBody: deleteBody(),
      responses: { 200: ok(`${META}Status`) },
    });
  paths[base] = collection;

  const item = {};
  if (has("get"))
    item.get = operation({ r, action: "get", id: `read${gv}${ns}${r.kind}`, description: `Read the specified ${r.kind}.`, parameters: [...named(), ...qGet()], responses: { 200: ok(r.schema) } });
  if (has("update"))
    item.put = operation({
      r,
      action: "put",
      id: `replace${gv}${ns}${r.kind}`,
      description: `Replace the specified ${r.kind}.`,
      parameters: [...named(), ...qWrite()],
      requestBody: body(r.schema),
      responses: { 200: ok(r.schema), 201: ok(r.schema, "Created") },
    });
  if (has("patch"))
    item.patch = operation({
      r,
      action: "patch",
      id: `patch${gv}${ns}${r.kind}`,
      description: `Partially update the specified ${r.kind}.`,
      parameters: [...named(), ...qPatch()],
      requestBody: patchBody(),
      responses: { 200: ok(r.schema), 201: ok(r.schema, "Created") },
    });
  if (has("delete"))
    item.delete = operation({
      r,
      action: "delete",
      id: `delete${gv}${ns}${r.kind}`,
      description: `Delete a ${r.kind}.`,
      parameters: [...named(), ...qDelete()],
      requestBody: deleteBody(),
      responses: { 200: ok(deleted), 202: ok(deleted, "Accepted") },
    });
  paths[`${base}/{name}`] = item;

  if (r.subresources.includes("status")) {
    paths[`${base}/{name}/status`] = {
      get: operation({ r, action: "get", id: `read${gv}${ns}${r.kind}Status`, description: `Read the status of the specified ${r.kind}.`, parameters: [...named(), ...qGet()], responses: { 200: ok(r.schema) } }),
      put: operation({
        r,
        action: "put",
        id: `replace${gv}${ns}${r.kind}Status`,
        description: `Replace the status of the specified ${r.kind}.`,
        parameters: [...named(), ...qWrite()],
        requestBody: body(r.schema),
        responses: { 200: ok(r.schema), 201: ok(r.schema, "Created") },
      }),
      patch: operation({
        r,
        action: "patch",
        id: `patch${gv}${ns}${r.kind}Status`,
        description: `Partially update the status of the specified ${r.kind}.`,
        parameters: [...named(), ...qPatch()],
        requestBody: patchBody(),
        responses: { 200: ok(r.schema), 201: ok(r.schema, "Created") },
      }),
    };
  }
  if (r.subresources.includes("ephemeralcontainers")) {
    // 1.23's EphemeralContainersREST: get, replace and patch of the whole Pod; only
    // spec.ephemeralContainers (and the identifying metadata) of the request is kept.
    paths[`${base}/{name}/ephemeralcontainers`] = {
      get: operation({ r, action: "get", id: `read${gv}${ns}${r.kind}Ephemeralcontainers`, description: `Read ephemeralcontainers of the specified ${r.kind}.`, parameters: [...named(), ...qGet()], responses: { 200: ok(r.schema) } }),
      put: operation({
        r,
        action: "put",
        id: `replace${gv}${ns}${r.kind}Ephemeralcontainers`,
        description: `Replace ephemeralcontainers of the specified ${r.kind}.`,
        parameters: [...named(), ...qWrite()],
        requestBody: body(r.schema),
        responses: { 200: ok(r.schema), 201: ok(r.schema, "Created") },
      }),
      patch: operation({
        r,
        action: "patch",
        id: `patch${gv}${ns}${r.kind}Ephemeralcontainers`,
        description: `Partially update ephemeralcontainers of the specified ${r.kind}.`,
        parameters: [...named(), ...qPatch()],
        requestBody: patchBody(),
        responses: { 200: ok(r.schema), 201: ok(r.schema, "Created") },
      }),
    };
  }
  if (r.subresources.includes("finalize")) {
    // 1.23 serves PUT only (FinalizeREST is an Updater), with the Namespace kind.
    paths[`${base}/{name}/finalize`] = {
      put: operation({
        r,
        action: "put",
        id: `replace${gv}${ns}${r.kind}Finalize`,
        description: `Replace the finalizers (spec.finalizers) of the specified ${r.kind}.`,
        parameters: [...named(), ...qWrite()],
        requestBody: body(r.schema),
        responses: { 200: ok(r.schema), 201: ok(r.schema, "Created") },
      }),
    };
  }
  if (r.subresources.includes("binding")) {
    const binding = `${CORE}Binding`;
    paths[`${base}/{name}/binding`] = {
      post: operation({
        r,
        kind: "Binding",
        action: "post",
        id: `create${gv}${ns}${r.kind}Binding`,
        description: `Create the binding of a ${r.kind} to a node.`,
        parameters: [P.name("Binding"), ...scope, ...qWrite()],
        requestBody: body(binding),
        responses: { 200: ok(binding), 201: ok(binding, "Created"), 202: ok(binding, "Accepted") },
      }),
    };
  }
  if (r.subresources.includes("eviction")) {
    const eviction = "io.example.api.policy.v1.Eviction";
    paths[`${base}/{name}/eviction`] = {
      post: operation({
        r,
        kind: "Eviction",
        action: "post",
        id: `create${gv}${ns}${r.kind}Eviction`,
        description: `Create an eviction of a ${r.kind}.`,
        parameters: [P.name("Eviction"), ...scope, ...qWrite()],
        requestBody: body(eviction),
        responses: { 200: ok(eviction), 201: ok(eviction, "Created"), 202: ok(eviction, "Accepted") },
      }),
    };
  }
  // The connect subresources: GET and POST upgrade to a SPDY/3.1 or WebSocket stream to the node.
  const connectParams = {
    exec: [
      { ...q("command", "string", "Command is the remote command to execute; argv array, one parameter per argument. Not executed within a shell."), schema: { type: "string", uniqueItems: true } },
      q("container", "string", "Container in which to execute the command. Defaults to the only container if there is only one container in the pod."),
      q("stderr", "boolean", "Redirect the standard error stream of the pod for this call."),
      q("stdin", "boolean", "Redirect the standard input stream of the pod for this call. Defaults to false."),
      q("stdout", "boolean", "Redirect the standard output stream of the pod for this call."),
      q("tty", "boolean", "TTY if true indicates that a tty will be allocated for the exec call. Defaults to false."),
    ],
    attach: [
      q("container", "string", "The container in which to execute the command. Defaults to only container if there is only one container in the pod."),
      q("stderr", "boolean", "Stderr if true indicates that stderr is to be redirected for the attach call. Defaults to true."),
      q("stdin", "boolean", "Stdin if true, redirects the standard input stream of the pod for this call. Defaults to false."),
      q("stdout", "boolean", "Stdout if true indicates that stdout is to be redirected for the attach call. Defaults to true."),
      q("tty", "boolean", "TTY if true indicates that a tty will be allocated for the attach call. This is passed through the container runtime so the tty is allocated on the worker node by the container runtime. Defaults to false."),
    ],
    portforward: [q("ports", "integer", "List of ports to forward. Required when using WebSockets.")],
  };
  const connectKinds = { exec: "PodExecOptions", attach: "PodAttachOptions", portforward: "PodPortForwardOptions" };
  for (const sub of ["exec", "attach", "portforward"]) {
    if (!r.subresources.includes(sub)) continue;
    const suffix = sub === "portforward" ? "Portforward" : sub.charAt(0).toUpperCase() + sub.slice(1);
    const connect = (method) =>
      operation({
        r,
        kind: connectKinds[sub],
        action: "connect",
        id: `connect${gv}${method}${ns}${r.kind}${suffix}`,
        description: `Connect ${method} requests to ${sub} of ${r.kind}.`,
        parameters: [P.name(connectKinds[sub]), ...scope, ...connectParams[sub]],
        responses: { 200: { description: "OK", content: { "*/*": { schema: { type: "string" } } } } },
      });
    paths[`${base}/{name}/${sub}`] = { get: connect("Get"), post: connect("Post") };
  }
  if (r.namespaced && has("list")) {
    paths[`${prefix}/${r.plural}`] = {
      get: operation({
        r,
        action: "list",
        id: `list${gv}${r.kind}ForAllNamespaces`,
        description: `List or watch ${r.kind} objects in all namespaces.`,
        parameters: qList(),
        responses: {
          200: { description: "OK", content: { ...json(r.listSchema), "application/json;stream=watch": { schema: ref(`${META}WatchEvent`) } } },
        },
      }),
    };
  }
  return paths;
}

function reviewPaths(r) {
  const gv = groupVersionId(r.group, r.version);
  return {
    [`${prefixOf(r.group, r.version)}${r.namespaced ? "/namespaces/{namespace}" : ""}/${r.plural}`]: {
      post: operation({
        r,
        action: "post",
        id: `create${gv}${r.namespaced ? "Namespaced" : ""}${r.kind}`,
        description: `Create a ${r.kind}: the server answers with its status filled in.`,
        parameters: r.namespaced ? [P.namespace(), ...qWrite()] : qWrite(),
        requestBody: body(r.schema),
        responses: { 200: ok(r.schema), 201: ok(r.schema, "Created"), 202: ok(r.schema, "Accepted") },
      }),
    },
  };
}

function discoveryPaths() {
  const groupVersions = [...new Map([...servedResources, ...reviews].map((r) => [`${r.group}/${r.version}`, r])).values()];
  const groups = [...new Set(groupVersions.map((r) => r.group).filter((g) => g !== ""))];
  const get = (id, description, schemaName) => ({ get: { description, operationId: id, responses: { 200: ok(schemaName), 401: unauthorized() } } });
  const paths = { "/api/": get("getCoreAPIVersions", "Get the available versions of the core group.", `${META}APIVersions`) };
  paths["/apis/"] = get("getAPIVersions", "Get the available API groups.", `${META}APIGroupList`);
  for (const group of groups) {
    paths[`/apis/${group}/`] = get(`get${groupVersionId(group, "")}APIGroup`, `Get information about the ${group} group.`, `${META}APIGroup`);
  }
  for (const r of groupVersions) {
    paths[`${prefixOf(r.group, r.version)}/`] = get(`get${groupVersionId(r.group, r.version)}APIResources`, `Get the resources available in ${r.group === "" ? r.version : `${r.group}/${r.version}`}.`, `${META}APIResourceList`);
  }
  return paths;
}

/** Every path of the document, discovery first, then per resource. */
export function buildPaths() {
  const paths = discoveryPaths();
  for (const r of servedResources) Object.assign(paths, resourcePaths(r));
  for (const r of reviews) Object.assign(paths, reviewPaths(r));
  return paths;
}
