// authentication.k8s.io/v1 and authorization.k8s.io/v1: the review kinds real clients post verbatim.
import { AUTHN, AUTHZ, arrayOf, bool, gvk, kindSchema, link, object, str, strList, strListMap } from "./dsl.mjs";

export const authSchemas = {
  [`${AUTHN}TokenReview`]: kindSchema({
    gvks: gvk("authentication.k8s.io", "v1", "TokenReview"),
    description: "Asks the server to authenticate a bearer token. Not stored.",
    properties: {
      spec: link(`${AUTHN}TokenReviewSpec`, "The token to review."),
      status: link(`${AUTHN}TokenReviewStatus`, "The result, filled in by the server."),
    },
    required: ["spec"],
  }),
  [`${AUTHN}TokenReviewSpec`]: object("The token to review.", {
    token: str("The opaque bearer token."),
    audiences: strList("Audiences the token must be valid for; the API server's audiences when empty."),
  }),
  [`${AUTHN}TokenReviewStatus`]: object("Result of a token review.", {
    authenticated: bool("Whether the token is valid."),
    user: link(`${AUTHN}UserInfo`, "The user the token belongs to."),
    audiences: strList("Audiences the token is valid for, among those requested."),
    error: str("Why the review could not be completed, if it could not."),
  }),
  [`${AUTHN}UserInfo`]: object("An authenticated user.", {
    username: str("Name that uniquely identifies the user among all active users."),
    uid: str("Identifier of the user that is unique across time."),
    groups: strList("Groups the user belongs to."),
    extra: strListMap("Extra information provided by the authenticator."),
  }),
  [`${AUTHN}SelfSubjectReview`]: kindSchema({
    gvks: gvk("authentication.k8s.io", "v1", "SelfSubjectReview"),
    description: "Returns the user the request was authenticated as (`kubectl auth whoami`). Not stored.",
    properties: { status: link(`${AUTHN}SelfSubjectReviewStatus`, "The result, filled in by the server.") },
  }),
  [`${AUTHN}SelfSubjectReviewStatus`]: object("Result of a self-subject review.", {
    userInfo: link(`${AUTHN}UserInfo`, "The user of the request."),
  }),

  [`${AUTHZ}SubjectAccessReview`]: kindSchema({
    gvks: gvk("authorization.k8s.io", "v1", "SubjectAccessReview"),
    description: "Asks whether a user or group may perform an action. Not stored.",
    properties: {
      spec: link(`${AUTHZ}SubjectAccessReviewSpec`, "The request to evaluate."),
      status: link(`${AUTHZ}SubjectAccessReviewStatus`, "The decision, filled in by the server."),
    },
    required: ["spec"],
  }),
  [`${AUTHZ}SubjectAccessReviewSpec`]: object(
    "The request to authorize: exactly one of resourceAttributes and nonResourceAttributes, and a user or groups.",
    {
      resourceAttributes: link(`${AUTHZ}ResourceAttributes`, "The request, when it is about a resource."),
      nonResourceAttributes: link(`${AUTHZ}NonResourceAttributes`, "The request, when it is about a non-resource path."),
      user: str("The user to evaluate."),
      groups: strList("The groups to evaluate."),
      extra: strListMap("Extra information of the user from the authenticator."),
      uid: str("UID of the user."),
    },
  ),
  [`${AUTHZ}SubjectAccessReviewStatus`]: object(
    "An authorization decision.",
    {
      allowed: bool("Whether the action is allowed."),
      denied: bool("Whether the action is explicitly denied; false when no authorizer had an opinion."),
      reason: str("Why the action is allowed or denied."),
      evaluationError: str("Errors met during evaluation, if any; the decision may still be meaningful."),
    },
    { required: ["allowed"] },
  ),
  [`${AUTHZ}SelfSubjectAccessReview`]: kindSchema({
    gvks: gvk("authorization.k8s.io", "v1", "SelfSubjectAccessReview"),
    description: "Asks whether the requesting user may perform an action (`kubectl auth can-i`). Not stored.",
    properties: {
      spec: link(`${AUTHZ}SelfSubjectAccessReviewSpec`, "The request to evaluate."),
      status: link(`${AUTHZ}SubjectAccessReviewStatus`, "The decision, filled in by the server."),
    },
    required: ["spec"],
  }),
  [`${AUTHZ}SelfSubjectAccessReviewSpec`]: object("The action to authorize for the requesting user: exactly one of resourceAttributes and nonResourceAttributes.", {
    resourceAttributes: link(`${AUTHZ}ResourceAttributes`, "The request, when it is about a resource."),
    nonResourceAttributes: link(`${AUTHZ}NonResourceAttributes`, "The request, when it is about a non-resource path."),
  }),
  [`${AUTHZ}LocalSubjectAccessReview`]: kindSchema({
    gvks: gvk("authorization.k8s.io", "v1", "LocalSubjectAccessReview"),
    description: "Asks whether a user or group may perform an action in the namespace of the request (spec.resourceAttributes.namespace must match it). Not stored.",
    properties: {
      spec: link(`${AUTHZ}SubjectAccessReviewSpec`, "The request to evaluate."),
      status: link(`${AUTHZ}SubjectAccessReviewStatus`, "The decision, filled in by the server."),
    },
    required: ["spec"],
  }),
  [`${AUTHZ}SelfSubjectRulesReview`]: kindSchema({
    gvks: gvk("authorization.k8s.io", "v1", "SelfSubjectRulesReview"),
    description: "Lists the actions the requesting user may perform in a namespace (`kubectl auth can-i --list`). Not stored.",
    properties: {
      spec: link(`${AUTHZ}SelfSubjectRulesReviewSpec`, "The namespace to list the rules of."),
      status: link(`${AUTHZ}SubjectRulesReviewStatus`, "The rules, filled in by the server."),
    },
    required: ["spec"],
  }),
  [`${AUTHZ}SelfSubjectRulesReviewSpec`]: object("The namespace of a rules review.", {
    namespace: str("Namespace to evaluate rules for. Required."),
  }),
  [`${AUTHZ}SubjectRulesReviewStatus`]: object(
    "The rules a user holds in a namespace; may be incomplete depending on the authorizers.",
    {
      resourceRules: arrayOf(`${AUTHZ}ResourceRule`, "The rules on resources; their order is not significant."),
      nonResourceRules: arrayOf(`${AUTHZ}NonResourceRule`, "The rules on non-resource URLs; their order is not significant."),
      incomplete: bool("Whether the list is incomplete (an authorizer cannot enumerate its rules)."),
      evaluationError: str("Errors met while evaluating the rules; the rules may still be meaningful."),
    },
    { required: ["resourceRules", "nonResourceRules", "incomplete"] },
  ),
  [`${AUTHZ}ResourceRule`]: object(
    "An action on resources the user may perform.",
    {
      verbs: strList("Verbs, such as get, list, watch; `*` for all."),
      apiGroups: strList("API groups of the resources; `*` for all."),
      resources: strList("Resources; `*` for all, `*/subresource` for a subresource of all."),
      resourceNames: strList("Names the rule is restricted to; empty for all."),
    },
    { required: ["verbs"] },
  ),
  [`${AUTHZ}NonResourceRule`]: object(
    "An action on non-resource URLs the user may perform.",
    {
      verbs: strList("Verbs in lowercase, such as get; `*` for all."),
      nonResourceURLs: strList("URL paths; a trailing `*` matches any suffix."),
    },
    { required: ["verbs"] },
  ),
  [`${AUTHZ}ResourceAttributes`]: object("Attributes of a resource request.", {
    namespace: str("Namespace of the action; empty for cluster-scoped resources or all namespaces."),
    verb: str("Verb, such as get, list, watch, create, update, patch, delete, or `*`."),
    group: str("API group of the resource; `*` for all."),
    version: str("API version of the resource; `*` for all."),
    resource: str("Resource, such as jobs; `*` for all."),
    subresource: str("Subresource, such as status; empty for none."),
    name: str("Name of the object; empty for all."),
  }),
  [`${AUTHZ}NonResourceAttributes`]: object("Attributes of a non-resource request.", {
    path: str("URL path, such as /healthz."),
    verb: str("HTTP verb in lowercase, such as get."),
  }),
};
