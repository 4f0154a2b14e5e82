import { GenericStore } from "@skiff/apiserver-core";
import type { ResourceStrategy } from "@skiff/apiserver-core";
import type { Storage, StoredObject } from "@skiff/storage";

/**
 * The storage key of a stored object of one of `strategies`' kinds (from its apiVersion, kind,
 * namespace and name, by the generic store's key scheme), or `undefined` for anything else. The
 * watch cache needs it to keep the current state, since lists do not return keys. `storage` is
 * only handed to the stores that compute keys; nothing is read.
 */
export function storageKeyOf(strategies: readonly ResourceStrategy[], storage: Storage): (object: StoredObject) => string | undefined {
  const byKind = new Map<string, GenericStore>();
  for (const s of strategies) {
    const r = s.resource;
    byKind.set(`${r.group ? `${r.group}/${r.version}` : r.version}|${r.kind}`, new GenericStore(s, storage));
  }
  return (o) => {
    const store = byKind.get(`${String(o["apiVersion"])}|${String(o["kind"])}`);
    const meta = o.metadata as { name?: unknown; namespace?: unknown } | undefined;
    if (!store || typeof meta?.name !== "string") return undefined;
    const ns = typeof meta.namespace === "string" && meta.namespace !== "" ? meta.namespace : undefined;
    if (store.strategy.resource.namespaced && ns === undefined) return undefined;
    return store.key(store.strategy.resource.namespaced ? ns : undefined, meta.name);
  };
}
