/**
 * GroupVersionKinds of every kind in the OpenAPI document, and the well-known label, annotation,
 * finalizer and CSI volume-context keys Skiff's components share. Kubernetes 1.23 names, with
 * `example` in place of `k8s`/`kubernetes` in domains, except where real clients need the original
 * (`kubectl.kubernetes.io/last-applied-configuration`).
 */

/**
 * The identity of a kind: API group (`""` for the core group), version and kind.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/runtime/schema/group_version.go (GroupVersionKind)
 */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

function gvk<const G extends string, const V extends string, const K extends string>(group: G, version: V, kind: K) {
  return Object.freeze({ group, version, kind }) satisfies GroupVersionKind;
}

// ── batch/v1 ───────────────────────────────────────────────────────────────────────────────────

/** `batch/v1` Job. */
export const JobGVK = gvk("batch", "v1", "Job");
/** `batch/v1` JobList. */
export const JobListGVK = gvk("batch", "v1", "JobList");

// ── storage.example.io/v1 ──────────────────────────────────────────────────────────────────────

/** `storage.example.io/v1` CSIDriver. */
export const CSIDriverGVK = gvk("storage.example.io", "v1", "CSIDriver");
/** `storage.example.io/v1` CSIDriverList. */
export const CSIDriverListGVK = gvk("storage.example.io", "v1", "CSIDriverList");
/** `storage.example.io/v1` CSINode. */
export const CSINodeGVK = gvk("storage.example.io", "v1", "CSINode");
/** `storage.example.io/v1` CSINodeList. */
export const CSINodeListGVK = gvk("storage.example.io", "v1", "CSINodeList");

// ── coordination.k8s.io/v1 (verbatim group) ──────────────────────────────────────────────────

/** `coordination.k8s.io/v1` Lease. */
export const LeaseGVK = gvk("coordination.k8s.io", "v1", "Lease");
/** `coordination.k8s.io/v1` LeaseList. */
export const LeaseListGVK = gvk("coordination.k8s.io", "v1", "LeaseList");
/**
 * The namespace of node leases (`kube-node-lease`, verbatim: kubectl describe node reads it).
 * @see pkg/kubelet/nodelease (k8s.io/api/core/v1 NamespaceNodeLease)
 */
export const NamespaceNodeLease = "kube-node-lease";

// ── scheduling.k8s.io/v1 (verbatim group) ────────────────────────────────────────────────────────

/** `scheduling.k8s.io/v1` PriorityClass. */
export const PriorityClassGVK = gvk("scheduling.k8s.io", "v1", "PriorityClass");
/** `scheduling.k8s.io/v1` PriorityClassList. */
export const PriorityClassListGVK = gvk("scheduling.k8s.io", "v1", "PriorityClassList");
/**
 * The highest `value` a user-defined PriorityClass may have (1.23's `HighestUserDefinablePriority`).
 * @see pkg/apis/scheduling/types.go
 */
export const HighestUserDefinablePriority = 1_000_000_000;
/**
 * The built-in PriorityClasses (1.23's `SystemPriorityClasses`): names starting `system-` are
 * reserved for them; the apiserver creates them at start and refuses their deletion.
 * @see pkg/apis/scheduling/types.go, pkg/apis/scheduling/v1/defaults.go (SystemPriorityClasses)
 */
export const SystemPriorityClasses: ReadonlyArray<{ readonly name: string; readonly value: number; readonly description: string }> = Object.freeze([
  Object.freeze({ name: "system-node-critical", value: 2_000_001_000, description: "Used for system critical pods that must not be moved from their current node." }),
  Object.freeze({ name: "system-cluster-critical", value: 2_000_000_000, description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary." }),
]);

// ── rbac.authorization.k8s.io/v1 (verbatim group) ──────────────────────────────────────────────

/** The RBAC API group. @see pkg/apis/rbac/register.go (GroupName) */
export const RBACGroupName = "rbac.authorization.k8s.io";
/** `rbac.authorization.k8s.io/v1` Role. */
export const RoleGVK = gvk("rbac.authorization.k8s.io", "v1", "Role");
/** `rbac.authorization.k8s.io/v1` RoleList. */
export const RoleListGVK = gvk("rbac.authorization.k8s.io", "v1", "RoleList");
/** `rbac.authorization.k8s.io/v1` ClusterRole. */
export const ClusterRoleGVK = gvk("rbac.authorization.k8s.io", "v1", "ClusterRole");
/** `rbac.authorization.k8s.io/v1` ClusterRoleList. */
export const ClusterRoleListGVK = gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleList");
/** `rbac.authorization.k8s.io/v1` RoleBinding. */
export const RoleBindingGVK = gvk("rbac.authorization.k8s.io", "v1", "RoleBinding");
/** `rbac.authorization.k8s.io/v1` RoleBindingList. */
export const RoleBindingListGVK = gvk("rbac.authorization.k8s.io", "v1", "RoleBindingList");
/** `rbac.authorization.k8s.io/v1` ClusterRoleBinding. */
export const ClusterRoleBindingGVK = gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding");
/** `rbac.authorization.k8s.io/v1` ClusterRoleBindingList. */
export const ClusterRoleBindingListGVK = gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleBindingList");
/**
 * Annotation of bootstrap roles and bindings: `"true"` lets the apiserver reconcile them at start;
 * `"false"` leaves them as the user changed them.
 * @see pkg/registry/rbac/reconciliation/clusterrole_interfaces.go (rbacv1.AutoUpdateAnnotationKey)
 */
export const RBACAutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate";

// ── v1 (core) ──────────────────────────────────────────────────────────────────────────────────

/** `v1` ConfigMap. */
export const ConfigMapGVK = gvk("", "v1", "ConfigMap");
/** `v1` ConfigMapList. */
export const ConfigMapListGVK = gvk("", "v1", "ConfigMapList");
/** `v1` Secret. */
export const SecretGVK = gvk("", "v1", "Secret");
/** `v1` SecretList. */
export const SecretListGVK = gvk("", "v1", "SecretList");
/** `v1` ServiceAccount. */
export const ServiceAccountGVK = gvk("", "v1", "ServiceAccount");
/** `v1` ServiceAccountList. */
export const ServiceAccountListGVK = gvk("", "v1", "ServiceAccountList");
/** `v1` PodTemplate. */
export const PodTemplateGVK = gvk("", "v1", "PodTemplate");
/** `v1` PodTemplateList. */
export const PodTemplateListGVK = gvk("", "v1", "PodTemplateList");
/** `v1` Pod. */
export const PodGVK = gvk("", "v1", "Pod");
/** `v1` PodList. */
export const PodListGVK = gvk("", "v1", "PodList");
/** `v1` Node. */
export const NodeGVK = gvk("", "v1", "Node");
/** `v1` NodeList. */
export const NodeListGVK = gvk("", "v1", "NodeList");
/** `v1` Event. */
export const EventGVK = gvk("", "v1", "Event");
/** `v1` EventList. */
export const EventListGVK = gvk("", "v1", "EventList");
/** `v1` Namespace. */
export const NamespaceGVK = gvk("", "v1", "Namespace");
/** `v1` NamespaceList. */
export const NamespaceListGVK = gvk("", "v1", "NamespaceList");
/** `v1` Binding (the body of a pod's `binding` subresource). */
export const BindingGVK = gvk("", "v1", "Binding");
/** `policy/v1` Eviction (the body of a pod's `eviction` subresource; policy/v1beta1 is accepted too). */
export const EvictionGVK = gvk("policy", "v1", "Eviction");

// ── authentication.k8s.io/v1, authorization.k8s.io/v1 (kept verbatim for real clients) ─────────

/** `authentication.k8s.io/v1` TokenReview. */
export const TokenReviewGVK = gvk("authentication.k8s.io", "v1", "TokenReview");
/** `authentication.k8s.io/v1` SelfSubjectReview. */
export const SelfSubjectReviewGVK = gvk("authentication.k8s.io", "v1", "SelfSubjectReview");
/** `authorization.k8s.io/v1` SubjectAccessReview. */
export const SubjectAccessReviewGVK = gvk("authorization.k8s.io", "v1", "SubjectAccessReview");
/** `authorization.k8s.io/v1` SelfSubjectAccessReview. */
export const SelfSubjectAccessReviewGVK = gvk("authorization.k8s.io", "v1", "SelfSubjectAccessReview");
/** `authorization.k8s.io/v1` LocalSubjectAccessReview. */
export const LocalSubjectAccessReviewGVK = gvk("authorization.k8s.io", "v1", "LocalSubjectAccessReview");
/** `authorization.k8s.io/v1` SelfSubjectRulesReview. */
export const SelfSubjectRulesReviewGVK = gvk("authorization.k8s.io", "v1", "SelfSubjectRulesReview");

// ── meta ───────────────────────────────────────────────────────────────────────────────────────

/** `v1` Status: error bodies and results without an object. */
export const StatusGVK = gvk("", "v1", "Status");
/** `v1` DeleteOptions (also accepted under every other served group/version). */
export const DeleteOptionsGVK = gvk("", "v1", "DeleteOptions");
/** `v1` WatchEvent (also listed under every other served group/version). */
export const WatchEventGVK = gvk("", "v1", "WatchEvent");
/** `meta.k8s.io/v1` Table, the group kubectl asks for verbatim. */
export const TableGVK = gvk("meta.k8s.io", "v1", "Table");
/** `meta.k8s.io/v1` PartialObjectMetadata. */
export const PartialObjectMetadataGVK = gvk("meta.k8s.io", "v1", "PartialObjectMetadata");
/** `meta.k8s.io/v1` PartialObjectMetadataList. */
export const PartialObjectMetadataListGVK = gvk("meta.k8s.io", "v1", "PartialObjectMetadataList");
/** `v1` APIResourceList (legacy discovery of one group/version). */
export const APIResourceListGVK = gvk("", "v1", "APIResourceList");
/** `v1` APIGroup (legacy discovery of one group). */
export const APIGroupGVK = gvk("", "v1", "APIGroup");
/** `v1` APIGroupList (legacy discovery at /apis). */
export const APIGroupListGVK = gvk("", "v1", "APIGroupList");
/** `v1` APIVersions (legacy discovery at /api). */
export const APIVersionsGVK = gvk("", "v1", "APIVersions");

// ── Job controller ─────────────────────────────────────────────────────────────────────────────

/**
 * Pod annotation carrying the completion index (decimal) of a pod of an Indexed job.
 * @see staging/src/k8s.io/api/batch/v1/types.go (JobCompletionIndexAnnotation)
 */
export const JobCompletionIndexAnnotation = "batch.example.io/job-completion-index";

/**
 * Finalizer the job controller puts on the pods it creates, removed once the pod is counted in
 * the job's status. The same key, as an annotation on a Job, marks a job tracked with finalizers.
 * @see staging/src/k8s.io/api/batch/v1/types.go (JobTrackingFinalizer)
 */
export const JobTrackingFinalizer = "batch.example.io/job-tracking";

/**
 * Job annotation marking a job whose pods are tracked with {@link JobTrackingFinalizer}; the
 * same string as that finalizer.
 * @see pkg/controller/job/job_controller.go (trackingUncountedPods)
 */
export const JobTrackingAnnotation = "batch.example.io/job-tracking";

/**
 * Label the job controller puts on a job's selector and pod template: the job's UID.
 * @see pkg/apis/batch/types.go and pkg/registry/batch/job/strategy.go (generateSelector)
 */
export const ControllerUidLabel = "controller-uid";

/**
 * Label the job controller puts on a job's pod template: the job's name.
 * @see pkg/registry/batch/job/strategy.go (generateSelector)
 */
export const JobNameLabel = "job-name";

/**
 * Environment variable set in every container of an Indexed job's pods: the completion index.
 * @see pkg/controller/job/indexed_job_utils.go (addCompletionIndexEnvVariable)
 */
export const JobCompletionIndexEnvName = "JOB_COMPLETION_INDEX";

// ── CSI volume context (passed by the node agent to NodePublishVolume) ─────────────────────────

/**
 * Volume-context key: the pod's name (sent when the driver's `podInfoOnMount` is true).
 * @see pkg/volume/csi/csi_mounter.go
 */
export const CSIPodNameKey = "csi.storage.example.io/pod.name";
/** Volume-context key: the pod's namespace (with `podInfoOnMount`). @see pkg/volume/csi/csi_mounter.go */
export const CSIPodNamespaceKey = "csi.storage.example.io/pod.namespace";
/** Volume-context key: the pod's UID as a string (with `podInfoOnMount`). @see pkg/volume/csi/csi_mounter.go */
export const CSIPodUIDKey = "csi.storage.example.io/pod.uid";
/**
 * Volume-context key: `"true"` for an inline ephemeral volume, `"false"` otherwise (with
 * `podInfoOnMount`).
 * @see pkg/volume/csi/csi_mounter.go
 */
export const CSIEphemeralKey = "csi.storage.example.io/ephemeral";
/**
 * Volume-context key of the service-account tokens a driver asked for with `tokenRequests`: a JSON
 * map of audience to `{token, expirationTimestamp}` (RFC 3339).
 * @see pkg/volume/csi/csi_mounter.go (podServiceAccountTokenAttrs)
 */
export const CSIServiceAccountTokensKey = "csi.storage.example.io/serviceAccount.tokens";

/**
 * Node annotation: a JSON map of CSI driver name to the node's ID in that driver.
 * @see pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (annotationKeyNodeID)
 */
export const NodeIDAnnotation = "csi.volume.example.io/nodeid";

/**
 * CSINode annotation: comma-separated in-tree volume plugins served by CSI on the node.
 * @see staging/src/k8s.io/api/core/v1/annotation_key_constants.go (MigratedPluginsAnnotationKey)
 */
export const MigratedPluginsAnnotation = "storage.alpha.example.io/migrated-plugins";

// ── Node labels and taints ─────────────────────────────────────────────────────────────────────

/** Node label: the node's hostname. @see staging/src/k8s.io/api/core/v1/well_known_labels.go (LabelHostname) */
export const NodeHostnameLabel = "example.io/hostname";

/**
 * The label every Namespace carries with its own name (1.23: `kubernetes.io/metadata.name`), so
 * namespace selectors can pick one namespace by name.
 */
export const LabelMetadataName = "example.io/metadata.name";
/** Node label: the operating system, as GOOS spells it. @see staging/src/k8s.io/api/core/v1/well_known_labels.go (LabelOSStable) */
export const NodeOSLabel = "example.io/os";
/** Node label: the architecture, as GOARCH spells it. @see staging/src/k8s.io/api/core/v1/well_known_labels.go (LabelArchStable) */
export const NodeArchLabel = "example.io/arch";
/** Deprecated beta node label, still set: the operating system. @see pkg/kubelet/apis/well_known_labels.go (LabelOS) */
export const NodeOSBetaLabel = "beta.example.io/os";
/** Deprecated beta node label, still set: the architecture. @see pkg/kubelet/apis/well_known_labels.go (LabelArch) */
export const NodeArchBetaLabel = "beta.example.io/arch";

/** Taint key of a node whose `spec.unschedulable` is true (effect NoSchedule). @see staging/src/k8s.io/api/core/v1/well_known_taints.go */
export const NodeUnschedulableTaintKey = "node.example.io/unschedulable";
/** Taint key of a node whose Ready condition is False. @see staging/src/k8s.io/api/core/v1/well_known_taints.go */
export const NodeNotReadyTaintKey = "node.example.io/not-ready";
/** Taint key of a node whose Ready condition is Unknown (the node agent stopped reporting). @see staging/src/k8s.io/api/core/v1/well_known_taints.go */
export const NodeUnreachableTaintKey = "node.example.io/unreachable";
/** Taint key of a node whose MemoryPressure condition is True (effect NoSchedule). @see staging/src/k8s.io/api/core/v1/well_known_taints.go (TaintNodeMemoryPressure) */
export const NodeMemoryPressureTaintKey = "node.example.io/memory-pressure";
/** Taint key of a node whose DiskPressure condition is True (effect NoSchedule). @see staging/src/k8s.io/api/core/v1/well_known_taints.go (TaintNodeDiskPressure) */
export const NodeDiskPressureTaintKey = "node.example.io/disk-pressure";
/** Taint key of a node whose PIDPressure condition is True (effect NoSchedule). @see staging/src/k8s.io/api/core/v1/well_known_taints.go (TaintNodePIDPressure) */
export const NodePIDPressureTaintKey = "node.example.io/pid-pressure";
/** Taint key of a node whose NetworkUnavailable condition is True (effect NoSchedule). @see staging/src/k8s.io/api/core/v1/well_known_taints.go (TaintNodeNetworkUnavailable) */
export const NodeNetworkUnavailableTaintKey = "node.example.io/network-unavailable";

// ── Pod sources of the node agent ──────────────────────────────────────────────────────────────

/** Pod annotation: hash of a static pod's manifest, used as its UID. @see pkg/kubelet/types/pod_update.go (ConfigHashAnnotationKey) */
export const ConfigHashAnnotation = "example.io/config.hash";
/** Pod annotation: where the node agent got the pod (file, http or api). @see pkg/kubelet/types/pod_update.go (ConfigSourceAnnotationKey) */
export const ConfigSourceAnnotation = "example.io/config.source";
/** Pod annotation: when the node agent first saw the pod (RFC 3339). @see pkg/kubelet/types/pod_update.go (ConfigFirstSeenAnnotationKey) */
export const ConfigFirstSeenAnnotation = "example.io/config.seen";
/** Annotation of a mirror pod: the hash of the static pod it mirrors. @see pkg/kubelet/types/pod_update.go (ConfigMirrorAnnotationKey) */
export const ConfigMirrorAnnotation = "example.io/config.mirror";

// ── Client-side apply and garbage collection ───────────────────────────────────────────────────

/**
 * Annotation in which `kubectl apply` (client-side) keeps the last applied configuration. Kept
 * verbatim: kubectl writes and reads exactly this key.
 * @see staging/src/k8s.io/api/core/v1/annotation_key_constants.go (LastAppliedConfigAnnotation)
 */
export const LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * Finalizer set by a Foreground delete: the object stays until its blocking dependents are gone.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (FinalizerDeleteDependents)
 */
export const ForegroundDeletionFinalizer = "foregroundDeletion";

/**
 * Finalizer set by an Orphan delete: dependents lose their owner reference before the object goes.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (FinalizerOrphanDependents)
 */
export const OrphanFinalizer = "orphan";

// ── Secrets and service accounts (verbatim: kubectl and client libraries write these) ──────────

/**
 * The Secret types of Kubernetes 1.23 (`Secret.type`) and the keys each requires. A Secret without
 * a type is `Opaque`.
 * @see staging/src/k8s.io/api/core/v1/types.go (SecretType constants)
 */
export const SecretType = Object.freeze({
  /** Arbitrary user data (the default). */
  Opaque: "Opaque",
  /** A service account's token; needs the annotation {@link ServiceAccountNameAnnotation}. */
  ServiceAccountToken: "kubernetes.io/service-account-token",
  /** A `~/.dockercfg` file under key {@link DockerConfigKey}. */
  Dockercfg: "kubernetes.io/dockercfg",
  /** A `~/.docker/config.json` file under key {@link DockerConfigJsonKey}. */
  DockerConfigJson: "kubernetes.io/dockerconfigjson",
  /** Basic authentication: keys `username` and/or `password`. */
  BasicAuth: "kubernetes.io/basic-auth",
  /** SSH authentication: key `ssh-privatekey`. */
  SSHAuth: "kubernetes.io/ssh-auth",
  /** A TLS certificate and key: keys `tls.crt` and `tls.key`. */
  TLS: "kubernetes.io/tls",
  /** A bootstrap token. */
  BootstrapToken: "bootstrap.kubernetes.io/token",
});

/** Secret key of a `kubernetes.io/dockercfg` Secret. @see staging/src/k8s.io/api/core/v1/types.go (DockerConfigKey) */
export const DockerConfigKey = ".dockercfg";
/** Secret key of a `kubernetes.io/dockerconfigjson` Secret. @see staging/src/k8s.io/api/core/v1/types.go (DockerConfigJsonKey) */
export const DockerConfigJsonKey = ".dockerconfigjson";
/** Secret key of a TLS certificate (PEM). @see staging/src/k8s.io/api/core/v1/types.go (TLSCertKey) */
export const TLSCertKey = "tls.crt";
/** Secret key of a TLS private key (PEM). @see staging/src/k8s.io/api/core/v1/types.go (TLSPrivateKeyKey) */
export const TLSPrivateKeyKey = "tls.key";
/** Secret key of a basic-auth user name. @see staging/src/k8s.io/api/core/v1/types.go (BasicAuthUsernameKey) */
export const BasicAuthUsernameKey = "username";
/** Secret key of a basic-auth password. @see staging/src/k8s.io/api/core/v1/types.go (BasicAuthPasswordKey) */
export const BasicAuthPasswordKey = "password";
/** Secret key of an SSH private key. @see staging/src/k8s.io/api/core/v1/types.go (SSHAuthPrivateKey) */
export const SSHAuthPrivateKey = "ssh-privatekey";

/**
 * Annotation of a `kubernetes.io/service-account-token` Secret: the name of its service account.
 * @see staging/src/k8s.io/api/core/v1/types.go (ServiceAccountNameKey)
 */
export const ServiceAccountNameAnnotation = "kubernetes.io/service-account.name";
/** Annotation of a service-account token Secret: the UID of its service account. @see staging/src/k8s.io/api/core/v1/types.go (ServiceAccountUIDKey) */
export const ServiceAccountUIDAnnotation = "kubernetes.io/service-account.uid";

/** The service account every namespace gets and pods run as by default. @see pkg/controller/serviceaccount/serviceaccounts_controller.go */
export const DefaultServiceAccountName = "default";

/**
 * The ConfigMap every namespace gets with the apiserver's serving CA under key
 * {@link ServiceAccountRootCAKey}.
 * @see pkg/controller/certificates/rootcacertpublisher/publisher.go (RootCACertConfigMapName)
 */
export const RootCACertConfigMapName = "kube-root-ca.crt";
/** The key of the CA bundle (PEM) in {@link RootCACertConfigMapName} and in token volumes. @see staging/src/k8s.io/api/core/v1/types.go (ServiceAccountRootCAKey) */
export const ServiceAccountRootCAKey = "ca.crt";
/** Where the `kube-api-access-*` volume is mounted in every container. @see plugin/pkg/admission/serviceaccount/admission.go (DefaultAPITokenMountPath) */
export const ServiceAccountTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";
