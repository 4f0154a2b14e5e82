/**
 * The namespaces skiff-apiserver creates at startup when missing, through the namespace
 * strategy's generic store (defaulting, the `example.io/metadata.name` label, phase `Active`, the
 * `kubernetes` finalizer and validation are the strategy's), each with the `Update` managedFields
 * entry of manager `skiff-apiserver` the HTTP create path would record. Idempotent: a namespace
 * that exists (this apiserver's earlier run, or another apiserver sharing the etcd that created it
 * first) is left as it is.
 *
 * @see pkg/controlplane/controller.go (SystemNamespaces, RunKubernetesNamespaces)
 * @see pkg/controlplane/client_util.go (createNamespaceIfNeeded)
 */
import { GenericStore, trackUpdate } from "@skiff/apiserver-core";
import type { APIObject, ResourceStrategy } from "@skiff/apiserver-core";
import { isAlreadyExists } from "@skiff/apimachinery";
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
  const strategy = strategies.find((s) => s.resource.group === "" && s.resource.version === "v1" && s.resource.kind === "Namespace");
  if (strategy === undefined) throw new Error("bootstrapping namespaces needs the core/v1 namespaces strategy");
  const store = new GenericStore(strategy, storage);
  const created: string[] = [];
  for (const name of names) {
    const ctx = systemContext(bootstrapManager, undefined);
    const ns: APIObject = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
    // As the HTTP create path: defaults first (the name label, the phase), then the writer's
    // managedFields entry (status excluded: namespaces have a status subresource), then the store.
    strategy.applyDefaults(ns);
    const tracked = trackUpdate(null, ns, bootstrapManager, strategy.resource, "", ctx.now);
    try {
      await store.create(ctx, tracked, { defaulted: true });
      created.push(name);
    } catch (e) {
      // Several apiservers may start together on one etcd: the first create wins.
      if (!isAlreadyExists(e)) throw e;
    }
  }
  return created;
}
