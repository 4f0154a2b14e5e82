import { describe, expect, it } from "vitest";
import { EventWindow } from "./event-window.js";

const ev = (revision: number, recordedAt: number, bytes = 10) => ({ revision, recordedAt, bytes });
const revisions = (w: EventWindow<ReturnType<typeof ev>>, from = 0): number[] => {
  const out: number[] = [];
  w.forEachSince(from, (e) => out.push(e.revision));
  return out;
};

describe("EventWindow (1.23's watchCache sizing)", () => {
  it("does not grow for a burst while no watch has missed it lately", () => {
    const w = new EventWindow({ lowerBound: 4, upperBound: 16, eventFreshMs: 1000 });
    for (let r = 1; r <= 10; r++) w.add(ev(r, r));
    expect(w.capacity).toBe(4);
    w.noteMiss(10);
    for (let r = 11; r <= 20; r++) w.add(ev(r, r));
    expect(w.capacity).toBe(16);
    const late = new EventWindow({ lowerBound: 4, upperBound: 16, eventFreshMs: 1000 });
    late.noteMiss(0);
    for (let r = 1; r <= 10; r++) late.add(ev(r, 5000 + r)); // the miss is 5 s old: no growth
    expect(late.capacity).toBe(4);
  });

  it("doubles while full of events younger than the fresh duration, up to the upper bound, once a watch has missed it", () => {
    const w = new EventWindow({ lowerBound: 4, upperBound: 16, eventFreshMs: 1000 });
    w.noteMiss(0);
    for (let r = 1; r <= 40; r++) w.add(ev(r, r));
    expect(w.capacity).toBe(16);
    expect(w.size).toBe(16);
    expect(revisions(w)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
    expect(w.start).toBe(24);
  });

  it("keeps its capacity and drops the oldest when the oldest event is stale", () => {
    const w = new EventWindow({ lowerBound: 4, upperBound: 16, eventFreshMs: 1000 });
    // One event every 400 ms: a full window of 4 spans 1.2 s, so its oldest is stale on the next.
    for (let r = 1; r <= 10; r++) w.add(ev(r, r * 400));
    expect(w.capacity).toBe(4);
    expect(revisions(w)).toEqual([7, 8, 9, 10]);
    expect(w.start).toBe(6);
  });

  it("halves, keeping the newest events, when the event a quarter from the newest is stale", () => {
    const w = new EventWindow({ lowerBound: 2, upperBound: 64, eventFreshMs: 1000 });
    w.noteMiss(0);
    for (let r = 1; r <= 8; r++) w.add(ev(r, r)); // a burst: grows to 8
    expect(w.capacity).toBe(8);
    w.add(ev(9, 10_000)); // full, and revision 7 (8 - 8/4 + 1) is stale: halve to 4
    expect(w.capacity).toBe(4);
    expect(revisions(w)).toEqual([6, 7, 8, 9]);
    expect(w.start).toBe(5);
  });

  it("drops the oldest events beyond maxBytes whatever the capacity", () => {
    const w = new EventWindow({ lowerBound: 100, maxBytes: 50 });
    for (let r = 1; r <= 10; r++) w.add(ev(r, r, 20));
    expect(w.bytes).toBeLessThanOrEqual(50);
    expect(revisions(w)).toEqual([9, 10]);
    expect(w.start).toBe(8);
  });

  it("finds the events after a revision by binary search, across the cut-off prefix", () => {
    const w = new EventWindow({ lowerBound: 2000, upperBound: 2000 });
    for (let r = 1; r <= 5000; r += 2) w.add(ev(r, 0, 1)); // odd revisions, 2500 of them
    expect(w.size).toBe(2000);
    expect(revisions(w, 4995)).toEqual([4997, 4999]);
    expect(revisions(w, 4996)).toEqual([4997, 4999]);
    expect(revisions(w, 0)).toHaveLength(2000);
    expect(revisions(w, 0)[0]).toBe(1001);
    expect(revisions(w, 9999)).toEqual([]);
  });

  it("advances its start for a compaction and resets empty", () => {
    const w = new EventWindow({ lowerBound: 10 });
    for (let r = 1; r <= 5; r++) w.add(ev(r, r));
    w.advanceStart(3);
    expect(revisions(w)).toEqual([4, 5]);
    expect(w.start).toBe(3);
    w.advanceStart(2);
    expect(w.start).toBe(3);
    w.reset(9);
    expect(w.size).toBe(0);
    expect(w.bytes).toBe(0);
    expect(w.start).toBe(9);
  });
});

describe("EventWindow.trimStale", () => {
  it("gives back a burst's events once they are stale, keeping the lower bound, and shrinks the capacity", () => {
    const w = new EventWindow({ lowerBound: 4, upperBound: 64, eventFreshMs: 1000 });
    w.noteMiss(0);
    for (let r = 1; r <= 40; r++) w.add(ev(r, r));
    expect(w.capacity).toBe(64);
    w.trimStale(500); // nothing stale yet
    expect(w.size).toBe(40);
    w.trimStale(5000);
    expect(revisions(w)).toEqual([37, 38, 39, 40]);
    expect(w.capacity).toBe(4);
    expect(w.start).toBe(36);
    w.add(ev(41, 5001));
    expect(revisions(w)).toEqual([38, 39, 40, 41]);
  });
});

describe("EventWindow.trimStale after a burst", () => {
  it("goes back to the lower bound once no event has come for idleMs, even while the events are fresh", () => {
    const w = new EventWindow({ lowerBound: 4, upperBound: 64, eventFreshMs: 75_000, idleMs: 10_000 });
    w.noteMiss(1000);
    for (let r = 1; r <= 40; r++) w.add(ev(r, 1000 + r));
    w.trimStale(5_000);
    expect(w.size).toBe(40);
    w.trimStale(12_000);
    expect(revisions(w)).toEqual([37, 38, 39, 40]);
    expect(w.capacity).toBe(4);
  });
});
