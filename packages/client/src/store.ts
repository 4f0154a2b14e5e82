/**
 * The informer's local cache: objects by `namespace/name` key, with secondary indexes.
 *
 * @see staging/src/k8s.io/client-go/tools/cache/store.go (`MetaNamespaceKeyFunc`)
 * @see staging/src/k8s.io/client-go/tools/cache/thread_safe_store.go (indexers)
 */

import type { KubeObject } from "./resource-client.js";

/**
 * The cache key of an object: `namespace/name`, or `name` for a cluster-scoped object (empty
 * namespace). Does not mutate `obj`.
 * @see staging/src/k8s.io/client-go/tools/cache/store.go (`MetaNamespaceKeyFunc`)
 * @example
 * keyOf({ metadata: { namespace: "default", name: "pi" } }) // "default/pi"
 */
export function keyOf(obj: KubeObject): string {
  const ns = obj.metadata?.namespace ?? "";
  const name = obj.metadata?.name ?? "";
  return ns === "" ? name : `${ns}/${name}`;
}

/**
 * Splits a key of {@link keyOf} into namespace (`""` for cluster-scoped) and name.
 * @see staging/src/k8s.io/client-go/tools/cache/store.go (`SplitMetaNamespaceKey`)
 */
export function splitKey(key: string): { readonly namespace: string; readonly name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { namespace: "", name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Computes the index values of an object (for example its node name). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Name of the index every store has: objects by `metadata.namespace`. */
export const namespaceIndex = "namespace";

/**
 * A read view of the cache. Objects are the ones received from the server: treat them as
 * read-only (copy before changing, as with client-go listers).
 */
export interface ReadonlyStore<T> {
  get(key: string): T | undefined;
  list(): T[];
  listKeys(): string[];
  /** Objects whose index function `indexName` returned `value`. @throws {Error} for an unknown index. */
  byIndex(indexName: string, value: string): T[];
  readonly size: number;
}

/** The cache behind an informer (the informer is its only writer). */
export class Store<T extends KubeObject> implements ReadonlyStore<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    this.addIndexers({ [namespaceIndex]: (o) => [o.metadata?.namespace ?? ""], ...indexers });
  }

  get size(): number {
    return this.items.size;
  }

  /** Adds indexes (also over objects already cached). @throws {Error} if a name is taken. */
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer ${name} already exists`);
      this.indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const v of fn(obj)) add(index, v, key);
    }
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }
  list(): T[] {
    return [...this.items.values()];
  }
  listKeys(): string[] {
    return [...this.items.keys()];
  }
  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`index ${indexName} does not exist`);
    const out: T[] = [];
    for (const key of index.get(value) ?? []) {
      const obj = this.items.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  /** Stores `obj` under its key; returns the previous object. */
  set(obj: T): T | undefined {
    const key = keyOf(obj);
    const old = this.items.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name);
      if (index) for (const v of fn(obj)) add(index, v, key);
    }
    return old;
  }

  /** Removes the object of `key`; returns it. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name);
      if (!index) continue;
      for (const v of fn(obj)) {
        const set = index.get(v);
        set?.delete(key);
        if (set?.size === 0) index.delete(v);
      }
    }
  }
}

function add(index: Map<string, Set<string>>, value: string, key: string): void {
  let set = index.get(value);
  if (!set) {
    set = new Set();
    index.set(value, set);
  }
  set.add(key);
}
