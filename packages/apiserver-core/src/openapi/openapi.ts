import { createHash } from "node:crypto";

/** An OpenAPI 3 document as JSON (the shape of `@skiff/api-types/openapi.json`). */
export interface OpenAPIDocument {
  readonly openapi: string;
  readonly info: unknown;
  readonly paths: Readonly<Record<string, unknown>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>>; readonly securitySchemes?: Readonly<Record<string, unknown>> };
  readonly [key: string]: unknown;
}

/** The served `/openapi/v3` tree: the index and one document per group/version, with hashes. */
export interface OpenAPIV3Service {
  /** `{paths: {"apis/batch/v1": {serverRelativeURL: "/openapi/v3/apis/batch/v1?hash=H"}}}` */
  readonly index: { readonly paths: Readonly<Record<string, { readonly serverRelativeURL: string }>> };
  /** Documents by key (`api/v1`, `apis/batch/v1`). */
  readonly documents: ReadonlyMap<string, { readonly hash: string; readonly body: string }>;
}

/** A plain HTTP answer. */
export interface OpenAPIResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const refPrefix = "#/components/schemas/";

function collectRefs(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, out);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith(refPrefix)) out.add(v.slice(refPrefix.length));
      else collectRefs(v, out);
    }
  }
}

function gvKeyOf(path: string): string | undefined {
  const segs = path.split("/").filter((s) => s !== "");
  if (segs[0] === "api" && segs.length >= 2) return `api/${segs[1]}`;
  if (segs[0] === "apis" && segs.length >= 3) return `apis/${segs[1]}/${segs[2]}`;
  return undefined;
}

/**
 * Splits the full document into one OpenAPI v3 document per group/version (`api/v1`,
 * `apis/batch/v1`, ...): each has the paths under its prefix and only the schemas those paths
 * reference, transitively. Hash = upper-case SHA-512 hex of the serialized document, so it
 * changes exactly when the content does. Does not mutate `document`.
 *
 * @see staging/src/k8s.io/kube-openapi/pkg/handler3/handler.go
 * @example const svc = buildOpenAPIV3(openapiJson); svc.index.paths["apis/batch/v1"]
 */
export function buildOpenAPIV3(document: OpenAPIDocument): OpenAPIV3Service {
  const byGV = new Map<string, Record<string, unknown>>();
  for (const [path, item] of Object.entries(document.paths)) {
    const key = gvKeyOf(path);
    if (key === undefined) continue;
    let paths = byGV.get(key);
    if (!paths) byGV.set(key, (paths = {}));
    paths[path] = item;
  }
  const all = document.components?.schemas ?? {};
  const documents = new Map<string, { hash: string; body: string }>();
  const index: Record<string, { serverRelativeURL: string }> = {};
  for (const key of [...byGV.keys()].sort()) {
    const paths = byGV.get(key) ?? {};
    const needed = new Set<string>();
    collectRefs(paths, needed);
    const queue = [...needed];
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
      const found = new Set<string>();
      collectRefs(all[name], found);
      for (const f of found) {
        if (!needed.has(f)) {
          needed.add(f);
          queue.push(f);
        }
      }
    }
    const schemas: Record<string, unknown> = {};
    for (const name of [...needed].sort()) if (all[name] !== undefined) schemas[name] = all[name];
    const components: Record<string, unknown> = { schemas };
    if (document.components?.securitySchemes) components["securitySchemes"] = document.components.securitySchemes;
    const out: Record<string, unknown> = { openapi: document.openapi, info: document.info, paths, components };
    if (document["security"] !== undefined) out["security"] = document["security"];
    const body = JSON.stringify(out);
    const hash = createHash("sha512").update(body).digest("hex").toUpperCase();
    documents.set(key, { hash, body });
    index[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { index: { paths: index }, documents };
}

const jsonHeaders = { "content-type": "application/json" };

/**
 * Answers `GET /openapi/v3` (the index) and `GET /openapi/v3/<gv>` (a document; with a
 * matching `?hash=` → `Cache-Control: public, immutable`, a stale hash → 301 to the current
 * URL as Kubernetes does, none → `no-cache, private`). `undefined` for other paths or unknown
 * group/versions (the caller answers 404).
 *
 * @see staging/src/k8s.io/kube-openapi/pkg/handler3/handler.go (HandleGroupVersion)
 */
export function handleOpenAPIV3(service: OpenAPIV3Service, path: string, hash: string | undefined): OpenAPIResponse | undefined {
  const p = path.replace(/\/+$/, "");
  if (p === "/openapi/v3") return { status: 200, headers: jsonHeaders, body: JSON.stringify(service.index) };
  if (!p.startsWith("/openapi/v3/")) return undefined;
  const doc = service.documents.get(p.slice("/openapi/v3/".length));
  if (!doc) return undefined;
  if (hash === undefined || hash === "")
    return { status: 200, headers: { ...jsonHeaders, "cache-control": "no-cache, private", etag: `"${doc.hash}"` }, body: doc.body };
  if (hash !== doc.hash)
    return { status: 301, headers: { location: `${p}?hash=${doc.hash}`, "cache-control": "no-cache, private" }, body: "" };
  return { status: 200, headers: { ...jsonHeaders, "cache-control": "public, immutable", etag: `"${doc.hash}"` }, body: doc.body };
}
