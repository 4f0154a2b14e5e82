/**
 * The service-account controller, run INSIDE skiff-apiserver over the same Storage as the REST
 * handlers: every Active namespace gets a `default` ServiceAccount, created when the namespace
 * appears and again whenever it is deleted. Namespaces to look at wait in a `RateLimitingQueue` of
 * `@skiff/client` (client-go's default controller rate limiter), fed by storage watches of the
 * namespaces (added or updated) and of the service accounts (deleted). A namespace that is not
 * Active (terminating) or gone is left alone, as 1.23's create would be refused there.
 *
 * @see pkg/controller/serviceaccount/serviceaccounts_controller.go
 * @example
 * const sa = new ServiceAccountsController(createControllerStores(strategies, storage), storage);
 * await sa.start(); // … sa.stop();
 */
import { DefaultServiceAccountName } from "@skiff/api-types";
import { trackUpdate } from "@skiff/apiserver-core";
import type { APIObject, GenericStore } from "@skiff/apiserver-core";
import { isAlreadyExists } from "@skiff/apimachinery";
import { RateLimitingQueue } from "@skiff/client";
import type { Storage } from "@skiff/storage";
import { hasStatusCode, startWatchedWorker, systemContext } from "./common.js";
import type { ControllerLog, ControllerStores } from "./common.js";

/** The user the service-account controller acts as (1.23's service account name). */
export const serviceAccountControllerUser = "system:serviceaccount:kube-system:service-account-controller";

/** The field manager of the objects the in-process controllers create, as kube-controller-manager's. */
export const controllerManagerFieldManager = "kube-controller-manager";

/** Options of {@link ServiceAccountsController}. */
export interface ServiceAccountsControllerOptions {
  /** The service accounts ensured in every namespace. @defaultValue `["default"]` */
  readonly serviceAccounts?: readonly string[];
  /** Where to report failed syncs. @defaultValue no logging */
  readonly log?: ControllerLog;
}

/**
 * Whether `ns` (a stored Namespace) is Active and not being deleted: the only namespaces the
 * in-process controllers create objects in (the NamespaceLifecycle admission refuses the others).
 */
export function isActiveNamespace(ns: APIObject | null | undefined): boolean {
  if (!ns || ns.metadata?.deletionTimestamp) return false;
  const phase = (ns["status"] as { phase?: string } | undefined)?.phase;
  return phase === undefined || phase === "Active";
}

/** The service-account controller; see the module comment. */
export class ServiceAccountsController {
  private readonly queue: RateLimitingQueue<string>;
  private readonly namespaces: GenericStore;
  private readonly serviceAccounts: GenericStore;
  private readonly ensured: readonly string[];
  private stops: Array<() => void> = [];

  /** @throws Error when `stores` does not serve core/v1 namespaces and serviceaccounts */
  constructor(
    stores: ControllerStores,
    private readonly storage: Storage,
    private readonly options: ServiceAccountsControllerOptions = {},
  ) {
    const ns = stores.forKind("v1", "Namespace");
    const sa = stores.forKind("v1", "ServiceAccount");
    if (!ns || !sa) throw new Error("the service-account controller needs the core/v1 namespaces and serviceaccounts resources");
    this.namespaces = ns;
    this.serviceAccounts = sa;
    this.ensured = options.serviceAccounts ?? [DefaultServiceAccountName];
    this.queue = new RateLimitingQueue<string>({ name: "serviceaccount" });
  }

  /**
   * Starts watching namespaces and service accounts and working; resolves once both watches are
   * established. A stopped controller cannot be started again.
   * @throws what the storage's watch throws
   */
  async start(): Promise<void> {
    const log = this.options.log ?? (() => undefined);
    const sync = (ns: string) => this.sync(ns);
    this.stops.push(
      await startWatchedWorker(this.storage, {
        name: "serviceaccount controller",
        prefix: this.namespaces.keyPrefix(undefined),
        queue: this.queue,
        sync,
        onChange: (e) => {
          if (e.type !== "DELETED") this.queue.add((e.object as APIObject).metadata?.name ?? "");
        },
        log,
      }),
    );
    this.stops.push(
      await startWatchedWorker(this.storage, {
        name: "serviceaccount controller",
        prefix: this.serviceAccounts.keyPrefix(undefined),
        queue: this.queue,
        sync,
        onChange: (e) => {
          if (e.type === "DELETED") this.queue.add((e.object as APIObject).metadata?.namespace ?? "");
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
    let ns: APIObject;
    try {
      ns = await this.namespaces.get(systemContext(serviceAccountControllerUser, undefined), namespace);
    } catch (e) {
      if (hasStatusCode(e, 404)) return;
      throw e;
    }
    if (!isActiveNamespace(ns)) return;
    const ctx = systemContext(serviceAccountControllerUser, namespace);
    for (const name of this.ensured) {
      try {
        await this.serviceAccounts.get(ctx, name);
        continue;
      } catch (e) {
        if (!hasStatusCode(e, 404)) throw e;
      }
      const strategy = this.serviceAccounts.strategy;
      const sa: APIObject = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name } };
      strategy.applyDefaults(sa);
      const tracked = trackUpdate(null, sa, controllerManagerFieldManager, strategy.resource, "", ctx.now);
      try {
        await this.serviceAccounts.create(ctx, tracked, { defaulted: true });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
  }
}
