/**
 * Loose structural views of the core/v1 objects this folder reads and defaults. The public API takes
 * the generated `@skiff/api-types` types; internally every object is read through these views (all
 * fields optional, read defensively with the helpers of `../meta/internal/values.ts`), so a field
 * missing from the generated schema or a malformed value never makes a validator throw.
 * Not part of the public API.
 */
import { isRecord } from "../meta/internal/values.js";

/** Objects of a list, with non-objects replaced by `{}`. */
export function items<T>(v: unknown): T[] {
  return Array.isArray(v) ? v.map((x) => (isRecord(x) ? x : {}) as T) : [];
}

/** The value as a view object, or `{}`. */
export function view<T>(v: unknown): T {
  return (isRecord(v) ? v : {}) as T;
}

/** Quantities arrive as strings or numbers. */
export type QuantityLike = string | number;
export type ResourceListView = Record<string, QuantityLike>;

export interface MetaView {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string | null;
  creationTimestamp?: string | null;
  [k: string]: unknown;
}

export interface KeyToPathView {
  key?: string;
  path?: string;
  mode?: number;
}

export interface ObjectFieldSelectorView {
  apiVersion?: string;
  fieldPath?: string;
}

export interface ResourceFieldSelectorView {
  containerName?: string;
  resource?: string;
  divisor?: QuantityLike;
}

export interface DownwardAPIFileView {
  path?: string;
  fieldRef?: ObjectFieldSelectorView;
  resourceFieldRef?: ResourceFieldSelectorView;
  mode?: number;
}

export interface ProjectionView {
  secret?: { name?: string; items?: KeyToPathView[]; optional?: boolean };
  configMap?: { name?: string; items?: KeyToPathView[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIFileView[] };
  serviceAccountToken?: { audience?: string; expirationSeconds?: number; path?: string };
}

export interface PVCSpecView {
  accessModes?: string[];
  selector?: unknown;
  resources?: { requests?: ResourceListView; limits?: ResourceListView };
  storageClassName?: string;
  volumeMode?: string;
  dataSource?: { apiGroup?: string; kind?: string; name?: string };
  dataSourceRef?: { apiGroup?: string; kind?: string; name?: string };
  volumeName?: string;
}

export interface VolumeView {
  name?: string;
  emptyDir?: { medium?: string; sizeLimit?: QuantityLike };
  hostPath?: { path?: string; type?: string };
  secret?: { secretName?: string; items?: KeyToPathView[]; defaultMode?: number; optional?: boolean };
  configMap?: { name?: string; items?: KeyToPathView[]; defaultMode?: number; optional?: boolean };
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean };
  downwardAPI?: { items?: DownwardAPIFileView[]; defaultMode?: number };
  projected?: { sources?: ProjectionView[]; defaultMode?: number };
  csi?: {
    driver?: string;
    readOnly?: boolean;
    fsType?: string;
    volumeAttributes?: Record<string, string>;
    nodePublishSecretRef?: { name?: string };
  };
  ephemeral?: { volumeClaimTemplate?: { metadata?: MetaView; spec?: PVCSpecView } | null };
  nfs?: { server?: string; path?: string };
  iscsi?: { targetPortal?: string; iqn?: string; lun?: number; iscsiInterface?: string; initiatorName?: string };
  rbd?: { monitors?: string[]; image?: string; pool?: string; user?: string; keyring?: string };
  azureDisk?: { cachingMode?: string; kind?: string; fsType?: string; readOnly?: boolean };
  scaleIO?: { storageMode?: string; fsType?: string };
  [k: string]: unknown;
}

export interface HTTPGetView {
  path?: string;
  port?: number | string;
  host?: string;
  scheme?: string;
  httpHeaders?: { name?: string; value?: string }[];
}

export interface HandlerView {
  exec?: { command?: string[] };
  httpGet?: HTTPGetView;
  tcpSocket?: { port?: number | string; host?: string };
  grpc?: { port?: number; service?: string };
}

export interface ProbeView extends HandlerView {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface ContainerPortView {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  protocol?: string;
  hostIP?: string;
}

export interface EnvVarView {
  name?: string;
  value?: string;
  valueFrom?: {
    fieldRef?: ObjectFieldSelectorView;
    resourceFieldRef?: ResourceFieldSelectorView;
    configMapKeyRef?: { name?: string; key?: string; optional?: boolean };
    secretKeyRef?: { name?: string; key?: string; optional?: boolean };
  };
}

export interface EnvFromView {
  prefix?: string;
  configMapRef?: { name?: string };
  secretRef?: { name?: string };
}

export interface VolumeMountView {
  name?: string;
  mountPath?: string;
  subPath?: string;
  subPathExpr?: string;
  readOnly?: boolean;
  mountPropagation?: string;
}

export interface SeccompProfileView {
  type?: string;
  localhostProfile?: string;
}

export interface SecurityContextView {
  privileged?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  procMount?: string;
  seccompProfile?: SeccompProfileView;
  seLinuxOptions?: unknown;
  readOnlyRootFilesystem?: boolean;
  windowsOptions?: WindowsOptionsView;
}

export interface WindowsOptionsView {
  gmsaCredentialSpecName?: string;
  gmsaCredentialSpec?: string;
  runAsUserName?: string;
  hostProcess?: boolean;
}

export interface ContainerView {
  name?: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPortView[];
  env?: EnvVarView[];
  envFrom?: EnvFromView[];
  resources?: { limits?: ResourceListView; requests?: ResourceListView };
  volumeMounts?: VolumeMountView[];
  volumeDevices?: { name?: string; devicePath?: string }[];
  livenessProbe?: ProbeView;
  readinessProbe?: ProbeView;
  startupProbe?: ProbeView;
  lifecycle?: { postStart?: HandlerView; preStop?: HandlerView };
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  securityContext?: SecurityContextView;
  [k: string]: unknown;
}

export interface TolerationView {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

export interface NodeSelectorRequirementView {
  key?: string;
  operator?: string;
  values?: string[];
}

export interface NodeSelectorTermView {
  matchExpressions?: NodeSelectorRequirementView[];
  matchFields?: NodeSelectorRequirementView[];
}

export interface PodAffinityTermView {
  labelSelector?: unknown;
  namespaceSelector?: unknown;
  namespaces?: string[];
  topologyKey?: string;
}

export interface PodAffinityView {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTermView[];
  preferredDuringSchedulingIgnoredDuringExecution?: { weight?: number; podAffinityTerm?: PodAffinityTermView }[];
}

export interface AffinityView {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTermView[] };
    preferredDuringSchedulingIgnoredDuringExecution?: { weight?: number; preference?: NodeSelectorTermView }[];
  };
  podAffinity?: PodAffinityView;
  podAntiAffinity?: PodAffinityView;
}

export interface PodSecurityContextView {
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  supplementalGroups?: number[];
  sysctls?: { name?: string; value?: string }[];
  fsGroupChangePolicy?: string;
  seccompProfile?: SeccompProfileView;
  seLinuxOptions?: unknown;
  windowsOptions?: WindowsOptionsView;
}

export interface PodSpecView {
  volumes?: VolumeView[];
  initContainers?: ContainerView[];
  containers?: ContainerView[];
  ephemeralContainers?: ContainerView[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number | null;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContextView;
  imagePullSecrets?: { name?: string }[];
  hostname?: string;
  subdomain?: string;
  affinity?: AffinityView;
  schedulerName?: string;
  tolerations?: TolerationView[];
  hostAliases?: { ip?: string; hostnames?: string[] }[];
  priorityClassName?: string;
  priority?: number;
  dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name?: string; value?: string }[] };
  readinessGates?: { conditionType?: string }[];
  runtimeClassName?: string;
  enableServiceLinks?: boolean;
  preemptionPolicy?: string;
  overhead?: ResourceListView;
  os?: { name?: string };
  topologySpreadConstraints?: {
    maxSkew?: number;
    topologyKey?: string;
    whenUnsatisfiable?: string;
    labelSelector?: unknown;
  }[];
  [k: string]: unknown;
}

export interface ContainerStatusView {
  name?: string;
  state?: { waiting?: unknown; running?: unknown; terminated?: { exitCode?: number } | null };
}

export interface PodStatusView {
  phase?: string;
  conditions?: { type?: string }[];
  nominatedNodeName?: string;
  podIP?: string;
  podIPs?: { ip?: string }[];
  containerStatuses?: ContainerStatusView[];
  initContainerStatuses?: ContainerStatusView[];
}

export interface PodView {
  metadata?: MetaView;
  spec?: PodSpecView;
  status?: PodStatusView;
}

export interface PodTemplateSpecView {
  metadata?: MetaView;
  spec?: PodSpecView;
}

export interface TaintView {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string;
}

export interface NodeView {
  metadata?: MetaView;
  spec?: {
    podCIDR?: string;
    podCIDRs?: string[];
    providerID?: string;
    unschedulable?: boolean;
    taints?: TaintView[];
    externalID?: string;
    [k: string]: unknown;
  };
  status?: {
    capacity?: ResourceListView;
    allocatable?: ResourceListView;
    addresses?: { type?: string; address?: string }[];
    [k: string]: unknown;
  };
}

export interface NamespaceView {
  metadata?: MetaView;
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

export interface EventView {
  metadata?: MetaView;
  involvedObject?: { namespace?: string; [k: string]: unknown };
  reason?: string;
  message?: string;
  eventTime?: string | null;
  reportingComponent?: string;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  [k: string]: unknown;
}
