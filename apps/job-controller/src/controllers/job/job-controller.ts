/**
 * The Job controller: informers on Jobs and Pods, a rate-limited work queue of Job keys,
 * `concurrentSyncs` workers running {@link syncJob}, adoption and release of pods by selector
 * (ControllerRef), expectations, and a worker that strips the tracking finalizer from pods whose
 * Job is gone or finished.
 *
 * @see pkg/controller/job/job_controller.go (NewController, Run, addPod, updatePod, deletePod,
 *   getPodsForJob, syncOrphanPod)
 * @see pkg/controller/controller_ref_manager.go (PodControllerRefManager.ClaimPods)
 * @see cmd/kube-controller-manager/app/batch.go (startJobController: {@link jobControllerInitializer})
 */
import { JobTrackingAnnotation } from "@skiff/api-types";
import type { Job, Pod } from "@skiff/api-types";
import { isNotFound, labelSelectorAsSelector, noopTracer, tracerFromEnv } from "@skiff/apimachinery";
import type { Tracer } from "@skiff/apimachinery";
import { DeletedFinalStateUnknown, RateLimitingQueue, createInformer, keyOf } from "@skiff/client";
import type { Client, Informer } from "@skiff/client";
import type { FeatureGate } from "@skiff/feature-gates";
import { flagTypes as t } from "@skiff/flags";
import type { FlagTable } from "@skiff/flags";
import type { ControllerInitializer } from "../../controller-manager.js";
import { jobControllerComponent, newClientEventRecorder } from "../../events.js";
import type { EventRecorder } from "../../events.js";
import { jobBackoffMs, newJobRateLimiter } from "./backoff.js";
import { ControllerExpectations, FinalizerExpectations } from "./expectations.js";
import { isJobFinished, isTrackingWithFinalizers, syncJob } from "./job-sync.js";
import type { JobSyncActions, JobSyncGates, JobSyncResult } from "./job-sync.js";
import { OwnWrites } from "./own-writes.js";
import { newPodControl } from "./pod-control.js";
import type { PodControl } from "./pod-control.js";
import { controllerRefOf, hasTrackingFinalizer } from "./pod-utils.js";

/** Options of {@link JobController}. */
export interface JobControllerOptions {
  readonly client: Client;
  readonly gates: JobSyncGates;
  readonly recorder: EventRecorder;
  /** Jobs synced at once. @defaultValue 5 */
  readonly concurrentSyncs?: number;
  /** Shared Job informer (the TTL controller uses the same one); created when omitted. */
  readonly jobInformer?: Informer<Job>;
  /** Shared Pod informer; created when omitted. */
  readonly podInformer?: Informer<Pod>;
  /** Pod writes (tests substitute it). @defaultValue newPodControl(client, recorder) */
  readonly podControl?: PodControl;
  /** Clock in ms. @defaultValue Date.now */
  readonly now?: () => number;
  /** Log sink for sync errors. @defaultValue stderr */
  readonly log?: (message: string) => void;
  /**
   * Spans: `sync` per Job sync; per pod `create-pod` and `remove-finalizer`; per status write
   * `job-status`, with `uncounted` (UIDs added to `uncountedTerminatedPods`) and `counted` (UIDs
   * moved from it to the counts) beside it. @defaultValue none
   */
  readonly tracer?: Tracer;
}

function uncountedUIDs(job: Job): Set<string> {
  const u = job.status?.uncountedTerminatedPods;
  return new Set([...(u?.succeeded ?? []), ...(u?.failed ?? [])]);
}

const jobUidIndex = "jobUid";
const orphanIndex = "orphanNamespace";

function withGVK(job: Job): Job {
  return job.apiVersion === "batch/v1" && job.kind === "Job" ? job : { ...job, apiVersion: "batch/v1", kind: "Job" };
}

/**
 * The Job controller (see the module comment). `run()` starts the informers (if it created them),
 * waits for their caches and starts the workers; `stop()` shuts everything down.
 * @example
 * const c = new JobController({ client, gates, recorder });
 * await c.run();
 * // ... later
 * c.stop();
 */
export class JobController {
  readonly jobInformer: Informer<Job>;
  readonly podInformer: Informer<Pod>;
  readonly queue = new RateLimitingQueue<string>({ rateLimiter: newJobRateLimiter<string>(), name: "job" });
  readonly orphanQueue = new RateLimitingQueue<string>({ rateLimiter: newJobRateLimiter<string>(), name: "orphan_pod" });
  readonly expectations: ControllerExpectations;
  readonly finalizerExpectations = new FinalizerExpectations();
  readonly #o: JobControllerOptions;
  readonly #podControl: PodControl;
  readonly #ownInformers: boolean;
  readonly #now: () => number;
  readonly #log: (m: string) => void;
  readonly #tracer: Tracer;
  // UIDs of Jobs whose finishing status write succeeded, by key: until the Job informer shows the
  // condition, a sync from its stale copy would manage pods again (and create a leaked pod).
  readonly #finished = new Map<string, string>();
  // This controller's last Job status writes, until the Job informer shows them.
  readonly #ownWrites = new OwnWrites<Job>();
  #workers: Promise<void>[] = [];
  #removers: Array<() => void> = [];

  constructor(options: JobControllerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((m) => process.stderr.write(`${m}\n`));
    this.#tracer = options.tracer ?? noopTracer;
    this.expectations = new ControllerExpectations(this.#now);
    this.#ownInformers = options.jobInformer === undefined || options.podInformer === undefined;
    this.jobInformer = options.jobInformer ?? createInformer(options.client.jobs);
    this.podInformer = options.podInformer ?? createInformer(options.client.pods);
    this.podInformer.addIndexers({
      [jobUidIndex]: (p) => {
        const ref = controllerRefOf(p);
        return ref && ref.kind === "Job" ? [ref.uid] : [];
      },
      [orphanIndex]: (p) => (controllerRefOf(p) ? [] : [p.metadata?.namespace ?? ""]),
    });
    this.#podControl = options.podControl ?? newPodControl(options.client, options.recorder);
  }

  /** Starts informers (when owned), waits for caches, starts workers. Resolves once running. */
  async run(): Promise<void> {
    this.#removers.push(
      this.jobInformer.addEventHandler({
        onAdd: (j) => this.#enqueue(j, true),
        onUpdate: (_o, j) => this.#enqueue(j, true),
        onDelete: (j) => {
          const job = j instanceof DeletedFinalStateUnknown ? j.obj : j;
          if (!job) return;
          this.#enqueue(job, true);
          // Its pods still carrying the tracking finalizer would never go away: strip it (1.23 deleteJob).
          for (const p of this.podInformer.store.byIndex(jobUidIndex, job.metadata?.uid ?? "")) {
            if (hasTrackingFinalizer(p)) this.orphanQueue.add(keyOf(p));
          }
        },
      }),
      this.podInformer.addEventHandler({
        onAdd: (p) => this.#addPod(p),
        onUpdate: (o, p) => this.#updatePod(o, p),
        onDelete: (p) => {
          const pod = p instanceof DeletedFinalStateUnknown ? p.obj : p;
          if (pod) this.#deletePod(pod, true);
        },
      }),
    );
    if (this.#ownInformers) {
      this.jobInformer.start();
      this.podInformer.start();
    }
    await Promise.all([this.jobInformer.waitForSync(), this.podInformer.waitForSync()]);
    const n = this.#o.concurrentSyncs ?? 5;
    for (let i = 0; i < n; i++) this.#workers.push(this.#worker());
    this.#workers.push(this.#orphanWorker());
  }

  /** Stops workers (in-flight syncs finish) and owned informers. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    this.orphanQueue.shutDown();
    for (const r of this.#removers) r();
    if (this.#ownInformers) {
      this.jobInformer.stop();
      this.podInformer.stop();
    }
    await Promise.all(this.#workers);
  }

  #enqueue(job: Job, immediate: boolean): void {
    const key = keyOf(job);
    this.queue.addAfter(key, immediate ? 0 : jobBackoffMs(this.queue.numRequeues(key)));
  }

  #jobForPod(pod: Pod): Job | undefined {
    const ref = controllerRefOf(pod);
    if (!ref || ref.kind !== "Job") return undefined;
    const job = this.jobInformer.store.get(`${pod.metadata?.namespace ?? ""}/${ref.name}`);
    return job && job.metadata?.uid === ref.uid ? job : undefined;
  }

  #jobsMatchingOrphan(pod: Pod): Job[] {
    const labels = pod.metadata?.labels ?? {};
    if (Object.keys(labels).length === 0) return [];
    return this.jobInformer.store.byIndex("namespace", pod.metadata?.namespace ?? "").filter((j) => {
      const s = labelSelectorAsSelector(j.spec?.selector);
      return s.ok && !s.value.empty() && s.value.matches(labels);
    });
  }

  #addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      this.#deletePod(pod, false);
      return;
    }
    const ref = controllerRefOf(pod);
    if (ref) {
      const job = this.#jobForPod(pod);
      if (!job) {
        if (hasTrackingFinalizer(pod)) this.orphanQueue.add(keyOf(pod));
        return;
      }
      this.expectations.creationObserved(keyOf(job));
      this.#enqueue(job, true);
      return;
    }
    // An orphan still carrying the tracking finalizer (its Job was deleted with Orphan propagation
    // or it was released) would never be deletable: the orphan worker strips it.
    if (hasTrackingFinalizer(pod)) this.orphanQueue.add(keyOf(pod));
    for (const j of this.#jobsMatchingOrphan(pod)) this.#enqueue(j, true);
  }

  #updatePod(old: Pod, cur: Pod): void {
    if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return;
    if (cur.metadata?.deletionTimestamp) {
      // Seen terminating: the deletion this controller asked for happened.
      this.#deletePod(cur, false);
      return;
    }
    const immediate = cur.status?.phase !== "Failed";
    if (hasTrackingFinalizer(old) && !hasTrackingFinalizer(cur)) this.finalizerExpectations.finalizerRemovalObserved(cur.metadata?.uid ?? "");
    const oldRef = controllerRefOf(old);
    const curRef = controllerRefOf(cur);
    if (oldRef && (!curRef || oldRef.uid !== curRef.uid)) {
      const oldJob = this.#jobForPod(old);
      if (oldJob) this.#enqueue(oldJob, immediate);
    }
    if (curRef) {
      const job = this.#jobForPod(cur);
      if (!job) {
        if (hasTrackingFinalizer(cur)) this.orphanQueue.add(keyOf(cur));
        return;
      }
      if (isJobFinished(job) && hasTrackingFinalizer(cur)) this.orphanQueue.add(keyOf(cur));
      this.#enqueue(job, immediate);
      return;
    }
    if (hasTrackingFinalizer(cur)) this.orphanQueue.add(keyOf(cur));
    for (const j of this.#jobsMatchingOrphan(cur)) this.#enqueue(j, immediate);
  }

  #deletePod(pod: Pod, final: boolean): void {
    if (final || !hasTrackingFinalizer(pod)) this.finalizerExpectations.finalizerRemovalObserved(pod.metadata?.uid ?? "");
    const job = this.#jobForPod(pod);
    // A finished Job's sync removes no finalizer: the orphan worker does (1.23 deletePod).
    if (!job || isJobFinished(job)) {
      if (!final && hasTrackingFinalizer(pod)) this.orphanQueue.add(keyOf(pod));
      if (!job) return;
    }
    this.expectations.deletionObserved(keyOf(job));
    this.#enqueue(job, true);
  }

  async #worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        const r = await this.syncKey(key);
        if (r?.error !== undefined) {
          if (!(r.error instanceof Error && r.error.name === "NewPodFailureError")) this.#log(`job ${key}: sync failed: ${r.error instanceof Error ? r.error.message : String(r.error)}`);
          this.queue.addRateLimited(key);
        } else if (r?.forget) this.queue.forget(key);
        if (r?.requeueAfterMs !== undefined) this.queue.addAfter(key, r.requeueAfterMs);
      } catch (e) {
        this.#log(`job ${key}: sync failed: ${e instanceof Error ? e.message : String(e)}`);
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** One sync of the Job `namespace/name` from the caches; `undefined` when the Job is gone. */
  async syncKey(key: string): Promise<JobSyncResult | undefined> {
    const informed = this.jobInformer.store.get(key);
    const cached = informed === undefined ? undefined : this.#ownWrites.newest(key, informed);
    if (!cached) {
      this.#ownWrites.forget(key);
      this.expectations.delete(key);
      this.finalizerExpectations.delete(key);
      this.#finished.delete(key);
      return undefined;
    }
    const uid = cached.metadata?.uid ?? "";
    const finishedUid = this.#finished.get(key);
    if (finishedUid !== undefined && finishedUid !== uid) this.#finished.delete(key);
    // The informer has not caught up with this controller's own finishing write: nothing to do.
    if (finishedUid === uid && !isJobFinished(cached)) return { forget: true, job: cached };
    const job = withGVK(cached);
    const tracking = isTrackingWithFinalizers(job, this.#o.gates);
    const pods = isJobFinished(job) ? [] : await this.#claimPods(job, tracking);
    const client = this.#o.client;
    const ns = job.metadata?.namespace ?? "default";
    const tracer = this.#tracer;
    const syncStart = tracer.now();
    let uncounted = tracer.enabled ? uncountedUIDs(job) : new Set<string>();
    const actions: JobSyncActions = {
      createPod: async (j, p) => {
        const t0 = tracer.now();
        const created = await this.#podControl.createPod(j, p);
        tracer.record("create-pod", t0, tracer.now(), { job: key, pod: `${ns}/${created.metadata?.name ?? ""}`, uid: created.metadata?.uid ?? "" });
        return created;
      },
      deletePod: (j, p) => this.#podControl.deletePod(j, p),
      removeTrackingFinalizer: async (p) => {
        const t0 = tracer.now();
        await this.#podControl.removeTrackingFinalizer(p);
        tracer.record("remove-finalizer", t0, tracer.now(), { job: key, pod: keyOf(p), uid: p.metadata?.uid ?? "" });
      },
      updateStatus: async (j) => {
        const t0 = tracer.now();
        const updated = withGVK(await client.jobs.updateStatus(j, { namespace: ns }));
        this.#ownWrites.record(key, updated);
        if (tracer.enabled) {
          const t1 = tracer.now();
          const now = uncountedUIDs(updated);
          const added = [...now].filter((u) => !uncounted.has(u));
          const counted = [...uncounted].filter((u) => !now.has(u));
          tracer.record("job-status", t0, t1, { job: key, attrs: { succeeded: updated.status?.succeeded ?? 0, active: updated.status?.active ?? 0 } });
          if (added.length > 0) tracer.record("uncounted", t0, t1, { job: key, uids: added });
          if (counted.length > 0) tracer.record("counted", t0, t1, { job: key, uids: counted });
          uncounted = now;
        }
        return updated;
      },
      removeTrackingAnnotation: (j) => client.jobs.patch(j.metadata?.name ?? "", { metadata: { annotations: { [JobTrackingAnnotation]: null } } }, { namespace: ns, type: "merge" }),
    };
    const result = await syncJob(
      {
        key,
        nowMs: this.#now(),
        gates: this.#o.gates,
        expectations: this.expectations,
        finalizerExpectations: this.finalizerExpectations,
        actions,
        recorder: this.#o.recorder,
      },
      job,
      pods,
    );
    if (result.error === undefined && !isJobFinished(job) && isJobFinished(result.job)) this.#finished.set(key, uid);
    tracer.record("sync", syncStart, tracer.now(), { job: key, attrs: { pods: pods.length } });
    return result;
  }

  /**
   * The Job's pods: owned ones still matching the selector, plus orphans matching it, adopted
   * (after re-reading the Job: same uid, not being deleted). Owned pods that stopped matching are
   * released. Adoption failures only drop that pod from this sync.
   */
  async #claimPods(job: Job, tracking: boolean): Promise<Pod[]> {
    const uid = job.metadata?.uid ?? "";
    const ns = job.metadata?.namespace ?? "";
    const sel = labelSelectorAsSelector(job.spec?.selector);
    const owned = this.podInformer.store.byIndex(jobUidIndex, uid);
    if (!sel.ok) return owned;
    const deleting = job.metadata?.deletionTimestamp !== undefined;
    const claimed: Pod[] = [];
    for (const p of owned) {
      if (p.metadata?.namespace !== ns) continue;
      if (sel.value.matches(p.metadata.labels ?? {}) || deleting) {
        claimed.push(p);
        continue;
      }
      await this.#podControl.releasePod(job, p).catch((e: unknown) => this.#log(`job ${keyOf(job)}: release pod ${p.metadata?.name ?? ""}: ${String(e)}`));
    }
    if (deleting || sel.value.empty()) return claimed;
    const orphans = this.podInformer.store.byIndex(orphanIndex, ns).filter((p) => !p.metadata?.deletionTimestamp && sel.value.matches(p.metadata?.labels ?? {}));
    if (orphans.length === 0) return claimed;
    // Re-check the Job before adopting (RecheckDeletionTimestamp).
    try {
      const fresh = await this.#o.client.jobs.get(job.metadata?.name ?? "", { namespace: ns });
      if (fresh.metadata?.uid !== uid || fresh.metadata.deletionTimestamp) return claimed;
    } catch (e) {
      if (isNotFound(e)) return claimed;
      throw e;
    }
    for (const p of orphans) {
      try {
        await this.#podControl.adoptPod(job, p, tracking);
        claimed.push(p);
      } catch (e) {
        if (!isNotFound(e)) this.#log(`job ${keyOf(job)}: adopt pod ${p.metadata?.name ?? ""}: ${String(e)}`);
      }
    }
    return claimed;
  }

  async #orphanWorker(): Promise<void> {
    for (;;) {
      const key = await this.orphanQueue.get();
      if (key === undefined) return;
      try {
        const pod = this.podInformer.store.get(key);
        if (pod && hasTrackingFinalizer(pod)) {
          // No controller reference: strip it. A Job's pod: only when that Job is gone, finished
          // or not tracked with finalizers.
          const job = this.#jobForPod(pod);
          if (!job || isJobFinished(job) || !isTrackingWithFinalizers(job, this.#o.gates)) await this.#podControl.removeTrackingFinalizer(pod);
        }
        this.orphanQueue.forget(key);
      } catch (e) {
        this.#log(`orphan pod ${key}: removing finalizer: ${e instanceof Error ? e.message : String(e)}`);
        this.orphanQueue.addRateLimited(key);
      } finally {
        this.orphanQueue.done(key);
      }
    }
  }
}

/** The Job controller's own options (its flags). */
export interface JobControllerOptionValues {
  concurrentJobSyncs: number;
}

/**
 * The Job controller's flags (kube-controller-manager's names and defaults).
 * @see cmd/kube-controller-manager/app/options/jobcontroller.go
 */
export const jobControllerFlagTable = {
  concurrentJobSyncs: {
    name: "concurrent-job-syncs",
    type: t.int32,
    default: 5,
    usage: "The number of job objects that are allowed to sync concurrently. Larger number = more responsive jobs, but more CPU (and network) load.",
  },
} satisfies FlagTable<JobControllerOptionValues>;

/** The gates {@link syncJob} reads, from the manager's gate set. Pure. */
export function jobSyncGates(gates: FeatureGate): JobSyncGates {
  return { jobReadyPods: gates.enabled("JobReadyPods"), jobTrackingWithFinalizers: gates.enabled("JobTrackingWithFinalizers") };
}

/**
 * The Job controller's row of the controller table: `--concurrent-job-syncs` (at least 1) workers
 * over the shared Job and Pod informers; Events through the event client (delivery failures logged
 * at `-v=2`).
 * @see cmd/kube-controller-manager/app/batch.go (startJobController)
 */
export const jobControllerInitializer = {
  name: "job",
  clientName: "job-controller",
  flags: {
    section: "Job controller",
    table: jobControllerFlagTable,
    validate: (v) => (v.concurrentJobSyncs < 1 ? ["--concurrent-job-syncs must be at least 1"] : []),
  },
  start(ctx) {
    const gates = jobSyncGates(ctx.featureGates);
    const recorder = newClientEventRecorder(ctx.eventClient, jobControllerComponent, (e) => {
      if (ctx.options.verbosity >= 2) ctx.log(`event: ${e instanceof Error ? e.message : String(e)}`);
    });
    const controller = new JobController({
      client: ctx.client,
      gates,
      recorder,
      concurrentSyncs: ctx.options.concurrentJobSyncs,
      jobInformer: ctx.informerFactory.informerFor(ctx.informerClient.jobs),
      podInformer: ctx.informerFactory.informerFor(ctx.informerClient.pods),
      log: ctx.log,
      // SKIFF_TRACE_FILE: per-pod spans (see @skiff/apimachinery's trace module).
      tracer: tracerFromEnv("job-controller"),
    });
    const started = controller.run().then(() => ctx.log(`job controller started (JobReadyPods=${String(gates.jobReadyPods)}, JobTrackingWithFinalizers=${String(gates.jobTrackingWithFinalizers)})`));
    return { started, stop: () => controller.stop() };
  },
} satisfies ControllerInitializer<JobControllerOptionValues>;
