import type { Event } from "@skiff/api-types";
import { StatusError } from "@skiff/apimachinery";
import { describe, expect, it } from "vitest";
import { EventCorrelator, createEventRecorder, makeEvent } from "./events.js";
import type { EventSink } from "./events.js";

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", uid: "u1" } };
const job = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j", namespace: "ns", uid: "u2" } };
const source = { component: "nodeagent", host: "node-1" };

/** A sink keeping events by name, as the apiserver would, recording each call. */
function memorySink() {
  const stored = new Map<string, Event>();
  const calls: string[] = [];
  let rv = 0;
  const sink: EventSink = {
    create(event) {
      calls.push(`create ${event.metadata?.name ?? ""}`);
      const e = { ...event, metadata: { ...event.metadata, resourceVersion: String(++rv) } };
      stored.set(e.metadata.name ?? "", e);
      return Promise.resolve(e);
    },
    patch(name, patch) {
      calls.push(`patch ${name}`);
      const old = stored.get(name);
      if (!old) return Promise.reject(new StatusError({ apiVersion: "v1", kind: "Status", metadata: {}, status: "Failure", reason: "NotFound", code: 404, message: `events "${name}" not found` }));
      const e = { ...old, ...(patch as object), metadata: { ...old.metadata, resourceVersion: String(++rv) } };
      stored.set(name, e);
      return Promise.resolve(e);
    },
  };
  return { sink, stored, calls };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe("EventCorrelator (client-go events_cache.go)", () => {
  it("counts an identical event instead of creating a new one, keeping the first name and firstTimestamp", () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const c = new EventCorrelator({ now: () => now });
    const first = c.correlate(makeEvent(pod, "Warning", "MissingClusterDNS", "no DNS", source, now));
    expect(first.patch).toBeUndefined();
    expect(first.skip).toBe(false);
    now += 30_000;
    const second = c.correlate(makeEvent(pod, "Warning", "MissingClusterDNS", "no DNS", source, now));
    expect(second.event.metadata?.name).toBe(first.event.metadata?.name);
    expect(second.event.count).toBe(2);
    expect(second.event.firstTimestamp).toBe("2026-01-01T00:00:00Z");
    expect(second.patch).toEqual({ count: 2, lastTimestamp: "2026-01-01T00:00:30Z", message: "no DNS" });
  });

  it("combines the 10th distinct message of one reason about one object into '(combined from similar events): …', then counts that", () => {
    const c = new EventCorrelator();
    const results = Array.from({ length: 12 }, (_, i) => c.correlate(makeEvent(job, "Normal", "SuccessfulCreate", `Created pod: j-${i}`, { component: "job-controller" })));
    expect(results.slice(0, 9).every((r) => r.patch === undefined && !r.event.message?.startsWith("(combined"))).toBe(true);
    expect(results[9]?.event.message).toBe("(combined from similar events): Created pod: j-9");
    expect(results[9]?.patch).toBeUndefined();
    expect(results[10]?.event.message).toBe("(combined from similar events): Created pod: j-10");
    expect(results[10]?.event.metadata?.name).toBe(results[9]?.event.metadata?.name);
    expect(results[11]?.event.count).toBe(3);
  });

  it("a different reason or object is not aggregated with others", () => {
    const c = new EventCorrelator();
    for (let i = 0; i < 9; i++) c.correlate(makeEvent(job, "Normal", "SuccessfulCreate", `m${i}`, { component: "job-controller" }));
    expect(c.correlate(makeEvent(job, "Normal", "SuccessfulDelete", "m9", { component: "job-controller" })).event.message).toBe("m9");
    expect(c.correlate(makeEvent(pod, "Normal", "SuccessfulCreate", "m9", { component: "job-controller" })).event.message).toBe("m9");
  });

  it("similar events older than the aggregation interval start a new group", () => {
    let now = 0;
    const c = new EventCorrelator({ now: () => now });
    for (let i = 0; i < 9; i++) c.correlate(makeEvent(job, "Normal", "R", `m${i}`, { component: "x" }, now));
    now += 601_000;
    expect(c.correlate(makeEvent(job, "Normal", "R", "m9", { component: "x" }, now)).event.message).toBe("m9");
  });

  it("lets a source burst 25 events about one object, then one every 5 minutes (spam filter)", () => {
    let now = 0;
    const c = new EventCorrelator({ now: () => now });
    const skipped = Array.from({ length: 30 }, (_, i) => c.correlate(makeEvent(pod, "Normal", `R${i}`, "m", source, now)).skip);
    expect(skipped.filter((s) => !s)).toHaveLength(25);
    expect(skipped.slice(25).every(Boolean)).toBe(true);
    now += 300_000;
    expect(c.correlate(makeEvent(pod, "Normal", "Later", "m", source, now)).skip).toBe(false);
    expect(c.correlate(makeEvent(pod, "Normal", "Later2", "m", source, now)).skip).toBe(true);
    // Another object has its own budget.
    expect(c.correlate(makeEvent(job, "Normal", "R", "m", source, now)).skip).toBe(false);
  });
});

describe("createEventRecorder", () => {
  it("creates the first event and patches count, lastTimestamp and message for repeats, in order", async () => {
    const { sink, stored, calls } = memorySink();
    const record = createEventRecorder(sink, source);
    record(pod, "Warning", "MissingClusterDNS", "no DNS");
    record(pod, "Warning", "MissingClusterDNS", "no DNS");
    record(pod, "Warning", "MissingClusterDNS", "no DNS");
    await settle();
    expect(calls.map((c) => c.split(" ")[0])).toEqual(["create", "patch", "patch"]);
    expect(stored.size).toBe(1);
    const e = [...stored.values()][0];
    expect(e?.count).toBe(3);
    expect(e?.involvedObject).toMatchObject({ kind: "Pod", name: "p", namespace: "ns", uid: "u1" });
    expect(e?.source).toEqual({ component: "nodeagent", host: "node-1" });
  });

  it("creates the event again when the patched one was deleted (404), as recordToSink", async () => {
    const { sink, stored, calls } = memorySink();
    const record = createEventRecorder(sink, source);
    record(pod, "Normal", "Pulled", "x");
    await settle();
    stored.clear();
    record(pod, "Normal", "Pulled", "x");
    await settle();
    expect(calls.map((c) => c.split(" ")[0])).toEqual(["create", "patch", "create"]);
    expect([...stored.values()][0]?.count).toBe(2);
    expect([...stored.values()][0]?.metadata?.resourceVersion).toBeDefined();
  });

  it("reports a write the server refused to onError and never throws", async () => {
    const errors: unknown[] = [];
    const sink: EventSink = { create: () => Promise.reject(new Error("boom")), patch: () => Promise.reject(new Error("boom")) };
    const record = createEventRecorder(sink, source, { onError: (e) => errors.push(e) });
    expect(() => record(pod, "Normal", "R", "m")).not.toThrow();
    await settle();
    expect(errors).toHaveLength(1);
  });
});
