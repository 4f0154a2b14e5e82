/**
 * GET of one object (or of its `/status`-style subresource, which reads the whole object).
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go (GetResource)
 */
import type { HandlerResult } from "./response.js";
import type { RequestScope } from "./scope.js";

/**
 * Reads the named object; `resourceVersion` as 1.23's GetOptions.
 * @throws StatusError 404, 400 (malformed resourceVersion), 504 (resourceVersion too large)
 */
export async function getResource(scope: RequestScope): Promise<HandlerResult> {
  return { type: "object", code: 200, object: await scope.store.get(scope.ctx, scope.req.info.name, scope.req.query["resourceVersion"]) };
}
