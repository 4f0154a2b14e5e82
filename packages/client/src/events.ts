/**
 * Event recording as client-go's legacy (`v1` Event) recorder: every event passes an
 * {@link EventCorrelator} (spam filter, aggregation of similar events, de-duplication into a
 * counted event) before it is created or patched through the API. So an agent that records the
 * same warning at every sync writes one Event whose `count` and `lastTimestamp` grow, and a Job
 * creating hundreds of pods writes at most 25 events about the Job, the later ones combined.
 *
 * @see staging/src/k8s.io/client-go/tools/record/events_cache.go in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/client-go/tools/record/event.go (recordToSink, recordEvent, makeEvent)
 */

import type { Event } from "@skiff/api-types";
import { isNotFound } from "@skiff/apimachinery";
import type { Clock } from "./clock.js";
import type { KubeObject } from "./resource-client.js";
import { TokenBucketRateLimiter } from "./token-bucket.js";

/** Entries kept by each of the correlator's caches (client-go's `maxLruCacheEntries`). */
const maxLruCacheEntries = 4096;
/** Similar events (differing only by message) seen this many times within the interval are aggregated. */
const defaultAggregateMaxEvents = 10;
/** The aggregation interval, in seconds. */
const defaultAggregateIntervalSeconds = 600;
/** Events a source may send about one object at once. */
const defaultSpamBurst = 25;
/** Refill rate of that budget: one event every 5 minutes, in events per second. */
const defaultSpamQPS = 1 / 300;
/** Events waiting to be written; beyond this, new events are dropped (client-go's `maxQueuedEvents`). */
const maxQueuedEvents = 1000;

/** A small least-recently-used map (`groupcache/lru`): `get` refreshes an entry, `add` evicts the oldest beyond `size`. */
class LruCache<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }
  add(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** The fields of an Event the correlator keys on. */
function sourceObjectKey(e: Event): string[] {
  const o = e.involvedObject ?? {};
  return [e.source?.component ?? "", e.source?.host ?? "", o.kind ?? "", o.namespace ?? "", o.name ?? "", o.uid ?? "", o.apiVersion ?? ""];
}

/** client-go's `getEventKey`: source, involved object (with field path), type, reason, message. */
function eventKey(e: Event): string {
  const o = e.involvedObject ?? {};
  return [e.source?.component ?? "", e.source?.host ?? "", o.kind ?? "", o.namespace ?? "", o.name ?? "", o.fieldPath ?? "", o.uid ?? "", o.apiVersion ?? "", e.type ?? "", e.reason ?? "", e.message ?? ""].join("");
}

/** client-go's `getSpamKey`: source and involved object. */
function spamKey(e: Event): string {
  return sourceObjectKey(e).join("");
}

/** client-go's `EventAggregatorByReasonFunc`: the aggregate key (all but the message) and the local key (the message). */
function aggregatorKeys(e: Event): [aggregateKey: string, localKey: string] {
  return [[...sourceObjectKey(e), e.type ?? "", e.reason ?? "", e.reportingComponent ?? "", e.reportingInstance ?? ""].join(""), e.message ?? ""];
}

/** RFC 3339 with whole seconds, as `metav1.Time` serializes. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** What {@link EventCorrelator.correlate} decided for one event. */
export interface EventCorrelateResult {
  /** The event to write: a new one (count 1), or the earlier one's name with a higher count. */
  readonly event: Event;
  /** When set, the event exists already: patch it with this merge patch (count, lastTimestamp, message) instead of creating it. */
  readonly patch?: { readonly count: number; readonly lastTimestamp: string; readonly message: string };
  /** True when the spam filter dropped the event: write nothing. */
  readonly skip: boolean;
}

/** Options of {@link EventCorrelator}; the defaults are client-go's. */
export interface EventCorrelatorOptions {
  /** Wall-clock time in milliseconds since the epoch. @defaultValue Date.now */
  readonly now?: () => number;
  /** Events a source may burst about one object. @defaultValue 25 */
  readonly spamBurst?: number;
  /** Refill rate of that burst, events per second. @defaultValue 1/300 */
  readonly spamQPS?: number;
  /** Distinct messages of similar events before they are combined. @defaultValue 10 */
  readonly aggregateMaxEvents?: number;
  /** Seconds after which a similar event no longer counts toward aggregation. @defaultValue 600 */
  readonly aggregateIntervalSeconds?: number;
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastMs: number;
}

interface EventLog {
  count: number;
  firstTimestamp: string;
  name: string;
}

/**
 * client-go's `EventCorrelator`: filters spam (a token bucket per source and object), aggregates
 * similar events (10 distinct messages for one source, object, type and reason within 10 minutes
 * become one event `(combined from similar events): <message>`), and de-duplicates identical
 * events into one with a growing `count`. Pure bookkeeping: it writes nothing itself.
 * @see staging/src/k8s.io/client-go/tools/record/events_cache.go (NewEventCorrelator) in kubernetes/kubernetes v1.23
 */
export class EventCorrelator {
  private readonly now: () => number;
  private readonly spamBurst: number;
  private readonly spamQPS: number;
  private readonly maxEvents: number;
  private readonly intervalMs: number;
  private readonly spam = new LruCache<TokenBucketRateLimiter>(maxLruCacheEntries);
  private readonly aggregates = new LruCache<AggregateRecord>(maxLruCacheEntries);
  private readonly logs = new LruCache<EventLog>(maxLruCacheEntries);
  private readonly spamClock: Clock;

  constructor(options: EventCorrelatorOptions = {}) {
    this.now = options.now ?? Date.now;
    this.spamBurst = options.spamBurst ?? defaultSpamBurst;
    this.spamQPS = options.spamQPS ?? defaultSpamQPS;
    this.maxEvents = options.aggregateMaxEvents ?? defaultAggregateMaxEvents;
    this.intervalMs = (options.aggregateIntervalSeconds ?? defaultAggregateIntervalSeconds) * 1000;
    const now = this.now;
    this.spamClock = { now, setTimer: () => () => undefined };
  }

  /**
   * Correlates a new event (count 1, fresh name and timestamps, as the recorder makes it).
   * Returns the event to write, whether it updates an earlier one, or that it is spam.
   */
  correlate(newEvent: Event): EventCorrelateResult {
    const aggregated = this.aggregate(newEvent);
    const observed = this.observe(aggregated.event, aggregated.key);
    if (this.isSpam(observed.event)) return { event: observed.event, skip: true };
    return observed.patch ? { event: observed.event, patch: observed.patch, skip: false } : { event: observed.event, skip: false };
  }

  /**
   * Records what the server answered for a written event (its name, count and first timestamp),
   * so the next identical event patches it. client-go's `UpdateState`.
   */
  updateState(written: Event): void {
    this.logs.add(eventKey(written), { count: written.count ?? 1, firstTimestamp: written.firstTimestamp ?? "", name: written.metadata?.name ?? "" });
  }

  private isSpam(e: Event): boolean {
    const key = spamKey(e);
    let limiter = this.spam.get(key);
    if (!limiter) limiter = new TokenBucketRateLimiter({ qps: this.spamQPS, burst: this.spamBurst, clock: this.spamClock });
    const accepted = limiter.tryAccept();
    this.spam.add(key, limiter);
    return !accepted;
  }

  private aggregate(e: Event): { event: Event; key: string } {
    const nowMs = this.now();
    const [aggregateKey, localKey] = aggregatorKeys(e);
    let record = this.aggregates.get(aggregateKey);
    if (!record || nowMs - record.lastMs > this.intervalMs) record = { localKeys: new Set(), lastMs: 0 };
    record.localKeys.add(localKey);
    record.lastMs = nowMs;
    this.aggregates.add(aggregateKey, record);
    if (record.localKeys.size < this.maxEvents) return { event: e, key: eventKey(e) };
    // Keep the set at its maximum: drop one key (Go's PopAny takes an arbitrary one).
    record.localKeys.delete(record.localKeys.values().next().value as string);
    const t = rfc3339(nowMs);
    const combined: Event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${e.involvedObject?.name ?? ""}.${(BigInt(nowMs) * 1_000_000n).toString(16)}`, namespace: e.metadata?.namespace ?? "default" },
      involvedObject: e.involvedObject,
      ...(e.type !== undefined ? { type: e.type } : {}),
      ...(e.reason !== undefined ? { reason: e.reason } : {}),
      message: `(combined from similar events): ${e.message ?? ""}`,
      ...(e.source !== undefined ? { source: e.source } : {}),
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      ...(e.reportingComponent !== undefined ? { reportingComponent: e.reportingComponent } : {}),
      ...(e.reportingInstance !== undefined ? { reportingInstance: e.reportingInstance } : {}),
    };
    return { event: combined, key: aggregateKey };
  }

  private observe(e: Event, key: string): { event: Event; patch?: EventCorrelateResult["patch"] } {
    const last = this.logs.get(key);
    let event = e;
    let patch: EventCorrelateResult["patch"];
    if (last && last.count > 0) {
      event = { ...e, metadata: { ...e.metadata, name: last.name }, firstTimestamp: last.firstTimestamp, count: last.count + 1 };
      patch = { count: last.count + 1, lastTimestamp: e.lastTimestamp ?? rfc3339(this.now()), message: e.message ?? "" };
    }
    this.logs.add(key, { count: event.count ?? 1, firstTimestamp: event.firstTimestamp ?? "", name: event.metadata?.name ?? "" });
    return patch ? { event, patch } : { event };
  }
}

/** Where a recorder writes events: a client's `events` resource (create and merge-patch). */
export interface EventSink {
  create(event: Event, options: { readonly namespace: string }): Promise<Event>;
  patch(name: string, patch: unknown, options: { readonly namespace: string }): Promise<Event>;
}

/** The reporting source of a recorder's events. */
export interface EventSource {
  /** `source.component`, such as `job-controller`, `default-scheduler`, `nodeagent`. */
  readonly component: string;
  /** `source.host`: the node name for node agents. */
  readonly host?: string;
}

/** Records one event about an object; never throws and never waits for the write. */
export type RecordEventFunc = (obj: KubeObject, type: "Normal" | "Warning", reason: string, message: string) => void;

/** Options of {@link createEventRecorder}. */
export interface EventRecorderOptions extends EventCorrelatorOptions {
  /** Called with a write that failed or an event dropped because too many were queued. @defaultValue ignores them */
  readonly onError?: (err: unknown, event: Event) => void;
}

let lastEventNanos = 0n;

/**
 * client-go names events `<object>.<UnixNano in hex>`. JS clocks give milliseconds, so the
 * sub-millisecond part comes from the monotonic clock, and a per-process counter keeps two
 * events in the same nanosecond (or a clock step back) from colliding.
 */
function eventNameSuffix(nowMs: number): string {
  let nanos = BigInt(nowMs) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  if (nanos <= lastEventNanos) nanos = lastEventNanos + 1n;
  lastEventNanos = nanos;
  return nanos.toString(16);
}

/**
 * A new `v1` Event about `obj`, as client-go's `makeEvent`: name `<object>.<hex ns time>`, in
 * the object's namespace (`default` for cluster-scoped objects), count 1, both timestamps now.
 * @see staging/src/k8s.io/client-go/tools/record/event.go (makeEvent, generateEvent)
 */
export function makeEvent(obj: KubeObject, type: "Normal" | "Warning", reason: string, message: string, source: EventSource, nowMs: number = Date.now()): Event {
  const meta = obj.metadata ?? {};
  const now = rfc3339(nowMs);
  const namespace = meta.namespace || "default";
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${meta.name ?? "unknown"}.${eventNameSuffix(nowMs)}`, namespace },
    involvedObject: {
      ...(obj.apiVersion !== undefined ? { apiVersion: obj.apiVersion } : {}),
      ...(obj.kind !== undefined ? { kind: obj.kind } : {}),
      ...(meta.name !== undefined ? { name: meta.name } : {}),
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      ...(meta.uid !== undefined ? { uid: meta.uid } : {}),
      ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
    },
    type,
    reason,
    message,
    source: { component: source.component, ...(source.host !== undefined ? { host: source.host } : {}) },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: source.component,
    reportingInstance: source.host ?? "",
  };
}

/**
 * An event recorder writing through `sink` (give it its own client, so events do not eat the
 * component's request budget). Each event is correlated first: spam is dropped, a repeat patches
 * the earlier Event's `count`, `lastTimestamp` and `message`, and a patch that finds the Event
 * gone creates it again, as client-go's `recordToSink`. Writes of one correlated event are kept
 * in order; at most 1,000 wait at once (more are dropped and reported to `onError`).
 * @see staging/src/k8s.io/client-go/tools/record/event.go (recordToSink, recordEvent) in kubernetes/kubernetes v1.23
 */
export function createEventRecorder(sink: EventSink, source: EventSource, options: EventRecorderOptions = {}): RecordEventFunc {
  const correlator = new EventCorrelator(options);
  const onError = options.onError ?? (() => undefined);
  const now = options.now ?? Date.now;
  // Writes for one event name run in order, so a repeat patches only after its create answered.
  const chains = new Map<string, Promise<void>>();
  let queued = 0;

  async function write(result: EventCorrelateResult): Promise<void> {
    const event = result.event;
    const namespace = event.metadata?.namespace ?? "default";
    try {
      let written: Event | undefined;
      if (result.patch) {
        try {
          written = await sink.patch(event.metadata?.name ?? "", result.patch, { namespace });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      if (!written) {
        const { resourceVersion: _rv, ...metadata } = event.metadata ?? {};
        written = await sink.create({ ...event, metadata }, { namespace });
      }
      correlator.updateState(written);
    } catch (err) {
      onError(err, event);
    }
  }

  return (obj, type, reason, message) => {
    const result = correlator.correlate(makeEvent(obj, type, reason, message, source, now()));
    if (result.skip) return;
    if (queued >= maxQueuedEvents) {
      onError(new Error(`dropping event ${reason}: ${maxQueuedEvents} events are already waiting to be written`), result.event);
      return;
    }
    queued++;
    const name = `${result.event.metadata?.namespace ?? ""}/${result.event.metadata?.name ?? ""}`;
    const next = (chains.get(name) ?? Promise.resolve()).then(() => write(result));
    chains.set(name, next);
    void next.finally(() => {
      queued--;
      if (chains.get(name) === next) chains.delete(name);
    });
  };
}
