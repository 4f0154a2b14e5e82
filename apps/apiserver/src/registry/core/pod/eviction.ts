/**
 * The `pods/eviction` subresource (POST): a delete that honours disruption budgets (`kubectl drain`).
 * @see pkg/registry/core/pod/storage/eviction.go (EvictionREST)
 */
import { newBadRequest } from "@skiff/apimachinery";
import type { SubresourceCreateHandler } from "@skiff/apiserver-core";
import { deleteRequest } from "@skiff/apiserver-core";

const evictionVersions = ["policy/v1", "policy/v1beta1"];

/**
 * `POST pods/{name}/eviction` with a `policy/v1` (or `v1beta1`) Eviction: deletes the pod with the
 * Eviction's `deleteOptions` (grace period, preconditions, dryRun; the request's `dryRun` too), as
 * 1.23 does when no PodDisruptionBudget covers the pod — Skiff serves none, so no eviction is ever
 * refused by one. Answers a Success `Status` (201). Errors: 400 when the body is not an Eviction or
 * the names differ, 404 for a missing pod, 409 for failed preconditions.
 * @see pkg/registry/core/pod/storage/eviction.go (EvictionREST.Create)
 */
export const createPodEviction: SubresourceCreateHandler = async (ctx, name, body, store) => {
  const apiVersion = body.apiVersion ?? "";
  if (!evictionVersions.includes(apiVersion) || body.kind !== "Eviction") {
    throw newBadRequest(`${String(body.kind ?? "")} in version "${apiVersion}" cannot be handled as a Eviction: the body of pods/eviction must be a policy/v1 Eviction`);
  }
  if (body.metadata?.name !== name) throw newBadRequest("name in URL does not match name in Eviction object");
  const opts = body["deleteOptions"];
  if (opts !== undefined && opts !== null && (typeof opts !== "object" || Array.isArray(opts))) throw newBadRequest("deleteOptions must be a JSON object");
  const { ctx: dctx, options } = deleteRequest(ctx, {}, opts ? JSON.stringify(opts) : "");
  await store.delete(dctx, name, options);
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
};
