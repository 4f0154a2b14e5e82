/**
 * API-server mode of the node agent: node registration and status, the `api` pod source, pod
 * status sync, graceful deletion, mirror pods, events and the webhook reviewers of the main port.
 */
export { ClusterMode, ClusterModeError, connectCluster, heartbeatTimeoutMs, initialNodeFor } from "./cluster-mode.js";
export type { ClusterClients, ClusterModeParams } from "./cluster-mode.js";
export { createAccessReviewer, createTokenReviewer, subjectAccessReviewResource, tokenReviewResource } from "./webhook-reviewers.js";
export { computeNodeResources, readMachineResources } from "./node-resources.js";
export type { MachineResources, NodeResources, NodeResourceSettings } from "./node-resources.js";
export {
  buildInitialNode,
  buildNodeAddresses,
  buildNodeStatus,
  CloudProviderUninitializedTaintKey,
  ControllerManagedAttachDetachAnnotation,
  defaultNodeLabelKeys,
  goArch,
  KeepTerminatedPodVolumesAnnotation,
  nodeReadyReasons,
  reconcileExistingNode,
} from "./node-object.js";
export type { InitialNodeParams, NodeConditionTransition, NodePressure, NodeStatusInputs } from "./node-object.js";
export { NodeStatusManager, registrationBackoff } from "./node-status-manager.js";
export type { ClusterLog, NodeStatusManagerOptions } from "./node-status-manager.js";
export { formatMicroTime, NodeLeaseController, nodeLeaseBackoff, nodeLeaseMaxUpdateRetries, nodeLeaseRenewIntervalFraction } from "./node-lease.js";
export type { NodeLeaseControllerOptions } from "./node-lease.js";
export { ApiPodSource, isMirrorPod } from "./api-pod-source.js";
export type { ApiPodSourceOptions } from "./api-pod-source.js";
export { agentOwnedPodConditions, mergePodStatus, PodStatusSync } from "./pod-status-sync.js";
export type { PodStatusSyncOptions } from "./pod-status-sync.js";
export { buildMirrorPod, MirrorPodManager, planMirrorPods } from "./mirror-pods.js";
export type { MirrorPodManagerOptions, MirrorPodPlan, NodeOwner } from "./mirror-pods.js";
export { createEventRecorder, nodeReference } from "./event-recorder.js";
export type { EventRecorderFunc } from "./event-recorder.js";
