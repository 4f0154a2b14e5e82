/**
 * The OpenAPI v3 document of `@skiff/api-types` (`openapi.json`), read once per process: the
 * source of `/openapi/v2`, `/openapi/v3` and of the field-manager type schemas this app needs.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { OpenAPIDocument } from "@skiff/apiserver-core";

let cached: OpenAPIDocument | undefined;

/**
 * The parsed document; the same object on every call (callers must not mutate it).
 * @throws Error when `@skiff/api-types/openapi.json` cannot be found or parsed
 */
export function openAPIDocument(): OpenAPIDocument {
  if (cached === undefined) {
    const path = createRequire(import.meta.url).resolve("@skiff/api-types/openapi.json");
    cached = JSON.parse(readFileSync(path, "utf8")) as OpenAPIDocument;
  }
  return cached;
}

/**
 * The `components.schemas` name of the kind `group`/`version`/`kind` (by its
 * `x-kubernetes-group-version-kind`), or `undefined` when the document has none.
 */
export function schemaNameOf(group: string, version: string, kind: string): string | undefined {
  const schemas = (openAPIDocument() as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  for (const [name, s] of Object.entries(schemas)) {
    const gvks = (s as { "x-kubernetes-group-version-kind"?: unknown })["x-kubernetes-group-version-kind"];
    if (Array.isArray(gvks) && gvks.some((g: { group?: string; version?: string; kind?: string }) => g.group === group && g.version === version && g.kind === kind)) return name;
  }
  return undefined;
}
