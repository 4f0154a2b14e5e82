import { describe, expect, it } from "vitest";
import { OwnWrites } from "./own-writes.js";

const job = (uid: string, rv: string, succeeded: number) => ({ metadata: { uid, resourceVersion: rv }, status: { succeeded } });

describe("OwnWrites", () => {
  it("prefers the controller's own newer write until the informer shows it", () => {
    const w = new OwnWrites<ReturnType<typeof job>>();
    const stale = job("u", "10", 1);
    expect(w.newest("default/j", stale)).toBe(stale);
    w.record("default/j", job("u", "12", 2));
    expect(w.newest("default/j", stale).status.succeeded).toBe(2);
    const caughtUp = job("u", "12", 2);
    expect(w.newest("default/j", caughtUp)).toBe(caughtUp);
    expect(w.size).toBe(0);
  });

  it("never prefers a write of another object (recreated Job) or a non-numeric version", () => {
    const w = new OwnWrites<ReturnType<typeof job>>();
    w.record("default/j", job("old", "20", 5));
    const recreated = job("new", "15", 0);
    expect(w.newest("default/j", recreated)).toBe(recreated);
    w.record("default/j", job("u", "abc", 5));
    const cached = job("u", "15", 0);
    expect(w.newest("default/j", cached)).toBe(cached);
    w.record("default/j", job("u", "30", 5));
    w.forget("default/j");
    expect(w.newest("default/j", cached)).toBe(cached);
  });
});
