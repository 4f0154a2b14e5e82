/**
 * PUT of an object or of an update subresource (`/status`, `/finalize`). Inside the storage's
 * retry loop: managedFields → mutating admission (CREATE when the object is missing and the
 * kind creates on update) → the strategy's update hooks → validating admission.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/update.go (UpdateResource)
 */
import { newBadRequest } from "@skiff/apimachinery";
import { trackUpdate } from "./apply.js";
import { runMutatingAdmission, runValidatingAdmission } from "./admission.js";
import { decodeRequestObject } from "./decode.js";
import type { HandlerResult } from "./response.js";
import { subresourceOption } from "./scope.js";
import type { RequestScope } from "./scope.js";

/**
 * Replaces the named object with the body (200), or creates it where the kind allows (201).
 * @throws StatusError 400 (decoding; name mismatch), 404, 409 (resourceVersion conflict), 422, 415
 */
export async function updateResource(scope: RequestScope): Promise<HandlerResult> {
  const { store, ctx, req, config } = scope;
  const res = store.strategy.resource;
  const obj = decodeRequestObject(scope);
  if (obj.metadata?.name !== req.info.name) {
    throw newBadRequest(`the name of the object (${obj.metadata?.name ?? ""}) does not match the name on the URL (${req.info.name})`);
  }
  // The first attempt takes the decoded body as its own (no copy: managedFields, admission and the
  // strategy then change it); a retry (the object changed under an update that names no
  // resourceVersion) decodes the body again, its warnings already given.
  let fresh: typeof obj | undefined = obj;
  const r = await store.update(
    ctx,
    req.info.name,
    async (cur) => {
      let body = fresh;
      fresh = undefined;
      if (body === undefined) {
        const warned = ctx.warnings.length;
        body = decodeRequestObject(scope);
        ctx.warnings.length = warned;
      }
      const next = trackUpdate(cur, body, scope.manager, res, req.info.subresource, ctx.now, true);
      await runMutatingAdmission(config.admission, req.info, ctx, next, cur);
      return next;
    },
    { ...subresourceOption(scope), defaulted: true, validateAdmission: (o, old) => runValidatingAdmission(config.admission, req.info, ctx, o, old) },
  );
  return { type: "object", code: r.created ? 201 : 200, object: r.object };
}
