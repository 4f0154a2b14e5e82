/**
 * Builds and starts skiff-apiserver from parsed options: authentication and authorization, the
 * storage (etcd or SQLite) behind one watch cache, the bootstrap namespaces and PriorityClasses, the in-process
 * controllers (leader-elected with etcd), the admission chain (NamespaceLifecycle,
 * ServiceAccount, TaintNodesByCondition, Priority, DefaultTolerationSeconds, RuntimeClass), and the HTTPS server with its resource and
 * non-resource routes (`src/routes/`).
 *
 * @see cmd/kube-apiserver/app/server.go (Run, CreateServerChain, CreateKubeAPIServerConfig)
 */
import { tracerFromEnv } from "@skiff/apimachinery";
import { GenericStore, WatchCache, createAPIServer, namespaceLifecycle, reviewResources, reviewRoutes } from "@skiff/apiserver-core";
import type { FeatureGate, NodeAgentFeature } from "@skiff/feature-gates";
import { defaultTolerationSecondsAdmission } from "./admission/default-toleration-seconds.js";
import { rbacEscalationAdmission } from "./admission/rbac-escalation.js";
import { serviceAccountAdmission } from "./admission/service-account.js";
import { taintNodesByConditionAdmission } from "./admission/taint-nodes-by-condition.js";
import { priorityAdmission, startPriorityClassCache } from "./admission/priority.js";
import { runtimeClassAdmission } from "./admission/runtime-class.js";
import { buildAuthenticator, buildAuthorizer, buildRulesResolver, loadClientCA } from "./auth/chain.js";
import { startRBACPolicyCache } from "./auth/rbac-policy-cache.js";
import { loadTokenFile } from "./auth/token-file.js";
import { ensureBootstrapNamespaces, ensureSystemPriorityClasses } from "./bootstrap.js";
import { loadOrGenerateCertificates } from "./certs.js";
import { startControllers } from "./controllers/index.js";
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapNamespaceRoleBindings, bootstrapNamespaceRoles, controllerRoles } from "./rbac/bootstrap-policy.js";
import { reconcileClusterPolicy, reconcileNamespacedPolicy } from "./rbac/reconcile.js";
import type { APIServerOptions } from "./options.js";
import { metricsResources, metricsRoutes } from "./metrics-api.js";
import { loadOrCreateNodeAgentClientCertificate, podLogRoutes } from "./pod-log-proxy.js";
import { podStreamRoutes } from "./pod-stream-proxy.js";
import { createAllStrategies } from "./registry/index.js";
import { createServiceAccountIssuer, externalAddressOf, withTokenSubresource, withTokenSubresourceInfo } from "./serviceaccount/issuer.js";
import { discoveryRoutes } from "./routes/discovery.js";
import { healthRoutes } from "./routes/health.js";
import { versionRoutes } from "./routes/version.js";
import { openAPIServerStorage, usesEtcd } from "./storage.js";

/**
 * `SKIFF_WATCH_BOOKMARK_INTERVAL_MS`: the period of watch BOOKMARK events (default 60000, as
 * 1.23's cacher sends them about every minute). For tests only; not a flag of the contract.
 */
function watchBookmarkInterval(): { bookmarkIntervalMs?: number } {
  const raw = process.env["SKIFF_WATCH_BOOKMARK_INTERVAL_MS"];
  const ms = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(ms) && ms > 0 ? { bookmarkIntervalMs: ms } : {};
}

/**
 * How young the oldest event of a full watch-cache window must be for the window to grow (1.23:
 * 75 s), from `SKIFF_WATCH_CACHE_EVENT_FRESH_MS` (for tests that need a revision to leave the
 * window after 1,000 events; `0`: the window never grows). Not a flag of the contract.
 */
function watchCacheEventFresh(): { eventFreshMs?: number } {
  const raw = process.env["SKIFF_WATCH_CACHE_EVENT_FRESH_MS"];
  const ms = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(ms) && ms >= 0 ? { eventFreshMs: ms } : {};
}

/**
 * The ServiceAccount admission adds the `kube-api-access-*` projected volume to pods (1.23's
 * behaviour), unless `SKIFF_MOUNT_SERVICE_ACCOUNT_TOKEN=false` (for tests that need pods without
 * it). Not a flag of the contract.
 */
function mountServiceAccountToken(): boolean {
  return process.env["SKIFF_MOUNT_SERVICE_ACCOUNT_TOKEN"] !== "false";
}

/** A started skiff-apiserver. */
export interface RunningAPIServer {
  /** The listening URL, e.g. `https://127.0.0.1:6443`. */
  readonly address: string;
  /** Stops the controllers (releasing the controllers' Lease), then the HTTP server, then the storage. */
  stop(): Promise<void>;
}

/**
 * Starts skiff-apiserver as `o` says, with `gates` already set from `--feature-gates`. Resolves
 * once it listens. Writes controller log lines to stderr at `-v=2` and above.
 * @throws Error when a file named by a flag (token file, client CA, ABAC policy, certificates)
 *   cannot be read or parsed, the storage cannot be opened, or the port cannot be bound.
 * @example
 * const server = await startAPIServer(options, gates);
 * process.stderr.write(`Serving securely on ${server.address}\n`);
 */
export async function startAPIServer(o: APIServerOptions, gates: FeatureGate<NodeAgentFeature>): Promise<RunningAPIServer> {
  const tokens = o.tokenAuthFile === "" ? new Map() : await loadTokenFile(o.tokenAuthFile);
  const certs = await loadOrGenerateCertificates(o);
  const clientCA = await loadClientCA(o.clientCAFile);
  const storage = await openAPIServerStorage(o);
  const strategies = withTokenSubresource(
    createAllStrategies({
      jobReadyPods: gates.enabled("JobReadyPods"),
      jobTrackingWithFinalizers: gates.enabled("JobTrackingWithFinalizers"),
      jobMutableNodeSchedulingDirectives: gates.enabled("JobMutableNodeSchedulingDirectives"),
      ephemeralContainers: gates.enabled("EphemeralContainers"),
      identifyPodOS: gates.enabled("IdentifyPodOS"),
      windowsHostProcessContainers: gates.enabled("WindowsHostProcessContainers"),
    }),
  );
  await ensureBootstrapNamespaces(strategies, storage);
  await ensureSystemPriorityClasses(strategies, storage);
  // The bootstrap RBAC policy of 1.23, reconciled (missing objects and permissions added, user
  // additions kept, `autoupdate: "false"` objects left alone), as kube-apiserver's post-start hook.
  await reconcileClusterPolicy(strategies, storage, [...bootstrapClusterRoles(), ...controllerRoles()], bootstrapClusterRoleBindings());
  await reconcileNamespacedPolicy(strategies, storage, bootstrapNamespaceRoles(), bootstrapNamespaceRoleBindings());
  // One backend watch for every watcher; reads and writes pass through to the backend.
  const cache = new WatchCache(storage, { prefix: "/registry/", ...watchBookmarkInterval(), ...watchCacheEventFresh() });
  // RBAC reads roles and bindings from a watched in-memory copy, never from storage per request.
  // The escalation checks read it in every mode, as 1.23's RBAC storage does.
  const rbacCache = await startRBACPolicyCache(cache, (line) => process.stderr.write(`${line}\n`));
  const authorizer = await buildAuthorizer(o, rbacCache);
  const rbacEscalation = rbacEscalationAdmission({ authorizer, policy: rbacCache });
  // The Priority admission plugin reads PriorityClasses from a watched copy, as 1.23's lister.
  const priorityClasses = await startPriorityClassCache(cache, (line) => process.stderr.write(`${line}\n`));
  // Service-account tokens: TokenRequest, their authenticator (after the token file), issuer discovery.
  const saIssuer = await createServiceAccountIssuer({ ...o, serviceAccountMaxTokenExpirationMs: o.serviceAccountMaxTokenExpiration.ms }, strategies, cache);
  const authenticator = buildAuthenticator(
    { anonymousAuth: o.anonymousAuth, clientCA: clientCA !== undefined, serviceAccountTokens: (t, audiences) => saIssuer.lookup(t, audiences), apiAudiences: saIssuer.apiAudiences },
    tokens,
  );
  // The garbage collector and the namespace controller run in this process (see controllers/),
  // in one apiserver at a time when several share a storage (leader election on a Lease).
  const stopControllers = await startControllers(
    strategies,
    cache,
    (line) => {
      if (o.verbosity >= 2) process.stderr.write(`${line}\n`);
    },
    { elect: usesEtcd(o), rootCA: certs.caCert },
  );
  const serviceAccounts = strategies.find((st) => st.resource.group === "" && st.resource.plural === "serviceaccounts");
  if (serviceAccounts === undefined) throw new Error("the ServiceAccount admission needs the core/v1 serviceaccounts strategy");
  const nodeAgentClientCertificate = await loadOrCreateNodeAgentClientCertificate(o.certDir);
  const server = createAPIServer({
    strategies,
    storage: cache,
    authenticator,
    authorizer,
    limits: {
      priorityAndFairness: o.enablePriorityAndFairness && gates.enabled("APIPriorityAndFairness"),
      maxRequestsInFlight: o.maxRequestsInflight,
      maxMutatingRequestsInFlight: o.maxMutatingRequestsInflight,
      requestTimeoutMs: o.requestTimeout.ms,
      minRequestTimeoutSeconds: o.minRequestTimeout,
    },
    // 1.23's default order: NamespaceLifecycle, ServiceAccount, TaintNodesByCondition, Priority, DefaultTolerationSeconds, then RuntimeClass.
    // RBACEscalation stands for 1.23's policy-based RBAC storage (its checks run after admission's mutating phase).
    admission: [
      namespaceLifecycle(storage),
      serviceAccountAdmission({ serviceAccounts: new GenericStore(serviceAccounts, cache), mountServiceAccountToken: mountServiceAccountToken() }),
      taintNodesByConditionAdmission(),
      priorityAdmission(priorityClasses),
      defaultTolerationSecondsAdmission({ defaultNotReadyTolerationSeconds: o.defaultNotReadyTolerationSeconds, defaultUnreachableTolerationSeconds: o.defaultUnreachableTolerationSeconds }),
      runtimeClassAdmission(),
      rbacEscalation,
    ],
    tls: { cert: certs.cert, key: certs.key, ...(clientCA !== undefined ? { ca: clientCA, requestCert: true } : {}) },
    verbosity: o.verbosity,
    // SKIFF_TRACE_FILE: one span per mutating request (see @skiff/apimachinery's trace module).
    tracer: tracerFromEnv("apiserver"),
    extraRoutes: [
      ...discoveryRoutes([...reviewResources, ...metricsResources], withTokenSubresourceInfo),
      ...reviewRoutes({ authenticator, authorizer, rulesResolver: buildRulesResolver(o, rbacCache), apiAudiences: saIssuer.apiAudiences }),
      // pods/log proxies to the node agent, presenting a client certificate signed by our CA.
      ...podLogRoutes({ strategies, storage: cache, ...(nodeAgentClientCertificate ? { clientCertificate: nodeAgentClientCertificate } : {}) }),
      // metrics.k8s.io (kubectl top): scrapes the node agents' /metrics/resource with that certificate.
      ...metricsRoutes({ strategies, storage: cache, ...(nodeAgentClientCertificate ? { clientCertificate: nodeAgentClientCertificate } : {}), log: (line) => {
          if (o.verbosity >= 2) process.stderr.write(`${line}\n`);
        },
      }),
      // pods/exec, pods/attach, pods/portforward: the upgrade proxied to the node agent the same way.
      ...podStreamRoutes({ strategies, storage: cache, ...(nodeAgentClientCertificate ? { clientCertificate: nodeAgentClientCertificate } : {}) }),
      ...saIssuer.routes(),
      ...healthRoutes(),
      ...versionRoutes(),
    ],
  });
  const address = await server.listen({ host: o.bindAddress, port: o.securePort });
  saIssuer.setExternalAddress(externalAddressOf(address));
  const discoveryError = saIssuer.discoveryError();
  if (discoveryError !== undefined) {
    process.stderr.write(`Could not construct pre-rendered responses for ServiceAccountIssuerDiscovery endpoints. Endpoints will not be enabled. Error: ${discoveryError}\n`);
  }
  return {
    address,
    async stop() {
      await stopControllers();
      rbacCache.stop();
      priorityClasses.stop();
      await server.close();
      await storage.close();
    },
  };
}
