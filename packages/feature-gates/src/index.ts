export type { FeatureGateErrorReason } from "./errors.js";
export { FeatureGateError, isFeatureGateError } from "./errors.js";
export type { FeatureSpec, PreRelease } from "./feature-gate.js";
export { FeatureGate } from "./feature-gate.js";
export type { NodeAgentFeature } from "./node-agent-features.js";
export { nodeAgentFeatureGates, nodeAgentFeatureSpecs } from "./node-agent-features.js";
export { setFeatureGateDuringTest } from "./testing.js";
