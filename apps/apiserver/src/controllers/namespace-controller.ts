/**
 * The namespace controller, run INSIDE skiff-apiserver over the same Storage as the REST handlers.
 * For a namespace being deleted (`deletionTimestamp` set, phase `Terminating`) that still has the
 * `kubernetes` entry in `spec.finalizers`, it deletes the namespace's content of every namespaced
 * kind the server serves (propagation Background, as 1.23's deleter), waits while anything is
 * left (pods in their grace period, objects held by finalizers; retried every `retryMs`), then
 * removes `kubernetes` from `spec.finalizers` through the `finalize` subresource, after which the
 * store deletes the namespace (unless other finalizers remain). Namespaces to look at wait in a
 * `RateLimitingQueue` of `@skiff/client` fed by a storage watch; a failed step is retried after
 * {@link namespaceControllerRateLimiter}'s back-off.
 *
 * @see pkg/controller/namespace/namespace_controller.go
 * @see pkg/controller/namespace/deletion/namespaced_resources_deleter.go
 * @example
 * const nc = new NamespaceController(createControllerStores(strategies, storage), storage);
 * await nc.start(); // … nc.stop();
 */
import type { APIObject, GenericStore } from "@skiff/apiserver-core";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, RateLimitingQueue } from "@skiff/client";
import type { WorkRateLimiter } from "@skiff/client";
import type { Storage } from "@skiff/storage";
import { hasStatusCode, startWatchedWorker, systemContext } from "./common.js";
import type { ControllerLog, ControllerStores } from "./common.js";

/** The user the namespace controller acts as (1.23's service account name). */
export const namespaceControllerUser = "system:serviceaccount:kube-system:namespace-controller";

/** The `spec.finalizers` entry the namespace controller owns. */
export const kubernetesFinalizer = "kubernetes";

/**
 * The namespace controller's rate limiter, tuned for a fast recycle: per namespace 5 ms doubling
 * to at most 60 s (a failing namespace is retried at least every minute), and overall at most
 * 10 retries a second after a burst of 100.
 * @see pkg/controller/namespace/namespace_controller.go (nsControllerRateLimiter)
 */
export function namespaceControllerRateLimiter(): WorkRateLimiter<string> {
  return new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(5, 60_000), new BucketRateLimiter<string>(10, 100));
}

/** Options of {@link NamespaceController}. */
export interface NamespaceControllerOptions {
  /** Delay before looking again at a namespace whose content is not gone yet. @defaultValue 1000 */
  readonly retryMs?: number;
  /** Where to report failed steps. @defaultValue no logging */
  readonly log?: ControllerLog;
  /** Back-off of a namespace whose step failed (ms per retry). @defaultValue {@link namespaceControllerRateLimiter}() */
  readonly rateLimiter?: WorkRateLimiter<string>;
}

/** The namespace controller; see the module comment. */
export class NamespaceController {
  /** Names of namespaces to look at (1.23's `namespace` queue). */
  private readonly queue: RateLimitingQueue<string>;
  private readonly namespaces: GenericStore;
  private readonly retryMs: number;
  private stopWorker: (() => void) | undefined;

  /** @throws Error when `stores` does not serve core/v1 namespaces */
  constructor(
    private readonly stores: ControllerStores,
    private readonly storage: Storage,
    private readonly options: NamespaceControllerOptions = {},
  ) {
    const ns = stores.forKind("v1", "Namespace");
    if (!ns) throw new Error("the namespace controller needs the core/v1 namespaces resource");
    this.namespaces = ns;
    this.retryMs = options.retryMs ?? 1000;
    this.queue = new RateLimitingQueue<string>({ name: "namespace", rateLimiter: options.rateLimiter ?? namespaceControllerRateLimiter() });
  }

  /**
   * Starts watching the namespaces and working; resolves once the watch is established. A
   * stopped controller cannot be started again.
   * @throws what the storage's watch throws
   */
  async start(): Promise<void> {
    this.stopWorker = await startWatchedWorker(this.storage, {
      name: "namespace controller",
      prefix: this.namespaces.keyPrefix(undefined),
      queue: this.queue,
      sync: (name) => this.sync(name),
      onChange: (e) => {
        if (e.type !== "DELETED" && (e.object as APIObject).metadata?.deletionTimestamp) this.queue.add((e.object as APIObject).metadata?.name ?? "");
      },
      log: this.options.log ?? (() => undefined),
    });
  }

  /** Stops the watch and the worker (a step under way finishes). */
  stop(): void {
    this.stopWorker?.();
    this.queue.shutDown();
  }

  private async sync(name: string): Promise<void> {
    const ctx = systemContext(namespaceControllerUser, undefined);
    let ns: APIObject;
    try {
      ns = await this.namespaces.get(ctx, name);
    } catch (e) {
      if (hasStatusCode(e, 404)) return;
      throw e;
    }
    if (!ns.metadata?.deletionTimestamp) return;
    const finalizers = (ns["spec"] as { finalizers?: string[] } | undefined)?.finalizers ?? [];
    if (!finalizers.includes(kubernetesFinalizer)) return;
    const remaining = await this.deleteAllContent(name);
    if (remaining > 0) {
      this.queue.addAfter(name, this.retryMs);
      return;
    }
    const uid = ns.metadata.uid;
    try {
      await this.namespaces.update(
        ctx,
        name,
        (cur) => {
          if (!cur || cur.metadata?.uid !== uid) throw new GoneError();
          const spec = (cur["spec"] ?? {}) as { finalizers?: string[] };
          cur["spec"] = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== kubernetesFinalizer) };
          return cur;
        },
        { subresource: "finalize" },
      );
    } catch (e) {
      if (e instanceof GoneError || hasStatusCode(e, 404)) return;
      throw e;
    }
  }

  /** Deletes everything namespaced in `namespace`; returns how many objects are still there. */
  private async deleteAllContent(namespace: string): Promise<number> {
    let remaining = 0;
    for (const store of this.stores.all) {
      if (!store.strategy.resource.namespaced) continue;
      const ctx = systemContext(namespaceControllerUser, namespace);
      const list = await store.list(ctx, {});
      for (const item of list["items"] as APIObject[]) {
        remaining++;
        if (item.metadata?.deletionTimestamp) continue;
        try {
          const r = await store.delete(ctx, item.metadata?.name ?? "", { propagationPolicy: "Background", preconditions: { uid: item.metadata?.uid ?? "" } });
          if (r.deleted) remaining--;
        } catch (e) {
          if (hasStatusCode(e, 404)) remaining--;
          else if (!hasStatusCode(e, 409)) throw e;
        }
      }
    }
    return remaining;
  }
}

class GoneError extends Error {}
