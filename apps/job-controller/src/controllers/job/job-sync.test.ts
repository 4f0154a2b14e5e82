import { describe, expect, it } from "vitest";
import { JobCompletionIndexAnnotation, JobTrackingFinalizer } from "@skiff/api-types";
import type { Job, Pod } from "@skiff/api-types";
import { creates, fake, makeJob, makePod, ops, statuses, t0 } from "./internal/fake-sync.js";
import { ensureJobConditionStatus, formatTime, isJobFinished, NewPodFailureError, pastBackoffLimitOnFailure, remainingActiveDeadlineMs, syncJob } from "./job-sync.js";

const now = t0 + 60_000;
const nowText = formatTime(now);
const cond = (s: Job["status"], type: string) => s?.conditions?.find((c) => c.type === type);
const last = <T>(a: T[]): T => a[a.length - 1] as T;

describe("syncJob: the spec's state table", () => {
  it("created with suspend=true: no pods, startTime unset, Suspended=True, event Suspended", async () => {
    const f = fake();
    const r = await syncJob(f.ctx, makeJob({ suspend: true, completions: 2, parallelism: 2 }), []);
    expect(creates(f.calls)).toHaveLength(0);
    const s = last(statuses(f.calls));
    expect(s.startTime).toBeUndefined();
    expect(cond(s, "Suspended")).toEqual({ type: "Suspended", status: "True", reason: "JobSuspended", message: "Job suspended", lastProbeTime: nowText, lastTransitionTime: nowText });
    expect(f.recorder.events).toEqual([{ name: "pi", type: "Normal", reason: "Suspended", message: "Job suspended" }]);
    expect(r.error).toBeUndefined();
  });

  it("running → suspend: every active pod deleted, startTime reset, Suspended=True", async () => {
    const f = fake();
    const pods = [makePod("Running"), makePod("Pending"), makePod("Succeeded")];
    await syncJob(f.ctx, makeJob({ suspend: true, completions: 5, parallelism: 2 }, { startTime: formatTime(t0), active: 2, succeeded: 1 }), pods);
    expect(f.calls.filter((c) => c.op === "delete").map((c) => (c as { name: string }).name).sort()).toEqual([pods[0]?.metadata?.name, pods[1]?.metadata?.name].sort());
    const s = last(statuses(f.calls));
    expect(s).toMatchObject({ active: 0, succeeded: 1 });
    expect(s.startTime).toBeUndefined();
    expect(cond(s, "Suspended")?.status).toBe("True");
  });

  it("suspended → resume: Suspended=False (JobResumed), startTime set anew, pods created, event Resumed", async () => {
    const f = fake();
    const susp = { type: "Suspended", status: "True", reason: "JobSuspended", message: "Job suspended", lastProbeTime: formatTime(t0), lastTransitionTime: formatTime(t0) };
    await syncJob(f.ctx, makeJob({ suspend: false, completions: 3, parallelism: 2 }, { conditions: [susp] }), []);
    expect(creates(f.calls)).toHaveLength(2);
    const s = last(statuses(f.calls));
    expect(s.startTime).toBe(nowText);
    expect(cond(s, "Suspended")).toEqual({ type: "Suspended", status: "False", reason: "JobResumed", message: "Job resumed", lastProbeTime: nowText, lastTransitionTime: nowText });
    expect(f.recorder.events.map((e) => e.reason)).toEqual(["Resumed"]);
  });

  it("running → required pods succeeded: Complete=True, completionTime = its lastTransitionTime, event Completed", async () => {
    const f = fake();
    const r = await syncJob(f.ctx, makeJob({ completions: 2, parallelism: 2 }, { startTime: formatTime(t0), active: 1, succeeded: 1 }), [makePod("Succeeded"), makePod("Succeeded")]);
    const s = last(statuses(f.calls));
    expect(cond(s, "Complete")).toEqual({ type: "Complete", status: "True", lastProbeTime: nowText, lastTransitionTime: nowText });
    expect(s).toMatchObject({ succeeded: 2, active: 0, failed: 0, completionTime: nowText, startTime: formatTime(t0) });
    expect(f.recorder.events).toEqual([{ name: "pi", type: "Normal", reason: "Completed", message: "Job completed" }]);
    expect(isJobFinished(r.job)).toBe(true);
    expect(r.forget).toBe(true);
  });

  it("running → retries exhausted: Failed=True BackoffLimitExceeded, active pods deleted, no completionTime", async () => {
    const f = fake();
    const pods = [makePod("Failed"), makePod("Failed"), makePod("Running")];
    const r = await syncJob(f.ctx, makeJob({ completions: 5, parallelism: 2, backoffLimit: 1 }, { startTime: formatTime(t0), active: 2, failed: 1 }), pods);
    expect(ops(f.calls)).toEqual(["delete", "status"]);
    const s = last(statuses(f.calls));
    expect(cond(s, "Failed")).toMatchObject({ status: "True", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" });
    expect(s).toMatchObject({ active: 0, failed: 3 });
    expect(s.completionTime).toBeUndefined();
    expect(f.recorder.events).toEqual([{ name: "pi", type: "Warning", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" }]);
    expect(r.error).toBeUndefined();
  });

  it("running → activeDeadlineSeconds exceeded: Failed=True DeadlineExceeded, pods deleted", async () => {
    const f = fake();
    await syncJob(f.ctx, makeJob({ parallelism: 1, activeDeadlineSeconds: 60 }, { startTime: formatTime(t0), active: 1 }), [makePod("Running")]);
    const s = last(statuses(f.calls));
    expect(cond(s, "Failed")).toMatchObject({ reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" });
    expect(ops(f.calls)).toEqual(["delete", "status"]);
    expect(f.recorder.events.map((e) => [e.type, e.reason])).toEqual([["Warning", "DeadlineExceeded"]]);
  });

  it("Complete or Failed: a finished Job is left alone", async () => {
    const f = fake();
    const done = makeJob({ completions: 1 }, { conditions: [{ type: "Failed", status: "True" }] });
    const r = await syncJob(f.ctx, done, [makePod("Running")]);
    expect(f.calls).toEqual([]);
    expect(r.forget).toBe(true);
  });
});

describe("syncJob: pod counts", () => {
  it.each([
    // completions, parallelism, succeeded pods, active pods, expected creates, expected deletes
    { c: 5, p: 2, s: 0, a: 0, create: 2, del: 0 },
    { c: 5, p: 3, s: 3, a: 0, create: 2, del: 0 }, // fewer when less work remains
    { c: 5, p: 3, s: 4, a: 2, create: 0, del: 1 }, // surplus deleted
    { c: undefined, p: 3, s: 0, a: 1, create: 2, del: 0 }, // work queue: parallelism until a success
    { c: undefined, p: 3, s: 1, a: 1, create: 0, del: 0 }, // after a success: no new pods
    { c: 5, p: 0, s: 0, a: 0, create: 0, del: 0 }, // parallelism 0: nothing
  ])("completions=$c parallelism=$p succeeded=$s active=$a → +$create −$del", async ({ c, p, s, a, create, del }) => {
    const f = fake();
    const pods = [...Array.from({ length: s }, () => makePod("Succeeded")), ...Array.from({ length: a }, () => makePod("Running"))];
    await syncJob(f.ctx, makeJob({ ...(c !== undefined ? { completions: c } : {}), parallelism: p }, { startTime: formatTime(t0) }), pods);
    expect(creates(f.calls)).toHaveLength(create);
    expect(f.calls.filter((x) => x.op === "delete")).toHaveLength(del);
    expect(last(statuses(f.calls))?.active ?? a).toBe(a + create - del);
  });

  it("completions 0 completes on the first sync without pods", async () => {
    const f = fake();
    await syncJob(f.ctx, makeJob({ completions: 0, parallelism: 1 }), []);
    expect(creates(f.calls)).toHaveLength(0);
    expect(cond(last(statuses(f.calls)), "Complete")?.status).toBe("True");
  });

  it("creates pods from the template with the controller ownerReference and generateName", async () => {
    const f = fake();
    await syncJob(f.ctx, makeJob({ completions: 1 }), []);
    const [pod] = creates(f.calls);
    expect(pod?.metadata).toEqual({
      generateName: "pi-",
      namespace: "ns",
      labels: { "controller-uid": "job-uid", "job-name": "pi" },
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "pi", uid: "job-uid", controller: true, blockOwnerDeletion: true }],
    });
    expect(pod?.spec?.containers[0]?.env).toBeUndefined();
  });

  it("a template without labels cannot create pods (FailedCreate)", async () => {
    const f = fake();
    const job = makeJob({ completions: 1 });
    (job.spec as NonNullable<Job["spec"]>).template.metadata = {};
    const r = await syncJob(f.ctx, job, []);
    expect(creates(f.calls)).toHaveLength(0);
    expect(f.recorder.events).toEqual([{ name: "pi", type: "Warning", reason: "FailedCreate", message: "Error creating: unable to create pods, no labels" }]);
    expect(r.error).toBeInstanceOf(Error);
    expect(f.ctx.expectations.satisfied("ns/pi")).toBe(true);
  });

  it("slow start stops at the first failing batch and lowers expectations", async () => {
    const f = fake();
    f.failCreates.add(2); // batch 1 ok, batch 2 (calls 2-3) has a failure, batch 3 never runs
    const r = await syncJob(f.ctx, makeJob({ completions: 10, parallelism: 10 }), []);
    expect(creates(f.calls)).toHaveLength(2);
    expect(last(statuses(f.calls)).active).toBe(2);
    expect(f.ctx.expectations.get("ns/pi")).toEqual({ add: 2, del: 0 });
    expect(r.error).toBeInstanceOf(Error);
  });

  it("does not create while expectations are unmet (slow informer)", async () => {
    const f = fake();
    f.ctx.expectations.expectCreations("ns/pi", 2);
    await syncJob(f.ctx, makeJob({ completions: 4, parallelism: 2 }), []);
    expect(creates(f.calls)).toHaveLength(0);
    f.ctx.expectations.creationObserved("ns/pi");
    f.ctx.expectations.creationObserved("ns/pi");
    await syncJob(f.ctx, makeJob({ completions: 4, parallelism: 2 }), []);
    expect(creates(f.calls)).toHaveLength(2);
  });

  it("counts ready pods with JobReadyPods and omits ready without it", async () => {
    const on = fake({ jobReadyPods: true });
    const pods = [makePod("Running", { ready: true }), makePod("Running")];
    await syncJob(on.ctx, makeJob({ completions: 4, parallelism: 2 }, { startTime: formatTime(t0) }), pods);
    expect(last(statuses(on.calls))).toMatchObject({ active: 2, ready: 1 });
    const off = fake({ jobReadyPods: false });
    await syncJob(off.ctx, makeJob({ completions: 4, parallelism: 2 }, { startTime: formatTime(t0) }), pods);
    expect(last(statuses(off.calls)).ready).toBeUndefined();
  });

  it("a new failure below the limit: replacement created and NewPodFailureError (back-off requeue)", async () => {
    const f = fake();
    const r = await syncJob(f.ctx, makeJob({ completions: 2, parallelism: 1 }, { startTime: formatTime(t0), active: 1 }), [makePod("Failed")]);
    expect(creates(f.calls)).toHaveLength(1);
    expect(last(statuses(f.calls))).toMatchObject({ failed: 1, active: 1 });
    expect(r.error).toBeInstanceOf(NewPodFailureError);
  });

  it("backoffLimit 0 fails on the first failed pod; the default 6 on the 7th", async () => {
    const f0 = fake();
    await syncJob(f0.ctx, makeJob({ completions: 2, backoffLimit: 0 }, { startTime: formatTime(t0) }), [makePod("Failed")]);
    expect(cond(last(statuses(f0.calls)), "Failed")?.reason).toBe("BackoffLimitExceeded");
    const f6 = fake();
    await syncJob(f6.ctx, makeJob({ completions: 2 }, { startTime: formatTime(t0), failed: 5 }), Array.from({ length: 6 }, () => makePod("Failed")));
    expect(cond(last(statuses(f6.calls)), "Failed")).toBeUndefined();
    const f7 = fake();
    await syncJob(f7.ctx, makeJob({ completions: 2 }, { startTime: formatTime(t0), failed: 6 }), Array.from({ length: 7 }, () => makePod("Failed")));
    expect(cond(last(statuses(f7.calls)), "Failed")?.reason).toBe("BackoffLimitExceeded");
  });

  it("restartPolicy OnFailure counts container restarts of running/pending pods", () => {
    const job = makeJob({ backoffLimit: 3 });
    (job.spec as NonNullable<Job["spec"]>).template.spec = { restartPolicy: "OnFailure", containers: [] };
    expect(pastBackoffLimitOnFailure(job, [makePod("Running", { restarts: 2 })])).toBe(false);
    expect(pastBackoffLimitOnFailure(job, [makePod("Running", { restarts: 2 }), makePod("Pending", { restarts: 1 })])).toBe(true);
    expect(pastBackoffLimitOnFailure(job, [makePod("Failed", { restarts: 9 })])).toBe(false);
    const zero = makeJob({ backoffLimit: 0 });
    (zero.spec as NonNullable<Job["spec"]>).template.spec = { restartPolicy: "OnFailure", containers: [] };
    expect(pastBackoffLimitOnFailure(zero, [makePod("Running", { restarts: 1 })])).toBe(true);
    const never = makeJob({ backoffLimit: 0 });
    expect(pastBackoffLimitOnFailure(never, [makePod("Running", { restarts: 5 })])).toBe(false);
  });

  it("activeDeadlineSeconds counts from startTime, never while suspended; the sync asks to be requeued", async () => {
    expect(remainingActiveDeadlineMs(makeJob({ activeDeadlineSeconds: 100 }, { startTime: formatTime(t0) }), now)).toBe(40_000);
    expect(remainingActiveDeadlineMs(makeJob({ activeDeadlineSeconds: 100 }), now)).toBeUndefined();
    expect(remainingActiveDeadlineMs(makeJob({ activeDeadlineSeconds: 1, suspend: true }, { startTime: formatTime(t0) }), now)).toBeUndefined();
    const f = fake();
    const r = await syncJob(f.ctx, makeJob({ completions: 1, activeDeadlineSeconds: 100 }, { startTime: formatTime(t0) }), []);
    expect(r.requeueAfterMs).toBe(40_000);
  });

  it("skips an unknown completion mode with a Warning event", async () => {
    const f = fake();
    const r = await syncJob(f.ctx, makeJob({ completions: 1, completionMode: "Future" } as never), []);
    expect(f.calls).toEqual([]);
    expect(f.recorder.events).toEqual([{ name: "pi", type: "Warning", reason: "UnknownCompletionMode", message: "Skipped Job sync because completion mode is unknown" }]);
    expect(r.error).toBeUndefined();
  });
});

describe("syncJob: Indexed", () => {
  const idx = (p: Pod) => p.metadata?.annotations?.[JobCompletionIndexAnnotation];

  it("creates the lowest pending indexes with annotation, hostname, env and generateName", async () => {
    const f = fake();
    const pods = [makePod("Succeeded", { index: 0 }), makePod("Running", { index: 2 })];
    await syncJob(f.ctx, makeJob({ completions: 5, parallelism: 3, completionMode: "Indexed" }, { startTime: formatTime(t0) }), pods);
    const c = creates(f.calls);
    expect(c.map(idx)).toEqual(["1", "3"]);
    expect(c[0]?.metadata?.generateName).toBe("pi-1-");
    expect(c[0]?.spec?.hostname).toBe("pi-1");
    expect(c[0]?.spec?.containers[0]?.env).toEqual([{ name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JobCompletionIndexAnnotation}']` } } }]);
    expect(last(statuses(f.calls))).toMatchObject({ completedIndexes: "0", succeeded: 1, active: 3 });
  });

  it("deletes pods with invalid or duplicate indexes (keeping the most valuable)", async () => {
    const f = fake();
    const keep = makePod("Running", { index: 1, ready: true });
    const dup = makePod("Pending", { index: 1 });
    const bad = makePod("Running", { index: "x" });
    const out = makePod("Running", { index: 7 });
    await syncJob(f.ctx, makeJob({ completions: 3, parallelism: 3, completionMode: "Indexed" }, { startTime: formatTime(t0) }), [keep, dup, bad, out]);
    const deleted = f.calls.filter((c) => c.op === "delete").map((c) => (c as { name: string }).name);
    expect(deleted.sort()).toEqual([dup, bad, out].map((p) => p.metadata?.name).sort());
  });

  it("succeeded counts distinct completed indexes; completes when all are done", async () => {
    const f = fake();
    const pods = [makePod("Succeeded", { index: 0 }), makePod("Succeeded", { index: 0 }), makePod("Succeeded", { index: 1 }), makePod("Succeeded", { index: 2 }), makePod("Succeeded", { index: 9 })];
    await syncJob(f.ctx, makeJob({ completions: 3, parallelism: 2, completionMode: "Indexed" }, { startTime: formatTime(t0) }), pods);
    const s = last(statuses(f.calls));
    expect(s).toMatchObject({ completedIndexes: "0-2", succeeded: 3, active: 0 });
    expect(cond(s, "Complete")?.status).toBe("True");
  });
});

describe("syncJob: tracking with finalizers", () => {
  const gates = { jobTrackingWithFinalizers: true };

  it("creates pods with the tracking finalizer and writes uncountedTerminatedPods", async () => {
    const f = fake(gates);
    await syncJob(f.ctx, makeJob({ completions: 1 }, {}, true), []);
    expect(creates(f.calls)[0]?.metadata?.finalizers).toEqual([JobTrackingFinalizer]);
    expect(last(statuses(f.calls)).uncountedTerminatedPods).toEqual({});
  });

  it("accounts a terminated pod in three steps: list UID, remove finalizer, count", async () => {
    const f = fake(gates);
    const ok = makePod("Succeeded", { finalizer: true, uid: "u-ok" });
    const bad = makePod("Failed", { finalizer: true, uid: "u-bad" });
    await syncJob(f.ctx, makeJob({ completions: 3, parallelism: 1 }, { startTime: formatTime(t0), active: 1, uncountedTerminatedPods: {} }, true), [ok, bad]);
    const seq = ops(f.calls);
    const firstStatus = seq.indexOf("status");
    const rm = seq.indexOf("rmFinalizer");
    expect(firstStatus).toBeLessThan(rm);
    const [step1, step3] = statuses(f.calls);
    expect(step1?.uncountedTerminatedPods).toEqual({ succeeded: ["u-ok"], failed: ["u-bad"] });
    expect(step1?.succeeded ?? 0).toBe(0);
    expect(step3).toMatchObject({ succeeded: 1, failed: 1, uncountedTerminatedPods: {} });
    expect(f.calls.filter((c) => c.op === "rmFinalizer")).toHaveLength(2);
  });

  it("counts UIDs left in the list by an earlier sync once their finalizer is gone (restart between steps)", async () => {
    const f = fake(gates);
    const gone = makePod("Succeeded", { uid: "u-1" }); // finalizer already removed (step 2 done)
    const r = await syncJob(f.ctx, makeJob({ completions: 2, parallelism: 1 }, { startTime: formatTime(t0), succeeded: 0, uncountedTerminatedPods: { succeeded: ["u-1", "u-deleted"] } }, true), [gone]);
    const s = statuses(f.calls);
    expect(s[0]).toMatchObject({ succeeded: 2, uncountedTerminatedPods: {} });
    expect(cond(last(s), "Complete")?.status).toBe("True");
    expect(isJobFinished(r.job)).toBe(true);
  });

  it("never counts a pod twice: a listed UID whose pod still has the finalizer is only de-finalized", async () => {
    const f = fake(gates);
    const p = makePod("Succeeded", { finalizer: true, uid: "u-1" });
    await syncJob(f.ctx, makeJob({ completions: 3 }, { startTime: formatTime(t0), succeeded: 1, uncountedTerminatedPods: { succeeded: ["u-1"] } }, true), [p]);
    expect(last(statuses(f.calls))).toMatchObject({ succeeded: 2, uncountedTerminatedPods: {} });
  });

  it("Indexed: a succeeded pod's index goes straight to completedIndexes", async () => {
    const f = fake(gates);
    const pods = [makePod("Succeeded", { index: 1, finalizer: true }), makePod("Running", { index: 0, finalizer: true })];
    await syncJob(f.ctx, makeJob({ completions: 3, parallelism: 2, completionMode: "Indexed" }, { startTime: formatTime(t0), completedIndexes: "2", succeeded: 1, uncountedTerminatedPods: {} }, true), pods);
    const [step1] = statuses(f.calls);
    expect(step1).toMatchObject({ completedIndexes: "1,2", succeeded: 2, uncountedTerminatedPods: {} });
    expect(f.calls.filter((c) => c.op === "rmFinalizer")).toHaveLength(1);
  });

  it("Indexed: corrupted completedIndexes are read as 1.23 reads them (stop at the first index out of range, drop out-of-order pieces)", async () => {
    const f = fake(gates);
    const pods = [makePod("Succeeded", { index: 1, finalizer: true })];
    // "0,9,3" with completions 5: reading stops at 9, so 3 is lost; the new index 1 joins 0.
    await syncJob(f.ctx, makeJob({ completions: 5, parallelism: 1, completionMode: "Indexed" }, { startTime: formatTime(t0), completedIndexes: "0,9,3", succeeded: 2, uncountedTerminatedPods: {} }, true), pods);
    expect(statuses(f.calls)[0]).toMatchObject({ completedIndexes: "0,1", succeeded: 2 });
    const g = fake(gates);
    // "4,2" with completions 5: the out-of-order 2 is dropped by the merge, as upstream.
    await syncJob(g.ctx, makeJob({ completions: 5, parallelism: 1, completionMode: "Indexed" }, { startTime: formatTime(t0), completedIndexes: "4,2", succeeded: 2, uncountedTerminatedPods: {} }, true), [makePod("Succeeded", { index: 0, finalizer: true })]);
    expect(statuses(g.calls)[0]).toMatchObject({ completedIndexes: "0,4", succeeded: 2 });
  });

  it("a pod being deleted with the finalizer counts as failed", async () => {
    const f = fake(gates);
    const p = makePod("Running", { finalizer: true, deleting: true, uid: "u-del" });
    await syncJob(f.ctx, makeJob({ completions: 2, parallelism: 1 }, { startTime: formatTime(t0), active: 1, uncountedTerminatedPods: {} }, true), [p]);
    expect(statuses(f.calls)[0]?.uncountedTerminatedPods).toEqual({ failed: ["u-del"] });
    expect(last(statuses(f.calls))).toMatchObject({ failed: 1 });
  });

  it("suspend strips the finalizer before deleting, so suspended pods are not failures", async () => {
    const f = fake(gates);
    const p = makePod("Running", { finalizer: true });
    await syncJob(f.ctx, makeJob({ completions: 2, suspend: true }, { startTime: formatTime(t0), active: 1, uncountedTerminatedPods: {} }, true), [p]);
    expect(ops(f.calls).slice(0, 2)).toEqual(["rmFinalizer", "delete"]);
    expect(last(statuses(f.calls)).failed ?? 0).toBe(0);
  });

  it("gate off: removes the annotation and leftover finalizers; counts from pods; clears uncountedTerminatedPods", async () => {
    const f = fake({ jobTrackingWithFinalizers: false });
    const p = makePod("Succeeded", { finalizer: true });
    await syncJob(f.ctx, makeJob({ completions: 2 }, { startTime: formatTime(t0), uncountedTerminatedPods: {} }, true), [p]);
    expect(ops(f.calls).slice(0, 2)).toEqual(["rmAnnotation", "rmFinalizer"]);
    const s = last(statuses(f.calls));
    expect(s.succeeded).toBe(1);
    expect(s.uncountedTerminatedPods).toBeUndefined();
  });
});

describe("ensureJobConditionStatus", () => {
  it("adds True, never adds False, rewrites on change, keeps when equal", () => {
    expect(ensureJobConditionStatus([], "Suspended", "False", "JobResumed", "Job resumed", now)).toEqual({ conditions: [], changed: false });
    const a = ensureJobConditionStatus([], "Suspended", "True", "JobSuspended", "Job suspended", now);
    expect(a.changed).toBe(true);
    expect(ensureJobConditionStatus(a.conditions, "Suspended", "True", "JobSuspended", "Job suspended", now + 5000).changed).toBe(false);
    const b = ensureJobConditionStatus(a.conditions, "Suspended", "False", "JobResumed", "Job resumed", now + 5000);
    expect(b.conditions).toEqual([{ type: "Suspended", status: "False", reason: "JobResumed", message: "Job resumed", lastProbeTime: formatTime(now + 5000), lastTransitionTime: formatTime(now + 5000) }]);
  });
});
