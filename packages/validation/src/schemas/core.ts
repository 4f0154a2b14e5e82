import type {
  Affinity,
  Binding,
  CSIVolumeSource,
  Container,
  EphemeralContainer,
  ContainerPort,
  ContainerState,
  ContainerStatus,
  EnvVar,
  EnvVarSource,
  Event,
  EventList,
  EventSource,
  Namespace,
  NamespaceList,
  NamespaceSpec,
  NamespaceStatus,
  Node,
  NodeAddress,
  NodeAffinity,
  NodeCondition,
  NodeList,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  NodeSpec,
  NodeStatus,
  NodeSystemInfo,
  ObjectFieldSelector,
  ObjectReference,
  HostAlias,
  PodReadinessGate,
  Pod,
  PodCondition,
  PodDNSConfig,
  PodDNSConfigOption,
  PodList,
  PodSpec,
  PodStatus,
  PodTemplate,
  PodTemplateList,
  PodTemplateSpec,
  ResourceRequirements,
  Taint,
  Toleration,
  Volume,
  VolumeMount,
} from "@skiff/api-types";
import type { z } from "zod";
import { kindEnvelope, kindListOf, labelSelectorSchema, objectMetaSchema, typeMetaShape } from "./meta.js";
import {
  bool,
  int32,
  int64,
  intOrString,
  listOf,
  objectOf,
  openEnum,
  quantity,
  quantityMap,
  str,
  stringList,
  stringMap,
  time,
} from "./primitives.js";

/*
 * core/v1 kinds in their 1.23 shapes, limited to the fields the api-types document declares.
 * Nested structures without an exported type name are typed by indexed access on their parent.
 */

type Elem<T> = T extends readonly (infer E)[] ? E : never;
type Def<T> = NonNullable<T>;

// --- references and selectors -------------------------------------------------------------

/** core/v1 ObjectReference. */
export const objectReferenceSchema = objectOf<ObjectReference>()("ObjectReference", {
  kind: str().exactOptional(),
  namespace: str().exactOptional(),
  name: str().exactOptional(),
  uid: str().exactOptional(),
  apiVersion: str().exactOptional(),
  resourceVersion: str().exactOptional(),
  fieldPath: str().exactOptional(),
}) satisfies z.ZodType<ObjectReference>;

type LocalObjectReference = Def<CSIVolumeSource["nodePublishSecretRef"]>;
/** core/v1 LocalObjectReference. */
export const localObjectReferenceSchema = objectOf<LocalObjectReference>()("LocalObjectReference", {
  name: str().exactOptional(),
}) satisfies z.ZodType<LocalObjectReference>;

/** core/v1 ObjectFieldSelector (`fieldRef`). */
export const objectFieldSelectorSchema = objectOf<ObjectFieldSelector>()("ObjectFieldSelector", {
  apiVersion: str().exactOptional(),
  fieldPath: str(),
}) satisfies z.ZodType<ObjectFieldSelector>;

type ResourceFieldSelector = Def<EnvVarSource["resourceFieldRef"]>;
const resourceFieldSelectorSchema = objectOf<ResourceFieldSelector>()("ResourceFieldSelector", {
  containerName: str().exactOptional(),
  resource: str(),
  divisor: quantity().exactOptional(),
}) satisfies z.ZodType<ResourceFieldSelector>;

type ConfigMapKeySelector = Def<EnvVarSource["configMapKeyRef"]>;
const configMapKeySelectorSchema = objectOf<ConfigMapKeySelector>()("ConfigMapKeySelector", {
  name: str().exactOptional(),
  key: str(),
  optional: bool().exactOptional(),
}) satisfies z.ZodType<ConfigMapKeySelector>;

type SecretKeySelector = Def<EnvVarSource["secretKeyRef"]>;
const secretKeySelectorSchema = objectOf<SecretKeySelector>()("SecretKeySelector", {
  name: str().exactOptional(),
  key: str(),
  optional: bool().exactOptional(),
}) satisfies z.ZodType<SecretKeySelector>;

/** core/v1 EnvVarSource. */
export const envVarSourceSchema = objectOf<EnvVarSource>()("EnvVarSource", {
  fieldRef: objectFieldSelectorSchema.exactOptional(),
  resourceFieldRef: resourceFieldSelectorSchema.exactOptional(),
  configMapKeyRef: configMapKeySelectorSchema.exactOptional(),
  secretKeyRef: secretKeySelectorSchema.exactOptional(),
}) satisfies z.ZodType<EnvVarSource>;

/** core/v1 EnvVar. */
export const envVarSchema = objectOf<EnvVar>()("EnvVar", {
  name: str(),
  value: str().exactOptional(),
  valueFrom: envVarSourceSchema.exactOptional(),
}) satisfies z.ZodType<EnvVar>;

type EnvFromSource = Elem<Def<Container["envFrom"]>>;
type ConfigMapEnvSource = Def<EnvFromSource["configMapRef"]>;
type SecretEnvSource = Def<EnvFromSource["secretRef"]>;
const envFromSourceSchema = objectOf<EnvFromSource>()("EnvFromSource", {
  prefix: str().exactOptional(),
  configMapRef: objectOf<ConfigMapEnvSource>()("ConfigMapEnvSource", {
    name: str().exactOptional(),
    optional: bool().exactOptional(),
  }).exactOptional(),
  secretRef: objectOf<SecretEnvSource>()("SecretEnvSource", {
    name: str().exactOptional(),
    optional: bool().exactOptional(),
  }).exactOptional(),
}) satisfies z.ZodType<EnvFromSource>;

/** core/v1 ContainerPort. */
export const containerPortSchema = objectOf<ContainerPort>()("ContainerPort", {
  name: str().exactOptional(),
  hostPort: int32().exactOptional(),
  containerPort: int32(),
  protocol: openEnum<Def<ContainerPort["protocol"]>>().exactOptional(),
  hostIP: str().exactOptional(),
}) satisfies z.ZodType<ContainerPort>;

/** core/v1 ResourceRequirements (limits/requests: maps of quantities). */
export const resourceRequirementsSchema = objectOf<ResourceRequirements>()("ResourceRequirements", {
  limits: quantityMap().exactOptional(),
  requests: quantityMap().exactOptional(),
}) satisfies z.ZodType<ResourceRequirements>;

/** core/v1 VolumeMount. */
export const volumeMountSchema = objectOf<VolumeMount>()("VolumeMount", {
  name: str(),
  readOnly: bool().exactOptional(),
  mountPath: str(),
  subPath: str().exactOptional(),
  mountPropagation: str().exactOptional(),
  subPathExpr: str().exactOptional(),
}) satisfies z.ZodType<VolumeMount>;

type VolumeDevice = Def<Container["volumeDevices"]>[number];
const volumeDeviceSchema = objectOf<VolumeDevice>()("VolumeDevice", {
  name: str(),
  devicePath: str(),
}) satisfies z.ZodType<VolumeDevice>;

// --- probes and security contexts ---------------------------------------------------------

type Probe = Def<Container["livenessProbe"]>;
type ExecAction = Def<Probe["exec"]>;
type HTTPGetAction = Def<Probe["httpGet"]>;
type HTTPHeader = Elem<Def<HTTPGetAction["httpHeaders"]>>;
type TCPSocketAction = Def<Probe["tcpSocket"]>;
type GRPCAction = Def<Probe["grpc"]>;

const execActionSchema = objectOf<ExecAction>()("ExecAction", {
  command: stringList().exactOptional(),
}) satisfies z.ZodType<ExecAction>;

const httpHeaderSchema = objectOf<HTTPHeader>()("HTTPHeader", {
  name: str(),
  value: str(),
}) satisfies z.ZodType<HTTPHeader>;

const httpGetActionSchema = objectOf<HTTPGetAction>()("HTTPGetAction", {
  path: str().exactOptional(),
  port: intOrString(),
  host: str().exactOptional(),
  scheme: openEnum<Def<HTTPGetAction["scheme"]>>().exactOptional(),
  httpHeaders: listOf(httpHeaderSchema).exactOptional(),
}) satisfies z.ZodType<HTTPGetAction>;

const tcpSocketActionSchema = objectOf<TCPSocketAction>()("TCPSocketAction", {
  port: intOrString(),
  host: str().exactOptional(),
}) satisfies z.ZodType<TCPSocketAction>;

const grpcActionSchema = objectOf<GRPCAction>()("GRPCAction", {
  port: int32(),
  service: str().exactOptional(),
}) satisfies z.ZodType<GRPCAction>;

const probeSchema = objectOf<Probe>()("Probe", {
  exec: execActionSchema.exactOptional(),
  httpGet: httpGetActionSchema.exactOptional(),
  tcpSocket: tcpSocketActionSchema.exactOptional(),
  grpc: grpcActionSchema.exactOptional(),
  initialDelaySeconds: int32().exactOptional(),
  timeoutSeconds: int32().exactOptional(),
  periodSeconds: int32().exactOptional(),
  successThreshold: int32().exactOptional(),
  failureThreshold: int32().exactOptional(),
  terminationGracePeriodSeconds: int64().exactOptional(),
}) satisfies z.ZodType<Probe>;

type Lifecycle = Def<Container["lifecycle"]>;
type LifecycleHandler = Def<Lifecycle["postStart"]>;
const lifecycleHandlerSchema = objectOf<LifecycleHandler>()("LifecycleHandler", {
  exec: execActionSchema.exactOptional(),
  httpGet: httpGetActionSchema.exactOptional(),
  tcpSocket: tcpSocketActionSchema.exactOptional(),
}) satisfies z.ZodType<LifecycleHandler>;
const lifecycleSchema = objectOf<Lifecycle>()("Lifecycle", {
  postStart: lifecycleHandlerSchema.exactOptional(),
  preStop: lifecycleHandlerSchema.exactOptional(),
}) satisfies z.ZodType<Lifecycle>;

type SecurityContext = Def<Container["securityContext"]>;
type Capabilities = Def<SecurityContext["capabilities"]>;
type SELinuxOptions = Def<SecurityContext["seLinuxOptions"]>;
type SeccompProfile = Def<SecurityContext["seccompProfile"]>;
const seLinuxOptionsSchema = objectOf<SELinuxOptions>()("SELinuxOptions", {
  user: str().exactOptional(),
  role: str().exactOptional(),
  type: str().exactOptional(),
  level: str().exactOptional(),
}) satisfies z.ZodType<SELinuxOptions>;
const seccompProfileSchema = objectOf<SeccompProfile>()("SeccompProfile", {
  type: openEnum<SeccompProfile["type"]>(),
  localhostProfile: str().exactOptional(),
}) satisfies z.ZodType<SeccompProfile>;
type WindowsOptions = Def<SecurityContext["windowsOptions"]>;
const windowsOptionsSchema = objectOf<WindowsOptions>()("WindowsSecurityContextOptions", {
  gmsaCredentialSpecName: str().exactOptional(),
  gmsaCredentialSpec: str().exactOptional(),
  runAsUserName: str().exactOptional(),
  hostProcess: bool().exactOptional(),
}) satisfies z.ZodType<WindowsOptions>;
const securityContextSchema = objectOf<SecurityContext>()("SecurityContext", {
  capabilities: objectOf<Capabilities>()("Capabilities", {
    add: stringList().exactOptional(),
    drop: stringList().exactOptional(),
  }).exactOptional(),
  privileged: bool().exactOptional(),
  runAsUser: int64().exactOptional(),
  runAsGroup: int64().exactOptional(),
  runAsNonRoot: bool().exactOptional(),
  readOnlyRootFilesystem: bool().exactOptional(),
  allowPrivilegeEscalation: bool().exactOptional(),
  seLinuxOptions: seLinuxOptionsSchema.exactOptional(),
  procMount: str().exactOptional(),
  seccompProfile: seccompProfileSchema.exactOptional(),
  windowsOptions: windowsOptionsSchema.exactOptional(),
}) satisfies z.ZodType<SecurityContext>;

type PodSecurityContext = Def<PodSpec["securityContext"]>;
const podSecurityContextSchema = objectOf<PodSecurityContext>()("PodSecurityContext", {
  runAsUser: int64().exactOptional(),
  runAsGroup: int64().exactOptional(),
  runAsNonRoot: bool().exactOptional(),
  supplementalGroups: listOf(int64()).exactOptional(),
  fsGroup: int64().exactOptional(),
  fsGroupChangePolicy: openEnum<Def<PodSecurityContext["fsGroupChangePolicy"]>>().exactOptional(),
  seLinuxOptions: seLinuxOptionsSchema.exactOptional(),
  sysctls: listOf(
    objectOf<Elem<Def<PodSecurityContext["sysctls"]>>>()("Sysctl", {
      name: str(),
      value: str(),
    }),
  ).exactOptional(),
  seccompProfile: seccompProfileSchema.exactOptional(),
  windowsOptions: windowsOptionsSchema.exactOptional(),
}) satisfies z.ZodType<PodSecurityContext>;

const containerFields = {
  name: str(),
  image: str().exactOptional(),
  command: stringList().exactOptional(),
  args: stringList().exactOptional(),
  workingDir: str().exactOptional(),
  ports: listOf(containerPortSchema).exactOptional(),
  envFrom: listOf(envFromSourceSchema).exactOptional(),
  env: listOf(envVarSchema).exactOptional(),
  resources: resourceRequirementsSchema.exactOptional(),
  volumeMounts: listOf(volumeMountSchema).exactOptional(),
  volumeDevices: listOf(volumeDeviceSchema).exactOptional(),
  livenessProbe: probeSchema.exactOptional(),
  readinessProbe: probeSchema.exactOptional(),
  startupProbe: probeSchema.exactOptional(),
  lifecycle: lifecycleSchema.exactOptional(),
  terminationMessagePath: str().exactOptional(),
  terminationMessagePolicy: openEnum<Def<Container["terminationMessagePolicy"]>>().exactOptional(),
  imagePullPolicy: openEnum<Def<Container["imagePullPolicy"]>>().exactOptional(),
  securityContext: securityContextSchema.exactOptional(),
  stdin: bool().exactOptional(),
  stdinOnce: bool().exactOptional(),
  tty: bool().exactOptional(),
};

/** core/v1 Container. */
export const containerSchema = objectOf<Container>()("Container", containerFields) satisfies z.ZodType<Container>;

/** core/v1 EphemeralContainer: the container fields and `targetContainerName`. */
export const ephemeralContainerSchema = objectOf<EphemeralContainer>()("EphemeralContainer", {
  ...containerFields,
  targetContainerName: str().exactOptional(),
}) satisfies z.ZodType<EphemeralContainer>;

// --- volumes ------------------------------------------------------------------------------

type KeyToPath = Elem<Def<Def<Volume["configMap"]>["items"]>>;
const keyToPathSchema = objectOf<KeyToPath>()("KeyToPath", {
  key: str(),
  path: str(),
  mode: int32().exactOptional(),
}) satisfies z.ZodType<KeyToPath>;

type EmptyDirVolumeSource = Def<Volume["emptyDir"]>;
type HostPathVolumeSource = Def<Volume["hostPath"]>;
type ConfigMapVolumeSource = Def<Volume["configMap"]>;
type SecretVolumeSource = Def<Volume["secret"]>;
type EphemeralVolumeSource = Def<Volume["ephemeral"]>;
type PersistentVolumeClaimTemplate = Def<EphemeralVolumeSource["volumeClaimTemplate"]>;
type PersistentVolumeClaimVolumeSource = Def<Volume["persistentVolumeClaim"]>;
type ProjectedVolumeSource = Def<Volume["projected"]>;
type DownwardAPIVolumeSource = Def<Volume["downwardAPI"]>;
type DownwardAPIVolumeFile = Elem<Def<DownwardAPIVolumeSource["items"]>>;

const csiVolumeSourceSchema = objectOf<CSIVolumeSource>()("CSIVolumeSource", {
  driver: str(),
  readOnly: bool().exactOptional(),
  fsType: str().exactOptional(),
  volumeAttributes: stringMap().exactOptional(),
  nodePublishSecretRef: localObjectReferenceSchema.exactOptional(),
}) satisfies z.ZodType<CSIVolumeSource>;

const downwardAPIVolumeFileSchema = objectOf<DownwardAPIVolumeFile>()("DownwardAPIVolumeFile", {
  path: str(),
  fieldRef: objectFieldSelectorSchema.exactOptional(),
  resourceFieldRef: resourceFieldSelectorSchema.exactOptional(),
  mode: int32().exactOptional(),
}) satisfies z.ZodType<DownwardAPIVolumeFile>;

type PersistentVolumeClaimSpec = PersistentVolumeClaimTemplate["spec"];
const persistentVolumeClaimSpecSchema = objectOf<PersistentVolumeClaimSpec>()("PersistentVolumeClaimSpec", {
  accessModes: stringList().exactOptional(),
  selector: labelSelectorSchema.exactOptional(),
  resources: resourceRequirementsSchema.exactOptional(),
  volumeName: str().exactOptional(),
  storageClassName: str().exactOptional(),
  volumeMode: str().exactOptional(),
}) satisfies z.ZodType<PersistentVolumeClaimSpec>;

type VolumeProjection = Elem<Def<ProjectedVolumeSource["sources"]>>;
type SecretProjection = Def<VolumeProjection["secret"]>;
type ConfigMapProjection = Def<VolumeProjection["configMap"]>;
type DownwardAPIProjection = Def<VolumeProjection["downwardAPI"]>;
type ServiceAccountTokenProjection = Def<VolumeProjection["serviceAccountToken"]>;
const volumeProjectionSchema = objectOf<VolumeProjection>()("VolumeProjection", {
  secret: objectOf<SecretProjection>()("SecretProjection", {
    name: str().exactOptional(),
    items: listOf(keyToPathSchema).exactOptional(),
    optional: bool().exactOptional(),
  }).exactOptional(),
  configMap: objectOf<ConfigMapProjection>()("ConfigMapProjection", {
    name: str().exactOptional(),
    items: listOf(keyToPathSchema).exactOptional(),
    optional: bool().exactOptional(),
  }).exactOptional(),
  downwardAPI: objectOf<DownwardAPIProjection>()("DownwardAPIProjection", {
    items: listOf(downwardAPIVolumeFileSchema).exactOptional(),
  }).exactOptional(),
  serviceAccountToken: objectOf<ServiceAccountTokenProjection>()("ServiceAccountTokenProjection", {
    audience: str().exactOptional(),
    expirationSeconds: int64().exactOptional(),
    path: str(),
  }).exactOptional(),
}) satisfies z.ZodType<VolumeProjection>;

/** core/v1 Volume (the sources the api-types document declares). */
export const volumeSchema = objectOf<Volume>()("Volume", {
  name: str(),
  emptyDir: objectOf<EmptyDirVolumeSource>()("EmptyDirVolumeSource", {
    medium: str().exactOptional(),
    sizeLimit: quantity().exactOptional(),
  }).exactOptional(),
  hostPath: objectOf<HostPathVolumeSource>()("HostPathVolumeSource", {
    path: str(),
    type: str().exactOptional(),
  }).exactOptional(),
  configMap: objectOf<ConfigMapVolumeSource>()("ConfigMapVolumeSource", {
    name: str().exactOptional(),
    items: listOf(keyToPathSchema).exactOptional(),
    defaultMode: int32().exactOptional(),
    optional: bool().exactOptional(),
  }).exactOptional(),
  secret: objectOf<SecretVolumeSource>()("SecretVolumeSource", {
    secretName: str().exactOptional(),
    items: listOf(keyToPathSchema).exactOptional(),
    defaultMode: int32().exactOptional(),
    optional: bool().exactOptional(),
  }).exactOptional(),
  csi: csiVolumeSourceSchema.exactOptional(),
  ephemeral: objectOf<EphemeralVolumeSource>()("EphemeralVolumeSource", {
    volumeClaimTemplate: objectOf<PersistentVolumeClaimTemplate>()("PersistentVolumeClaimTemplate", {
      metadata: objectMetaSchema.exactOptional(),
      spec: persistentVolumeClaimSpecSchema,
    }).exactOptional(),
  }).exactOptional(),
  persistentVolumeClaim: objectOf<PersistentVolumeClaimVolumeSource>()("PersistentVolumeClaimVolumeSource", {
    claimName: str(),
    readOnly: bool().exactOptional(),
  }).exactOptional(),
  projected: objectOf<ProjectedVolumeSource>()("ProjectedVolumeSource", {
    sources: listOf(volumeProjectionSchema).exactOptional(),
    defaultMode: int32().exactOptional(),
  }).exactOptional(),
  downwardAPI: objectOf<DownwardAPIVolumeSource>()("DownwardAPIVolumeSource", {
    items: listOf(downwardAPIVolumeFileSchema).exactOptional(),
    defaultMode: int32().exactOptional(),
  }).exactOptional(),
}) satisfies z.ZodType<Volume>;

// --- scheduling ---------------------------------------------------------------------------

/** core/v1 NodeSelectorRequirement. */
export const nodeSelectorRequirementSchema = objectOf<NodeSelectorRequirement>()("NodeSelectorRequirement", {
  key: str(),
  operator: openEnum<NodeSelectorRequirement["operator"]>(),
  values: stringList().exactOptional(),
}) satisfies z.ZodType<NodeSelectorRequirement>;

/** core/v1 NodeSelectorTerm. */
export const nodeSelectorTermSchema = objectOf<NodeSelectorTerm>()("NodeSelectorTerm", {
  matchExpressions: listOf(nodeSelectorRequirementSchema).exactOptional(),
  matchFields: listOf(nodeSelectorRequirementSchema).exactOptional(),
}) satisfies z.ZodType<NodeSelectorTerm>;

/** core/v1 NodeSelector. */
export const nodeSelectorSchema = objectOf<NodeSelector>()("NodeSelector", {
  nodeSelectorTerms: listOf(nodeSelectorTermSchema),
}) satisfies z.ZodType<NodeSelector>;

type PreferredSchedulingTerm = Elem<Def<NodeAffinity["preferredDuringSchedulingIgnoredDuringExecution"]>>;
const preferredSchedulingTermSchema = objectOf<PreferredSchedulingTerm>()("PreferredSchedulingTerm", {
  weight: int32(),
  preference: nodeSelectorTermSchema,
}) satisfies z.ZodType<PreferredSchedulingTerm>;

/** core/v1 NodeAffinity. */
export const nodeAffinitySchema = objectOf<NodeAffinity>()("NodeAffinity", {
  requiredDuringSchedulingIgnoredDuringExecution: nodeSelectorSchema.exactOptional(),
  preferredDuringSchedulingIgnoredDuringExecution: listOf(preferredSchedulingTermSchema).exactOptional(),
}) satisfies z.ZodType<NodeAffinity>;

type PodAffinity = Def<Affinity["podAffinity"]>;
type PodAntiAffinity = Def<Affinity["podAntiAffinity"]>;
type PodAffinityTerm = Elem<Def<PodAffinity["requiredDuringSchedulingIgnoredDuringExecution"]>>;
type WeightedPodAffinityTerm = Elem<Def<PodAffinity["preferredDuringSchedulingIgnoredDuringExecution"]>>;
const podAffinityTermSchema = objectOf<PodAffinityTerm>()("PodAffinityTerm", {
  labelSelector: labelSelectorSchema.exactOptional(),
  namespaces: stringList().exactOptional(),
  topologyKey: str(),
  namespaceSelector: labelSelectorSchema.exactOptional(),
}) satisfies z.ZodType<PodAffinityTerm>;
const weightedPodAffinityTermSchema = objectOf<WeightedPodAffinityTerm>()("WeightedPodAffinityTerm", {
  weight: int32(),
  podAffinityTerm: podAffinityTermSchema,
}) satisfies z.ZodType<WeightedPodAffinityTerm>;
const podAffinityFields = {
  requiredDuringSchedulingIgnoredDuringExecution: listOf(podAffinityTermSchema).exactOptional(),
  preferredDuringSchedulingIgnoredDuringExecution: listOf(weightedPodAffinityTermSchema).exactOptional(),
};

/** core/v1 Affinity. */
export const affinitySchema = objectOf<Affinity>()("Affinity", {
  nodeAffinity: nodeAffinitySchema.exactOptional(),
  podAffinity: (objectOf<PodAffinity>()("PodAffinity", podAffinityFields) satisfies z.ZodType<PodAffinity>).exactOptional(),
  podAntiAffinity: (objectOf<PodAntiAffinity>()("PodAntiAffinity", podAffinityFields) satisfies z.ZodType<PodAntiAffinity>).exactOptional(),
}) satisfies z.ZodType<Affinity>;

type TopologySpreadConstraint = Elem<Def<PodSpec["topologySpreadConstraints"]>>;
const topologySpreadConstraintSchema = objectOf<TopologySpreadConstraint>()("TopologySpreadConstraint", {
  maxSkew: int32(),
  topologyKey: str(),
  whenUnsatisfiable: openEnum<TopologySpreadConstraint["whenUnsatisfiable"]>(),
  labelSelector: labelSelectorSchema.exactOptional(),
}) satisfies z.ZodType<TopologySpreadConstraint>;

/** core/v1 Toleration. */
export const tolerationSchema = objectOf<Toleration>()("Toleration", {
  key: str().exactOptional(),
  operator: openEnum<Def<Toleration["operator"]>>().exactOptional(),
  value: str().exactOptional(),
  effect: openEnum<Def<Toleration["effect"]>>().exactOptional(),
  tolerationSeconds: int64().exactOptional(),
}) satisfies z.ZodType<Toleration>;

// --- pods ---------------------------------------------------------------------------------

/** core/v1 PodDNSConfigOption. */
const podDNSConfigOptionSchema = objectOf<PodDNSConfigOption>()("PodDNSConfigOption", {
  name: str().exactOptional(),
  value: str().exactOptional(),
}) satisfies z.ZodType<PodDNSConfigOption>;

/** core/v1 PodDNSConfig. */
const podDNSConfigSchema = objectOf<PodDNSConfig>()("PodDNSConfig", {
  nameservers: listOf(str()).exactOptional(),
  searches: listOf(str()).exactOptional(),
  options: listOf(podDNSConfigOptionSchema).exactOptional(),
}) satisfies z.ZodType<PodDNSConfig>;

/** core/v1 HostAlias. */
const hostAliasSchema = objectOf<HostAlias>()("HostAlias", {
  ip: str().exactOptional(),
  hostnames: listOf(str()).exactOptional(),
}) satisfies z.ZodType<HostAlias>;

/** core/v1 PodReadinessGate. */
const podReadinessGateSchema = objectOf<PodReadinessGate>()("PodReadinessGate", {
  conditionType: str(),
}) satisfies z.ZodType<PodReadinessGate>;

/** core/v1 PodSpec. */
export const podSpecSchema = objectOf<PodSpec>()("PodSpec", {
  volumes: listOf(volumeSchema).exactOptional(),
  initContainers: listOf(containerSchema).exactOptional(),
  containers: listOf(containerSchema),
  ephemeralContainers: listOf(ephemeralContainerSchema).exactOptional(),
  restartPolicy: openEnum<Def<PodSpec["restartPolicy"]>>().exactOptional(),
  terminationGracePeriodSeconds: int64().exactOptional(),
  activeDeadlineSeconds: int64().exactOptional(),
  dnsPolicy: openEnum<Def<PodSpec["dnsPolicy"]>>().exactOptional(),
  nodeSelector: stringMap().exactOptional(),
  serviceAccountName: str().exactOptional(),
  serviceAccount: str().exactOptional(),
  automountServiceAccountToken: bool().exactOptional(),
  nodeName: str().exactOptional(),
  hostNetwork: bool().exactOptional(),
  hostPID: bool().exactOptional(),
  hostIPC: bool().exactOptional(),
  shareProcessNamespace: bool().exactOptional(),
  securityContext: podSecurityContextSchema.exactOptional(),
  imagePullSecrets: listOf(localObjectReferenceSchema).exactOptional(),
  hostname: str().exactOptional(),
  subdomain: str().exactOptional(),
  setHostnameAsFQDN: bool().exactOptional(),
  dnsConfig: podDNSConfigSchema.exactOptional(),
  hostAliases: listOf(hostAliasSchema).exactOptional(),
  affinity: affinitySchema.exactOptional(),
  schedulerName: str().exactOptional(),
  tolerations: listOf(tolerationSchema).exactOptional(),
  topologySpreadConstraints: listOf(topologySpreadConstraintSchema).exactOptional(),
  priorityClassName: str().exactOptional(),
  priority: int32().exactOptional(),
  preemptionPolicy: openEnum<Def<PodSpec["preemptionPolicy"]>>().exactOptional(),
  runtimeClassName: str().exactOptional(),
  overhead: quantityMap().exactOptional(),
  readinessGates: listOf(podReadinessGateSchema).exactOptional(),
  enableServiceLinks: bool().exactOptional(),
  os: objectOf<Def<PodSpec["os"]>>()("PodOS", { name: str() }).exactOptional(),
}) satisfies z.ZodType<PodSpec>;

/** core/v1 PodTemplateSpec. */
export const podTemplateSpecSchema = objectOf<PodTemplateSpec>()("PodTemplateSpec", {
  metadata: objectMetaSchema.exactOptional(),
  spec: podSpecSchema.exactOptional(),
}) satisfies z.ZodType<PodTemplateSpec>;

/** core/v1 PodCondition. */
export const podConditionSchema = objectOf<PodCondition>()("PodCondition", {
  type: str(),
  status: str(),
  lastProbeTime: time().exactOptional(),
  lastTransitionTime: time().exactOptional(),
  reason: str().exactOptional(),
  message: str().exactOptional(),
}) satisfies z.ZodType<PodCondition>;

type ContainerStateWaiting = Def<ContainerState["waiting"]>;
type ContainerStateRunning = Def<ContainerState["running"]>;
type ContainerStateTerminated = Def<ContainerState["terminated"]>;

/** core/v1 ContainerState. */
export const containerStateSchema = objectOf<ContainerState>()("ContainerState", {
  waiting: objectOf<ContainerStateWaiting>()("ContainerStateWaiting", {
    reason: str().exactOptional(),
    message: str().exactOptional(),
  }).exactOptional(),
  running: objectOf<ContainerStateRunning>()("ContainerStateRunning", {
    startedAt: time().exactOptional(),
  }).exactOptional(),
  terminated: objectOf<ContainerStateTerminated>()("ContainerStateTerminated", {
    exitCode: int32(),
    signal: int32().exactOptional(),
    reason: str().exactOptional(),
    message: str().exactOptional(),
    startedAt: time().exactOptional(),
    finishedAt: time().exactOptional(),
    containerID: str().exactOptional(),
  }).exactOptional(),
}) satisfies z.ZodType<ContainerState>;

/** core/v1 ContainerStatus. */
export const containerStatusSchema = objectOf<ContainerStatus>()("ContainerStatus", {
  name: str(),
  state: containerStateSchema.exactOptional(),
  lastState: containerStateSchema.exactOptional(),
  ready: bool(),
  restartCount: int32(),
  image: str(),
  imageID: str(),
  containerID: str().exactOptional(),
  started: bool().exactOptional(),
}) satisfies z.ZodType<ContainerStatus>;

type PodIP = Elem<Def<PodStatus["podIPs"]>>;

/** core/v1 PodStatus. */
export const podStatusSchema = objectOf<PodStatus>()("PodStatus", {
  phase: openEnum<Def<PodStatus["phase"]>>().exactOptional(),
  conditions: listOf(podConditionSchema).exactOptional(),
  message: str().exactOptional(),
  reason: str().exactOptional(),
  nominatedNodeName: str().exactOptional(),
  hostIP: str().exactOptional(),
  podIP: str().exactOptional(),
  podIPs: listOf(objectOf<PodIP>()("PodIP", { ip: str().exactOptional() })).exactOptional(),
  startTime: time().exactOptional(),
  initContainerStatuses: listOf(containerStatusSchema).exactOptional(),
  containerStatuses: listOf(containerStatusSchema).exactOptional(),
  ephemeralContainerStatuses: listOf(containerStatusSchema).exactOptional(),
  qosClass: openEnum<Def<PodStatus["qosClass"]>>().exactOptional(),
}) satisfies z.ZodType<PodStatus>;

/** core/v1 Pod. */
export const podSchema = objectOf<Pod>()("Pod", {
  ...kindEnvelope(),
  spec: podSpecSchema.exactOptional(),
  status: podStatusSchema.exactOptional(),
}) satisfies z.ZodType<Pod>;

/** core/v1 PodList. */
export const podListSchema = kindListOf<PodList>()("PodList", podSchema) satisfies z.ZodType<PodList>;

/** core/v1 PodTemplate. */
export const podTemplateSchema = objectOf<PodTemplate>()("PodTemplate", {
  ...kindEnvelope(),
  template: podTemplateSpecSchema.exactOptional(),
}) satisfies z.ZodType<PodTemplate>;

/** core/v1 PodTemplateList. */
export const podTemplateListSchema = kindListOf<PodTemplateList>()("PodTemplateList", podTemplateSchema) satisfies z.ZodType<PodTemplateList>;

/** core/v1 Binding (`pods/binding` body). */
export const bindingSchema = objectOf<Binding>()("Binding", {
  ...kindEnvelope(),
  target: objectReferenceSchema,
}) satisfies z.ZodType<Binding>;

// --- nodes --------------------------------------------------------------------------------

/** core/v1 Taint. */
export const taintSchema = objectOf<Taint>()("Taint", {
  key: str(),
  value: str().exactOptional(),
  effect: openEnum<Taint["effect"]>(),
  timeAdded: time().exactOptional(),
}) satisfies z.ZodType<Taint>;

/** core/v1 NodeSpec. */
export const nodeSpecSchema = objectOf<NodeSpec>()("NodeSpec", {
  podCIDR: str().exactOptional(),
  podCIDRs: stringList().exactOptional(),
  providerID: str().exactOptional(),
  unschedulable: bool().exactOptional(),
  taints: listOf(taintSchema).exactOptional(),
}) satisfies z.ZodType<NodeSpec>;

/** core/v1 NodeCondition. */
export const nodeConditionSchema = objectOf<NodeCondition>()("NodeCondition", {
  type: str(),
  status: str(),
  lastHeartbeatTime: time().exactOptional(),
  lastTransitionTime: time().exactOptional(),
  reason: str().exactOptional(),
  message: str().exactOptional(),
}) satisfies z.ZodType<NodeCondition>;

/** core/v1 NodeAddress. */
export const nodeAddressSchema = objectOf<NodeAddress>()("NodeAddress", {
  type: str(),
  address: str(),
}) satisfies z.ZodType<NodeAddress>;

/** core/v1 NodeSystemInfo. */
export const nodeSystemInfoSchema = objectOf<NodeSystemInfo>()("NodeSystemInfo", {
  machineID: str(),
  systemUUID: str(),
  bootID: str(),
  kernelVersion: str(),
  osImage: str(),
  containerRuntimeVersion: str(),
  kubeletVersion: str(),
  kubeProxyVersion: str(),
  operatingSystem: str(),
  architecture: str(),
}) satisfies z.ZodType<NodeSystemInfo>;

type NodeDaemonEndpoints = Def<NodeStatus["daemonEndpoints"]>;
type DaemonEndpoint = Def<NodeDaemonEndpoints["kubeletEndpoint"]>;
type ContainerImage = Elem<Def<NodeStatus["images"]>>;

/** core/v1 NodeStatus. */
export const nodeStatusSchema = objectOf<NodeStatus>()("NodeStatus", {
  capacity: quantityMap().exactOptional(),
  allocatable: quantityMap().exactOptional(),
  conditions: listOf(nodeConditionSchema).exactOptional(),
  addresses: listOf(nodeAddressSchema).exactOptional(),
  daemonEndpoints: objectOf<NodeDaemonEndpoints>()("NodeDaemonEndpoints", {
    kubeletEndpoint: objectOf<DaemonEndpoint>()("DaemonEndpoint", { Port: int32() }).exactOptional(),
  }).exactOptional(),
  nodeInfo: nodeSystemInfoSchema.exactOptional(),
  images: listOf(
    objectOf<ContainerImage>()("ContainerImage", {
      names: stringList(),
      sizeBytes: int64().exactOptional(),
    }),
  ).exactOptional(),
}) satisfies z.ZodType<NodeStatus>;

/** core/v1 Node. */
export const nodeSchema = objectOf<Node>()("Node", {
  ...kindEnvelope(),
  spec: nodeSpecSchema.exactOptional(),
  status: nodeStatusSchema.exactOptional(),
}) satisfies z.ZodType<Node>;

/** core/v1 NodeList. */
export const nodeListSchema = kindListOf<NodeList>()("NodeList", nodeSchema) satisfies z.ZodType<NodeList>;

// --- events and namespaces ----------------------------------------------------------------

/** core/v1 EventSource. */
export const eventSourceSchema = objectOf<EventSource>()("EventSource", {
  component: str().exactOptional(),
  host: str().exactOptional(),
}) satisfies z.ZodType<EventSource>;

type EventSeries = Def<Event["series"]>;

/** core/v1 Event. */
export const eventSchema = objectOf<Event>()("Event", {
  ...typeMetaShape(),
  metadata: objectMetaSchema,
  involvedObject: objectReferenceSchema,
  reason: str().exactOptional(),
  message: str().exactOptional(),
  source: eventSourceSchema.exactOptional(),
  firstTimestamp: time().exactOptional(),
  lastTimestamp: time().exactOptional(),
  count: int32().exactOptional(),
  type: str().exactOptional(),
  eventTime: time().exactOptional(),
  series: objectOf<EventSeries>()("EventSeries", {
    count: int32().exactOptional(),
    lastObservedTime: time().exactOptional(),
  }).exactOptional(),
  action: str().exactOptional(),
  related: objectReferenceSchema.exactOptional(),
  reportingComponent: str().exactOptional(),
  reportingInstance: str().exactOptional(),
}) satisfies z.ZodType<Event>;

/** core/v1 EventList. */
export const eventListSchema = kindListOf<EventList>()("EventList", eventSchema) satisfies z.ZodType<EventList>;

/** core/v1 NamespaceSpec. */
export const namespaceSpecSchema = objectOf<NamespaceSpec>()("NamespaceSpec", {
  finalizers: stringList().exactOptional(),
}) satisfies z.ZodType<NamespaceSpec>;

type NamespaceCondition = Elem<Def<NamespaceStatus["conditions"]>>;

/** core/v1 NamespaceStatus. */
export const namespaceStatusSchema = objectOf<NamespaceStatus>()("NamespaceStatus", {
  phase: openEnum<Def<NamespaceStatus["phase"]>>().exactOptional(),
  conditions: listOf(
    objectOf<NamespaceCondition>()("NamespaceCondition", {
      type: str(),
      status: str(),
      lastTransitionTime: time().exactOptional(),
      reason: str().exactOptional(),
      message: str().exactOptional(),
    }),
  ).exactOptional(),
}) satisfies z.ZodType<NamespaceStatus>;

/** core/v1 Namespace. */
export const namespaceSchema = objectOf<Namespace>()("Namespace", {
  ...kindEnvelope(),
  spec: namespaceSpecSchema.exactOptional(),
  status: namespaceStatusSchema.exactOptional(),
}) satisfies z.ZodType<Namespace>;

/** core/v1 NamespaceList. */
export const namespaceListSchema = kindListOf<NamespaceList>()("NamespaceList", namespaceSchema) satisfies z.ZodType<NamespaceList>;
