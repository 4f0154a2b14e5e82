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
