import type { ResourceStrategy } from "@skiff/apiserver-core";
import type { Storage } from "@skiff/storage";
import { createControllerStores } from "./common.js";
import type { ControllerLog } from "./common.js";
import { GarbageCollector } from "./garbage-collector.js";
import { NamespaceController } from "./namespace-controller.js";

export { GarbageCollector, garbageCollectorUser } from "./garbage-collector.js";
export type { GarbageCollectorOptions } from "./garbage-collector.js";
export { NamespaceController, kubernetesFinalizer, namespaceControllerUser } from "./namespace-controller.js";
export type { NamespaceControllerOptions } from "./namespace-controller.js";
export { createControllerStores, systemContext } from "./common.js";
export type { ControllerLog, ControllerStores } from "./common.js";

/**
 * Starts the controllers skiff-apiserver runs in-process (garbage collector, namespace
 * controller) over `storage` for `strategies`; returns a function stopping them.
 */
export async function startControllers(strategies: readonly ResourceStrategy[], storage: Storage, log: ControllerLog): Promise<() => void> {
  const stores = createControllerStores(strategies, storage);
  const gc = new GarbageCollector(stores, storage, { log });
  const nc = new NamespaceController(stores, storage, { log });
  await gc.start();
  await nc.start();
  return () => {
    gc.stop();
    nc.stop();
  };
}
