// core/v1 (k8s.io/api/core/v1): the kinds and structures Skiff serves or embeds, in 1.23 shapes.
import {
  CORE,
  INT_OR_STRING,
  META,
  MICRO_TIME,
  QUANTITY,
  arrayOf,
  atomicStruct,
  bool,
  enumStr,
  gvk,
  int32,
  int64,
  int64List,
  kindSchema,
  link,
  listKindSchema,
  listType,
  mapOf,
  mergeBy,
  mergeScalars,
  object,
  str,
  strList,
  strMap,
  time,
} from "./dsl.mjs";

const C = (name) => CORE + name;
const conditionStatus = () => str("True, False or Unknown.");

/** The fields of a container, shared by Container and EphemeralContainer (EphemeralContainerCommon). */
const containerProperties = {
  name: str("Name of the container, a DNS label unique within the pod. Cannot be updated."),
  image: str("Container image reference. Optional here so that controllers can fill it in."),
  command: strList("Entrypoint, not run in a shell; the image's ENTRYPOINT when unset. `$(VAR)` references are expanded from the environment, `$$` escapes. Cannot be updated."),
  args: strList("Arguments to the entrypoint; the image's CMD when unset. `$(VAR)` references are expanded. Cannot be updated."),
  workingDir: str("Working directory; the runtime's default when unset. Cannot be updated."),
  ports: arrayOf(C("ContainerPort"), "Ports the container exposes (informational). Cannot be updated.", {
    ...listType("map", ["containerPort", "protocol"]),
    ...mergeBy("containerPort"),
  }),
  envFrom: arrayOf(C("EnvFromSource"), "Sources of environment variables; `env` entries take precedence over them. Cannot be updated."),
  env: arrayOf(C("EnvVar"), "Environment variables of the container. Cannot be updated.", mergeBy("name")),
  resources: link(C("ResourceRequirements"), "Compute resources the container requests and is limited to. Cannot be updated."),
  volumeMounts: arrayOf(C("VolumeMount"), "Pod volumes mounted into the container. Cannot be updated.", mergeBy("mountPath")),
  volumeDevices: arrayOf(C("VolumeDevice"), "Block devices of persistentVolumeClaim volumes the container uses (block mode). Skiff serves no PersistentVolumeClaims, so a pod with such a volume waits with FailedMount.", mergeBy("devicePath")),
  livenessProbe: link(C("Probe"), "Periodic check of liveness; the container is restarted when it fails. Cannot be updated."),
  readinessProbe: link(C("Probe"), "Periodic check of readiness; a failing container is not Ready. Cannot be updated."),
  startupProbe: link(C("Probe"), "Check that the container has started; no other probe runs until it succeeds, and failing it restarts the container. Cannot be updated."),
  lifecycle: link(C("Lifecycle"), "Actions the node agent runs right after the container starts and right before it is stopped. Cannot be updated."),
  terminationMessagePath: str("Path of the file, inside the container, whose contents become the termination message (truncated to 4096 bytes). Cannot be updated.", {
    default: "/dev/termination-log",
  }),
  terminationMessagePolicy: enumStr(
    ["FallbackToLogsOnError", "File"],
    "Where the termination message comes from: the file only, or the end of the log when the file is empty and the container failed. Cannot be updated.",
    { default: "File" },
  ),
  imagePullPolicy: enumStr(
    ["Always", "IfNotPresent", "Never"],
    "When the image is pulled. Defaults to Always for the `:latest` tag or no tag, IfNotPresent otherwise. Cannot be updated.",
  ),
  securityContext: link(C("SecurityContext"), "Security options of the container; they override the pod's."),
  stdin: bool("Whether a stdin buffer is allocated; reads see EOF when false.", { default: false }),
  stdinOnce: bool("Whether stdin is closed after the first attach session ends.", { default: false }),
  tty: bool("Whether a TTY is allocated; requires stdin.", { default: false }),
};

export const coreSchemas = {
  // ── PodTemplate ────────────────────────────────────────────────────────────────────────────
  [C("PodTemplate")]: kindSchema({
    gvks: gvk("", "v1", "PodTemplate"),
    description: "A stored template for creating copies of a predefined pod.",
    properties: { template: link(C("PodTemplateSpec"), "The pod this template describes.") },
  }),
  [C("PodTemplateList")]: listKindSchema({ group: "", version: "v1", kind: "PodTemplateList", itemSchema: C("PodTemplate"), itemKind: "PodTemplate" }),
  [C("PodTemplateSpec")]: object("The metadata and spec of the pods created from a template.", {
    metadata: link(`${META}ObjectMeta`, "Metadata given to the pods created from the template (labels, annotations, ...)."),
    spec: link(C("PodSpec"), "Desired behavior of the pods."),
  }),

  // ── Pod ────────────────────────────────────────────────────────────────────────────────────
  [C("Pod")]: kindSchema({
    gvks: gvk("", "v1", "Pod"),
    description: "A group of containers scheduled together onto one node.",
    properties: {
      spec: link(C("PodSpec"), "Desired behavior of the pod."),
      status: link(C("PodStatus"), "Most recently observed status of the pod, maintained by the system."),
    },
  }),
  [C("PodList")]: listKindSchema({ group: "", version: "v1", kind: "PodList", itemSchema: C("Pod"), itemKind: "Pod" }),
  [C("PodSpec")]: object(
    "Desired behavior of a pod.",
    {
      volumes: arrayOf(C("Volume"), "Volumes the containers of the pod may mount.", { ...mergeBy("name"), "x-kubernetes-patch-strategy": "merge,retainKeys" }),
      initContainers: arrayOf(C("Container"), "Containers run one after another, each to successful completion, before the app containers start. Cannot be updated.", mergeBy("name")),
      containers: arrayOf(C("Container"), "The app containers of the pod; at least one. Cannot be added or removed after creation.", mergeBy("name")),
      ephemeralContainers: arrayOf(
        C("EphemeralContainer"),
        "Ephemeral containers run in this pod for user-initiated activities such as debugging. They are added through the pod's `ephemeralcontainers` subresource, never on create or by a pod update, and are never restarted.",
        mergeBy("name"),
      ),
      restartPolicy: enumStr(["Always", "Never", "OnFailure"], "When the containers of the pod are restarted after they exit.", { default: "Always" }),
      terminationGracePeriodSeconds: int64(
        "Seconds between the termination signal and the kill signal when the pod is deleted; 0 kills at once. A delete request may shorten it.",
        { default: 30 },
      ),
      activeDeadlineSeconds: int64("Seconds the pod may be active on its node, counted from startTime, before the system marks it failed and kills its containers. Positive."),
      dnsPolicy: enumStr(["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"], "How DNS is configured for the pod.", { default: "ClusterFirst" }),
      nodeSelector: strMap("Labels a node must have for the pod to be scheduled onto it.", atomicStruct),
      serviceAccountName: str("Name of the service account the pod runs as."),
      serviceAccount: str("Deprecated alias of serviceAccountName."),
      automountServiceAccountToken: bool("Whether a service-account token is mounted into the pod."),
      nodeName: str("The node the pod is bound to. Set by the scheduler (or by the user to bypass it)."),
      hostNetwork: bool("Whether the pod uses the node's network namespace.", { default: false }),
      hostPID: bool("Whether the pod uses the node's process namespace.", { default: false }),
      hostIPC: bool("Whether the pod uses the node's IPC namespace.", { default: false }),
      shareProcessNamespace: bool("Whether the containers of the pod share one process namespace (they see and signal each other's processes). Not with hostPID.", { default: false }),
      securityContext: link(C("PodSecurityContext"), "Pod-level security attributes and defaults for its containers."),
      imagePullSecrets: arrayOf(C("LocalObjectReference"), "Secrets in the pod's namespace holding image registry credentials.", mergeBy("name")),
      hostname: str("Hostname of the pod; defaults to a system-chosen value."),
      subdomain: str("Subdomain of the pod: its fully qualified name becomes `<hostname>.<subdomain>.<namespace>.svc.<cluster domain>`."),
      setHostnameAsFQDN: bool("Whether the pod's kernel host name is its fully qualified name (with a subdomain) instead of the leaf name.", { default: false }),
      dnsConfig: link(C("PodDNSConfig"), "DNS parameters merged into those dnsPolicy gives (the only ones with dnsPolicy None)."),
      hostAliases: arrayOf(C("HostAlias"), "Entries added to the pod's /etc/hosts (pods that are not on the host network).", mergeBy("ip")),
      affinity: link(C("Affinity"), "Scheduling constraints of the pod."),
      schedulerName: str("The scheduler that places the pod.", { default: "default-scheduler" }),
      tolerations: arrayOf(C("Toleration"), "Taints the pod tolerates."),
      topologySpreadConstraints: arrayOf(C("TopologySpreadConstraint"), "How the pod's group (the pods its label selector matches) is spread across topology domains; all constraints are ANDed.", {
        ...listType("map", ["topologyKey", "whenUnsatisfiable"]),
        ...mergeBy("topologyKey"),
      }),
      priorityClassName: str("Name of the priority class of the pod; its value is copied into `priority`."),
      priority: int32("Priority of the pod; higher values are scheduled and kept first. Set by admission from priorityClassName."),
      preemptionPolicy: enumStr(["Never", "PreemptLowerPriority"], "Whether the pod may preempt pods of lower priority. Set by admission from priorityClassName."),
      runtimeClassName: str(
        "The RuntimeClass (node.k8s.io) the pod's containers run with. Skiff serves no RuntimeClasses: the RuntimeClass admission plugin refuses a pod that names one, as 1.23 does for a class that does not exist.",
      ),
      overhead: mapOf(
        QUANTITY,
        "Resources the pod's sandbox uses beyond its containers, added to its requests for scheduling and to its limits for the pod cgroup. Set by the RuntimeClass admission plugin from the pod's RuntimeClass; a pod that sets it without one is refused.",
      ),
      readinessGates: arrayOf(
        C("PodReadinessGate"),
        "Extra conditions the pod is only ready with: the pod is ready when all its containers are ready and each of these conditions of `status.conditions` is True.",
      ),
      enableServiceLinks: bool("Whether service information is injected into the containers' environment.", { default: true }),
      os: link(
        C("PodOS"),
        "The operating system the pod's containers need (gate IdentifyPodOS). With `linux`, Windows-only fields are refused; with `windows`, Linux-only fields are. A node agent refuses a pod whose OS is not its own (PodOSNotSupported).",
      ),
    },
    { required: ["containers"] },
  ),
  [C("PodStatus")]: object("Observed state of a pod. It may lag behind the real state.", {
    phase: enumStr(["Failed", "Pending", "Running", "Succeeded", "Unknown"], "High-level summary of where the pod is in its lifecycle."),
    conditions: arrayOf(C("PodCondition"), "Current service state of the pod (PodScheduled, Initialized, ContainersReady, Ready).", mergeBy("type")),
    message: str("Human-readable details about why the pod is in this state."),
    reason: str("Brief CamelCase reason for the pod's state, such as Evicted."),
    nominatedNodeName: str("The node a preempting pod is expected to run on, once victims are gone."),
    hostIP: str("IP address of the node the pod is assigned to; empty before scheduling."),
    podIP: str("IP address allocated to the pod; empty before allocation."),
    podIPs: arrayOf(C("PodIP"), "IP addresses allocated to the pod, at most one per family; the first equals podIP.", mergeBy("ip")),
    startTime: time("When the node agent acknowledged the pod, before pulling images."),
    initContainerStatuses: arrayOf(C("ContainerStatus"), "One entry per init container."),
    containerStatuses: arrayOf(C("ContainerStatus"), "One entry per app container."),
    ephemeralContainerStatuses: arrayOf(C("ContainerStatus"), "One entry per ephemeral container that has been started."),
    qosClass: enumStr(["BestEffort", "Burstable", "Guaranteed"], "Quality-of-service class derived from the containers' resource requests and limits."),
  }),
  [C("PodReadinessGate")]: object(
    "A condition type the pod's readiness depends on (set in `status.conditions` by a controller).",
    { conditionType: str("Condition type in the pod's condition list (a qualified name).") },
    { required: ["conditionType"] },
  ),
  [C("PodCondition")]: object(
    "One condition of a pod.",
    {
      type: str("Condition type: PodScheduled, Initialized, ContainersReady or Ready."),
      status: conditionStatus(),
      lastProbeTime: time("Last time the condition was probed."),
      lastTransitionTime: time("Last time the condition changed status."),
      reason: str("Brief CamelCase reason for the last transition."),
      message: str("Human-readable details about the last transition."),
    },
    { required: ["type", "status"] },
  ),
  [C("PodIP")]: object("One IP address of a pod.", { ip: str("The IP address.") }),

  // ── Containers ─────────────────────────────────────────────────────────────────────────────
  [C("Container")]: object("One container of a pod.", containerProperties, { required: ["name"] }),
  [C("EphemeralContainer")]: object(
    "A container added to a running pod for user-initiated activities such as debugging, through the pod's `ephemeralcontainers` subresource. It has no resource or scheduling guarantees, is never restarted, and may not be changed or removed once added; lifecycle, probes, ports and resources may not be set.",
    {
      ...containerProperties,
      name: str("Name of the ephemeral container, a DNS label unique among all containers, init containers and ephemeral containers of the pod."),
      targetContainerName: str(
        "The name of a container of the pod whose namespaces (PID, IPC) this ephemeral container joins. Unset: the namespaces shared by the pod. The container runtime must support it.",
      ),
    },
    { required: ["name"] },
  ),
  [C("ContainerPort")]: object(
    "A network port of a container.",
    {
      name: str("Name of the port (an IANA service name), unique within the pod; services may refer to it."),
      hostPort: int32("Port to expose on the node; most pods do not need it."),
      containerPort: int32("Port number on the pod's IP address, 1-65535."),
      protocol: enumStr(["SCTP", "TCP", "UDP"], "Protocol of the port.", { default: "TCP" }),
      hostIP: str("Node IP address to bind the host port to."),
    },
    { required: ["containerPort"] },
  ),
  [C("EnvVar")]: object(
    "One environment variable of a container.",
    {
      name: str("Name of the variable, a C identifier."),
      value: str("Value of the variable. `$(VAR)` references to earlier variables are expanded, `$$` escapes. Defaults to the empty string."),
      valueFrom: link(C("EnvVarSource"), "Where the value comes from; not allowed together with a non-empty value."),
    },
    { required: ["name"] },
  ),
  [C("EnvVarSource")]: object("The source of an environment variable's value; exactly one member is set.", {
    fieldRef: link(C("ObjectFieldSelector"), "A field of the pod: metadata.name, metadata.namespace, metadata.uid, `metadata.labels['<key>']`, `metadata.annotations['<key>']`, spec.nodeName, spec.serviceAccountName, status.hostIP, status.podIP or status.podIPs."),
    resourceFieldRef: link(C("ResourceFieldSelector"), "A resource limit or request of a container: limits.cpu, limits.memory, requests.cpu, requests.memory, ..."),
    configMapKeyRef: link(C("ConfigMapKeySelector"), "A key of a ConfigMap in the pod's namespace."),
    secretKeyRef: link(C("SecretKeySelector"), "A key of a Secret in the pod's namespace."),
  }),
  [C("ObjectFieldSelector")]: object(
    "Selects a field of an object by path.",
    {
      apiVersion: str("Version of the schema the path is written in.", { default: "v1" }),
      fieldPath: str("Path of the field, such as `metadata.name`."),
    },
    { required: ["fieldPath"], extensions: atomicStruct },
  ),
  [C("ResourceFieldSelector")]: object(
    "Selects a resource limit or request of a container.",
    {
      containerName: str("Container name; required for volumes, optional for environment variables (the same container)."),
      resource: str("The resource, such as `limits.cpu` or `requests.memory`."),
      divisor: link(QUANTITY, "Unit the value is expressed in.", { default: "1" }),
    },
    { required: ["resource"], extensions: atomicStruct },
  ),
  [C("ConfigMapKeySelector")]: object(
    "Selects a key of a ConfigMap.",
    {
      name: str("Name of the ConfigMap."),
      key: str("The key to select."),
      optional: bool("Whether the ConfigMap or its key may be missing."),
    },
    { required: ["key"], extensions: atomicStruct },
  ),
  [C("SecretKeySelector")]: object(
    "Selects a key of a Secret.",
    {
      name: str("Name of the Secret."),
      key: str("The key to select."),
      optional: bool("Whether the Secret or its key may be missing."),
    },
    { required: ["key"], extensions: atomicStruct },
  ),
  [C("EnvFromSource")]: object("A source of a set of environment variables.", {
    prefix: str("Prefix added to every key; must be a C identifier."),
    configMapRef: link(C("ConfigMapEnvSource"), "The ConfigMap to take the variables from."),
    secretRef: link(C("SecretEnvSource"), "The Secret to take the variables from."),
  }),
  [C("ConfigMapEnvSource")]: object("Selects a ConfigMap whose keys become environment variables.", {
    name: str("Name of the ConfigMap."),
    optional: bool("Whether the ConfigMap may be missing."),
  }),
  [C("SecretEnvSource")]: object("Selects a Secret whose keys become environment variables.", {
    name: str("Name of the Secret."),
    optional: bool("Whether the Secret may be missing."),
  }),
  [C("ResourceRequirements")]: object("Compute resources requested and limited.", {
    limits: mapOf(QUANTITY, "Maximum amount of each resource allowed, by resource name (cpu, memory, ephemeral-storage, ...)."),
    requests: mapOf(QUANTITY, "Minimum amount of each resource required, by resource name; defaults to the limits when omitted."),
  }),
  [C("VolumeMount")]: object(
    "A volume mounted into a container.",
    {
      name: str("Name of the pod volume to mount."),
      readOnly: bool("Whether the mount is read-only.", { default: false }),
      mountPath: str("Path inside the container; must not contain `:`."),
      subPath: str("Path within the volume to mount instead of its root."),
      mountPropagation: str("How mounts propagate between host and container: None, HostToContainer or Bidirectional."),
      subPathExpr: str("Like subPath, with `$(VAR)` references expanded from the container's environment; exclusive with subPath."),
    },
    { required: ["name", "mountPath"] },
  ),
  [C("VolumeDevice")]: object(
    "A raw block device of a pod volume, mapped into a container.",
    {
      name: str("Name of a persistentVolumeClaim volume of the pod."),
      devicePath: str("Path inside the container the device is mapped to."),
    },
    { required: ["name", "devicePath"] },
  ),
  [C("Probe")]: object("A health check of a container: exactly one action plus timing.", {
    exec: link(C("ExecAction"), "Run a command in the container."),
    httpGet: link(C("HTTPGetAction"), "Send an HTTP GET request."),
    tcpSocket: link(C("TCPSocketAction"), "Open a TCP connection."),
    grpc: link(C("GRPCAction"), "Call the gRPC health-checking service."),
    initialDelaySeconds: int32("Seconds after the container starts before the first probe.", { default: 0 }),
    timeoutSeconds: int32("Seconds after which a probe attempt times out; at least 1.", { default: 1 }),
    periodSeconds: int32("Seconds between probes; at least 1.", { default: 10 }),
    successThreshold: int32("Consecutive successes needed after a failure; at least 1, and 1 for liveness and startup probes.", { default: 1 }),
    failureThreshold: int32("Consecutive failures after which the probe counts as failed; at least 1.", { default: 3 }),
    terminationGracePeriodSeconds: int64("Grace period used when a probe failure kills the container; the pod's value when unset."),
  }),
  [C("Lifecycle")]: object("Actions run in response to container lifecycle events.", {
    postStart: link(
      C("LifecycleHandler"),
      "Run right after the container is started. If it fails, the container is killed and restarted according to its restart policy; the container's other management waits until it completes.",
    ),
    preStop: link(
      C("LifecycleHandler"),
      "Run right before the container is stopped by an API request or a management event (a failed liveness or startup probe, eviction, a failed postStart hook). The pod's termination grace period counts down while it runs; the container is stopped when it completes or the grace period ends, whatever its outcome.",
    ),
  }),
  [C("LifecycleHandler")]: object("An action taken in a lifecycle hook: exactly one of exec and httpGet.", {
    exec: link(C("ExecAction"), "Run a command in the container; a non-zero exit status is a failure."),
    httpGet: link(C("HTTPGetAction"), "Send an HTTP GET request; only a failure to get a response is a failure."),
    tcpSocket: link(C("TCPSocketAction"), "Deprecated: not supported as a lifecycle handler, kept for compatibility; a hook with it fails when run."),
  }),
  [C("ExecAction")]: object("Runs a command in the container.", {
    command: strList("Command line, run without a shell in the container's working directory. Exit status 0 means healthy."),
  }),
  [C("HTTPGetAction")]: object(
    "Sends an HTTP GET request; a status from 200 to 399 means healthy.",
    {
      path: str("Path of the request."),
      port: link(INT_OR_STRING, "Port number (1-65535) or port name."),
      host: str("Host to connect to; defaults to the pod IP."),
      scheme: enumStr(["HTTP", "HTTPS"], "Scheme of the request.", { default: "HTTP" }),
      httpHeaders: arrayOf(C("HTTPHeader"), "Extra request headers."),
    },
    { required: ["port"] },
  ),
  [C("HTTPHeader")]: object(
    "An HTTP header.",
    {
      name: str("Header name."),
      value: str("Header value."),
    },
    { required: ["name", "value"] },
  ),
  [C("TCPSocketAction")]: object(
    "Opens a TCP connection; success means healthy.",
    {
      port: link(INT_OR_STRING, "Port number (1-65535) or port name."),
      host: str("Host to connect to; defaults to the pod IP."),
    },
    { required: ["port"] },
  ),
  [C("GRPCAction")]: object(
    "Calls the standard gRPC health-checking service.",
    {
      port: int32("Port number of the gRPC service, 1-65535."),
      service: str("Service name placed in the HealthCheckRequest; empty means the server's default.", { default: "" }),
    },
    { required: ["port"] },
  ),
  [C("SecurityContext")]: object("Security options of one container (a subset of Kubernetes').", {
    runAsUser: int64("UID the entrypoint runs as; the image's user when unset."),
    runAsGroup: int64("GID the entrypoint runs as; the runtime's default when unset."),
    runAsNonRoot: bool("When true, the container must not run as UID 0."),
    privileged: bool("Whether the container runs privileged.", { default: false }),
    readOnlyRootFilesystem: bool("Whether the root filesystem is read-only.", { default: false }),
    allowPrivilegeEscalation: bool("Whether a process may gain more privileges than its parent (no_new_privs off)."),
    capabilities: link(C("Capabilities"), "Capabilities to add to or drop from the runtime's default set."),
    seLinuxOptions: link(C("SELinuxOptions"), "SELinux context of the container; overrides the pod's."),
    procMount: str("Proc mount type: `Default` (the runtime's masked and read-only /proc paths) or `Unmasked` (needs gate ProcMountType)."),
    seccompProfile: link(C("SeccompProfile"), "Seccomp profile of the container; overrides the pod's."),
    windowsOptions: link(C("WindowsSecurityContextOptions"), "Windows-specific options of the container; override the pod's. Ignored on Linux nodes; refused for a pod whose `os.name` is `linux`."),
  }),
  [C("WindowsSecurityContextOptions")]: object("Windows-specific security options. Skiff's node agents run Linux and ignore them.", {
    gmsaCredentialSpecName: str("Name of the GMSA credential spec to use (a DNS subdomain)."),
    gmsaCredentialSpec: str("The contents of the GMSA credential spec, inlined by an admission webhook; at most 64 KiB."),
    runAsUserName: str("Windows user (`DOMAIN\\USER` or `USER`) that runs the container's entrypoint."),
    hostProcess: bool("Whether the container runs as a Windows HostProcess container (gate WindowsHostProcessContainers); all containers of such a pod must be, with hostNetwork."),
  }),
  [C("PodOS")]: object(
    "The operating system of a pod.",
    {
      name: str("`linux` or `windows`."),
    },
    { required: ["name"] },
  ),
  [C("SELinuxOptions")]: object("SELinux labels of a container.", {
    user: str("SELinux user label."),
    role: str("SELinux role label."),
    type: str("SELinux type label."),
    level: str("SELinux level label."),
  }),
  [C("SeccompProfile")]: object(
    "A seccomp profile.",
    {
      type: enumStr(["Localhost", "RuntimeDefault", "Unconfined"], "Kind of profile: the runtime's default, none, or a file on the node."),
      localhostProfile: str("With type Localhost: the profile file, relative to `<root-dir>/seccomp` of the node agent."),
    },
    { required: ["type"] },
  ),
  [C("Sysctl")]: object(
    "A namespaced kernel parameter to set for the pod.",
    {
      name: str("Name of the parameter, such as net.ipv4.ip_local_port_range."),
      value: str("Value to set."),
    },
    { required: ["name", "value"] },
  ),
  [C("Capabilities")]: object("Linux capabilities to add and drop.", {
    add: strList("Capabilities to add, such as NET_ADMIN."),
    drop: strList("Capabilities to drop, such as ALL."),
  }),
  [C("PodSecurityContext")]: object("Pod-level security attributes (a subset of Kubernetes').", {
    runAsUser: int64("Default UID of the containers' entrypoints."),
    runAsGroup: int64("Default GID of the containers' entrypoints."),
    runAsNonRoot: bool("When true, no container may run as UID 0."),
    fsGroup: int64("Supplementary group applied to every container; volumes that support it are owned by this group."),
    supplementalGroups: int64List("Extra groups of each container's first process."),
    fsGroupChangePolicy: enumStr(["Always", "OnRootMismatch"], "When volume ownership is changed to fsGroup: always, or only when the volume's root does not match."),
    seLinuxOptions: link(C("SELinuxOptions"), "SELinux context of every container."),
    sysctls: arrayOf(C("Sysctl"), "Namespaced sysctls set for the pod; unsafe ones must be allowed by the node agent."),
    seccompProfile: link(C("SeccompProfile"), "Seccomp profile of every container that sets none."),
    windowsOptions: link(C("WindowsSecurityContextOptions"), "Windows-specific options of every container that sets none. Ignored on Linux nodes; refused for a pod whose `os.name` is `linux`."),
  }),

  // ── Volumes ────────────────────────────────────────────────────────────────────────────────
  [C("Volume")]: object(
    "A named volume of a pod; exactly one source is set.",
    {
      name: str("Name of the volume, a DNS label unique within the pod."),
      emptyDir: link(C("EmptyDirVolumeSource"), "An empty directory that lives as long as the pod."),
      hostPath: link(C("HostPathVolumeSource"), "A file or directory of the node."),
      configMap: link(C("ConfigMapVolumeSource"), "The keys of a ConfigMap as files."),
      secret: link(C("SecretVolumeSource"), "The keys of a Secret as files."),
      csi: link(C("CSIVolumeSource"), "An inline ephemeral volume provided by a CSI driver."),
      ephemeral: link(C("EphemeralVolumeSource"), "A volume from a PersistentVolumeClaim created for the pod and deleted with it."),
      persistentVolumeClaim: link(C("PersistentVolumeClaimVolumeSource"), "The volume bound to a PersistentVolumeClaim in the pod's namespace."),
      projected: link(C("ProjectedVolumeSource"), "Several sources projected into one directory."),
      downwardAPI: link(C("DownwardAPIVolumeSource"), "Fields of the pod as files."),
    },
    { required: ["name"] },
  ),
  [C("EmptyDirVolumeSource")]: object("An empty directory shared by the containers of a pod.", {
    medium: str("Storage medium: empty for the node's default, or Memory for tmpfs."),
    sizeLimit: link(QUANTITY, "Maximum size of the directory."),
  }),
  [C("HostPathVolumeSource")]: object(
    "A path on the node.",
    {
      path: str("Path on the node; a symlink is followed."),
      type: str("What must exist at the path: empty (no check), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice.", { default: "" }),
    },
    { required: ["path"] },
  ),
  [C("KeyToPath")]: object(
    "Maps a key to a relative file path.",
    {
      key: str("The key to project."),
      path: str("Relative path of the file; must not contain `..` or start with it."),
      mode: int32("File mode bits (0000-0777); the volume's defaultMode when unset."),
    },
    { required: ["key", "path"] },
  ),
  [C("ConfigMapVolumeSource")]: object("Projects the keys of a ConfigMap as files.", {
    name: str("Name of the ConfigMap."),
    items: arrayOf(C("KeyToPath"), "Keys to project and their paths; every key as a file of its name when unset."),
    defaultMode: int32("File mode bits of the files (0000-0777).", { default: 420 }),
    optional: bool("Whether the ConfigMap or its keys may be missing."),
  }),
  [C("SecretVolumeSource")]: object("Projects the keys of a Secret as files.", {
    secretName: str("Name of the Secret in the pod's namespace."),
    items: arrayOf(C("KeyToPath"), "Keys to project and their paths; every key as a file of its name when unset."),
    defaultMode: int32("File mode bits of the files (0000-0777).", { default: 420 }),
    optional: bool("Whether the Secret or its keys may be missing."),
  }),
  [C("CSIVolumeSource")]: object(
    "An inline ephemeral volume provided by a CSI driver.",
    {
      driver: str("Name of the CSI driver, as registered in the cluster."),
      readOnly: bool("Whether the volume is mounted read-only.", { default: false }),
      fsType: str("Filesystem type, such as ext4; passed to the driver, which picks one when empty."),
      volumeAttributes: strMap("Driver-specific properties passed to the driver."),
      nodePublishSecretRef: link(C("LocalObjectReference"), "A Secret with sensitive data passed to the driver's NodePublishVolume and NodeUnpublishVolume calls."),
    },
    { required: ["driver"] },
  ),
  [C("EphemeralVolumeSource")]: object("A volume backed by a PersistentVolumeClaim created for the pod and owned by it.", {
    volumeClaimTemplate: link(C("PersistentVolumeClaimTemplate"), "Template of the claim; the claim is named `<pod name>-<volume name>`. Required."),
  }),
  [C("PersistentVolumeClaimTemplate")]: object(
    "Template of a PersistentVolumeClaim.",
    {
      metadata: link(`${META}ObjectMeta`, "Labels and annotations copied to the claim; other fields are rejected."),
      spec: link(C("PersistentVolumeClaimSpec"), "Spec of the claim; copied unchanged."),
    },
    { required: ["spec"] },
  ),
  [C("PersistentVolumeClaimSpec")]: object("Desired characteristics of a volume claim (a subset of Kubernetes').", {
    accessModes: strList("Access modes wanted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod."),
    selector: link(`${META}LabelSelector`, "Label query over volumes to bind to."),
    resources: link(C("ResourceRequirements"), "Minimum resources the volume must have (requests.storage)."),
    volumeName: str("Name of the PersistentVolume to bind to."),
    storageClassName: str("Name of the StorageClass the claim asks for."),
    volumeMode: str("Filesystem (default) or Block."),
  }),
  [C("PersistentVolumeClaimVolumeSource")]: object(
    "Refers to a PersistentVolumeClaim in the pod's namespace.",
    {
      claimName: str("Name of the claim."),
      readOnly: bool("Whether the volume is mounted read-only.", { default: false }),
    },
    { required: ["claimName"] },
  ),
  [C("ProjectedVolumeSource")]: object("Several volume sources projected into one directory.", {
    sources: arrayOf(C("VolumeProjection"), "The sources."),
    defaultMode: int32("File mode bits of the files (0000-0777).", { default: 420 }),
  }),
  [C("VolumeProjection")]: object("One source of a projected volume; exactly one member is set.", {
    secret: link(C("SecretProjection"), "Keys of a Secret."),
    configMap: link(C("ConfigMapProjection"), "Keys of a ConfigMap."),
    downwardAPI: link(C("DownwardAPIProjection"), "Fields of the pod."),
    serviceAccountToken: link(C("ServiceAccountTokenProjection"), "A token of the pod's service account."),
  }),
  [C("SecretProjection")]: object("Keys of a Secret in a projected volume.", {
    name: str("Name of the Secret."),
    items: arrayOf(C("KeyToPath"), "Keys to project and their paths."),
    optional: bool("Whether the Secret or its keys may be missing."),
  }),
  [C("ConfigMapProjection")]: object("Keys of a ConfigMap in a projected volume.", {
    name: str("Name of the ConfigMap."),
    items: arrayOf(C("KeyToPath"), "Keys to project and their paths."),
    optional: bool("Whether the ConfigMap or its keys may be missing."),
  }),
  [C("DownwardAPIProjection")]: object("Pod fields in a projected volume.", {
    items: arrayOf(C("DownwardAPIVolumeFile"), "The files."),
  }),
  [C("ServiceAccountTokenProjection")]: object(
    "A service-account token written to a file and refreshed before it expires.",
    {
      audience: str("Intended audience of the token; the API server's audience when empty."),
      expirationSeconds: int64("Requested lifetime of the token, at least 600 seconds.", { default: 3600 }),
      path: str("Relative path of the file."),
    },
    { required: ["path"] },
  ),
  [C("DownwardAPIVolumeSource")]: object("Fields of the pod as files.", {
    items: arrayOf(C("DownwardAPIVolumeFile"), "The files."),
    defaultMode: int32("File mode bits of the files (0000-0777).", { default: 420 }),
  }),
  [C("DownwardAPIVolumeFile")]: object(
    "One file of a downward-API volume.",
    {
      path: str("Relative path of the file."),
      fieldRef: link(C("ObjectFieldSelector"), "A field of the pod: metadata.name, metadata.namespace, metadata.uid, metadata.labels or metadata.annotations."),
      resourceFieldRef: link(C("ResourceFieldSelector"), "A resource limit or request of a container."),
      mode: int32("File mode bits (0000-0777); the volume's defaultMode when unset."),
    },
    { required: ["path"] },
  ),
  [C("PodDNSConfig")]: object("DNS parameters of a pod beyond those its dnsPolicy gives.", {
    nameservers: strList("DNS server IPs, appended to those of dnsPolicy (duplicates removed); at most 3 in all."),
    searches: strList("DNS search domains, appended to those of dnsPolicy (duplicates removed)."),
    options: arrayOf(C("PodDNSConfigOption"), "Resolver options; one of the same name replaces the dnsPolicy's."),
  }),
  [C("PodDNSConfigOption")]: object("One resolver option of a pod.", { name: str("Name of the option (required)."), value: str("Value of the option, if any.") }),
  [C("HostAlias")]: object("An IP address and host names for it, written to the pod's /etc/hosts.", { ip: str("IP address of the entry."), hostnames: strList("Host names for the IP address.") }),
  [C("LocalObjectReference")]: object("Refers to an object by name in the same namespace.", { name: str("Name of the object.") }, { extensions: atomicStruct }),

  // ── Scheduling ─────────────────────────────────────────────────────────────────────────────
  [C("Affinity")]: object("Scheduling constraints of a pod.", {
    nodeAffinity: link(C("NodeAffinity"), "Rules about the nodes the pod may be placed on."),
    podAffinity: link(C("PodAffinity"), "Rules to place the pod in the same topology domain (node, zone, ...) as other pods."),
    podAntiAffinity: link(C("PodAntiAffinity"), "Rules to keep the pod out of the topology domains of other pods."),
  }),
  [C("PodAffinity")]: object("Inter-pod affinity rules of a pod.", {
    requiredDuringSchedulingIgnoredDuringExecution: arrayOf(
      C("PodAffinityTerm"),
      "Terms a node must satisfy for the pod to be scheduled onto it: for each, a pod it selects runs in the node's topology domain. The terms are ANDed. Not re-checked once the pod runs.",
    ),
    preferredDuringSchedulingIgnoredDuringExecution: arrayOf(C("WeightedPodAffinityTerm"), "Weighted preferences: the scheduler favors nodes whose domains hold pods the terms select."),
  }),
  [C("PodAntiAffinity")]: object("Inter-pod anti-affinity rules of a pod.", {
    requiredDuringSchedulingIgnoredDuringExecution: arrayOf(
      C("PodAffinityTerm"),
      "Terms a node must satisfy for the pod to be scheduled onto it: no pod a term selects runs in the node's topology domain. Not re-checked once the pod runs.",
    ),
    preferredDuringSchedulingIgnoredDuringExecution: arrayOf(C("WeightedPodAffinityTerm"), "Weighted preferences: the scheduler disfavors nodes whose domains hold pods the terms select."),
  }),
  [C("PodAffinityTerm")]: object(
    "A set of pods (a label query over the pods of some namespaces) and the topology key whose domains the rule is about.",
    {
      labelSelector: link(`${META}LabelSelector`, "Label query over pods; a null selector selects none."),
      namespaces: strList("Namespaces of the pods; with an empty list and a null namespaceSelector, the pod's own namespace."),
      topologyKey: str("Node label whose value is the topology domain (`example.io/hostname`: a node). Required."),
      namespaceSelector: link(`${META}LabelSelector`, "Label query over namespaces, added to `namespaces`; `{}` selects every namespace."),
    },
    { required: ["topologyKey"] },
  ),
  [C("WeightedPodAffinityTerm")]: object(
    "A pod affinity term with a weight.",
    {
      weight: int32("Weight of the term, 1-100."),
      podAffinityTerm: link(C("PodAffinityTerm"), "The term."),
    },
    { required: ["weight", "podAffinityTerm"] },
  ),
  [C("TopologySpreadConstraint")]: object(
    "How the pods a label selector matches are spread across the domains of a topology key.",
    {
      maxSkew: int32("The most the number of matching pods in a domain may exceed the smallest number in any eligible domain; at least 1."),
      topologyKey: str("Node label whose value is the topology domain. Nodes without it are not eligible (and not counted)."),
      whenUnsatisfiable: enumStr(["DoNotSchedule", "ScheduleAnyway"], "What to do with a pod that would break maxSkew: leave it pending, or schedule it favoring nodes that lower the skew."),
      labelSelector: link(`${META}LabelSelector`, "Label query over the pods of the pod's namespace that are counted."),
    },
    { required: ["maxSkew", "topologyKey", "whenUnsatisfiable"] },
  ),
  [C("NodeAffinity")]: object("Node affinity rules of a pod.", {
    requiredDuringSchedulingIgnoredDuringExecution: link(C("NodeSelector"), "Rules a node must satisfy for the pod to be scheduled onto it. Not re-checked once the pod runs."),
    preferredDuringSchedulingIgnoredDuringExecution: arrayOf(
      C("PreferredSchedulingTerm"),
      "Weighted preferences: the scheduler favors nodes whose matching terms have the largest weight sum.",
    ),
  }),
  [C("NodeSelector")]: object(
    "A node query: the terms are ORed.",
    { nodeSelectorTerms: arrayOf(C("NodeSelectorTerm"), "The terms; a node matches when any term matches.") },
    { required: ["nodeSelectorTerms"], extensions: atomicStruct },
  ),
  [C("NodeSelectorTerm")]: object(
    "A node query term: its requirements are ANDed. A null or empty term matches no node.",
    {
      matchExpressions: arrayOf(C("NodeSelectorRequirement"), "Requirements on the node's labels."),
      matchFields: arrayOf(C("NodeSelectorRequirement"), "Requirements on the node's fields (only metadata.name)."),
    },
    { extensions: atomicStruct },
  ),
  [C("NodeSelectorRequirement")]: object(
    "One requirement of a node selector term.",
    {
      key: str("The label key (or field path) the requirement applies to."),
      operator: enumStr(["DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"], "How the key relates to the values."),
      values: strList("Values: non-empty for In and NotIn, empty for Exists and DoesNotExist, one integer for Gt and Lt."),
    },
    { required: ["key", "operator"] },
  ),
  [C("PreferredSchedulingTerm")]: object(
    "A node selector term with a weight.",
    {
      weight: int32("Weight, 1-100."),
      preference: link(C("NodeSelectorTerm"), "The term."),
    },
    { required: ["weight", "preference"] },
  ),
  [C("Toleration")]: object("Lets a pod be scheduled onto (or stay on) nodes with a matching taint.", {
    key: str("Taint key to match; empty matches every key (then operator must be Exists)."),
    operator: enumStr(["Equal", "Exists"], "How the key relates to the value; Exists matches any value.", { default: "Equal" }),
    value: str("Taint value to match; empty with Exists."),
    effect: enumStr(["NoExecute", "NoSchedule", "PreferNoSchedule"], "Taint effect to match; empty matches every effect."),
    tolerationSeconds: int64("For NoExecute: how long the pod stays bound after the taint appears; forever when unset, 0 or less evicts at once."),
  }),

  // ── Container status ───────────────────────────────────────────────────────────────────────
  [C("ContainerStatus")]: object(
    "Observed state of one container.",
    {
      name: str("Name of the container, as in the pod spec."),
      state: link(C("ContainerState"), "Current state."),
      lastState: link(C("ContainerState"), "State of the previous run, usually its termination."),
      ready: bool("Whether the container passes its readiness probe."),
      restartCount: int32("How many times the container has been restarted."),
      image: str("The image the container runs."),
      imageID: str("ID of the image the container runs."),
      containerID: str("ID of the container, as `<runtime>://<id>`."),
      started: bool("Whether the container has started and passed its startup probe."),
    },
    { required: ["name", "ready", "restartCount", "image", "imageID"] },
  ),
  [C("ContainerState")]: object("State of a container; exactly one member is set (waiting when none is).", {
    waiting: link(C("ContainerStateWaiting"), "Details of a waiting container."),
    running: link(C("ContainerStateRunning"), "Details of a running container."),
    terminated: link(C("ContainerStateTerminated"), "Details of a terminated container."),
  }),
  [C("ContainerStateWaiting")]: object("A container that is not running yet.", {
    reason: str("Brief reason, such as ContainerCreating, ErrImagePull or CrashLoopBackOff."),
    message: str("Details of the reason."),
  }),
  [C("ContainerStateRunning")]: object("A running container.", {
    startedAt: time("When the container last started."),
  }),
  [C("ContainerStateTerminated")]: object(
    "A container that has exited.",
    {
      exitCode: int32("Exit status of the last run."),
      signal: int32("Signal that ended the last run, if any."),
      reason: str("Brief reason, such as Completed, Error or OOMKilled."),
      message: str("Details, such as the termination message."),
      startedAt: time("When the last run started."),
      finishedAt: time("When the last run ended."),
      containerID: str("ID of the container, as `<runtime>://<id>`."),
    },
    { required: ["exitCode"] },
  ),

  // ── Node ───────────────────────────────────────────────────────────────────────────────────
  [C("Node")]: kindSchema({
    gvks: gvk("", "v1", "Node"),
    description: "A worker machine that runs pods, registered by its node agent.",
    properties: {
      spec: link(C("NodeSpec"), "Attributes the node is created with."),
      status: link(C("NodeStatus"), "Most recently observed status of the node, maintained by its node agent."),
    },
  }),
  [C("NodeList")]: listKindSchema({ group: "", version: "v1", kind: "NodeList", itemSchema: C("Node"), itemKind: "Node" }),
  [C("NodeSpec")]: object("Attributes of a node.", {
    podCIDR: str("IP range assigned to the node's pods."),
    podCIDRs: strList("IP ranges assigned to the node's pods, at most one per family; the first equals podCIDR.", mergeScalars),
    providerID: str("ID of the node at its infrastructure provider, as `<provider>://<id>`."),
    unschedulable: bool("When true, no new pods are scheduled onto the node.", { default: false }),
    taints: arrayOf(C("Taint"), "Taints of the node; pods must tolerate them."),
  }),
  [C("Taint")]: object(
    "A mark on a node that repels pods that do not tolerate it.",
    {
      key: str("The taint key."),
      value: str("The taint value."),
      effect: enumStr(["NoExecute", "NoSchedule", "PreferNoSchedule"], "Effect on pods that do not tolerate the taint."),
      timeAdded: time("When the taint was added; only for NoExecute taints."),
    },
    { required: ["key", "effect"] },
  ),
  [C("NodeStatus")]: object("Observed state of a node.", {
    capacity: mapOf(QUANTITY, "Total resources of the node, by resource name."),
    allocatable: mapOf(QUANTITY, "Resources of the node available to pods; defaults to capacity."),
    conditions: arrayOf(C("NodeCondition"), "Current conditions of the node (Ready, MemoryPressure, DiskPressure, PIDPressure, ...).", mergeBy("type")),
    addresses: arrayOf(C("NodeAddress"), "Addresses of the node. Declared mergeable on type, which is not unique: replace the whole list instead of merging.", mergeBy("type")),
    daemonEndpoints: link(C("NodeDaemonEndpoints"), "Endpoints of the daemons on the node."),
    nodeInfo: link(C("NodeSystemInfo"), "Identifiers and versions of the node."),
    images: arrayOf(C("ContainerImage"), "Container images present on the node."),
  }),
  [C("NodeCondition")]: object(
    "One condition of a node.",
    {
      type: str("Condition type, such as Ready, MemoryPressure, DiskPressure, PIDPressure or NetworkUnavailable."),
      status: conditionStatus(),
      lastHeartbeatTime: time("Last time the condition was reported."),
      lastTransitionTime: time("Last time the condition changed status."),
      reason: str("Brief CamelCase reason for the last transition."),
      message: str("Human-readable details about the last transition."),
    },
    { required: ["type", "status"] },
  ),
  [C("NodeAddress")]: object(
    "An address of a node.",
    {
      type: str("Address type: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS."),
      address: str("The address."),
    },
    { required: ["type", "address"] },
  ),
  [C("NodeDaemonEndpoints")]: object("Ports of the daemons on a node.", {
    kubeletEndpoint: link(C("DaemonEndpoint"), "Endpoint of the node agent's server."),
  }),
  [C("DaemonEndpoint")]: object("A daemon's port.", { Port: int32("Port number.") }, { required: ["Port"] }),
  [C("NodeSystemInfo")]: object(
    "Identifiers and versions of a node.",
    {
      machineID: str("Machine ID reported by the node (/etc/machine-id)."),
      systemUUID: str("System UUID reported by the node."),
      bootID: str("Boot ID reported by the node; it changes on every boot."),
      kernelVersion: str("Kernel version (`uname -r`)."),
      osImage: str("Operating system image (from /etc/os-release)."),
      containerRuntimeVersion: str("Container runtime version, as `<runtime>://<version>`."),
      kubeletVersion: str("Version of the node agent."),
      kubeProxyVersion: str("Version of the network proxy, if any."),
      operatingSystem: str("Operating system, as GOOS spells it (linux)."),
      architecture: str("Architecture, as GOARCH spells it (amd64, arm64)."),
    },
    {
      required: [
        "machineID",
        "systemUUID",
        "bootID",
        "kernelVersion",
        "osImage",
        "containerRuntimeVersion",
        "kubeletVersion",
        "kubeProxyVersion",
        "operatingSystem",
        "architecture",
      ],
    },
  ),
  [C("ContainerImage")]: object(
    "A container image present on a node.",
    {
      names: strList("Names the image is known by, such as `busybox:1.36` and digests."),
      sizeBytes: int64("Size of the image in bytes."),
    },
    { required: ["names"] },
  ),

  // ── Event ──────────────────────────────────────────────────────────────────────────────────
  [C("Event")]: kindSchema({
    gvks: gvk("", "v1", "Event"),
    description: "A report of something that happened to an object. Events are informative, best-effort and kept for a limited time.",
    properties: {
      involvedObject: link(C("ObjectReference"), "The object the event is about."),
      reason: str("Short CamelCase machine-readable reason, such as SuccessfulCreate or BackoffLimitExceeded."),
      message: str("Human-readable description."),
      source: link(C("EventSource"), "The component that reported the event."),
      firstTimestamp: time("When the event was first recorded."),
      lastTimestamp: time("When the event was most recently recorded."),
      count: int32("How many times the event has occurred."),
      type: str("Normal or Warning; more types may be added."),
      eventTime: link(MICRO_TIME, "When the event was first observed (series-style events)."),
      series: link(C("EventSeries"), "Data about the series this event belongs to; unset for a single event."),
      action: str("What was done, or failed, about the object."),
      related: link(C("ObjectReference"), "A second object involved, if any."),
      reportingComponent: str("Name of the controller that emitted the event, such as `skiff.example.io/job-controller`."),
      reportingInstance: str("ID of the controller instance that emitted the event."),
    },
    required: ["metadata", "involvedObject"],
  }),
  [C("EventList")]: listKindSchema({ group: "", version: "v1", kind: "EventList", itemSchema: C("Event"), itemKind: "Event" }),
  [C("EventSource")]: object("The component that reported an event.", {
    component: str("Component name, such as job-controller."),
    host: str("Node name on which the event was generated."),
  }),
  [C("EventSeries")]: object("Data about a series of repeated events.", {
    count: int32("Number of occurrences in the series so far."),
    lastObservedTime: link(MICRO_TIME, "Time of the last occurrence."),
  }),
  [C("ObjectReference")]: object(
    "A reference to an object, with enough information to find it.",
    {
      kind: str("Kind of the object."),
      namespace: str("Namespace of the object."),
      name: str("Name of the object."),
      uid: str("UID of the object."),
      apiVersion: str("API version of the object."),
      resourceVersion: str("The resourceVersion the reference was made at, if relevant."),
      fieldPath: str("A part of the object rather than the whole, such as `spec.containers{name}`."),
    },
    { extensions: atomicStruct },
  ),

  // ── ConfigMap, Secret, ServiceAccount ───────────────────────────────────────────────────────
  [C("ConfigMap")]: kindSchema({
    gvks: gvk("", "v1", "ConfigMap"),
    description: "Configuration data for pods to consume: keys of alphanumerics, `-`, `_` and `.`; `data` and `binaryData` together at most 1 MiB.",
    properties: {
      data: strMap("UTF-8 values by key. A key may not also appear in binaryData."),
      binaryData: strMap("Binary values by key, base64-encoded on the wire. A key may not also appear in data.", { additionalProperties: { type: "string", format: "byte" } }),
      immutable: bool("When true, data and binaryData cannot be changed and immutable cannot be unset; only the metadata may change."),
    },
  }),
  [C("ConfigMapList")]: listKindSchema({ group: "", version: "v1", kind: "ConfigMapList", itemSchema: C("ConfigMap"), itemKind: "ConfigMap" }),
  [C("Secret")]: kindSchema({
    gvks: gvk("", "v1", "Secret"),
    description: "Secret data of a certain type (Opaque by default); the values of data together at most 1 MiB.",
    properties: {
      data: strMap("Secret values by key, base64-encoded on the wire. Keys consist of alphanumerics, `-`, `_` and `.`.", { additionalProperties: { type: "string", format: "byte" } }),
      stringData: strMap("Write-only convenience input: its keys and values are merged into data on write (overwriting), and it is never returned."),
      type: str(
        "How the data is used: Opaque (default), kubernetes.io/service-account-token, kubernetes.io/dockercfg, kubernetes.io/dockerconfigjson, kubernetes.io/basic-auth, kubernetes.io/ssh-auth, kubernetes.io/tls or bootstrap.kubernetes.io/token. Cannot be updated.",
      ),
      immutable: bool("When true, data cannot be changed and immutable cannot be unset; only the metadata may change."),
    },
  }),
  [C("SecretList")]: listKindSchema({ group: "", version: "v1", kind: "SecretList", itemSchema: C("Secret"), itemKind: "Secret" }),
  [C("ServiceAccount")]: kindSchema({
    gvks: gvk("", "v1", "ServiceAccount"),
    description: "An identity for processes that run in a pod, with the secrets and image pull secrets they may use.",
    properties: {
      secrets: arrayOf(C("ObjectReference"), "Secrets in the same namespace that pods running as this service account may use.", mergeBy("name")),
      imagePullSecrets: arrayOf(C("LocalObjectReference"), "Secrets in the same namespace with image registry credentials, added to every pod that runs as this service account."),
      automountServiceAccountToken: bool("Whether pods running as this service account get an API token mounted; a pod's own setting takes precedence."),
    },
  }),
  [C("ServiceAccountList")]: listKindSchema({ group: "", version: "v1", kind: "ServiceAccountList", itemSchema: C("ServiceAccount"), itemKind: "ServiceAccount" }),

  // ── Namespace and Binding ──────────────────────────────────────────────────────────────────
  [C("Namespace")]: kindSchema({
    gvks: gvk("", "v1", "Namespace"),
    description: "A scope for names: namespaced objects live in exactly one namespace.",
    properties: {
      spec: link(C("NamespaceSpec"), "Attributes of the namespace."),
      status: link(C("NamespaceStatus"), "Observed status of the namespace."),
    },
  }),
  [C("NamespaceList")]: listKindSchema({ group: "", version: "v1", kind: "NamespaceList", itemSchema: C("Namespace"), itemKind: "Namespace" }),
  [C("NamespaceSpec")]: object("Attributes of a namespace.", {
    finalizers: strList("Values that must be removed before the namespace is removed (such as `kubernetes`)."),
  }),
  [C("NamespaceStatus")]: object("Observed state of a namespace.", {
    phase: enumStr(["Active", "Terminating"], "Active, or Terminating once deletion has started."),
    conditions: arrayOf(C("NamespaceCondition"), "Latest observations of the namespace's state.", mergeBy("type")),
  }),
  [C("NamespaceCondition")]: object(
    "One condition of a namespace.",
    {
      type: str("Condition type, such as NamespaceDeletionContentFailure."),
      status: conditionStatus(),
      lastTransitionTime: time("Last time the condition changed status."),
      reason: str("Brief CamelCase reason for the last transition."),
      message: str("Human-readable details about the last transition."),
    },
    { required: ["type", "status"] },
  ),
  [C("Binding")]: kindSchema({
    gvks: gvk("", "v1", "Binding"),
    description: "Binds a pod to a node; posted to a pod's `binding` subresource by the scheduler.",
    properties: { target: link(C("ObjectReference"), "The node to bind to (kind Node and its name).") },
    required: ["target"],
  }),
  // policy/v1 Eviction: the body of a pod's `eviction` subresource (PodDisruptionBudgets are not served).
  ["io.example.api.policy.v1.Eviction"]: kindSchema({
    gvks: gvk("policy", "v1", "Eviction"),
    description: "Evicts a pod (deletes it with the given options); posted to a pod's `eviction` subresource by `kubectl drain`. Not stored.",
    properties: { deleteOptions: link(`${META}DeleteOptions`, "The options of the pod's deletion.") },
  }),
};
