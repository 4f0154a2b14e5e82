export type { HintProvider, TopologyManagerPolicy } from "./topology-manager.js";
export { maxAllowableNUMANodes, mergeHints, TopologyManager, topologyAffinityError } from "./topology-manager.js";
