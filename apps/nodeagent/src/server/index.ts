/**
 * The node agent's HTTP servers: healthz, read-only and the authenticated main HTTPS port.
 * Consumes an `AgentView`; `app.ts` wires the options and the TokenReview/SubjectAccessReview calls.
 */
export { startServers } from "./start-servers.js";
export { ServerStartError } from "./server-options.js";
export { prometheusTextContentType } from "./stats-routes.js";
export type { StatsEndpoints } from "./stats-routes.js";
export type {
  AccessReviewer,
  AuthorizationOptions,
  ResourceAttributes,
  RunningServers,
  ServerAddresses,
  ServerLogger,
  ServerOptions,
  SubjectAccessReviewSpec,
  SubjectAccessReviewStatus,
  TLSVersionName,
  TokenReviewer,
  TokenReviewSpec,
  TokenReviewStatus,
  TokenWebhookOptions,
  UserInfo,
} from "./server-options.js";
