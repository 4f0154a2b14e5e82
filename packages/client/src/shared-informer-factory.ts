/**
 * One informer per resource and filter, shared by every consumer in a process.
 *
 * @see staging/src/k8s.io/client-go/informers/factory.go (`SharedInformerFactory`)
 */

import type { Informer, InformerOptions } from "./informer.js";
import { createInformer } from "./informer.js";
import type { KubeObject, ResourceClient } from "./resource-client.js";

/**
 * Hands out shared informers: asking twice for the same resource with the same namespace and
 * selectors returns the same informer (later options other than those are ignored).
 */
export interface SharedInformerFactory {
  informerFor<T extends KubeObject>(resource: ResourceClient<T>, options?: InformerOptions<T>): Informer<T>;
  /** Starts every informer handed out so far (informers handed out later start at once). */
  start(): void;
  /** Resolves true once every informer has synced, false if one was stopped or `signal` aborted. */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  stop(): void;
}

/**
 * Creates a factory; `defaults` apply to every informer it creates (per-call options win).
 * @example
 * const factory = createSharedInformerFactory({ resyncPeriodMs: 0 });
 * const pods = factory.informerFor(client.pods, { fieldSelector: "spec.nodeName=" });
 * factory.start();
 * await factory.waitForSync();
 */
export function createSharedInformerFactory(defaults: Omit<InformerOptions<KubeObject>, "indexers"> = {}): SharedInformerFactory {
  const informers = new Map<string, Informer<KubeObject>>();
  let started = false;
  return {
    informerFor<T extends KubeObject>(resource: ResourceClient<T>, options: InformerOptions<T> = {}): Informer<T> {
      const key = JSON.stringify([resource.info.group, resource.info.plural, options.namespace ?? "", options.labelSelector ?? "", options.fieldSelector ?? ""]);
      let informer = informers.get(key) as Informer<T> | undefined;
      if (!informer) {
        informer = createInformer(resource, { ...(defaults as InformerOptions<T>), ...options });
        informers.set(key, informer as unknown as Informer<KubeObject>);
        if (started) informer.start();
      }
      return informer;
    },
    start() {
      started = true;
      for (const i of informers.values()) i.start();
    },
    async waitForSync(signal) {
      const results = await Promise.all([...informers.values()].map((i) => i.waitForSync(signal)));
      return results.every(Boolean);
    },
    stop() {
      for (const i of informers.values()) i.stop();
    },
  };
}
