/**
 * The review APIs: `authentication.k8s.io` SelfSubjectReview (v1, v1beta1, v1alpha1: what
 * `kubectl auth whoami` posts) and TokenReview (v1), `authorization.k8s.io` SubjectAccessReview
 * and SelfSubjectAccessReview (v1: `kubectl auth can-i`, node agents' webhook authorization),
 * LocalSubjectAccessReview (namespaced) and SelfSubjectRulesReview (`kubectl auth can-i --list`).
 * Create-only, nothing is stored; each answers 201 with the posted object and its `status`.
 *
 * @see pkg/registry/authentication/selfsubjectreview/rest.go
 * @see pkg/registry/authentication/tokenreview/storage.go
 * @see pkg/registry/authorization/subjectaccessreview/rest.go
 * @see pkg/registry/authorization/selfsubjectaccessreview/rest.go
 * @see pkg/registry/authorization/localsubjectaccessreview/rest.go
 * @see pkg/registry/authorization/selfsubjectrulesreview/rest.go
 * @see pkg/apis/authorization/validation/validation.go
 */
import type { ResourceInfo } from "@skiff/api-types";
import { errorToStatus, newBadRequest, newInternalError, newInvalid } from "@skiff/apimachinery";
import type { FieldError } from "@skiff/apimachinery";
import type { FastifyReply, FastifyRequest } from "fastify";
import { getRequestUser } from "../filters/filters.js";
import { assertDocumentLimits, decodeBody } from "../negotiation/negotiation.js";
import type { UserInfo } from "../registry/strategy.js";
import type { NonResourceRoute } from "../server/server.js";
import type { AuthenticatedUser, AuthorizationAttributes, Authenticator, Authorizer } from "./auth.js";
import { decodeProtobufReview } from "./protobuf-review.js";

const protobufMediaType = "application/vnd.kubernetes.protobuf";

/** What the review handlers consult. */
export interface ReviewConfig {
  /** The server's full authentication chain (TokenReview runs a synthetic `Bearer` request through it). */
  readonly authenticator: Authenticator;
  /** The server's authorizer (access reviews ask it). */
  readonly authorizer: Authorizer;
  /** The rules a user holds in a namespace (SelfSubjectRulesReview). @defaultValue none: the review answers `incomplete: true` */
  readonly rulesResolver?: RulesResolver;
  /** `--api-audiences`: what a TokenReview without `spec.audiences` checks the token against. @defaultValue [] */
  readonly apiAudiences?: readonly string[];
}

/** A rule a user holds on resources, as `authorizer.ResourceRuleInfo`. */
export interface ResourceRuleInfo {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}
/** A rule a user holds on non-resource URLs, as `authorizer.NonResourceRuleInfo`. */
export interface NonResourceRuleInfo {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}
/** What a {@link RulesResolver} answers: the rules, whether the list may be incomplete, the errors met. */
export interface RulesResult {
  readonly resourceRules: readonly ResourceRuleInfo[];
  readonly nonResourceRules: readonly NonResourceRuleInfo[];
  readonly incomplete: boolean;
  readonly errors: readonly string[];
}
/**
 * Lists the rules `user` holds in `namespace` (the union of the authorizers' `RulesFor`).
 * @see staging/src/k8s.io/apiserver/pkg/authorization/authorizer/rule.go (RuleResolver)
 */
export type RulesResolver = (user: UserInfo, namespace: string) => RulesResult;

const selfSubjectReviewVersions = ["v1", "v1beta1", "v1alpha1"] as const;

function review(group: string, version: string, kind: string, plural: string): ResourceInfo {
  return Object.freeze({
    group, version, kind, listKind: `${kind}List`, plural, singular: "", namespaced: false,
    shortNames: Object.freeze([]), categories: Object.freeze([]), subresources: Object.freeze([]), verbs: Object.freeze(["create"] as const),
  });
}

/**
 * The review resources, for discovery (`verbs: ["create"]`, cluster-scoped).
 */
export const reviewResources: readonly ResourceInfo[] = Object.freeze([
  ...selfSubjectReviewVersions.map((v) => review("authentication.k8s.io", v, "SelfSubjectReview", "selfsubjectreviews")),
  review("authentication.k8s.io", "v1", "TokenReview", "tokenreviews"),
  review("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews"),
  review("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews"),
  Object.freeze({ ...review("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews"), namespaced: true }),
  review("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews"),
]);

type Obj = Record<string, unknown>;

/**
 * The POST routes of every review resource, to pass as `extraRoutes`. They run behind the
 * server's authentication and authorization like any resource request (so a user needs
 * `create` on e.g. `subjectaccessreviews.authorization.k8s.io`).
 * @example
 * createAPIServer({ ..., extraRoutes: [...reviewRoutes({ authenticator, authorizer })] });
 */
export function reviewRoutes(config: ReviewConfig): NonResourceRoute[] {
  const route = (res: ResourceInfo, build: (body: Obj, user: UserInfo, namespace: string) => Promise<Obj> | Obj): NonResourceRoute => ({
    method: "POST",
    url: res.namespaced ? `/apis/${res.group}/${res.version}/namespaces/:namespace/${res.plural}` : `/apis/${res.group}/${res.version}/${res.plural}`,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      try {
        const body = decodeReview(req, res);
        const namespace = (req.params as { namespace?: string } | undefined)?.namespace ?? "";
        const out = await build(body, getRequestUser(req), namespace);
        return await reply.code(201).header("content-type", "application/json").send(JSON.stringify(out));
      } catch (e) {
        const s = errorToStatus(e);
        return reply.code(s.code).header("content-type", "application/json").send(JSON.stringify(s));
      }
    },
  });
  const [ssrV1, ssrV1beta1, ssrV1alpha1, tokenReviews, ssar, sar, lsar, ssrr] = reviewResources as [
    ResourceInfo,
    ResourceInfo,
    ResourceInfo,
    ResourceInfo,
    ResourceInfo,
    ResourceInfo,
    ResourceInfo,
    ResourceInfo,
  ];
  const selfSubjectReview = (body: Obj, user: UserInfo): Obj => ({ ...body, metadata: { ...asObj(body["metadata"]), creationTimestamp: null }, status: { userInfo: formatUserInfo(user) } });
  return [
    route(ssrV1, selfSubjectReview),
    route(ssrV1beta1, selfSubjectReview),
    route(ssrV1alpha1, selfSubjectReview),
    route(tokenReviews, async (body) => {
      const spec = asObj(body["spec"]);
      const token = spec["token"];
      if (typeof token !== "string" || token === "") throw newBadRequest("token is required for TokenReview in authentication");
      // The audiences asked for, else the server's; the token must be valid for one of them.
      const asked = Array.isArray(spec["audiences"]) ? (spec["audiences"] as unknown[]).filter((a): a is string => typeof a === "string") : [];
      const audiences = asked.length > 0 ? asked : [...(config.apiAudiences ?? [])];
      let user: AuthenticatedUser | null = null;
      let error: string | undefined;
      try {
        user = await config.authenticator({ headers: { authorization: `Bearer ${token}` }, ...(audiences.length > 0 ? { audiences } : {}) });
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
      // An authenticator that ignored the audiences: never answer authenticated for them (1.23's badAuthenticatorAuds).
      if (user && audiences.length > 0 && !(user.audiences ?? []).some((a) => audiences.includes(a))) throw newInternalError(new Error("error validating audiences"));
      const status: Obj = user
        ? { authenticated: true, user: formatUserInfo(user), ...(user.audiences ? { audiences: [...user.audiences] } : {}) }
        : { authenticated: false, user: {}, ...(error !== undefined ? { error } : {}) };
      return { ...body, metadata: { ...asObj(body["metadata"]), creationTimestamp: null }, status };
    }),
    route(ssar, async (body, user) => {
      const spec = asObj(body["spec"]);
      const errs = validateAttributes(spec);
      if (errs.length > 0) throw newInvalid({ group: ssar.group, kind: ssar.kind }, "", errs);
      return { ...body, status: await decide(config.authorizer, spec, user) };
    }),
    route(sar, async (body) => subjectAccessReview(config, sar, body, validateAttributes(asObj(body["spec"])))),
    route(lsar, async (body, _user, namespace) => {
      // 1.23: the object's namespace comes from the URL; metadata must hold nothing else.
      const meta = asObj(body["metadata"]);
      const metaNamespace = typeof meta["namespace"] === "string" && meta["namespace"] !== "" ? meta["namespace"] : namespace;
      if (metaNamespace !== namespace) throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
      const withNs = { ...body, metadata: { ...meta, namespace } };
      const spec = asObj(body["spec"]);
      const errs = validateAttributes(spec);
      const rest = Object.keys(meta).filter((k) => k !== "namespace" && k !== "managedFields" && k !== "creationTimestamp");
      if (rest.length > 0) errs.push({ type: "FieldValueInvalid", field: "metadata", badValue: meta, detail: "must be empty except for namespace" });
      const ra = spec["resourceAttributes"] != null ? asObj(spec["resourceAttributes"]) : undefined;
      if (ra !== undefined && (typeof ra["namespace"] === "string" ? ra["namespace"] : "") !== namespace) {
        errs.push({ type: "FieldValueInvalid", field: "spec.resourceAttributes.namespace", badValue: ra["namespace"] ?? "", detail: "must match metadata.namespace" });
      }
      if (spec["nonResourceAttributes"] != null) {
        errs.push({ type: "FieldValueInvalid", field: "spec.nonResourceAttributes", badValue: spec["nonResourceAttributes"], detail: "disallowed on this kind of request" });
      }
      return subjectAccessReview(config, lsar, withNs, errs);
    }),
    route(ssrr, (body, user) => {
      const spec = asObj(body["spec"]);
      const namespace = typeof spec["namespace"] === "string" ? spec["namespace"] : "";
      if (namespace === "") throw newBadRequest("no namespace on request");
      const r = config.rulesResolver?.(user, namespace) ?? { resourceRules: [], nonResourceRules: [], incomplete: true, errors: [] };
      const status: Obj = {
        resourceRules: r.resourceRules.map((x) => ({
          verbs: [...x.verbs],
          ...((x.apiGroups ?? []).length > 0 ? { apiGroups: [...x.apiGroups!] } : {}),
          ...((x.resources ?? []).length > 0 ? { resources: [...x.resources!] } : {}),
          ...((x.resourceNames ?? []).length > 0 ? { resourceNames: [...x.resourceNames!] } : {}),
        })),
        nonResourceRules: r.nonResourceRules.map((x) => ({ verbs: [...x.verbs], ...(x.nonResourceURLs.length > 0 ? { nonResourceURLs: [...x.nonResourceURLs] } : {}) })),
        incomplete: r.incomplete,
        ...(r.errors.length > 0 ? { evaluationError: r.errors.length === 1 ? r.errors[0] : `[${r.errors.join(", ")}]` } : {}),
      };
      return { ...body, metadata: { ...asObj(body["metadata"]), creationTimestamp: null }, status };
    }),
  ];
}

// SubjectAccessReview and LocalSubjectAccessReview: the subject comes from the spec.
async function subjectAccessReview(config: ReviewConfig, res: ResourceInfo, body: Obj, errs: FieldError[]): Promise<Obj> {
  const spec = asObj(body["spec"]);
  const username = typeof spec["user"] === "string" ? spec["user"] : "";
  const groups = Array.isArray(spec["groups"]) ? spec["groups"].filter((g): g is string => typeof g === "string") : [];
  if (username === "" && groups.length === 0) {
    errs.push({ type: "FieldValueInvalid", field: "spec.user", badValue: "", detail: "at least one of user or group must be specified" });
  }
  if (errs.length > 0) throw newInvalid({ group: res.group, kind: res.kind }, "", errs);
  const subject: UserInfo = {
    username,
    groups,
    ...(typeof spec["uid"] === "string" ? { uid: spec["uid"] } : {}),
    ...(spec["extra"] && typeof spec["extra"] === "object" ? { extra: spec["extra"] as Record<string, string[]> } : {}),
  };
  return { ...body, status: await decide(config.authorizer, spec, subject) };
}

function decodeReview(req: FastifyRequest, res: ResourceInfo): Obj {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const raw = typeof req.body === "string" ? req.body : Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
  const v =
    type === protobufMediaType
      ? decodeProtobufReview(Buffer.isBuffer(req.body) ? req.body : Buffer.from(raw, "latin1"))
      : decodeBody(type || "application/json", raw, ["application/json", "application/yaml"]).value;
  if (type === protobufMediaType) assertDocumentLimits(v, "protobuf: ");
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw newBadRequest(`Object 'Kind' is missing in '${raw.slice(0, 80)}'`);
  const o = v as Obj;
  const apiVersion = `${res.group}/${res.version}`;
  if ((o["apiVersion"] !== undefined && o["apiVersion"] !== apiVersion) || (o["kind"] !== undefined && o["kind"] !== res.kind)) {
    throw newBadRequest(`the API version in the data (${String(o["apiVersion"] ?? "")}) does not match the expected API version (${apiVersion})`);
  }
  return { ...o, apiVersion, kind: res.kind };
}

function validateAttributes(spec: Obj): FieldError[] {
  const hasRes = spec["resourceAttributes"] != null;
  const hasNonRes = spec["nonResourceAttributes"] != null;
  if (hasRes && hasNonRes) {
    return [{ type: "FieldValueInvalid", field: "spec.nonResourceAttributes", badValue: spec["nonResourceAttributes"], detail: "cannot be specified in combination with resourceAttributes" }];
  }
  if (!hasRes && !hasNonRes) {
    return [{ type: "FieldValueInvalid", field: "spec.resourceAttributes", badValue: null, detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified" }];
  }
  return [];
}

async function decide(authorizer: Authorizer, spec: Obj, user: UserInfo): Promise<Obj> {
  const str = (o: Obj, k: string) => (typeof o[k] === "string" ? (o[k] as string) : "");
  let attrs: AuthorizationAttributes;
  if (spec["resourceAttributes"] != null) {
    const r = asObj(spec["resourceAttributes"]);
    attrs = {
      user, verb: str(r, "verb"), resourceRequest: true, path: "", apiGroup: str(r, "group"), apiVersion: str(r, "version"),
      namespace: str(r, "namespace"), resource: str(r, "resource"), subresource: str(r, "subresource"), name: str(r, "name"),
    };
  } else {
    const n = asObj(spec["nonResourceAttributes"]);
    attrs = { user, verb: str(n, "verb"), resourceRequest: false, path: str(n, "path"), apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "" };
  }
  try {
    const d = await authorizer(attrs);
    return { allowed: d.allowed, ...(d.denied ? { denied: true } : {}), ...(d.reason ? { reason: d.reason } : {}) };
  } catch (e) {
    return { allowed: false, evaluationError: e instanceof Error ? e.message : String(e) };
  }
}

function formatUserInfo(u: UserInfo): Obj {
  return {
    username: u.username,
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups.length > 0 ? { groups: [...u.groups] } : {}),
    ...(u.extra && Object.keys(u.extra).length > 0 ? { extra: u.extra } : {}),
  };
}

function asObj(v: unknown): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}
