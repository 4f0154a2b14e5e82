// /stats/summary and /metrics/resource of the REAL node agent binary on real containerd + runc
// (tools/containerd/setup.sh in a temporary directory, purged afterwards): the container's memory
// working set agrees with its cgroup (memory.usage_in_bytes minus total_inactive_file) within 10 %
// (the container fills 40 MB of its /dev/shm tmpfs, which its memory cgroup is charged for).
// Skip rules as the other containerd suites: with CI=true it must run.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { createRuntimeClient } from "@skiff/cri-api";
import { parsePrometheusText, type Summary } from "../src/stats/index.js";
import type { HarnessAgent } from "./agent-harness.js";
import { eventually, get, removePodLogs, startHarnessAgent } from "./agent-harness.js";

const setup = setUpContainerd({ prefix: "skiff-statsc-", suite: "containerd stats suite" });
const nodeName = `statsc-${Math.random().toString(36).slice(2, 8)}`;
let agent: HarnessAgent | undefined;

afterAll(async () => {
  await agent?.stop(10_000);
  tearDownContainerd(setup);
  await removePodLogs(nodeName);
}, 180_000);

const manifest = `apiVersion: v1
kind: Pod
metadata: {name: hungry, namespace: default}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox:1.36
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", "head -c 40000000 /dev/zero > /dev/shm/fill; sleep 3600"]
`;

/** The working set the kubelet (cadvisor, containerd) derives from a v1 memory cgroup. */
function cgroupWorkingSet(pid: number): number {
  const line = readFileSync(`/proc/${pid}/cgroup`, "utf8").split("\n").find((l) => l.split(":")[1]?.split(",").includes("memory"));
  const path = line?.split(":")[2] ?? "";
  const dir = `/sys/fs/cgroup/memory${path}`;
  const usage = Number(readFileSync(`${dir}/memory.usage_in_bytes`, "utf8").trim());
  const inactive = Number(/^total_inactive_file (\d+)$/m.exec(readFileSync(`${dir}/memory.stat`, "utf8"))?.[1] ?? 0);
  return usage - inactive;
}

describe.skipIf(setup.endpoint === undefined)("stats on containerd", () => {
  const endpoint = setup.endpoint ?? "";
  const context = () => agent?.logs() ?? "";

  beforeAll(async () => {
    const manifests = join(setup.dir, "manifests");
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "hungry.yaml"), manifest);
    agent = await startHarnessAgent({ dir: join(setup.dir, "agent"), nodeName, runtimeEndpoint: endpoint, manifests, args: ["--file-check-frequency=1s"] });
  }, 120_000);

  it("reports the container's memory within 10 % of its cgroup's working set, and its CPU", async () => {
    const a = agent;
    if (!a) throw new Error("no agent");
    const rt = createRuntimeClient({ endpoint, timeoutMs: 30_000 });
    try {
      const container = await eventually("hungry running in containerd", async () => {
        const list = await rt.listContainers({});
        return list.containers.find((c) => c.metadata?.name === "main" && c.state === "CONTAINER_RUNNING" && c.labels["io.example.pod.name"] === `hungry-${nodeName}`);
      }, 90_000, context);
      const status = await rt.containerStatus({ containerId: container.id, verbose: true });
      const pid = Number((JSON.parse(status.info["info"] ?? "{}") as { pid?: number }).pid);
      expect(pid).toBeGreaterThan(0);
      const summary = await eventually("summary with the pod's 40 MB and the image fs measured", async () => {
        const r = await get(a.ports.main, "/stats/summary", {});
        if (r.status !== 200) return undefined;
        const s = r.json<Summary>();
        const ws = s.pods.find((p) => p.podRef.name === `hungry-${nodeName}`)?.containers[0]?.memory?.workingSetBytes ?? 0;
        // containerd measures its image fs every stats_collect_period (10 s): 0 until its first pass.
        return ws > 35e6 && (s.node.runtime?.imageFs?.usedBytes ?? 0) > 0 ? s : undefined;
      }, 90_000, context);
      const c = summary.pods.find((p) => p.podRef.name === `hungry-${nodeName}`)?.containers[0];
      const expected = cgroupWorkingSet(pid);
      expect(Math.abs((c?.memory?.workingSetBytes ?? 0) - expected) / expected).toBeLessThan(0.1);
      expect(c?.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
      expect(c?.rootfs?.capacityBytes).toBeGreaterThan(0);
      expect(summary.pods.find((p) => p.podRef.name === `hungry-${nodeName}`)?.process_stats?.process_count).toBeGreaterThanOrEqual(1);
      expect(summary.node.runtime?.imageFs?.usedBytes).toBeGreaterThan(0);
      // The pod's network: its sandbox's own namespace (CNI gives it an eth0), never the host's lo.
      const network = summary.pods.find((p) => p.podRef.name === `hungry-${nodeName}`)?.network;
      expect(network?.interfaces?.length).toBeGreaterThan(0);
      expect(network?.interfaces?.some((i) => i.name === "lo")).toBe(false);
      expect(network?.rxBytes).toBeGreaterThanOrEqual(0);
      const metrics = parsePrometheusText((await get(a.ports.main, "/metrics/resource", {})).body);
      const mem = metrics.find((m) => m.name === "container_memory_working_set_bytes" && m.labels["pod"] === `hungry-${nodeName}`);
      expect(Math.abs((mem?.value ?? 0) - expected) / expected).toBeLessThan(0.1);
    } finally {
      rt.close();
    }
  });
});
