// Shared by the streaming suites (exec, attach, cp, port-forward through the REAL apiserver and the
// node agent): starts both, creates a pod bound to the node, runs kubectl.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "@skiff/api-types";
import { adminToken, startAPIServer, writeKubeconfig } from "@skiff/test-support";
import type { RunningAPIServer } from "@skiff/test-support";
import { runNodeAgent } from "../src/app.js";
import type { RunningServers } from "../src/server/index.js";
import { freePort } from "./cli-helpers.js";
import { apiCall } from "./cluster-helpers.js";
import { waitFor } from "./pods-helpers.js";

export const streamingNodeName = "stream-node";

/** The apiserver (anonymous off, AlwaysAllow) and an in-process node agent on `criEndpoint`. */
export interface StreamingCluster {
  readonly api: RunningAPIServer;
  readonly kubeconfig: string;
  readonly agentPort: number;
  kubectl(args: readonly string[], opts?: { input?: string; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Creates a pod bound to the node and waits until it runs. */
  runPod(pod: Pod): Promise<Pod>;
  stop(): Promise<void>;
}

export async function startStreamingCluster(dir: string, criEndpoint: string): Promise<StreamingCluster> {
  mkdirSync(dir, { recursive: true });
  const api = await startAPIServer({ dir: join(dir, "apiserver"), args: ["--anonymous-auth=false"] });
  const kubeconfig = api.kubeconfig;
  await writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${String(api.port)}`, token: adminToken, caPEM: api.ca });
  const stop = new AbortController();
  let err = "";
  const sink = { write: (s: string) => ((err += s), true) };
  const agentPort = await freePort();
  let ready!: (s: RunningServers | undefined) => void;
  const readyP = new Promise<RunningServers | undefined>((r) => (ready = r));
  const agentDone = runNodeAgent(
    [
      `--clusterconfig=${kubeconfig}`,
      `--hostname-override=${streamingNodeName}`,
      "--node-ip=127.0.0.1",
      "--address=127.0.0.1",
      `--port=${agentPort}`,
      "--read-only-port=0",
      "--healthz-port=0",
      `--root-dir=${join(dir, "root")}`,
      `--cert-dir=${join(dir, "agent-pki")}`,
      `--container-runtime-endpoint=${criEndpoint}`,
      "--node-status-update-frequency=1s",
      "--sync-frequency=2s",
      "--anonymous-auth=false",
      `--client-ca-file=${join(api.dir, "pki", "ca.crt")}`,
      "--authentication-token-webhook",
      "--authorization-mode=Webhook",
    ],
    { stdout: { write: () => true }, stderr: sink, stopSignal: stop.signal, onReady: ready },
  );
  await Promise.race([readyP, agentDone.then((code) => Promise.reject(new Error(`agent exited ${code}: ${err}`)))]);
  const kubectl: StreamingCluster["kubectl"] = (args, opts = {}) =>
    new Promise((resolve) => {
      const p = spawn("kubectl", ["--kubeconfig", kubeconfig, ...args], { stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const t = setTimeout(() => p.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
      p.on("close", (code) => {
        clearTimeout(t);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      p.stdin.end(opts.input ?? "");
    });
  return {
    api,
    kubeconfig,
    agentPort,
    kubectl,
    async runPod(pod) {
      const ns = pod.metadata?.namespace ?? "default";
      const body = { apiVersion: "v1", kind: "Pod", ...pod, spec: { ...pod.spec, nodeName: streamingNodeName } };
      const r = await apiCall(api, "POST", `/api/v1/namespaces/${ns}/pods`, body);
      if (r.status !== 201) throw new Error(`create pod: ${r.status} ${r.body}`);
      return waitFor(
        `pod ${pod.metadata?.name ?? ""} Running`,
        async () => {
          const g = await apiCall(api, "GET", `/api/v1/namespaces/${ns}/pods/${pod.metadata?.name ?? ""}`);
          const p = g.json() as Pod;
          const all = p.status?.containerStatuses ?? [];
          return p.status?.phase === "Running" && all.length > 0 && all.every((c) => c.state?.running) ? p : undefined;
        },
        120_000,
      );
    },
    async stop() {
      stop.abort();
      await agentDone.catch(() => 1);
      await api.stop();
    },
  };
}

/** Runs a long-lived kubectl (attach, port-forward) until `until` matches its stdout; the caller kills it. */
export function spawnKubectl(kubeconfig: string, args: readonly string[]): { proc: ChildProcess; output(): string; waitForOutput(re: RegExp, timeoutMs?: number): Promise<string> } {
  const proc = spawn("kubectl", ["--kubeconfig", kubeconfig, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  return {
    proc,
    output: () => out,
    waitForOutput: (re, timeoutMs = 30_000) => waitFor(`kubectl output ${String(re)}`, () => (re.test(out) ? out : undefined), timeoutMs),
  };
}
