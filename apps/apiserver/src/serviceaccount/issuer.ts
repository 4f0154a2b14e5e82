/**
 * Wires the service-account token issuer of skiff-apiserver from its flags: keys, the
 * TokenRequest route, the token authenticator's lookup, the issuer-discovery routes and the
 * `serviceaccounts/token` discovery entry.
 *
 * @see pkg/kubeapiserver/options/authentication.go (ServiceAccountAuthenticationOptions)
 * @see pkg/controlplane/instance.go (the token REST and the OpenID metadata)
 */
import { networkInterfaces } from "node:os";
import { GenericStore } from "@skiff/apiserver-core";
import type { AuthenticatedUser, NonResourceRoute, ResourceStrategy } from "@skiff/apiserver-core";
import { newMethodNotSupported } from "@skiff/apimachinery";
import type { ResourceInfo } from "@skiff/api-types";
import type { Storage } from "@skiff/storage";
import { loadServiceAccountKeys } from "./keys.js";
import type { ServiceAccountKeys } from "./keys.js";
import { buildOpenIDMetadata, openIDMetadataRoutes } from "./openid.js";
import type { OpenIDMetadata } from "./openid.js";
import { authenticateServiceAccountToken } from "./token.js";
import type { ObjectFacts } from "./token.js";
import { tokenRequestRoutes } from "./token-request.js";
import type { StoredObject } from "./token-request.js";

/** The service-account flags of skiff-apiserver. */
export interface ServiceAccountIssuerOptions {
  readonly serviceAccountIssuer: readonly string[];
  readonly serviceAccountSigningKeyFile: string;
  readonly serviceAccountKeyFile: readonly string[];
  /** `--service-account-max-token-expiration` in ms; 0: no cap. */
  readonly serviceAccountMaxTokenExpirationMs: number;
  readonly apiAudiences: readonly string[];
  readonly certDir: string;
}

/** The issuer, ready to wire into the server. */
export interface ServiceAccountIssuer {
  readonly keys: ServiceAccountKeys;
  /** `--api-audiences`, or the first issuer when empty. */
  readonly apiAudiences: readonly string[];
  /** The token authenticator's lookup (see `buildAuthenticator`), against `audiences` (a TokenReview's) or `--api-audiences`. */
  lookup(token: string, audiences?: readonly string[]): Promise<AuthenticatedUser | undefined>;
  /** TokenRequest and issuer-discovery routes. */
  routes(): NonResourceRoute[];
  /** Sets the address (`host:port`) the `jwks_uri` names, once the server listens. */
  setExternalAddress(address: string): void;
  /** Why issuer discovery is not served, once the address is set (`undefined` when it is). */
  discoveryError(): string | undefined;
}

/** `info` with the `token` subresource when it is the core ServiceAccount (for discovery). Pure. */
export function withTokenSubresourceInfo(info: ResourceInfo): ResourceInfo {
  if (info.group !== "" || info.plural !== "serviceaccounts" || info.subresources.includes("token")) return info;
  return Object.freeze({ ...info, subresources: Object.freeze([...info.subresources, "token"]) });
}

/**
 * The strategies with `serviceaccounts/token` added to the ServiceAccount's subresources (for
 * discovery; its POST is served by the TokenRequest route, other verbs answer 405). Pure.
 */
export function withTokenSubresource(strategies: readonly ResourceStrategy[]): ResourceStrategy[] {
  return strategies.map((s) => {
    if (s.resource.group !== "" || s.resource.plural !== "serviceaccounts") return s;
    return {
      ...s,
      resource: withTokenSubresourceInfo(s.resource),
      subresourceCreates: {
        ...s.subresourceCreates,
        // Unreachable: the TokenRequest route takes POST .../token before the generic routes.
        token: () => {
          throw newMethodNotSupported({ group: "", resource: "serviceaccounts" }, "POST");
        },
      },
    } as ResourceStrategy;
  });
}

/**
 * Loads the keys and builds the issuer.
 * @throws ServiceAccountKeyError for unusable key files.
 */
export async function createServiceAccountIssuer(o: ServiceAccountIssuerOptions, strategies: readonly ResourceStrategy[], storage: Storage, now: () => Date = () => new Date()): Promise<ServiceAccountIssuer> {
  const keys = await loadServiceAccountKeys({ signingKeyFile: o.serviceAccountSigningKeyFile, keyFiles: o.serviceAccountKeyFile, certDir: o.certDir });
  const issuer = o.serviceAccountIssuer[0] ?? "";
  const apiAudiences = o.apiAudiences.length > 0 ? [...o.apiAudiences] : [issuer];
  const stores = new Map<string, GenericStore>();
  for (const plural of ["serviceaccounts", "pods", "secrets"]) {
    const s = strategies.find((x) => x.resource.group === "" && x.resource.plural === plural);
    if (!s) throw new Error(`the service-account token issuer needs the core/v1 ${plural} strategy`);
    stores.set(plural, new GenericStore(s, storage));
  }
  const get = async (resource: string, namespace: string, name: string): Promise<StoredObject | undefined> => {
    const store = stores.get(resource);
    if (!store || name === "") return undefined;
    return ((await storage.get(store.key(namespace, name), { ignoreNotFound: true })) as StoredObject | null) ?? undefined;
  };
  const facts = async (resource: string, namespace: string, name: string): Promise<ObjectFacts | undefined> => {
    const obj = (await get(resource, namespace, name)) as { metadata?: { uid?: string; deletionTimestamp?: string } } | undefined;
    if (!obj) return undefined;
    const ts = obj.metadata?.deletionTimestamp;
    return { uid: obj.metadata?.uid ?? "", ...(ts ? { deletionTimestamp: ts } : {}) };
  };
  let metadata: OpenIDMetadata | undefined;
  return {
    keys,
    apiAudiences,
    lookup: (token, requestedAudiences) =>
      authenticateServiceAccountToken(token, {
        issuers: o.serviceAccountIssuer,
        apiAudiences,
        requestedAudiences,
        keys,
        getter: {
          serviceAccount: (ns, n) => facts("serviceaccounts", ns, n),
          pod: (ns, n) => facts("pods", ns, n),
          secret: (ns, n) => facts("secrets", ns, n),
        },
        now: now(),
      }),
    routes: () => [
      ...tokenRequestRoutes({ issuer, apiAudiences, maxExpirationSeconds: Math.floor(o.serviceAccountMaxTokenExpirationMs / 1000), keys, get, now }),
      ...openIDMetadataRoutes(() => metadata),
    ],
    setExternalAddress(address) {
      metadata = buildOpenIDMetadata(issuer, address, keys);
    },
    discoveryError: () => (metadata && !metadata.ok ? metadata.error : undefined),
  };
}

/**
 * The `host:port` clients reach a server listening on `address` (`https://host:port`) at: the
 * host itself, or for an unspecified bind address (0.0.0.0, ::) the first non-internal IPv4
 * address of this machine (127.0.0.1 when there is none), as kube-apiserver's advertise address.
 */
export function externalAddressOf(address: string): string {
  const u = new URL(address);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (host !== "0.0.0.0" && host !== "::") return u.host;
  const ip =
    Object.values(networkInterfaces())
      .flat()
      .find((i) => i !== undefined && i.family === "IPv4" && !i.internal)?.address ?? "127.0.0.1";
  return `${ip}:${u.port}`;
}
