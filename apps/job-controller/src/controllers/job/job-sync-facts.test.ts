// Facts of reference/job-controller-behaviour.md (1.23) that job-sync.test.ts does not pin down,
// one test per fact, named after the section it proves.
import { describe, expect, it } from "vitest";
import { JobCompletionIndexAnnotation } from "@skiff/api-types";
import type { Job, Pod } from "@skiff/api-types";
import { newForbidden, newNotFound } from "@skiff/apimachinery";
import type { Client, Informer } from "@skiff/client";
import { MemoryEventRecorder } from "../../events.js";
import { creates, fake, makeJob, makePod, ops, statuses, t0 } from "./internal/fake-sync.js";
import type { Fake } from "./internal/fake-sync.js";
import { formatTime, NewPodFailureError, syncJob } from "./job-sync.js";
import type { JobSyncActions } from "./job-sync.js";
import { newPodControl } from "./pod-control.js";
import { isNamespaceTerminatingError, isPodActive } from "./pod-utils.js";
import { maxUncountedPods } from "./tracking.js";
import { TTLAfterFinishedController } from "../ttlafterfinished/ttl-after-finished-controller.js";

const now = t0 + 60_000;
const cond = (s: Job["status"], type: string) => s?.conditions?.find((c) => c.type === type);
const last = <T>(a: T[]): T => a[a.length - 1] as T;
const deletes = (f: Fake) => f.calls.filter((c) => c.op === "delete").map((c) => (c as { name: string }).name);
const withActions = (f: Fake, actions: Partial<JobSyncActions>): Fake => ({ ...f, ctx: { ...f.ctx, actions: { ...f.ctx.actions, ...actions } } });
const podNotFound = (p: Pod) => newNotFound({ group: "", resource: "pods" }, p.metadata?.name ?? "");
const nsTerminating = () => newForbidden({ group: "", resource: "pods" }, "", new Error("unable to create new content in namespace ns because it is being terminated"));

describe("§1 which pods belong", () => {
  it("active = not Succeeded/Failed and not being deleted (legacy: a terminating pod is neither active nor failed)", async () => {
    expect([makePod("Pending"), makePod("Running"), makePod("Succeeded"), makePod("Failed"), makePod("Running", { deleting: true })].map(isPodActive)).toEqual([true, true, false, false, false]);
    const f = fake();
    await syncJob(f.ctx, makeJob({ completions: 3, parallelism: 2 }, { startTime: formatTime(t0), active: 2 }), [makePod("Running"), makePod("Running", { deleting: true })]);
    // The terminating pod is replaced at once and never counted.
    expect(creates(f.calls)).toHaveLength(1);
    expect(last(statuses(f.calls))).toMatchObject({ active: 2, failed: 0, succeeded: 0 });
  });

  it("created pods carry the template's labels, annotations and finalizers", async () => {
    const f = fake();
    const job = makeJob({ completions: 1 });
    const spec = job.spec as NonNullable<Job["spec"]>;
    spec.template.metadata = { labels: { "controller-uid": "job-uid", app: "x" }, annotations: { note: "n" }, finalizers: ["example.io/keep"] };
    await syncJob(f.ctx, job, []);
    expect(creates(f.calls)[0]?.metadata).toMatchObject({ labels: { "controller-uid": "job-uid", app: "x" }, annotations: { note: "n" }, finalizers: ["example.io/keep"] });
  });
});

describe("§2 counting", () => {
  it("finalizer tracking puts at most 500 terminated pods into the uncounted lists per sync; the rest wait", async () => {
    const f = fake({ jobTrackingWithFinalizers: true });
    const pods = Array.from({ length: maxUncountedPods + 20 }, () => makePod("Succeeded", { finalizer: true }));
    await syncJob(f.ctx, makeJob({ completions: 1000, parallelism: 0 }, { startTime: formatTime(t0), uncountedTerminatedPods: {} }, true), pods);
    const [step1] = statuses(f.calls);
    expect(step1?.uncountedTerminatedPods?.succeeded).toHaveLength(maxUncountedPods);
    expect(f.calls.filter((c) => c.op === "rmFinalizer")).toHaveLength(maxUncountedPods);
    expect(last(statuses(f.calls))).toMatchObject({ succeeded: maxUncountedPods, uncountedTerminatedPods: {} });
  });

  it("finalizer tracking: a Job being deleted has its pods' finalizers removed; a running pod is not a failure", async () => {
    const f = fake({ jobTrackingWithFinalizers: true });
    const job = makeJob({ completions: 2, parallelism: 1 }, { startTime: formatTime(t0), active: 1, uncountedTerminatedPods: {} }, true);
    (job.metadata ??= {}).deletionTimestamp = formatTime(t0);
    await syncJob(f.ctx, job, [makePod("Running", { finalizer: true })]);
    expect(f.calls.filter((c) => c.op === "rmFinalizer")).toHaveLength(1);
    expect(creates(f.calls)).toHaveLength(0);
    expect(last(statuses(f.calls))?.failed ?? 0).toBe(0);
  });
});

describe("§3 how many pods to run", () => {
  it("at most 500 pod creations per sync", async () => {
    const f = fake();
    await syncJob(f.ctx, makeJob({ completions: 600, parallelism: 600 }), []);
    expect(creates(f.calls)).toHaveLength(500);
    expect(last(statuses(f.calls)).active).toBe(500);
  });

  it("no pods are created or deleted while the Job has a deletionTimestamp", async () => {
    const f = fake();
    const job = makeJob({ completions: 3, parallelism: 2 }, { startTime: formatTime(t0) });
    (job.metadata ??= {}).deletionTimestamp = formatTime(t0);
    await syncJob(f.ctx, job, []);
    expect(creates(f.calls)).toHaveLength(0);
    expect(deletes(f)).toEqual([]);
  });

  it("lowered parallelism with finalizer tracking: surplus pods lose the finalizer before the delete and are no failures", async () => {
    const f = fake({ jobTrackingWithFinalizers: true });
    const pods = [makePod("Running", { finalizer: true, ready: true }), makePod("Pending", { finalizer: true })];
    await syncJob(f.ctx, makeJob({ completions: 5, parallelism: 1 }, { startTime: formatTime(t0), active: 2, uncountedTerminatedPods: {} }, true), pods);
    expect(ops(f.calls).slice(0, 2)).toEqual(["rmFinalizer", "delete"]);
    expect(deletes(f)).toEqual([pods[1]?.metadata?.name]); // the pending one goes first
    expect(last(statuses(f.calls))).toMatchObject({ active: 1 });
    expect(last(statuses(f.calls)).failed ?? 0).toBe(0);
  });

  it("a pod already gone (404 on delete) counts as deleted", async () => {
    const f = withActions(fake(), { deletePod: (_j, p) => Promise.reject(podNotFound(p)) });
    const r = await syncJob(f.ctx, makeJob({ completions: 5, parallelism: 1 }, { startTime: formatTime(t0), active: 2 }), [makePod("Running"), makePod("Running")]);
    expect(r.error).toBeUndefined();
    expect(last(statuses(f.calls)).active).toBe(1);
  });
});

describe("§4 conditions", () => {
  it("the failure checks run first: BackoffLimitExceeded wins over DeadlineExceeded and over completion", async () => {
    const f = fake();
    await syncJob(f.ctx, makeJob({ completions: 1, backoffLimit: 0, activeDeadlineSeconds: 1 }, { startTime: formatTime(t0) }), [makePod("Failed"), makePod("Succeeded")]);
    const s = last(statuses(f.calls));
    expect(s.conditions).toHaveLength(1);
    expect(cond(s, "Failed")?.reason).toBe("BackoffLimitExceeded");
    expect(cond(s, "Complete")).toBeUndefined();
  });

  it("finalizer tracking: Failed waits until every deleted active pod is counted (a 404 counts as deleted)", async () => {
    const f = withActions(fake({ jobTrackingWithFinalizers: true }), { deletePod: (_j, p) => Promise.reject(podNotFound(p)) });
    await syncJob(f.ctx, makeJob({ completions: 2, activeDeadlineSeconds: 10 }, { startTime: formatTime(t0), active: 1, uncountedTerminatedPods: {} }, true), [makePod("Running", { finalizer: true, uid: "u-run" })]);
    const s = statuses(f.calls);
    expect(s[0]?.uncountedTerminatedPods).toEqual({ failed: ["u-run"] });
    expect(last(s)).toMatchObject({ failed: 1, active: 0 });
    expect(cond(last(s), "Failed")?.reason).toBe("DeadlineExceeded");
  });
});

describe("§5 failures and back-off", () => {
  it("a new failure while active = parallelism is not held against the limit (the last sync's write was lost)", async () => {
    const f = fake();
    const r = await syncJob(f.ctx, makeJob({ completions: 5, parallelism: 2, backoffLimit: 0 }, { startTime: formatTime(t0), active: 2 }), [makePod("Failed"), makePod("Running"), makePod("Running")]);
    expect(cond(last(statuses(f.calls)), "Failed")).toBeUndefined();
    expect(last(statuses(f.calls)).failed).toBe(1);
    expect(r.error).toBeInstanceOf(NewPodFailureError);
  });

  it("forget (reset the back-off): after a sync without a new failure; not after one with a failure", async () => {
    const legacy = fake();
    const quiet = await syncJob(legacy.ctx, makeJob({ completions: 3, parallelism: 1 }, { startTime: formatTime(t0), active: 0, failed: 1 }), [makePod("Failed"), makePod("Running")]);
    expect(quiet).toMatchObject({ forget: true });
    expect(quiet.error).toBeUndefined();
    const failing = await syncJob(fake().ctx, makeJob({ completions: 3, parallelism: 1 }, { startTime: formatTime(t0), active: 1 }), [makePod("Failed")]);
    expect(failing.forget).toBe(false);
    const tracked = await syncJob(fake({ jobTrackingWithFinalizers: true }).ctx, makeJob({ completions: 3, parallelism: 1 }, { startTime: formatTime(t0), active: 1, uncountedTerminatedPods: {} }, true), [makePod("Running", { finalizer: true })]);
    expect(tracked.forget).toBe(true);
    // Legacy without any status change: nothing written, nothing forgotten (as 1.23).
    const idle = await syncJob(fake().ctx, makeJob({ completions: 3, parallelism: 1 }, { startTime: formatTime(t0), active: 1, succeeded: 0, failed: 0, ready: 0 }), [makePod("Running")]);
    expect(idle.forget).toBe(false);
  });
});

describe("§6 activeDeadlineSeconds", () => {
  it("exceeded exactly at startTime + activeDeadlineSeconds, not a second before", async () => {
    const at = fake(undefined, t0 + 30_000);
    await syncJob(at.ctx, makeJob({ completions: 1, activeDeadlineSeconds: 30 }, { startTime: formatTime(t0), active: 1 }), [makePod("Running")]);
    expect(cond(last(statuses(at.calls)), "Failed")?.reason).toBe("DeadlineExceeded");
    const before = fake(undefined, t0 + 29_000);
    const r = await syncJob(before.ctx, makeJob({ completions: 1, activeDeadlineSeconds: 30 }, { startTime: formatTime(t0), active: 1 }), [makePod("Running")]);
    expect(statuses(before.calls).some((s) => cond(s, "Failed") !== undefined)).toBe(false);
    expect(deletes(before)).toEqual([]);
    expect(r.requeueAfterMs).toBe(1000);
  });

  it("activeDeadlineSeconds 0 fails the Job on its first sync, without creating a pod", async () => {
    const f = fake();
    await syncJob(f.ctx, makeJob({ completions: 1, activeDeadlineSeconds: 0 }), []);
    expect(creates(f.calls)).toHaveLength(0);
    const s = last(statuses(f.calls));
    expect(s.startTime).toBe(formatTime(now));
    expect(cond(s, "Failed")).toMatchObject({ reason: "DeadlineExceeded", message: "Job was active longer than specified deadline", lastTransitionTime: formatTime(now) });
  });

  it("a raised activeDeadlineSeconds re-schedules the check for the new remainder", async () => {
    const r = await syncJob(fake().ctx, makeJob({ completions: 1, activeDeadlineSeconds: 600 }, { startTime: formatTime(t0), active: 1 }), [makePod("Running")]);
    expect(r.requeueAfterMs).toBe(540_000);
  });
});

describe("§7 suspend", () => {
  it("suspended Job: the deadline never fires, no requeue for it", async () => {
    const f = fake(undefined, t0 + 3_600_000);
    const r = await syncJob(f.ctx, makeJob({ completions: 1, activeDeadlineSeconds: 1, suspend: true }, { startTime: formatTime(t0) }), []);
    expect(statuses(f.calls).every((s) => cond(s, "Failed") === undefined)).toBe(true);
    expect(r.requeueAfterMs).toBeUndefined();
  });
});

describe("§8 Indexed", () => {
  it("a failed index is replaced by a new pod with the same index", async () => {
    const f = fake();
    const pods = [makePod("Succeeded", { index: 0 }), makePod("Failed", { index: 1 }), makePod("Running", { index: 2 })];
    await syncJob(f.ctx, makeJob({ completions: 3, parallelism: 2, completionMode: "Indexed" }, { startTime: formatTime(t0), active: 1, completedIndexes: "0", succeeded: 1 }), pods);
    expect(creates(f.calls).map((p) => p.metadata?.annotations?.[JobCompletionIndexAnnotation])).toEqual(["1"]);
    expect(last(statuses(f.calls))).toMatchObject({ failed: 1, succeeded: 1, completedIndexes: "0", active: 2 });
  });

  it("finalizer tracking: a failed pod with an out-of-range index is never counted, only de-finalized", async () => {
    const f = fake({ jobTrackingWithFinalizers: true });
    const pods = [makePod("Failed", { index: 7, finalizer: true }), makePod("Failed", { index: "x", finalizer: true })];
    await syncJob(f.ctx, makeJob({ completions: 2, parallelism: 0, completionMode: "Indexed" }, { startTime: formatTime(t0), uncountedTerminatedPods: {} }, true), pods);
    expect(f.calls.filter((c) => c.op === "rmFinalizer")).toHaveLength(2);
    expect(last(statuses(f.calls))?.failed ?? 0).toBe(0);
  });
});

describe("§9 events", () => {
  it("FailedCreate is not emitted, and no error returned, when the namespace is terminating", async () => {
    expect(isNamespaceTerminatingError(nsTerminating())).toBe(true);
    expect(isNamespaceTerminatingError(newForbidden({ group: "", resource: "pods" }, "", new Error("quota")))).toBe(false);
    expect(isNamespaceTerminatingError(new Error("x"))).toBe(false);
    expect(isNamespaceTerminatingError(undefined)).toBe(false);
    // The pod control emits no event for it ...
    const recorder = new MemoryEventRecorder();
    const client = { pods: { create: () => Promise.reject(nsTerminating()) } } as unknown as Client;
    await expect(newPodControl(client, recorder).createPod(makeJob(), makePod("Pending"))).rejects.toThrow(/being terminated/);
    expect(recorder.events).toEqual([]);
    // ... and the sync treats it as no error (nothing to retry), without counting the pods active.
    const f = withActions(fake(), { createPod: () => Promise.reject(nsTerminating()) });
    const r = await syncJob(f.ctx, makeJob({ completions: 2, parallelism: 2 }), []);
    expect(r.error).toBeUndefined();
    expect(last(statuses(f.calls)).active).toBe(0);
    expect(f.ctx.expectations.satisfied("ns/pi")).toBe(true);
  });

  it("FailedCreate carries the API error message; SuccessfulCreate/SuccessfulDelete name the pod; FailedDelete on errors other than 404", async () => {
    const recorder = new MemoryEventRecorder();
    const quota = newForbidden({ group: "", resource: "pods" }, "", new Error("exceeded quota"));
    let fail = true;
    const client = {
      pods: {
        create: (p: Pod) => (fail ? Promise.reject(quota) : Promise.resolve({ ...p, metadata: { ...p.metadata, name: "pi-abcde" } })),
        delete: (name: string) => Promise.reject(name === "gone" ? newNotFound({ group: "", resource: "pods" }, name) : new Error("boom")),
      },
    } as unknown as Client;
    const pc = newPodControl(client, recorder);
    await expect(pc.createPod(makeJob(), makePod("Pending"))).rejects.toBe(quota);
    fail = false;
    await pc.createPod(makeJob(), makePod("Pending"));
    await expect(pc.deletePod(makeJob(), { metadata: { name: "gone", namespace: "ns" } } as Pod)).rejects.toThrow();
    await expect(pc.deletePod(makeJob(), { metadata: { name: "other", namespace: "ns" } } as Pod)).rejects.toThrow();
    expect(recorder.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ["Warning", "FailedCreate", 'Error creating: pods is forbidden: exceeded quota'],
      ["Normal", "SuccessfulCreate", "Created pod: pi-abcde"],
      ["Warning", "FailedDelete", "Error deleting: boom"],
    ]);
  });
});

describe("§10 TTL-after-finished controller", () => {
  const finishedJob = (ttl: number | undefined, uid = "job-uid"): Job => {
    const j = makeJob({ ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}) }, { conditions: [{ type: "Complete", status: "True", lastTransitionTime: formatTime(t0) }] });
    (j.metadata ??= {}).uid = uid;
    return j;
  };
  const setup = (cached: Job, fresh: Job | Error, nowMs: number) => {
    const deletesSeen: unknown[] = [];
    const logs: string[] = [];
    const informer = { store: { get: () => cached } } as unknown as Informer<Job>;
    const client = {
      jobs: {
        get: () => (fresh instanceof Error ? Promise.reject(fresh) : Promise.resolve(fresh)),
        delete: (name: string, opts: unknown) => {
          deletesSeen.push({ name, opts });
          return Promise.resolve();
        },
      },
    } as unknown as Client;
    const c = new TTLAfterFinishedController({ client, jobInformer: informer, now: () => nowMs, log: (m) => logs.push(m) });
    return { c, deletesSeen, logs };
  };

  it("deletes an expired Job with propagationPolicy Foreground and a UID precondition", async () => {
    const { c, deletesSeen } = setup(finishedJob(10), finishedJob(10, "fresh-uid"), t0 + 10_000);
    expect(await c.processJob("ns/pi")).toBe("deleted");
    expect(deletesSeen).toEqual([{ name: "pi", opts: { namespace: "ns", propagationPolicy: "Foreground", preconditions: { uid: "fresh-uid" } } }]);
  });

  it("re-reads the Job first: a TTL raised meanwhile requeues, a TTL removed or a Job gone skips", async () => {
    const raised = setup(finishedJob(10), finishedJob(100), t0 + 10_000);
    expect(await raised.c.processJob("ns/pi")).toBe("requeued");
    const cleared = setup(finishedJob(10), finishedJob(undefined), t0 + 10_000);
    expect(await cleared.c.processJob("ns/pi")).toBe("skipped");
    const gone = setup(finishedJob(10), newNotFound({ group: "batch", resource: "jobs" }, "pi"), t0 + 10_000);
    expect(await gone.c.processJob("ns/pi")).toBe("skipped");
    for (const s of [raised, cleared, gone]) expect(s.deletesSeen).toEqual([]);
    for (const s of [raised, cleared, gone]) s.c.queue.shutDown();
  });

  it("before expiry it waits; a finish time in the future (clock skew) logs a warning and waits", async () => {
    const early = setup(finishedJob(10), finishedJob(10), t0 + 5_000);
    expect(await early.c.processJob("ns/pi")).toBe("requeued");
    expect(early.logs).toEqual([]);
    const skew = setup(finishedJob(0), finishedJob(0), t0 - 5_000);
    expect(await skew.c.processJob("ns/pi")).toBe("requeued");
    expect(skew.logs.join("\n")).toMatch(/finished in the future/);
    expect([...early.deletesSeen, ...skew.deletesSeen]).toEqual([]);
    early.c.queue.shutDown();
    skew.c.queue.shutDown();
  });
});
