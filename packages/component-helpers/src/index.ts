/**
 * `@skiff/component-helpers`: the scheduling helpers the scheduler and the node agent share, as
 * 1.23's `k8s.io/component-helpers/scheduling/corev1` (plus the host-port bookkeeping of the
 * scheduler framework, which the kubelet's admission reuses).
 */
export { findMatchingUntoleratedTaint, taintToleratedBy, toleratesTaint } from "./taints.js";
export { matchNodeSelectorRequirement, nodeSelectorMatches, nodeSelectorTermMatches, requiredNodeAffinityMatches } from "./node-affinity.js";
export { hostPortsConflict, hostPortsFit, podHostPorts } from "./host-ports.js";
export type { HostPort } from "./host-ports.js";
