import { describe, expect, it } from "vitest";
import { JobCompletionIndexAnnotation } from "@skiff/api-types";
import type { Job } from "@skiff/api-types";
import { jobBackoffMs } from "./backoff.js";
import { ControllerExpectations, FinalizerExpectations, expectationsTimeoutMs } from "./expectations.js";
import { calculateSucceededIndexes, duplicatedIndexPodsForRemoval, firstPendingIndexes, getCompletionIndex, podGenerateNameWithIndex, withCompletionIndexEnv } from "./indexed-job.js";
import { makeJob, makePod } from "./internal/fake-sync.js";
import { compareActivePodsForDeletion } from "./pod-utils.js";
import { cleanUncountedPodsWithoutFinalizers } from "./tracking.js";
import { jobFinishTimeMs, ttlTimeLeftMs } from "../ttlafterfinished/ttl-after-finished-controller.js";

describe("jobBackoffMs", () => {
  it("is 0, then 10 s doubling, capped at 6 minutes", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => jobBackoffMs(n) / 1000)).toEqual([0, 10, 20, 40, 80, 160, 320, 360, 360, 360]);
    expect(jobBackoffMs(-1)).toBe(0);
    expect(jobBackoffMs(Number.NaN)).toBe(0);
  });
});

describe("ControllerExpectations", () => {
  it("blocks until every expected add/delete is observed, or the record expires", () => {
    let now = 0;
    const e = new ControllerExpectations(() => now);
    expect(e.satisfied("a")).toBe(true);
    e.expectCreations("a", 2);
    expect(e.satisfied("a")).toBe(false);
    e.creationObserved("a");
    expect(e.satisfied("a")).toBe(false);
    e.creationObserved("a");
    expect(e.satisfied("a")).toBe(true);
    e.expectDeletions("a", 1);
    expect(e.satisfied("a")).toBe(false);
    now += expectationsTimeoutMs + 1;
    expect(e.satisfied("a")).toBe(true);
    e.expectCreations("a", 3);
    e.lowerCreations("a", 3);
    expect(e.get("a")).toEqual({ add: 0, del: 0 });
    e.delete("a");
    expect(e.get("a")).toBeUndefined();
    e.creationObserved("missing"); // no record: no-op
  });

  it("FinalizerExpectations tracks UIDs per Job", () => {
    const f = new FinalizerExpectations();
    f.expectFinalizersRemoved("a", ["u1", "u2"]);
    f.finalizerRemovalObserved("u1");
    f.finalizerRemovalObserved("unknown");
    expect([...f.expectedUids("a")]).toEqual(["u2"]);
    f.delete("a");
    expect(f.expectedUids("a").size).toBe(0);
  });
});

describe("indexed-job", () => {
  it("parses the completion index annotation strictly", () => {
    const withIx = (v: string) => ({ metadata: { annotations: { [JobCompletionIndexAnnotation]: v } } });
    expect(getCompletionIndex(withIx("3"))).toBe(3);
    expect(getCompletionIndex(withIx("-1"))).toBe(-1);
    expect(getCompletionIndex(withIx("x"))).toBe(-1);
    expect(getCompletionIndex(withIx(""))).toBe(-1);
    expect(getCompletionIndex(withIx("1e3"))).toBe(-1);
    expect(getCompletionIndex({})).toBe(-1);
  });

  it("picks the lowest indexes neither succeeded nor held", () => {
    const held = [makePod("Running", { index: 1 }), makePod("Running", { index: 4 })];
    expect(firstPendingIndexes(held, [{ first: 0, last: 0 }, { first: 2, last: 3 }], 3, 8)).toEqual([5, 6, 7]);
    expect(firstPendingIndexes(held, [], 2, 3)).toEqual([0, 2]);
    expect(firstPendingIndexes([], [{ first: 0, last: 9 }], 5, 10)).toEqual([]);
    expect(firstPendingIndexes([], [], 0, 10)).toEqual([]);
  });

  it("merges succeeded pod indexes into the status' completedIndexes (lenient)", () => {
    const job = makeJob({ completions: 10, completionMode: "Indexed" }, { completedIndexes: "0-2,junk,9" });
    const r = calculateSucceededIndexes(job, [makePod("Succeeded", { index: 4 }), makePod("Succeeded", { index: 3 }), makePod("Running", { index: 5 }), makePod("Succeeded", { index: 12 })], true);
    expect(r.prev).toEqual([{ first: 0, last: 2 }, { first: 9, last: 9 }]);
    expect(r.next).toEqual([{ first: 0, last: 4 }, { first: 9, last: 9 }]);
  });

  it("keeps the most valuable pod of a duplicated index", () => {
    const ready = makePod("Running", { index: 0, ready: true });
    const pending = makePod("Pending", { index: 0 });
    const { rm, left } = duplicatedIndexPodsForRemoval([pending, ready], 2);
    expect(rm).toEqual([pending]);
    expect(left).toEqual([ready]);
  });

  it("orders active pods for deletion as 1.23's ActivePods", () => {
    const pending = makePod("Pending");
    const running = makePod("Running");
    const ready = makePod("Running", { ready: true });
    const restarts = makePod("Running", { restarts: 5 });
    expect([ready, running, pending].sort(compareActivePodsForDeletion)).toEqual([pending, running, ready]);
    expect([running, restarts].sort(compareActivePodsForDeletion)[0]).toBe(restarts);
  });

  it("shortens generateName to 58 characters and adds JOB_COMPLETION_INDEX once", () => {
    expect(podGenerateNameWithIndex("pi", 3)).toBe("pi-3-");
    const long = "a".repeat(63);
    const g = podGenerateNameWithIndex(long, 12345);
    expect(g).toHaveLength(58);
    expect(g.endsWith("-12345-")).toBe(true);
    const t = withCompletionIndexEnv({ spec: { containers: [{ name: "a" }, { name: "b", env: [{ name: "JOB_COMPLETION_INDEX", value: "x" }] }], initContainers: [{ name: "i" }] } });
    expect(t.spec?.containers[0]?.env?.[0]?.name).toBe("JOB_COMPLETION_INDEX");
    expect(t.spec?.containers[1]?.env).toEqual([{ name: "JOB_COMPLETION_INDEX", value: "x" }]);
    expect(t.spec?.initContainers?.[0]?.env).toHaveLength(1);
  });
});

describe("cleanUncountedPodsWithoutFinalizers", () => {
  it("moves UIDs without a finalizer into the counters, keeps the rest", () => {
    const s: NonNullable<Job["status"]> = { succeeded: 1, failed: 0, uncountedTerminatedPods: { succeeded: ["a", "b"], failed: ["c"] } };
    expect(cleanUncountedPodsWithoutFinalizers(s, new Set(["b"]))).toBe(true);
    expect(s).toEqual({ succeeded: 2, failed: 1, uncountedTerminatedPods: { succeeded: ["b"], failed: [] } });
    expect(cleanUncountedPodsWithoutFinalizers(s, new Set(["b"]))).toBe(false);
  });
});

describe("TTL-after-finished timing", () => {
  const finished = (ttl: number | undefined, at = "2026-01-01T00:00:00Z", type = "Complete"): Job => makeJob({ ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}) }, { conditions: [{ type, status: "True", lastTransitionTime: at }] });
  const at = Date.parse("2026-01-01T00:00:00Z");
  it("expires ttl seconds after the finish condition; 0 at once; none without ttl or while running", () => {
    expect(jobFinishTimeMs(finished(1))).toBe(at);
    expect(ttlTimeLeftMs(finished(100), at + 40_000)).toBe(60_000);
    expect(ttlTimeLeftMs(finished(0, undefined, "Failed"), at)).toBe(0);
    expect(ttlTimeLeftMs(finished(undefined), at)).toBeUndefined();
    expect(ttlTimeLeftMs(makeJob({ ttlSecondsAfterFinished: 0 }), at)).toBeUndefined();
    const deleting = finished(0);
    (deleting.metadata ??= {}).deletionTimestamp = "2026-01-01T00:00:00Z";
    expect(ttlTimeLeftMs(deleting, at)).toBeUndefined();
  });
});
