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
export type { ImpersonationTarget, ParseImpersonationResult } from "./impersonation.js";
export { impersonateUser, impersonationHeaders, parseImpersonationHeaders } from "./impersonation.js";
