import type { ResourceInfo } from "@skiff/api-types";
import { trimRestfulTrailingSlashes } from "../request/restful-path.js";

/** A response computed from data only: the server writes `body` as JSON with `contentType`. */
export interface DiscoveryResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

/** The aggregated-discovery versions Skiff serves. */
export type AggregatedDiscoveryVersion = "v2" | "v2beta1";

/**
 * Content-Type of an aggregated discovery answer; kubectl ignores the body unless it is exact.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/discovery/aggregated/negotiation.go
 */
export function formatAggregatedContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

function groupsOf(resources: readonly ResourceInfo[], core: boolean): Map<string, Map<string, ResourceInfo[]>> {
  const groups = new Map<string, Map<string, ResourceInfo[]>>();
  for (const r of resources) {
    if ((r.group === "") !== core) continue;
    let versions = groups.get(r.group);
    if (!versions) groups.set(r.group, (versions = new Map()));
    let list = versions.get(r.version);
    if (!list) versions.set(r.version, (list = []));
    list.push(r);
  }
  return groups;
}

const subresourceVerbs: Readonly<Record<string, readonly string[]>> = {
  status: ["get", "patch", "update"],
  ephemeralcontainers: ["get", "patch", "update"],
  binding: ["create"],
  eviction: ["create"],
  finalize: ["update"],
  attach: ["create", "get"],
  exec: ["create", "get"],
  portforward: ["create", "get"],
  token: ["create"],
};
const subresourceKinds: Readonly<Record<string, string>> = { binding: "Binding", eviction: "Eviction", attach: "PodAttachOptions", exec: "PodExecOptions", portforward: "PodPortForwardOptions", token: "TokenRequest" };
// Subresources whose kind lives in another group/version (1.23 lists `group`/`version` for them;
// kubectl drain looks for `pods/eviction` with group policy before it evicts rather than deletes).
const subresourceGroupVersions: Readonly<Record<string, { group: string; version: string }>> = {
  eviction: { group: "policy", version: "v1" },
  token: { group: "authentication.k8s.io", version: "v1" },
};

function aggregatedResource(r: ResourceInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {
    resource: r.plural,
    responseKind: { group: "", version: "", kind: r.kind },
    scope: r.namespaced ? "Namespaced" : "Cluster",
    singularResource: r.singular,
    verbs: [...r.verbs],
  };
  if (r.shortNames.length > 0) out["shortNames"] = [...r.shortNames];
  if (r.categories.length > 0) out["categories"] = [...r.categories];
  if (r.subresources.length > 0) {
    out["subresources"] = r.subresources.map((s) => ({
      subresource: s,
      responseKind: { group: subresourceGroupVersions[s]?.group ?? "", version: subresourceGroupVersions[s]?.version ?? "", kind: subresourceKinds[s] ?? r.kind },
      verbs: [...(subresourceVerbs[s] ?? ["get"])],
    }));
  }
  return out;
}

/**
 * Builds the aggregated discovery document (`APIGroupDiscoveryList`) for `/api` (`core` true:
 * one item with name `""`) or `/apis` (every named group). Versions are listed in the order
 * the resources give them; resources sorted by plural. Does not mutate its input.
 *
 * @see staging/src/k8s.io/api/apidiscovery/v2/types.go
 */
export function buildAggregatedDiscovery(
  resources: readonly ResourceInfo[],
  core: boolean,
  version: AggregatedDiscoveryVersion = "v2",
): Record<string, unknown> {
  const items = [...groupsOf(resources, core)].map(([group, versions]) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: [...versions].map(([v, list]) => ({
      version: v,
      resources: [...list].sort((a, b) => a.plural.localeCompare(b.plural)).map(aggregatedResource),
      freshness: "Current",
    })),
  }));
  return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

/**
 * Legacy `APIVersions` for `/api`: the core versions and one `0.0.0.0/0` CIDR entry.
 * @param serverAddress - `host:port` clients should use. @defaultValue `""`
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/discovery/legacy.go
 */
export function buildAPIVersions(resources: readonly ResourceInfo[], serverAddress = ""): Record<string, unknown> {
  const versions = [...new Set(resources.filter((r) => r.group === "").map((r) => r.version))];
  return {
    kind: "APIVersions",
    versions,
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function apiGroup(group: string, versions: readonly string[]): Record<string, unknown> {
  const gv = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  const preferred = gv[0];
  return preferred === undefined ? { name: group, versions: gv } : { name: group, versions: gv, preferredVersion: preferred };
}

/** Legacy `APIGroupList` for `/apis` (named groups only). */
export function buildAPIGroupList(resources: readonly ResourceInfo[]): Record<string, unknown> {
  const groups = [...groupsOf(resources, false)].map(([g, versions]) => apiGroup(g, [...versions.keys()]));
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** Legacy `APIGroup` for `/apis/<group>`, or `undefined` when the group is not served. */
export function buildAPIGroup(resources: readonly ResourceInfo[], group: string): Record<string, unknown> | undefined {
  if (group === "") return undefined;
  const versions = groupsOf(resources, false).get(group);
  if (!versions) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...apiGroup(group, [...versions.keys()]) };
}

/**
 * Legacy `APIResourceList` for `/api/v1` or `/apis/<group>/<version>`, including one entry per
 * subresource (`jobs/status`, `pods/binding`), or `undefined` when the group/version is not served.
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/installer.go
 */
export function buildAPIResourceList(
  resources: readonly ResourceInfo[],
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const list = resources.filter((r) => r.group === group && r.version === version);
  if (list.length === 0) return undefined;
  const out: Record<string, unknown>[] = [];
  for (const r of [...list].sort((a, b) => a.plural.localeCompare(b.plural))) {
    const entry: Record<string, unknown> = {
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
    };
    if (r.shortNames.length > 0) entry["shortNames"] = [...r.shortNames];
    if (r.categories.length > 0) entry["categories"] = [...r.categories];
    out.push(entry);
    for (const s of r.subresources) {
      out.push({
        name: `${r.plural}/${s}`,
        singularName: "",
        namespaced: r.namespaced,
        ...(subresourceGroupVersions[s] ?? {}),
        kind: subresourceKinds[s] ?? r.kind,
        verbs: [...(subresourceVerbs[s] ?? ["get"])],
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: group === "" ? version : `${group}/${version}`, resources: out };
}

/**
 * Which aggregated-discovery version an `Accept` header asks for, in the header's order
 * (q-values are not weighed, as kubectl sends none); `undefined` for plain JSON.
 */
export function parseAggregatedAccept(accept: string | undefined): AggregatedDiscoveryVersion | undefined {
  if (accept === undefined) return undefined;
  for (const part of accept.split(",")) {
    const [type, ...params] = part.split(";").map((s) => s.trim());
    if (type !== "application/json") continue;
    const p = new Map(params.map((kv) => {
      const eq = kv.indexOf("=");
      return [kv.slice(0, eq).trim(), kv.slice(eq + 1).trim()] as const;
    }));
    if (p.get("g") !== "apidiscovery.k8s.io" || p.get("as") !== "APIGroupDiscoveryList") continue;
    const v = p.get("v");
    if (v === "v2" || v === "v2beta1") return v;
  }
  return undefined;
}

/**
 * Answers a discovery request: `/api`, `/apis` (aggregated when `Accept` asks for
 * `as=APIGroupDiscoveryList`, legacy otherwise), `/apis/<g>`, `/api/v1`, `/apis/<g>/<v>`.
 * Trailing slashes are ignored as 1.23 ignores them (any number under `/api` and `/apis/<g>`,
 * one after `/apis`). Returns `undefined` for paths that are not discovery paths or
 * name groups/versions that are not served (the caller answers 404).
 *
 * @see staging/src/k8s.io/apiserver/pkg/endpoints/discovery/
 * @example
 * negotiateDiscovery("/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", resources)
 * // → { status: 200, contentType: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", body: {...} }
 */
export function negotiateDiscovery(
  path: string,
  acceptHeader: string | undefined,
  resources: readonly ResourceInfo[],
): DiscoveryResponse | undefined {
  const clean = path.split("?")[0] ?? "";
  // Trailing slashes as 1.23 ignores them (see request/restful-path.ts); an empty segment left
  // (`/apis//`, `/apis//v1`) is a path 1.23 does not serve.
  const segments = trimRestfulTrailingSlashes(clean).replace(/^\//, "").split("/");
  if (segments.some((s) => s === "")) return undefined;
  const json = "application/json";
  const ok = (body: Record<string, unknown> | undefined): DiscoveryResponse | undefined =>
    body === undefined ? undefined : { status: 200, contentType: json, body };
  if (segments[0] === "api") {
    if (segments.length === 1) {
      const v = parseAggregatedAccept(acceptHeader);
      if (v) return { status: 200, contentType: formatAggregatedContentType(v), body: buildAggregatedDiscovery(resources, true, v) };
      return ok(buildAPIVersions(resources));
    }
    if (segments.length === 2) return ok(buildAPIResourceList(resources, "", segments[1] ?? ""));
    return undefined;
  }
  if (segments[0] === "apis") {
    if (segments.length === 1) {
      const v = parseAggregatedAccept(acceptHeader);
      if (v) return { status: 200, contentType: formatAggregatedContentType(v), body: buildAggregatedDiscovery(resources, false, v) };
      return ok(buildAPIGroupList(resources));
    }
    if (segments.length === 2) return ok(buildAPIGroup(resources, segments[1] ?? ""));
    if (segments.length === 3) {
      const g = segments[1] ?? "";
      return g === "" ? undefined : ok(buildAPIResourceList(resources, g, segments[2] ?? ""));
    }
  }
  return undefined;
}
