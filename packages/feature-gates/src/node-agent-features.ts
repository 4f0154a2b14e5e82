import type { FeatureSpec } from "./feature-gate.js";
import { FeatureGate } from "./feature-gate.js";

/**
 * Every feature gate of the node agent: the gate table of the spec's Versioning section
 * (`spec/nodeagent-cli.md`), 100 gates, with the spec's stages and defaults. Alphabetised
 * (case-sensitive, upper before lower, as upstream); one line per gate naming its owner area and
 * its KEP, or the upstream file that defines it where the upstream file names no KEP.
 *
 * The spec wins over any Kubernetes release. Its table is, gate for gate, the `kubelet
 * --feature-gates` help of Kubernetes 1.24 (alpha and beta gates only; GA and deprecated gates
 * are not listed there and are not known here), so several stages differ from 1.23: e.g.
 * `JobReadyPods` is beta and on (1.23: alpha, off), `JobTrackingWithFinalizers` beta and off.
 *
 * Names are 1.23's except where the spec's naming note replaces the product word `Kubelet` with
 * `NodeAgent`: `NodeAgentCredentialProviders`, `NodeAgentPodResources`,
 * `NodeAgentPodResourcesGetAllocatable`, `NodeAgentInUserNamespace`,
 * `RotateNodeAgentServerCertificate`, `DisableNodeAgentCloudCredentialProviders`.
 *
 * The spec writes some names as placeholders; they map to 1.23 names (checked against 1.23's
 * `pkg/features/kube_features.go`) as follows:
 * - "the host-process-containers gate of the non-Linux platform" → `WindowsHostProcessContainers`
 *   (beta, on in 1.23 too).
 * - `InTreePlugin<backend>Unregister` "for each of eight storage backends" → the eight 1.23 gates
 *   `InTreePlugin{AWS,AzureDisk,AzureFile,GCE,OpenStack,Portworx,RBD,vSphere}Unregister`, all
 *   alpha/off in 1.23 as in the spec.
 * - `CSIMigration<backend>`: the spec's table is 1.24's kubelet help output, whose six non-GA
 *   backends are AWS, AzureFile, GCE, vSphere, Portworx and RBD. Chosen:
 *   - beta/on, backends 1-3: `CSIMigrationAWS`, `CSIMigrationAzureFile`, `CSIMigrationGCE`
 *     (beta/on in 1.24);
 *   - beta/off, "backend 4, block-device-over-network kind": `CSIMigrationRBD` (Ceph's RADOS
 *     Block Device; the spec's words name it, and the spec's stage wins over 1.24's alpha);
 *   - alpha, "two further backends": `CSIMigrationPortworx` and `CSIMigrationvSphere` (the slot
 *     RBD left).
 *   `CSIMigrationAzureDisk` and `CSIMigrationOpenStack` were GA in 1.24: they are known, locked to
 *   true, and (as GA gates are) left out of the help listing, so configurations that set them to
 *   true keep working.
 *
 * @see pkg/features/kube_features.go (v1.23.0 and v1.24.0) in kubernetes/kubernetes
 */
export const nodeAgentFeatureSpecs = {
  /** Owner: sig-api-machinery. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  APIListChunking: { default: true, preRelease: "beta" },
  /** Owner: sig-api-machinery. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  APIPriorityAndFairness: { default: true, preRelease: "beta" },
  /** Owner: sig-api-machinery. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  APIResponseCompression: { default: true, preRelease: "beta" },
  /** Owner: sig-api-machinery. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  APIServerIdentity: { default: false, preRelease: "alpha" },
  /** Owner: sig-instrumentation. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  APIServerTracing: { default: false, preRelease: "alpha" },
  /** Owner: sig-architecture (pseudo-gate of component-base). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/component-base/featuregate/feature_gate.go */
  AllAlpha: { default: false, preRelease: "alpha" },
  /** Owner: sig-architecture (pseudo-gate of component-base). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/component-base/featuregate/feature_gate.go */
  AllBeta: { default: false, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  AnyVolumeDataSource: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  AppArmor: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CPUManager: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CPUManagerPolicyAlphaOptions: { default: false, preRelease: "alpha" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CPUManagerPolicyBetaOptions: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CPUManagerPolicyOptions: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CSIInlineVolume: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CSIMigration: { default: true, preRelease: "beta" },
  /** Owner: sig-storage (spec backend 1). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CSIMigrationAWS: { default: true, preRelease: "beta" },
  /** Owner: sig-storage (GA in 1.24, locked). Source: https://github.com/kubernetes/kubernetes/blob/v1.24.0/pkg/features/kube_features.go */
  CSIMigrationAzureDisk: { default: true, preRelease: "ga", lockToDefault: true },
  /** Owner: sig-storage (spec backend 2). Source: https://github.com/kubernetes/kubernetes/blob/v1.24.0/pkg/features/kube_features.go */
  CSIMigrationAzureFile: { default: true, preRelease: "beta" },
  /** Owner: sig-storage (spec backend 3). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CSIMigrationGCE: { default: true, preRelease: "beta" },
  /** Owner: sig-storage (GA in 1.24, locked). Source: https://github.com/kubernetes/kubernetes/blob/v1.24.0/pkg/features/kube_features.go */
  CSIMigrationOpenStack: { default: true, preRelease: "ga", lockToDefault: true },
  /** Owner: sig-storage (spec further backend 1). KEP: https://kep.k8s.io/2589 */
  CSIMigrationPortworx: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage (spec backend 4, block-device-over-network). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CSIMigrationRBD: { default: false, preRelease: "beta" },
  /** Owner: sig-storage (spec further backend 2). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CSIMigrationvSphere: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CSIVolumeHealth: { default: false, preRelease: "alpha" },
  /** Owner: sig-instrumentation. KEP: https://kep.k8s.io/3077 */
  ContextualLogging: { default: false, preRelease: "alpha" },
  /** Owner: sig-apps. KEP: https://kep.k8s.io/3140 */
  CronJobTimeZone: { default: false, preRelease: "alpha" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  CustomCPUCFSQuotaPeriod: { default: false, preRelease: "alpha" },
  /** Owner: sig-api-machinery. KEP: https://kep.k8s.io/2876 */
  CustomResourceValidationExpressions: { default: false, preRelease: "alpha" },
  /** Owner: sig-apps. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  DaemonSetUpdateSurge: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  DelegateFSGroupToCSIDriver: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  DevicePlugins: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  DisableAcceleratorUsageMetrics: { default: true, preRelease: "beta" },
  /** Owner: sig-cloud-provider. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  DisableCloudProviders: { default: false, preRelease: "alpha" },
  /** Owner: sig-cloud-provider (upstream DisableKubeletCloudCredentialProviders). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  DisableNodeAgentCloudCredentialProviders: { default: false, preRelease: "alpha" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  DownwardAPIHugePages: { default: true, preRelease: "beta" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/1672 */
  EndpointSliceTerminatingCondition: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  EphemeralContainers: { default: true, preRelease: "beta" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/2595 */
  ExpandedDNSConfig: { default: false, preRelease: "alpha" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  ExperimentalHostUserNamespaceDefaulting: { default: false, preRelease: "beta" },
  /** Owner: sig-node. KEP: https://kep.k8s.io/2727 */
  GRPCContainerProbe: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  GracefulNodeShutdown: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  GracefulNodeShutdownBasedOnPodPriority: { default: true, preRelease: "beta" },
  /** Owner: sig-autoscaling. KEP: https://kep.k8s.io/1610 */
  HPAContainerMetrics: { default: false, preRelease: "alpha" },
  /** Owner: sig-autoscaling. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  HPAScaleToZero: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. KEP: https://kep.k8s.io/2644 */
  HonorPVReclaimPolicy: { default: false, preRelease: "alpha" },
  /** Owner: sig-windows. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  IdentifyPodOS: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginAWSUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginAzureDiskUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginAzureFileUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginGCEUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginOpenStackUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginPortworxUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginRBDUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  InTreePluginvSphereUnregister: { default: false, preRelease: "alpha" },
  /** Owner: sig-apps. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  JobMutableNodeSchedulingDirectives: { default: true, preRelease: "beta" },
  /** Owner: sig-apps (spec: beta and on; 1.23: alpha and off). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  JobReadyPods: { default: true, preRelease: "beta" },
  /** Owner: sig-apps (spec: beta, off). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  JobTrackingWithFinalizers: { default: false, preRelease: "beta" },
  /** Owner: sig-auth. KEP: https://kep.k8s.io/2800 */
  LegacyServiceAccountTokenNoAutoGeneration: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  LocalStorageCapacityIsolation: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  LocalStorageCapacityIsolationFSQuotaMonitoring: { default: false, preRelease: "alpha" },
  /** Owner: sig-apps. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  LogarithmicScaleDown: { default: true, preRelease: "beta" },
  /** Owner: sig-apps (new in 1.24). Source: https://github.com/kubernetes/kubernetes/blob/v1.24.0/pkg/features/kube_features.go */
  MaxUnavailableStatefulSet: { default: false, preRelease: "alpha" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  MemoryManager: { default: true, preRelease: "beta" },
  /** Owner: sig-node. KEP: https://kep.k8s.io/2570 */
  MemoryQoS: { default: false, preRelease: "alpha" },
  /** Owner: sig-scheduling. KEP: https://kep.k8s.io/3022 */
  MinDomainsInPodTopologySpread: { default: false, preRelease: "alpha" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/1435 */
  MixedProtocolLBService: { default: true, preRelease: "beta" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/2079 */
  NetworkPolicyEndPort: { default: true, preRelease: "beta" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/2943 */
  NetworkPolicyStatus: { default: false, preRelease: "alpha" },
  /** Owner: sig-node (upstream KubeletCredentialProviders). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  NodeAgentCredentialProviders: { default: true, preRelease: "beta" },
  /** Owner: sig-node (upstream KubeletInUserNamespace). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  NodeAgentInUserNamespace: { default: false, preRelease: "alpha" },
  /** Owner: sig-node (upstream KubeletPodResources). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  NodeAgentPodResources: { default: true, preRelease: "beta" },
  /** Owner: sig-node (upstream KubeletPodResourcesGetAllocatable). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  NodeAgentPodResourcesGetAllocatable: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. KEP: https://kep.k8s.io/2268 */
  NodeOutOfServiceVolumeDetach: { default: false, preRelease: "alpha" },
  /** Owner: sig-node. KEP: https://kep.k8s.io/2400 */
  NodeSwap: { default: false, preRelease: "alpha" },
  /** Owner: sig-api-machinery. KEP: https://kep.k8s.io/2887 */
  OpenAPIEnums: { default: true, preRelease: "beta" },
  /** Owner: sig-api-machinery. KEP: https://kep.k8s.io/2896 */
  OpenAPIV3: { default: true, preRelease: "beta" },
  /** Owner: sig-node. KEP: https://kep.k8s.io/2364 */
  PodAndContainerStatsFromCRI: { default: false, preRelease: "alpha" },
  /** Owner: sig-apps. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  PodDeletionCost: { default: true, preRelease: "beta" },
  /** Owner: sig-auth. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  PodSecurity: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  ProbeTerminationGracePeriod: { default: false, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  ProcMountType: { default: false, preRelease: "alpha" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/1669 */
  ProxyTerminatingEndpoints: { default: false, preRelease: "alpha" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  QOSReserved: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  ReadWriteOncePod: { default: false, preRelease: "alpha" },
  /** Owner: sig-storage. KEP: https://kep.k8s.io/1790 */
  RecoverVolumeExpansionFailure: { default: false, preRelease: "alpha" },
  /** Owner: sig-api-machinery. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  RemainingItemCount: { default: true, preRelease: "beta" },
  /** Owner: sig-auth (upstream RotateKubeletServerCertificate). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  RotateNodeAgentServerCertificate: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  SeccompDefault: { default: false, preRelease: "alpha" },
  /** Owner: sig-api-machinery. KEP: https://kep.k8s.io/2885 */
  ServerSideFieldValidation: { default: false, preRelease: "alpha" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/3070 */
  ServiceIPStaticSubrange: { default: false, preRelease: "alpha" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/2086 */
  ServiceInternalTrafficPolicy: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  SizeMemoryBackedVolumes: { default: true, preRelease: "beta" },
  /** Owner: sig-apps. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  StatefulSetAutoDeletePVC: { default: false, preRelease: "alpha" },
  /** Owner: sig-apps. KEP: https://kep.k8s.io/2607 */
  StatefulSetMinReadySeconds: { default: true, preRelease: "beta" },
  /** Owner: sig-api-machinery. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  StorageVersionAPI: { default: false, preRelease: "alpha" },
  /** Owner: sig-api-machinery. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/staging/src/k8s.io/apiserver/pkg/features/kube_features.go */
  StorageVersionHash: { default: true, preRelease: "beta" },
  /** Owner: sig-network. KEP: https://kep.k8s.io/2433 */
  TopologyAwareHints: { default: true, preRelease: "beta" },
  /** Owner: sig-node. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  TopologyManager: { default: true, preRelease: "beta" },
  /** Owner: sig-storage. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  VolumeCapacityPriority: { default: false, preRelease: "alpha" },
  /** Owner: sig-windows. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  WinDSR: { default: false, preRelease: "alpha" },
  /** Owner: sig-windows. Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  WinOverlay: { default: true, preRelease: "beta" },
  /** Owner: sig-windows (the spec's host-process-containers gate of the non-Linux platform). Source: https://github.com/kubernetes/kubernetes/blob/v1.23.0/pkg/features/kube_features.go */
  WindowsHostProcessContainers: { default: true, preRelease: "beta" },
} as const satisfies Readonly<Record<string, FeatureSpec>>;

/** Name of a node-agent feature gate (a key of {@link nodeAgentFeatureSpecs}). */
export type NodeAgentFeature = keyof typeof nodeAgentFeatureSpecs;

/**
 * A new {@link FeatureGate} named `nodeagent` that knows every gate of
 * {@link nodeAgentFeatureSpecs}, nothing set. Only an app's `main.ts` should build one (STYLE.md
 * §8) and inject it; apply `--feature-gates` with `set` and the config file's `featureGates` with
 * `setFromMap`.
 *
 * @example
 * ```ts
 * const gates = nodeAgentFeatureGates();
 * gates.setFromMap(config.featureGates ?? {});
 * gates.set(flags.featureGates); // flags win over the file
 * if (gates.enabled("JobReadyPods")) { ... }
 * ```
 */
export function nodeAgentFeatureGates(): FeatureGate<NodeAgentFeature> {
  const gates = new FeatureGate<NodeAgentFeature>("nodeagent");
  gates.add(nodeAgentFeatureSpecs);
  return gates;
}
