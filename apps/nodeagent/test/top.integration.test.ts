// `kubectl top node|pod` end to end: the REAL apiserver process serving metrics.k8s.io, the node
// agent in-process (webhook authentication and authorization, trusting the apiserver's CA) on the
// process CRI server, and real kubectl. Also checks the Node's status.images.
import { startAPIModeAgent, textSink } from "./api-mode-agent.js";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Node } from "@skiff/api-types";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { adminToken, startAPIServer, writeKubeconfig, type RunningAPIServer } from "@skiff/test-support";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const run = promisify(execFile);
const nodeName = "top-node";


describe("kubectl top against the apiserver's metrics.k8s.io and a node agent", () => {
  let dir: string;
  let api: RunningAPIServer;
  let kubeconfig: string;
  let cri: ProcessRuntime;
  const stop = new AbortController();
  let agentDone: Promise<number>;
  const agentErr = textSink();
  const kubectl = async (...args: string[]) => run("kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-top-"));
    api = await startAPIServer({ dir: join(dir, "apiserver") });
    kubeconfig = join(dir, "kubeconfig");
    await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${String(api.port)}`, token: adminToken, caPEM: api.ca });
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state") });
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(
      join(manifests, "web.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web}}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, 'x=$(head -c 20000000 /dev/zero | tr \"\\\\0\" x); while :; do :; done']}\n",
    );
    agentDone = (
      await startAPIModeAgent({
        kubeconfig,
        nodeName,
        rootDir: join(dir, "root"),
        certDir: join(dir, "agent-pki"),
        endpoint: cri.endpoint,
        args: [
          `--pod-manifest-path=${manifests}`,
          "--file-check-frequency=1s",
          "--node-status-update-frequency=1s",
          "--node-status-max-images=1",
          "--anonymous-auth=false",
          `--client-ca-file=${join(api.dir, "pki", "ca.crt")}`,
          "--authentication-token-webhook",
          "--authorization-mode=Webhook",
        ],
        stderr: agentErr,
        stopSignal: stop.signal,
      })
    ).done;
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("reports the runtime's images on the Node, at most --node-status-max-images", async () => {
    const node = await waitFor("node with images", async () => {
      const r = await apiCall(api, "GET", `/api/v1/nodes/${nodeName}`);
      const n = r.status === 200 ? (r.json() as Node) : undefined;
      return (n?.status?.images?.length ?? 0) > 0 ? n : undefined;
    }, 60_000);
    expect(node.status?.images).toHaveLength(1);
    expect(node.status?.images?.[0]?.names?.some((n) => n.includes("busybox"))).toBe(true);
    expect(node.status?.images?.[0]?.sizeBytes).toBeGreaterThan(0);
  });

  it("serves metrics.k8s.io in discovery, NodeMetrics with window and timestamp, 405 for writes", async () => {
    const groups = (await apiCall(api, "GET", "/apis")).json() as { groups: { name: string; preferredVersion: { version: string } }[] };
    expect(groups.groups.find((g) => g.name === "metrics.k8s.io")?.preferredVersion.version).toBe("v1beta1");
    const resources = (await apiCall(api, "GET", "/apis/metrics.k8s.io/v1beta1")).json() as { resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[] };
    expect(resources.resources.map((r) => [r.name, r.kind, r.namespaced, r.verbs])).toEqual([
      ["nodes", "NodeMetrics", false, ["get", "list"]],
      ["pods", "PodMetrics", true, ["get", "list"]],
    ]);
    const m = await waitFor("node metrics", async () => {
      const r = await apiCall(api, "GET", `/apis/metrics.k8s.io/v1beta1/nodes/${nodeName}`);
      return r.status === 200 ? (r.json() as Record<string, unknown>) : undefined;
    }, 60_000);
    expect(m).toMatchObject({ kind: "NodeMetrics", apiVersion: "metrics.k8s.io/v1beta1", metadata: { name: nodeName } });
    expect(m["window"]).toMatch(/^[\d.]+(ms|s)$/);
    expect(m["timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((m["usage"] as { memory: string }).memory).toMatch(/^\d+(Ki|Mi|Gi)?$/);
    expect((await apiCall(api, "POST", "/apis/metrics.k8s.io/v1beta1/nodes", {})).status).toBe(405);
    expect((await apiCall(api, "GET", "/apis/metrics.k8s.io/v1beta1/nodes/nope")).status).toBe(404);
  });

  it("kubectl top node and kubectl top pod print numbers", async () => {
    await waitFor("web mirror pod running", async () => {
      const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/web-${nodeName}`);
      return r.status === 200 && (r.json() as { status?: { phase?: string } }).status?.phase === "Running";
    }, 60_000);
    const node = await kubectl("top", "node");
    expect(node.stdout).toMatch(new RegExp(`^${nodeName}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%`, "m"));
    const pod = await waitFor("kubectl top pod", async () => {
      const r = await kubectl("top", "pod", "-n", "default").catch(() => undefined);
      return r?.stdout.includes(`web-${nodeName}`) ? r : undefined;
    }, 60_000);
    const line = pod.stdout.split("\n").find((l) => l.startsWith(`web-${nodeName}`)) ?? "";
    const [, cpu = "", mem = ""] = /\s+(\d+)m\s+(\d+)Mi/.exec(line) ?? [];
    // The container spins (on a shared machine it gets what it gets) and holds ~20 MB.
    expect(Number(cpu)).toBeGreaterThan(10);
    expect(Number(mem)).toBeGreaterThanOrEqual(15);
    const selected = await kubectl("top", "pod", "-n", "default", "-l", "app=web", "--containers");
    expect(selected.stdout).toMatch(new RegExp(`web-${nodeName}\\s+main\\s+\\d+m\\s+\\d+Mi`));
    const none = await kubectl("get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dother");
    expect(JSON.parse(none.stdout)).toEqual({ kind: "PodMetricsList", apiVersion: "metrics.k8s.io/v1beta1", metadata: {}, items: [] });
    const byName = JSON.parse((await kubectl("get", "--raw", `/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.name%3Dweb-${nodeName}`)).stdout) as { items: { metadata: { name: string } }[] };
    expect(byName.items.map((i) => i.metadata.name)).toEqual([`web-${nodeName}`]);
    expect((await apiCall(api, "GET", "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=%3D%3D%3D")).status).toBe(400);
  });

  it("answers PodMetrics get with the containers' usage, and is listed by kubectl's aggregated discovery", async () => {
    const r = await apiCall(api, "GET", `/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-${nodeName}`);
    expect(r.status).toBe(200);
    const m = r.json() as { kind: string; metadata: { name: string; namespace: string; labels?: Record<string, string> }; window: string; containers: { name: string; usage: { cpu: string; memory: string } }[] };
    expect(m.kind).toBe("PodMetrics");
    expect(m.metadata).toMatchObject({ name: `web-${nodeName}`, namespace: "default", labels: { app: "web" } });
    expect(m.containers.map((c) => c.name)).toEqual(["main"]);
    expect(m.containers[0]?.usage.cpu).toMatch(/^\d+(n|u|m)?$/);
    const { stdout } = await kubectl("api-resources", "--api-group=metrics.k8s.io", "--no-headers");
    expect(stdout.split("\n").filter((l) => l !== "").map((l) => l.split(/\s+/)[0]).sort()).toEqual(["nodes", "pods"]);
  });
});
