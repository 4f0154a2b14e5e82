import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { exactRange, prefixRange } from "./keys.js";
import { SqliteEngine, narrowRangeEventsSQL, rangeEventsSQL } from "./sqlite-engine.js";

// An in-memory SQLite database: the engine's statements and query plans are the same as on a file.
function engineWithLog(): SqliteEngine {
  const e = new SqliteEngine(new Database(":memory:"));
  const revs = new Map<string, number>();
  for (let i = 0; i < 40; i++) {
    // pods p0..p3 updated in turn, an event between each
    const pod = `/registry/pods/default/p${String(i % 4)}`;
    const r = e.commit(pod, JSON.stringify({ i }), revs.get(pod) ?? 0);
    if (!r.ok) throw new Error("commit refused");
    revs.set(pod, r.change.revision);
    e.commit(`/registry/events/default/e${String(i)}`, JSON.stringify({ i }), 0);
  }
  return e;
}

describe("SqliteEngine.readEvents", () => {
  it("pages a prefix in revision order with previous values, skipping other prefixes", () => {
    const e = engineWithLog();
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const rows = e.readEvents(prefixRange("/registry/pods/"), after, 7);
      if (rows.length === 0) break;
      for (const r of rows) {
        expect(r.key.startsWith("/registry/pods/")).toBe(true);
        const i = (JSON.parse(r.value ?? "{}") as { i: number }).i;
        seen.push(i);
        expect(r.prevValue === null ? undefined : (JSON.parse(r.prevValue) as { i: number }).i).toBe(i >= 4 ? i - 4 : undefined);
      }
      after = rows.at(-1)?.revision ?? after;
    }
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it("reads one key's versions only, in order", () => {
    const e = engineWithLog();
    const rows = e.readEvents(exactRange("/registry/pods/default/p1"), 0, 100);
    expect(rows.map((r) => (JSON.parse(r.value ?? "{}") as { i: number }).i)).toEqual([1, 5, 9, 13, 17, 21, 25, 29, 33, 37]);
    expect(e.readEvents(exactRange("/registry/pods/default/p1"), rows[4]?.revision ?? 0, 2).map((r) => r.revision)).toEqual([rows[5]?.revision, rows[6]?.revision]);
  });

  it("reads a prefix page from the log's revision order, without sorting the prefix's every row (a catch-up page costs its rows, not the prefix's)", () => {
    // The query plan is the contract here: with SQLite on the (key, revision) index plus a temp
    // B-tree sort, each 256-row page read every version of every pod, and 1,000 node watches
    // catching up took most of an apiserver's CPU (issue 20, session 16).
    const db = new Database(":memory:");
    new SqliteEngine(db);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${rangeEventsSQL}`)
      .all(0, "/registry/pods/", "/registry/pods0", 256) as { detail: string }[];
    expect(plan.map((p) => p.detail).join("; ")).not.toMatch(/TEMP B-TREE|log_key_revision/);
  });

  it("reads a range with few versions from the index, so catching up one namespace's ConfigMaps after thousands of pod writes does not read them all", () => {
    // Session 17 (issue 20): each hollow node's ConfigMap watch that missed the watch cache's
    // window caught up through the log-order plan, reading every row written since, of any key.
    const e = new SqliteEngine(new Database(":memory:"));
    const cm = e.commit("/registry/configmaps/default/kube-root-ca.crt", JSON.stringify({ v: 1 }), 0);
    if (!cm.ok) throw new Error("commit refused");
    const start = cm.change.revision;
    for (let i = 0; i < 5000; i++) e.commit(`/registry/pods/default/p${String(i)}`, JSON.stringify({ i }), 0);
    const cm2 = e.commit("/registry/configmaps/default/kube-root-ca.crt", JSON.stringify({ v: 2 }), start);
    if (!cm2.ok) throw new Error("commit refused");
    const configMaps = prefixRange("/registry/configmaps/default/");
    expect(e.eventsPlan(configMaps, 0)).toBe("index");
    expect(e.eventsPlan(prefixRange("/registry/pods/"), 0)).toBe("log");
    // Near the end of the log, its last rows are fewer than the range's versions: read them in order.
    expect(e.eventsPlan(prefixRange("/registry/pods/"), cm2.change.revision - 10)).toBe("log");
    expect(e.eventsPlan(exactRange("/registry/pods/default/p1"), 0)).toBe("key");
    // Both plans read the same changes.
    const read = (after: number) => e.readEvents(configMaps, after, 10).map((r) => [r.revision, r.value, r.prevValue]);
    expect(read(0)).toEqual([
      [start, JSON.stringify({ v: 1 }), null],
      [cm2.change.revision, JSON.stringify({ v: 2 }), JSON.stringify({ v: 1 })],
    ]);
    expect(read(start)).toEqual([[cm2.change.revision, JSON.stringify({ v: 2 }), JSON.stringify({ v: 1 })]]);
    expect(read(cm2.change.revision)).toEqual([]);
    const pods = e.readEvents(prefixRange("/registry/pods/"), start + 4990, 100);
    expect(pods.map((r) => r.key)).toEqual(Array.from({ length: 10 }, (_, i) => `/registry/pods/default/p${String(4990 + i)}`));
  });

  it("plans the narrow range read on the (key, revision) index", () => {
    const db = new Database(":memory:");
    new SqliteEngine(db);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${narrowRangeEventsSQL}`)
      .all("/registry/configmaps/default/", "/registry/configmaps/default0", 0, 256) as { detail: string }[];
    expect(plan.map((p) => p.detail).join("; ")).toMatch(/SEARCH l USING (COVERING )?INDEX log_key_revision \(key>\? AND key<\?\)/);
  });
});
