import { describe, expect, it } from "vitest";
import { decodeScrape, metricsResources, parseResourceMetricsText, usageBetween } from "./metrics-api.js";

const text = (t: number, nodeCpu: number, cpu: number) => `# HELP node_cpu_usage_seconds_total [ALPHA] x
# TYPE node_cpu_usage_seconds_total counter
node_cpu_usage_seconds_total ${nodeCpu} ${t}
node_memory_working_set_bytes 1.073741824e+09 ${t}
container_cpu_usage_seconds_total{container="main",namespace="default",pod="web"} ${cpu} ${t}
container_memory_working_set_bytes{container="main",namespace="default",pod="web"} 2.097152e+07 ${t}
container_memory_working_set_bytes{container="lonely",namespace="default",pod="web"} 5 ${t}
scrape_error 0
`;

describe("metrics.k8s.io from /metrics/resource", () => {
  it("decodes node and container points; series without both CPU and memory are dropped", () => {
    const s = decodeScrape(parseResourceMetricsText(text(1000, 5, 1)), 0);
    expect(s.node).toEqual({ cpuSeconds: 5, cpuMs: 1000, memoryBytes: 1073741824 });
    expect([...s.containers.keys()]).toEqual(["default/web/main"]);
  });

  it("computes nano-cores over the window between two scrapes, as metrics-server", () => {
    const a = decodeScrape(parseResourceMetricsText(text(1000, 5, 1)), 0);
    const b = decodeScrape(parseResourceMetricsText(text(3000, 7, 1.5)), 0);
    expect(usageBetween(a.node, b.node)).toEqual({ timestampMs: 3000, windowMs: 2000, nanoCores: 1e9, memoryBytes: 1073741824 });
    expect(usageBetween(a.containers.get("default/web/main"), b.containers.get("default/web/main"))?.nanoCores).toBe(2.5e8);
    // A restarted container (counter went back) or no window: no usage.
    expect(usageBetween(b.containers.get("default/web/main"), a.containers.get("default/web/main"))).toBeUndefined();
    expect(usageBetween(a.node, a.node)).toBeUndefined();
  });

  it("lists NodeMetrics and PodMetrics as read-only resources", () => {
    expect(metricsResources.map((r) => [r.group, r.version, r.plural, r.kind, r.namespaced, r.verbs])).toEqual([
      ["metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", false, ["get", "list"]],
      ["metrics.k8s.io", "v1beta1", "pods", "PodMetrics", true, ["get", "list"]],
    ]);
  });

  it("refuses malformed text with the line number", () => {
    expect(() => parseResourceMetricsText("ok 1\nbad line here\n")).toThrow(/line 2/);
  });
});
