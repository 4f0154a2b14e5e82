import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { installCommon } from "./routes.js";
import { installStatsRoutes, prometheusTextContentType, type StatsEndpoints } from "./stats-routes.js";

function app(summary: StatsEndpoints["summary"]) {
  const calls: boolean[] = [];
  const errors: string[] = [];
  const a = Fastify();
  installCommon(a, 1024 * 1024);
  installStatsRoutes(
    a,
    {
      summary: async (only) => {
        calls.push(only);
        return summary(only);
      },
      resourceMetrics: async () => "scrape_error 0\n",
      metrics: async () => ({ contentType: prometheusTextContentType, body: "kubelet_running_pods 1\n" }),
      probeMetrics: async () => ({ contentType: prometheusTextContentType, body: "" }),
    },
    { info: () => {}, error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`) },
  );
  return { a, calls, errors };
}

describe("stats paths", () => {
  it("serves the summary as pretty JSON; only_cpu_and_memory=true (query or form body, exactly one value) selects the subset", async () => {
    const { a, calls } = app(async (only) => ({ node: { nodeName: "n" }, pods: [], only }));
    const r = await a.inject({ method: "GET", url: "/stats/summary" });
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    // go-restful: json.MarshalIndent(v, " ", " ").
    expect(r.body).toBe('{\n  "node": {\n   "nodeName": "n"\n  },\n  "pods": [],\n  "only": false\n }');
    await a.inject({ method: "GET", url: "/stats/summary?only_cpu_and_memory=true" });
    await a.inject({ method: "GET", url: "/stats/summary?only_cpu_and_memory=1" });
    await a.inject({ method: "GET", url: "/stats/summary?only_cpu_and_memory=true&only_cpu_and_memory=true" });
    await a.inject({ method: "POST", url: "/stats/summary", headers: { "content-type": "application/x-www-form-urlencoded" }, payload: "only_cpu_and_memory=true" });
    expect(calls).toEqual([false, true, false, false, true]);
  });

  it("answers 500 `Internal Error: <err>` when stats cannot be had", async () => {
    const { a, errors } = app(async () => {
      throw new Error("rpc error: code = Unavailable desc = connection refused");
    });
    const r = await a.inject({ method: "GET", url: "/stats/summary" });
    expect(r.statusCode).toBe(500);
    expect(r.body).toBe("Internal Error: rpc error: code = Unavailable desc = connection refused");
    expect(errors).toHaveLength(1);
  });

  it("serves the metrics paths as Prometheus text", async () => {
    const { a } = app(async () => ({}));
    for (const url of ["/metrics", "/metrics/resource", "/metrics/probes"]) {
      const r = await a.inject({ method: "GET", url });
      expect(r.statusCode).toBe(200);
      expect(r.headers["content-type"]).toBe(prometheusTextContentType);
    }
    expect((await a.inject({ method: "GET", url: "/metrics" })).body).toBe("kubelet_running_pods 1\n");
  });
});
