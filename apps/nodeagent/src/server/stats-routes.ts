/**
 * The stats and metrics paths of the main and read-only servers: `/stats/summary` (GET, POST;
 * `only_cpu_and_memory=true` in the query or a form body), `/metrics`, `/metrics/resource`,
 * `/metrics/probes`. Authorization happens before (subresource `stats` / `metrics`).
 * @see pkg/kubelet/server/stats/handler.go (handleSummary), pkg/kubelet/server/server.go (InstallDefaultHandlers) in kubernetes/kubernetes v1.23
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServerLogger } from "./server-options.js";

/** What the stats paths serve; implemented over the stats provider and the agent's metrics in `app.ts`. */
export interface StatsEndpoints {
  /** The `/stats/summary` body (stats API v1alpha1). Rejects when stats cannot be had. */
  summary(onlyCpuAndMemory: boolean): Promise<unknown>;
  /** `/metrics/resource` in Prometheus text format. */
  resourceMetrics(): Promise<string>;
  /** `/metrics` (agent and process metrics). */
  metrics(): Promise<{ readonly contentType: string; readonly body: string }>;
  /** `/metrics/probes` (`prober_probe_total`). */
  probeMetrics(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/** The Prometheus text format's content type, as client_golang sends it. */
export const prometheusTextContentType = "text/plain; version=0.0.4; charset=utf-8";

function onlyCpuAndMemory(req: FastifyRequest): boolean {
  const url = req.raw.url ?? "/";
  const q = url.indexOf("?");
  const values = q < 0 ? [] : new URLSearchParams(url.slice(q + 1)).getAll("only_cpu_and_memory");
  const ct = String(req.headers["content-type"] ?? "");
  if (req.method === "POST" && ct.startsWith("application/x-www-form-urlencoded") && typeof req.body === "string") values.push(...new URLSearchParams(req.body).getAll("only_cpu_and_memory"));
  // Go's ParseForm: body values first, then query; 1.23 needs exactly one value, "true".
  return values.length === 1 && values[0] === "true";
}

function internalError(reply: FastifyReply, log: ServerLogger, path: string, err: unknown): FastifyReply {
  const msg = `Internal Error: ${err instanceof Error ? err.message : String(err)}`;
  log.error("HTTP InternalServerError serving", { path, err: msg });
  return reply.code(500).header("Content-Type", "text/plain; charset=utf-8").send(msg);
}

/** Installs the four paths on `app`. */
export function installStatsRoutes(app: FastifyInstance, stats: StatsEndpoints, log: ServerLogger): void {
  const summary = async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const body = await stats.summary(onlyCpuAndMemory(req));
      // go-restful's WriteAsJson pretty-prints: json.MarshalIndent(v, " ", " ") (prefix and indent one space).
      return await reply.code(200).header("Content-Type", "application/json").send(Buffer.from(JSON.stringify(body, null, " ").replaceAll("\n", "\n ")));
    } catch (err) {
      return internalError(reply, log, "/stats/summary", err);
    }
  };
  app.get("/stats/summary", summary);
  app.post("/stats/summary", summary);
  app.get("/metrics/resource", async (_req, reply) => reply.code(200).header("Content-Type", prometheusTextContentType).send(await stats.resourceMetrics()));
  app.get("/metrics", async (_req, reply) => {
    const m = await stats.metrics();
    return reply.code(200).header("Content-Type", m.contentType).send(m.body);
  });
  app.get("/metrics/probes", async (_req, reply) => {
    const m = await stats.probeMetrics();
    return reply.code(200).header("Content-Type", m.contentType).send(m.body);
  });
}
