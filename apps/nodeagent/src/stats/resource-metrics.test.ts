import { describe, expect, it } from "vitest";
import { formatGoFloat, formatResourceMetrics, parsePrometheusText } from "./resource-metrics.js";
import type { Summary } from "./types.js";

const summary: Summary = {
  node: { nodeName: "n1", startTime: "2026-01-01T00:00:00Z", cpu: { time: "2026-01-01T00:01:00Z", usageCoreNanoSeconds: 5_500_000_000 }, memory: { time: "2026-01-01T00:01:00Z", workingSetBytes: 12345678 } },
  pods: [
    {
      podRef: { name: "web", namespace: "default", uid: "u1" },
      startTime: "2026-01-01T00:00:10Z",
      containers: [{ name: "app", startTime: "2026-01-01T00:00:11Z", cpu: { time: "2026-01-01T00:01:00Z", usageCoreNanoSeconds: 250_000_000 }, memory: { time: "2026-01-01T00:01:00Z", workingSetBytes: 4096 } }],
      cpu: { time: "2026-01-01T00:01:00Z", usageCoreNanoSeconds: 250_000_000 },
      memory: { time: "2026-01-01T00:01:00Z", workingSetBytes: 4096 },
    },
  ],
};

describe("/metrics/resource", () => {
  it("prints floats as Go's FormatFloat 'g' -1", () => {
    expect(formatGoFloat(12345678)).toBe("1.2345678e+07");
    expect(formatGoFloat(1e6)).toBe("1e+06");
    expect(formatGoFloat(123456)).toBe("123456");
    expect(formatGoFloat(0.25)).toBe("0.25");
    expect(formatGoFloat(0.00001)).toBe("1e-05");
    expect(formatGoFloat(0)).toBe("0");
  });

  it("writes 1.23's families, sorted, with [ALPHA] help, sorted labels and sample timestamps", () => {
    const text = formatResourceMetrics(summary);
    const t = Date.parse("2026-01-01T00:01:00Z");
    expect(text).toContain(`# HELP container_cpu_usage_seconds_total [ALPHA] Cumulative cpu time consumed by the container in core-seconds\n# TYPE container_cpu_usage_seconds_total counter\ncontainer_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 0.25 ${t}\n`);
    expect(text).toContain(`node_memory_working_set_bytes 1.2345678e+07 ${t}\n`);
    expect(text).toContain(`node_cpu_usage_seconds_total 5.5 ${t}\n`);
    expect(text).toContain(`pod_memory_working_set_bytes{namespace="default",pod="web"} 4096 ${t}\n`);
    expect(text).toContain("# TYPE scrape_error gauge\nscrape_error 0\n");
    const families = [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    expect(families).toEqual([...families].sort());
    expect(parsePrometheusText(text).find((s) => s.name === "container_start_time_seconds")?.value).toBe(Date.parse("2026-01-01T00:00:11Z") / 1000);
  });

  it("reports scrape_error 1 and nothing else when stats cannot be had", () => {
    expect(formatResourceMetrics(undefined)).toBe("# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE scrape_error gauge\nscrape_error 1\n");
  });

  it("parses Prometheus text with escaped labels and timestamps, and refuses garbage", () => {
    const s = parsePrometheusText('# HELP x y\nm{a="q\\"uote",b="back\\\\slash"} 1.5e+03 1700\nplain 2\n');
    expect(s).toEqual([
      { name: "m", labels: { a: 'q"uote', b: "back\\slash" }, value: 1500, timestampMs: 1700 },
      { name: "plain", labels: {}, value: 2 },
    ]);
    expect(() => parsePrometheusText("m{a=1} 2\n")).toThrow(/line 1/);
    // Special values as Prometheus (Go's ParseFloat) reads them, in any case: prom-client writes
    // `Nan` for an event-loop histogram with no sample yet.
    const special = parsePrometheusText("a Nan\nb NaN\nc +Inf\nd -inf\ne Infinity\n").map((x) => x.value);
    expect(special).toEqual([NaN, NaN, Infinity, -Infinity, Infinity]);
    expect(() => parsePrometheusText("m nonsense\n")).toThrow(/line 1: bad value/);
  });
});

describe("kubelet_pod_start_duration_seconds", () => {
  it("observes the time from the first Pending to the first Running, once per pod", async () => {
    const { AgentMetrics } = await import("./agent-metrics.js");
    const m = new AgentMetrics();
    m.observePodPhase("u1", "Pending", 1_000);
    m.observePodPhase("u1", "Pending", 2_000);
    m.observePodPhase("u1", "Running", 3_500);
    m.observePodPhase("u1", "Running", 9_000);
    m.observePodPhase("u2", "Running", 9_000);
    const text = await m.registry.metrics();
    expect(text).toContain("kubelet_pod_start_duration_seconds_count 1\n");
    expect(text).toContain("kubelet_pod_start_duration_seconds_sum 2.5\n");
    expect(text).toContain('kubelet_pod_start_duration_seconds_bucket{le="2.5"} 1\n');
  });
});

describe("kubelet_runtime_operations_* operation names", () => {
  it("names CRI methods as 1.23's instrumented services do", async () => {
    const { operationName } = await import("./agent-metrics.js");
    expect(["runPodSandbox", "podSandboxStatus", "listPodSandbox", "listContainers", "containerStatus", "execSync", "imageFsInfo", "pullImage", "listContainerStats", "reopenContainerLog", "version"].map(operationName)).toEqual([
      "run_podsandbox", "podsandbox_status", "list_podsandbox", "list_containers", "container_status", "exec_sync", "image_fs_info", "pull_image", "list_container_stats", "reopen_container_log", "version",
    ]);
  });
});
