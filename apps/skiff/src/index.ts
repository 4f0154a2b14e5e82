/**
 * What `skiff` shares with the workspace's `pnpm start` (tools/local-cluster): the local cluster
 * itself. The binary is `src/main.ts`.
 */
export { LocalClusterError, findOnPath, resolveProcessIsolation, shownPath, startLocalCluster } from "./cluster/local-cluster.js";
export type { ComponentName, ContainerdSetup, LocalCluster, LocalClusterOptions, ProcessIsolation } from "./cluster/local-cluster.js";
export { nodeAgentArgs, nodeAgentConfigText, nodeAgentPodLogsDir, writeNodeAgentConfig } from "./cluster/nodeagent-config.js";
export type { NodeAgentArgsOptions } from "./cluster/nodeagent-config.js";
