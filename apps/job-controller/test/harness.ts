// Test harness: the REAL apiserver process (as apps/apiserver/test/harness.ts starts it; copied,
// not imported), a kubeconfig, a @skiff/client, and helpers that play the node agent by writing
// pod status through /status.
import { spawn, execFile } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { fileURLToPath, pathToFileURL } from "node:url";
import { JobTrackingAnnotation } from "@skiff/api-types";
import type { Event, Job, Pod } from "@skiff/api-types";
import { isConflict } from "@skiff/apimachinery";
import { createClient, createSharedInformerFactory, loadClusterConfig } from "@skiff/client";
import type { Client } from "@skiff/client";
import { jobControllerComponent, newClientEventRecorder } from "../src/events.js";
import { JobController } from "../src/controllers/job/job-controller.js";
import type { JobSyncGates } from "../src/controllers/job/job-sync.js";
import { TTLAfterFinishedController } from "../src/controllers/ttlafterfinished/ttl-after-finished-controller.js";

// Every directory startServer creates is removed once the test file is done: registered while the
// file is collected, this afterAll runs after the file's own (which stop the servers).
const createdDirs: string[] = [];
afterAll(async () => {
  await Promise.all(createdDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const apiserverMain = join(repoRoot, "apps/apiserver/src/main.ts");
export const adminToken = "admin-token";

export interface RunningServer {
  readonly port: number;
  readonly dir: string;
  readonly kubeconfig: string;
  readonly proc: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the apiserver with JobTrackingWithFinalizers set as asked (the apiserver then adds the
 * `batch.example.io/job-tracking` annotation to new Jobs itself when the gate is on).
 */
export async function startServerWithTracking(tracking: boolean): Promise<RunningServer & { readonly addsTrackingAnnotation: boolean }> {
  return { ...(await startServer([`--feature-gates=JobTrackingWithFinalizers=${String(tracking)}`])), addsTrackingAnnotation: tracking };
}

/**
 * Creates the Job; with `tracking` and a server that does not add `batch.example.io/job-tracking`,
 * creates it suspended, adds the annotation and restores `suspend` in one patch, so the controller
 * never creates a pod for it untracked.
 */
export async function createJob(client: Client, job: Job, tracking: boolean, serverAdds: boolean): Promise<Job> {
  if (!tracking || serverAdds) return client.jobs.create(job, { namespace: "default" });
  const suspend = job.spec?.suspend === true;
  const created = await client.jobs.create({ ...job, spec: { ...(job.spec as NonNullable<Job["spec"]>), suspend: true } }, { namespace: "default" });
  return client.jobs.patch(created.metadata?.name ?? "", { metadata: { annotations: { [JobTrackingAnnotation]: "" } }, spec: { suspend } }, { namespace: "default", type: "merge" });
}

export async function startServer(extraArgs: string[] = [], preload: string[] = []): Promise<RunningServer> {
  const dir = await mkdtemp(join(tmpdir(), "skiff-jobctl-"));
  createdDirs.push(dir);
  await writeFile(join(dir, "tokens.csv"), `${adminToken},admin,1,"system:masters"\n`);
  const proc = spawn(
    process.execPath,
    [
      "--conditions=@skiff/source",
      "--import",
      "tsx",
      ...preload.flatMap((p) => ["--import", pathToFileURL(p).href]),
      apiserverMain,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--data-dir=${join(dir, "data")}`,
      `--cert-dir=${join(dir, "pki")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      ...extraArgs,
    ],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    proc.stderr?.on("data", () => {
      const m = /Serving securely on [^\n]*:(\d+)\n/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`apiserver exited with ${String(code)}: ${err}`)));
  });
  const ca = await readFile(join(dir, "pki", "ca.crt"), "utf8");
  const kubeconfig = join(dir, "kubeconfig");
  await writeFile(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n    server: https://127.0.0.1:${String(port)}\n    certificate-authority-data: ${Buffer.from(ca).toString("base64")}\nusers:\n- name: admin\n  user:\n    token: ${adminToken}\ncontexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: admin\ncurrent-context: skiff\n`,
  );
  return {
    port,
    dir,
    kubeconfig,
    proc,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}

export async function newClient(s: RunningServer): Promise<Client> {
  return createClient(await loadClusterConfig(s.kubeconfig), { qps: 1000, burst: 1000, userAgent: "jobctl-test" });
}

/** The Job controller and the TTL controller, in-process, over their own client and informers. */
export interface RunningController {
  readonly jobs: JobController;
  stop(): Promise<void>;
}

export async function startController(s: RunningServer, gates: JobSyncGates): Promise<RunningController> {
  const config = await loadClusterConfig(s.kubeconfig);
  const client = createClient(config, { qps: 1000, burst: 1000, userAgent: "skiff-job-controller" });
  const recorder = newClientEventRecorder(client, jobControllerComponent);
  const factory = createSharedInformerFactory({ onError: () => {} });
  const jobInformer = factory.informerFor(client.jobs);
  const podInformer = factory.informerFor(client.pods);
  const log = process.env.JOBCTL_DEBUG ? (m: string) => process.stderr.write(`${m}\n`) : () => {};
  const jobs = new JobController({ client, gates, recorder, jobInformer, podInformer, log });
  const ttl = new TTLAfterFinishedController({ client, jobInformer, log });
  factory.start();
  await Promise.all([jobs.run(), ttl.run()]);
  return {
    jobs,
    async stop() {
      await Promise.all([jobs.stop(), ttl.stop()]);
      factory.stop();
      client.close();
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `fn` until it returns a non-undefined value (or throws after `timeoutMs`). */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await sleep(50);
  }
}

export function jobManifest(name: string, spec: Partial<NonNullable<Job["spec"]>> = {}): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "default" },
    spec: {
      template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
      ...spec,
    } as NonNullable<Job["spec"]>,
  };
}

export async function podsOf(client: Client, job: Job): Promise<Pod[]> {
  const l = await client.pods.list({ namespace: "default", labelSelector: `controller-uid=${job.metadata?.uid ?? ""}` });
  return l.items;
}

/** Writes the pod's phase (and Ready / restart counts) through /status, retrying on conflict. */
export async function setPodPhase(client: Client, pod: Pod, phase: "Running" | "Succeeded" | "Failed", extra: { ready?: boolean; restartCount?: number } = {}): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const cur = await client.pods.get(pod.metadata?.name ?? "", { namespace: "default" });
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    cur.status = {
      ...cur.status,
      phase,
      conditions: [{ type: "Ready", status: extra.ready ? "True" : "False", lastTransitionTime: now }],
      ...(extra.restartCount !== undefined
        ? { containerStatuses: [{ name: "c", image: "busybox", imageID: "", ready: false, restartCount: extra.restartCount, state: {} }] }
        : {}),
    };
    try {
      await client.pods.updateStatus(cur, { namespace: "default" });
      return;
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
  }
  throw new Error("setPodPhase: too many conflicts");
}

export async function eventsOf(client: Client, name: string): Promise<Event[]> {
  const l = await client.events.list({ namespace: "default" });
  return l.items.filter((e) => e.involvedObject.name === name && e.source?.component === jobControllerComponent);
}

/** `kubectl get jobs <name>` columns NAME COMPLETIONS DURATION AGE. */
export function kubectlGetJob(s: RunningServer, name: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile("kubectl", [`--kubeconfig=${s.kubeconfig}`, "get", "jobs", name, "--no-headers"], (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}: ${stderr}`));
      else resolve(stdout.trim().split(/\s+/));
    });
  });
}
