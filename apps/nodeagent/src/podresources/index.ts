export type { ContainerMemory, PodResourcesProviders, PodResourcesServer, PodResourcesServerOptions, TopologyInfo } from "./server.js";
export { loadPodResourcesAPI, podResourcesSocketName, podResourcesSocketPath, startPodResourcesServer } from "./server.js";
export { podResourcesProviders } from "./providers.js";
