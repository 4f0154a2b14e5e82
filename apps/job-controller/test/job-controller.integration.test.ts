// The Job controller and the TTL-after-finished controller against the REAL apiserver process,
// with pods driven to Running/Succeeded/Failed through /status by the test (no node agent), under
// each JobTrackingWithFinalizers setting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobCompletionIndexAnnotation, JobTrackingAnnotation, JobTrackingFinalizer } from "@skiff/api-types";
import type { Job, Pod } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import type { Client } from "@skiff/client";
import { createJob as createJobWith, eventsOf, jobManifest, kubectlGetJob, newClient, podsOf, setPodPhase, startController, startServerWithTracking, waitFor } from "./harness.js";
import type { RunningController, RunningServer } from "./harness.js";

const active = (pods: Pod[]) => pods.filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");

describe.each([true, false])("Job controller, JobTrackingWithFinalizers=%s", (tracking) => {
  let server: RunningServer & { readonly addsTrackingAnnotation: boolean };
  let client: Client;
  let ctl: RunningController;
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
  const waitJob = (name: string, what: string, pred: (j: Job) => boolean) => waitFor(what, async () => {
    const j = await getJob(name);
    return pred(j) ? j : undefined;
  });
  const waitActivePods = (job: Job, n: number) => waitFor(`${String(n)} active pods`, async () => {
    const a = active(await podsOf(client, job));
    return a.length === n ? a : undefined;
  });
  const cond = (j: Job, type: string) => j.status?.conditions?.find((c) => c.type === type);

  it("runs a NonIndexed Job to Complete (counters, ready, conditions, times, events, kubectl)", async () => {
    const job = await createJob(jobManifest(`nonidx-${String(tracking)}`, { completions: 3, parallelism: 2 }));
    expect(job.metadata?.annotations?.[JobTrackingAnnotation] !== undefined).toBe(tracking);
    const first = await waitActivePods(job, 2);
    for (const p of first) {
      expect(p.metadata?.generateName).toBe(`${job.metadata?.name ?? ""}-`);
      expect(p.metadata?.ownerReferences).toEqual([expect.objectContaining({ apiVersion: "batch/v1", kind: "Job", uid: job.metadata?.uid, controller: true, blockOwnerDeletion: true })]);
      expect((p.metadata?.finalizers ?? []).includes(JobTrackingFinalizer)).toBe(tracking);
    }
    let j = await waitJob(job.metadata?.name ?? "", "active 2", (x) => x.status?.active === 2 && x.status.startTime !== undefined);
    expect(j.status?.completionTime).toBeUndefined();
    expect(tracking ? j.status?.uncountedTerminatedPods : undefined).toEqual(tracking ? {} : undefined);
    expect(await kubectlGetJob(server, j.metadata?.name ?? "")).toEqual([j.metadata?.name, "0/3", expect.stringMatching(/^\d+s$/), expect.any(String)]);
    await setPodPhase(client, first[0] as Pod, "Running", { ready: true });
    await waitJob(job.metadata?.name ?? "", "ready 1", (x) => x.status?.ready === 1);
    await setPodPhase(client, first[0] as Pod, "Succeeded");
    await waitJob(job.metadata?.name ?? "", "succeeded 1", (x) => x.status?.succeeded === 1 && x.status.active === 2);
    expect(await kubectlGetJob(server, job.metadata?.name ?? "")).toEqual([job.metadata?.name, "1/3", expect.stringMatching(/s$/), expect.any(String)]);
    // Only one more pod is wanted now (3 − 1 = 2 at once).
    const rest = await waitActivePods(job, 2);
    for (const p of rest) await setPodPhase(client, p, "Succeeded");
    j = await waitJob(job.metadata?.name ?? "", "Complete", (x) => cond(x, "Complete")?.status === "True");
    expect(j.status).toMatchObject({ succeeded: 3, active: 0 });
    expect(j.status?.failed ?? 0).toBe(0);
    expect(j.status?.completionTime).toBe(cond(j, "Complete")?.lastTransitionTime);
    expect(cond(j, "Complete")?.lastProbeTime).toBeDefined();
    if (tracking) expect(j.status?.uncountedTerminatedPods).toEqual({});
    const pods = await podsOf(client, job);
    expect(pods).toHaveLength(3);
    for (const p of pods) expect(p.metadata?.finalizers ?? []).not.toContain(JobTrackingFinalizer);
    expect(await kubectlGetJob(server, job.metadata?.name ?? "")).toEqual([job.metadata?.name, "3/3", expect.stringMatching(/s$/), expect.any(String)]);
    // Field selector status.successful (= status.succeeded), as 1.23's Job field set.
    const bySucceeded = async (n: number) => (await client.jobs.list({ namespace: "default", fieldSelector: `status.successful=${String(n)}` })).items.map((x) => x.metadata?.name);
    expect(await bySucceeded(3)).toContain(job.metadata?.name);
    expect(await bySucceeded(2)).not.toContain(job.metadata?.name);
    const ev = await waitFor("events", async () => {
      const e = await eventsOf(client, job.metadata?.name ?? "");
      return e.some((x) => x.reason === "Completed") ? e : undefined;
    });
    expect(ev.filter((e) => e.reason === "SuccessfulCreate")).toHaveLength(3);
    expect(ev.find((e) => e.reason === "SuccessfulCreate")?.message).toMatch(/^Created pod: nonidx-/);
    expect(ev.find((e) => e.reason === "Completed")?.message).toBe("Job completed");
  }, 60_000);

  it("runs an Indexed Job to Complete with completedIndexes", async () => {
    const name = `idx-${String(tracking)}`;
    const job = await createJob(jobManifest(name, { completions: 5, parallelism: 3, completionMode: "Indexed" }));
    let pods = await waitActivePods(job, 3);
    const indexes = pods.map((p) => Number(p.metadata?.annotations?.[JobCompletionIndexAnnotation])).sort();
    expect(indexes).toEqual([0, 1, 2]);
    for (const p of pods) {
      const ix = p.metadata?.annotations?.[JobCompletionIndexAnnotation] ?? "";
      expect(p.metadata?.name).toMatch(new RegExp(`^${name}-${ix}-[a-z0-9]{5}$`));
      expect(p.spec?.hostname).toBe(`${name}-${ix}`);
      expect(p.spec?.containers[0]?.env).toContainEqual({ name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: `metadata.annotations['${JobCompletionIndexAnnotation}']` } } });
    }
    const byIndex = (ix: number) => pods.find((p) => p.metadata?.annotations?.[JobCompletionIndexAnnotation] === String(ix)) as Pod;
    await setPodPhase(client, byIndex(1), "Succeeded");
    let j = await waitJob(name, "index 1", (x) => x.status?.completedIndexes === "1" && x.status.succeeded === 1);
    pods = await waitActivePods(job, 3);
    expect(pods.map((p) => Number(p.metadata?.annotations?.[JobCompletionIndexAnnotation])).sort()).toEqual([0, 2, 3]);
    for (const p of pods) await setPodPhase(client, p, "Succeeded");
    await waitJob(name, "0-3", (x) => x.status?.completedIndexes === "0-3");
    pods = await waitActivePods(job, 1);
    expect(pods[0]?.metadata?.annotations?.[JobCompletionIndexAnnotation]).toBe("4");
    await setPodPhase(client, pods[0] as Pod, "Succeeded");
    j = await waitJob(name, "Complete", (x) => cond(x, "Complete")?.status === "True");
    expect(j.status).toMatchObject({ succeeded: 5, completedIndexes: "0-4", active: 0 });
    expect(await kubectlGetJob(server, name)).toEqual([name, "5/5", expect.stringMatching(/s$/), expect.any(String)]);
  }, 60_000);

  it("fails a Job past its backoffLimit (BackoffLimitExceeded) and deletes its active pods", async () => {
    const name = `fail-${String(tracking)}`;
    const job = await createJob(jobManifest(name, { completions: 3, parallelism: 2, backoffLimit: 0 }));
    const pods = await waitActivePods(job, 2);
    await setPodPhase(client, pods[0] as Pod, "Failed");
    const j = await waitJob(name, "Failed", (x) => cond(x, "Failed")?.status === "True");
    expect(cond(j, "Failed")).toMatchObject({ reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" });
    expect(j.status?.completionTime).toBeUndefined();
    expect(j.status?.active ?? 0).toBe(0);
    // Legacy counts the deleted active pod as failed at once; finalizer tracking counts it when its
    // deletion is seen. Either way both pods are failures.
    expect(j.status?.failed).toBe(2);
    await waitFor("pods gone or terminating", async () => (active(await podsOf(client, job)).length === 0 ? true : undefined));
    const ev = await waitFor("event", async () => (await eventsOf(client, name)).find((e) => e.reason === "BackoffLimitExceeded"));
    expect(ev.type).toBe("Warning");
    expect(await kubectlGetJob(server, name)).toEqual([name, "0/3", expect.stringMatching(/s$/), expect.any(String)]);
  }, 60_000);

  it("fails a Job past activeDeadlineSeconds (DeadlineExceeded)", async () => {
    const name = `deadline-${String(tracking)}`;
    const job = await createJob(jobManifest(name, { parallelism: 2, activeDeadlineSeconds: 2 }));
    await waitActivePods(job, 2);
    const j = await waitJob(name, "Failed", (x) => cond(x, "Failed")?.status === "True");
    expect(cond(j, "Failed")).toMatchObject({ reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" });
    expect(Date.parse(cond(j, "Failed")?.lastTransitionTime ?? "") - Date.parse(j.status?.startTime ?? "")).toBeGreaterThanOrEqual(2000);
    await waitFor("pods deleted", async () => (active(await podsOf(client, job)).length === 0 ? true : undefined));
    expect((await eventsOf(client, name)).some((e) => e.reason === "DeadlineExceeded")).toBe(true);
  }, 60_000);

  it("suspends and resumes (created suspended: no pods, no startTime)", async () => {
    const name = `susp-${String(tracking)}`;
    let job = await createJob(jobManifest(name, { completions: 2, parallelism: 2, suspend: true }));
    let j = await waitJob(name, "Suspended", (x) => cond(x, "Suspended")?.status === "True");
    expect(cond(j, "Suspended")).toMatchObject({ reason: "JobSuspended", message: "Job suspended" });
    expect(j.status?.startTime).toBeUndefined();
    expect(await podsOf(client, job)).toHaveLength(0);
    expect(await kubectlGetJob(server, name)).toEqual([name, "0/2", expect.any(String)]); // DURATION empty
    job = await client.jobs.patch(name, { spec: { suspend: false } }, { namespace: "default", type: "merge" });
    j = await waitJob(name, "resumed", (x) => cond(x, "Suspended")?.status === "False" && x.status?.startTime !== undefined);
    expect(cond(j, "Suspended")).toMatchObject({ reason: "JobResumed", message: "Job resumed" });
    await waitActivePods(job, 2);
    await client.jobs.patch(name, { spec: { suspend: true } }, { namespace: "default", type: "merge" });
    j = await waitJob(name, "suspended again", (x) => cond(x, "Suspended")?.status === "True" && (x.status?.active ?? 0) === 0);
    expect(j.status?.startTime).toBeUndefined();
    expect(j.status?.failed ?? 0).toBe(0);
    await waitFor("pods deleted", async () => (active(await podsOf(client, job)).length === 0 ? true : undefined));
    // Suspended twice: one Event counted twice, as client-go's event correlator records a repeat.
    const ev = await waitFor("Suspended counted twice", async () => {
      const all = await eventsOf(client, name);
      return all.some((e) => e.reason === "Suspended" && e.count === 2) ? all : undefined;
    });
    expect(ev.filter((e) => e.reason === "Suspended")).toHaveLength(1);
    expect(ev.some((e) => e.reason === "Resumed" && e.message === "Job resumed")).toBe(true);
    expect(ev.some((e) => e.reason === "SuccessfulDelete")).toBe(true);
  }, 60_000);

  it("deletes a finished Job after ttlSecondsAfterFinished, its pods with it (Foreground)", async () => {
    const name = `ttl-${String(tracking)}`;
    const job = await createJob(jobManifest(name, { completions: 1, ttlSecondsAfterFinished: 1 }));
    const [pod] = await waitActivePods(job, 1);
    await setPodPhase(client, pod as Pod, "Succeeded");
    await waitJob(name, "Complete", (x) => cond(x, "Complete")?.status === "True");
    await waitFor("job deleted", async () => {
      try {
        await getJob(name);
        return undefined;
      } catch (e) {
        if (isNotFound(e)) return true;
        throw e;
      }
    });
    // Foreground propagation: the pods went first, so none is left once the Job is gone.
    expect(await podsOf(client, job)).toEqual([]);
  }, 60_000);

  it("releases an owned pod whose labels stop matching and replaces it", async () => {
    const name = `release-${String(tracking)}`;
    const job = await createJob(jobManifest(name, { completions: 2, parallelism: 1 }));
    const [pod] = await waitActivePods(job, 1);
    const podName = pod?.metadata?.name ?? "";
    await client.pods.patch(podName, { metadata: { labels: { "controller-uid": "someone-else" } } }, { namespace: "default", type: "merge" });
    const released = await waitFor("released", async () => {
      const p = await client.pods.get(podName, { namespace: "default" });
      return (p.metadata?.ownerReferences ?? []).some((r) => r.uid === job.metadata?.uid) ? undefined : p;
    });
    // Its tracking finalizer goes too (the orphan worker), so it can be deleted.
    await waitFor("finalizer gone", async () => {
      const p = await client.pods.get(podName, { namespace: "default" });
      return (p.metadata?.finalizers ?? []).includes(JobTrackingFinalizer) ? undefined : true;
    });
    expect(released.metadata?.deletionTimestamp).toBeUndefined();
    const [replacement] = await waitActivePods(job, 1);
    expect(replacement?.metadata?.name).not.toBe(podName);
    const j = await waitJob(name, "active 1", (x) => x.status?.active === 1);
    expect(j.status?.failed ?? 0).toBe(0);
  }, 60_000);

  it("adopts an orphan pod matching the selector and counts it", async () => {
    // (A manualSelector Job would be the natural test; this session's apiserver stores such Jobs
    // without a uid, so the orphan gets the generated controller-uid label instead.)
    const name = `adopt-${String(tracking)}`;
    const job = await createJob(jobManifest(name, { completions: 1, parallelism: 0 }));
    // The orphan finishes first, then its labels start matching (parallelism 0: the controller
    // itself wants no pods, so the finished orphan is what completes the Job).
    const orphan = await client.pods.create(
      { apiVersion: "v1", kind: "Pod", metadata: { name: `${name}-orphan`, namespace: "default" }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
      { namespace: "default" },
    );
    await setPodPhase(client, orphan, "Succeeded");
    await client.pods.patch(orphan.metadata?.name ?? "", { metadata: { labels: { "controller-uid": job.metadata?.uid ?? "", "job-name": name } } }, { namespace: "default", type: "merge" });
    const adopted = await waitFor("adopted", async () => {
      const p = await client.pods.get(orphan.metadata?.name ?? "", { namespace: "default" });
      return p.metadata?.ownerReferences?.some((r) => r.uid === job.metadata?.uid && r.controller === true && r.blockOwnerDeletion === true) ? p : undefined;
    });
    expect(adopted.metadata?.ownerReferences).toHaveLength(1);
    const j = await waitJob(name, "Complete", (x) => cond(x, "Complete")?.status === "True");
    expect(j.status?.succeeded).toBe(1);
    expect(await podsOf(client, job)).toHaveLength(1); // nothing else was created
  }, 60_000);

  it("survives a controller restart in the middle of an Indexed Job (no double creation, no lost count)", async () => {
    const name = `restart-${String(tracking)}`;
    const job = await createJob(jobManifest(name, { completions: 6, parallelism: 3, completionMode: "Indexed" }));
    let pods = await waitActivePods(job, 3);
    await setPodPhase(client, pods[0] as Pod, "Succeeded");
    await waitJob(name, "1 succeeded", (x) => x.status?.succeeded === 1);
    pods = await waitActivePods(job, 3);
    await ctl.stop();
    // While the controller is down: one pod succeeds, one fails.
    await setPodPhase(client, pods[0] as Pod, "Succeeded");
    await setPodPhase(client, pods[1] as Pod, "Failed");
    ctl = await startController(server, gates);
    // Finish everything as it appears.
    const j = await waitFor(
      "Complete",
      async () => {
        const cur = await getJob(name);
        if (cond(cur, "Complete")?.status === "True") return cur;
        for (const p of active(await podsOf(client, job))) await setPodPhase(client, p, "Succeeded").catch(() => {});
        return undefined;
      },
      60_000,
    );
    expect(j.status).toMatchObject({ succeeded: 6, completedIndexes: "0-5", failed: 1, active: 0 });
    const all = await podsOf(client, job);
    const succeededPerIndex = new Map<string, number>();
    for (const p of all) {
      if (p.status?.phase !== "Succeeded") continue;
      const ix = p.metadata?.annotations?.[JobCompletionIndexAnnotation] ?? "";
      succeededPerIndex.set(ix, (succeededPerIndex.get(ix) ?? 0) + 1);
    }
    expect([...succeededPerIndex.keys()].sort()).toEqual(["0", "1", "2", "3", "4", "5"]);
    expect(all.length).toBe(7); // 6 successes + 1 failure: no double creation
    for (const p of all) expect(p.metadata?.finalizers ?? []).not.toContain(JobTrackingFinalizer);
  }, 120_000);
});
