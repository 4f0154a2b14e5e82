// API-server mode end to end: the REAL apiserver process, the node agent in-process on the
// project's process CRI server, real kubectl for `kubectl logs` and `kubectl delete`.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Node, Pod } from "@skiff/api-types";
import { createRuntimeClient } from "@skiff/cri-api";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { runNodeAgent } from "../src/app.js";
import type { RunningServers } from "../src/server/index.js";
import { freePort } from "./cli-helpers.js";
import { adminToken, apiCall, startAPIServer, viewerToken, writeAdminKubeconfig, type APIServerProcess } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

const run = promisify(execFile);
const nodeName = "node-a";

function sink(): { write(s: string): boolean; text(): string } {
  let out = "";
  return { write: (s: string) => ((out += s), true), text: () => out };
}

function agentGet(port: number, path: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET", rejectUnauthorized: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("node agent in API-server mode", () => {
  let dir: string;
  let api: APIServerProcess;
  let kubeconfig: string;
  let cri: ProcessRuntime;
  let criSocket: string;
  const stop = new AbortController();
  let agentDone: Promise<number>;
  let servers: RunningServers | undefined;
  const agentErr = sink();

  const kubectl = async (...args: string[]) => run("kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 });
  const getNode = async (): Promise<Node | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/nodes/${nodeName}`);
    return r.status === 200 ? (r.json() as Node) : undefined;
  };
  const getPod = async (name: string): Promise<Pod | undefined> => {
    const r = await apiCall(api, "GET", `/api/v1/namespaces/default/pods/${name}`);
    return r.status === 200 ? (r.json() as Pod) : undefined;
  };
  const readyOf = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === "Ready");

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-nac-"));
    api = await startAPIServer(dir);
    kubeconfig = await writeAdminKubeconfig(api);
    criSocket = join(dir, "cri.sock");
    cri = await startProcessRuntime({ socketPath: criSocket, stateDir: join(dir, "cri-state") });
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(
      join(manifests, "web.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web}}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - {name: main, image: busybox, command: [sh, -c, 'echo static; sleep 3600']}\n",
    );
    let ready!: (s: RunningServers | undefined) => void;
    const readyP = new Promise<RunningServers | undefined>((r) => (ready = r));
    agentDone = runNodeAgent(
      [
        `--clusterconfig=${kubeconfig}`,
        "--hostname-override=Node-A",
        "--node-ip=127.0.0.1",
        "--address=127.0.0.1",
        `--port=${await freePort()}`,
        "--read-only-port=0",
        "--healthz-port=0",
        `--root-dir=${join(dir, "root")}`,
        `--cert-dir=${join(dir, "agent-pki")}`,
        `--container-runtime-endpoint=${cri.endpoint}`,
        `--pod-manifest-path=${manifests}`,
        "--file-check-frequency=1s",
        "--node-status-update-frequency=1s",
        "--sync-frequency=2s",
        "--node-labels=node.example.io/role=worker,team=a",
        "--register-with-taints=dedicated=batch:NoSchedule",
        "--system-reserved=cpu=100m,memory=100Mi",
        "--max-pods=20",
        "--pod-cidr=10.9.0.0/24",
        "--anonymous-auth=false",
        `--client-ca-file=${join(api.dir, "pki", "ca.crt")}`,
        "--authentication-token-webhook",
        "--authorization-mode=Webhook",
      ],
      { stdout: sink(), stderr: agentErr, stopSignal: stop.signal, onReady: ready },
    );
    servers = await Promise.race([readyP, agentDone.then((code) => Promise.reject(new Error(`agent exited ${code}: ${agentErr.text()}`)))]);
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await agentDone?.catch(() => 1);
    await cri?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("registers the Node with labels, taints, capacity, allocatable, endpoints and Ready=True", async () => {
    const node = await waitFor("node Ready", async () => {
      const n = await getNode();
      return readyOf(n)?.status === "True" ? n : undefined;
    }, 60_000);
    const labels = node.metadata?.labels ?? {};
    expect(labels["example.io/hostname"]).toBe(nodeName);
    expect(labels["example.io/os"]).toBe("linux");
    expect(labels["example.io/arch"]).toBe(process.arch === "x64" ? "amd64" : process.arch);
    expect(labels["beta.example.io/os"]).toBe("linux");
    expect(labels["beta.example.io/arch"]).toBe(labels["example.io/arch"]);
    expect(labels["node.example.io/role"]).toBe("worker");
    expect(labels["team"]).toBe("a");
    // --register-with-taints, then the apiserver's TaintNodesByCondition admission taint (1.23); this
    // suite runs no controller manager, whose node lifecycle controller would remove the latter.
    expect(node.spec?.taints).toEqual([
      { key: "dedicated", value: "batch", effect: "NoSchedule" },
      { key: "node.example.io/not-ready", effect: "NoSchedule" },
    ]);
    expect(node.spec?.unschedulable).toBeUndefined();
    // --pod-cidr: on the Node, and handed to the runtime (CRI UpdateRuntimeConfig), as 1.23's updatePodCIDR.
    expect(node.spec?.podCIDRs).toEqual(["10.9.0.0/24"]);
    const rt = createRuntimeClient({ endpoint: cri.endpoint, timeoutMs: 5_000 });
    try {
      await waitFor("pod CIDR handed to the runtime", async () => {
        const status = await rt.status({ verbose: true });
        return (JSON.parse(status.info["config"] ?? "{}") as { podCidr?: string }).podCidr === "10.9.0.0/24" ? true : undefined;
      });
    } finally {
      rt.close();
    }
    const st = node.status ?? {};
    expect(st.capacity?.["cpu"]).toBe(String(cpus().length));
    expect(st.capacity?.["pods"]).toBe("20");
    expect(st.allocatable?.["cpu"]).toBe(`${cpus().length * 1000 - 100}m`);
    expect(st.allocatable?.["pods"]).toBe("20");
    expect(st.capacity?.["memory"]).toMatch(/^\d+(Ki|Mi|Gi)?$/);
    expect(st.capacity?.["ephemeral-storage"]).toBeDefined();
    expect(readyOf(node)).toMatchObject({ reason: "NodeAgentReady", message: "nodeagent is posting ready status" });
    for (const t of ["MemoryPressure", "DiskPressure", "PIDPressure"]) expect(st.conditions?.some((c) => c.type === t)).toBe(true);
    expect(st.conditions?.find((c) => c.type === "MemoryPressure")?.reason).toMatch(/^NodeAgentHas/);
    expect(st.addresses).toEqual([
      { type: "InternalIP", address: "127.0.0.1" },
      { type: "Hostname", address: nodeName },
    ]);
    expect(st.daemonEndpoints?.kubeletEndpoint?.Port).toBe(servers?.addresses.main?.port);
    expect(st.nodeInfo?.kubeletVersion).toBe("v1.23.0-skiff.0");
    expect(st.nodeInfo?.containerRuntimeVersion).toMatch(/:\/\//);
    // kubectl sees it Ready.
    const { stdout } = await kubectl("get", "nodes");
    expect(stdout).toMatch(new RegExp(`${nodeName}\\s+Ready`));
  }, 90_000);

  it("refuses a forbidden node label and a missing clusterconfig with bootstrap, before starting", async () => {
    const err = sink();
    const code = await runNodeAgent([`--clusterconfig=${kubeconfig}`, "--node-labels=node-role.example.io/master=", `--root-dir=${join(dir, "root2")}`], { stdout: sink(), stderr: err });
    expect(code).toBe(1);
    expect(err.text()).toContain("unknown 'example.io' labels specified with --node-labels: [node-role.example.io/master]");
    const err2 = sink();
    const code2 = await runNodeAgent(
      [`--clusterconfig=${join(dir, "missing.kubeconfig")}`, `--bootstrap-clusterconfig=${kubeconfig}`, `--root-dir=${join(dir, "root3")}`, `--port=${await freePort()}`, "--read-only-port=0", "--healthz-port=0", `--container-runtime-endpoint=${cri.endpoint}`],
      { stdout: sink(), stderr: err2 },
    );
    expect(code2).toBe(1);
    expect(err2.text()).toContain("client certificate bootstrapping");
  }, 60_000);

  it("runs a pod bound to the node: Running, then Succeeded, reported through pods/status; kubectl logs prints its output", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "hello", namespace: "default" },
      spec: { nodeName, restartPolicy: "Never", terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "echo hello from skiff; sleep 3"] }] },
    };
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    const running = await waitFor("Running", async () => {
      const p = await getPod("hello");
      return p?.status?.phase === "Running" ? p : undefined;
    }, 60_000);
    expect(running.status?.startTime).toBeDefined();
    expect(running.status?.hostIP).toBe("127.0.0.1");
    expect(running.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(running.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    const done = await waitFor("Succeeded", async () => {
      const p = await getPod("hello");
      return p?.status?.phase === "Succeeded" ? p : undefined;
    }, 60_000);
    expect(done.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0);
    expect(done.status?.conditions?.find((c) => c.type === "PodScheduled")?.status).toBe("True");

    const { stdout } = await kubectl("logs", "hello");
    expect(stdout).toBe("hello from skiff\n");
    const wrong = await kubectl("logs", "hello", "-c", "nope").then(
      () => "",
      (e: { stderr: string }) => e.stderr,
    );
    expect(wrong).toContain("container nope is not valid for pod hello");
  }, 120_000);

  it("stops a running pod deleted through the API and the object goes", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "sleeper", namespace: "default" },
      spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "sleep 3600"] }] },
    };
    expect((await apiCall(api, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    await waitFor("Running", async () => ((await getPod("sleeper"))?.status?.phase === "Running" ? true : undefined), 60_000);
    await kubectl("delete", "pod", "sleeper", "--wait=false");
    await waitFor("pod object gone", async () => ((await getPod("sleeper")) === undefined ? true : undefined), 60_000);
    const agentPods = await agentGet(servers?.addresses.main?.port ?? 0, "/pods", adminToken);
    expect(agentPods.status).toBe(200);
    expect(agentPods.body).not.toContain('"sleeper"');
    const runningPods = await agentGet(servers?.addresses.main?.port ?? 0, "/runningpods/", adminToken);
    expect(runningPods.status).toBe(200);
    expect(runningPods.body).not.toContain('"sleeper"');
  }, 120_000);

  it("creates a mirror pod for a static pod (owned by the Node) and recreates it when deleted", async () => {
    const mirror = await waitFor("mirror pod Running", async () => {
      const p = await getPod(`web-${nodeName}`);
      return p?.status?.phase === "Running" ? p : undefined;
    }, 60_000);
    const node = await getNode();
    expect(mirror.metadata?.annotations?.["example.io/config.mirror"]).toMatch(/^[0-9a-f]{32}$/);
    expect(mirror.metadata?.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: nodeName, uid: node?.metadata?.uid, controller: true }]);
    expect((await apiCall(api, "DELETE", `/api/v1/namespaces/default/pods/web-${nodeName}?gracePeriodSeconds=0`)).status).toBe(200);
    await waitFor("mirror pod recreated", async () => {
      const p = await getPod(`web-${nodeName}`);
      return p && p.metadata?.uid !== mirror.metadata?.uid ? true : undefined;
    }, 60_000);
    const { stdout } = await kubectl("logs", `web-${nodeName}`);
    expect(stdout).toContain("static");
  }, 120_000);

  it("authenticates and authorizes the main port through the apiserver's TokenReview and SubjectAccessReview", async () => {
    const port = servers?.addresses.main?.port ?? 0;
    expect((await agentGet(port, "/pods", adminToken)).status).toBe(200);
    expect((await agentGet(port, "/pods", "not-a-token")).status).toBe(401);
    expect((await agentGet(port, "/pods")).status).toBe(401);
    const denied = await agentGet(port, "/pods", viewerToken);
    expect(denied.status).toBe(403);
    expect(denied.body).toContain("user=viewer");
  }, 60_000);

  it("reports Ready=False while the runtime is down and Ready=True once it is back", async () => {
    await cri.stop();
    const down = await waitFor("NotReady", async () => {
      const c = readyOf(await getNode());
      return c?.status === "False" ? c : undefined;
    }, 60_000);
    expect(down.reason).toBe("NodeAgentNotReady");
    expect(down.message).toContain("container runtime is down");
    cri = await startProcessRuntime({ socketPath: criSocket, stateDir: join(dir, "cri-state") });
    await waitFor("Ready again", async () => (readyOf(await getNode())?.status === "True" ? true : undefined), 60_000);
  }, 150_000);
});
