export type {
  APIObject,
  GarbageCollectionPolicy,
  ObjectAttrs,
  RequestContext,
  ResourceStrategy,
  StatusStrategy,
  SubresourceCreateHandler,
  SubresourceStoreAccess,
  TableConvertor,
  UserInfo,
} from "./registry/strategy.js";
export { GenericStore, deleteRequest, generateName, semanticEqual, specChanged } from "./registry/store.js";
export type { ListParams, StoreDeleteOptions, StoreDeleteResult, StoreUpdateOptions, StoreWriteOptions } from "./registry/store.js";
export { alwaysAllowAuthorizer, anonymousAuthenticator, wellKnownUsers } from "./auth/auth.js";
export type { AuthenticatedUser, AuthenticationRequest, Authenticator, AuthorizationAttributes, AuthorizationDecision, Authorizer, ClientCertificateInfo } from "./auth/auth.js";
export { AuthenticationError, bearerTokenAuthenticator, createAuthenticationChain, parseBearerToken, unionAuthenticators, x509Authenticator } from "./auth/authenticators.js";
export type { AuthenticationChainOptions } from "./auth/authenticators.js";
export { formatForbiddenMessage, isReadOnlyVerb, newForbiddenFromDecision, privilegedGroupsAuthorizer, unionAuthorizers } from "./auth/authorizers.js";
export { abacAuthorizer, abacPolicyAPIVersion, formatABACErrors, parseABACPolicies } from "./auth/abac.js";
export type { ABACPolicy, ABACPolicyLineError, ParseABACResult } from "./auth/abac.js";
export {
  appliesToUser,
  apiGroupMatches,
  formatAggregate,
  nonResourceURLMatches,
  rbacAuthorizer,
  resourceMatches,
  resourceNameMatches,
  roleReferenceRules,
  ruleAllows,
  rulesFor,
  serviceAccountUsername,
  verbMatches,
  visitRulesFor,
} from "./auth/rbac.js";
export type { RBACPolicySource, RuleSource, RuleVisitor } from "./auth/rbac.js";
export { reviewResources, reviewRoutes } from "./auth/reviews.js";
export type { NonResourceRuleInfo, ResourceRuleInfo, ReviewConfig, RulesResolver, RulesResult } from "./auth/reviews.js";
export {
  InFlightLimiter,
  applyServerTimeouts,
  defaultRequestLimits,
  getRequestUser,
  installRequestFilters,
  isLongRunningRequest,
  resolveWatchTimeoutSeconds,
  tooManyRequestsMessage,
} from "./filters/index.js";
export type { RequestFilterConfig, RequestLimits } from "./filters/index.js";
export { impersonateUser, impersonationHeaders, parseImpersonationHeaders } from "./filters/index.js";
export type { ImpersonationTarget, ParseImpersonationResult } from "./filters/index.js";
export { parseRequestInfo } from "./request/request-info.js";
export { convertQueryBool, convertQueryInt64, firstQueryValues, parseQueryValues } from "./request/query-params.js";
export type { QueryValues } from "./request/query-params.js";
export type { RequestInfo } from "./request/request-info.js";
export { bodyMediaTypes, decodeBody, findDuplicateJSONKeys, negotiateResponse, patchMediaTypes } from "./negotiation/negotiation.js";
export type { DecodedBody, NegotiatedResponse, ResponseForm } from "./negotiation/negotiation.js";
export { createAPIServer } from "./server/server.js";
export type { APIServer, APIServerConfig, NonResourceRoute } from "./server/server.js";
export { routeUpgradeRequests, upgradeConnectionOf } from "./server/upgrade.js";
export type { UpgradeConnection } from "./server/upgrade.js";
export { namespaceLifecycle } from "./handlers/admission.js";
export type { AdmissionAttributes, AdmissionPlugin } from "./handlers/admission.js";
export { formatWarning } from "./handlers/response.js";
export { trackUpdate } from "./handlers/apply.js";
export type { AggregatedDiscoveryVersion, DiscoveryResponse } from "./discovery/index.js";
export {
  buildAPIGroup,
  buildAPIGroupList,
  buildAPIResourceList,
  buildAPIVersions,
  buildAggregatedDiscovery,
  formatAggregatedContentType,
  negotiateDiscovery,
  parseAggregatedAccept,
} from "./discovery/index.js";
export type { HealthCheck, HealthResponse } from "./health/index.js";
export { handleHealth, logCheck, pingCheck } from "./health/index.js";
export type { OpenAPIDocument, OpenAPIResponse, OpenAPIV3Service } from "./openapi/index.js";
export { buildOpenAPIV3, handleOpenAPIV3 } from "./openapi/index.js";
export type { OpenAPIV2Response, OpenAPIV2Service, Swagger2Document } from "./openapi/index.js";
export { buildOpenAPIV2, convertOpenAPIV3ToV2, encodeOpenAPIV2Protobuf, handleOpenAPIV2, openAPIV2ProtobufContentType, openAPIV2ProtobufMediaType } from "./openapi/index.js";
export { ageColumn, defaultTableConvertor, formatLabelSelector, humanDuration, joinOrNone, nameColumn, translateTimestampSince } from "./table/index.js";
export type { IncludeObjectPolicy, RenderTableOptions } from "./table/index.js";
export { parseIncludeObject, renderTable } from "./table/index.js";
export type { WatchCacheOptions } from "./watch-cache/index.js";
export { WatchCache } from "./watch-cache/index.js";
