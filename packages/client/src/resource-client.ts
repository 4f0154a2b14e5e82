/**
 * The typed REST client of one resource: the verbs of the resource API over HTTP(S).
 *
 * @see staging/src/k8s.io/client-go/rest/request.go
 * @see staging/src/k8s.io/client-go/kubernetes/typed/core/v1/pod.go (the generated per-kind clients)
 */

import type { ListMeta, ObjectMeta, Preconditions, Status } from "@skiff/api-types";
import type { ResourceInfo } from "@skiff/api-types";
import { WatchEventDecoder } from "@skiff/apimachinery";
import type { StatusBody } from "@skiff/apimachinery";
import { ClientError } from "./errors.js";
import type { RequestSpec, Transport } from "./internal/transport.js";

/** Any API object: optional `metadata` as every generated kind has. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A list response: `items` and the list's `metadata` (resourceVersion, continue). */
export interface ObjectList<T> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** Where a call goes: the namespace of a namespaced resource (omit for all namespaces on list/watch). */
export interface NamespaceOption {
  readonly namespace?: string;
}

/** Options of writes. */
export interface WriteOptions extends NamespaceOption {
  /** Validate and default but do not persist (`dryRun=All`). */
  readonly dryRun?: boolean;
  /** Name of the actor making the change, for managedFields. */
  readonly fieldManager?: string;
  readonly signal?: AbortSignal;
}

/** Options of `list`, `listAll` and `deleteCollection` (query parameters of the same names). */
export interface ListOptions extends NamespaceOption {
  /** Label selector text, such as `app=web,tier!=db`. */
  readonly labelSelector?: string;
  /** Field selector text, such as `spec.nodeName=`. */
  readonly fieldSelector?: string;
  /** Page size; the server returns a `continue` token when more remain. */
  readonly limit?: number;
  /** Continue token of the previous page. */
  readonly continue?: string;
  /** `""`/omitted: most recent (consistent read); `"0"`: any; else at least / exactly this revision. */
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: "NotOlderThan" | "Exact";
  readonly signal?: AbortSignal;
}

/** Options of `watch`. */
export interface WatchOptions extends NamespaceOption {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Start after this revision (events newer than it); omitted: synthetic ADDED for every object, then changes. */
  readonly resourceVersion?: string;
  /** Ask for BOOKMARK events carrying the latest revision. @defaultValue false */
  readonly allowWatchBookmarks?: boolean;
  /** Server-side duration of the watch in seconds; the stream ends cleanly after it. */
  readonly timeoutSeconds?: number;
  /** Ends the watch when aborted (the iterator then finishes without error). */
  readonly signal?: AbortSignal;
}

/** Kinds of patch: JSON Patch (RFC 6902), JSON merge patch (RFC 7386), strategic merge patch, server-side apply. */
export type PatchType = "json" | "merge" | "strategic" | "apply";

const patchContentTypes: Readonly<Record<PatchType, string>> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

/** Options of `patch`. */
export interface PatchOptions extends WriteOptions {
  /** @defaultValue "merge" */
  readonly type?: PatchType;
  /** For `apply`: take ownership of conflicting fields. */
  readonly force?: boolean;
  /** Patch a subresource (`status`) instead of the object. */
  readonly subresource?: "status";
}

/** Options of `delete` and `deleteCollection`: the DeleteOptions body fields. */
export interface DeleteOptions extends NamespaceOption {
  /** Seconds before the object is deleted; 0 deletes at once. */
  readonly gracePeriodSeconds?: number;
  /** What happens to dependents: `Orphan`, `Background` or `Foreground`. */
  readonly propagationPolicy?: "Orphan" | "Background" | "Foreground";
  /** Delete only if the object still has this UID / resourceVersion (else 409 Conflict). */
  readonly preconditions?: Preconditions;
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
}

/** A watch event with a typed object; ERROR events carry the server's Status. */
export type ResourceWatchEvent<T> = { readonly type: "ADDED" | "MODIFIED" | "DELETED"; readonly object: T } | { readonly type: "BOOKMARK"; readonly object: { metadata: { resourceVersion: string } } } | { readonly type: "ERROR"; readonly object: StatusBody };

/**
 * An open watch: iterate it for events (`for await`); `stop()` (or the signal) ends the iteration
 * cleanly. The iteration ends when the server closes the stream (timeout): resume with a new
 * watch from the last resourceVersion seen. Iterating throws `StatusError` if the server refuses
 * the watch (410 Expired for a compacted resourceVersion) and {@link ClientError} on a network
 * failure or an undecodable stream.
 */
export interface Watch<T> extends AsyncIterable<ResourceWatchEvent<T>> {
  stop(): void;
}

/**
 * The REST verbs of one resource, typed by its kind `T`. Writes fill in a missing `apiVersion`
 * and `kind` from the resource. Namespaced resources take the
 * namespace as `options.namespace`; `create`/`update` default it from the object's
 * `metadata.namespace` (create falls back to `default`). Nothing mutates its arguments.
 *
 * Every method throws `StatusError` (apimachinery) with the server's Status for an API error,
 * {@link ClientError} for a network failure, abort, or a namespaced call missing its namespace.
 */
export interface ResourceClient<T extends KubeObject> {
  readonly info: ResourceInfo;
  create(obj: T, options?: WriteOptions): Promise<T>;
  get(name: string, options?: NamespaceOption & { readonly resourceVersion?: string; readonly signal?: AbortSignal }): Promise<T>;
  list(options?: ListOptions): Promise<ObjectList<T>>;
  /** Lists every page (following `continue`); the result's metadata is the last page's (its resourceVersion is the list's). */
  listAll(options?: ListOptions): Promise<ObjectList<T>>;
  watch(options?: WatchOptions): Watch<T>;
  /** Replaces the object (optimistic concurrency on `metadata.resourceVersion`: 409 Conflict if stale). */
  update(obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the status subresource (spec changes are ignored by the server). */
  updateStatus(obj: T, options?: WriteOptions): Promise<T>;
  patch(name: string, patch: unknown, options?: PatchOptions): Promise<T>;
  /** Deletes the object; resolves with the object (when it lingers: finalizers, grace) or a Success Status. */
  delete(name: string, options?: DeleteOptions): Promise<T | Status>;
  /** Deletes every object matching the selectors; resolves with the list of deleted objects. */
  deleteCollection(options?: ListOptions & DeleteOptions): Promise<ObjectList<T> | Status>;
}

/** The URL path of a resource collection, object or subresource. */
export function resourcePath(info: ResourceInfo, namespace: string | undefined, name?: string, subresource?: string): string {
  let p = info.group === "" ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  if (info.namespaced && namespace !== undefined && namespace !== "") p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${info.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) p += `/${subresource}`;
  return p;
}

function deleteBody(o: DeleteOptions): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "DeleteOptions",
    ...(o.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: o.gracePeriodSeconds } : {}),
    ...(o.propagationPolicy !== undefined ? { propagationPolicy: o.propagationPolicy } : {}),
    ...(o.preconditions !== undefined ? { preconditions: o.preconditions } : {}),
    ...(o.dryRun ? { dryRun: ["All"] } : {}),
  };
}

function listQuery(o: ListOptions): Record<string, string | number | undefined> {
  return {
    labelSelector: o.labelSelector || undefined,
    fieldSelector: o.fieldSelector || undefined,
    limit: o.limit,
    continue: o.continue || undefined,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
  };
}

/** Builds the client of one resource over a transport (internal; use `createClient`). */
export function newResourceClient<T extends KubeObject>(info: ResourceInfo, transport: Transport): ResourceClient<T> {
  const spec = (verb: string, partial: Omit<RequestSpec, "verb" | "group" | "resource">): RequestSpec => ({ ...partial, verb, group: info.group, resource: info.plural });
  const needNamespace = (verb: string, ns: string | undefined): string | undefined => {
    if (!info.namespaced) return undefined;
    if (ns === undefined || ns === "") throw new ClientError("MissingNamespace", `${verb} ${info.plural}: a namespace is required for a namespaced resource`);
    return ns;
  };
  const objNamespace = (obj: T, o: NamespaceOption, fallback?: string) => (info.namespaced ? (o.namespace ?? obj.metadata?.namespace ?? fallback) : undefined);
  const objName = (verb: string, obj: T): string => {
    const name = obj.metadata?.name;
    if (name === undefined || name === "") throw new ClientError("MissingNamespace", `${verb} ${info.plural}: the object has no metadata.name`);
    return name;
  };
  const apiVersion = info.group === "" ? info.version : `${info.group}/${info.version}`;
  const typed = (obj: T): T => (obj.apiVersion && obj.kind ? obj : { ...obj, apiVersion: obj.apiVersion || apiVersion, kind: obj.kind || info.kind });
  const writeQuery = (o: WriteOptions) => ({ dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager });
  const signalOf = (o: { readonly signal?: AbortSignal }) => (o.signal ? { signal: o.signal } : {});

  const client: ResourceClient<T> = {
    info,
    async create(obj, o = {}) {
      const ns = info.namespaced ? needNamespace("create", objNamespace(obj, o, "default")) : undefined;
      return transport.json<T>(spec("create", { method: "POST", path: resourcePath(info, ns), query: writeQuery(o), body: typed(obj), ...signalOf(o) }));
    },
    async get(name, o = {}) {
      const ns = needNamespace("get", o.namespace);
      return transport.json<T>(spec("get", { method: "GET", path: resourcePath(info, ns, name), query: { resourceVersion: o.resourceVersion }, name, ...signalOf(o) }));
    },
    async list(o = {}) {
      return transport.json<ObjectList<T>>(spec("list", { method: "GET", path: resourcePath(info, o.namespace), query: listQuery(o), ...signalOf(o) }));
    },
    async listAll(o = {}) {
      let page = await client.list(o);
      const items = [...page.items];
      while (page.metadata.continue) {
        page = await client.list({ ...o, continue: page.metadata.continue });
        items.push(...page.items);
      }
      const { continue: _c, remainingItemCount: _r, ...metadata } = page.metadata;
      return { ...page, metadata, items };
    },
    watch(o = {}) {
      return openWatch<T>(info, transport, o);
    },
    async update(obj, o = {}) {
      const name = objName("update", obj);
      const ns = needNamespace("update", objNamespace(obj, o));
      return transport.json<T>(spec("update", { method: "PUT", path: resourcePath(info, ns, name), query: writeQuery(o), body: typed(obj), name, ...signalOf(o) }));
    },
    async updateStatus(obj, o = {}) {
      const name = objName("update", obj);
      const ns = needNamespace("update", objNamespace(obj, o));
      return transport.json<T>(spec("update", { method: "PUT", path: resourcePath(info, ns, name, "status"), query: writeQuery(o), body: typed(obj), name, ...signalOf(o) }));
    },
    async patch(name, patch, o = {}) {
      const ns = needNamespace("patch", o.namespace);
      const type = o.type ?? "merge";
      const query = { ...writeQuery(o), force: type === "apply" && o.force !== undefined ? String(o.force) : undefined };
      return transport.json<T>(
        spec("patch", { method: "PATCH", path: resourcePath(info, ns, name, o.subresource), query, body: patch, contentType: patchContentTypes[type], name, ...signalOf(o) }),
      );
    },
    async delete(name, o = {}) {
      const ns = needNamespace("delete", o.namespace);
      return transport.json<T | Status>(spec("delete", { method: "DELETE", path: resourcePath(info, ns, name), body: deleteBody(o), name, ...signalOf(o) }));
    },
    async deleteCollection(o = {}) {
      return transport.json<ObjectList<T> | Status>(
        spec("deletecollection", { method: "DELETE", path: resourcePath(info, o.namespace), query: listQuery(o), body: deleteBody(o), ...signalOf(o) }),
      );
    },
  };
  return client;
}

function openWatch<T>(info: ResourceInfo, transport: Transport, o: WatchOptions): Watch<T> {
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort();
  if (o.signal?.aborted) controller.abort();
  else o.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const spec: RequestSpec = {
    verb: "watch",
    group: info.group,
    resource: info.plural,
    method: "GET",
    path: resourcePath(info, o.namespace),
    query: {
      watch: "true",
      labelSelector: o.labelSelector || undefined,
      fieldSelector: o.fieldSelector || undefined,
      resourceVersion: o.resourceVersion,
      allowWatchBookmarks: o.allowWatchBookmarks ? "true" : undefined,
      timeoutSeconds: o.timeoutSeconds,
    },
    signal: controller.signal,
  };
  async function* run(): AsyncGenerator<ResourceWatchEvent<T>> {
    if (controller.signal.aborted) return;
    let res;
    try {
      res = await transport.send(spec);
    } catch (e) {
      if (controller.signal.aborted) return;
      throw e;
    }
    try {
      const code = res.statusCode;
      if (code < 200 || code > 299) throw transport.errorFor(res, await transport.readBody(res, spec), spec);
      const decoder = new WatchEventDecoder();
      try {
        for await (const chunk of res.body) {
          for (const ev of decoder.push(chunk)) yield ev as ResourceWatchEvent<T>;
        }
        for (const ev of decoder.end()) yield ev as ResourceWatchEvent<T>;
      } catch (e) {
        if (controller.signal.aborted) return;
        if (e instanceof Error && e.name === "WatchDecodeError") throw new ClientError("DecodeError", `watch ${info.plural}: ${e.message}`, { cause: e });
        throw new ClientError("NetworkError", `watch ${info.plural}: stream interrupted: ${(e as Error).message}`, { cause: e });
      }
    } finally {
      o.signal?.removeEventListener("abort", onOuterAbort);
      res.body.destroy();
    }
  }
  let iterator: AsyncGenerator<ResourceWatchEvent<T>> | undefined;
  return {
    stop: () => controller.abort(),
    [Symbol.asyncIterator]() {
      iterator ??= run();
      return iterator;
    },
  };
}
