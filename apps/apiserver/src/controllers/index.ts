import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { ResourceStrategy } from "@skiff/apiserver-core";
import type { Storage } from "@skiff/storage";
import { ClusterRoleAggregationController } from "./clusterrole-aggregation-controller.js";
import { createControllerStores } from "./common.js";
import type { ControllerLog } from "./common.js";
import { GarbageCollector } from "./garbage-collector.js";
import { NamespaceController } from "./namespace-controller.js";
import { LeaderElector } from "./leader-election.js";
import { RootCACertPublisher } from "./root-ca-cert-publisher.js";
import { ServiceAccountsController } from "./serviceaccounts-controller.js";

export { GarbageCollector, garbageCollectorUser } from "./garbage-collector.js";
export type { GarbageCollectorOptions } from "./garbage-collector.js";
export { NamespaceController, kubernetesFinalizer, namespaceControllerUser } from "./namespace-controller.js";
export type { NamespaceControllerOptions } from "./namespace-controller.js";
export { RootCACertPublisher, rootCACertPublisherUser, rootCADescriptionAnnotation } from "./root-ca-cert-publisher.js";
export type { RootCACertPublisherOptions } from "./root-ca-cert-publisher.js";
export { ServiceAccountsController, controllerManagerFieldManager, isActiveNamespace, serviceAccountControllerUser } from "./serviceaccounts-controller.js";
export type { ServiceAccountsControllerOptions } from "./serviceaccounts-controller.js";
export { createControllerStores, systemContext } from "./common.js";
export { ClusterRoleAggregationController, aggregatedRules, clusterRoleAggregationUser } from "./clusterrole-aggregation-controller.js";
export { LeaderElector, controllersLease, leaderElectionUser } from "./leader-election.js";
export type { LeaderElectorOptions } from "./leader-election.js";
export type { ControllerLog, ControllerStores } from "./common.js";

/** Options of {@link startControllers}. */
export interface StartControllersOptions {
  /**
   * Elect a leader among the apiservers sharing the storage (etcd); without it (SQLite, whose file
   * one process holds exclusively) the controllers simply run. @defaultValue false
   */
  readonly elect?: boolean;
  /** This apiserver's identity in the election. @defaultValue `<hostname>_<uuid>` */
  readonly identity?: string;
  readonly leaseDurationSeconds?: number;
  readonly retryPeriodMs?: number;
  /**
   * The CA bundle (PEM) the root CA certificate publisher puts into every namespace's
   * `kube-root-ca.crt`; without it the publisher does not run.
   */
  readonly rootCA?: string;
}

/**
 * Runs the controllers skiff-apiserver runs in-process (garbage collector, namespace controller,
 * service-account controller, root CA certificate publisher, ClusterRole aggregation controller) over `storage` for `strategies`.
 * With `elect`, only while this apiserver leads: apiservers sharing a storage elect one leader
 * through the Lease `kube-system/skiff-apiserver-controllers` (see {@link LeaderElector}).
 * Resolves once started (or after the first election try); returns a function that stops the
 * controllers (and releases the lease).
 */
export async function startControllers(strategies: readonly ResourceStrategy[], storage: Storage, log: ControllerLog, options: StartControllersOptions = {}): Promise<() => Promise<void>> {
  const stores = createControllerStores(strategies, storage);
  const run = async (): Promise<() => void> => {
    const gc = new GarbageCollector(stores, storage, { log });
    const nc = new NamespaceController(stores, storage, { log });
    const sa = new ServiceAccountsController(stores, storage, { log });
    const ca = options.rootCA !== undefined ? new RootCACertPublisher(stores, storage, { rootCA: options.rootCA, log }) : undefined;
    const agg = new ClusterRoleAggregationController(stores, storage, { log });
    await gc.start();
    await nc.start();
    await sa.start();
    await ca?.start();
    await agg.start();
    return () => {
      agg.stop();
      gc.stop();
      nc.stop();
      sa.stop();
      ca?.stop();
    };
  };
  if (options.elect !== true) {
    const stop = await run();
    return () => Promise.resolve(stop());
  }
  const leases = stores.all.find((s) => s.strategy.resource.group === "coordination.k8s.io" && s.strategy.resource.plural === "leases");
  if (leases === undefined) throw new Error("the in-process controllers need the coordination.k8s.io leases resource for their leader election");
  let running: (() => void) | undefined;
  const elector = new LeaderElector({
    leases,
    identity: options.identity ?? `${hostname()}_${randomUUID()}`,
    ...(options.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: options.leaseDurationSeconds } : {}),
    ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
    log,
    onStartedLeading: async () => {
      running = await run();
    },
    onStoppedLeading: () => {
      running?.();
      running = undefined;
    },
  });
  await elector.start();
  return () => elector.stop();
}
