import { describe, expect, it } from "vitest";
import { defaultTableConvertor, formatLabelSelector, humanDuration, joinOrNone, translateTimestampSince } from "./index.js";
import { parseIncludeObject, renderTable } from "./index.js";

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe("humanDuration", () => {
  it.each([
    [-2 * s, "<invalid>"],
    [-1 * s, "0s"],
    [-500, "0s"],
    [0, "0s"],
    [90 * s, "90s"],
    [119 * s, "119s"],
    [120 * s, "2m"],
    [150 * s, "2m30s"],
    [179 * m, "179m"],
    [180 * m, "3h"],
    [181 * m, "3h1m"],
    [47 * h, "47h"],
    [48 * h, "2d"],
    [50 * h, "2d2h"],
    [8 * d, "8d"],
    [400 * d, "400d"],
    [730 * d, "2y"],
    [740 * d, "2y10d"],
    [8 * 365 * d, "8y"],
    [Number.NaN, "<invalid>"],
  ])("%d ms → %s", (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe("printer helpers", () => {
  const now = new Date("2026-01-01T00:30:00Z");
  it("translateTimestampSince", () => {
    expect(translateTimestampSince(undefined, now)).toBe("<unknown>");
    expect(translateTimestampSince("", now)).toBe("<unknown>");
    expect(translateTimestampSince("garbage", now)).toBe("<unknown>");
    expect(translateTimestampSince("2026-01-01T00:00:00Z", now)).toBe("30m");
  });
  it("joinOrNone and formatLabelSelector", () => {
    expect(joinOrNone([])).toBe("<none>");
    expect(joinOrNone(undefined)).toBe("<none>");
    expect(joinOrNone(["a", "b"])).toBe("a,b");
    expect(formatLabelSelector("")).toBe("<none>");
    expect(formatLabelSelector("a=b")).toBe("a=b");
  });
});

describe("renderTable", () => {
  const now = new Date("2026-01-01T00:30:00Z");
  const obj = { apiVersion: "v1", kind: "PodTemplate", metadata: { name: "x", creationTimestamp: "2026-01-01T00:00:00Z" }, template: {} };
  it("renders NAME and AGE with PartialObjectMetadata rows by default", () => {
    const t = renderTable(defaultTableConvertor, [obj], now, { listMeta: { resourceVersion: "7", continue: "" } }) as unknown as Record<string, unknown>;
    expect(t["kind"]).toBe("Table");
    expect(t["apiVersion"]).toBe("meta.k8s.io/v1");
    expect(t["metadata"]).toEqual({ resourceVersion: "7" });
    expect((t["columnDefinitions"] as { name: string }[]).map((c) => c.name)).toEqual(["Name", "Age"]);
    expect(t["rows"]).toEqual([
      { cells: ["x", "30m"], object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata } },
    ]);
  });
  it("honours includeObject and v1beta1", () => {
    const none = renderTable(defaultTableConvertor, [obj], now, { includeObject: "None", version: "v1beta1" }) as unknown as Record<string, unknown>;
    expect(none["apiVersion"]).toBe("meta.k8s.io/v1beta1");
    expect(none["rows"]).toEqual([{ cells: ["x", "30m"] }]);
    const full = renderTable(defaultTableConvertor, [obj], now, { includeObject: "Object" }) as unknown as { rows: { object: unknown }[] };
    expect(full.rows[0]?.object).toBe(obj);
  });
  it("parseIncludeObject", () => {
    expect(parseIncludeObject(undefined)).toEqual({ ok: true, value: "Metadata" });
    expect(parseIncludeObject("Object")).toEqual({ ok: true, value: "Object" });
    expect(parseIncludeObject("bogus").ok).toBe(false);
  });
});
