// The memory-pressure acceptance story of issue 19, shared by the process-runtime and the
// containerd suites: the REAL apiserver, the REAL controller manager (skiff-job-controller: Job and
// node lifecycle controllers) and the node agent in this process.
//
// How memory pressure is made deterministic on a shared machine: the signal is
// `allocatableMemory.available` — the pods' allocatable memory (capacity − --system-reserved) less
// the pods' own working set — not `memory.available`, which moves with every other process on the
// machine. --system-reserved takes all but 400 MiB of the machine's MemTotal, so the pods may use
// 400 MiB; the soft threshold is 300 MiB available with a 5 s grace period. Idle pods use a few MiB
// (not met); the Job's pod holds ~150 MiB in a shell variable, which only it can do (met). Other
// helpers' memory use on the machine changes neither side. --eviction-hard is empty, so no
// machine-dependent hard threshold (memory.available<100Mi by default) can interfere.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { Job, Node, Pod } from "@skiff/api-types";
import { adminToken, startAPIServer, waitFor, writeKubeconfig, type RunningAPIServer } from "@skiff/test-support";
import { startAPIModeAgent, textSink, type TextSink } from "./api-mode-agent.js";
import { apiCall } from "./cluster-helpers.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const Mi = 1024 * 1024;

/** The machine's MemTotal in bytes (what the agent reports as memory capacity). */
function memTotalBytes(): number {
  const m = /^MemTotal:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"));
  if (!m?.[1]) throw new Error("no MemTotal in /proc/meminfo");
  return Number(m[1]) * 1024;
}

/** A started story: apiserver, controller manager, agent. */
export interface MemoryPressureCluster {
  readonly api: RunningAPIServer;
  readonly agentLog: TextSink;
  readonly controllerLog: () => string;
  stop(): Promise<void>;
}

/** Starts the three parts in `dir` against the CRI at `endpoint`; `args` are extra agent flags. */
export async function startMemoryPressureCluster(dir: string, nodeName: string, endpoint: string, args: readonly string[] = []): Promise<MemoryPressureCluster> {
  const api = await startAPIServer({ dir: join(dir, "apiserver") });
  const kubeconfig = join(dir, "kubeconfig");
  await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${String(api.port)}`, token: adminToken, caPEM: api.ca });
  let controllerErr = "";
  const controllers: ChildProcess = spawn(
    process.execPath,
    ["--conditions=@skiff/source", "--import", "tsx", join(repoRoot, "apps/job-controller/src/main.ts"), `--clusterconfig=${kubeconfig}`, "--node-monitor-period=1s", "-v=2"],
    { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] },
  );
  controllers.stderr?.on("data", (d: Buffer) => (controllerErr += d.toString()));
  const exited = new Promise<void>((r) => controllers.once("exit", () => r()));
  const stop = new AbortController();
  const agentLog = textSink();
  const reserved = memTotalBytes() - 400 * Mi;
  const { done } = await startAPIModeAgent({
    kubeconfig,
    nodeName,
    rootDir: join(dir, "root"),
    certDir: join(dir, "agent-pki"),
    endpoint,
    args: [
      "--node-status-update-frequency=1s",
      `--system-reserved=memory=${String(reserved)}`,
      "--eviction-hard=",
      "--eviction-soft=allocatableMemory.available<300Mi",
      "--eviction-soft-grace-period=allocatableMemory.available=5s",
      "--eviction-max-pod-grace-period=2",
      "--eviction-pressure-transition-period=15s",
      ...args,
    ],
    stderr: agentLog,
    stopSignal: stop.signal,
  });
  return {
    api,
    agentLog,
    controllerLog: () => controllerErr,
    async stop() {
      stop.abort();
      await done.catch(() => 1);
      controllers.kill("SIGTERM");
      await exited;
      await api.stop();
    },
  };
}

/**
 * The acceptance story: a Job whose first pod allocates ~150 MiB past the soft threshold; that pod
 * is evicted after the grace period (Failed/Evicted, 1.23's message, an Evicted event), the Node
 * shows MemoryPressure and the controller's `node.example.io/memory-pressure:NoSchedule` taint,
 * both go once the transition period has passed, and the Job counts the evicted pod as failed and
 * creates a replacement, which succeeds (a marker file on a hostPath tells it it is the second).
 */
export async function runMemoryPressureStory(c: MemoryPressureCluster, dir: string, nodeName: string): Promise<void> {
  const markerDir = join(dir, "marker");
  mkdirSync(markerDir, { recursive: true });
  const get = async <T>(path: string): Promise<T | undefined> => {
    const r = await apiCall(c.api, "GET", path);
    return r.status === 200 ? (r.json() as T) : undefined;
  };
  const node = () => get<Node>(`/api/v1/nodes/${nodeName}`);
  const condition = (n: Node | undefined) => n?.status?.conditions?.find((x) => x.type === "MemoryPressure")?.status;
  const tainted = (n: Node | undefined) => (n?.spec?.taints ?? []).some((t) => t.key === "node.example.io/memory-pressure" && t.effect === "NoSchedule");
  let lastPods = "";
  const context = () => `pods: ${lastPods}\nagent:\n${c.agentLog.text().split("\n").filter((l) => /[Ee]viction|evict/.test(l)).slice(-20).join("\n")}\ncontrollers:\n${c.controllerLog().slice(-2000)}`;

  await waitFor(async () => {
    const n = await node();
    return n?.status?.conditions?.find((x) => x.type === "Ready")?.status === "True" && condition(n) === "False" ? n : undefined;
  }, { what: "node Ready without memory pressure", timeoutMs: 90_000, context });

  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "hog" },
    spec: {
      backoffLimit: 3,
      template: {
        spec: {
          nodeName,
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 2,
          containers: [
            {
              name: "hog",
              image: "busybox:1.36",
              imagePullPolicy: "IfNotPresent",
              // Burstable (a CPU request), so the replacement is admitted while MemoryPressure lasts.
              // A command after the sleep keeps the shell (and its variable) alive: busybox sh would
              // exec a last `sleep` in its place and free the memory.
              resources: { requests: { cpu: "10m" } },
              command: ["sh", "-c", "if [ -e /marker/first ]; then echo replacement; exit 0; fi; touch /marker/first; x=$(yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 157286400); echo holding; sleep 3600; echo ${#x}"],
              volumeMounts: [{ name: "marker", mountPath: "/marker" }],
            },
          ],
          volumes: [{ name: "marker", hostPath: { path: markerDir, type: "Directory" } }],
        },
      },
    },
  };
  const created = await apiCall(c.api, "POST", "/apis/batch/v1/namespaces/default/jobs", job);
  expect(created.status, created.body).toBe(201);

  const pressured = await waitFor(async () => {
    const list = await get<{ items: Pod[] }>("/api/v1/namespaces/default/pods?labelSelector=job-name%3Dhog");
    lastPods = JSON.stringify(list?.items.map((p) => p.status?.phase));
    const n0 = await node();
    const port = n0?.status?.daemonEndpoints?.kubeletEndpoint?.Port;
    if (port !== undefined) {
      const https = await import("node:https");
      const text = await new Promise<string>((res) => https.get(`https://127.0.0.1:${String(port)}/stats/summary`, { rejectUnauthorized: false }, (r) => { let t = ""; r.on("data", (d: Buffer) => (t += d.toString())); r.on("end", () => res(t)); }).on("error", (e) => res(String(e))));
      try {
        const sm = JSON.parse(text) as { node: { systemContainers?: unknown[] }; pods: Array<{ containers: Array<{ name: string; memory?: unknown }> }> };
        lastPods += ` sys=${JSON.stringify(sm.node.systemContainers?.slice(-1))} pods=${JSON.stringify(sm.pods.map((p) => p.containers.map((c) => c.memory)))}`;
      } catch {
        lastPods += text.slice(0, 300);
      }
    }
    const n = await node();
    return condition(n) === "True" && tainted(n) ? n : undefined;
  }, { what: "MemoryPressure=True and its taint on the Node", timeoutMs: 120_000, context });
  expect(pressured.status?.conditions?.find((x) => x.type === "MemoryPressure")).toMatchObject({ reason: "NodeAgentHasInsufficientMemory" });

  const evicted = await waitFor(async () => {
    const list = await get<{ items: Pod[] }>("/api/v1/namespaces/default/pods?labelSelector=job-name%3Dhog");
    return list?.items.find((p) => p.status?.phase === "Failed" && p.status.reason === "Evicted");
  }, { what: "the first pod evicted", timeoutMs: 120_000, context });
  expect(evicted.status?.message).toMatch(/^The node was low on resource: memory\. Container hog was using \d+(Ki|Mi), which exceeds its request of 0\. $/);
  const events = await waitFor(async () => {
    const r = await get<{ items: { reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }[] }>("/api/v1/namespaces/default/events");
    const e = r?.items.filter((x) => x.reason === "Evicted" && x.involvedObject?.name === evicted.metadata?.name) ?? [];
    return e.length > 0 ? e : undefined;
  }, { what: "its Evicted event", timeoutMs: 30_000, context });
  expect(events[0]).toMatchObject({ type: "Warning", message: evicted.status?.message });

  // The Job counts the evicted pod as failed and its replacement completes it.
  const done = await waitFor(async () => {
    const j = await get<Job>("/apis/batch/v1/namespaces/default/jobs/hog");
    return j?.status?.succeeded === 1 ? j : undefined;
  }, { what: "the Job complete with one failure", timeoutMs: 180_000, context });
  expect(done.status?.failed).toBe(1);
  const pods = (await get<{ items: Pod[] }>("/api/v1/namespaces/default/pods?labelSelector=job-name%3Dhog"))?.items ?? [];
  expect(pods.map((p) => `${p.status?.phase ?? ""}/${p.status?.reason ?? ""}`).sort()).toEqual(["Failed/Evicted", "Succeeded/"]);

  // The condition clears once the pressure has not been seen for the transition period; the taint goes with it.
  const cleared = await waitFor(async () => {
    const n = await node();
    return condition(n) === "False" && !tainted(n) ? n : undefined;
  }, { what: "MemoryPressure=False and no taint", timeoutMs: 120_000, context });
  expect(cleared.status?.conditions?.find((x) => x.type === "MemoryPressure")).toMatchObject({ status: "False", reason: "NodeAgentHasSufficientMemory" });
}
