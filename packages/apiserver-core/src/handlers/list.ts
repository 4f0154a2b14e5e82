/**
 * LIST of a collection (one page). Plain JSON lists are written from the stored text without
 * building an object per item; Table, YAML, PartialObjectMetadata, `pretty` and selector lists
 * build the objects.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go (ListResource)
 */
import { isPrettyPrint } from "../request/query-params.js";
import type { HandlerResult } from "./response.js";
import { listParams } from "./scope.js";
import type { RequestScope } from "./scope.js";

/**
 * Lists the collection with the query's selectors, paging and resourceVersion.
 * @throws StatusError 400 (bad selectors, limit, continue token, resourceVersion), 410 (expired
 *   continue token), 422 (resourceVersionMatch rules), 504 (resourceVersion too large)
 */
export async function listResource(scope: RequestScope): Promise<HandlerResult> {
  const { store, ctx, req } = scope;
  const params = listParams(req.query);
  if (scope.accept.form === "json" && !isPrettyPrint(req.query["pretty"], req.userAgent)) {
    const text = await store.listEncoded(ctx, params);
    if (text !== undefined) return { type: "encoded", code: 200, text };
  }
  return { type: "object", code: 200, object: await store.list(ctx, params) };
}
