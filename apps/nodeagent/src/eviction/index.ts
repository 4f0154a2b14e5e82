/**
 * The node agent's eviction manager (the kubelet's `pkg/kubelet/eviction`): thresholds, signal
 * observations, node pressure conditions, pod ranking and eviction, admission under pressure.
 */
export { EvictionManager, evictionMonitoringPeriodMs, immediateEvictionGracePeriodSeconds } from "./eviction-manager.js";
export type { EvictionManagerOptions, NodeReclaimFunc } from "./eviction-manager.js";
export {
  buildSignalToRankFunc,
  evictionMessage,
  evictionReason,
  makeSignalObservations,
  nodeConditionMessage,
  parseThresholdConfig,
  rankMemoryPressure,
  ThresholdConfigError,
  thresholdsMet,
} from "./helpers.js";
export type { EvictionSignal, PodStatsFunc, PressureCondition, SignalObservation, SignalObservations, StarvedResource, Threshold, ThresholdSettings, ThresholdValue } from "./helpers.js";
