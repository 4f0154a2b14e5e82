import type { Pod, PodSpec } from "@skiff/api-types";
import { isNotFound, newNotFound } from "@skiff/apimachinery";
import { createInformer, type Informer, type KubeObject, type ResourceClient } from "@skiff/client";

/**
 * How the node agent notices changes of the ConfigMaps and Secrets its pods use
 * (`configMapAndSecretChangeDetectionStrategy`): `Watch` (one list+watch per referenced object),
 * `Cache` (a TTL cache of GETs, invalidated when a pod is added or updated), `Get` (a GET each time).
 * @see staging/src/k8s.io/kubelet/config/v1beta1/types.go (ResourceChangeDetectionStrategy) in kubernetes/kubernetes v1.23
 */
export type ChangeDetectionStrategy = "Watch" | "Cache" | "Get";

/** The strategies, as accepted by the configuration. */
export const changeDetectionStrategies: readonly ChangeDetectionStrategy[] = Object.freeze(["Watch", "Cache", "Get"]);

/** Whether `s` names a {@link ChangeDetectionStrategy}. */
export function isChangeDetectionStrategy(s: string): s is ChangeDetectionStrategy {
  return (changeDetectionStrategies as readonly string[]).includes(s);
}

/**
 * The kubelet's configmap/secret manager for one kind: objects of the pods registered on this node.
 * `registerPod`/`unregisterPod` never block on the network; `get` may.
 * @see pkg/kubelet/configmap/configmap_manager.go, pkg/kubelet/secret/secret_manager.go in kubernetes/kubernetes v1.23
 */
export interface ObjectManager<T> {
  /**
   * The object `namespace/name`.
   * @throws StatusError NotFound (`configmap "x" not found` from the watch cache, `configmaps "x"
   *   not found` from the apiserver), or the fetch's error; `object "ns"/"name" not registered`
   *   when no registered pod references it (Watch and Cache).
   */
  get(namespace: string, name: string): Promise<T>;
  /** Registers (or updates) the objects `pod` references. */
  registerPod(pod: Pod): void;
  /** Drops the references of `pod`. */
  unregisterPod(pod: Pod): void;
  /** Stops every watch. */
  stop(): void;
}

/** The names of the objects of one kind that a pod references. */
export type ReferencedNames = (pod: Pod) => Set<string>;

function allContainers(spec: PodSpec) {
  return [...(spec.initContainers ?? []), ...spec.containers, ...((spec as { ephemeralContainers?: PodSpec["containers"] }).ephemeralContainers ?? [])];
}

/**
 * The ConfigMaps a pod references: `envFrom[].configMapRef`, `env[].valueFrom.configMapKeyRef` of
 * every container, `configMap` volumes and `projected` configMap sources.
 * @see pkg/api/v1/pod/util.go (VisitPodConfigmapNames) in kubernetes/kubernetes v1.23
 */
export function podConfigMapNames(pod: Pod): Set<string> {
  const out = new Set<string>();
  const spec = pod.spec ?? { containers: [] };
  for (const c of allContainers(spec)) {
    for (const e of c.envFrom ?? []) if (e.configMapRef?.name) out.add(e.configMapRef.name);
    for (const e of c.env ?? []) if (e.valueFrom?.configMapKeyRef?.name) out.add(e.valueFrom.configMapKeyRef.name);
  }
  for (const v of spec.volumes ?? []) {
    if (v.configMap?.name) out.add(v.configMap.name);
    for (const s of v.projected?.sources ?? []) if (s.configMap?.name) out.add(s.configMap.name);
  }
  return out;
}

/**
 * The Secrets a pod references: `imagePullSecrets`, `envFrom[].secretRef`,
 * `env[].valueFrom.secretKeyRef`, `secret` volumes, `projected` secret sources and CSI
 * `nodePublishSecretRef`.
 * @see pkg/api/v1/pod/util.go (VisitPodSecretNames) in kubernetes/kubernetes v1.23
 */
export function podSecretNames(pod: Pod): Set<string> {
  const out = new Set<string>();
  const spec = pod.spec ?? { containers: [] };
  for (const r of spec.imagePullSecrets ?? []) if (r.name) out.add(r.name);
  for (const c of allContainers(spec)) {
    for (const e of c.envFrom ?? []) if (e.secretRef?.name) out.add(e.secretRef.name);
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef?.name) out.add(e.valueFrom.secretKeyRef.name);
  }
  for (const v of spec.volumes ?? []) {
    if (v.secret?.secretName) out.add(v.secret.secretName);
    for (const s of v.projected?.sources ?? []) if (s.secret?.name) out.add(s.secret.name);
    const csiRef = (v as { csi?: { nodePublishSecretRef?: { name?: string } } }).csi?.nodePublishSecretRef?.name;
    if (csiRef) out.add(csiRef);
  }
  return out;
}

const podKey = (pod: Pod) => `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}/${pod.metadata?.uid ?? ""}`;
const objKey = (namespace: string, name: string) => `${namespace}/${name}`;
/** A ConfigMap/Secret manager's own failure (the object was not registered, its watch did not sync); messages are 1.23's. */
export class ObjectManagerError extends Error {
  override readonly name = "ObjectManagerError";
  constructor(
    message: string,
    readonly reason: "NotRegistered" | "SyncTimeout",
  ) {
    super(message);
  }
}

const notRegistered = (namespace: string, name: string) => new ObjectManagerError(`object ${JSON.stringify(namespace)}/${JSON.stringify(name)} not registered`, "NotRegistered");

/**
 * `Get`: every `get` is a GET to the apiserver; registration does nothing.
 * @see pkg/kubelet/configmap/configmap_manager.go (simpleConfigMapManager) in kubernetes/kubernetes v1.23
 */
export class GetObjectManager<T extends KubeObject> implements ObjectManager<T> {
  constructor(private readonly client: ResourceClient<T>) {}
  get(namespace: string, name: string): Promise<T> {
    return this.client.get(name, { namespace });
  }
  registerPod(): void {}
  unregisterPod(): void {}
  stop(): void {}
}

/** Reference counting shared by the Cache and Watch managers. @see pkg/kubelet/util/manager/cache_based_manager.go (cacheBasedManager) */
abstract class ReferencingManager<T> implements ObjectManager<T> {
  private readonly pods = new Map<string, Pod>();
  constructor(private readonly names: ReferencedNames) {}
  abstract get(namespace: string, name: string): Promise<T>;
  protected abstract addReference(namespace: string, name: string): void;
  protected abstract deleteReference(namespace: string, name: string): void;
  abstract stop(): void;

  registerPod(pod: Pod): void {
    const ns = pod.metadata?.namespace ?? "";
    for (const n of this.names(pod)) this.addReference(ns, n);
    const key = podKey(pod);
    const prev = this.pods.get(key);
    this.pods.set(key, pod);
    // As 1.23: every reference of the new spec is added, then every one of the previous spec dropped.
    if (prev) for (const n of this.names(prev)) this.deleteReference(ns, n);
  }

  unregisterPod(pod: Pod): void {
    const key = podKey(pod);
    const prev = this.pods.get(key);
    this.pods.delete(key);
    if (prev) for (const n of this.names(prev)) this.deleteReference(prev.metadata?.namespace ?? "", n);
  }
}

interface CachedData<T> {
  object?: T;
  err?: unknown;
  lastUpdateMs: number;
  inflight?: Promise<void>;
}

/** Options of {@link CacheObjectManager}. */
export interface CacheObjectManagerOptions {
  /** How long a fetched object is fresh, ms. @defaultValue 60_000 (the kubelet's `defaultTTL`) */
  readonly ttlMs?: number;
  /** ms clock. @defaultValue Date.now */
  readonly now?: () => number;
}

function olderThan(a: KubeObject | undefined, b: KubeObject | undefined): boolean {
  if (!a || !b) return false;
  const ra = Number(a.metadata?.resourceVersion ?? "");
  const rb = Number(b.metadata?.resourceVersion ?? "");
  return Number.isFinite(ra) && Number.isFinite(rb) && ra < rb;
}

/**
 * `Cache`: a TTL cache of GETs for the objects of registered pods. Registering a pod invalidates
 * its objects (the next `get` fetches); a `get` of a stale entry (older than the TTL) or of a
 * cached error fetches again; a NotFound answer is cached like an object; another error is
 * returned only when nothing is cached (else the cached object is served); an answer older than
 * the cached object (by resourceVersion) is ignored.
 * @see pkg/kubelet/util/manager/cache_based_manager.go (objectStore) in kubernetes/kubernetes v1.23
 */
export class CacheObjectManager<T extends KubeObject> extends ReferencingManager<T> {
  private readonly items = new Map<string, { refCount: number; data: CachedData<T> | undefined }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: ResourceClient<T>,
    names: ReferencedNames,
    o: CacheObjectManagerOptions = {},
  ) {
    super(names);
    this.ttlMs = o.ttlMs ?? 60_000;
    this.now = o.now ?? Date.now;
  }

  protected addReference(namespace: string, name: string): void {
    const key = objKey(namespace, name);
    const item = this.items.get(key) ?? { refCount: 0, data: undefined };
    item.refCount++;
    item.data = undefined;
    this.items.set(key, item);
  }

  protected deleteReference(namespace: string, name: string): void {
    const key = objKey(namespace, name);
    const item = this.items.get(key);
    if (!item) return;
    if (--item.refCount <= 0) this.items.delete(key);
  }

  async get(namespace: string, name: string): Promise<T> {
    const item = this.items.get(objKey(namespace, name));
    if (!item) throw notRegistered(namespace, name);
    item.data ??= { lastUpdateMs: -Infinity };
    const data = item.data;
    while (data.inflight) await data.inflight;
    if (data.err !== undefined || this.now() >= data.lastUpdateMs + this.ttlMs) {
      let direct: { err: unknown } | undefined;
      data.inflight = (async () => {
        try {
          const object = await this.client.get(name, { namespace });
          if (!olderThan(object, data.object)) Object.assign(data, { object, err: undefined, lastUpdateMs: this.now() });
        } catch (err) {
          if (isNotFound(err)) Object.assign(data, { object: undefined, err, lastUpdateMs: this.now() });
          else if (data.object === undefined && data.err === undefined) direct = { err };
        }
      })();
      await data.inflight;
      delete data.inflight;
      if (direct) throw direct.err;
    }
    if (data.err !== undefined) throw data.err;
    if (data.object === undefined) throw notRegistered(namespace, name);
    return data.object;
  }

  stop(): void {}
}

/** Options of {@link WatchObjectManager}. */
export interface WatchObjectManagerOptions {
  /** The resource name in NotFound messages (`configmap`, `secret`). */
  readonly groupResource: string;
  /** Whether an object is immutable (its watch is then stopped). */
  readonly isImmutable: (obj: KubeObject) => boolean;
  /** A watch not read for this long is stopped (restarted by the next `get`), ms. @defaultValue 5 × 60_000 */
  readonly maxIdleMs?: number;
  /** How long `get` waits for a new watch's first list, ms. @defaultValue 1_000 */
  readonly syncTimeoutMs?: number;
  readonly onError?: (err: unknown, context: string) => void;
}

interface WatchItem<T extends KubeObject> {
  refCount: number;
  informer: Informer<T> | undefined;
  lastAccessMs: number;
  immutable: boolean;
  /** The object once it was seen immutable (its watch is stopped). */
  last?: T;
}

/**
 * `Watch`: one list+watch per referenced object (field selector `metadata.name=<name>` in its
 * namespace), started when the first registered pod references it and stopped when the last one
 * goes; `get` answers from that cache (waiting up to 1 s for the first list: `failed to sync
 * configmap cache: timed out waiting for the condition`), NotFound as `configmap "x" not found`.
 * An immutable object's watch is stopped; a watch idle for `maxIdleMs` is stopped and restarted
 * by the next `get`.
 * @see pkg/kubelet/util/manager/watch_based_manager.go in kubernetes/kubernetes v1.23
 */
export class WatchObjectManager<T extends KubeObject> extends ReferencingManager<T> {
  private readonly items = new Map<string, WatchItem<T>>();
  private readonly recycle: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly client: ResourceClient<T>,
    names: ReferencedNames,
    private readonly o: WatchObjectManagerOptions,
  ) {
    super(names);
    this.recycle = setInterval(() => this.recycleIdle(), Math.min(60_000, o.maxIdleMs ?? 300_000));
    this.recycle.unref();
  }

  private startInformer(namespace: string, name: string): Informer<T> {
    const informer = createInformer(this.client, {
      namespace,
      fieldSelector: `metadata.name=${name}`,
      ...(this.o.onError ? { onError: this.o.onError } : { onError: () => {} }),
    });
    informer.start();
    return informer;
  }

  protected addReference(namespace: string, name: string): void {
    const key = objKey(namespace, name);
    let item = this.items.get(key);
    if (!item) {
      item = { refCount: 0, informer: this.stopped ? undefined : this.startInformer(namespace, name), lastAccessMs: Date.now(), immutable: false };
      this.items.set(key, item);
    }
    item.refCount++;
  }

  protected deleteReference(namespace: string, name: string): void {
    const key = objKey(namespace, name);
    const item = this.items.get(key);
    if (!item) return;
    if (--item.refCount <= 0) {
      item.informer?.stop();
      this.items.delete(key);
    }
  }

  async get(namespace: string, name: string): Promise<T> {
    const item = this.items.get(objKey(namespace, name));
    if (!item) throw notRegistered(namespace, name);
    item.lastAccessMs = Date.now();
    if (!item.informer && !item.immutable && !this.stopped) item.informer = this.startInformer(namespace, name);
    const informer = item.informer;
    if (informer && !informer.hasSynced()) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), this.o.syncTimeoutMs ?? 1_000);
      const synced = await informer.waitForSync(abort.signal).finally(() => clearTimeout(timer));
      if (!synced) throw new ObjectManagerError(`failed to sync ${this.o.groupResource} cache: timed out waiting for the condition`, "SyncTimeout");
    }
    const obj = informer?.store.get(objKey(namespace, name)) ?? item.last;
    if (!obj) throw newNotFound({ group: "", resource: this.o.groupResource }, name);
    if (this.o.isImmutable(obj)) {
      // As 1.23: an immutable object cannot change, so its watch is stopped; the last state is kept.
      item.immutable = true;
      item.last = obj;
      informer?.stop();
      item.informer = undefined;
    }
    return obj;
  }

  private recycleIdle(): void {
    const maxIdle = this.o.maxIdleMs ?? 300_000;
    const now = Date.now();
    for (const item of this.items.values()) {
      if (item.informer && now - item.lastAccessMs > maxIdle) {
        item.informer.stop();
        item.informer = undefined;
      }
    }
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.recycle);
    for (const item of this.items.values()) {
      item.informer?.stop();
      item.informer = undefined;
    }
  }
}
