export type { AggregatedDiscoveryVersion, DiscoveryResponse } from "./discovery.js";
export {
  buildAPIGroup,
  buildAPIGroupList,
  buildAPIResourceList,
  buildAPIVersions,
  buildAggregatedDiscovery,
  formatAggregatedContentType,
  negotiateDiscovery,
  parseAggregatedAccept,
} from "./discovery.js";
