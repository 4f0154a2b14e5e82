/**
 * The health endpoints `/healthz`, `/livez`, `/readyz` and their per-check sub-paths
 * (`/readyz/ping`, `?verbose`, `?exclude=`), answered by `handleHealth` of `@skiff/apiserver-core`.
 * They are public: served without authentication, authorization or in-flight limits (README,
 * "Health is public").
 *
 * @see staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go (InstallHandler, InstallLivezHandler, InstallReadyzHandler)
 */
import { handleHealth, logCheck, pingCheck } from "@skiff/apiserver-core";
import type { HealthCheck, NonResourceRoute } from "@skiff/apiserver-core";

/** The health endpoints skiff-apiserver serves, each with every check. */
export const healthEndpoints: readonly string[] = Object.freeze(["healthz", "livez", "readyz"]);

/**
 * Routes of `/<endpoint>` and `/<endpoint>/*` for each of `endpoints`, running `checks`.
 * Never throws; a failing check answers 500 with the check's name.
 * @param checks - @defaultValue [pingCheck, logCheck]
 * @example extraRoutes: [...healthRoutes()]
 */
export function healthRoutes(endpoints: readonly string[] = healthEndpoints, checks: readonly HealthCheck[] = [pingCheck, logCheck]): NonResourceRoute[] {
  return endpoints.flatMap((endpoint): NonResourceRoute[] => {
    const handler: NonResourceRoute["handler"] = async (req, reply) => {
      const path = req.url.split("?")[0] ?? req.url;
      const res = await handleHealth(endpoint, path, req.query as Record<string, string>, checks);
      return reply.code(res.status).headers(res.headers).send(res.body);
    };
    return [
      { method: "GET", url: `/${endpoint}`, public: true, handler },
      { method: "GET", url: `/${endpoint}/*`, public: true, handler },
    ];
  });
}
