/**
 * The TTL-after-finished controller: deletes a finished Job (`Complete=True` or `Failed=True`)
 * `spec.ttlSecondsAfterFinished` seconds after the condition's `lastTransitionTime` (0: as soon as
 * it is seen finished), with `propagationPolicy: Foreground` (as 1.23: the garbage collector
 * deletes its pods first, then the Job) and a UID precondition. Before deleting it re-reads the Job from the API and re-checks,
 * so a TTL raised or removed meanwhile prevents the deletion. Finalizers on the Job are honoured
 * by the apiserver (the Job lingers with a deletionTimestamp until they are gone).
 *
 * @see pkg/controller/ttlafterfinished/ttlafterfinished_controller.go
 * @see cmd/kube-controller-manager/app/batch.go (startTTLAfterFinishedController: {@link ttlAfterFinishedControllerInitializer})
 */
import type { Job } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import { RateLimitingQueue, keyOf, splitKey } from "@skiff/client";
import type { Client, Informer } from "@skiff/client";
import { flagTypes as t } from "@skiff/flags";
import type { FlagTable } from "@skiff/flags";
import type { ControllerInitializer } from "../../controller-manager.js";

/** Options of {@link TTLAfterFinishedController}. */
export interface TTLAfterFinishedControllerOptions {
  readonly client: Client;
  /** The shared Job informer (started by the caller or by the Job controller). */
  readonly jobInformer: Informer<Job>;
  /** Workers. @defaultValue 5 */
  readonly workers?: number;
  /** Clock in ms. @defaultValue Date.now */
  readonly now?: () => number;
  /** @defaultValue stderr */
  readonly log?: (message: string) => void;
}

/**
 * When the Job finished (the `lastTransitionTime` of its `Complete`/`Failed` condition with
 * status True), in ms since the epoch; `undefined` when it has not finished. Pure.
 * @see pkg/controller/ttlafterfinished/ttlafterfinished_controller.go (getFinishAndExpireTime)
 */
export function jobFinishTimeMs(job: Job): number | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === "Complete" || c.type === "Failed") && c.status === "True") {
      return c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : undefined;
    }
  }
  return undefined;
}

/**
 * Milliseconds until the Job may be deleted: `undefined` when it is not a candidate (no TTL, not
 * finished, already being deleted), `<= 0` when it has expired. Pure.
 * @see pkg/controller/ttlafterfinished/ttlafterfinished_controller.go (timeLeft, needsCleanup)
 */
export function ttlTimeLeftMs(job: Job, nowMs: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || job.metadata?.deletionTimestamp) return undefined;
  const finish = jobFinishTimeMs(job);
  if (finish === undefined || Number.isNaN(finish)) return undefined;
  return finish + ttl * 1000 - nowMs;
}

/**
 * The TTL-after-finished controller (see the module comment).
 * @example
 * const ttl = new TTLAfterFinishedController({ client, jobInformer });
 * ttl.run(); // after jobInformer.start()
 */
export class TTLAfterFinishedController {
  readonly queue = new RateLimitingQueue<string>({ name: "ttl_jobs_to_delete" });
  readonly #o: TTLAfterFinishedControllerOptions;
  readonly #now: () => number;
  readonly #log: (m: string) => void;
  #workers: Promise<void>[] = [];
  #remove: (() => void) | undefined;

  constructor(options: TTLAfterFinishedControllerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((m) => process.stderr.write(`${m}\n`));
  }

  /** Registers the handlers, waits for the Job cache and starts the workers. */
  async run(): Promise<void> {
    const enqueue = (j: Job): void => {
      if (ttlTimeLeftMs(j, this.#now()) !== undefined) this.queue.add(keyOf(j));
    };
    this.#remove = this.#o.jobInformer.addEventHandler({ onAdd: enqueue, onUpdate: (_o, j) => enqueue(j) });
    await this.#o.jobInformer.waitForSync();
    for (let i = 0; i < (this.#o.workers ?? 5); i++) this.#workers.push(this.#worker());
  }

  /** Stops the workers (in-flight deletions finish). */
  async stop(): Promise<void> {
    this.#remove?.();
    this.queue.shutDown();
    await Promise.all(this.#workers);
  }

  async #worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.processJob(key);
        this.queue.forget(key);
      } catch (e) {
        this.#log(`ttl-after-finished ${key}: ${e instanceof Error ? e.message : String(e)}`);
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /**
   * Deletes the Job `namespace/name` if its TTL has run out (checked on the cache, then on a
   * fresh read), else requeues it for when it will. Returns what it did.
   * @throws the API error of the read or delete (the worker retries with back-off)
   */
  async processJob(key: string): Promise<"deleted" | "requeued" | "skipped"> {
    const cached = this.#o.jobInformer.store.get(key);
    if (!cached) return "skipped";
    const nowMs = this.#now();
    const left = ttlTimeLeftMs(cached, nowMs);
    if (left === undefined) return "skipped";
    const finishMs = jobFinishTimeMs(cached);
    if (finishMs !== undefined && finishMs > nowMs) this.#log(`ttl-after-finished ${key}: Job finished in the future, likely clock skew in the cluster; cleanup deferred`);
    if (left > 0) {
      this.queue.addAfter(key, left);
      return "requeued";
    }
    const { namespace, name } = splitKey(key);
    let fresh: Job;
    try {
      fresh = await this.#o.client.jobs.get(name, { namespace });
    } catch (e) {
      if (isNotFound(e)) return "skipped";
      throw e;
    }
    const freshLeft = ttlTimeLeftMs(fresh, this.#now());
    if (freshLeft === undefined) return "skipped";
    if (freshLeft > 0) {
      this.queue.addAfter(key, freshLeft);
      return "requeued";
    }
    try {
      await this.#o.client.jobs.delete(name, {
        namespace,
        propagationPolicy: "Foreground",
        ...(fresh.metadata?.uid !== undefined ? { preconditions: { uid: fresh.metadata.uid } } : {}),
      });
    } catch (e) {
      if (isNotFound(e)) return "skipped";
      throw e;
    }
    return "deleted";
  }
}

/** The TTL-after-finished controller's own options (its flags). */
export interface TTLAfterFinishedOptionValues {
  concurrentTTLAfterFinishedSyncs: number;
}

/**
 * The TTL-after-finished controller's flags (kube-controller-manager's names and defaults).
 * @see cmd/kube-controller-manager/app/options/ttlafterfinishedcontroller.go
 */
export const ttlAfterFinishedFlagTable = {
  concurrentTTLAfterFinishedSyncs: {
    name: "concurrent-ttl-after-finished-syncs",
    type: t.int32,
    default: 5,
    usage: "The number of TTL-after-finished controller workers that are allowed to sync concurrently.",
  },
} satisfies FlagTable<TTLAfterFinishedOptionValues>;

/**
 * The TTL-after-finished controller's row of the controller table: `--concurrent-ttl-after-finished-syncs`
 * (at least 1) workers over the shared Job informer.
 * @see cmd/kube-controller-manager/app/batch.go (startTTLAfterFinishedController)
 */
export const ttlAfterFinishedControllerInitializer = {
  name: "ttl-after-finished",
  clientName: "ttl-after-finished-controller",
  flags: {
    section: "TTL-after-finished controller",
    table: ttlAfterFinishedFlagTable,
    validate: (v) => (v.concurrentTTLAfterFinishedSyncs < 1 ? ["--concurrent-ttl-after-finished-syncs must be at least 1"] : []),
  },
  start(ctx) {
    const controller = new TTLAfterFinishedController({
      client: ctx.client,
      jobInformer: ctx.informerFactory.informerFor(ctx.informerClient.jobs),
      workers: ctx.options.concurrentTTLAfterFinishedSyncs,
      log: ctx.log,
    });
    return { started: controller.run(), stop: () => controller.stop() };
  },
} satisfies ControllerInitializer<TTLAfterFinishedOptionValues>;
