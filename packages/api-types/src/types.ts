/**
 * Named TypeScript types of every schema in Skiff's OpenAPI document (`openapi.json`), aliases of
 * the types openapi-typescript generates in `./generated/schema.ts`. Required in the document is
 * required here; every other property is optional and, under `exactOptionalPropertyTypes`, must be
 * omitted rather than set to `undefined`. `apiVersion`, `kind` and `metadata` are optional, as in
 * Kubernetes.
 */
import type { components, operations, paths } from "./generated/schema.js";

type Schemas = components["schemas"];

/** The raw `components` type openapi-typescript generates: `OpenAPIComponents["schemas"]["io.example.api.batch.v1.Job"]`. */
export type OpenAPIComponents = components;

/** The raw `paths` type openapi-typescript generates, keyed by path template (`/apis/batch/v1/namespaces/{namespace}/jobs`). */
export type OpenAPIPaths = paths;

/** The raw `operations` type openapi-typescript generates, keyed by operationId (`readBatchV1NamespacedJob`). */
export type OpenAPIOperations = operations;

// ── meta/v1 and apimachinery scalars ────────────────────────────────────────────────────────────────

/**
 * Metadata every persisted object has: name, namespace, labels, annotations, owner references, finalizers and the fields the server maintains (uid, resourceVersion, generation, timestamps, managedFields).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type ObjectMeta = Schemas["io.example.apimachinery.pkg.apis.meta.v1.ObjectMeta"];

/**
 * Metadata of a list: the revision it was read at and, for a cut-short page, the `continue` token.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type ListMeta = Schemas["io.example.apimachinery.pkg.apis.meta.v1.ListMeta"];

/**
 * A label query: `matchLabels` and `matchExpressions` are ANDed; empty matches everything. Atomic on merge.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type LabelSelector = Schemas["io.example.apimachinery.pkg.apis.meta.v1.LabelSelector"];

/**
 * One label requirement: `key`, `operator` (In, NotIn, Exists, DoesNotExist) and `values`.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type LabelSelectorRequirement = Schemas["io.example.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"];

/**
 * A reference to an owner in the same namespace (or cluster-scoped): `apiVersion`, `kind`, `name` and `uid` are required.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type OwnerReference = Schemas["io.example.apimachinery.pkg.apis.meta.v1.OwnerReference"];

/**
 * The fields one manager owns, as server-side apply records them; `fieldsV1` is a free-form object.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type ManagedFieldsEntry = Schemas["io.example.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"];

/**
 * A set of fields in the FieldsV1 trie format: a free-form JSON object.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type FieldsV1 = Schemas["io.example.apimachinery.pkg.apis.meta.v1.FieldsV1"];

/**
 * The body of an error response, and the result of operations that return no object (`kind: Status`, `apiVersion: v1`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type Status = Schemas["io.example.apimachinery.pkg.apis.meta.v1.Status"];

/**
 * Details of a {@link Status}: the object involved and the individual causes.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type StatusDetails = Schemas["io.example.apimachinery.pkg.apis.meta.v1.StatusDetails"];

/**
 * One cause of a failure: `reason`, `message` and the `field` path.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type StatusCause = Schemas["io.example.apimachinery.pkg.apis.meta.v1.StatusCause"];

/**
 * Options of a delete or delete-collection request: grace period, preconditions, propagation policy, dry run.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type DeleteOptions = Schemas["io.example.apimachinery.pkg.apis.meta.v1.DeleteOptions"];

/**
 * Conditions (`uid`, `resourceVersion`) an object must meet before an operation proceeds.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type Preconditions = Schemas["io.example.apimachinery.pkg.apis.meta.v1.Preconditions"];

/**
 * One event of a watch stream: `type` (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) and the `object`.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type WatchEvent = Schemas["io.example.apimachinery.pkg.apis.meta.v1.WatchEvent"];

/**
 * A tabular view of objects (`meta.k8s.io/v1` Table), as `kubectl get` asks for it.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type Table = Schemas["io.example.apimachinery.pkg.apis.meta.v1.Table"];

/**
 * One column of a {@link Table}; `priority` 0 is shown by default, higher only in wide output.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type TableColumnDefinition = Schemas["io.example.apimachinery.pkg.apis.meta.v1.TableColumnDefinition"];

/**
 * One row of a {@link Table}: one cell per column and, optionally, the object.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type TableRow = Schemas["io.example.apimachinery.pkg.apis.meta.v1.TableRow"];

/**
 * A condition of a {@link TableRow}, such as Completed.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type TableRowCondition = Schemas["io.example.apimachinery.pkg.apis.meta.v1.TableRowCondition"];

/**
 * An object reduced to `apiVersion`, `kind` and `metadata` (`meta.k8s.io/v1`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type PartialObjectMetadata = Schemas["io.example.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata"];

/**
 * A list of {@link PartialObjectMetadata} (`meta.k8s.io/v1`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type PartialObjectMetadataList = Schemas["io.example.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList"];

/**
 * One resource of a group/version, as legacy discovery reports it.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type APIResource = Schemas["io.example.apimachinery.pkg.apis.meta.v1.APIResource"];

/**
 * The resources served in one group/version (`GET /api/v1`, `GET /apis/<group>/<version>`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type APIResourceList = Schemas["io.example.apimachinery.pkg.apis.meta.v1.APIResourceList"];

/**
 * One API group and its versions (`GET /apis/<group>`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type APIGroup = Schemas["io.example.apimachinery.pkg.apis.meta.v1.APIGroup"];

/**
 * The API groups under /apis (`GET /apis`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type APIGroupList = Schemas["io.example.apimachinery.pkg.apis.meta.v1.APIGroupList"];

/**
 * The versions of the core group (`GET /api`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type APIVersions = Schemas["io.example.apimachinery.pkg.apis.meta.v1.APIVersions"];

/**
 * A version of a group in discovery: `groupVersion` and `version`.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type GroupVersionForDiscovery = Schemas["io.example.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery"];

/**
 * The server address clients in a network should use.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type ServerAddressByClientCIDR = Schemas["io.example.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR"];

/**
 * The body of a PATCH request; its shape depends on the Content-Type.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type Patch = Schemas["io.example.apimachinery.pkg.apis.meta.v1.Patch"];

/**
 * An RFC 3339 instant with second precision, in UTC (`2024-01-02T03:04:05Z`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type Time = Schemas["io.example.apimachinery.pkg.apis.meta.v1.Time"];

/**
 * An RFC 3339 instant with microsecond precision, in UTC (`2024-01-02T03:04:05.123456Z`).
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
 */
export type MicroTime = Schemas["io.example.apimachinery.pkg.apis.meta.v1.MicroTime"];

// ── scalars ─────────────────────────────────────────────────────────────────────────────────────────

/**
 * A resource quantity: a string in quantity syntax (`100m`, `1Gi`, `2.5e3`) or a JSON number.
 * @see staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
 */
export type Quantity = Schemas["io.example.apimachinery.pkg.api.resource.Quantity"];

/**
 * A 32-bit integer or a string (a port number or a port name).
 * @see staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go
 */
export type IntOrString = Schemas["io.example.apimachinery.pkg.util.intstr.IntOrString"];

/**
 * An embedded object of any kind, kept as it comes.
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/types.go
 */
export type RawExtension = Schemas["io.example.apimachinery.pkg.runtime.RawExtension"];

// ── batch/v1 ────────────────────────────────────────────────────────────────────────────────────────

/**
 * `batch/v1` Job: runs pods until a required number of them succeed. Namespaced.
 * @see staging/src/k8s.io/api/batch/v1/types.go
 */
export type Job = Schemas["io.example.api.batch.v1.Job"];

/**
 * `batch/v1` JobList.
 * @see staging/src/k8s.io/api/batch/v1/types.go
 */
export type JobList = Schemas["io.example.api.batch.v1.JobList"];

/**
 * Desired behavior of a {@link Job}; `template` is required. Defaults (applied by the server): backoffLimit 6, completionMode NonIndexed, suspend false.
 * @see staging/src/k8s.io/api/batch/v1/types.go
 */
export type JobSpec = Schemas["io.example.api.batch.v1.JobSpec"];

/**
 * Observed state of a {@link Job}: counters, conditions, completedIndexes (`1,3-5,7` form) and uncountedTerminatedPods.
 * @see staging/src/k8s.io/api/batch/v1/types.go
 */
export type JobStatus = Schemas["io.example.api.batch.v1.JobStatus"];

/**
 * One condition of a {@link Job}: `type` (Complete, Failed, Suspended) and `status` are required.
 * @see staging/src/k8s.io/api/batch/v1/types.go
 */
export type JobCondition = Schemas["io.example.api.batch.v1.JobCondition"];

/**
 * UIDs of terminated pods not yet counted in {@link JobStatus}; both lists are sets on merge.
 * @see staging/src/k8s.io/api/batch/v1/types.go
 */
export type UncountedTerminatedPods = Schemas["io.example.api.batch.v1.UncountedTerminatedPods"];

// ── storage.example.io/v1 ───────────────────────────────────────────────────────────────────────────

/**
 * `storage.example.io/v1` CSIDriver: one installed CSI volume driver. Cluster-scoped; `spec` is required.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type CSIDriver = Schemas["io.example.api.storage.v1.CSIDriver"];

/**
 * `storage.example.io/v1` CSIDriverList.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type CSIDriverList = Schemas["io.example.api.storage.v1.CSIDriverList"];

/**
 * Specification of a {@link CSIDriver}; most fields are immutable.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type CSIDriverSpec = Schemas["io.example.api.storage.v1.CSIDriverSpec"];

/**
 * A service-account token a CSI driver needs: `audience` (required) and `expirationSeconds`.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type TokenRequest = Schemas["io.example.api.storage.v1.TokenRequest"];

/**
 * `storage.example.io/v1` CSINode: the CSI drivers of one node, named after it. Cluster-scoped; `spec` is required.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type CSINode = Schemas["io.example.api.storage.v1.CSINode"];

/**
 * `storage.example.io/v1` CSINodeList.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type CSINodeList = Schemas["io.example.api.storage.v1.CSINodeList"];

/**
 * The drivers of a {@link CSINode}; `drivers` is required and merged by `name`.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type CSINodeSpec = Schemas["io.example.api.storage.v1.CSINodeSpec"];

/**
 * One CSI driver on a node: `name` and `nodeID` are required.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type CSINodeDriver = Schemas["io.example.api.storage.v1.CSINodeDriver"];

/**
 * Volume limits of a driver on a node; `count` unset means unbounded.
 * @see staging/src/k8s.io/api/storage/v1/types.go
 */
export type VolumeNodeResources = Schemas["io.example.api.storage.v1.VolumeNodeResources"];

// ── coordination.k8s.io/v1 (verbatim group: client-go reads node leases there) ─────────────────

/**
 * `coordination.k8s.io/v1` Lease: a holder's renewable claim. Namespaced; `spec` is optional. A
 * node lease lives in `kube-node-lease`, is named after its node, held by it (`holderIdentity`)
 * and renewed as its heartbeat. `acquireTime`/`renewTime` are MicroTime (served with six
 * fractional digits); `leaseDurationSeconds` > 0 and `leaseTransitions` ≥ 0 when set.
 * @see staging/src/k8s.io/api/coordination/v1/types.go
 */
export type Lease = Schemas["io.example.api.coordination.v1.Lease"];

/**
 * `coordination.k8s.io/v1` LeaseList.
 * @see staging/src/k8s.io/api/coordination/v1/types.go
 */
export type LeaseList = Schemas["io.example.api.coordination.v1.LeaseList"];

/**
 * The holder, duration and times of a {@link Lease}; every field optional.
 * @see staging/src/k8s.io/api/coordination/v1/types.go
 */
export type LeaseSpec = Schemas["io.example.api.coordination.v1.LeaseSpec"];

// ── scheduling.k8s.io/v1 (verbatim group) ────────────────────────────────────────────────────────

/**
 * `scheduling.k8s.io/v1` PriorityClass: a name pods give in `spec.priorityClassName`, mapped to
 * the integer priority (`value`, at most 1,000,000,000 for user classes) and `preemptionPolicy`
 * the Priority admission plugin copies into their spec. Cluster-scoped; `value` and
 * `preemptionPolicy` are immutable; at most one class is `globalDefault`. The apiserver keeps the
 * built-in `system-cluster-critical` (2,000,000,000) and `system-node-critical` (2,000,001,000).
 * @see staging/src/k8s.io/api/scheduling/v1/types.go
 */
export type PriorityClass = Schemas["io.example.api.scheduling.v1.PriorityClass"];

/**
 * `scheduling.k8s.io/v1` PriorityClassList.
 * @see staging/src/k8s.io/api/scheduling/v1/types.go
 */
export type PriorityClassList = Schemas["io.example.api.scheduling.v1.PriorityClassList"];

// ── core/v1 ─────────────────────────────────────────────────────────────────────────────────────────

/**
 * `v1` ConfigMap: configuration data for pods. Namespaced. `data` holds UTF-8 values,
 * `binaryData` base64 text (decoded, the values of both together at most 1 MiB); a key is in at
 * most one of them. Once `immutable` is true, neither may change.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ConfigMap = Schemas["io.example.api.core.v1.ConfigMap"];

/**
 * `v1` ConfigMapList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ConfigMapList = Schemas["io.example.api.core.v1.ConfigMapList"];

/**
 * `v1` Secret: secret data of a `type` (default `Opaque`). Namespaced. `data` values are base64
 * text on the wire (decoded at most 1 MiB together); `stringData` is write-only and merged into
 * `data` by the server. `type` cannot change; once `immutable` is true, `data` cannot either.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Secret = Schemas["io.example.api.core.v1.Secret"];

/**
 * `v1` SecretList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SecretList = Schemas["io.example.api.core.v1.SecretList"];

/**
 * `v1` ServiceAccount: an identity for pods, with the secrets and image pull secrets they may
 * use, and whether pods get its token mounted (`automountServiceAccountToken`). Namespaced.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ServiceAccount = Schemas["io.example.api.core.v1.ServiceAccount"];

/**
 * `v1` ServiceAccountList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ServiceAccountList = Schemas["io.example.api.core.v1.ServiceAccountList"];

/**
 * `v1` PodTemplate: a stored template for pods. Namespaced.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodTemplate = Schemas["io.example.api.core.v1.PodTemplate"];

/**
 * `v1` PodTemplateList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodTemplateList = Schemas["io.example.api.core.v1.PodTemplateList"];

/**
 * The metadata and spec of pods created from a template.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodTemplateSpec = Schemas["io.example.api.core.v1.PodTemplateSpec"];

/**
 * `v1` Pod: containers scheduled together onto one node. Namespaced.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Pod = Schemas["io.example.api.core.v1.Pod"];

/**
 * `v1` PodList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodList = Schemas["io.example.api.core.v1.PodList"];

/**
 * Desired behavior of a {@link Pod}; `containers` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodSpec = Schemas["io.example.api.core.v1.PodSpec"];

/**
 * Observed state of a {@link Pod}: phase, conditions, IPs and container statuses.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodStatus = Schemas["io.example.api.core.v1.PodStatus"];

/**
 * One condition of a {@link Pod}: `type` and `status` are required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodCondition = Schemas["io.example.api.core.v1.PodCondition"];

/**
 * A condition type a {@link Pod}'s readiness depends on (`spec.readinessGates`): the pod is Ready
 * only when its containers are ready and that condition of `status.conditions` is True.
 * @see staging/src/k8s.io/api/core/v1/types.go (PodReadinessGate) in kubernetes/kubernetes v1.23
 */
export type PodReadinessGate = Schemas["io.example.api.core.v1.PodReadinessGate"];

/**
 * One IP address of a pod.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodIP = Schemas["io.example.api.core.v1.PodIP"];

/**
 * One container of a pod; `name` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Container = Schemas["io.example.api.core.v1.Container"];

/**
 * A container added to a running pod through its `ephemeralcontainers` subresource (debugging);
 * the fields of a {@link Container} plus `targetContainerName`, the container whose PID namespace
 * it joins. Never restarted, never changed or removed once added.
 * @see staging/src/k8s.io/api/core/v1/types.go (EphemeralContainer)
 */
export type EphemeralContainer = Schemas["io.example.api.core.v1.EphemeralContainer"];

/**
 * A port of a container; `containerPort` is required, `protocol` defaults to TCP.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ContainerPort = Schemas["io.example.api.core.v1.ContainerPort"];

/**
 * One environment variable; `name` is required, the value is literal or from `valueFrom`.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EnvVar = Schemas["io.example.api.core.v1.EnvVar"];

/**
 * Where an environment variable's value comes from; exactly one member is set.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EnvVarSource = Schemas["io.example.api.core.v1.EnvVarSource"];

/**
 * Selects a field of an object by path (`fieldPath`, required).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ObjectFieldSelector = Schemas["io.example.api.core.v1.ObjectFieldSelector"];

/**
 * Selects a resource limit or request of a container (`resource`, required).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ResourceFieldSelector = Schemas["io.example.api.core.v1.ResourceFieldSelector"];

/**
 * Selects a key of a ConfigMap.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ConfigMapKeySelector = Schemas["io.example.api.core.v1.ConfigMapKeySelector"];

/**
 * Selects a key of a Secret.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SecretKeySelector = Schemas["io.example.api.core.v1.SecretKeySelector"];

/**
 * A ConfigMap or Secret whose keys become environment variables.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EnvFromSource = Schemas["io.example.api.core.v1.EnvFromSource"];

/**
 * The ConfigMap of an {@link EnvFromSource}.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ConfigMapEnvSource = Schemas["io.example.api.core.v1.ConfigMapEnvSource"];

/**
 * The Secret of an {@link EnvFromSource}.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SecretEnvSource = Schemas["io.example.api.core.v1.SecretEnvSource"];

/**
 * Compute resources of a container: `limits` and `requests`, maps of resource name to {@link Quantity}.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ResourceRequirements = Schemas["io.example.api.core.v1.ResourceRequirements"];

/**
 * A volume mounted into a container; `name` and `mountPath` are required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type VolumeMount = Schemas["io.example.api.core.v1.VolumeMount"];

/**
 * A raw block device of a persistentVolumeClaim (or ephemeral) volume mapped into a container at
 * `devicePath`; both fields are required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type VolumeDevice = Schemas["io.example.api.core.v1.VolumeDevice"];

/**
 * A named volume of a pod; exactly one source is set.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Volume = Schemas["io.example.api.core.v1.Volume"];

/**
 * An empty directory living as long as the pod.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EmptyDirVolumeSource = Schemas["io.example.api.core.v1.EmptyDirVolumeSource"];

/**
 * A path on the node.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type HostPathVolumeSource = Schemas["io.example.api.core.v1.HostPathVolumeSource"];

/**
 * The keys of a ConfigMap as files.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ConfigMapVolumeSource = Schemas["io.example.api.core.v1.ConfigMapVolumeSource"];

/**
 * The keys of a Secret as files.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SecretVolumeSource = Schemas["io.example.api.core.v1.SecretVolumeSource"];

/**
 * Maps a key to a relative file path.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type KeyToPath = Schemas["io.example.api.core.v1.KeyToPath"];

/**
 * An inline ephemeral volume from a CSI driver; `driver` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type CSIVolumeSource = Schemas["io.example.api.core.v1.CSIVolumeSource"];

/**
 * A volume from a PersistentVolumeClaim created for the pod.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EphemeralVolumeSource = Schemas["io.example.api.core.v1.EphemeralVolumeSource"];

/**
 * Template of the claim of an {@link EphemeralVolumeSource}.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PersistentVolumeClaimTemplate = Schemas["io.example.api.core.v1.PersistentVolumeClaimTemplate"];

/**
 * Desired characteristics of a volume claim (a subset of Kubernetes').
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PersistentVolumeClaimSpec = Schemas["io.example.api.core.v1.PersistentVolumeClaimSpec"];

/**
 * Refers to a PersistentVolumeClaim in the pod's namespace.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PersistentVolumeClaimVolumeSource = Schemas["io.example.api.core.v1.PersistentVolumeClaimVolumeSource"];

/**
 * Several sources projected into one directory.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ProjectedVolumeSource = Schemas["io.example.api.core.v1.ProjectedVolumeSource"];

/**
 * One source of a {@link ProjectedVolumeSource}.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type VolumeProjection = Schemas["io.example.api.core.v1.VolumeProjection"];

/**
 * Keys of a Secret in a projected volume.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SecretProjection = Schemas["io.example.api.core.v1.SecretProjection"];

/**
 * Keys of a ConfigMap in a projected volume.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ConfigMapProjection = Schemas["io.example.api.core.v1.ConfigMapProjection"];

/**
 * Pod fields in a projected volume.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type DownwardAPIProjection = Schemas["io.example.api.core.v1.DownwardAPIProjection"];

/**
 * A service-account token written to a file of a projected volume.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ServiceAccountTokenProjection = Schemas["io.example.api.core.v1.ServiceAccountTokenProjection"];

/**
 * Pod fields as files.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type DownwardAPIVolumeSource = Schemas["io.example.api.core.v1.DownwardAPIVolumeSource"];

/**
 * One file of a downward-API volume.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type DownwardAPIVolumeFile = Schemas["io.example.api.core.v1.DownwardAPIVolumeFile"];

/**
 * Refers to an object by name in the same namespace.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type LocalObjectReference = Schemas["io.example.api.core.v1.LocalObjectReference"];

/**
 * A health check of a container: one action (exec, httpGet, tcpSocket, grpc) plus timing.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Probe = Schemas["io.example.api.core.v1.Probe"];

/**
 * A container's lifecycle hooks: `postStart` runs right after the container starts, `preStop`
 * right before it is stopped (within the pod's termination grace period).
 * @see staging/src/k8s.io/api/core/v1/types.go (Lifecycle) in kubernetes/kubernetes v1.23
 */
export type Lifecycle = Schemas["io.example.api.core.v1.Lifecycle"];

/**
 * The action of one lifecycle hook: exactly one of `exec` and `httpGet` (`tcpSocket` is accepted
 * for compatibility and fails when run, as 1.23).
 * @see staging/src/k8s.io/api/core/v1/types.go (LifecycleHandler) in kubernetes/kubernetes v1.23
 */
export type LifecycleHandler = Schemas["io.example.api.core.v1.LifecycleHandler"];

/**
 * Runs a command in the container.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ExecAction = Schemas["io.example.api.core.v1.ExecAction"];

/**
 * Sends an HTTP GET request; `port` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type HTTPGetAction = Schemas["io.example.api.core.v1.HTTPGetAction"];

/**
 * An HTTP header of an {@link HTTPGetAction}.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type HTTPHeader = Schemas["io.example.api.core.v1.HTTPHeader"];

/**
 * Opens a TCP connection; `port` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type TCPSocketAction = Schemas["io.example.api.core.v1.TCPSocketAction"];

/**
 * Calls the gRPC health-checking service; `port` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type GRPCAction = Schemas["io.example.api.core.v1.GRPCAction"];

/**
 * Security options of a container (a subset of Kubernetes').
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SecurityContext = Schemas["io.example.api.core.v1.SecurityContext"];

/**
 * Linux capabilities to add and drop.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Capabilities = Schemas["io.example.api.core.v1.Capabilities"];

/**
 * Pod-level security attributes (a subset of Kubernetes').
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodSecurityContext = Schemas["io.example.api.core.v1.PodSecurityContext"];

/**
 * A seccomp profile: `RuntimeDefault`, `Unconfined`, or `Localhost` with a file under the node
 * agent's `<root-dir>/seccomp`.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SeccompProfile = Schemas["io.example.api.core.v1.SeccompProfile"];

/**
 * A namespaced kernel parameter of a pod (`name`, `value`).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Sysctl = Schemas["io.example.api.core.v1.Sysctl"];

/**
 * Windows-specific security options of a pod or container (GMSA credential spec, user name,
 * HostProcess). Validated as 1.23 does; Skiff's Linux node agents ignore them.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type WindowsSecurityContextOptions = Schemas["io.example.api.core.v1.WindowsSecurityContextOptions"];

/**
 * The operating system of a pod (`spec.os`): `name` is `linux` or `windows` (gate IdentifyPodOS).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodOS = Schemas["io.example.api.core.v1.PodOS"];

/**
 * SELinux labels of a container (user, role, type, level).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type SELinuxOptions = Schemas["io.example.api.core.v1.SELinuxOptions"];

/**
 * Scheduling constraints of a pod: node affinity and inter-pod (anti-)affinity.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Affinity = Schemas["io.example.api.core.v1.Affinity"];

/**
 * Inter-pod affinity rules: required terms (ANDed) and weighted preferences.
 * @see staging/src/k8s.io/api/core/v1/types.go (PodAffinity) in kubernetes/kubernetes v1.23
 */
export type PodAffinity = Schemas["io.example.api.core.v1.PodAffinity"];

/**
 * Inter-pod anti-affinity rules: required terms and weighted preferences.
 * @see staging/src/k8s.io/api/core/v1/types.go (PodAntiAffinity) in kubernetes/kubernetes v1.23
 */
export type PodAntiAffinity = Schemas["io.example.api.core.v1.PodAntiAffinity"];

/**
 * A set of pods (label selector over some namespaces) and the node label whose values are the
 * topology domains a pod (anti-)affinity rule is about; `topologyKey` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go (PodAffinityTerm) in kubernetes/kubernetes v1.23
 */
export type PodAffinityTerm = Schemas["io.example.api.core.v1.PodAffinityTerm"];

/**
 * A {@link PodAffinityTerm} with a weight (1-100) for preferred rules.
 * @see staging/src/k8s.io/api/core/v1/types.go (WeightedPodAffinityTerm) in kubernetes/kubernetes v1.23
 */
export type WeightedPodAffinityTerm = Schemas["io.example.api.core.v1.WeightedPodAffinityTerm"];

/**
 * How the pods a label selector matches are spread across the domains of a topology key
 * (`maxSkew`, `topologyKey`, `whenUnsatisfiable` required).
 * @see staging/src/k8s.io/api/core/v1/types.go (TopologySpreadConstraint) in kubernetes/kubernetes v1.23
 */
export type TopologySpreadConstraint = Schemas["io.example.api.core.v1.TopologySpreadConstraint"];

/**
 * Node affinity rules: required (a {@link NodeSelector}) and preferred (weighted terms).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeAffinity = Schemas["io.example.api.core.v1.NodeAffinity"];

/**
 * A node query: the terms are ORed.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeSelector = Schemas["io.example.api.core.v1.NodeSelector"];

/**
 * A node query term: its requirements are ANDed.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeSelectorTerm = Schemas["io.example.api.core.v1.NodeSelectorTerm"];

/**
 * One requirement of a node selector term: `key` and `operator` are required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeSelectorRequirement = Schemas["io.example.api.core.v1.NodeSelectorRequirement"];

/**
 * A node selector term with a weight (1-100).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PreferredSchedulingTerm = Schemas["io.example.api.core.v1.PreferredSchedulingTerm"];

/**
 * Lets a pod tolerate taints that match it.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Toleration = Schemas["io.example.api.core.v1.Toleration"];

/**
 * DNS parameters of a pod merged into those its dnsPolicy gives.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodDNSConfig = Schemas["io.example.api.core.v1.PodDNSConfig"];

/**
 * One resolver option of a pod (`name`, optional `value`).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type PodDNSConfigOption = Schemas["io.example.api.core.v1.PodDNSConfigOption"];

/**
 * An IP address and host names written to a pod's /etc/hosts.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type HostAlias = Schemas["io.example.api.core.v1.HostAlias"];

/**
 * Observed state of one container.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ContainerStatus = Schemas["io.example.api.core.v1.ContainerStatus"];

/**
 * State of a container: waiting, running or terminated.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ContainerState = Schemas["io.example.api.core.v1.ContainerState"];

/**
 * A container that is not running yet.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ContainerStateWaiting = Schemas["io.example.api.core.v1.ContainerStateWaiting"];

/**
 * A running container.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ContainerStateRunning = Schemas["io.example.api.core.v1.ContainerStateRunning"];

/**
 * A container that has exited; `exitCode` is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ContainerStateTerminated = Schemas["io.example.api.core.v1.ContainerStateTerminated"];

/**
 * `v1` Node: a machine that runs pods. Cluster-scoped.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Node = Schemas["io.example.api.core.v1.Node"];

/**
 * `v1` NodeList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeList = Schemas["io.example.api.core.v1.NodeList"];

/**
 * Attributes of a {@link Node}: pod CIDRs, provider ID, unschedulable, taints.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeSpec = Schemas["io.example.api.core.v1.NodeSpec"];

/**
 * A mark on a node that repels pods not tolerating it; `key` and `effect` are required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Taint = Schemas["io.example.api.core.v1.Taint"];

/**
 * Observed state of a {@link Node}: capacity, allocatable, conditions, addresses, endpoints, system info, images.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeStatus = Schemas["io.example.api.core.v1.NodeStatus"];

/**
 * One condition of a {@link Node}, with `lastHeartbeatTime`.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeCondition = Schemas["io.example.api.core.v1.NodeCondition"];

/**
 * An address of a node: `type` and `address`.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeAddress = Schemas["io.example.api.core.v1.NodeAddress"];

/**
 * Ports of the daemons on a node.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeDaemonEndpoints = Schemas["io.example.api.core.v1.NodeDaemonEndpoints"];

/**
 * A daemon's port (`Port`, capitalized on the wire).
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type DaemonEndpoint = Schemas["io.example.api.core.v1.DaemonEndpoint"];

/**
 * Identifiers and versions of a node; every field is required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NodeSystemInfo = Schemas["io.example.api.core.v1.NodeSystemInfo"];

/**
 * A container image present on a node.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ContainerImage = Schemas["io.example.api.core.v1.ContainerImage"];

/**
 * `v1` Event: a report of something that happened to an object. Namespaced; `metadata` and `involvedObject` are required.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Event = Schemas["io.example.api.core.v1.Event"];

/**
 * `v1` EventList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EventList = Schemas["io.example.api.core.v1.EventList"];

/**
 * The component (and host) that reported an event.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EventSource = Schemas["io.example.api.core.v1.EventSource"];

/**
 * Data about a series of repeated events.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type EventSeries = Schemas["io.example.api.core.v1.EventSeries"];

/**
 * A reference to an object: kind, namespace, name, uid, apiVersion, resourceVersion, fieldPath. Atomic on merge.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type ObjectReference = Schemas["io.example.api.core.v1.ObjectReference"];

/**
 * `v1` Namespace: a scope for names. Cluster-scoped.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Namespace = Schemas["io.example.api.core.v1.Namespace"];

/**
 * `v1` NamespaceList.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NamespaceList = Schemas["io.example.api.core.v1.NamespaceList"];

/**
 * Attributes of a {@link Namespace}: its finalizers.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NamespaceSpec = Schemas["io.example.api.core.v1.NamespaceSpec"];

/**
 * Observed state of a {@link Namespace}: phase Active or Terminating.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NamespaceStatus = Schemas["io.example.api.core.v1.NamespaceStatus"];

/**
 * One condition of a {@link Namespace}.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type NamespaceCondition = Schemas["io.example.api.core.v1.NamespaceCondition"];

/**
 * `v1` Binding: binds a pod to a node (`target`, required), posted to `pods/<name>/binding`.
 * @see staging/src/k8s.io/api/core/v1/types.go
 */
export type Binding = Schemas["io.example.api.core.v1.Binding"];

// ── policy/v1 ───────────────────────────────────────────────────────────────────────────────────

/**
 * `policy/v1` Eviction: deletes a pod with `deleteOptions`, posted to `pods/<name>/eviction`
 * (`kubectl drain`). PodDisruptionBudgets are not served, so an eviction is never refused by one.
 * @see staging/src/k8s.io/api/policy/v1/types.go
 */
export type Eviction = Schemas["io.example.api.policy.v1.Eviction"];

// ── authentication.k8s.io/v1 ────────────────────────────────────────────────────────────────────────

/**
 * `authentication.k8s.io/v1` TokenReview: asks the server to authenticate a token. Not stored.
 * @see staging/src/k8s.io/api/authentication/v1/types.go
 */
export type TokenReview = Schemas["io.example.api.authentication.v1.TokenReview"];

/**
 * The token of a {@link TokenReview}.
 * @see staging/src/k8s.io/api/authentication/v1/types.go
 */
export type TokenReviewSpec = Schemas["io.example.api.authentication.v1.TokenReviewSpec"];

/**
 * The result of a {@link TokenReview}.
 * @see staging/src/k8s.io/api/authentication/v1/types.go
 */
export type TokenReviewStatus = Schemas["io.example.api.authentication.v1.TokenReviewStatus"];

/**
 * An authenticated user: username, uid, groups, extra.
 * @see staging/src/k8s.io/api/authentication/v1/types.go
 */
export type UserInfo = Schemas["io.example.api.authentication.v1.UserInfo"];

/**
 * `authentication.k8s.io/v1` SelfSubjectReview: who the caller is (`kubectl auth whoami`). Not stored.
 * @see staging/src/k8s.io/api/authentication/v1/types.go
 */
export type SelfSubjectReview = Schemas["io.example.api.authentication.v1.SelfSubjectReview"];

/**
 * The result of a {@link SelfSubjectReview}.
 * @see staging/src/k8s.io/api/authentication/v1/types.go
 */
export type SelfSubjectReviewStatus = Schemas["io.example.api.authentication.v1.SelfSubjectReviewStatus"];

// ── authorization.k8s.io/v1 ─────────────────────────────────────────────────────────────────────────

/**
 * `authorization.k8s.io/v1` SubjectAccessReview: may this user perform this action? Not stored.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SubjectAccessReview = Schemas["io.example.api.authorization.v1.SubjectAccessReview"];

/**
 * The request of a {@link SubjectAccessReview}: resource or non-resource attributes and the user.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SubjectAccessReviewSpec = Schemas["io.example.api.authorization.v1.SubjectAccessReviewSpec"];

/**
 * The decision of a {@link SubjectAccessReview}; `allowed` is required.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SubjectAccessReviewStatus = Schemas["io.example.api.authorization.v1.SubjectAccessReviewStatus"];

/**
 * `authorization.k8s.io/v1` SelfSubjectAccessReview: may the caller perform this action (`kubectl auth can-i`)? Not stored.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SelfSubjectAccessReview = Schemas["io.example.api.authorization.v1.SelfSubjectAccessReview"];

/**
 * The request of a {@link SelfSubjectAccessReview}: resource or non-resource attributes (the user is the caller).
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SelfSubjectAccessReviewSpec = Schemas["io.example.api.authorization.v1.SelfSubjectAccessReviewSpec"];

/**
 * `authorization.k8s.io/v1` LocalSubjectAccessReview: a {@link SubjectAccessReview} posted in a namespace (its resource attributes must name it). Not stored.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type LocalSubjectAccessReview = Schemas["io.example.api.authorization.v1.LocalSubjectAccessReview"];

/**
 * `authorization.k8s.io/v1` SelfSubjectRulesReview: what the caller may do in a namespace (`kubectl auth can-i --list`). Not stored.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SelfSubjectRulesReview = Schemas["io.example.api.authorization.v1.SelfSubjectRulesReview"];

/**
 * The request of a {@link SelfSubjectRulesReview}: the namespace.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SelfSubjectRulesReviewSpec = Schemas["io.example.api.authorization.v1.SelfSubjectRulesReviewSpec"];

/**
 * The answer of a {@link SelfSubjectRulesReview}: resource and non-resource rules, `incomplete` when an authorizer cannot list its rules.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type SubjectRulesReviewStatus = Schemas["io.example.api.authorization.v1.SubjectRulesReviewStatus"];

/**
 * One rule on resources of a {@link SubjectRulesReviewStatus}.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type ResourceRule = Schemas["io.example.api.authorization.v1.ResourceRule"];

/**
 * One rule on non-resource URLs of a {@link SubjectRulesReviewStatus}.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type NonResourceRule = Schemas["io.example.api.authorization.v1.NonResourceRule"];

/**
 * Attributes of a resource request: namespace, verb, group, version, resource, subresource, name.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type ResourceAttributes = Schemas["io.example.api.authorization.v1.ResourceAttributes"];

/**
 * Attributes of a non-resource request: path and verb.
 * @see staging/src/k8s.io/api/authorization/v1/types.go
 */
export type NonResourceAttributes = Schemas["io.example.api.authorization.v1.NonResourceAttributes"];

// ── rbac.authorization.k8s.io/v1 ─────────────────────────────────────────────────────────────

/**
 * One rule of a role: `verbs` on `resources` of `apiGroups` (optionally only `resourceNames`), or
 * `verbs` on `nonResourceURLs`. `*` matches everything in each list.
 * @see staging/src/k8s.io/api/rbac/v1/types.go
 */
export type PolicyRule = Schemas["io.example.api.rbac.v1.PolicyRule"];

/** The label selectors of an aggregated ClusterRole. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type AggregationRule = Schemas["io.example.api.rbac.v1.AggregationRule"];

/** `rbac.authorization.k8s.io/v1` Role: namespaced rules. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type Role = Schemas["io.example.api.rbac.v1.Role"];

/** `rbac.authorization.k8s.io/v1` RoleList. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type RoleList = Schemas["io.example.api.rbac.v1.RoleList"];

/** `rbac.authorization.k8s.io/v1` ClusterRole: cluster-wide rules, optionally aggregated. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type ClusterRole = Schemas["io.example.api.rbac.v1.ClusterRole"];

/** `rbac.authorization.k8s.io/v1` ClusterRoleList. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type ClusterRoleList = Schemas["io.example.api.rbac.v1.ClusterRoleList"];

/** A User, Group or ServiceAccount a binding grants to. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type Subject = Schemas["io.example.api.rbac.v1.Subject"];

/** The role a binding grants (immutable). @see staging/src/k8s.io/api/rbac/v1/types.go */
export type RoleRef = Schemas["io.example.api.rbac.v1.RoleRef"];

/** `rbac.authorization.k8s.io/v1` RoleBinding: grants a role in its namespace. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type RoleBinding = Schemas["io.example.api.rbac.v1.RoleBinding"];

/** `rbac.authorization.k8s.io/v1` RoleBindingList. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type RoleBindingList = Schemas["io.example.api.rbac.v1.RoleBindingList"];

/** `rbac.authorization.k8s.io/v1` ClusterRoleBinding: grants a ClusterRole everywhere. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type ClusterRoleBinding = Schemas["io.example.api.rbac.v1.ClusterRoleBinding"];

/** `rbac.authorization.k8s.io/v1` ClusterRoleBindingList. @see staging/src/k8s.io/api/rbac/v1/types.go */
export type ClusterRoleBindingList = Schemas["io.example.api.rbac.v1.ClusterRoleBindingList"];
