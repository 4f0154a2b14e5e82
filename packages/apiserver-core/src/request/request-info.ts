/**
 * Parsed facts of one API request path and method.
 * @see k8s.io/apiserver/pkg/endpoints/request/requestinfo.go
 */
import { convertQueryBool } from "./query-params.js";

/** Request facts, as Kubernetes' `RequestInfo`. Non-resource requests only set `path` and `verb`. */
export interface RequestInfo {
  readonly isResourceRequest: boolean;
  readonly path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection (or the lowercased method for non-resource paths). */
  readonly verb: string;
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly parts: readonly string[];
}

/**
 * Parses `/api/v1/...` and `/apis/<g>/<v>/...` paths. Never throws; unknown shapes are
 * non-resource requests.
 * @param method - HTTP method (any case).
 * @param path - the URL path without query.
 * @param query - parsed query parameters, the first value of each (`watch`, converted as 1.23's
 *   `Convert_Slice_string_To_bool`: anything but `0`/`false` in any case, the empty value included, is a watch).
 * @example parseRequestInfo("GET", "/apis/batch/v1/namespaces/d/jobs", {}).verb // "list"
 */
export function parseRequestInfo(method: string, path: string, query: Readonly<Record<string, unknown>>): RequestInfo {
  const m = method.toUpperCase();
  // Each result is one object literal: in Node 20's V8 an object spread followed by new members
  // (`{ ...base, verb }`) gives every object a map of its own, several µs and a Map each time.
  const nonResource = (): RequestInfo => ({ isResourceRequest: false, path, verb: m.toLowerCase(), apiPrefix: "", apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "", parts: [] });
  const segs: string[] = [];
  for (const s of path.split("/")) if (s !== "") segs.push(s.includes("%") ? safeDecode(s) : s);
  if (segs.length === 0) return nonResource();
  const prefix = segs[0]!;
  let rest: string[];
  let group = "";
  let version: string;
  if (prefix === "api") {
    if (segs.length < 3) return nonResource();
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (prefix === "apis") {
    if (segs.length < 4) return nonResource();
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else return nonResource();

  let verb = verbOfMethod[m] ?? "";
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && rest[2] !== "status" && rest[2] !== "finalize") rest = rest.slice(2);
  }
  const parts = rest;
  const resource = parts[0] ?? "";
  const name = parts[1] ?? "";
  const subresource = parts[2] ?? "";
  if (watchPath) verb = "watch";
  else if (verb === "get" && name === "") verb = convertQueryBool(typeof query["watch"] === "string" ? query["watch"] : undefined) ? "watch" : "list";
  else if (verb === "delete" && name === "") verb = "deletecollection";
  return { isResourceRequest: true, path, verb, apiPrefix: prefix, apiGroup: group, apiVersion: version, namespace, resource, subresource, name, parts };
}

const verbOfMethod: Readonly<Record<string, string>> = { POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
