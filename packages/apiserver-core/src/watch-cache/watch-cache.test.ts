import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStorage, openSqliteStorage } from "@skiff/storage";
import type { Storage, StoredObject, WatchEvent, WatchOptions, Watcher } from "@skiff/storage";
import { runStorageConformance } from "@skiff/storage/testing";
import { describe, expect, it } from "vitest";
import { WatchCache } from "./index.js";

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

describe("watch cache state (resourceVersion 0 reads)", () => {
  const keyOf = (o: StoredObject) => {
    const name = o.metadata?.["name"];
    return typeof name === "string" && name !== "bad" ? `/registry/things/${name}` : undefined;
  };

  it("serves get and list at resourceVersion 0 from memory, following later writes", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    await backend.create("/registry/things/a", { metadata: { name: "a" }, v: 1 });
    const cache = new WatchCache(backend, { prefix: "/registry/", keyOf });
    expect(await cache.get("/registry/things/a", { resourceVersion: "0" })).toMatchObject({ v: 1 });
    await cache.create("/registry/things/b", { metadata: { name: "b" }, v: 2 });
    await cache.delete("/registry/things/a");
    // Eventually consistent with the backend: wait for the cache to see the writes.
    for (let i = 0; i < 100; i++) {
      const l = await cache.list("/registry/things", { resourceVersion: "0" });
      if (l.items.length === 1) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const l = await cache.list("/registry/things", { resourceVersion: "0", limit: 1, predicate: (o) => o["v"] === 2 });
    expect(l.items.map((o) => o.metadata?.["name"])).toEqual(["b"]);
    expect(l.continue).toBeUndefined();
    expect(l.revision).toBe(await backend.currentRevision());
    await expect(cache.get("/registry/things/a", { resourceVersion: 0 })).rejects.toMatchObject({ code: "KeyNotFound" });
    expect(await cache.get("/registry/things/a", { resourceVersion: 0, ignoreNotFound: true })).toBeNull();
    // The copy handed out is the caller's to mutate.
    const got = await cache.get("/registry/things/b", { resourceVersion: "0" });
    got["v"] = 99;
    expect(await cache.get("/registry/things/b", { resourceVersion: "0" })).toMatchObject({ v: 2 });
    await cache.close();
  });

  it("passes resourceVersion 0 reads to the backend when an object has no key", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    await backend.create("/registry/things/bad", { metadata: { name: "bad" } });
    await backend.create("/registry/things/ok", { metadata: { name: "ok" } });
    const cache = new WatchCache(backend, { prefix: "/registry/", keyOf });
    const l = await cache.list("/registry/things", { resourceVersion: "0", limit: 1 });
    // Served by the backend: the limit applies.
    expect(l.items).toHaveLength(1);
    expect(l.continue).toBeDefined();
    await cache.close();
  });

  it("uses bookmarkIntervalMs for watches that ask for bookmarks", async () => {
    const backend = new MemoryStorage({ compactionIntervalMs: 0 });
    const { revision } = await backend.create("/registry/things/a", { metadata: { name: "a" } });
    const cache = new WatchCache(backend, { prefix: "/registry/", bookmarkIntervalMs: 10 });
    const w = await cache.watch("/registry/things", { recursive: true, resourceVersion: revision, allowBookmarks: true });
    const first = await w.next();
    expect(first.value).toMatchObject({ type: "BOOKMARK", revision });
    w.stop();
    await cache.close();
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
