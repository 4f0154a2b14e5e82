export { createPodRuntime } from "./pod-runtime.js";
export type { PodEventRecorder, PodRuntime, PodRuntimeFeatureGates, PodRuntimeLog, PodRuntimeOptions, PodStatusListener, PodVolumeHooks, RunOnceResult, RunOnceResultItem, RuntimeState } from "./types.js";
export { decodeManifest, maxManifestBytes } from "./static-pod.js";
export type { DecodeManifestResult, StaticPodOrigin } from "./static-pod.js";
export { isStaticPod } from "./pod-config.js";
export type { PodSourceName } from "./pod-config.js";
