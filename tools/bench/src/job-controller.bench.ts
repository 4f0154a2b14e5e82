/**
 * skiff-job-controller end to end: the REAL apiserver and the REAL controller binary (child
 * processes), an Indexed Job of N completions with parallelism 500, and
 * simulated pods: this process watches pods and marks each new one Succeeded through
 * `pods/{name}/status`, as the node agent would. Reports wall time from Job creation to the
 * `Complete` condition, pods/s, and the controller's peak RSS; asserts `completedIndexes` is
 * exactly `0-(N-1)` and `succeeded` is N.
 *
 * Both binaries run built when their bundles are fresh (see `launch.ts`); the rows say which. `SKIFF_BENCH_CONTROLLER_NODE_ARGS` adds node flags to the controller
 * (`--cpu-prof --cpu-prof-dir=/tmp/prof`, `--heapsnapshot-signal=SIGUSR2`).
 *
 * N defaults to 10,000; `SKIFF_BENCH_JOB_COMPLETIONS` overrides it. The controller runs with
 * JobTrackingWithFinalizers at its default (off; this session's apiserver cannot switch the gate
 * on from its command line).
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appCommand, describeCommand, repoRoot as root } from "./launch.js";
import type { BenchRow } from "./report.js";
import { envNumber } from "./env.js";

export const name = "job-controller";

const token = "bench-token";

interface Api {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  watch(path: string, onEvent: (e: { type: string; object: Record<string, unknown> }) => void): () => void;
}

function api(port: number, ca: string): Api {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca });
  const opts = (method: string, path: string) => ({ host: "127.0.0.1", servername: "localhost", port, path, method, agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
  return {
    call(method, path, body) {
      return new Promise((resolve, reject) => {
        const req = request(opts(method, path), (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as unknown) : undefined }));
        });
        req.on("error", reject);
        if (body !== undefined) req.write(JSON.stringify(body));
        req.end();
      });
    },
    watch(path, onEvent) {
      const req = request({ ...opts("GET", path), agent: new Agent({ ca }) }, (res) => {
        let buf = "";
        res.on("data", (d: Buffer) => {
          buf += d.toString();
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line) onEvent(JSON.parse(line) as { type: string; object: Record<string, unknown> });
          }
        });
      });
      req.on("error", () => {});
      req.end();
      return () => req.destroy();
    },
  };
}

function startProcess(args: string[], readyPattern: RegExp): Promise<{ proc: ChildProcess; match: RegExpExecArray; stderr: () => string }> {
  const proc = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  return new Promise((resolve, reject) => {
    proc.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const m = readyPattern.exec(err);
      if (m) resolve({ proc, match: m, stderr: () => err });
    });
    proc.once("exit", (code) => reject(new Error(`${args.find((a) => a.endsWith("main.js") || a.endsWith("main.ts")) ?? ""} exited with ${String(code)}: ${err}`)));
  });
}

async function rssMiB(pid: number): Promise<number> {
  try {
    const s = await readFile(`/proc/${String(pid)}/status`, "utf8");
    const m = /VmRSS:\s+(\d+) kB/.exec(s);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function stop(p: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (p.exitCode !== null) return resolve();
    p.once("exit", () => resolve());
    p.kill("SIGTERM");
  });
}

export default async (): Promise<BenchRow[]> => {
  const completions = envNumber("SKIFF_BENCH_JOB_COMPLETIONS", 10_000, { min: 1, integer: true, unit: "completions" });
  const parallelism = 500;
  const dir = await mkdtemp(join(tmpdir(), "skiff-bench-job-"));
  await writeFile(join(dir, "tokens.csv"), `${token},admin,1,"system:masters"\n`);
  const serverCmd = appCommand("apiserver");
  const controllerCmd = appCommand("job-controller");
  const ran = `${describeCommand("apiserver", serverCmd)}, ${describeCommand("job-controller", controllerCmd)}`;
  console.log(`  binaries: ${ran}`);
  const server = await startProcess(
    [...serverCmd.args, "--secure-port=0", "--bind-address=127.0.0.1", `--data-dir=${join(dir, "data")}`, `--cert-dir=${join(dir, "pki")}`, `--token-auth-file=${join(dir, "tokens.csv")}`],
    /Serving securely on [^\n]*:(\d+)\n/,
  );
  const port = Number(server.match[1]);
  const ca = await readFile(join(dir, "pki", "ca.crt"), "utf8");
  const kubeconfig = join(dir, "kubeconfig");
  await writeFile(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: s\n  cluster:\n    server: https://127.0.0.1:${String(port)}\n    certificate-authority-data: ${Buffer.from(ca).toString("base64")}\nusers:\n- name: a\n  user:\n    token: ${token}\ncontexts:\n- name: c\n  context:\n    cluster: s\n    user: a\ncurrent-context: c\n`,
  );
  const controller = await startProcess(
    [...(process.env.SKIFF_BENCH_CONTROLLER_NODE_ARGS ?? "").split(" ").filter(Boolean), ...controllerCmd.args, `--clusterconfig=${kubeconfig}`, "--cluster-api-qps=5000", "--cluster-api-burst=5000"],
    /skiff-job-controller started/,
  );
  const a = api(port, ca);
  let peakRss = 0;
  const sampler = setInterval(() => void rssMiB(controller.proc.pid ?? 0).then((r) => (peakRss = Math.max(peakRss, r))), 250);

  // The simulated node: every new pod is marked Succeeded through /status (64 writes in flight).
  const pending: Array<Record<string, unknown>> = [];
  let inFlight = 0;
  let marked = 0;
  const pump = (): void => {
    while (inFlight < 64 && pending.length > 0) {
      const pod = pending.shift() as { metadata: { name: string }; status?: Record<string, unknown> };
      inFlight++;
      pod.status = { ...pod.status, phase: "Succeeded" };
      a.call("PUT", `/api/v1/namespaces/default/pods/${pod.metadata.name}/status`, pod).then(
        (r) => {
          inFlight--;
          if (r.status === 200) marked++;
          else if (r.status === 409) void a.call("GET", `/api/v1/namespaces/default/pods/${pod.metadata.name}`).then((g) => g.status === 200 && pending.push(g.json as Record<string, unknown>));
          pump();
        },
        () => {
          inFlight--;
          pump();
        },
      );
    }
  };
  const stopWatch = a.watch("/api/v1/namespaces/default/pods?watch=1&resourceVersion=0", (e) => {
    const status = e.object.status as { phase?: string } | undefined;
    const meta = e.object.metadata as { deletionTimestamp?: string } | undefined;
    if (e.type === "ADDED" && status?.phase !== "Succeeded" && status?.phase !== "Failed" && !meta?.deletionTimestamp) {
      pending.push(e.object);
      pump();
    }
  });

  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "bench", namespace: "default" },
    spec: { completions, parallelism, completionMode: "Indexed", template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
  };
  const t0 = performance.now();
  const created = await a.call("POST", "/apis/batch/v1/namespaces/default/jobs", job);
  if (created.status !== 201) throw new Error(`create job: ${String(created.status)} ${JSON.stringify(created.json)}`);
  let final: { status?: { succeeded?: number; completedIndexes?: string; conditions?: Array<{ type: string; status: string }> } } = {};
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const r = await a.call("GET", "/apis/batch/v1/namespaces/default/jobs/bench");
    final = r.json as typeof final;
    if ((final.status?.conditions ?? []).some((c) => c.type === "Complete" && c.status === "True")) break;
    if (Date.now() > deadline) throw new Error(`job not complete after 30 min: ${JSON.stringify(final.status)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
  const wallS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, await rssMiB(controller.proc.pid ?? 0));
  stopWatch();
  await stop(controller.proc);
  await stop(server.proc);
  await rm(dir, { recursive: true, force: true });

  const expectIndexes = completions === 1 ? "0" : completions === 2 ? "0,1" : `0-${String(completions - 1)}`;
  const ok = final.status?.completedIndexes === expectIndexes && final.status.succeeded === completions;
  console.log(`  completedIndexes=${String(final.status?.completedIndexes)} succeeded=${String(final.status?.succeeded)} (pods marked: ${String(marked)})`);
  if (!ok) throw new Error(`expected completedIndexes ${expectIndexes} and succeeded ${String(completions)}, got ${JSON.stringify(final.status)}`);
  const podsPerS = completions / wallS;
  return [
    { what: `Indexed Job ${String(completions)} completions, parallelism ${String(parallelism)}: wall`, value: wallS, unit: "s", note: `completedIndexes ${expectIndexes}, succeeded ${String(completions)}; ${ran}` },
    { what: "pods/s end to end", value: podsPerS, unit: "pods/s", note: `target >= 200: ${podsPerS >= 200 ? "met" : "NOT met"}` },
    { what: "controller peak RSS", value: peakRss, unit: "MiB", note: `target < 250: ${peakRss < 250 ? "met" : "NOT met"}` },
  ];
};
