/**
 * The Skiff API client: typed resource clients for every served kind over one keep-alive
 * HTTP(S) agent and one client-side rate limiter.
 *
 * @see staging/src/k8s.io/client-go/kubernetes/clientset.go
 * @see staging/src/k8s.io/client-go/rest/config.go (QPS 5, Burst 10 defaults)
 */

import type { Binding, CSIDriver, CSINode, ClusterRole, ClusterRoleBinding, ConfigMap, Event, Job, Namespace, Node, Pod, PodTemplate, ResourceInfo, Role, RoleBinding, Secret, ServiceAccount } from "@skiff/api-types";
import { findResource } from "@skiff/api-types";
import type { ClusterConfig } from "./cluster-config.js";
import type { Clock } from "./clock.js";
import { ClientError } from "./errors.js";
import { makeEvent } from "./events.js";
import type { EventSink } from "./events.js";
import { ConnectionPool, Transport } from "./internal/transport.js";
import type { KubeObject, ResourceClient, WriteOptions } from "./resource-client.js";
import { newResourceClient, resourcePath } from "./resource-client.js";
import { TokenBucketRateLimiter } from "./token-bucket.js";

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** Requests per second allowed by the client-side limiter; `<= 0` disables it. @defaultValue 5 */
  readonly qps?: number;
  /** Requests allowed at once after idling. @defaultValue 10 */
  readonly burst?: number;
  /** `User-Agent` header. @defaultValue "skiff-client" */
  readonly userAgent?: string;
  /** Clock of the rate limiter. @defaultValue realClock */
  readonly clock?: Clock;
  /**
   * Most keep-alive connections open at once for requests other than watches, when the server
   * speaks HTTP/1.1 only (plain `http://`, or HTTPS without `h2`): each watch then has its own
   * connection, and further requests wait for a free one. Over HTTP/2 (HTTPS with `h2`, as the
   * apiserver) requests and watches are streams of shared connections instead, a new one opening
   * only past the server's concurrent-stream limit, and this bound does not apply. @defaultValue 64
   * @throws {RangeError} from {@link createClient} unless an integer ≥ 1.
   */
  readonly maxConnections?: number;
  /**
   * Keep-alive connections (and TLS context) shared with other clients of the same apiserver
   * (see {@link createClientConnections}); `maxConnections` is then the pool's. This client keeps
   * its own rate limiter and watch connections; its `close()` leaves the shared pool open.
   * @throws {Error} from {@link createClient} when the pool is for another server.
   * @defaultValue a pool of this client's own
   */
  readonly connections?: ClientConnections;
  /**
   * Where the bearer token of each request comes from, instead of `config.token` (a token that
   * changes, such as a service-account token the caller renews). Asked before every request;
   * `reset` (when given) is called after a 401 answer, so the next request gets a fresh token.
   * @see staging/src/k8s.io/client-go/transport/token_source.go (ResettableTokenSourceWrapTransport)
   */
  readonly tokenSource?: TokenSource;
  /**
   * How long a request other than a watch may take, rate limiter wait included, in milliseconds;
   * `0` or unset: no limit. A request over it fails with a `NetworkError` ClientError. client-go's
   * `rest.Config.Timeout` (the kubelet's heartbeat client sets it).
   * @throws {RangeError} from {@link createClient} unless a finite number >= 0.
   */
  readonly timeoutMs?: number;
}

/** A bearer token that may change over time (see {@link ClientOptions.tokenSource}). */
export interface TokenSource {
  /** The token to send now. Rejects when none can be had (the request then fails with that error). */
  token(): Promise<string>;
  /** Forgets the current token (it was refused with 401). */
  reset?(): void;
}

/** A pool of keep-alive connections several clients share (see {@link createClientConnections}). */
export interface ClientConnections {
  /** The apiserver URL the pool connects to. */
  readonly server: string;
  /** Destroys the pooled connections (requests of clients still using it fail). Idempotent. */
  close(): void;
}

const pools = new WeakMap<ClientConnections, ConnectionPool>();

/**
 * Creates a pool of keep-alive connections to `config.server`, with one TLS context, for
 * {@link ClientOptions.connections}: many clients of one process (a simulated fleet's node agents,
 * a test's components) then share connections instead of keeping a pool each, as client-go's
 * transports share a cached `http.Transport` per TLS config.
 * @throws {RangeError} unless `maxConnections` is an integer >= 1.
 * @see staging/src/k8s.io/client-go/transport/cache.go (tlsTransportCache) in kubernetes/kubernetes v1.23
 * @example
 * const connections = createClientConnections(config, { maxConnections: 128 });
 * const a = createClient(config, { connections }), b = createClient(config, { connections });
 */
export function createClientConnections(config: ClusterConfig, options: { readonly maxConnections?: number } = {}): ClientConnections {
  if (options.maxConnections !== undefined && !(Number.isInteger(options.maxConnections) && options.maxConnections >= 1)) {
    throw new RangeError(`maxConnections must be an integer >= 1, got ${String(options.maxConnections)}`);
  }
  const pool = new ConnectionPool(config, options.maxConnections);
  const handle: ClientConnections = { server: config.server, close: () => pool.close() };
  pools.set(handle, pool);
  return handle;
}

/** What {@link Client.recordEvent} needs besides the object it is about. */
export interface EventRecord {
  /** `Normal` or `Warning`. */
  readonly type: "Normal" | "Warning";
  /** UpperCamelCase reason, such as `FailedScheduling`. */
  readonly reason: string;
  readonly message: string;
  /** Reporting component, such as `default-scheduler`. */
  readonly component: string;
  /** `source.host`. */
  readonly host?: string;
}

/**
 * A client for one apiserver. Resource clients exist for every kind Skiff serves; `resource()`
 * builds one for any {@link ResourceInfo}. `close()` ends keep-alive connections (open watches
 * stop with a ClientError).
 */
export interface Client {
  readonly config: ClusterConfig;
  readonly rateLimiter: TokenBucketRateLimiter;
  readonly pods: ResourceClient<Pod>;
  readonly nodes: ResourceClient<Node>;
  readonly events: ResourceClient<Event>;
  readonly namespaces: ResourceClient<Namespace>;
  readonly podTemplates: ResourceClient<PodTemplate>;
  readonly jobs: ResourceClient<Job>;
  readonly csiDrivers: ResourceClient<CSIDriver>;
  readonly csiNodes: ResourceClient<CSINode>;
  readonly configMaps: ResourceClient<ConfigMap>;
  readonly secrets: ResourceClient<Secret>;
  readonly serviceAccounts: ResourceClient<ServiceAccount>;
  readonly roles: ResourceClient<Role>;
  readonly clusterRoles: ResourceClient<ClusterRole>;
  readonly roleBindings: ResourceClient<RoleBinding>;
  readonly clusterRoleBindings: ResourceClient<ClusterRoleBinding>;
  /** The client of any resource (by table entry, or a `findResource` query such as `"jobs.batch"`). @throws {Error} for a name Skiff does not serve. */
  resource<T extends KubeObject = KubeObject>(resource: ResourceInfo | string): ResourceClient<T>;
  /**
   * Binds a pod to a node through `pods/<name>/binding` (what the scheduler does). Throws
   * StatusError 409 Conflict if the pod is already bound, 404 if it does not exist.
   * @see pkg/registry/core/pod/storage/storage.go (`BindingREST`)
   */
  bindPod(target: { readonly namespace: string; readonly name: string; readonly nodeName: string; readonly uid?: string }, options?: WriteOptions): Promise<void>;
  /**
   * Requests a token for a service account through `serviceaccounts/<name>/token` (TokenRequest
   * `authentication.k8s.io/v1`), as the kubelet's token manager does. Returns the answer (its
   * `status.token` and `status.expirationTimestamp`). Throws StatusError 404 for a missing service
   * account or bound object, 422 for an expiration under 10 minutes, 400/409 for a bad binding.
   * @see pkg/kubelet/token/token_manager.go, pkg/registry/core/serviceaccount/storage/token.go
   */
  createServiceAccountToken(target: { readonly namespace: string; readonly name: string }, spec: TokenRequestSpec, options?: WriteOptions): Promise<TokenRequest>;
  /** Creates a `v1` Event (in `event.metadata.namespace`, else `default`). */
  createEvent(event: Event, options?: WriteOptions): Promise<Event>;
  /**
   * Creates an Event about `obj` with a generated name (`<obj name>.<hex time>`), count 1 and
   * first/last timestamps now, as client-go's `makeEvent`. No correlation: components record
   * through {@link createEventRecorder}, which counts repeats and filters spam as client-go does.
   * @see staging/src/k8s.io/client-go/tools/record/event.go (`makeEvent`)
   */
  recordEvent(obj: KubeObject, record: EventRecord): Promise<Event>;
  close(): void;
}

/** The spec of a TokenRequest (`authentication.k8s.io/v1`). */
export interface TokenRequestSpec {
  /** Intended audiences; empty: the apiserver's `--api-audiences`. */
  readonly audiences?: readonly string[];
  /** Requested lifetime in seconds (at least 600). @defaultValue 3600 (server side) */
  readonly expirationSeconds?: number;
  /** The object the token is bound to (a Pod or Secret); the token is invalid once it is gone. */
  readonly boundObjectRef?: { readonly kind: "Pod" | "Secret"; readonly apiVersion: "v1"; readonly name: string; readonly uid?: string };
}

/** A TokenRequest answer. */
export interface TokenRequest {
  readonly apiVersion: "authentication.k8s.io/v1";
  readonly kind: "TokenRequest";
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec: TokenRequestSpec & { readonly audiences: readonly string[]; readonly expirationSeconds: number };
  /** `token`: the signed JWT; `expirationTimestamp`: RFC 3339. */
  readonly status: { readonly token: string; readonly expirationTimestamp: string };
}

function mustFind(name: string): ResourceInfo {
  const info = findResource(name);
  if (!info) throw new Error(`resource ${name} is not served`);
  return info;
}

/**
 * Creates a client for the apiserver of `config` (see {@link loadClusterConfig}).
 *
 * @example
 * const client = createClient(await loadClusterConfig("kubeconfig"), { qps: 20, burst: 40 });
 * const jobs = await client.jobs.list({ namespace: "default", labelSelector: "app=batch" });
 */
export function createClient(config: ClusterConfig, options: ClientOptions = {}): Client {
  if (options.maxConnections !== undefined && !(Number.isInteger(options.maxConnections) && options.maxConnections >= 1)) {
    throw new RangeError(`maxConnections must be an integer >= 1, got ${String(options.maxConnections)}`);
  }
  const rateLimiter = new TokenBucketRateLimiter({ qps: options.qps ?? 5, burst: options.burst ?? 10, ...(options.clock ? { clock: options.clock } : {}) });
  const shared = options.connections === undefined ? undefined : pools.get(options.connections);
  if (options.connections !== undefined) {
    if (!shared) throw new Error("connections: not made by createClientConnections");
    if (shared.server !== config.server) throw new Error(`connections: the pool is for ${shared.server}, not ${config.server}`);
  }
  const timeoutMs = options.timeoutMs ?? 0;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new RangeError(`timeoutMs must be a finite number >= 0, got ${String(timeoutMs)}`);
  const transport = new Transport(config, rateLimiter, options.userAgent ?? "skiff-client", options.maxConnections, shared, options.tokenSource, timeoutMs);
  const cache = new Map<ResourceInfo, ResourceClient<KubeObject>>();
  const resource = <T extends KubeObject>(r: ResourceInfo | string): ResourceClient<T> => {
    const info = typeof r === "string" ? mustFind(r) : r;
    let c = cache.get(info);
    if (!c) {
      c = newResourceClient<KubeObject>(info, transport);
      cache.set(info, c);
    }
    return c as unknown as ResourceClient<T>;
  };
  const podsInfo = mustFind("pods");
  const serviceAccountsInfo = mustFind("serviceaccounts");
  const client: Client = {
    config,
    rateLimiter,
    pods: resource<Pod>(podsInfo),
    nodes: resource<Node>("nodes"),
    events: resource<Event>("events"),
    namespaces: resource<Namespace>("namespaces"),
    podTemplates: resource<PodTemplate>("podtemplates"),
    jobs: resource<Job>("jobs.batch"),
    csiDrivers: resource<CSIDriver>("csidrivers.storage.example.io"),
    csiNodes: resource<CSINode>("csinodes.storage.example.io"),
    configMaps: resource<ConfigMap>("configmaps"),
    secrets: resource<Secret>("secrets"),
    serviceAccounts: resource<ServiceAccount>("serviceaccounts"),
    roles: resource<Role>("roles.rbac.authorization.k8s.io"),
    clusterRoles: resource<ClusterRole>("clusterroles.rbac.authorization.k8s.io"),
    roleBindings: resource<RoleBinding>("rolebindings.rbac.authorization.k8s.io"),
    clusterRoleBindings: resource<ClusterRoleBinding>("clusterrolebindings.rbac.authorization.k8s.io"),
    resource,
    async bindPod(target, o = {}) {
      if (target.namespace === "") throw new ClientError("MissingNamespace", "bind pods: a namespace is required");
      const binding: Binding = {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name: target.name, namespace: target.namespace, ...(target.uid !== undefined ? { uid: target.uid } : {}) },
        target: { apiVersion: "v1", kind: "Node", name: target.nodeName },
      };
      await transport.json({
        verb: "create",
        group: "",
        resource: "pods",
        name: target.name,
        method: "POST",
        path: resourcePath(podsInfo, target.namespace, target.name, "binding"),
        query: { dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager },
        body: binding,
        ...(o.signal ? { signal: o.signal } : {}),
      });
    },
    async createServiceAccountToken(target, spec, o = {}) {
      if (target.namespace === "") throw new ClientError("MissingNamespace", "create serviceaccounts/token: a namespace is required");
      return await transport.json<TokenRequest>({
        verb: "create",
        group: "",
        resource: "serviceaccounts",
        name: target.name,
        method: "POST",
        path: resourcePath(serviceAccountsInfo, target.namespace, target.name, "token"),
        query: { dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager },
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: { name: target.name, namespace: target.namespace }, spec },
        ...(o.signal ? { signal: o.signal } : {}),
      });
    },
    createEvent(event, o = {}) {
      return client.events.create(event, o);
    },
    recordEvent(obj, record) {
      const event = makeEvent(obj, record.type, record.reason, record.message, record);
      return client.events.create(event, { namespace: event.metadata?.namespace ?? "default" });
    },
    close: () => transport.close(),
  };
  return client;
}

/**
 * The sink an event recorder writes through: `client.events` create and merge-patch (client-go
 * sends a strategic merge patch of `count`, `lastTimestamp` and `message`; for those scalar fields
 * a merge patch is the same).
 */
export function eventSinkOf(client: Pick<Client, "events">): EventSink {
  return {
    create: (event, o) => client.events.create(event, o),
    patch: (name, patch, o) => client.events.patch(name, patch, { ...o, type: "merge" }),
  };
}
