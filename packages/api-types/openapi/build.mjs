// Assembles Skiff's OpenAPI 3.0 document from the per-group modules.
import { authSchemas } from "./auth.mjs";
import { batchSchemas } from "./batch.mjs";
import { coordinationSchemas } from "./coordination.mjs";
import { coreSchemas } from "./core.mjs";
import { metaSchemas } from "./meta.mjs";
import { buildPaths } from "./paths.mjs";
import { rbacSchemas } from "./rbac.mjs";
import { schedulingSchemas } from "./scheduling.mjs";
import { storageSchemas } from "./storage.mjs";

/**
 * Builds the whole document. Pure and deterministic: the same object on every call, with
 * component schemas in alphabetical order.
 */
export function buildDocument() {
  const all = { ...metaSchemas, ...coreSchemas, ...batchSchemas, ...storageSchemas, ...coordinationSchemas, ...rbacSchemas, ...schedulingSchemas, ...authSchemas };
  const schemas = Object.fromEntries(Object.keys(all).sort().map((name) => [name, all[name]]));
  return {
    openapi: "3.0.0",
    info: {
      title: "Skiff",
      description:
        "The wire contract of Skiff, a Kubernetes-compatible control plane: the kinds it serves, in Kubernetes 1.23 shapes, with `example` in place of `k8s` in group and schema names.",
      version: "unversioned",
    },
    paths: buildPaths(),
    components: {
      schemas,
      securitySchemes: {
        BearerToken: { type: "apiKey", name: "authorization", in: "header", description: "Bearer token authentication: `Authorization: Bearer <token>`." },
      },
    },
    security: [{ BearerToken: [] }],
  };
}
