/**
 * PATCH: JSON patch, merge patch, strategic merge patch and server-side apply. Every type is one
 * guaranteed update: the patch applies to the current object inside the storage's retry loop.
 * Apply creates a missing object in the same loop (1.23's `forceAllowCreate`), so concurrent
 * applies to a missing object give one create and one update, never a conflict.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (PatchResource, patcher.patchResource)
 */
import { applyJSONPatch, applyMergePatch, applyStrategicMergePatch, newNotFound, newUnsupportedMediaType } from "@skiff/apimachinery";
import { decodeBody, patchMediaTypes } from "../negotiation/negotiation.js";
import type { APIObject } from "../registry/strategy.js";
import { convertQueryBool } from "../request/query-params.js";
import { applyToObject, checkApplyConfiguration, trackUpdate, validatePatchOptions, withPatchErrors } from "./apply.js";
import { runMutatingAdmission, runValidatingAdmission } from "./admission.js";
import { decodePatchedObject, decodeStructurally } from "./decode.js";
import type { HandlerResult } from "./response.js";
import { subresourceOption } from "./scope.js";
import type { RequestScope } from "./scope.js";

const applyPatchType = "application/apply-patch+yaml";

/**
 * Patches the named object (200), or creates it by apply (201).
 * @throws StatusError 415 (patch type), 422 (PatchOptions; validation; a patch that cannot apply),
 *   400 (malformed patch or apply configuration), 404 (missing object, except apply), 409
 *   (resourceVersion in the patch; apply conflicts)
 */
export async function patchResource(scope: RequestScope): Promise<HandlerResult> {
  const { store, ctx, req, config } = scope;
  const res = store.strategy.resource;
  const gr = { group: res.group, resource: res.plural };
  const { info, query } = req;
  const type = (req.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (!patchMediaTypes.includes(type)) throw newUnsupportedMediaType(patchMediaTypes);
  const isApply = type === applyPatchType;
  validatePatchOptions(isApply, query);
  const body = typeof req.body === "string" ? req.body : "";
  const options = { ...subresourceOption(scope), defaulted: true, validateAdmission: (o: APIObject, old: APIObject | null) => runValidatingAdmission(config.admission, info, ctx, o, old) };
  let patched: (cur: APIObject | null) => APIObject;
  if (isApply) {
    const cfg = checkApplyConfiguration(decodeBody(type, body, [type]).value, res, info.name);
    decodeStructurally(scope, cfg, true);
    const force = convertQueryBool(query["force"]) === true;
    patched = (cur) => decodePatchedObject(scope, applyToObject(cur, cfg, scope.manager, force, res, cur ? info.subresource : "", ctx.now), false);
  } else {
    const patch = decodeBody("application/json", body, ["application/json"]).value;
    patched = (cur) => {
      if (!cur) throw newNotFound(gr, info.name);
      const out = withPatchErrors(() =>
        type === "application/json-patch+json"
          ? applyJSONPatch(cur, patch)
          : type === "application/strategic-merge-patch+json"
            ? applyStrategicMergePatch(cur, patch, config.patchSchemaFor(res))
            : applyMergePatch(cur, patch),
      );
      return trackUpdate(cur, decodePatchedObject(scope, out, true), scope.manager, res, info.subresource, ctx.now);
    };
  }
  const r = await store.update(
    ctx,
    info.name,
    async (cur) => {
      const next = patched(cur);
      await runMutatingAdmission(config.admission, info, ctx, next, cur);
      return next;
    },
    // Apply creates a missing object; other patches of a missing object answer 404 (above).
    isApply ? { ...options, forceAllowCreate: true } : options,
  );
  return { type: "object", code: r.created ? 201 : 200, object: r.object };
}
