/**
 * The non-resource routes kubectl needs before it touches a resource: discovery (aggregated and
 * legacy) and OpenAPI v3, both built from `@skiff/api-types` (the resource table and the document).
 * Registered as exact routes, which fastify matches before the core's `/api/*` and `/apis/*`
 * resource wildcards.
 */
import { resources as servedResources } from "@skiff/api-types";
import type { ResourceInfo } from "@skiff/api-types";
import { buildOpenAPIV2, buildOpenAPIV3, handleOpenAPIV2, handleOpenAPIV3, negotiateDiscovery } from "@skiff/apiserver-core";
import type { NonResourceRoute } from "@skiff/apiserver-core";
import { openAPIDocument } from "../openapi-document.js";

/**
 * Routes for `/api`, `/api/v1`, `/apis`, `/apis/<group>`, `/apis/<group>/<version>`, `/openapi/v3[/...]`,
 * `/openapi/v2` (JSON or gnostic protobuf, which kubectl ≤ 1.27 reads for validation and explain).
 * @param extraResources - served outside the api-types table (the review APIs), listed in discovery too.
 * @param adjust - rewrites the api-types entries (e.g. adds `serviceaccounts/token`). @defaultValue identity
 */
export function discoveryRoutes(extraResources: readonly ResourceInfo[] = [], adjust: (r: ResourceInfo) => ResourceInfo = (r) => r): NonResourceRoute[] {
  const resources = [...servedResources.map(adjust), ...extraResources];
  const discovery: NonResourceRoute["handler"] = (req, reply) => {
    const path = req.url.split("?")[0] ?? req.url;
    const accept = req.headers["accept"];
    const res = negotiateDiscovery(path, Array.isArray(accept) ? accept.join(",") : accept, resources);
    if (res === undefined) return reply.callNotFound();
    return reply.code(res.status).header("content-type", res.contentType).send(typeof res.body === "string" ? res.body : JSON.stringify(res.body));
  };
  const openapiDocument = openAPIDocument();
  const openapi = buildOpenAPIV3(openapiDocument);
  const openapiV2 = buildOpenAPIV2(openapiDocument);
  const openapiV2Handler: NonResourceRoute["handler"] = (req, reply) => {
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(",") : v;
    };
    const accept = header("accept");
    const ifNoneMatch = header("if-none-match");
    const res = handleOpenAPIV2(openapiV2, req.url.split("?")[0] ?? req.url, { ...(accept === undefined ? {} : { accept }), ...(ifNoneMatch === undefined ? {} : { ifNoneMatch }) });
    if (res === undefined) return reply.callNotFound();
    return reply.code(res.status).headers(res.headers).send(typeof res.body === "string" ? res.body : Buffer.from(res.body));
  };
  const openapiHandler: NonResourceRoute["handler"] = (req, reply) => {
    const [path = "", qs = ""] = req.url.split("?", 2);
    const hash = new URLSearchParams(qs).get("hash") ?? undefined;
    const res = handleOpenAPIV3(openapi, path, hash);
    if (res === undefined) return reply.callNotFound();
    return reply.code(res.status).headers(res.headers).send(res.body);
  };
  return [
    ...["/api", "/api/v1", "/apis", "/apis/:group", "/apis/:group/:version"].map((url) => ({ method: "GET" as const, url, handler: discovery })),
    { method: "GET", url: "/openapi/v3", handler: openapiHandler },
    { method: "GET", url: "/openapi/v3/*", handler: openapiHandler },
    { method: "GET", url: "/openapi/v2", handler: openapiV2Handler },
  ];
}
