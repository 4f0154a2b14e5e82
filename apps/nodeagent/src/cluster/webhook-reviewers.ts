/**
 * The main port's webhook authenticator and authorizer in API-server mode: TokenReview and
 * SubjectAccessReview posted to the apiserver through the agent's client.
 *
 * @see staging/src/k8s.io/apiserver/pkg/authentication/authenticatorfactory/delegating.go (WebhookTokenAuthenticator) in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/delegating.go
 */
import type { ResourceInfo } from "@skiff/api-types";
import type { Client, KubeObject } from "@skiff/client";
import type { AccessReviewer, SubjectAccessReviewSpec, SubjectAccessReviewStatus, TokenReviewer, TokenReviewSpec, TokenReviewStatus } from "../server/index.js";

function reviewResource(group: string, kind: string, plural: string): ResourceInfo {
  return Object.freeze({
    group,
    version: "v1",
    kind,
    listKind: `${kind}List`,
    plural,
    singular: "",
    namespaced: false,
    shortNames: Object.freeze([]),
    categories: Object.freeze([]),
    subresources: Object.freeze([]),
    verbs: Object.freeze(["create"] as const),
  });
}

/** `authentication.k8s.io/v1` tokenreviews (not in the api-types resource table: create-only, never stored). */
export const tokenReviewResource: ResourceInfo = reviewResource("authentication.k8s.io", "TokenReview", "tokenreviews");
/** `authorization.k8s.io/v1` subjectaccessreviews. */
export const subjectAccessReviewResource: ResourceInfo = reviewResource("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews");

interface Review<Spec, Status> extends KubeObject {
  spec: Spec;
  status?: Status;
}

/**
 * A {@link TokenReviewer} that POSTs `authentication.k8s.io/v1` TokenReview and returns its
 * `status`. API and network errors reject (the server answers 401 and caches nothing).
 * @example
 * const reviewer = createTokenReviewer(client);
 * const status = await reviewer({ token: "abc" }); // { authenticated: true, user: {...} }
 */
export function createTokenReviewer(client: Client): TokenReviewer {
  const rc = client.resource<Review<TokenReviewSpec, TokenReviewStatus>>(tokenReviewResource);
  return async (spec) => {
    const out = await rc.create({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", metadata: {}, spec: { token: spec.token, ...(spec.audiences ? { audiences: [...spec.audiences] } : {}) } });
    return out.status ?? {};
  };
}

/**
 * An {@link AccessReviewer} that POSTs `authorization.k8s.io/v1` SubjectAccessReview and returns
 * its `status` (`allowed: false` when the answer has none). Errors reject (answered 500).
 */
export function createAccessReviewer(client: Client): AccessReviewer {
  const rc = client.resource<Review<SubjectAccessReviewSpec, SubjectAccessReviewStatus>>(subjectAccessReviewResource);
  return async (spec) => {
    const out = await rc.create({ apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", metadata: {}, spec });
    return out.status ?? { allowed: false };
  };
}
