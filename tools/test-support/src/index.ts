export { adminToken, startAPIServer } from "./apiserver.js";
export type { RunningAPIServer, StartAPIServerOptions } from "./apiserver.js";
export { setUpContainerd, tearDownContainerd } from "./containerd.js";
export type { ContainerdSetup, SetUpContainerdOptions } from "./containerd.js";
export { writeKubeconfig } from "./kubeconfig.js";
export type { KubeconfigOptions } from "./kubeconfig.js";
export { waitFor } from "./wait-for.js";
export type { WaitForOptions } from "./wait-for.js";
export { freePort, freePortRange } from "./ports.js";
