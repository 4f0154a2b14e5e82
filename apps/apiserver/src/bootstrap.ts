/**
 * The namespaces and the built-in PriorityClasses skiff-apiserver creates at startup when
 * missing, through their strategy's generic store (for namespaces: defaulting, the
 * `example.io/metadata.name` label, phase `Active`, the `kubernetes` finalizer and validation are
 * the strategy's), each with the `Update` managedFields entry of manager `skiff-apiserver` the
 * HTTP create path would record. Idempotent: an object that exists (this apiserver's earlier run,
 * or another apiserver sharing the etcd that created it first) is left as it is.
 *
 * @see pkg/controlplane/controller.go (SystemNamespaces, RunKubernetesNamespaces)
 * @see pkg/controlplane/client_util.go (createNamespaceIfNeeded)
 */
import { GenericStore, trackUpdate } from "@skiff/apiserver-core";
import type { APIObject, ResourceStrategy } from "@skiff/apiserver-core";
import { isAlreadyExists } from "@skiff/apimachinery";
import { SystemPriorityClasses } from "@skiff/api-types";
import type { Storage } from "@skiff/storage";
import { systemContext } from "./controllers/index.js";

/** Namespaces created at startup when missing, in creation order. */
export const bootstrapNamespaces: readonly string[] = Object.freeze(["default", "kube-system", "kube-public", "kube-node-lease"]);

/** The field manager (and user) the bootstrap namespaces are written as. */
export const bootstrapManager = "skiff-apiserver";

/**
 * Creates every missing namespace of `names` in `storage` through the namespace strategy of
 * `strategies` (the `v1` `Namespace` one). Resolves with the names it created.
 * @throws Error when `strategies` has no v1 Namespace strategy; a create error other than
 *   AlreadyExists (storage unreachable, validation) as thrown by the generic store.
 * @example await ensureBootstrapNamespaces(createAllStrategies(gates), storage);
 */
export async function ensureBootstrapNamespaces(strategies: readonly ResourceStrategy[], storage: Storage, names: readonly string[] = bootstrapNamespaces): Promise<string[]> {
  const objects = names.map((name): APIObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
  return createMissing(strategyOf(strategies, "", "namespaces", "bootstrapping namespaces"), storage, objects);
}

/**
 * Creates the built-in PriorityClasses (`system-node-critical`, `system-cluster-critical`, with
 * 1.23's values and descriptions) that are missing, through the PriorityClass strategy of
 * `strategies`, as kube-apiserver's `scheduling/bootstrap-system-priority-classes` post-start
 * hook. Resolves with the names it created.
 * @throws Error when `strategies` has no scheduling.k8s.io PriorityClass strategy; a create error
 *   other than AlreadyExists, as thrown by the generic store.
 * @see pkg/registry/scheduling/rest/storage_scheduling.go (AddSystemPriorityClasses)
 */
export async function ensureSystemPriorityClasses(strategies: readonly ResourceStrategy[], storage: Storage): Promise<string[]> {
  const objects = SystemPriorityClasses.map((c): APIObject => ({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: c.name }, value: c.value, description: c.description }));
  return createMissing(strategyOf(strategies, "scheduling.k8s.io", "priorityclasses", "bootstrapping the system priority classes"), storage, objects);
}

function strategyOf(strategies: readonly ResourceStrategy[], group: string, plural: string, what: string): ResourceStrategy {
  const strategy = strategies.find((s) => s.resource.group === group && s.resource.version === "v1" && s.resource.plural === plural);
  if (strategy === undefined) throw new Error(`${what} needs the ${group === "" ? "core" : group}/v1 ${plural} strategy`);
  return strategy;
}

// Creates each object of `objects` that is missing, as the HTTP create path would, written by
// `bootstrapManager`; resolves with the names created.
async function createMissing(strategy: ResourceStrategy, storage: Storage, objects: readonly APIObject[]): Promise<string[]> {
  const store = new GenericStore(strategy, storage);
  const created: string[] = [];
  for (const obj of objects) {
    const ctx = systemContext(bootstrapManager, undefined);
    // As the HTTP create path: defaults first, then the writer's managedFields entry (status
    // excluded where the kind has a status subresource), then the store.
    strategy.applyDefaults(obj);
    const tracked = trackUpdate(null, obj, bootstrapManager, strategy.resource, "", ctx.now);
    try {
      await store.create(ctx, tracked, { defaulted: true });
      created.push(obj.metadata?.name ?? "");
    } catch (e) {
      // Several apiservers may start together on one etcd: the first create wins.
      if (!isAlreadyExists(e)) throw e;
    }
  }
  return created;
}
