import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { isStorageError } from "./errors.js";
import type { SqliteStorage } from "./sqlite-storage.js";
import { openSqliteStorage, sqliteFileName } from "./sqlite-storage.js";

const dirs: string[] = [];
const open: SqliteStorage[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "skiff-sqlite-"));
  dirs.push(d);
  return d;
}

async function openIn(dataDir: string, extra: object = {}): Promise<SqliteStorage> {
  const s = await openSqliteStorage({ dataDir, compactionIntervalMs: 0, ...extra });
  open.push(s);
  return s;
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("openSqliteStorage", () => {
  it("creates the data dir and a WAL-mode database file in it", async () => {
    const dataDir = join(tempDir(), "nested", "data");
    const s = await openIn(dataDir);
    expect(s.path).toBe(join(dataDir, sqliteFileName));
    await s.create("/r/a", { metadata: { name: "a" } });
    await s.close();
    const db = new Database(s.path, { readonly: true });
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const rows = db.prepare("SELECT revision, key, deleted FROM log").all();
      expect(rows).toEqual([{ revision: 1, key: "/r/a", deleted: 0 }]);
      const value = (db.prepare("SELECT value FROM log").get() as { value: string }).value;
      expect(JSON.parse(value)).toEqual({ metadata: { name: "a" } });
    } finally {
      db.close();
    }
  });

  it("opens a file by path, also with synchronous FULL", async () => {
    const path = join(tempDir(), "x", "store.db");
    const s = await openSqliteStorage({ path, synchronous: "FULL", compactionIntervalMs: 0 });
    open.push(s);
    const { revision } = await s.create("/r/a", { metadata: {} });
    expect(revision).toBe(1);
  });

  it("refuses a second owner of the same file with Unreachable", async () => {
    const dataDir = tempDir();
    await openIn(dataDir);
    let error: unknown;
    try {
      await openIn(dataDir);
    } catch (e) {
      error = e;
    }
    expect(isStorageError(error, "Unreachable")).toBe(true);
    expect((error as Error).message).toContain("locked by another process");
  });

  it("rejects bad options and files that are not databases", async () => {
    await expect(openSqliteStorage({})).rejects.toMatchObject({ code: "InvalidError" });
    await expect(openSqliteStorage({ path: "/tmp/x.db", dataDir: "/tmp" })).rejects.toMatchObject({ code: "InvalidError" });
    await expect(openSqliteStorage({ dataDir: tempDir(), synchronous: "OFF" as "FULL" })).rejects.toMatchObject({ code: "InvalidError" });
    const path = join(tempDir(), "junk.db");
    writeFileSync(path, "this is not a database, just some text that is long enough ".repeat(100));
    await expect(openSqliteStorage({ path, compactionIntervalMs: 0 })).rejects.toMatchObject({ code: "Unreachable" });
  });

  it("refuses a file written by a newer schema", async () => {
    const dataDir = tempDir();
    const s = await openIn(dataDir);
    await s.close();
    const db = new Database(join(dataDir, sqliteFileName));
    db.prepare("UPDATE meta SET value = 99 WHERE name = 'schema_version'").run();
    db.close();
    await expect(openIn(dataDir)).rejects.toMatchObject({ code: "Unreachable" });
  });

  it("compaction leaves one row per live key at or below the horizon, and persists the horizon", async () => {
    const dataDir = tempDir();
    const s = await openIn(dataDir);
    for (let i = 0; i < 5; i++) await s.create(`/r/o${i}`, { metadata: {}, spec: { v: 0 } });
    for (let i = 0; i < 5; i++) await s.guaranteedUpdate(`/r/o${i}`, (cur) => ({ ...cur, spec: { v: 1 } }));
    await s.delete("/r/o4");
    const horizon = await s.currentRevision();
    await s.guaranteedUpdate("/r/o0", (cur) => ({ ...cur, spec: { v: 2 } }));
    await s.compact(horizon);
    await s.close();
    const db = new Database(s.path, { readonly: true });
    try {
      const rows = db.prepare("SELECT key, revision, deleted FROM log ORDER BY revision").all();
      expect(rows).toEqual([
        { key: "/r/o0", revision: 6, deleted: 0 },
        { key: "/r/o1", revision: 7, deleted: 0 },
        { key: "/r/o2", revision: 8, deleted: 0 },
        { key: "/r/o3", revision: 9, deleted: 0 },
        { key: "/r/o0", revision: 12, deleted: 0 },
      ]);
      expect(db.prepare("SELECT value FROM meta WHERE name = 'compacted_revision'").get()).toEqual({ value: horizon });
    } finally {
      db.close();
    }
    const again = await openIn(dataDir);
    expect(again.compactedRevision()).toBe(horizon);
    expect(await again.currentRevision()).toBe(12);
  });
});
