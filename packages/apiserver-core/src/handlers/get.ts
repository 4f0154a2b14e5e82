/**
 * GET of one object (or of its `/status`-style subresource, which reads the whole object). Plain
 * JSON answers are written from the stored text without building the object; Table, YAML,
 * PartialObjectMetadata and `pretty` answers build it.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go (GetResource)
 */
import { isPrettyPrint } from "../request/query-params.js";
import type { HandlerResult } from "./response.js";
import type { RequestScope } from "./scope.js";

/**
 * Reads the named object; `resourceVersion` as 1.23's GetOptions.
 * @throws StatusError 404, 400 (malformed resourceVersion), 504 (resourceVersion too large)
 */
export async function getResource(scope: RequestScope): Promise<HandlerResult> {
  const { req } = scope;
  if (scope.accept.form === "json" && !isPrettyPrint(req.query["pretty"], req.userAgent)) {
    return { type: "encoded", code: 200, text: await scope.store.getEncoded(scope.ctx, req.info.name, req.query["resourceVersion"]) };
  }
  return { type: "object", code: 200, object: await scope.store.get(scope.ctx, scope.req.info.name, scope.req.query["resourceVersion"]) };
}
