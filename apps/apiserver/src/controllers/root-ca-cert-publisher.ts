/**
 * The root CA certificate publisher, run INSIDE skiff-apiserver over the same Storage as the REST
 * handlers: every Active namespace gets the ConfigMap `kube-root-ca.crt` whose key `ca.crt` is the
 * CA bundle (PEM) that verifies the apiserver's serving certificate, with the
 * `kubernetes.io/description` annotation; a changed or deleted one is put back. Pods read it
 * through the `kube-api-access-*` projected volume. Namespaces to look at wait in a
 * `RateLimitingQueue` of `@skiff/client`, fed by storage watches of the namespaces (added or
 * updated while Active) and of the ConfigMaps named `kube-root-ca.crt` (updated or deleted).
 *
 * @see pkg/controller/certificates/rootcacertpublisher/publisher.go
 * @example
 * const p = new RootCACertPublisher(createControllerStores(strategies, storage), storage, { rootCA: certs.caCert });
 * await p.start(); // … p.stop();
 */
import { RootCACertConfigMapName, ServiceAccountRootCAKey } from "@skiff/api-types";
import { trackUpdate } from "@skiff/apiserver-core";
import type { APIObject, GenericStore } from "@skiff/apiserver-core";
import { isAlreadyExists } from "@skiff/apimachinery";
import { RateLimitingQueue } from "@skiff/client";
import type { Storage } from "@skiff/storage";
import { hasStatusCode, startWatchedWorker, systemContext } from "./common.js";
import type { ControllerLog, ControllerStores } from "./common.js";
import { controllerManagerFieldManager, isActiveNamespace } from "./serviceaccounts-controller.js";

/** The user the publisher acts as (1.23's service account name). */
export const rootCACertPublisherUser = "system:serviceaccount:kube-system:root-ca-cert-publisher";

/** The annotation 1.23 puts on `kube-root-ca.crt` and its text. @see pkg/controller/certificates/rootcacertpublisher/publisher.go */
export const rootCADescriptionAnnotation = "kubernetes.io/description";
const rootCADescription =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/** Options of {@link RootCACertPublisher}. */
export interface RootCACertPublisherOptions {
  /** The CA bundle to publish (PEM): the CA that signed the apiserver's serving certificate. */
  readonly rootCA: string;
  /** Where to report failed syncs. @defaultValue no logging */
  readonly log?: ControllerLog;
}

/** The root CA certificate publisher; see the module comment. */
export class RootCACertPublisher {
  private readonly queue: RateLimitingQueue<string>;
  private readonly namespaces: GenericStore;
  private readonly configMaps: GenericStore;
  private stops: Array<() => void> = [];

  /** @throws Error when `stores` does not serve core/v1 namespaces and configmaps */
  constructor(
    stores: ControllerStores,
    private readonly storage: Storage,
    private readonly options: RootCACertPublisherOptions,
  ) {
    const ns = stores.forKind("v1", "Namespace");
    const cm = stores.forKind("v1", "ConfigMap");
    if (!ns || !cm) throw new Error("the root CA certificate publisher needs the core/v1 namespaces and configmaps resources");
    this.namespaces = ns;
    this.configMaps = cm;
    this.queue = new RateLimitingQueue<string>({ name: "root_ca_cert_publisher" });
  }

  /**
   * Starts watching and working; resolves once both watches are established. A stopped
   * publisher cannot be started again.
   * @throws what the storage's watch throws
   */
  async start(): Promise<void> {
    const log = this.options.log ?? (() => undefined);
    const sync = (ns: string) => this.sync(ns);
    this.stops.push(
      await startWatchedWorker(this.storage, {
        name: "root-ca-cert-publisher",
        prefix: this.namespaces.keyPrefix(undefined),
        queue: this.queue,
        sync,
        onChange: (e) => {
          if (e.type !== "DELETED" && isActiveNamespace(e.object as APIObject)) this.queue.add((e.object as APIObject).metadata?.name ?? "");
        },
        log,
      }),
    );
    this.stops.push(
      await startWatchedWorker(this.storage, {
        name: "root-ca-cert-publisher",
        prefix: this.configMaps.keyPrefix(undefined),
        queue: this.queue,
        sync,
        onChange: (e) => {
          const cm = e.object as APIObject;
          if (e.type !== "ADDED" && cm.metadata?.name === RootCACertConfigMapName) this.queue.add(cm.metadata.namespace ?? "");
        },
        log,
      }),
    );
  }

  /** Stops the watches and the workers (a sync under way finishes). */
  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.queue.shutDown();
  }

  private async sync(namespace: string): Promise<void> {
    if (namespace === "") return;
    const ctx = systemContext(rootCACertPublisherUser, namespace);
    let ns: APIObject;
    try {
      ns = await this.namespaces.get(systemContext(rootCACertPublisherUser, undefined), namespace);
    } catch (e) {
      if (hasStatusCode(e, 404)) return;
      throw e;
    }
    // 1.23's create is refused in a terminating namespace (and not retried).
    if (!isActiveNamespace(ns)) return;
    const data = { [ServiceAccountRootCAKey]: this.options.rootCA };
    const strategy = this.configMaps.strategy;
    let current: APIObject | undefined;
    try {
      current = await this.configMaps.get(ctx, RootCACertConfigMapName);
    } catch (e) {
      if (!hasStatusCode(e, 404)) throw e;
    }
    if (current === undefined) {
      const cm: APIObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: RootCACertConfigMapName, annotations: { [rootCADescriptionAnnotation]: rootCADescription } }, data };
      strategy.applyDefaults(cm);
      try {
        await this.configMaps.create(ctx, trackUpdate(null, cm, controllerManagerFieldManager, strategy.resource, "", ctx.now), { defaulted: true });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      return;
    }
    const cur = current["data"] as Record<string, string> | undefined;
    const same = cur !== undefined && Object.keys(cur).length === 1 && cur[ServiceAccountRootCAKey] === this.options.rootCA;
    if (same && (current.metadata?.annotations?.[rootCADescriptionAnnotation] ?? "") !== "") return;
    const uid = current.metadata?.uid;
    try {
      await this.configMaps.update(ctx, RootCACertConfigMapName, (live) => {
        if (!live || live.metadata?.uid !== uid) throw new StaleError();
        const next: APIObject = structuredClone(live);
        next["data"] = data;
        next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [rootCADescriptionAnnotation]: rootCADescription } };
        return trackUpdate(live, next, controllerManagerFieldManager, strategy.resource, "", ctx.now);
      });
    } catch (e) {
      // Replaced or deleted meanwhile: its watch event queues the namespace again.
      if (e instanceof StaleError || hasStatusCode(e, 404)) return;
      throw e;
    }
  }
}

class StaleError extends Error {}
