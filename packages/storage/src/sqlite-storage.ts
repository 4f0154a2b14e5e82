import { accessSync, constants, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { StorageError } from "./errors.js";
import type { MvccStorageOptions } from "./internal/mvcc-storage.js";
import { MvccStorage } from "./internal/mvcc-storage.js";
import { SqliteEngine } from "./internal/sqlite-engine.js";

/** File name of the database inside a `dataDir`. */
export const sqliteFileName = "skiff.sqlite";

/**
 * Options of {@link openSqliteStorage}. Give `path` or `dataDir` (exactly one).
 *
 * Durability: the database runs in WAL mode. With `synchronous: "NORMAL"` (the default) a commit
 * is written to the WAL with `write(2)` before the call returns but not fsynced: an acknowledged
 * write survives the process being killed (SIGKILL, crash) at any moment, which is what the
 * apiserver promises; it can be lost on power failure or kernel crash (the database stays
 * consistent, it just ends at an earlier revision). `"FULL"` fsyncs the WAL on every commit and
 * survives power loss, at a large throughput cost (see `pnpm bench storage`).
 */
export interface SqliteStorageOptions extends MvccStorageOptions {
  /** The database file. Its folder must exist. */
  readonly path?: string;
  /** A folder (created if missing) holding {@link sqliteFileName}: the apiserver's `--data-dir`. */
  readonly dataDir?: string;
  /** SQLite `synchronous` pragma; see above. @defaultValue "NORMAL" */
  readonly synchronous?: "NORMAL" | "FULL";
}

/**
 * The embedded SQLite backend (better-sqlite3). One process owns the file: it is opened in
 * exclusive locking mode, so a second apiserver on the same data dir fails to open it
 * (`Unreachable`) instead of corrupting revisions. Writes are group-committed: those asked for
 * in the same tick share one transaction (each in a savepoint, so one failing
 * write fails alone) and are answered only after it commits; watch fan-out happens in-process
 * after each commit, in revision order; a watcher that lags reads the log table.
 * Compaction deletes superseded versions at or below the horizon in chunks and records the
 * horizon in the file, so `ResourceVersionExpired` survives a restart; revisions continue from
 * the newest one on reopen.
 *
 * Open with {@link openSqliteStorage}.
 */
export class SqliteStorage extends MvccStorage {
  /** The database file in use. */
  readonly path: string;

  private constructor(engine: SqliteEngine, path: string, options: SqliteStorageOptions) {
    super(engine, options);
    this.path = path;
  }

  /** @internal Use {@link openSqliteStorage}. */
  static open(options: SqliteStorageOptions): SqliteStorage {
    if ((options.path === undefined) === (options.dataDir === undefined)) {
      throw new StorageError("InvalidError", { detail: "openSqliteStorage needs exactly one of path and dataDir" });
    }
    const synchronous = options.synchronous ?? "NORMAL";
    if (synchronous !== "NORMAL" && synchronous !== "FULL") {
      throw new StorageError("InvalidError", { detail: `synchronous must be "NORMAL" or "FULL", got ${JSON.stringify(synchronous)}` });
    }
    let path: string;
    if (options.dataDir !== undefined) {
      makeFolder(options.dataDir);
      path = join(options.dataDir, sqliteFileName);
    } else {
      path = options.path as string;
      makeFolder(dirname(path));
    }
    let db: Database.Database | undefined;
    let engine: SqliteEngine;
    try {
      // A short busy timeout: the file belongs to one process; another owner is an error.
      db = new Database(path, { timeout: 500 });
      db.pragma("locking_mode = EXCLUSIVE");
      const mode = db.pragma("journal_mode = WAL", { simple: true });
      if (mode !== "wal") throw new Error(`journal_mode is ${String(mode)}, not wal`);
      db.pragma(`synchronous = ${synchronous}`);
      // Take the exclusive lock now, so a second owner fails here rather than later.
      db.exec("BEGIN EXCLUSIVE; COMMIT");
      engine = new SqliteEngine(db);
    } catch (cause) {
      db?.close();
      if (cause instanceof StorageError) throw cause;
      const code = (cause as { code?: unknown }).code;
      const detail =
        code === "SQLITE_BUSY" || code === "SQLITE_LOCKED"
          ? `cannot open ${path}: the database is locked by another process`
          : `cannot open ${path}: ${(cause as Error).message}${writableReason(path)}`;
      throw new StorageError("Unreachable", { detail, cause });
    }
    try {
      return new SqliteStorage(engine, path, options);
    } catch (error) {
      engine.close();
      throw error;
    }
  }
}

/**
 * Why `path` (or, when it does not exist, its folder) cannot be written, as `"; EROFS: read-only
 * file system, access '...'"`; `""` when it can. SQLite reports a read-only file system as a bare
 * "disk I/O error"; this names the cause. Never throws.
 */
function writableReason(path: string): string {
  for (const p of [path, dirname(path)]) {
    try {
      accessSync(p, constants.W_OK);
      return "";
    } catch (err) {
      if ((err as { code?: unknown }).code === "ENOENT") continue;
      return `; ${(err as Error).message}`;
    }
  }
  return "";
}

/**
 * Creates `dir` and its parents when missing.
 * @throws StorageError `Unreachable` naming `dir` and the system's reason (`EROFS: read-only file
 *   system`, `EACCES`...). Node's recursive mkdir reports ENOENT for a parent it cannot create, so
 *   the folder is tried once more on its own to get the real reason.
 */
function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (first) {
    let cause = first;
    try {
      mkdirSync(dir);
    } catch (second) {
      if ((second as { code?: unknown }).code !== "ENOENT") cause = second;
    }
    throw new StorageError("Unreachable", { detail: `cannot create ${dir}: ${(cause as Error).message}`, cause });
  }
}

/**
 * Opens (or creates) the SQLite storage at `path` or in `dataDir`.
 *
 * @throws StorageError `Unreachable` if the folder cannot be created, the file cannot be opened
 *   (read-only file system, permissions), is locked by another process or has a newer schema;
 *   `InvalidError` for bad options.
 * @example
 * const storage = await openSqliteStorage({ dataDir: ".skiff/data" });
 * try {
 *   await storage.create("/registry/jobs/default/pi", job);
 * } finally {
 *   await storage.close();
 * }
 */
export async function openSqliteStorage(options: SqliteStorageOptions): Promise<SqliteStorage> {
  return SqliteStorage.open(options);
}
