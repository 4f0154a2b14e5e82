import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { StorageError, isStorageError } from "../errors.js";
import type { WatchEvent } from "../types.js";
import { MvccStorage } from "./mvcc-storage.js";
import { SqliteEngine } from "./sqlite-engine.js";

// The storage over an engine whose database the test holds, so it can make single writes fail.
class TestStorage extends MvccStorage {
  constructor(engine: SqliteEngine) {
    super(engine, { compactionIntervalMs: 0 });
  }
}

const dirs: string[] = [];
const stores: TestStorage[] = [];

function openStore(path?: string): { storage: TestStorage; engine: SqliteEngine; db: Database.Database; path: string } {
  const file = path ?? join(mkdtempSync(join(tmpdir(), "skiff-group-commit-")), "db.sqlite");
  if (path === undefined) dirs.push(join(file, ".."));
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  const engine = new SqliteEngine(db);
  const storage = new TestStorage(engine);
  stores.push(storage);
  return { storage, engine, db, path: file };
}

// A trigger that makes the insert of `key` fail: ABORT fails that statement only, ROLLBACK ends
// the whole transaction (as SQLite does by itself on some I/O and disk-full errors).
function failInsertOf(db: Database.Database, key: string, how: "ABORT" | "ROLLBACK"): void {
  db.exec(`CREATE TEMP TRIGGER fail_${how} BEFORE INSERT ON log WHEN NEW.key = '${key}' BEGIN SELECT RAISE(${how}, 'injected failure'); END`);
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function collect(w: AsyncIterator<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const r = await w.next();
    if (r.done === true) break;
    out.push(r.value);
  }
  return out;
}

describe("MvccStorage group commit (SQLite)", () => {
  it("commits the writes of one tick in one transaction, numbered in the order they were asked for", async () => {
    const { storage, engine } = openStore();
    const batch = vi.spyOn(engine, "commitBatch");
    const keys = ["/r/c", "/r/a", "/r/b", "/r/d"];
    const results = await Promise.all(keys.map((k) => storage.create(k, { metadata: { name: k } })));
    expect(batch).toHaveBeenCalledTimes(1);
    expect(batch.mock.calls[0]?.[0].map((w) => w.key)).toEqual(keys);
    expect(results.map((r) => r.revision)).toEqual([1, 2, 3, 4]);
    expect(results.map((r) => r.object.metadata?.resourceVersion)).toEqual(["1", "2", "3", "4"]);
    expect(await storage.currentRevision()).toBe(4);
  });

  it("delivers the changes of a batch to watchers in revision order", async () => {
    const { storage } = openStore();
    await storage.create("/r/x", { metadata: { name: "x" }, n: 0 });
    await storage.create("/r/y", { metadata: { name: "y" } });
    const w = await storage.watch("/r", { recursive: true, resourceVersion: 2 });
    const [updated, deleted, created] = await Promise.all([
      storage.guaranteedUpdate("/r/x", (o) => ({ ...o, n: 1 })),
      storage.delete("/r/y"),
      storage.create("/r/z", { metadata: { name: "z" } }),
    ]);
    const events = await collect(w, 3);
    w.stop();
    const seen = events.map((e) => (e.type === "ADDED" || e.type === "MODIFIED" || e.type === "DELETED" ? { type: e.type, key: e.key, revision: e.revision } : { type: e.type, key: "", revision: 0 }));
    expect(seen.map((e) => e.revision)).toEqual([3, 4, 5]);
    expect(seen).toEqual(
      expect.arrayContaining([
        { type: "MODIFIED", key: "/r/x", revision: updated.revision },
        { type: "DELETED", key: "/r/y", revision: deleted.revision },
        { type: "ADDED", key: "/r/z", revision: created.revision },
      ]),
    );
  });

  it("fails a conflicting write of a batch alone (KeyExists), the others apply", async () => {
    const { storage } = openStore();
    const settled = await Promise.allSettled([
      storage.create("/r/a", { metadata: { name: "a" }, v: 1 }),
      storage.create("/r/a", { metadata: { name: "a" }, v: 2 }),
      storage.create("/r/b", { metadata: { name: "b" } }),
    ]);
    expect(settled[0]).toMatchObject({ status: "fulfilled", value: { revision: 1 } });
    expect(settled[1].status).toBe("rejected");
    expect(isStorageError((settled[1] as PromiseRejectedResult).reason, "KeyExists")).toBe(true);
    expect(settled[2]).toMatchObject({ status: "fulfilled", value: { revision: 2 } });
    expect((await storage.get("/r/a")).v).toBe(1);
  });

  it("fails a write whose statements fail alone (Internal), the others apply with consecutive revisions", async () => {
    const { storage, db } = openStore();
    failInsertOf(db, "/r/bad", "ABORT");
    const w = await storage.watch("/r", { recursive: true, resourceVersion: 0 });
    const settled = await Promise.allSettled([
      storage.create("/r/a", { metadata: { name: "a" } }),
      storage.create("/r/bad", { metadata: { name: "bad" } }),
      storage.create("/r/b", { metadata: { name: "b" } }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const error = (settled[1] as PromiseRejectedResult).reason as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe("Internal");
    expect(error.message).toContain("injected failure");
    expect(settled.flatMap((s) => (s.status === "fulfilled" ? [s.value.revision] : []))).toEqual([1, 2]);
    expect(await storage.get("/r/bad", { ignoreNotFound: true })).toBeNull();
    const events = await collect(w, 2);
    w.stop();
    expect(events.map((e) => ("key" in e ? e.key : e.type))).toEqual(["/r/a", "/r/b"]);
  });

  it("acknowledges no write of a batch whose transaction fails, and keeps numbering from the last commit", async () => {
    const { storage, db } = openStore();
    await storage.create("/r/first", { metadata: { name: "first" } });
    failInsertOf(db, "/r/bad", "ROLLBACK");
    const settled = await Promise.allSettled([storage.create("/r/a", { metadata: { name: "a" } }), storage.create("/r/bad", { metadata: { name: "bad" } })]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect(isStorageError((settled[0] as PromiseRejectedResult).reason, "Internal")).toBe(true);
    expect(db.inTransaction).toBe(false);
    expect(await storage.currentRevision()).toBe(1);
    expect(await storage.get("/r/a", { ignoreNotFound: true })).toBeNull();
    const next = await storage.create("/r/c", { metadata: { name: "c" } });
    expect(next.revision).toBe(2);
  });

  it("answers a write only once its transaction has committed: every acknowledged write is in the file", async () => {
    const first = openStore();
    const acked: string[] = [];
    const writes = Array.from({ length: 50 }, (_, i) =>
      first.storage.create(`/r/k${i}`, { metadata: { name: `k${i}` } }).then(() => {
        // When the answer comes, the transaction is over and the row is in the database.
        expect(first.db.inTransaction).toBe(false);
        expect(first.db.prepare("SELECT COUNT(*) AS n FROM log WHERE key = ?").get(`/r/k${i}`)).toEqual({ n: 1 });
        acked.push(`/r/k${i}`);
      }),
    );
    await Promise.all(writes);
    // Closing commits what is pending; reopening the file finds every acknowledged write.
    const pending = first.storage.create("/r/late", { metadata: { name: "late" } });
    await first.storage.close();
    await pending;
    const again = openStore(first.path);
    const list = await again.storage.list("/r");
    expect(list.items.map((o) => `/r/${String(o.metadata?.name)}`).sort()).toEqual([...acked, "/r/late"].sort());
    expect(list.revision).toBe(51);
  });

  it("orders a write asked for after another's answer after it (separate batches)", async () => {
    const { storage, engine } = openStore();
    const batch = vi.spyOn(engine, "commitBatch");
    const a = await storage.create("/r/a", { metadata: { name: "a" } });
    const b = await storage.guaranteedUpdate("/r/a", (o) => ({ ...o, n: 1 }));
    expect(b.revision).toBeGreaterThan(a.revision);
    expect(batch).toHaveBeenCalledTimes(2);
  });
});
