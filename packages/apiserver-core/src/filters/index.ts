export type { RequestFilterConfig, RequestLimits } from "./filters.js";
export {
  InFlightLimiter,
  applyServerTimeouts,
  defaultRequestLimits,
  getRequestUser,
  installRequestFilters,
  isLongRunningRequest,
  resolveWatchTimeoutSeconds,
  tooManyRequestsMessage,
} from "./filters.js";
