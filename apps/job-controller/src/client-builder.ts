/**
 * The controllers' clients. Without `--use-service-account-credentials` every controller uses the
 * controller manager's own credentials (its kubeconfig); with it, each controller gets a client
 * authenticated as its own service account `kube-system/<client name>` (created when missing),
 * with a TokenRequest token of one hour renewed when 20 % of its lifetime is left, as 1.23's
 * dynamic client builder does. The RBAC bootstrap policy binds `system:controller:<client name>`
 * to that service account.
 *
 * @see staging/src/k8s.io/controller-manager/pkg/clientbuilder/client_builder_dynamic.go (kubernetes/kubernetes v1.23)
 * @see cmd/kube-controller-manager/app/controllermanager.go (createClientBuilders)
 */
import { isAlreadyExists, isNotFound } from "@skiff/apimachinery";
import { createClient } from "@skiff/client";
import type { Client, ClientOptions, ClusterConfig, TokenSource } from "@skiff/client";

/** The namespace of the controllers' service accounts. */
export const controllerServiceAccountNamespace = "kube-system";

/** Lifetime asked for each controller token, in seconds. @see client_builder_dynamic.go (defaultExpirationSeconds) */
export const controllerTokenExpirationSeconds = 3600;

/** Share of a token's lifetime left when it is renewed, in percent. @see client_builder_dynamic.go (defaultLeewayPercent) */
export const controllerTokenLeewayPercent = 20;

/** The clients of one controller: requests and Events (each with its own rate limiter). */
export interface ControllerClients {
  readonly client: Client;
  readonly eventClient: Client;
}

/**
 * Hands out the clients of a controller by its client name (such as `job-controller`); the caller
 * closes them. Rejects when the controller's service account cannot be had.
 */
export type ControllerClientBuilder = (clientName: string) => Promise<ControllerClients>;

/**
 * Gets `kube-system/<name>` through `root`, creating it (and, tolerating failure, the namespace)
 * when missing; a create that races with another one re-reads it.
 * @throws StatusError of the get or create that failed (403 when `root` may not).
 * @see client_builder_dynamic.go (getOrCreateServiceAccount)
 */
export async function getOrCreateServiceAccount(root: Client, namespace: string, name: string): Promise<void> {
  try {
    await root.serviceAccounts.get(name, { namespace });
    return;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    await root.namespaces.get(namespace);
  } catch (e) {
    if (isNotFound(e)) await root.namespaces.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }).catch(() => {});
  }
  try {
    await root.serviceAccounts.create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    await root.serviceAccounts.get(name, { namespace });
  }
}

/** Options of {@link serviceAccountTokenSource}. */
export interface ServiceAccountTokenSourceOptions {
  readonly namespace: string;
  readonly name: string;
  /** @defaultValue {@link controllerTokenExpirationSeconds} */
  readonly expirationSeconds?: number;
  /** @defaultValue {@link controllerTokenLeewayPercent} */
  readonly leewayPercent?: number;
  /** Milliseconds since the epoch. @defaultValue Date.now */
  readonly now?: () => number;
  /** Waits between failed attempts (500 ms, doubling, four attempts). @defaultValue setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly log?: (message: string) => void;
}

/**
 * A token source of service account `namespace/name`: TokenRequests through `root` (making sure
 * the service account exists before each), cached until `leewayPercent` of the token's lifetime
 * is left (a lifetime under 10 minutes counts as 10 minutes: clock skew); concurrent callers share
 * one request; four attempts 500 ms apart, doubling, before it rejects. `reset()` drops the cache.
 * @see client_builder_dynamic.go (tokenSourceImpl.Token), client-go transport.NewCachedTokenSource
 */
export function serviceAccountTokenSource(root: Client, o: ServiceAccountTokenSourceOptions): TokenSource {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const expirationSeconds = o.expirationSeconds ?? controllerTokenExpirationSeconds;
  const leewayPercent = o.leewayPercent ?? controllerTokenLeewayPercent;
  let cached: { token: string; renewAtMs: number } | undefined;
  let inFlight: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    let delayMs = 500;
    let last: unknown;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) {
        await sleep(delayMs);
        delayMs *= 2;
      }
      try {
        await getOrCreateServiceAccount(root, o.namespace, o.name);
        const tr = await root.createServiceAccountToken({ namespace: o.namespace, name: o.name }, { expirationSeconds });
        const lifetimeMs = Math.max(Date.parse(tr.status.expirationTimestamp) - now(), 10 * 60_000);
        cached = { token: tr.status.token, renewAtMs: now() + lifetimeMs - (lifetimeMs * leewayPercent) / 100 };
        return tr.status.token;
      } catch (e) {
        last = e;
        o.log?.(`token for ${o.namespace}/${o.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    throw new Error(`failed to get token for ${o.namespace}/${o.name}: ${last instanceof Error ? last.message : String(last)}`, { cause: last });
  };
  return {
    token() {
      if (cached !== undefined && now() < cached.renewAtMs) return Promise.resolve(cached.token);
      inFlight ??= fetchToken().finally(() => (inFlight = undefined));
      return inFlight;
    },
    reset() {
      cached = undefined;
    },
  };
}

/**
 * The builder of `--use-service-account-credentials`: per client name, makes sure the service
 * account exists (through `root`, the controller manager's own client), then returns clients on
 * `config`'s server and CA whose token comes from {@link serviceAccountTokenSource} (the
 * kubeconfig's own credentials are not sent). User agent `<userAgent>/system:serviceaccount:kube-system:<name>`.
 * @throws (from the returned function) the StatusError of the service-account get or create.
 */
export function serviceAccountClientBuilder(root: Client, config: ClusterConfig, options: ClientOptions & { log?: (message: string) => void }): ControllerClientBuilder {
  const { log, ...clientOptions } = options;
  // Only the server and how to trust it: an anonymous config, as restclient.AnonymousClientConfig.
  const anonymous: ClusterConfig = {
    server: config.server,
    insecureSkipTLSVerify: config.insecureSkipTLSVerify,
    ...(config.caPEM !== undefined ? { caPEM: config.caPEM } : {}),
    ...(config.tlsServerName !== undefined ? { tlsServerName: config.tlsServerName } : {}),
  };
  const sources = new Map<string, TokenSource>();
  return async (name) => {
    const namespace = controllerServiceAccountNamespace;
    await getOrCreateServiceAccount(root, namespace, name);
    let tokenSource = sources.get(name);
    if (tokenSource === undefined) {
      tokenSource = serviceAccountTokenSource(root, { namespace, name, ...(log ? { log } : {}) });
      sources.set(name, tokenSource);
    }
    const userAgent = `${clientOptions.userAgent ?? "skiff-client"}/system:serviceaccount:${namespace}:${name}`;
    return {
      client: createClient(anonymous, { ...clientOptions, userAgent, tokenSource }),
      eventClient: createClient(anonymous, { ...clientOptions, userAgent: `${userAgent}/events`, tokenSource }),
    };
  };
}
