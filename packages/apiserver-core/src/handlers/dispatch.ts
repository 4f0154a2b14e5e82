/**
 * Routing of resource requests to the per-verb handlers: the store serving the path, the verbs a
 * path and its subresource take (405 otherwise), then one table of verb → handler.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (registerResourceHandlers)
 */
import { newMethodNotSupported } from "@skiff/apimachinery";
import type { GenericStore } from "../registry/store.js";
import { createResource, createSubresource } from "./create.js";
import { deleteCollection, deleteResource } from "./delete.js";
import { getResource } from "./get.js";
import { listResource } from "./list.js";
import { patchResource } from "./patch.js";
import type { HandlerResult } from "./response.js";
import { newRequestScope } from "./scope.js";
import type { HandlerConfig, HandlerRequest, RequestScope } from "./scope.js";
import { updateResource } from "./update.js";
import { watchResource } from "./watch.js";

/** A per-verb REST handler. */
export type VerbHandler = (scope: RequestScope) => Promise<HandlerResult>;

/** The handler of each verb of a resource (or of an update subresource such as `/status`). */
const verbHandlers: Readonly<Record<string, VerbHandler>> = {
  get: getResource,
  list: listResource,
  watch: watchResource,
  create: createResource,
  update: updateResource,
  patch: patchResource,
  delete: deleteResource,
  deletecollection: deleteCollection,
};

/** The stores of the served resources, keyed by {@link storeKey}. */
export type StoreMap = ReadonlyMap<string, GenericStore>;

/** The key of a resource in a {@link StoreMap}: `group/version/plural`. */
export function storeKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/**
 * The store serving a resource request's path, or `undefined` when none does (404): unknown
 * resources and subresources, paths with extra segments, a namespace on a cluster-scoped kind.
 */
export function resolveStore(req: HandlerRequest, stores: StoreMap): GenericStore | undefined {
  const { info } = req;
  if (!info.isResourceRequest) return undefined;
  if (info.apiPrefix === "api" && info.apiGroup !== "") return undefined;
  const store = stores.get(storeKey(info.apiGroup, info.apiVersion, info.resource));
  if (!store) return undefined;
  const s = store.strategy;
  if (info.subresource && !s.resource.subresources.includes(info.subresource) && !s.subresourceUpdates?.[info.subresource]) return undefined;
  if (info.parts.length > 3) return undefined;
  if (!s.resource.namespaced && info.namespace && info.resource !== "namespaces") return undefined;
  return store;
}

/**
 * The verbs a path takes: an object its get/update/patch/delete/watch; a collection
 * list/watch/create/deletecollection — each only if the resource's discovery `verbs` name it (so
 * the routes and discovery agree: no deletecollection of namespaces, as 1.23); an update
 * subresource get/update/patch (`finalize`: update only); a create subresource create.
 */
function allowedVerbs(store: GenericStore, req: HandlerRequest): readonly string[] {
  const { info } = req;
  const sub = info.subresource;
  if (sub) {
    if (store.strategy.subresourceCreates?.[sub]) return ["create"];
    return sub === "finalize" ? ["update"] : ["get", "update", "patch"];
  }
  const verbs: readonly string[] = store.strategy.resource.verbs;
  return (info.name ? ["get", "update", "patch", "delete", "watch"] : ["list", "watch", "create", "deletecollection"]).filter((v) => verbs.includes(v));
}

/**
 * Serves a resource request with `store` (from {@link resolveStore}): checks the verb, builds the
 * scope and runs the verb's handler. Returns the scope (for encoding) and the result.
 * @throws StatusError 405 (a verb the path does not take), and whatever the handler throws
 */
export async function serveResource(req: HandlerRequest, store: GenericStore, config: HandlerConfig): Promise<{ scope: RequestScope; result: HandlerResult }> {
  const { info } = req;
  const handler = info.subresource && store.strategy.subresourceCreates?.[info.subresource] ? createSubresource : verbHandlers[info.verb];
  if (!allowedVerbs(store, req).includes(info.verb) || handler === undefined) {
    throw newMethodNotSupported({ group: store.strategy.resource.group, resource: store.strategy.resource.plural }, req.method);
  }
  const scope = newRequestScope(req, store, config);
  return { scope, result: await handler(scope) };
}
