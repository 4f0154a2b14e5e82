import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStorage, openSqliteStorage } from "@skiff/storage";
import type { Storage, WatchEvent, WatchOptions, Watcher } from "@skiff/storage";
import { runStorageConformance } from "@skiff/storage/testing";
import { describe, expect, it } from "vitest";
import { WatchCache } from "./index.js";
import { nextBookmarkDelayMs } from "./watch-cache.js";

runStorageConformance("watch cache over memory", async () => {
  const storage = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }));
  return { storage, cleanup: () => storage.close() };
});

// Seeded: one object outside /registry/ makes the suite's start revisions explicit (> 0), so its
// watch cases run through the cache rather than the backend.
runStorageConformance("watch cache over memory, seeded", async () => {
  const storage = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }));
  await storage.create("/seed/x", { metadata: { name: "x" } });
  return { storage, cleanup: () => storage.close() };
});

runStorageConformance("watch cache over sqlite, seeded", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "skiff-watch-cache-"));
  let storage = new WatchCache(await openSqliteStorage({ dataDir, compactionIntervalMs: 0 }));
  await storage.create("/seed/x", { metadata: { name: "x" } });
  return {
    storage,
    reopen: async () => {
      await storage.close();
      storage = new WatchCache(await openSqliteStorage({ dataDir, compactionIntervalMs: 0 }));
      return storage;
    },
    cleanup: async () => {
      await storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

class CountingStorage extends MemoryStorage {
  watchCalls = 0;
  override watch(key: string, options?: WatchOptions): Promise<Watcher> {
    this.watchCalls++;
    return super.watch(key, options);
  }
}

/** A backend whose watchers can be held back, as a busy event loop holds the cache's pump. */
class HeldStorage extends MemoryStorage {
  private gate: Promise<void> = Promise.resolve();
  hold(): () => void {
    let open = () => {};
    this.gate = new Promise((r) => (open = r));
    return open;
  }
  override async watch(key: string, options?: WatchOptions): Promise<Watcher> {
    const inner = await super.watch(key, options);
    const next = async () => {
      await this.gate;
      return inner.next();
    };
    return { next, stop: () => inner.stop(), [Symbol.asyncIterator]: () => ({ next }) } as Watcher;
  }
}

async function first(w: Watcher): Promise<WatchEvent | undefined> {
  const r = await w.next();
  return r.done ? undefined : r.value;
}

describe("WatchCache", () => {
  it("serves 1,000 watchers from one backend watch", async () => {
    const backend = new CountingStorage({ compactionIntervalMs: 0 });
    const cache: Storage = new WatchCache(backend);
    await cache.create("/registry/seed", { metadata: { name: "seed" } });
    const start = await cache.currentRevision();
    const watchers = await Promise.all(Array.from({ length: 1000 }, () => cache.watch("/registry/jobs", { recursive: true, resourceVersion: start })));
    const c = await cache.create("/registry/jobs/ns/a", { metadata: { name: "a" } });
    for (const w of watchers) expect(await first(w)).toMatchObject({ type: "ADDED", revision: c.revision });
    expect(backend.watchCalls).toBe(1);
    await cache.close();
  });

  it("ends a slow watcher with an ERROR without blocking others", async () => {
    const cache = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }), { watcherBufferCapacity: 3 });
    await cache.create("/seed", { metadata: { name: "seed" } });
    const start = await cache.currentRevision();
    const slow = await cache.watch("/r", { recursive: true, resourceVersion: start });
    const fast = await cache.watch("/r", { recursive: true, resourceVersion: start });
    for (let i = 0; i < 5; i++) {
      await cache.create(`/r/x${i}`, { metadata: { name: `x${i}` } });
      expect(await first(fast)).toMatchObject({ type: "ADDED", key: `/r/x${i}` });
    }
    const seen: string[] = [];
    for (let e = await first(slow); e !== undefined; e = await first(slow)) seen.push(e.type);
    expect(seen).toEqual(["ADDED", "ADDED", "ADDED", "ERROR"]);
    await cache.close();
  });

  it("answers ResourceVersionExpired for a revision older than the window", async () => {
    const cache = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }), { windowCapacity: 2 });
    await cache.create("/seed", { metadata: { name: "seed" } });
    const start = await cache.currentRevision();
    const w = await cache.watch("/r", { recursive: true, resourceVersion: start });
    for (let i = 0; i < 5; i++) await cache.create(`/r/x${i}`, { metadata: { name: `x${i}` } });
    for (let i = 0; i < 5; i++) await first(w);
    await cache.compact(start + 3);
    await expect(cache.watch("/r", { recursive: true, resourceVersion: start + 1 })).rejects.toMatchObject({ code: "ResourceVersionExpired" });
    const late = await cache.watch("/r", { recursive: true, resourceVersion: start + 3 });
    expect(await first(late)).toMatchObject({ type: "ADDED", revision: start + 4 });
    await cache.close();
  });
});

describe("WatchCache watch triggers", () => {
  it("offers a triggered watcher only the events of objects with its value (now or before), as 1.23's cacher indexes pods by spec.nodeName", async () => {
    const cache = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }));
    await cache.create("/seed", { metadata: { name: "seed" } });
    const start = await cache.currentRevision();
    const valueOf = (o: unknown): string => (o as { spec?: { nodeName?: string } }).spec?.nodeName ?? "";
    const calls = { a: 0, b: 0 };
    const onNode = (node: "a" | "b") => ({
      recursive: true,
      resourceVersion: start,
      predicate: (o: unknown) => (calls[node]++, valueOf(o) === node),
      trigger: { value: node, valueOf },
    });
    const a = await cache.watch("/registry/pods", onNode("a"));
    const b = await cache.watch("/registry/pods", onNode("b"));
    const all = await cache.watch("/registry/pods", { recursive: true, resourceVersion: start });
    const x = await cache.create("/registry/pods/ns/x", { metadata: { name: "x" }, spec: {} });
    await cache.guaranteedUpdate("/registry/pods/ns/x", (o) => ({ ...o, spec: { nodeName: "a" } }));
    await cache.create("/registry/pods/ns/y", { metadata: { name: "y" }, spec: { nodeName: "b" } });
    await cache.delete("/registry/pods/ns/x");
    expect(await first(all)).toMatchObject({ type: "ADDED", revision: x.revision });
    expect(await first(a)).toMatchObject({ type: "ADDED", key: "/registry/pods/ns/x" });
    expect(await first(a)).toMatchObject({ type: "DELETED", key: "/registry/pods/ns/x" });
    expect(await first(b)).toMatchObject({ type: "ADDED", key: "/registry/pods/ns/y" });
    // b's predicate saw only y; a's saw x's update and deletion, never y.
    expect(calls.b).toBe(1);
    expect(calls.a).toBe(3);
    a.stop();
    await cache.guaranteedUpdate("/registry/pods/ns/y", (o) => ({ ...o, metadata: { name: "y", labels: { l: "1" } } }));
    expect(await first(b)).toMatchObject({ type: "MODIFIED", key: "/registry/pods/ns/y" });
    await cache.close();
  });
});

describe("WatchCache window", () => {
  it("offers a triggered watch that starts in the past only the window's events that concern its value", async () => {
    const cache = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }));
    await cache.create("/seed", { metadata: { name: "seed" } });
    const start = await cache.currentRevision();
    const valueOf = (o: unknown): string => (o as { spec?: { nodeName?: string } }).spec?.nodeName ?? "";
    const onNode = (node: string, checks: { n: number }, from = start) => ({
      recursive: true,
      resourceVersion: from,
      predicate: (o: unknown) => (checks.n++, valueOf(o) === node),
      trigger: { value: node, valueOf },
    });
    // A first triggered watch makes the cache record each event's trigger values.
    const early = await cache.watch("/registry/pods", onNode("a", { n: 0 }));
    for (let i = 0; i < 20; i++) await cache.create(`/registry/pods/ns/p${i}`, { metadata: { name: `p${i}` }, spec: { nodeName: i === 7 ? "b" : "a" } });
    await cache.guaranteedUpdate("/registry/pods/ns/p3", (o) => ({ ...o, spec: { nodeName: "b" } }));
    const checks = { n: 0 };
    const late = await cache.watch("/registry/pods", onNode("b", checks));
    expect(await first(late)).toMatchObject({ type: "ADDED", key: "/registry/pods/ns/p7" });
    expect(await first(late)).toMatchObject({ type: "ADDED", key: "/registry/pods/ns/p3" });
    // Its predicate saw p7's creation and p3's move (object and previous object): none of the 19 others.
    expect(checks.n).toBe(3);
    early.stop();
    late.stop();
    await cache.close();
  });

  it("grows while its events are fresh once a watch has missed it, so the next watch from before a burst is served from it", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    let backendWatches = 0;
    const watch = backend.watch.bind(backend);
    backend.watch = (key: string, options?: WatchOptions) => (backendWatches++, watch(key, options));
    const cache = new WatchCache(backend, { windowCapacity: 4 });
    await cache.create("/seed", { metadata: { name: "seed" } });
    const start = await cache.currentRevision();
    const live = await cache.watch("/registry/x", { recursive: true, resourceVersion: start });
    for (let i = 0; i < 10; i++) await cache.create(`/registry/x/a${i}`, { metadata: { name: `a${i}` } });
    // 10 events in a window of 4: a watch from the start misses it and is served from storage.
    const before = backendWatches;
    const missed = await cache.watch("/registry/x", { recursive: true, resourceVersion: start });
    expect(backendWatches).toBe(before + 1);
    expect(await first(missed)).toMatchObject({ type: "ADDED", key: "/registry/x/a0" });
    const mid = await cache.currentRevision();
    for (let i = 0; i < 50; i++) await cache.create(`/registry/x/b${i}`, { metadata: { name: `b${i}` } });
    for (let i = 0; i < 60; i++) await first(live);
    // The window grew: a watch from before these 50 events is served from it.
    const late = await cache.watch("/registry/x", { recursive: true, resourceVersion: mid });
    expect(backendWatches).toBe(before + 1);
    expect(await first(late)).toMatchObject({ type: "ADDED", key: "/registry/x/b0" });
    live.stop();
    missed.stop();
    late.stop();
    await cache.close();
  });
});

describe("WatchCache fan-out by key", () => {
  it("offers an event only to the watchers of its key and its ancestors", async () => {
    const cache = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }));
    await cache.create("/seed", { metadata: { name: "seed" } });
    const start = await cache.currentRevision();
    let nodeChecks = 0;
    const nodes = await cache.watch("/registry/nodes", { recursive: true, resourceVersion: start, predicate: () => (nodeChecks++, true) });
    const root = await cache.watch("/", { recursive: true, resourceVersion: start });
    const one = await cache.watch("/registry/pods/ns/a", { resourceVersion: start });
    const ns = await cache.watch("/registry/pods/ns/", { recursive: true, resourceVersion: start });
    await cache.create("/registry/pods/ns/a", { metadata: { name: "a" } });
    await cache.create("/registry/pods/other/b", { metadata: { name: "b" } });
    await cache.create("/registry/nodes/n1", { metadata: { name: "n1" } });
    expect(await first(one)).toMatchObject({ key: "/registry/pods/ns/a" });
    expect(await first(ns)).toMatchObject({ key: "/registry/pods/ns/a" });
    expect([await first(root), await first(root), await first(root)].map((e) => (e as { key: string }).key)).toEqual(["/registry/pods/ns/a", "/registry/pods/other/b", "/registry/nodes/n1"]);
    expect(await first(nodes)).toMatchObject({ key: "/registry/nodes/n1" });
    expect(nodeChecks).toBe(1);
    await cache.close();
  });
});

describe("watch cache reads", () => {
  it("passes reads to the backend, ignoring limit at resourceVersion 0 as 1.23's cacher does", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    for (const n of ["a", "b", "c"]) await backend.create(`/registry/things/${n}`, { metadata: { name: n }, v: n === "b" ? 2 : 1 });
    const cache = new WatchCache(backend, { prefix: "/registry/" });
    const any = await cache.list("/registry/things", { resourceVersion: "0", limit: 1, predicate: (o) => o["v"] === 1 });
    expect(any.items.map((o) => o.metadata?.["name"])).toEqual(["a", "c"]);
    expect(any.continue).toBeUndefined();
    expect(any.revision).toBe(await backend.currentRevision());
    const paged = await cache.list("/registry/things", { limit: 1 });
    expect(paged.items).toHaveLength(1);
    expect(paged.continue).toBeDefined();
    expect(await cache.get("/registry/things/b", { resourceVersion: "0" })).toMatchObject({ v: 2 });
    await expect(cache.get("/registry/things/x", { resourceVersion: 0 })).rejects.toMatchObject({ code: "KeyNotFound" });
    await cache.close();
  });

  it("a watch from a revision the cache has not reached yet gets only the later events", async () => {
    // A list served by the backend can be ahead of the cache's one watch; the informer then
    // watches from the list's revision, and must not get the listed events a second time.
    const backend = new HeldStorage({ compactionIntervalMs: 0 });
    await backend.create("/registry/seed", { metadata: { name: "seed" } });
    const cache = new WatchCache(backend, { prefix: "/registry/" });
    const early = await cache.watch("/registry/things", { recursive: true, resourceVersion: await backend.currentRevision() });
    // The cache's backend watch is held: writes reach the backend, not yet the cache.
    const release = backend.hold();
    await backend.create("/registry/things/a", { metadata: { name: "a" } });
    const listed = await backend.create("/registry/things/b", { metadata: { name: "b" } });
    const w = await cache.watch("/registry/things", { recursive: true, resourceVersion: listed.revision });
    release();
    const after = await backend.create("/registry/things/c", { metadata: { name: "c" } });
    expect(await first(w)).toMatchObject({ type: "ADDED", revision: after.revision, key: "/registry/things/c" });
    for (const name of ["a", "b", "c"]) expect(await first(early)).toMatchObject({ type: "ADDED", key: `/registry/things/${name}` });
    await cache.close();
  });

  it("uses bookmarkIntervalMs for watches that ask for bookmarks, once the cache is past the watch's revision", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    const { revision } = await backend.create("/registry/things/a", { metadata: { name: "a" } });
    const cache = new WatchCache(backend, { prefix: "/registry/", bookmarkIntervalMs: 10 });
    const w = await cache.watch("/registry/things", { recursive: true, resourceVersion: revision, allowBookmarks: true });
    // A write outside the watched key moves the cache past the watch's revision (1.23 sends only newer bookmarks).
    const other = await cache.create("/registry/others/b", { metadata: { name: "b" } });
    const first = await w.next();
    expect(first.value).toMatchObject({ type: "BOOKMARK", revision: other.revision });
    w.stop();
    await cache.close();
  });

  it("sends no bookmark while nothing newer than the watch's revision was seen", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    const { revision } = await backend.create("/registry/things/a", { metadata: { name: "a" } });
    const cache = new WatchCache(backend, { prefix: "/registry/", bookmarkIntervalMs: 10 });
    const w = await cache.watch("/registry/things", { recursive: true, resourceVersion: revision, allowBookmarks: true });
    const got = await Promise.race([w.next(), new Promise((r) => setTimeout(() => r("none"), 100))]);
    expect(got).toBe("none");
    w.stop();
    await cache.close();
  });

  it("sends a bookmark 2 s before the watch's deadline, long before the periodic one", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    const { revision } = await backend.create("/registry/things/a", { metadata: { name: "a" } });
    const cache = new WatchCache(backend, { prefix: "/registry/" });
    const w = await cache.watch("/registry/things", { recursive: true, resourceVersion: revision, allowBookmarks: true, deadlineMs: Date.now() + 2300 });
    const other = await cache.create("/registry/others/b", { metadata: { name: "b" } });
    expect((await w.next()).value).toMatchObject({ type: "BOOKMARK", revision: other.revision });
    w.stop();
    await cache.close();
  });
});

describe("nextBookmarkDelayMs (1.23 cacheWatcher.nextBookmarkTime)", () => {
  it.each([
    [60_000, undefined, 60_000],
    [60_000, 10_000, 8_000],
    [60_000, 62_000, 60_000],
    [60_000, 2_000, 0],
    [60_000, 1_999, undefined],
    [1_000, 4_000, 1_000],
  ] as const)("interval %d, deadline in %j ms → %j", (interval, deadlineIn, want) => {
    expect(nextBookmarkDelayMs(1_000_000, interval, deadlineIn === undefined ? undefined : 1_000_000 + deadlineIn)).toBe(want);
  });
});

describe("watch cache fan-out copies", () => {
  async function twoWatchers(options: WatchOptions): Promise<[WatchEvent, WatchEvent]> {
    const storage = new WatchCache(new MemoryStorage({ compactionIntervalMs: 0 }));
    const seed = await storage.create("/registry/jobs/default/seed", { metadata: { name: "seed" } });
    const from = seed.revision;
    const a = await storage.watch("/registry/jobs", { recursive: true, resourceVersion: from, ...options });
    const b = await storage.watch("/registry/jobs", { recursive: true, resourceVersion: from, ...options });
    await storage.create("/registry/jobs/default/x", { metadata: { name: "x" }, spec: { n: 1 } });
    const ea = (await a.next()).value as WatchEvent;
    const eb = (await b.next()).value as WatchEvent;
    a.stop();
    b.stop();
    await storage.close();
    return [ea, eb];
  }

  it("hands each watcher its own copy by default, so one consumer's mutation cannot leak", async () => {
    const [ea, eb] = await twoWatchers({});
    if (ea.type !== "ADDED" || eb.type !== "ADDED") throw new Error(`unexpected ${ea.type}/${eb.type}`);
    expect(ea.object).not.toBe(eb.object);
    (ea.object as { spec: { n: number } }).spec.n = 99;
    expect((eb.object as { spec: { n: number } }).spec.n).toBe(1);
  });

  it("with sharedObjects every watcher gets the same object (no copy per watcher)", async () => {
    const [ea, eb] = await twoWatchers({ sharedObjects: true });
    if (ea.type !== "ADDED" || eb.type !== "ADDED") throw new Error(`unexpected ${ea.type}/${eb.type}`);
    expect(ea.object).toBe(eb.object);
  });
});
