/**
 * Field management for the REST handlers: `Update` entries on every write, server-side apply
 * (`application/apply-patch+yaml`), PatchOptions validation, and the default patch and type
 * schemas read from `@skiff/api-types/openapi.json`.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (applyPatcher)
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/fieldmanager.go
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  ApplyConflictError,
  ApplyRequestError,
  StatusError,
  TypedValueError,
  applyConfiguration,
  deducedTypeSchema,
  emptyPatchSchema,
  fieldPathOf,
  isPatchError,
  newBadRequest,
  patchSchemaFromOpenAPI,
  recordUpdate,
  typeSchemaFromOpenAPI,
} from "@skiff/apimachinery";
import type { FieldManagerOptions, PatchSchema, TypeSchema } from "@skiff/apimachinery";
import type { ResourceInfo } from "@skiff/api-types";
import type { APIObject } from "../registry/strategy.js";

let openAPIDocument: unknown;

function loadDocument(): unknown {
  if (openAPIDocument === undefined) {
    try {
      const path = createRequire(import.meta.url).resolve("@skiff/api-types/openapi.json");
      openAPIDocument = JSON.parse(readFileSync(path, "utf8")) as unknown;
    } catch {
      openAPIDocument = {};
    }
  }
  return openAPIDocument;
}

/** The `components.schemas` name of a resource's kind (by `x-kubernetes-group-version-kind`), if the document has it. */
export function schemaNameFor(document: unknown, res: ResourceInfo): string | undefined {
  const schemas = (document as { components?: { schemas?: Record<string, unknown> } } | null)?.components?.schemas ?? {};
  for (const [name, s] of Object.entries(schemas)) {
    const gvks = (s as { "x-kubernetes-group-version-kind"?: unknown })["x-kubernetes-group-version-kind"];
    if (Array.isArray(gvks) && gvks.some((g: { group?: string; version?: string; kind?: string }) => g.group === res.group && g.version === res.version && g.kind === res.kind)) return name;
  }
  return undefined;
}

const patchSchemas = new Map<string, PatchSchema>();
const typeSchemas = new Map<string, TypeSchema>();
const gvk = (res: ResourceInfo) => `${res.group}/${res.version}/${res.kind}`;

/** The strategic-merge-patch schema of `res` from the api-types OpenAPI document (empty when the kind is not in it). */
export function defaultPatchSchemaFor(res: ResourceInfo): PatchSchema {
  let s = patchSchemas.get(gvk(res));
  if (!s) {
    const doc = loadDocument();
    const name = schemaNameFor(doc, res);
    s = name ? patchSchemaFromOpenAPI(doc, name) : emptyPatchSchema;
    patchSchemas.set(gvk(res), s);
  }
  return s;
}

/** The server-side-apply type schema of `res` from the api-types OpenAPI document (deduced when the kind is not in it). */
export function defaultTypeSchemaFor(res: ResourceInfo): TypeSchema {
  let s = typeSchemas.get(gvk(res));
  if (!s) {
    const doc = loadDocument();
    const name = schemaNameFor(doc, res);
    s = name ? typeSchemaFromOpenAPI(doc, name) : deducedTypeSchema;
    typeSchemas.set(gvk(res), s);
  }
  return s;
}

/** The field-manager options of a write to `res` (the `status` subresource owns status only; the main resource never owns status). */
export function fieldManagerOptionsFor(res: ResourceInfo, subresource: string, now: Date, schema: TypeSchema = defaultTypeSchemaFor(res)): FieldManagerOptions {
  const hasStatus = res.subresources.includes("status");
  const ignoredFields = !hasStatus ? [] : subresource === "status" ? [fieldPathOf("spec")] : [fieldPathOf("status")];
  return { schema, apiVersion: res.group ? `${res.group}/${res.version}` : res.version, ignoredFields, subresource, now };
}

/**
 * PatchOptions validation (before the object is read): apply needs `fieldManager`; `force` is
 * for apply only, whatever its value (`force` converts as every query boolean: see
 * `convertQueryBool`). Both answer 422 `PatchOptions.meta.k8s.io "" is invalid: ...`, as 1.23.
 * @see staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go (`ValidatePatchOptions`)
 */
export function validatePatchOptions(isApply: boolean, query: Readonly<Record<string, string>>): void {
  const fail = (reason: string, field: string, detail: string) =>
    new StatusError({
      kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure",
      message: `PatchOptions.meta.k8s.io "" is invalid: ${field}: ${detail}`,
      reason: "Invalid",
      details: { group: "meta.k8s.io", kind: "PatchOptions", causes: [{ reason, message: detail, field }] },
      code: 422,
    });
  if (!isApply && query["force"] !== undefined) throw fail("FieldValueForbidden", "force", "Forbidden: may not be specified for non-apply patch");
  if (isApply && !query["fieldManager"]) throw fail("FieldValueRequired", "fieldManager", "Required value: is required for apply patch");
}

/**
 * Records the managedFields `Update` entry of a non-apply write by `manager` (`live` null for a
 * create; `subresource` `""` or `status`...), with the kind's type schema from the api-types
 * OpenAPI document, as the REST handlers do for every write. Returns a new object; does not
 * mutate `live` or `next`. With `adoptNext` (a freshly decoded body the caller will not read
 * again) the result shares all but its top level and `metadata` with `next` instead of deep
 * copying it. Never throws on malformed managedFields (they are reset).
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/fieldmanager.go (UpdateNoErrors)
 */
export function trackUpdate(live: APIObject | null, next: APIObject, manager: string, res: ResourceInfo, subresource: string, now: Date, adoptNext = false): APIObject {
  const opts = fieldManagerOptionsFor(res, subresource, now);
  return recordUpdate(live as Record<string, unknown> | null, next as Record<string, unknown>, manager, adoptNext ? { ...opts, adoptNext } : opts) as APIObject;
}

/**
 * Checks an apply configuration against the request: `apiVersion` and `kind` of the resource,
 * the URL's name. Throws 400 as 1.23 does.
 */
export function checkApplyConfiguration(cfg: unknown, res: ResourceInfo, name: string): APIObject {
  if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) throw newBadRequest("error decoding YAML: the apply configuration must be an object");
  const o = cfg as APIObject;
  const apiVersion = res.group ? `${res.group}/${res.version}` : res.version;
  if (o.apiVersion !== apiVersion) {
    throw newBadRequest(`Incorrect version specified in apply patch. Specified patch version: ${o.apiVersion ?? ""}, expected: ${apiVersion}`);
  }
  if (o.kind !== res.kind) throw newBadRequest(`Incorrect kind specified in apply patch. Specified patch kind: ${o.kind ?? ""}, expected: ${res.kind}`);
  const n = o.metadata?.name;
  if (n !== undefined && n !== name) throw newBadRequest(`the name of the object (${n}) does not match the name on the URL (${name})`);
  return o;
}

/**
 * Server-side apply of `cfg` by `manager` over `live` (`null`: create). Maps field-manager
 * errors to API errors: conflicts → 409 with `FieldManagerConflict` causes; malformed
 * configurations → 400.
 */
export function applyToObject(live: APIObject | null, cfg: APIObject, manager: string, force: boolean, res: ResourceInfo, subresource: string, now: Date): APIObject {
  try {
    const out = applyConfiguration(live as Record<string, unknown> | null, cfg as Record<string, unknown>, manager, force, fieldManagerOptionsFor(res, subresource, now)) as APIObject;
    if (!live && res.namespaced === false && out.metadata) delete out.metadata.namespace;
    return out;
  } catch (e) {
    if (e instanceof ApplyConflictError) {
      throw new StatusError({
        kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure",
        message: e.message,
        reason: "Conflict",
        details: { causes: e.conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${c.manager}`, field: c.field })) },
        code: 409,
      });
    }
    if (e instanceof ApplyRequestError) throw newBadRequest(e.message);
    if (e instanceof TypedValueError) throw newBadRequest(`failed to create typed patch object: ${e.message}`);
    throw e;
  }
}

/**
 * Runs a JSON, merge or strategic merge patch, turning its `PatchError` into the Status it
 * answers (400 malformed patch, 422 patch that cannot apply to this object, 413 too many operations).
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (`interpretStrategicMergePatchError`)
 */
export function withPatchErrors<T>(patch: () => T): T {
  try {
    return patch();
  } catch (e) {
    if (!isPatchError(e)) throw e;
    throw new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: e.message, reason: e.reason, details: {}, code: e.code });
  }
}
