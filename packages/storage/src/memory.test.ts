import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { Watcher } from "./types.js";
import { runStorageConformance } from "./testing/index.js";
import { MemoryStorage } from "./memory-storage.js";

runStorageConformance("memory", async () => {
  const storage = new MemoryStorage({ compactionIntervalMs: 0 });
  return { storage, cleanup: () => storage.close() };
});

describe("sharedObjects", () => {
  it("watchers that only read share one parsed object per change; others get their own", async () => {
    const storage = new MemoryStorage({ compactionIntervalMs: 0 });
    const from = await storage.currentRevision();
    const shared = await Promise.all([1, 2].map(() => storage.watch("/r", { recursive: true, resourceVersion: from, sharedObjects: true })));
    const own = await Promise.all([1, 2].map(() => storage.watch("/r", { recursive: true, resourceVersion: from })));
    await storage.create("/r/a", { metadata: { name: "a" }, v: 1 });
    await storage.guaranteedUpdate("/r/a", (cur) => ({ ...cur, v: 2 }));
    await storage.delete("/r/a");
    const take = async (w: Watcher) => {
      const r = await w.next();
      if (r.done || (r.value.type !== "ADDED" && r.value.type !== "MODIFIED" && r.value.type !== "DELETED")) throw new Error("no change event");
      return r.value;
    };
    for (const type of ["ADDED", "MODIFIED", "DELETED"]) {
      const [s1, s2] = await Promise.all(shared.map(take));
      const [o1, o2] = await Promise.all(own.map(take));
      expect([s1!.type, o1!.type]).toEqual([type, type]);
      expect(s1!.object).toBe(s2!.object);
      expect(s1!.prevObject).toBe(s2!.prevObject);
      expect(o1!.object).not.toBe(o2!.object);
      expect(o1!.object).not.toBe(s1!.object);
      expect(s1!.object).toEqual(o1!.object);
      expect(s1!.prevObject).toEqual(o1!.prevObject);
    }
    await storage.close();
  });
});

describe("watcher memory", () => {
  it("does not hold on to an event once it is taken (a watcher catching up parses its own copies)", async () => {
    // A real collection, to see what the watcher still references.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const storage = new MemoryStorage({ compactionIntervalMs: 0 });
    await storage.create("/seed", { metadata: { name: "seed" } });
    const from = await storage.currentRevision();
    for (let i = 0; i < 10; i++) await storage.create(`/r/o${i}`, { metadata: { name: `o${i}` }, payload: "x".repeat(1000) });
    const w = await storage.watch("/r", { recursive: true, resourceVersion: from, sharedObjects: true });
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await w.next();
      if (r.done || r.value.type !== "ADDED") throw new Error("expected ADDED");
      refs.push(new WeakRef(r.value.object));
    }
    await new Promise((r) => setImmediate(r));
    gc();
    // (The last one may still sit in this test's own frame.)
    expect(refs.slice(0, -1).filter((r) => r.deref() !== undefined)).toHaveLength(0);
    w.stop();
    await storage.close();
  });
});
