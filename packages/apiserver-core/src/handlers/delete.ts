/**
 * DELETE of one object and of a collection.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go (DeleteResource, DeleteCollection)
 */
import { deleteRequest } from "../registry/store.js";
import type { StoreDeleteOptions } from "../registry/store.js";
import { runDeleteAdmission } from "./admission.js";
import type { HandlerResult } from "./response.js";
import { listParams } from "./scope.js";
import type { RequestScope } from "./scope.js";

function bodyText(scope: RequestScope): string {
  return typeof scope.req.body === "string" ? scope.req.body : "";
}

// The request's DeleteOptions with admission run on each object deleted.
function withAdmission(scope: RequestScope, options: StoreDeleteOptions): StoreDeleteOptions {
  const { config, req, ctx } = scope;
  return config.admission.length === 0 ? options : { ...options, validateDeletion: (old) => runDeleteAdmission(config.admission, req.info, ctx, old) };
}

/**
 * Deletes the named object: the object while it waits for finalizers or its grace period, else
 * the deleted object or a Success `Status` (per the strategy's `returnDeletedObject`); all 200.
 * @throws StatusError 400/422 (DeleteOptions), 404, 409 (preconditions), 403 (admission: an immortal namespace)
 */
export async function deleteResource(scope: RequestScope): Promise<HandlerResult> {
  const { store, req } = scope;
  const { ctx, options } = deleteRequest(scope.ctx, req.query, bodyText(scope));
  const r = await store.delete(ctx, req.info.name, withAdmission(scope, options));
  if (!r.finalized || store.strategy.returnDeletedObject) return { type: "object", code: 200, object: r.object };
  const res = store.strategy.resource;
  return {
    type: "object",
    code: 200,
    object: {
      kind: "Status", apiVersion: "v1", metadata: {}, status: "Success",
      details: { name: req.info.name, group: res.group, kind: res.plural, uid: r.object.metadata?.uid ?? "" },
    },
  };
}

/**
 * Deletes every object the query selects; answers the list as read (200).
 * @throws StatusError as list, and as DeleteResource for each item
 */
export async function deleteCollection(scope: RequestScope): Promise<HandlerResult> {
  const { ctx, options } = deleteRequest(scope.ctx, scope.req.query, bodyText(scope));
  return { type: "object", code: 200, object: await scope.store.deleteCollection(ctx, listParams(scope.req.query), withAdmission(scope, options)) };
}
