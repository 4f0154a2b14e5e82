// Test fixtures for job-sync/tracking unit tests: a Job and pod builder and fake actions that
// record every API write in order.
import { JobCompletionIndexAnnotation, JobTrackingAnnotation, JobTrackingFinalizer } from "@skiff/api-types";
import type { Job, Pod } from "@skiff/api-types";
import { MemoryEventRecorder } from "../../../events.js";
import { ControllerExpectations, FinalizerExpectations } from "../expectations.js";
import type { JobSyncActions, JobSyncContext, JobSyncGates } from "../job-sync.js";

export const t0 = Date.parse("2026-01-01T00:00:00Z");

export function makeJob(spec: Partial<NonNullable<Job["spec"]>> = {}, status: Job["status"] = {}, tracking = false): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "pi", namespace: "ns", uid: "job-uid", resourceVersion: "1", ...(tracking ? { annotations: { [JobTrackingAnnotation]: "" } } : {}) },
    spec: {
      selector: { matchLabels: { "controller-uid": "job-uid" } },
      template: { metadata: { labels: { "controller-uid": "job-uid", "job-name": "pi" } }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
      parallelism: 1,
      backoffLimit: 6,
      ...spec,
    } as NonNullable<Job["spec"]>,
    status,
  };
}

let podSeq = 0;
export function makePod(phase: "Pending" | "Running" | "Succeeded" | "Failed", o: { index?: number | string; finalizer?: boolean; ready?: boolean; deleting?: boolean; uid?: string; restarts?: number; createdMs?: number } = {}): Pod {
  const n = ++podSeq;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `pi-${String(n)}`,
      namespace: "ns",
      uid: o.uid ?? `pod-${String(n)}`,
      labels: { "controller-uid": "job-uid" },
      creationTimestamp: new Date(o.createdMs ?? t0 + n * 1000).toISOString(),
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "pi", uid: "job-uid", controller: true }],
      ...(o.index !== undefined ? { annotations: { [JobCompletionIndexAnnotation]: String(o.index) } } : {}),
      ...(o.finalizer ? { finalizers: [JobTrackingFinalizer] } : {}),
      ...(o.deleting ? { deletionTimestamp: new Date(t0).toISOString() } : {}),
    },
    spec: { containers: [{ name: "c", image: "busybox" }] },
    status: {
      phase,
      ...(o.ready ? { conditions: [{ type: "Ready", status: "True" }] } : {}),
      ...(o.restarts !== undefined ? { containerStatuses: [{ name: "c", image: "busybox", imageID: "", ready: false, restartCount: o.restarts }] } : {}),
    },
  } as Pod;
}

export type Call =
  | { op: "create"; pod: Pod }
  | { op: "delete"; name: string }
  | { op: "rmFinalizer"; name: string }
  | { op: "status"; status: NonNullable<Job["status"]> }
  | { op: "rmAnnotation" };

export interface Fake {
  ctx: JobSyncContext;
  calls: Call[];
  recorder: MemoryEventRecorder;
  /** Fail creates with these (1-based) call numbers. */
  failCreates: Set<number>;
}

export function fake(gates: Partial<JobSyncGates> = {}, nowMs = t0 + 60_000): Fake {
  const calls: Call[] = [];
  const recorder = new MemoryEventRecorder();
  const failCreates = new Set<number>();
  let creates = 0;
  let rv = 1;
  const actions: JobSyncActions = {
    createPod(_job, pod) {
      creates++;
      if (failCreates.has(creates)) return Promise.reject(new Error("quota exceeded"));
      calls.push({ op: "create", pod });
      return Promise.resolve(pod);
    },
    deletePod(_job, pod) {
      calls.push({ op: "delete", name: pod.metadata?.name ?? "" });
      return Promise.resolve();
    },
    removeTrackingFinalizer(pod) {
      calls.push({ op: "rmFinalizer", name: pod.metadata?.name ?? "" });
      return Promise.resolve();
    },
    updateStatus(job) {
      calls.push({ op: "status", status: structuredClone(job.status ?? {}) });
      return Promise.resolve({ ...structuredClone(job), metadata: { ...job.metadata, resourceVersion: String(++rv) } });
    },
    removeTrackingAnnotation(job) {
      calls.push({ op: "rmAnnotation" });
      return Promise.resolve(job);
    },
  };
  const ctx: JobSyncContext = {
    key: "ns/pi",
    nowMs,
    gates: { jobReadyPods: true, jobTrackingWithFinalizers: false, ...gates },
    expectations: new ControllerExpectations(() => nowMs),
    finalizerExpectations: new FinalizerExpectations(),
    actions,
    recorder,
  };
  return { ctx, calls, recorder, failCreates };
}

export const statuses = (calls: Call[]) => calls.filter((c): c is Extract<Call, { op: "status" }> => c.op === "status").map((c) => c.status);
export const creates = (calls: Call[]) => calls.filter((c): c is Extract<Call, { op: "create" }> => c.op === "create").map((c) => c.pod);
export const ops = (calls: Call[]) => calls.map((c) => c.op);
