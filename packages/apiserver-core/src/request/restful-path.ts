/**
 * 1.23's handling of trailing slashes. Its handler chain ends in a director: a path under a
 * go-restful WebService root (`/api`, `/api/v1`, `/apis/<group>`, `/apis/<group>/<version>`,
 * `/version`) goes to go-restful, whose `CurlyRouter` tokenizes the path with
 * `strings.Split(strings.Trim(path, "/"), "/")` — so any number of trailing slashes is ignored
 * (`/api/`, `/apis/batch/v1//`, `/api/v1/namespaces/default/pods/`); every other path goes to
 * the non-go-restful mux, which matches exactly: `/apis` and `/apis/` are both registered there,
 * but `/apis//`, `/openapi/v2/`, `/healthz/` are not found.
 * @see staging/src/k8s.io/apiserver/pkg/server/handler.go in kubernetes/kubernetes v1.23 (director.ServeHTTP)
 * @see vendor/github.com/emicklei/go-restful/curly.go (tokenizePath, v2.9.5)
 * @see staging/src/k8s.io/apiserver/pkg/server/genericapiserver.go (NonGoRestfulMux.Handle("/apis"), UnlistedHandle("/apis/"))
 */

/**
 * The URL (path and query) a request is routed by: trailing slashes dropped from a path that
 * 1.23 routes through go-restful, and `/apis/` as `/apis`; any other URL unchanged. Pure.
 * @example trimRestfulTrailingSlashes("/apis/batch/v1/?x=1") // "/apis/batch/v1?x=1"
 * @example trimRestfulTrailingSlashes("/openapi/v2/") // "/openapi/v2/" (unchanged: 404)
 */
export function trimRestfulTrailingSlashes(url: string): string {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? "" : url.slice(q);
  if (!path.endsWith("/")) return url;
  if (path === "/apis/") return `/apis${query}`;
  const trimmed = path.replace(/\/+$/, "");
  // A WebService root with a path boundary: /api, /version, or /apis/<group> (each with more segments or none).
  if (!/^\/(api|version|apis\/[^/]+)(\/|$)/.test(trimmed)) return url;
  return `${trimmed}${query}`;
}
