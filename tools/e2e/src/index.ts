/**
 * @skiff/e2e: the whole Skiff system as real processes, for end-to-end tests and benchmarks.
 */
export { ApiClient, ApiError, isApiStatus, runKubectl, waitFor } from "./api.js";
export type { ApiEndpoint, ApiObject, KubectlResult } from "./api.js";
export { freePort, repoRoot, setUpContainerd, startCluster } from "./cluster.js";
export type { Cluster, ClusterOptions, ClusterProcess, ContainerdSetup, NodeSpec } from "./cluster.js";
