// meta/v1 (k8s.io/apimachinery/pkg/apis/meta/v1) and the apimachinery scalar types.
import {
  INT_OR_STRING,
  META,
  MICRO_TIME,
  QUANTITY,
  RAW_EXTENSION,
  TIME,
  arrayOf,
  atomicStruct,
  bool,
  freeForm,
  int32,
  int64,
  kindSchema,
  link,
  mergeBy,
  mergeScalars,
  object,
  str,
  strList,
  strMap,
} from "./dsl.mjs";

/** The group/versions served; DeleteOptions and WatchEvent appear under each (as in Kubernetes). */
export const servedGroupVersions = [
  { group: "", version: "v1" },
  { group: "authentication.k8s.io", version: "v1" },
  { group: "authorization.k8s.io", version: "v1" },
  { group: "batch", version: "v1" },
  { group: "storage.example.io", version: "v1" },
];

const everyGroupVersion = (kind) => servedGroupVersions.map(({ group, version }) => ({ group, version, kind }));

export const metaSchemas = {
  [QUANTITY]: {
    description:
      "A fixed-point quantity such as `100m`, `1Gi`, `2.5e3` or a plain number. On the wire it is a string in quantity syntax (a decimal number with an optional binary (Ki, Mi, Gi, Ti, Pi, Ei) or decimal (n, u, m, k, M, G, T, P, E) suffix or exponent) or a JSON number.",
    oneOf: [{ type: "string" }, { type: "number" }],
    "x-kubernetes-int-or-string": true,
  },
  [INT_OR_STRING]: {
    description: "Either a 32-bit integer or a string (for example a port number or a port name).",
    oneOf: [{ type: "integer", format: "int32" }, { type: "string" }],
    "x-kubernetes-int-or-string": true,
  },
  [RAW_EXTENSION]: freeForm("An embedded API object, kept as it comes; it carries its own `apiVersion` and `kind`."),
  [TIME]: {
    type: "string",
    format: "date-time",
    description: "An instant in RFC 3339 form with second precision, in UTC (for example `2024-01-02T03:04:05Z`).",
  },
  [MICRO_TIME]: {
    type: "string",
    format: "date-time",
    description: "An instant in RFC 3339 form with microsecond precision, in UTC (for example `2024-01-02T03:04:05.123456Z`).",
  },
  [`${META}FieldsV1`]: freeForm(
    "A set of fields as a trie in JSON: keys are `f:<name>`, `v:<value>`, `k:<keys>` or `i:<index>`, and `.` marks the field itself.",
  ),
  [`${META}Patch`]: freeForm("The body of a PATCH request; its shape depends on the request's Content-Type (JSON patch, merge patch, strategic merge patch or apply configuration)."),

  [`${META}ObjectMeta`]: object("Metadata that every persisted object has: identity, labels, annotations, ownership and the fields the system maintains.", {
    name: str("Unique name within the namespace (or cluster for cluster-scoped kinds). Required on create unless generateName is set. Cannot be updated."),
    generateName: str("A prefix from which the server generates a unique name when `name` is not set; a random suffix is appended."),
    namespace: str("The namespace the object lives in; empty for cluster-scoped kinds. Must be a DNS label. Cannot be updated."),
    selfLink: str("Deprecated and no longer set: a URL for this object."),
    uid: str("Unique identifier in time and space, set by the server on create. Read-only."),
    resourceVersion: str("Opaque version of this object, for optimistic concurrency and watches. Set by the server. Clients pass it back unchanged."),
    generation: int64("A sequence number for the desired state, increased by the server on every spec change. Read-only."),
    creationTimestamp: link(TIME, "When the object was created, set by the server. Read-only. Null for lists."),
    deletionTimestamp: link(
      TIME,
      "When the object will be deleted, set by the server when a graceful deletion is requested. Deletion waits while finalizers remain. Read-only.",
    ),
    deletionGracePeriodSeconds: int64("Seconds allowed for graceful termination before the object is removed. Only set with deletionTimestamp; may only shrink. Read-only."),
    labels: strMap("Key/value pairs for organizing and selecting objects."),
    annotations: strMap("Unstructured key/value data set by tools and controllers; not queryable."),
    ownerReferences: arrayOf(`${META}OwnerReference`, "Objects this object depends on. When every owner is gone, the object is garbage collected. At most one owner is the managing controller.", mergeBy("uid")),
    finalizers: strList(
      "Identifiers of components that must act before the object is removed. Deletion waits until the list is empty; entries are processed in any order.",
      mergeScalars,
    ),
    clusterName: str("Unused; ignored by the server if set."),
    managedFields: arrayOf(`${META}ManagedFieldsEntry`, "Which manager owns which fields, as recorded by server-side apply. Internal bookkeeping."),
  }),

  [`${META}ListMeta`]: object("Metadata of a list response.", {
    selfLink: str("Deprecated and no longer set: a URL for this list."),
    resourceVersion: str("The revision the list was read at; a watch started from it sees every later change."),
    continue: str("Set when the list was cut short by `limit`: pass it back as `continue` to read the next page at the same revision."),
    remainingItemCount: int64("How many items follow this page, when the server can tell. Only set with `continue` and without selectors."),
  }),

  [`${META}LabelSelector`]: object(
    "A label query. matchLabels and matchExpressions are ANDed; an empty selector matches everything and a null selector matches nothing.",
    {
      matchLabels: strMap("Each `key: value` pair is the requirement `key In (value)`."),
      matchExpressions: arrayOf(`${META}LabelSelectorRequirement`, "Requirements that must all hold."),
    },
    { extensions: atomicStruct },
  ),

  [`${META}LabelSelectorRequirement`]: object(
    "One requirement of a label selector: a key, an operator and values.",
    {
      key: str("The label key the requirement applies to."),
      operator: str("One of In, NotIn, Exists or DoesNotExist."),
      values: strList("The values for In and NotIn (non-empty); must be empty for Exists and DoesNotExist."),
    },
    { required: ["key", "operator"] },
  ),

  [`${META}OwnerReference`]: object(
    "Identifies an owner of an object. The owner is in the same namespace as the dependent or cluster-scoped, so there is no namespace field.",
    {
      apiVersion: str("API version of the owner."),
      kind: str("Kind of the owner."),
      name: str("Name of the owner."),
      uid: str("UID of the owner."),
      controller: bool("True when the owner is the managing controller of this object."),
      blockOwnerDeletion: bool("When true and the owner has the foregroundDeletion finalizer, the owner is not removed before this object is."),
    },
    { required: ["apiVersion", "kind", "name", "uid"], extensions: atomicStruct },
  ),

  [`${META}ManagedFieldsEntry`]: object("The fields one manager owns, as recorded by server-side apply.", {
    manager: str("Name of the manager (for example `kubectl`)."),
    operation: str("The operation that recorded the entry: Apply or Update."),
    apiVersion: str("The API version the fields are expressed in."),
    time: link(TIME, "When the entry last changed."),
    fieldsType: str("Format of fieldsV1; the only value is FieldsV1."),
    fieldsV1: link(`${META}FieldsV1`, "The set of fields, in the FieldsV1 format."),
    subresource: str("The subresource used to change the fields; empty for the main resource."),
  }),

  [`${META}Status`]: kindSchema({
    gvks: [{ group: "", version: "v1", kind: "Status" }],
    description: "The result of an operation that returns no object, and the body of every error response.",
    metadata: "ListMeta",
    metadataDescription: "Standard list metadata (usually empty).",
    properties: {
      status: str("Success or Failure."),
      message: str("Human-readable description of the outcome."),
      reason: str("Machine-readable CamelCase reason (for example NotFound, AlreadyExists, Conflict, Invalid); empty when none applies."),
      details: link(`${META}StatusDetails`, "Extra data about the reason, if any."),
      code: int32("The HTTP status code of the response."),
    },
  }),

  [`${META}StatusDetails`]: object("Details of a Status: which object was involved and why it failed.", {
    name: str("Name of the object the failure is about."),
    group: str("API group of the object."),
    kind: str("Kind (or resource) of the object."),
    uid: str("UID of the object."),
    causes: arrayOf(`${META}StatusCause`, "The individual causes, for example one per invalid field."),
    retryAfterSeconds: int32("Seconds the client should wait before retrying, when set."),
  }),

  [`${META}StatusCause`]: object("One cause of a failure.", {
    reason: str("Machine-readable cause, such as FieldValueInvalid or FieldValueRequired."),
    message: str("Human-readable description of the cause."),
    field: str("Path of the field that caused it, such as `spec.parallelism` or `spec.containers[0].name`."),
  }),

  [`${META}DeleteOptions`]: kindSchema({
    gvks: everyGroupVersion("DeleteOptions"),
    description: "Options of a delete or delete-collection request.",
    metadata: null,
    properties: {
      gracePeriodSeconds: int64("Seconds before the object is deleted; 0 means immediately. Unset means the kind's default."),
      preconditions: link(`${META}Preconditions`, "Conditions the object must meet for the delete to proceed."),
      orphanDependents: bool("Deprecated (use propagationPolicy): when true, dependents are orphaned."),
      propagationPolicy: str("How dependents are garbage collected: Orphan, Background or Foreground."),
      dryRun: strList("When present, the request is processed but not persisted; the only value is All."),
    },
  }),

  [`${META}Preconditions`]: object("Conditions an object must meet before an operation proceeds.", {
    uid: str("The object's UID must equal this."),
    resourceVersion: str("The object's resourceVersion must equal this."),
  }),

  [`${META}WatchEvent`]: kindSchema({
    gvks: everyGroupVersion("WatchEvent"),
    description: "One event of a watch stream.",
    metadata: null,
    properties: {
      type: str("ADDED, MODIFIED, DELETED, BOOKMARK or ERROR."),
      object: link(RAW_EXTENSION, "The object after the change (its last state for DELETED); a Status for ERROR; an object with only metadata.resourceVersion for BOOKMARK."),
    },
    required: ["type", "object"],
  }),

  [`${META}Table`]: kindSchema({
    gvks: [{ group: "meta.k8s.io", version: "v1", kind: "Table" }],
    description: "A tabular view of objects, as `kubectl get` prints it.",
    metadata: "ListMeta",
    properties: {
      columnDefinitions: arrayOf(`${META}TableColumnDefinition`, "The columns, in order."),
      rows: arrayOf(`${META}TableRow`, "One row per object."),
    },
    required: ["columnDefinitions", "rows"],
  }),

  [`${META}TableColumnDefinition`]: object(
    "One column of a Table.",
    {
      name: str("Column header, for example NAME or COMPLETIONS."),
      type: str("OpenAPI type of the cells: string, integer, number or boolean."),
      format: str("OpenAPI format of the cells, such as `name` or `date`; may be empty."),
      description: str("What the column shows."),
      priority: int32("0 for columns shown by default; higher for columns shown only in wide output."),
    },
    { required: ["name", "type", "format", "description", "priority"] },
  ),

  [`${META}TableRow`]: object(
    "One row of a Table.",
    {
      cells: { type: "array", items: {}, description: "One value per column definition, in order (strings, numbers, booleans or null)." },
      conditions: arrayOf(`${META}TableRowCondition`, "Conditions of the row, such as Completed."),
      object: link(RAW_EXTENSION, "The object of the row, as requested: full, PartialObjectMetadata or absent."),
    },
    { required: ["cells"] },
  ),

  [`${META}TableRowCondition`]: object(
    "A condition of a Table row.",
    {
      type: str("Condition type; Completed marks a row whose object finished running."),
      status: str("True, False or Unknown."),
      reason: str("Machine-readable reason for the last transition."),
      message: str("Human-readable details about the last transition."),
    },
    { required: ["type", "status"] },
  ),

  [`${META}PartialObjectMetadata`]: kindSchema({
    gvks: [{ group: "meta.k8s.io", version: "v1", kind: "PartialObjectMetadata" }],
    description: "An object reduced to its type and metadata.",
    properties: {},
  }),

  [`${META}PartialObjectMetadataList`]: kindSchema({
    gvks: [{ group: "meta.k8s.io", version: "v1", kind: "PartialObjectMetadataList" }],
    description: "A list of objects reduced to their type and metadata.",
    metadata: "ListMeta",
    properties: { items: arrayOf(`${META}PartialObjectMetadata`, "The objects of the list.") },
    required: ["items"],
  }),

  [`${META}APIResource`]: object(
    "One resource served in a group/version, as discovery reports it.",
    {
      name: str("The plural resource name, or `<plural>/<subresource>` for a subresource."),
      singularName: str("The singular resource name, for kubectl output and lookup."),
      namespaced: bool("Whether objects of the resource live in namespaces."),
      group: str("Group of the resource when it differs from the list's (subresources of other groups)."),
      version: str("Version of the resource when it differs from the list's."),
      kind: str("Kind of the objects of the resource."),
      verbs: strList("Verbs the resource supports: get, list, watch, create, update, patch, delete, deletecollection."),
      shortNames: strList("Short aliases, such as `po` for pods."),
      categories: strList("Groups of resources it belongs to; `all` puts it into `kubectl get all`."),
      storageVersionHash: str("Hash of the storage version, for detecting storage migrations."),
    },
    { required: ["name", "singularName", "namespaced", "kind", "verbs"] },
  ),

  [`${META}APIResourceList`]: kindSchema({
    gvks: [{ group: "", version: "v1", kind: "APIResourceList" }],
    description: "The resources served in one group/version (discovery).",
    metadata: null,
    properties: {
      groupVersion: str("The group/version the list describes, such as `batch/v1` or `v1`."),
      resources: arrayOf(`${META}APIResource`, "The resources and subresources of the group/version."),
    },
    required: ["groupVersion", "resources"],
  }),

  [`${META}APIGroup`]: kindSchema({
    gvks: [{ group: "", version: "v1", kind: "APIGroup" }],
    description: "One API group and its versions (discovery).",
    metadata: null,
    properties: {
      name: str("Name of the group."),
      versions: arrayOf(`${META}GroupVersionForDiscovery`, "The versions served."),
      preferredVersion: link(`${META}GroupVersionForDiscovery`, "The version clients should prefer."),
      serverAddressByClientCIDRs: arrayOf(`${META}ServerAddressByClientCIDR`, "Server addresses by client network, when the server has several."),
    },
    required: ["name", "versions"],
  }),

  [`${META}APIGroupList`]: kindSchema({
    gvks: [{ group: "", version: "v1", kind: "APIGroupList" }],
    description: "The API groups served under /apis (discovery).",
    metadata: null,
    properties: { groups: arrayOf(`${META}APIGroup`, "The groups.") },
    required: ["groups"],
  }),

  [`${META}APIVersions`]: kindSchema({
    gvks: [{ group: "", version: "v1", kind: "APIVersions" }],
    description: "The versions of the core group served under /api (discovery).",
    metadata: null,
    properties: {
      versions: strList("The versions, such as `v1`."),
      serverAddressByClientCIDRs: arrayOf(`${META}ServerAddressByClientCIDR`, "Server addresses by client network."),
    },
    required: ["versions", "serverAddressByClientCIDRs"],
  }),

  [`${META}GroupVersionForDiscovery`]: object(
    "A version of a group, as discovery reports it.",
    {
      groupVersion: str("`group/version`, such as `batch/v1`."),
      version: str("The version alone, such as `v1`."),
    },
    { required: ["groupVersion", "version"] },
  ),

  [`${META}ServerAddressByClientCIDR`]: object(
    "The server address clients in a network should use.",
    {
      clientCIDR: str("The client network, in CIDR notation."),
      serverAddress: str("Host and optional port clients in that network should use."),
    },
    { required: ["clientCIDR", "serverAddress"] },
  ),
};

