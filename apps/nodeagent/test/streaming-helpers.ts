// Shared by the streaming suites (exec, attach, cp, port-forward through the REAL apiserver and the
// node agent): starts both, creates a pod bound to the node, runs kubectl.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { delimiter, dirname, join } from "node:path";
import { expect, it } from "vitest";
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
  /** Runs kubectl (`opts.binary`: another build, e.g. `kubectl.1.27`) with this cluster's kubeconfig. */
  kubectl(args: readonly string[], opts?: { input?: string; timeoutMs?: number; binary?: string }): Promise<{ code: number; stdout: string; stderr: string }>;
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
      const p = spawn(opts.binary ?? "kubectl", ["--kubeconfig", kubeconfig, ...args], { stdio: ["pipe", "pipe", "pipe"] });
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
export function spawnKubectl(kubeconfig: string, args: readonly string[], binary = "kubectl"): { proc: ChildProcess; output(): string; waitForOutput(re: RegExp, timeoutMs?: number): Promise<string> } {
  const proc = spawn(binary, ["--kubeconfig", kubeconfig, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  return {
    proc,
    output: () => out,
    waitForOutput: (re, timeoutMs = 30_000) => waitFor(`kubectl output ${String(re)}`, () => (re.test(out) ? out : undefined), timeoutMs),
  };
}

/** The kubectl build `kubectl.<minor>` installed beside the `kubectl` dispatcher, or undefined. */
export function kubectlBuild(version: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const k = join(dir, "kubectl");
    if (!existsSync(k)) continue;
    const build = join(dirname(realpathSync(k)), `kubectl.${version}`);
    return existsSync(build) ? build : undefined;
  }
  return undefined;
}

/** An upgrade request to the apiserver with `headers` only: its status and body (no stream is used). */
export function rawUpgrade(port: number, ca: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", servername: "localhost", port, path, method: "POST", ca, headers: { connection: "Upgrade", upgrade: "SPDY/3.1", "x-stream-protocol-version": "v4.channel.k8s.io", ...headers } });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: "" });
    });
    req.on("error", reject);
    req.end();
  });
}

/** What {@link defineStreamingAcceptance} runs against. */
export interface StreamingAcceptanceContext {
  cluster(): StreamingCluster;
  /** A directory of the test (kubectl cp's local side). */
  readonly localDir: string;
  /** A writable directory inside the pod's `main` container (kubectl cp's remote side). */
  readonly remoteDir: string;
  /** The port the pod's HTTP server listens on (serving `hello-httpd\n` at `/`). */
  readonly httpPort: number;
  /**
   * The runtime starts an `exec -it` command with the client's terminal size already set (the
   * process CRI server waits for the first size). Not asserted on containerd, whose CRI exec
   * resizes the console after the process has started.
   */
  readonly terminalSizeAtStart?: boolean;
}

/** `script -qfec <command> /dev/null` typing `lines` once a shell prompt shows (none: nothing typed); its output and exit code. */
function runInPty(command: string, lines: readonly string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const s = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    s.stdout.on("data", (d: Buffer) => (out += d.toString()));
    s.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const t = setTimeout(() => s.kill("SIGKILL"), 60_000);
    const typed = setInterval(() => {
      if (!/[#$] /.test(out)) return;
      clearInterval(typed);
      lines.forEach((l, i) => setTimeout(() => s.stdin.write(`${l}\r`), i * 400));
    }, 100);
    s.on("close", (code) => {
      clearTimeout(t);
      clearInterval(typed);
      resolve({ code: code ?? -1, out });
    });
  });
}

/**
 * The acceptance tests of `kubectl exec`/`exec -i`/`exec -it`/`cp`/`attach`/`port-forward` on a
 * pod `box` (containers `main`, an idle shell loop printing `tick N`, `web`, an HTTP server, and
 * `reader`, created with `stdin: true`, echoing each line it reads as `got:<line>`),
 * with the dispatcher's kubectl and with kubectl 1.27.
 */
export function defineStreamingAcceptance(ctx: StreamingAcceptanceContext): void {
  const k127 = kubectlBuild("1.27");
  const builds: Array<[string, string | undefined]> = [["kubectl", "kubectl"], ["kubectl 1.27", k127]];
  for (const [label, binary] of builds) {
    const run = binary === undefined ? it.skip : it;
    const why = binary === undefined ? " (skipped: no kubectl.1.27 beside the kubectl dispatcher)" : "";
    const kubectl = (args: readonly string[], opts: { input?: string } = {}) => ctx.cluster().kubectl(args, { ...opts, ...(binary !== undefined ? { binary } : {}) });

    run(`${label}: exec prints the output, then 'command terminated with exit code 3' and exits 3${why}`, async () => {
      const r = await kubectl(["exec", "box", "-c", "main", "--", "sh", "-c", "echo hi; exit 3"]);
      expect(r.stdout).toBe("hi\n");
      expect(r.stderr).toContain("command terminated with exit code 3");
      expect(r.code).toBe(3);
    });

    run(`${label}: exec -i passes piped stdin and ends when it closes${why}`, async () => {
      const r = await kubectl(["exec", "-i", "box", "-c", "main", "--", "sh", "-c", "tr a-z A-Z"], { input: "piped text\n" });
      expect(r).toMatchObject({ code: 0, stdout: "PIPED TEXT\n" });
    });

    run(`${label}: exec -it runs an interactive shell through a pseudo-terminal${why}`, async () => {
      const r = await runInPty(`${binary ?? "kubectl"} --kubeconfig ${ctx.cluster().kubeconfig} exec -it box -c main -- sh`, ["echo tty=$(tty | cut -c1-8)", "exit 5"]);
      expect(r.out).toMatch(/tty=\/dev\/pt/);
      expect(r.out).toContain("command terminated with exit code 5");
      expect(r.code).toBe(5);
    });

    run(`${label}: exec -it gives the command kubectl's terminal size${why}`, async () => {
      const r = await runInPty(`stty rows 41 cols 101; ${binary ?? "kubectl"} --kubeconfig ${ctx.cluster().kubeconfig} exec -it box -c main -- sh`, ["stty size", "exit 0"]);
      expect(r.out).toMatch(/\b41 101\b/);
      expect(r.code).toBe(0);
    });

    const runSized = ctx.terminalSizeAtStart === true ? run : it.skip;
    const whySized = ctx.terminalSizeAtStart === true ? why : " (skipped: this runtime sets the terminal size after the command starts)";
    runSized(`${label}: exec -it starts the command with kubectl's terminal size already set (no shell in between)${whySized}`, async () => {
      const r = await runInPty(`stty rows 37 cols 93; ${binary ?? "kubectl"} --kubeconfig ${ctx.cluster().kubeconfig} exec -it box -c main -- stty size`, []);
      expect(r.out).toMatch(/\b37 93\b/);
      expect(r.code).toBe(0);
    });

    run(`${label}: cp copies a file into the container and back out${why}`, async () => {
      const name = `cp-${label.replace(/\W/g, "")}`;
      const local = join(ctx.localDir, `${name}-local.txt`);
      writeFileSync(local, `copied by ${label}\n`);
      expect(await kubectl(["cp", local, `box:${ctx.remoteDir}/${name}-in.txt`, "-c", "main"])).toMatchObject({ code: 0 });
      expect((await kubectl(["exec", "box", "-c", "main", "--", "cat", `${ctx.remoteDir}/${name}-in.txt`])).stdout).toBe(`copied by ${label}\n`);
      const back = join(ctx.localDir, `${name}-back.txt`);
      expect(await kubectl(["cp", `box:${ctx.remoteDir}/${name}-in.txt`, back, "-c", "main"])).toMatchObject({ code: 0 });
      expect(readFileSync(back, "utf8")).toBe(`copied by ${label}\n`);
    });

    run(`${label}: port-forward reaches the HTTP server in the pod${why}`, async () => {
      const local = await freePort();
      const k = spawnKubectl(ctx.cluster().kubeconfig, ["port-forward", "pod/box", `${local}:${ctx.httpPort}`], binary);
      try {
        await k.waitForOutput(/Forwarding from 127\.0\.0\.1/);
        expect(await (await fetch(`http://127.0.0.1:${local}/`)).text()).toBe("hello-httpd\n");
        expect(await (await fetch(`http://127.0.0.1:${local}/index.html`)).text()).toBe("hello-httpd\n");
      } finally {
        k.proc.kill("SIGKILL");
      }
    });

    run(`${label}: attach streams the main process's output${why}`, async () => {
      const k = spawnKubectl(ctx.cluster().kubeconfig, ["attach", "box", "-c", "main"], binary);
      try {
        await k.waitForOutput(/tick \d+\n[\s\S]*tick \d+\n/);
      } finally {
        k.proc.kill("SIGKILL");
      }
    });

    run(`${label}: attach -i writes to the stdin of a container created with stdin: true${why}`, async () => {
      const k = spawnKubectl(ctx.cluster().kubeconfig, ["attach", "-i", "box", "-c", "reader"], binary);
      try {
        const word = `w${Date.now()}`;
        k.proc.stdin?.write(`${word}\n`);
        await k.waitForOutput(new RegExp(`got:${word}`));
      } finally {
        k.proc.kill("SIGKILL");
      }
    });
  }

  it("a client that goes away ends the command's stdin", async () => {
    const marker = `${ctx.remoteDir}/stdin-closed-${Date.now()}`;
    const k = spawnKubectl(ctx.cluster().kubeconfig, ["exec", "-i", "box", "-c", "main", "--", "sh", "-c", `echo ready; cat >/dev/null; echo closed > ${marker}`]);
    try {
      await k.waitForOutput(/ready/);
    } finally {
      k.proc.kill("SIGKILL");
    }
    await waitFor("the command to see its stdin close", async () => {
      const r = await ctx.cluster().kubectl(["exec", "box", "-c", "main", "--", "cat", marker]);
      return r.stdout === "closed\n" ? true : undefined;
    });
  });

  it("an exec into a pod whose node agent is unreachable is 500 'error dialing backend'", async () => {
    const c = ctx.cluster();
    const deadPort = await freePort();
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "ghost-node" }, status: { addresses: [{ type: "InternalIP", address: "127.0.0.1" }], daemonEndpoints: { kubeletEndpoint: { Port: deadPort } } } };
    expect((await apiCall(c.api, "POST", "/api/v1/nodes", node)).status).toBe(201);
    await apiCall(c.api, "PUT", "/api/v1/nodes/ghost-node/status", { ...node, metadata: { name: "ghost-node", resourceVersion: ((await apiCall(c.api, "GET", "/api/v1/nodes/ghost-node")).json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion } });
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "ghost" }, spec: { nodeName: "ghost-node", containers: [{ name: "main", image: "busybox:1.36" }] } };
    expect((await apiCall(c.api, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    const r = await c.kubectl(["exec", "ghost", "--", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Error from server: error dialing backend: dial tcp 127.0.0.1:${deadPort}: connect: connection refused`);
  });

  it("an exec into a container the pod does not have gets 1.23's message", async () => {
    const r = await ctx.cluster().kubectl(["exec", "box", "-c", "nope", "--", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Error from server (BadRequest): container nope is not valid for pod box");
  });

  it("an exec into a missing pod is 404 NotFound", async () => {
    const r = await ctx.cluster().kubectl(["exec", "nopod", "--", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (NotFound): pods "nopod" not found');
  });

  it("an upgrade without credentials, or with a bad token, is 401 before any stream opens", async () => {
    const c = ctx.cluster();
    const path = "/api/v1/namespaces/default/pods/box/exec?command=true&stdout=true";
    expect((await rawUpgrade(c.api.port, c.api.ca, path, {})).status).toBe(401);
    expect((await rawUpgrade(c.api.port, c.api.ca, path, { authorization: "Bearer wrong" })).status).toBe(401);
  });

  it("a request that is not an upgrade is 400 'Upgrade request required'; a pod of several containers needs one named", async () => {
    const c = ctx.cluster();
    const r = await apiCall(c.api, "POST", "/api/v1/namespaces/default/pods/box/exec?command=true&stdout=true&container=main");
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ kind: "Status", reason: "BadRequest", message: "Upgrade request required" });
    const unnamed = await rawUpgrade(c.api.port, c.api.ca, "/api/v1/namespaces/default/pods/box/exec?command=true&stdout=true", { authorization: `Bearer ${adminToken}` });
    expect(unnamed.status).toBe(400);
    expect(JSON.parse(unnamed.body)).toMatchObject({ reason: "BadRequest", message: "a container name must be specified for pod box, choose one of: [main web reader]" });
  });
}
