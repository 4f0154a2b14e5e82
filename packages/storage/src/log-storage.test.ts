import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isStorageError } from "./errors.js";
import { MemoryStorage } from "./memory-storage.js";
import { openSqliteStorage } from "./sqlite-storage.js";
import type { MvccStorageOptions } from "./internal/mvcc-storage.js";
import type { StoredObject, WatchEvent, Watcher } from "./types.js";

// Behaviour shared by the two log-backed storages beyond the conformance suite: lagging watchers
// reading the log, the compaction timer, options, input validation.

interface Backend {
  name: string;
  open(options: MvccStorageOptions): Promise<MemoryStorage | Awaited<ReturnType<typeof openSqliteStorage>>>;
}

const dirs: string[] = [];
const backends: Backend[] = [
  { name: "memory", open: async (options) => new MemoryStorage(options) },
  {
    name: "sqlite",
    open: async (options) => {
      const dataDir = mkdtempSync(join(tmpdir(), "skiff-storage-"));
      dirs.push(dataDir);
      return openSqliteStorage({ dataDir, ...options });
    },
  },
];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const obj = (name: string, v = 0): StoredObject => ({ metadata: { name }, spec: { v } });

async function drain(w: Watcher, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const r = await w.next();
    if (r.done) break;
    out.push(r.value);
    if (r.value.type === "ERROR") break;
  }
  return out;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not reached");
}

describe.each(backends)("$name storage", (backend) => {
  const open = async (options: MvccStorageOptions = {}) => {
    const s = await backend.open({ compactionIntervalMs: 0, ...options });
    closers.push(() => s.close());
    return s;
  };

  it("lets a watcher whose buffer overflows catch up from the log without losing or repeating events", async () => {
    const s = await open({ watchBufferSize: 5 });
    const { revision: start } = await s.create("/r/w/seed", obj("seed"));
    const w = await s.watch("/r/w", { recursive: true, resourceVersion: start });
    const first = await s.create("/r/w/a", obj("a"));
    // Take one event while live, then fall far behind.
    expect((await drain(w, 1)).map((e) => e.type === "ADDED" && e.revision)).toEqual([first.revision]);
    for (let i = 0; i < 600; i++) await s.guaranteedUpdate("/r/w/a", (cur) => ({ ...cur, spec: { v: i + 1 } }));
    const events = await drain(w, 600);
    expect(events.map((e) => (e.type === "MODIFIED" ? e.revision : e.type))).toEqual(
      Array.from({ length: 600 }, (_, i) => first.revision + 1 + i),
    );
    const last = events[599];
    expect(last?.type === "MODIFIED" && last.object.spec).toEqual({ v: 600 });
    expect(last?.type === "MODIFIED" && last.prevObject?.spec).toEqual({ v: 599 });
    // Live again afterwards.
    const after = await s.create("/r/w/b", obj("b"));
    expect((await drain(w, 1))[0]).toMatchObject({ type: "ADDED", revision: after.revision });
  });

  it("ends a lagging watcher with ERROR ResourceVersionExpired once compaction passes it", async () => {
    const s = await open({ watchBufferSize: 3 });
    const { revision: start } = await s.create("/r/w/seed", obj("seed"));
    const w = await s.watch("/r/w", { recursive: true, resourceVersion: start });
    for (let i = 0; i < 10; i++) await s.guaranteedUpdate("/r/w/seed", (cur) => ({ ...cur, spec: { v: i + 1 } }));
    await s.compact(await s.currentRevision());
    const events = await drain(w, 20);
    expect(events).toHaveLength(1);
    const e = events[0];
    expect(e?.type).toBe("ERROR");
    expect(e?.type === "ERROR" && isStorageError(e.error, "ResourceVersionExpired")).toBe(true);
    expect((await w.next()).done).toBe(true);
    expect(s.watcherCount()).toBe(0);
  });

  it("keeps a watcher that is behind but within its buffer unaffected by compaction", async () => {
    const s = await open({ watchBufferSize: 100 });
    const { revision: start } = await s.create("/r/w/seed", obj("seed"));
    const w = await s.watch("/r/w", { recursive: true, resourceVersion: start });
    for (let i = 0; i < 10; i++) await s.guaranteedUpdate("/r/w/seed", (cur) => ({ ...cur, spec: { v: i + 1 } }));
    await s.compact(await s.currentRevision());
    const events = await drain(w, 10);
    expect(events.map((e) => e.type)).toEqual(Array(10).fill("MODIFIED"));
  });

  it("compacts on a timer, keeping retainRevisions of history", async () => {
    const s = await open({ compactionIntervalMs: 10, retainRevisions: 3 });
    for (let i = 0; i < 10; i++) await s.create(`/r/w/o${i}`, obj(`o${i}`));
    await until(async () => s.compactedRevision() === 7);
    expect((await s.list("/r/w", { resourceVersion: 7, resourceVersionMatch: "Exact" })).items).toHaveLength(7);
    await expect(s.list("/r/w", { resourceVersion: 6, resourceVersionMatch: "Exact" })).rejects.toMatchObject({ code: "ResourceVersionExpired" });
  });

  it("compacts on a timer to the revision of the previous run by default", async () => {
    const s = await open({ compactionIntervalMs: 10 });
    for (let i = 0; i < 5; i++) await s.create(`/r/w/o${i}`, obj(`o${i}`));
    await until(async () => s.compactedRevision() === 5);
    expect(await s.currentRevision()).toBe(5);
  });

  it("compacts long histories completely, in steps", async () => {
    const s = await open();
    await s.create("/r/w/a", obj("a"));
    await s.create("/r/w/gone", obj("gone"));
    for (let i = 0; i < 12_000; i++) await s.guaranteedUpdate("/r/w/a", (cur) => ({ ...cur, spec: { v: i } }));
    await s.delete("/r/w/gone");
    const current = await s.currentRevision();
    expect(await s.compact(current - 1)).toBe(current - 1);
    expect(s.compactedRevision()).toBe(current - 1);
    expect((await s.get("/r/w/a", { resourceVersion: current - 1, resourceVersionMatch: "Exact" })).spec).toEqual({ v: 11_999 });
    expect((await s.get("/r/w/gone", { resourceVersion: current - 1, resourceVersionMatch: "Exact" })).metadata?.name).toBe("gone");
    const w = await s.watch("/r/w", { recursive: true, resourceVersion: current - 1 });
    const [e] = await drain(w, 1);
    expect(e).toMatchObject({ type: "DELETED", revision: current });
    w.stop();
  });

  it("rejects bad keys and options", async () => {
    const s = await open();
    await expect(s.create("", obj("a"))).rejects.toMatchObject({ code: "InvalidError" });
    await expect(s.get("/r/w/\u0000x")).rejects.toMatchObject({ code: "InvalidError" });
    await expect(s.list("")).rejects.toMatchObject({ code: "InvalidError" });
    await expect(s.watch("/r", { allowBookmarks: true, bookmarkIntervalMs: 0 })).rejects.toMatchObject({ code: "InvalidError" });
    await expect(s.get("/r/w/a", { resourceVersion: "1", resourceVersionMatch: "Newest" as "Exact" })).rejects.toMatchObject({ code: "InvalidError" });
    await expect(s.compact(-1)).rejects.toMatchObject({ code: "InvalidError" });
    await expect(backend.open({ watchBufferSize: 0 })).rejects.toThrow(RangeError);
    await expect(backend.open({ compactionIntervalMs: -1 })).rejects.toThrow(RangeError);
    await expect(backend.open({ retainRevisions: 1.5 })).rejects.toThrow(RangeError);
  });

  it("strips a resourceVersion on update and keeps objects without metadata working", async () => {
    const s = await open();
    const c = await s.create("/r/w/plain", { spec: { v: 1 } } as StoredObject);
    expect(c.object).toEqual({ spec: { v: 1 }, metadata: { resourceVersion: String(c.revision) } });
    const u = await s.guaranteedUpdate("/r/w/plain", (cur) => ({ ...cur, spec: { v: 2 } }));
    expect(u.object.metadata).toEqual({ resourceVersion: String(u.revision) });
    // Writing back what was read (resourceVersion included) is a no-op, not a change.
    const again = await s.guaranteedUpdate("/r/w/plain", () => u.object);
    expect(again.revision).toBe(u.revision);
  });

  it("rejects values JSON cannot hold", async () => {
    const s = await open();
    const cyclic: StoredObject = { metadata: {} };
    cyclic.self = cyclic;
    await expect(s.create("/r/w/c", cyclic)).rejects.toMatchObject({ code: "InvalidObj" });
    await expect(s.create("/r/w/m", { metadata: "x" } as unknown as StoredObject)).rejects.toMatchObject({ code: "InvalidObj" });
  });

  it("starts the watch of a missing single key with no events and reports later ones", async () => {
    const s = await open();
    const w = await s.watch("/r/w/x");
    const c = await s.create("/r/w/x", obj("x"));
    expect((await drain(w, 1))[0]).toMatchObject({ type: "ADDED", revision: c.revision });
    w.stop();
    expect(s.watcherCount()).toBe(0);
  });

  it("serves overlapping next() calls in order", async () => {
    const s = await open();
    const w = await s.watch("/r/w", { recursive: true, resourceVersion: await s.currentRevision() });
    const one = w.next();
    const two = w.next();
    const a = await s.create("/r/w/a", obj("a"));
    const b = await s.create("/r/w/b", obj("b"));
    expect((await one).value).toMatchObject({ revision: a.revision });
    expect((await two).value).toMatchObject({ revision: b.revision });
    w.stop();
  });

  it("filters the initial ADDED events of a watch from \"0\" with its predicate", async () => {
    const s = await open();
    await s.create("/r/w/a", obj("a", 1));
    await s.create("/r/w/b", obj("b", 2));
    await s.create("/r/w/c", obj("c", 1));
    const w = await s.watch("/r/w", { recursive: true, predicate: (o) => (o.spec as { v: number }).v === 1 });
    const events = await drain(w, 2);
    expect(events.map((e) => e.type === "ADDED" && e.key)).toEqual(["/r/w/a", "/r/w/c"]);
    const d = await s.create("/r/w/d", obj("d", 1));
    await s.create("/r/w/e", obj("e", 2));
    expect((await drain(w, 1))[0]).toMatchObject({ type: "ADDED", revision: d.revision });
    w.stop();
  });

  it("accepts a watch from a future revision and delivers only changes after it", async () => {
    const s = await open();
    await s.create("/r/w/a", obj("a"));
    const w = await s.watch("/r/w", { recursive: true, resourceVersion: 3 });
    await s.create("/r/w/b", obj("b"));
    await s.create("/r/w/c", obj("c"));
    const d = await s.create("/r/w/d", obj("d"));
    expect((await drain(w, 1))[0]).toMatchObject({ type: "ADDED", revision: d.revision });
  });
});
