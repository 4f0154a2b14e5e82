/**
 * POST to a collection (create) and to a create subresource (`pods/binding`, `pods/eviction`).
 * Order as 1.23: decode (with defaults) → managedFields → mutating admission → the store's
 * create (strategy hooks, validation, validating admission, storage).
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go (createHandler)
 */
import { trackUpdate } from "./apply.js";
import { runMutatingAdmission, runValidatingAdmission } from "./admission.js";
import { decodeRequestBody, decodeRequestObject } from "./decode.js";
import type { HandlerResult } from "./response.js";
import type { RequestScope } from "./scope.js";
import type { APIObject } from "../registry/strategy.js";

/**
 * Creates the object in the body (201).
 * @throws StatusError 400 (decoding), 404/403 (namespace lifecycle), 409 (exists), 422 (validation), 415
 */
export async function createResource(scope: RequestScope): Promise<HandlerResult> {
  const { store, ctx, req, config } = scope;
  const res = store.strategy.resource;
  const obj = trackUpdate(null, decodeRequestObject(scope), scope.manager, res, req.info.subresource, ctx.now, true);
  await runMutatingAdmission(config.admission, req.info, ctx, obj, null);
  const created = await store.create(ctx, obj, {
    defaulted: true,
    validateAdmission: (o, old) => runValidatingAdmission(config.admission, req.info, ctx, o, old),
  });
  return { type: "object", code: 201, object: created };
}

/**
 * POST to a subresource the strategy creates through (`subresourceCreates`): the body decoded as
 * plain JSON/YAML/protobuf, handed to the strategy's handler (201).
 * @throws whatever the subresource handler throws (StatusError)
 */
export async function createSubresource(scope: RequestScope): Promise<HandlerResult> {
  const { store, ctx, req } = scope;
  const handler = store.strategy.subresourceCreates?.[req.info.subresource];
  if (handler === undefined) throw new Error(`no create handler for subresource ${req.info.subresource}`);
  return { type: "object", code: 201, object: await handler(ctx, req.info.name, decodeRequestBody(scope) as APIObject, store) };
}
