// /stats/summary, /metrics/resource, /metrics and /metrics/probes of the REAL node agent binary on
// the process CRI server, whose RuntimeService and ImageService listen on separate sockets (so
// the pod only starts when --image-service-endpoint is honoured).
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { parsePrometheusText, type Summary } from "../src/stats/index.js";
import type { HarnessAgent } from "./agent-harness.js";
import { eventually, get, podLogsRoot, podNamed, removePodLogs, startHarnessAgent } from "./agent-harness.js";

const ci = process.env.CI === "true";
function podLogsWritable(): string | undefined {
  try {
    mkdirSync(podLogsRoot, { recursive: true });
    accessSync(podLogsRoot, constants.W_OK);
    return undefined;
  } catch (err) {
    return `${podLogsRoot} is not writable (${err instanceof Error ? err.message : String(err)})`;
  }
}
const skipReason = ci ? undefined : podLogsWritable();

const suffix = Math.random().toString(36).slice(2, 8);
const tmp = mkdtempSync(join(tmpdir(), "skiff-stats-"));
const nodeName = `stats-${suffix}`;
let runtime: ProcessRuntime | undefined;
let agent: HarnessAgent | undefined;

afterAll(async () => {
  await agent?.stop(5_000);
  await runtime?.stop();
  await removePodLogs(nodeName);
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

// A pod that holds ~30 MB in a shell variable, with an emptyDir (the test writes 1 MiB into it:
// the process runtime does not mount volumes) and a readiness probe.
const hungryManifest = `apiVersion: v1
kind: Pod
metadata: {name: hungry, namespace: default}
spec:
  terminationGracePeriodSeconds: 1
  volumes: [{name: scratch, emptyDir: {}}]
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "x=$(head -c 30000000 /dev/zero | tr '\\\\0' x); sleep 3600"]
    readinessProbe: {exec: {command: ["true"]}, periodSeconds: 1}
`;

describe.skipIf(skipReason !== undefined)(`stats and metrics on the process runtime${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  const manifests = join(tmp, "manifests");
  const context = () => agent?.logs() ?? "";

  beforeAll(async () => {
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "hungry.yaml"), hungryManifest);
    runtime = await startProcessRuntime({ socketPath: join(tmp, "cri.sock"), imageSocketPath: join(tmp, "img.sock"), stateDir: join(tmp, "cri-state") });
    agent = await startHarnessAgent({
      dir: join(tmp, "agent"),
      nodeName,
      runtimeEndpoint: runtime.endpoint,
      manifests,
      args: [`--image-service-endpoint=${runtime.imageEndpoint ?? ""}`, "--file-check-frequency=1s", "--volume-stats-agg-period=1s"],
    });
  }, 90_000);

  const tlsGet = (path: string) => get(agent?.ports.main ?? 0, path, {});

  it("runs the pod with images served by the separate --image-service-endpoint", async () => {
    const a = agent;
    if (!a) throw new Error("no agent");
    const pod = await eventually("hungry Running", async () => {
      const p: Pod | undefined = podNamed(await a.pods(), "hungry", nodeName);
      return p?.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
    }, 60_000, context);
    writeFileSync(join(a.rootDir, "pods", pod.metadata?.uid ?? "", "volumes", "kubernetes.io~empty-dir", "scratch", "scratch.bin"), Buffer.alloc(1048576, 1));
  });

  it("serves /stats/summary in 1.23's shape with the pod's CPU, memory, volume and ephemeral storage", async () => {
    const summary = await eventually("summary with the pod's memory and volume", async () => {
      const r = await tlsGet("/stats/summary");
      if (r.status !== 200) return undefined;
      const s = r.json<Summary>();
      const pod = s.pods.find((p) => p.podRef.name === `hungry-${nodeName}`);
      return pod?.containers[0]?.memory?.workingSetBytes !== undefined && pod.containers[0].memory.workingSetBytes > 25e6 && (pod.volume?.find((v) => v.name === "scratch")?.usedBytes ?? 0) >= 1048576 ? s : undefined;
    }, 60_000, context);
    const n = summary.node;
    expect(n.nodeName).toBe(nodeName);
    expect(n.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(n.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(n.memory?.workingSetBytes).toBeGreaterThan(0);
    expect(n.memory?.availableBytes).toBeGreaterThan(0);
    expect(n.fs?.capacityBytes).toBeGreaterThan(0);
    expect(n.fs?.inodesUsed).toBeGreaterThan(0);
    expect(n.runtime?.imageFs?.capacityBytes).toBeGreaterThan(0);
    expect(n.rlimit?.maxpid).toBeGreaterThan(0);
    expect(n.rlimit?.curproc).toBeGreaterThan(0);
    const pod = summary.pods.find((p) => p.podRef.name === `hungry-${nodeName}`);
    expect(pod?.podRef.namespace).toBe("default");
    const c = pod?.containers[0];
    expect(c?.name).toBe("main");
    expect(c?.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(c?.rootfs?.usedBytes).toBe(0);
    expect(pod?.memory?.workingSetBytes).toBe(c?.memory?.workingSetBytes);
    const scratch = pod?.volume?.find((v) => v.name === "scratch");
    expect(scratch?.usedBytes).toBeGreaterThanOrEqual(1048576);
    expect(pod?.["ephemeral-storage"]?.usedBytes).toBeGreaterThanOrEqual(1048576);
  });

  it("answers ?only_cpu_and_memory=true without filesystems", async () => {
    const r = await tlsGet("/stats/summary?only_cpu_and_memory=true");
    expect(r.status).toBe(200);
    const s = r.json<Summary>();
    expect(s.node.fs).toBeUndefined();
    expect(s.node.memory?.workingSetBytes).toBeGreaterThan(0);
    const pod = s.pods.find((p) => p.podRef.name === `hungry-${nodeName}`);
    expect(pod?.containers[0]?.rootfs).toBeUndefined();
    expect(pod?.volume).toBeUndefined();
  });

  it("serves /metrics/resource as Prometheus text with the node, pod and container series", async () => {
    const r = await tlsGet("/metrics/resource");
    expect(r.status).toBe(200);
    const samples = parsePrometheusText(r.body);
    const names = new Set(samples.map((s) => s.name));
    for (const n of ["node_cpu_usage_seconds_total", "node_memory_working_set_bytes", "container_cpu_usage_seconds_total", "container_memory_working_set_bytes", "pod_cpu_usage_seconds_total", "pod_memory_working_set_bytes", "scrape_error"]) expect(names).toContain(n);
    const mem = samples.find((s) => s.name === "container_memory_working_set_bytes" && s.labels["pod"] === `hungry-${nodeName}`);
    expect(mem?.labels).toEqual({ container: "main", namespace: "default", pod: `hungry-${nodeName}` });
    expect(mem?.value).toBeGreaterThan(25e6);
    expect(mem?.timestampMs).toBeGreaterThan(0);
    expect(samples.find((s) => s.name === "scrape_error")?.value).toBe(0);
  });

  it("serves /metrics with the agent's kubelet_ series and /metrics/probes with prober_probe_total", async () => {
    const m = await tlsGet("/metrics");
    expect(m.status).toBe(200);
    const samples = parsePrometheusText(m.body);
    expect(samples.find((s) => s.name === "kubelet_node_name")?.labels).toEqual({ node: nodeName });
    expect(samples.find((s) => s.name === "kubelet_running_pods")?.value).toBeGreaterThanOrEqual(1);
    expect(samples.find((s) => s.name === "kubelet_running_containers" && s.labels["container_state"] === "running")?.value).toBeGreaterThanOrEqual(1);
    expect(samples.find((s) => s.name === "kubelet_runtime_operations_total" && s.labels["operation_type"] === "list_container_stats")?.value).toBeGreaterThan(0);
    expect(samples.find((s) => s.name === "kubelet_runtime_operations_total" && s.labels["operation_type"] === "pull_image")?.value).toBeGreaterThan(0);
    expect(samples.find((s) => s.name === "kubelet_pod_start_duration_seconds_count")?.value).toBeGreaterThanOrEqual(1);
    const p = await eventually("a readiness probe counted", async () => {
      const r = await tlsGet("/metrics/probes");
      return parsePrometheusText(r.body).find((s) => s.name === "prober_probe_total" && s.labels["pod"] === `hungry-${nodeName}`);
    }, 30_000, context);
    expect(p.labels).toMatchObject({ probe_type: "Readiness", result: "successful", container: "main", namespace: "default" });
  });
});
