// The Job's story as users read it (`kubectl get events` with the real kubectl against the real
// apiserver), and the paths the main integration suite leaves to unit tests: the leftover-finalizer
// (orphan pod) worker, restartPolicy OnFailure failing a Job by container restarts, and
// TooManySucceededPods. Pods are driven through /status by the test, as elsewhere.
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobTrackingFinalizer } from "@skiff/api-types";
import type { Job, Pod } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { createJob as createJobWith, eventsOf, jobManifest, newClient, podsOf, setPodPhase, startController, startServerWithTracking, waitFor } from "./harness.js";
import type { RunningController, RunningServer } from "./harness.js";

const kubectlBin = "/usr/bin/kubectl";

function kubectl(s: RunningServer, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(kubectlBin, [`--kubeconfig=${s.kubeconfig}`, ...args], (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl ${args.join(" ")}: ${err.message}: ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** `kubectl get events` rows about `job/<name>`: [TYPE, REASON, OBJECT, MESSAGE] in output order. */
async function kubectlJobEvents(s: RunningServer, name: string): Promise<Array<{ type: string; reason: string; object: string; message: string }>> {
  const out = await kubectl(s, ["get", "events", "--namespace=default", "--no-headers"]);
  const rows: Array<{ type: string; reason: string; object: string; message: string }> = [];
  for (const line of out.split("\n")) {
    // LAST SEEN   TYPE   REASON   OBJECT   MESSAGE (the message may contain spaces)
    const m = /^\S+\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(line.trim());
    if (m && m[3] === `job/${name}`) rows.push({ type: m[1] ?? "", reason: m[2] ?? "", object: m[3], message: (m[4] ?? "").trim() });
  }
  return rows;
}

const cond = (j: Job, type: string) => j.status?.conditions?.find((c) => c.type === type);
const active = (pods: Pod[]) => pods.filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");

describe("Job story and leftover paths (JobTrackingWithFinalizers=true)", () => {
  const tracking = true;
  let server: RunningServer & { readonly addsTrackingAnnotation: boolean };
  let client: Client;
  let ctl: RunningController | undefined;
  const gates = { jobReadyPods: true, jobTrackingWithFinalizers: tracking };

  beforeAll(async () => {
    server = await startServerWithTracking(tracking);
    client = await newClient(server);
    ctl = await startController(server, gates);
  }, 60_000);
  afterAll(async () => {
    await ctl?.stop();
    client?.close();
    await server?.stop();
  });

  const createJob = (j: Job) => createJobWith(client, j, tracking, server.addsTrackingAnnotation);
  const getJob = (name: string) => client.jobs.get(name, { namespace: "default" });
  const waitJob = (name: string, what: string, pred: (j: Job) => boolean, timeoutMs?: number) =>
    waitFor(
      what,
      async () => {
        const j = await getJob(name);
        return pred(j) ? j : undefined;
      },
      timeoutMs,
    );
  const waitActivePods = (job: Job, n: number) =>
    waitFor(`${String(n)} active pods`, async () => {
      const a = active(await podsOf(client, job));
      return a.length === n ? a : undefined;
    });
  const restartController = async (between: () => Promise<void>) => {
    await ctl?.stop();
    ctl = undefined;
    await between();
    ctl = await startController(server, gates);
  };

  it("kubectl get events tells a completed Job's story: SuccessfulCreate per pod, then Completed, on job/<name>", async () => {
    const name = "story";
    const job = await createJob(jobManifest(name, { completions: 3, parallelism: 2 }));
    const created: string[] = [];
    await waitFor(
      "Complete",
      async () => {
        const cur = await getJob(name);
        if (cond(cur, "Complete")?.status === "True") return cur;
        for (const p of active(await podsOf(client, job))) {
          if (!created.includes(p.metadata?.name ?? "")) created.push(p.metadata?.name ?? "");
          await setPodPhase(client, p, "Succeeded").catch(() => {});
        }
        return undefined;
      },
      30_000,
    );
    const pods = await podsOf(client, job);
    expect(pods).toHaveLength(3);
    // Events are written without waiting: poll until the last one shows.
    const rows = await waitFor("Completed event in kubectl get events", async () => {
      const r = await kubectlJobEvents(server, name);
      return r.some((x) => x.reason === "Completed") ? r : undefined;
    });
    expect(rows.map((r) => r.reason)).toEqual(["SuccessfulCreate", "SuccessfulCreate", "SuccessfulCreate", "Completed"]);
    for (const r of rows) expect(r.object).toBe(`job/${name}`);
    expect(rows.slice(0, 3).map((r) => r.type)).toEqual(["Normal", "Normal", "Normal"]);
    // One SuccessfulCreate per pod, naming it.
    expect(rows.slice(0, 3).map((r) => r.message.replace(/^Created pod: /, "")).sort()).toEqual(pods.map((p) => p.metadata?.name ?? "").sort());
    expect(rows[3]).toMatchObject({ type: "Normal", message: "Job completed" });
    // The involved object is the Job itself (kind, apiVersion, uid), as kubectl describe needs.
    const ev = await eventsOf(client, name);
    for (const e of ev) expect(e.involvedObject).toMatchObject({ kind: "Job", apiVersion: "batch/v1", name, namespace: "default", uid: job.metadata?.uid });
  }, 60_000);

  it("kubectl get events tells a failed Job's story: SuccessfulCreate, SuccessfulDelete of the active pod, BackoffLimitExceeded", async () => {
    const name = "story-fail";
    const job = await createJob(jobManifest(name, { completions: 2, parallelism: 2, backoffLimit: 0 }));
    const pods = await waitActivePods(job, 2);
    await setPodPhase(client, pods[0] as Pod, "Failed");
    await waitJob(name, "Failed", (j) => cond(j, "Failed")?.status === "True");
    const rows = await waitFor("BackoffLimitExceeded event in kubectl get events", async () => {
      const r = await kubectlJobEvents(server, name);
      return r.some((x) => x.reason === "BackoffLimitExceeded") ? r : undefined;
    });
    expect(rows.map((r) => r.reason)).toEqual(["SuccessfulCreate", "SuccessfulCreate", "SuccessfulDelete", "BackoffLimitExceeded"]);
    for (const r of rows) expect(r.object).toBe(`job/${name}`);
    expect(rows[2]?.message).toBe(`Deleted pod: ${pods[1]?.metadata?.name ?? ""}`);
    expect(rows[3]).toMatchObject({ type: "Warning", message: "Job has reached the specified backoff limit" });
  }, 60_000);

  it("removes the tracking finalizer of pods whose Job is gone (leftover-finalizer worker)", async () => {
    const name = "gone";
    const job = await createJob(jobManifest(name, { completions: 2, parallelism: 2 }));
    const pods = await waitActivePods(job, 2);
    for (const p of pods) expect(p.metadata?.finalizers).toContain(JobTrackingFinalizer);
    // The Job disappears while the controller is down (no garbage collector runs here, so the
    // pods stay, owned by a Job that no longer exists, still carrying the finalizer).
    await restartController(async () => {
      await client.jobs.delete(name, { namespace: "default", propagationPolicy: "Orphan" });
      await waitFor("job gone", async () => ((await client.jobs.list({ namespace: "default" })).items.some((j) => j.metadata?.name === name) ? undefined : true));
    });
    const after = await waitFor("finalizers removed", async () => {
      const cur = await Promise.all(pods.map((p) => client.pods.get(p.metadata?.name ?? "", { namespace: "default" })));
      return cur.every((p) => !(p.metadata?.finalizers ?? []).includes(JobTrackingFinalizer)) ? cur : undefined;
    });
    // Only the finalizer went: the pods themselves are not deleted (the apiserver's garbage
    // collector orphaned them: no owner reference is left).
    for (const p of after) {
      expect(p.metadata?.deletionTimestamp).toBeUndefined();
      expect((p.metadata?.ownerReferences ?? []).filter((r) => r.uid === job.metadata?.uid)).toEqual([]);
    }
    // A pod created later with a dangling controller reference loses the finalizer too.
    const dangling = await client.pods.create(
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          name: "dangling",
          namespace: "default",
          finalizers: [JobTrackingFinalizer],
          ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "never-was", uid: "00000000-0000-0000-0000-00000000dead", controller: true }],
        },
        spec: { containers: [{ name: "c", image: "busybox" }] },
      },
      { namespace: "default" },
    );
    // (The garbage collector deletes it, its owner being absent; it can only go once the
    // controller has stripped the finalizer.)
    await waitFor("dangling pod's finalizer removed", async () => {
      const p = await client.pods.get(dangling.metadata?.name ?? "", { namespace: "default" }).catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      return p === undefined || !(p.metadata?.finalizers ?? []).includes(JobTrackingFinalizer) ? true : undefined;
    });
  }, 60_000);

  it("restartPolicy OnFailure: container restarts past backoffLimit fail the Job (BackoffLimitExceeded)", async () => {
    const name = "onfailure";
    const base = jobManifest(name, { completions: 1, parallelism: 1, backoffLimit: 2 });
    const spec = base.spec as NonNullable<Job["spec"]>;
    spec.template = { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] } };
    const job = await createJob(base);
    const [pod] = await waitActivePods(job, 1);
    // Below the limit: still running.
    await setPodPhase(client, pod as Pod, "Running", { ready: true, restartCount: 1 });
    await waitJob(name, "ready 1", (j) => j.status?.ready === 1);
    expect(cond(await getJob(name), "Failed")).toBeUndefined();
    // At the limit: Failed, the pod deleted and counted as failed.
    await setPodPhase(client, pod as Pod, "Running", { ready: true, restartCount: 2 });
    const j = await waitJob(name, "Failed", (x) => cond(x, "Failed")?.status === "True" && x.status?.active === 0);
    expect(cond(j, "Failed")).toMatchObject({ reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" });
    expect(j.status).toMatchObject({ failed: 1, active: 0, uncountedTerminatedPods: {} });
    expect(j.status?.succeeded ?? 0).toBe(0);
    expect(j.status?.completionTime).toBeUndefined();
    // The pod was deleted (gone, or terminating until a node confirms) and lost the finalizer.
    await waitFor("pod deleted, without the finalizer", async () => {
      const left = await podsOf(client, job);
      if (process.env.JOBCTL_DEBUG) console.log(JSON.stringify(left.map((p) => p.metadata)));
      return left.every((p) => p.metadata?.deletionTimestamp !== undefined && !(p.metadata.finalizers ?? []).includes(JobTrackingFinalizer)) ? true : undefined;
    });
    const ev = await waitFor("BackoffLimitExceeded event", async () => {
      const e = await eventsOf(client, name);
      return e.some((x) => x.reason === "BackoffLimitExceeded") ? e : undefined;
    });
    expect(ev.filter((e) => e.reason === "SuccessfulDelete")).toHaveLength(1);
  }, 60_000);

  it("TooManySucceededPods: more succeeded pods than completions completes the Job with a warning", async () => {
    const name = "toomany";
    let job: Job | undefined;
    // With the controller down: the Job and two orphan pods matching its selector, both Succeeded.
    await restartController(async () => {
      job = await createJob(jobManifest(name, { completions: 1, parallelism: 1 }));
      const labels = job.spec?.template.metadata?.labels ?? {};
      expect(Object.keys(labels).length).toBeGreaterThan(0);
      for (const n of ["toomany-a", "toomany-b"]) {
        const p = await client.pods.create({ apiVersion: "v1", kind: "Pod", metadata: { name: n, namespace: "default", labels }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } }, { namespace: "default" });
        await setPodPhase(client, p, "Succeeded");
      }
    });
    // Both orphans are adopted. (As in 1.23, the first sync counts neither: with finalizer
    // tracking only pods carrying the finalizer count, so it may create a pod, deleted again once
    // the adopted pods are counted.)
    const j = await waitJob(name, "Complete", (x) => cond(x, "Complete")?.status === "True", 30_000);
    expect(j.status).toMatchObject({ succeeded: 2, active: 0 });
    const pods = await podsOf(client, job as Job);
    for (const n of ["toomany-a", "toomany-b"]) {
      const p = pods.find((x) => x.metadata?.name === n);
      expect(p?.metadata?.ownerReferences?.[0]).toMatchObject({ uid: job?.metadata?.uid, controller: true });
      expect(p?.metadata?.finalizers ?? []).not.toContain(JobTrackingFinalizer);
    }
    const ev = await waitFor("Completed event", async () => {
      const e = await eventsOf(client, name);
      return e.some((x) => x.reason === "Completed") ? e : undefined;
    });
    expect(ev.find((e) => e.reason === "TooManySucceededPods")).toMatchObject({ type: "Warning", message: "Too many succeeded pods running after completion count reached" });
  }, 60_000);
});
