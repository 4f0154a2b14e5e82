/**
 * The garbage collector over `metadata.ownerReferences`, run INSIDE skiff-apiserver over the same
 * Storage the REST handlers use (no HTTP, no separate process; its writes go through the generic
 * store, so finalizers, graceful pod deletion and validation apply as to any client).
 *
 * What it does, as 1.23's garbage collector:
 * - **Background**: an object whose owners are all gone (not found, or found with another uid) is
 *   deleted (policy from its own `orphan`/`foregroundDeletion` finalizer, else Background); owner
 *   references to gone owners are removed from objects that still have a live owner.
 * - **Foreground**: an owner deleting with the `foregroundDeletion` finalizer has its dependents
 *   deleted (in Foreground when they have dependents themselves); once no dependent with
 *   `blockOwnerDeletion: true` remains, the finalizer is removed (and the owner goes).
 * - **Orphan**: an owner deleting with the `orphan` finalizer has its owner reference removed
 *   from every dependent, then the finalizer removed.
 *
 * Job → its Pods and Node → its CSINode are these rules over the owner references those objects
 * carry. It watches every key under `/registry/` (one watch from the current state), keeps an
 * index owner uid → dependent keys to know whom to revisit, and reads the live objects before
 * every decision. Keys to look at wait in one `RateLimitingQueue` of `@skiff/client` (1.23 has
 * `attemptToDelete` and `attemptToOrphan`, both on the default controller rate limiter); a failed
 * step is retried after the rate limiter's back-off.
 *
 * @see pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem, orphanDependents, processDeletingDependentsItem)
 * @see pkg/controller/garbagecollector/graph_builder.go
 * @example
 * const gc = new GarbageCollector(createControllerStores(strategies, storage), storage);
 * await gc.start(); // … gc.stop();
 */
import type { APIObject, GenericStore } from "@skiff/apiserver-core";
import type { OwnerReference } from "@skiff/api-types";
import { RateLimitingQueue } from "@skiff/client";
import type { WorkRateLimiter } from "@skiff/client";
import type { Storage } from "@skiff/storage";
import { hasStatusCode, namespaceOf, startWatchedWorker, systemContext } from "./common.js";
import type { ControllerLog, ControllerStores } from "./common.js";

/** The user the garbage collector acts as (1.23's service account name). */
export const garbageCollectorUser = "system:serviceaccount:kube-system:generic-garbage-collector";

/** Options of {@link GarbageCollector}. */
export interface GarbageCollectorOptions {
  /**
   * Back-off of a key whose step failed (ms per retry).
   * @defaultValue newDefaultControllerRateLimiter() of `@skiff/client` (5 ms doubling to 1000 s per
   * key, at most 10 retries a second overall after a burst of 100), as 1.23's `attemptToDelete` queue
   */
  readonly rateLimiter?: WorkRateLimiter<string>;
  /** Where to report failed steps. @defaultValue no logging */
  readonly log?: ControllerLog;
  /** Watched key prefix. @defaultValue `"/registry/"` */
  readonly prefix?: string;
}

interface Node {
  uid: string;
  owners: string[];
}

type Owner = { readonly state: "absent" } | { readonly state: "solid" | "waiting"; readonly object: APIObject };

/** The garbage collector; see the module comment. */
export class GarbageCollector {
  private readonly nodes = new Map<string, Node>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly keyByUid = new Map<string, string>();
  /** Storage keys of objects to look at: 1.23's `attemptToDelete` and `attemptToOrphan` in one. */
  private readonly queue: RateLimitingQueue<string>;
  private stopWorker: (() => void) | undefined;

  constructor(
    private readonly stores: ControllerStores,
    private readonly storage: Storage,
    private readonly options: GarbageCollectorOptions = {},
  ) {
    this.queue = new RateLimitingQueue<string>({ name: "garbage_collector_attempt_to_delete", ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}) });
  }

  /**
   * Starts watching every key under the prefix and working; resolves once the watch is
   * established. A stopped collector cannot be started again.
   * @throws what the storage's watch throws
   */
  async start(): Promise<void> {
    this.stopWorker = await startWatchedWorker(this.storage, {
      name: "garbage collector",
      prefix: this.options.prefix ?? "/registry/",
      queue: this.queue,
      sync: (key) => this.sync(key),
      onChange: (e) => this.observe(e.key, e.type === "DELETED" ? undefined : (e.object as APIObject)),
      log: this.options.log ?? (() => undefined),
    });
  }

  /** Stops the watch and the worker (a step under way finishes). */
  stop(): void {
    this.stopWorker?.();
    this.queue.shutDown();
  }

  /** graph_builder: index the change and queue whatever it may unblock. */
  private observe(key: string, obj: APIObject | undefined): void {
    const old = this.nodes.get(key);
    if (old) {
      for (const o of old.owners) this.dependents.get(o)?.delete(key);
    }
    if (obj === undefined) {
      this.nodes.delete(key);
      if (old) {
        this.keyByUid.delete(old.uid);
        // Its dependents may be orphans now; its deleting owners may be unblocked.
        for (const d of this.dependents.get(old.uid) ?? []) this.queue.add(d);
        for (const o of old.owners) {
          const ok = this.keyByUid.get(o);
          if (ok) this.queue.add(ok);
        }
      }
      return;
    }
    const uid = obj.metadata?.uid ?? "";
    const owners = (obj.metadata?.ownerReferences ?? []).map((r) => r.uid);
    this.nodes.set(key, { uid, owners });
    this.keyByUid.set(uid, key);
    for (const o of owners) {
      let set = this.dependents.get(o);
      if (!set) this.dependents.set(o, (set = new Set()));
      set.add(key);
    }
    const fins = obj.metadata?.finalizers ?? [];
    // Dependents are looked at when they appear or their owner references change (not on every
    // status write); owners when they are deleting with a garbage-collector finalizer.
    const ownersChanged = !old || old.owners.length !== owners.length || old.owners.some((o, i) => o !== owners[i]);
    if ((owners.length > 0 && ownersChanged) || (obj.metadata?.deletionTimestamp && (fins.includes("orphan") || fins.includes("foregroundDeletion")))) this.queue.add(key);
    if (obj.metadata?.deletionTimestamp) {
      for (const d of this.dependents.get(uid) ?? []) this.queue.add(d);
    }
    // A dependent losing an owner reference may unblock that owner's foreground deletion.
    for (const o of old?.owners ?? []) {
      if (!owners.includes(o)) {
        const ok = this.keyByUid.get(o);
        if (ok) this.queue.add(ok);
      }
    }
  }

  private async sync(key: string): Promise<void> {
    const loc = this.stores.locate(key);
    if (!loc) return;
    const ctx = systemContext(garbageCollectorUser, loc.namespace);
    let obj: APIObject;
    try {
      obj = await loc.store.get(ctx, loc.name);
    } catch (e) {
      if (hasStatusCode(e, 404)) return;
      throw e;
    }
    const fins = obj.metadata?.finalizers ?? [];
    if (obj.metadata?.deletionTimestamp) {
      if (fins.includes("orphan")) await this.orphanDependents(loc.store, obj);
      else if (fins.includes("foregroundDeletion")) await this.processDeletingDependents(loc.store, obj);
      return;
    }
    const refs = obj.metadata?.ownerReferences ?? [];
    if (refs.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const o = await this.lookupOwner(loc.store, obj, ref);
      if (o.state === "absent") dangling.push(ref);
      else if (o.state === "waiting") waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.removeOwnerRefs(loc.store, obj, drop);
      return;
    }
    const hasDependents = (this.dependents.get(obj.metadata?.uid ?? "")?.size ?? 0) > 0;
    const policy = waiting.length > 0 && hasDependents ? "Foreground" : fins.includes("orphan") ? "Orphan" : fins.includes("foregroundDeletion") ? "Foreground" : "Background";
    await this.deleteObject(loc.store, obj, policy);
  }

  private async lookupOwner(depStore: GenericStore, dep: APIObject, ref: OwnerReference): Promise<Owner> {
    const store = this.stores.forKind(ref.apiVersion, ref.kind);
    // An owner of a kind this server does not serve cannot be checked: treat it as present.
    if (!store) return { state: "solid", object: {} };
    const ns = store.strategy.resource.namespaced ? namespaceOf(depStore, dep) : undefined;
    if (store.strategy.resource.namespaced && ns === undefined) return { state: "absent" };
    try {
      const o = await store.get(systemContext(garbageCollectorUser, ns), ref.name);
      if (o.metadata?.uid !== ref.uid) return { state: "absent" };
      const deletingDependents = o.metadata?.deletionTimestamp !== undefined && (o.metadata.finalizers ?? []).includes("foregroundDeletion");
      return { state: deletingDependents ? "waiting" : "solid", object: o };
    } catch (e) {
      if (hasStatusCode(e, 404)) return { state: "absent" };
      throw e;
    }
  }

  private async deleteObject(store: GenericStore, obj: APIObject, policy: string): Promise<void> {
    const ctx = systemContext(garbageCollectorUser, namespaceOf(store, obj));
    try {
      await store.delete(ctx, obj.metadata?.name ?? "", { propagationPolicy: policy, preconditions: { uid: obj.metadata?.uid ?? "" } });
    } catch (e) {
      if (hasStatusCode(e, 404) || hasStatusCode(e, 409)) return;
      throw e;
    }
  }

  /** Live dependents of `owner`: every indexed object whose owner references name its uid. */
  private async liveDependents(owner: APIObject): Promise<{ store: GenericStore; object: APIObject }[]> {
    const uid = owner.metadata?.uid ?? "";
    const out: { store: GenericStore; object: APIObject }[] = [];
    for (const key of [...(this.dependents.get(uid) ?? [])]) {
      const loc = this.stores.locate(key);
      if (!loc) continue;
      try {
        const o = await loc.store.get(systemContext(garbageCollectorUser, loc.namespace), loc.name);
        if ((o.metadata?.ownerReferences ?? []).some((r) => r.uid === uid)) out.push({ store: loc.store, object: o });
      } catch (e) {
        if (!hasStatusCode(e, 404)) throw e;
      }
    }
    return out;
  }

  private async orphanDependents(store: GenericStore, owner: APIObject): Promise<void> {
    const uid = owner.metadata?.uid ?? "";
    for (const d of await this.liveDependents(owner)) await this.removeOwnerRefs(d.store, d.object, new Set([uid]));
    await this.removeFinalizer(store, owner, "orphan");
  }

  private async processDeletingDependents(store: GenericStore, owner: APIObject): Promise<void> {
    const uid = owner.metadata?.uid ?? "";
    const deps = await this.liveDependents(owner);
    const blocking = deps.filter((d) => (d.object.metadata?.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
    if (blocking.length === 0) {
      await this.removeFinalizer(store, owner, "foregroundDeletion");
      return;
    }
    for (const d of deps) if (!d.object.metadata?.deletionTimestamp) this.queue.add(d.store.key(namespaceOf(d.store, d.object), d.object.metadata?.name ?? ""));
  }

  private async removeOwnerRefs(store: GenericStore, obj: APIObject, uids: ReadonlySet<string>): Promise<void> {
    const ctx = systemContext(garbageCollectorUser, namespaceOf(store, obj));
    try {
      await store.update(ctx, obj.metadata?.name ?? "", (cur) => {
        if (!cur || cur.metadata?.uid !== obj.metadata?.uid) throw new SkipError();
        const meta = (cur.metadata ??= {});
        const kept = (meta.ownerReferences ?? []).filter((r) => !uids.has(r.uid));
        if (kept.length > 0) meta.ownerReferences = kept;
        else delete meta.ownerReferences;
        return cur;
      });
    } catch (e) {
      if (e instanceof SkipError || hasStatusCode(e, 404)) return;
      throw e;
    }
  }

  private async removeFinalizer(store: GenericStore, obj: APIObject, finalizer: string): Promise<void> {
    const ctx = systemContext(garbageCollectorUser, namespaceOf(store, obj));
    try {
      await store.update(ctx, obj.metadata?.name ?? "", (cur) => {
        if (!cur || cur.metadata?.uid !== obj.metadata?.uid) throw new SkipError();
        const meta = (cur.metadata ??= {});
        const kept = (meta.finalizers ?? []).filter((f) => f !== finalizer);
        if (kept.length > 0) meta.finalizers = kept;
        else delete meta.finalizers;
        return cur;
      });
    } catch (e) {
      if (e instanceof SkipError || hasStatusCode(e, 404)) return;
      throw e;
    }
  }
}

class SkipError extends Error {}
