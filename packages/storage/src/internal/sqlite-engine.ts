import type BetterSqlite3 from "better-sqlite3";
import { StorageError } from "../errors.js";
import type { BatchWrite, ChangeRow, CommitResult, Entry, MvccEngine } from "./engine.js";
import type { KeyRange } from "./keys.js";

type Database = BetterSqlite3.Database;
type Statement<P extends unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

/** Schema version stored in `meta`; a file with a newer one is refused. */
const schemaVersion = 1;
/** Revisions compacted per transaction, so writers wait at most one short transaction. */
const compactionChunk = 5_000;

const schema = `
CREATE TABLE IF NOT EXISTS log (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  value TEXT,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS log_key_revision ON log (key, revision);
CREATE TABLE IF NOT EXISTS current (
  key TEXT PRIMARY KEY,
  revision INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/**
 * The changes of a key range after a revision (parameters: revision, range start, range end,
 * limit), read in revision order from the primary key, stopping after `limit` rows. `+l.key`
 * keeps SQLite off the (key, revision) index: for a prefix holding most of the log (every pod)
 * that plan read and sorted every row of the prefix for each page, so a watcher catching up 256
 * rows at a time cost O(log²). It reads every row after the revision, of any key: for a range
 * with few versions, {@link narrowRangeEventsSQL} is used instead.
 */
export const rangeEventsSQL =
  "SELECT l.key AS key, l.revision AS revision, l.value AS value, l.prev_revision AS prev_revision, p.value AS prev_value FROM log l LEFT JOIN log p ON p.revision = l.prev_revision WHERE l.revision > ? AND +l.key >= ? AND +l.key < ? ORDER BY l.revision LIMIT ?";

/**
 * {@link rangeEventsSQL} from the (key, revision) index (parameters: range start, range end,
 * revision, limit): it reads the range's versions only, then sorts the ones after the revision.
 * Used when the range holds fewer versions than the log holds rows after the revision (one
 * namespace's ConfigMaps caught up after thousands of pod writes), see {@link SqliteEngine.eventsPlan}.
 */
export const narrowRangeEventsSQL =
  "SELECT l.key AS key, l.revision AS revision, l.value AS value, l.prev_revision AS prev_revision, p.value AS prev_value FROM log l INDEXED BY log_key_revision LEFT JOIN log p ON p.revision = l.prev_revision WHERE l.key >= ? AND l.key < ? AND l.revision > ? ORDER BY l.revision LIMIT ?";

/** Versions a range must hold, at most, for {@link narrowRangeEventsSQL}; also the probe's bound. */
const narrowRangeMaxVersions = 4096;

interface LatestRow {
  key: string;
  revision: number;
  value: string;
  create_revision: number;
}

interface HistoryRow {
  key: string;
  revision: number;
  value: string | null;
  deleted: number;
}

interface EventRow {
  key: string;
  revision: number;
  value: string | null;
  prev_revision: number;
  prev_value: string | null;
}

/**
 * The SQLite engine. `log` holds every retained version (a delete is a row with `deleted = 1`
 * and a NULL value); `current` maps each live key to its latest revision; `meta` records the
 * schema version and the compaction horizon, so `ResourceVersionExpired` survives a restart.
 */
export class SqliteEngine implements MvccEngine {
  readonly #db: Database;
  #revision: number;
  #compacted: number;
  readonly #s: {
    latest: Statement<[string], LatestRow>;
    at: Statement<[string, number], HistoryRow>;
    listLatest: Statement<[string, string, number], LatestRow>;
    listAt: Statement<[string, string, number, number], HistoryRow>;
    countLatest: Statement<[string, string], { n: number }>;
    countAt: Statement<[string, string, number], { n: number }>;
    insert: Statement<[number, string, string | null, number, number, number]>;
    upsertCurrent: Statement<[string, number]>;
    deleteCurrent: Statement<[string]>;
    events: Statement<[number, string, string, number], EventRow>;
    keyEvents: Statement<[string, number, number], EventRow>;
    narrowEvents: Statement<[string, string, number, number], EventRow>;
    rangeVersions: Statement<[string, string, number], { n: number }>;
    compactSuperseded: Statement<[number, number]>;
    compactTombstones: Statement<[number, number]>;
    setMeta: Statement<[string, number]>;
  };
  readonly #commitTx: (key: string, value: string | null, expected: number, revision: number) => CommitResult;
  readonly #batchTx: (writes: readonly BatchWrite[]) => { results: Array<CommitResult | StorageError>; revision: number };
  readonly #compactTx: (from: number, to: number) => void;

  constructor(db: Database) {
    this.#db = db;
    db.exec(schema);
    const meta = new Map(
      (db.prepare("SELECT name, value FROM meta").all() as { name: string; value: number }[]).map((r) => [r.name, r.value]),
    );
    const version = meta.get("schema_version");
    if (version !== undefined && version > schemaVersion) {
      throw new StorageError("Unreachable", { detail: `storage file has schema version ${version}, this build reads up to ${schemaVersion}` });
    }
    const s = {
      latest: db.prepare<[string], LatestRow>(
        "SELECT c.key AS key, l.revision AS revision, l.value AS value, l.create_revision AS create_revision FROM current c JOIN log l ON l.revision = c.revision WHERE c.key = ?",
      ),
      at: db.prepare<[string, number], HistoryRow>(
        "SELECT key, revision, value, deleted FROM log WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1",
      ),
      listLatest: db.prepare<[string, string, number], LatestRow>(
        "SELECT c.key AS key, l.revision AS revision, l.value AS value, l.create_revision AS create_revision FROM current c JOIN log l ON l.revision = c.revision WHERE c.key >= ? AND c.key < ? ORDER BY c.key LIMIT ?",
      ),
      // SQLite takes the bare columns of a MAX() aggregate from the row holding the maximum.
      listAt: db.prepare<[string, string, number, number], HistoryRow>(
        "SELECT key, value, deleted, MAX(revision) AS revision FROM log WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key HAVING deleted = 0 ORDER BY key LIMIT ?",
      ),
      countLatest: db.prepare<[string, string], { n: number }>("SELECT COUNT(*) AS n FROM current WHERE key >= ? AND key < ?"),
      countAt: db.prepare<[string, string, number], { n: number }>(
        "SELECT COUNT(*) AS n FROM (SELECT deleted, MAX(revision) FROM log WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key HAVING deleted = 0)",
      ),
      insert: db.prepare<[number, string, string | null, number, number, number]>(
        "INSERT INTO log (revision, key, value, deleted, create_revision, prev_revision) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      upsertCurrent: db.prepare<[string, number]>(
        "INSERT INTO current (key, revision) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET revision = excluded.revision",
      ),
      deleteCurrent: db.prepare<[string]>("DELETE FROM current WHERE key = ?"),
      events: db.prepare<[number, string, string, number], EventRow>(rangeEventsSQL),
      narrowEvents: db.prepare<[string, string, number, number], EventRow>(narrowRangeEventsSQL),
      // The versions a range holds, counted from the index up to a bound (parameters: range
      // start, range end, bound): the probe costs at most the bound's index entries.
      rangeVersions: db.prepare<[string, string, number], { n: number }>(
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM log INDEXED BY log_key_revision WHERE key >= ? AND key < ? LIMIT ?)",
      ),
      // One key: its versions from the (key, revision) index.
      keyEvents: db.prepare<[string, number, number], EventRow>(
        "SELECT l.key AS key, l.revision AS revision, l.value AS value, l.prev_revision AS prev_revision, p.value AS prev_value FROM log l LEFT JOIN log p ON p.revision = l.prev_revision WHERE l.key = ? AND l.revision > ? ORDER BY l.revision LIMIT ?",
      ),
      // A version is superseded at C when a later version of its key is at or below C: that later
      // row names it in prev_revision. Tombstones at or below C go too.
      compactSuperseded: db.prepare<[number, number]>(
        "DELETE FROM log WHERE revision IN (SELECT prev_revision FROM log WHERE revision > ? AND revision <= ? AND prev_revision > 0)",
      ),
      compactTombstones: db.prepare<[number, number]>("DELETE FROM log WHERE revision > ? AND revision <= ? AND deleted = 1"),
      setMeta: db.prepare<[string, number]>(
        "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
      ),
    };
    this.#s = s;
    if (version === undefined) s.setMeta.run("schema_version", schemaVersion);
    this.#compacted = meta.get("compacted_revision") ?? 0;
    const maxRow = db.prepare("SELECT MAX(revision) AS m FROM log").get() as { m: number | null };
    // Compaction may have removed the newest row (a tombstone), never revisions above the horizon.
    this.#revision = Math.max(maxRow.m ?? 0, this.#compacted);

    // `revision`: the one this write gets when it applies.
    this.#commitTx = db.transaction((key: string, value: string | null, expected: number, revision: number): CommitResult => {
      const prev = s.latest.get(key);
      const currentRevision = prev?.revision ?? 0;
      if (currentRevision !== expected || (value === null && prev === undefined)) return { ok: false, currentRevision };
      s.insert.run(revision, key, value, value === null ? 1 : 0, prev?.create_revision ?? revision, currentRevision);
      if (value === null) s.deleteCurrent.run(key);
      else s.upsertCurrent.run(key, revision);
      return { ok: true, change: { key, revision, value, prevRevision: currentRevision, prevValue: prev?.value ?? null } };
    });
    // Each write runs in a savepoint (better-sqlite3 nests transactions so): a write whose
    // statements fail is undone alone. An error that ended the whole transaction (SQLite rolls
    // back by itself on some I/O and disk-full errors, or RAISE(ROLLBACK)) fails the batch.
    this.#batchTx = db.transaction((writes: readonly BatchWrite[]) => {
      let revision = this.#revision;
      const results: Array<CommitResult | StorageError> = [];
      for (const w of writes) {
        try {
          const r = this.#commitTx(w.key, w.value, w.expectedRevision, revision + 1);
          if (r.ok) revision = r.change.revision;
          results.push(r);
        } catch (cause) {
          if (!db.inTransaction) throw cause;
          results.push(sqliteError(cause, true));
        }
      }
      return { results, revision };
    });
    this.#compactTx = db.transaction((from: number, to: number) => {
      s.compactSuperseded.run(from, to);
      s.compactTombstones.run(from, to);
      s.setMeta.run("compacted_revision", to);
    });
  }

  get currentRevision(): number {
    return this.#revision;
  }

  get compactedRevision(): number {
    return this.#compacted;
  }

  getLatest(key: string): Entry | undefined {
    const row = this.#run(() => this.#s.latest.get(key));
    return row === undefined ? undefined : { key: row.key, revision: row.revision, value: row.value };
  }

  getAt(key: string, revision: number): Entry | undefined {
    const row = this.#run(() => this.#s.at.get(key, revision));
    return row === undefined || row.deleted !== 0 ? undefined : { key: row.key, revision: row.revision, value: row.value as string };
  }

  listLatest(range: KeyRange, limit: number): Entry[] {
    const rows = this.#run(() => this.#s.listLatest.all(range.start, range.end, limit > 0 ? limit : -1));
    return rows.map((r) => ({ key: r.key, revision: r.revision, value: r.value }));
  }

  listAt(range: KeyRange, revision: number, limit: number): Entry[] {
    const rows = this.#run(() => this.#s.listAt.all(range.start, range.end, revision, limit > 0 ? limit : -1));
    return rows.map((r) => ({ key: r.key, revision: r.revision, value: r.value as string }));
  }

  countLatest(range: KeyRange): number {
    return this.#run(() => (this.#s.countLatest.get(range.start, range.end) as { n: number }).n);
  }

  countAt(range: KeyRange, revision: number): number {
    return this.#run(() => (this.#s.countAt.get(range.start, range.end, revision) as { n: number }).n);
  }

  commit(key: string, value: string | null, expectedRevision: number): CommitResult {
    const result = this.#run(() => this.#commitTx(key, value, expectedRevision, this.#revision + 1), true);
    if (result.ok) this.#revision = result.change.revision;
    return result;
  }

  commitBatch(writes: readonly BatchWrite[]): Array<CommitResult | StorageError> {
    const { results, revision } = this.#run(() => this.#batchTx(writes), true);
    this.#revision = revision;
    return results;
  }

  /**
   * How {@link readEvents} reads `range` after `afterRevision`, chosen by what each plan reads:
   * `"key"` (one key, from the index); `"index"` (a range holding fewer versions than the log
   * has rows after `afterRevision`, counted from the index up to 4,096: one namespace's
   * ConfigMaps after thousands of pod writes); `"log"` (a broad range such as every pod: the rows
   * after `afterRevision` in revision order from the primary key).
   */
  eventsPlan(range: KeyRange, afterRevision: number): "key" | "index" | "log" {
    if (range.end === `${range.start}\u0000`) return "key";
    const bound = Math.min(narrowRangeMaxVersions, this.#revision - afterRevision);
    if (bound <= 0) return "log";
    const versions = this.#run(() => this.#s.rangeVersions.get(range.start, range.end, bound)?.n ?? 0);
    return versions < bound ? "index" : "log";
  }

  readEvents(range: KeyRange, afterRevision: number, limit: number): ChangeRow[] {
    const plan = this.eventsPlan(range, afterRevision);
    const rows = this.#run(() =>
      plan === "key"
        ? this.#s.keyEvents.all(range.start, afterRevision, limit)
        : plan === "index"
          ? this.#s.narrowEvents.all(range.start, range.end, afterRevision, limit)
          : this.#s.events.all(afterRevision, range.start, range.end, limit),
    );
    return rows.map((r) => ({ key: r.key, revision: r.revision, value: r.value, prevRevision: r.prev_revision, prevValue: r.prev_value }));
  }

  compactStep(revision: number): number {
    const target = Math.min(revision, this.#revision);
    if (target <= this.#compacted) return this.#compacted;
    const to = Math.min(target, this.#compacted + compactionChunk);
    this.#run(() => this.#compactTx(this.#compacted, to), true);
    this.#compacted = to;
    return to;
  }

  close(): void {
    if (!this.#db.open) return;
    try {
      this.#db.pragma("wal_checkpoint(TRUNCATE)");
    } catch {
      // A checkpoint that cannot run (disk full, read-only file) loses nothing: the WAL keeps
      // every commit and the next open replays it.
    } finally {
      this.#db.close();
    }
  }

  /**
   * Runs one statement or transaction, turning SQLite's errors into StorageErrors. A write
   * transaction that fails has been rolled back (better-sqlite3's `transaction` wrapper; a WAL
   * commit is atomic), so a write error is `Internal` (nothing applied, say why); a read error is
   * `Unreachable`.
   */
  #run<T>(fn: () => T, write = false): T {
    try {
      return fn();
    } catch (cause) {
      if (cause instanceof StorageError) throw cause;
      throw sqliteError(cause, write);
    }
  }
}

/**
 * The StorageError for an error better-sqlite3 threw: `Internal` for a write (`SQLITE_FULL`: the
 * disk is full; `SQLITE_READONLY*`: the file or folder is read-only; `SQLITE_IOERR*`...), with
 * SQLite's words and code, e.g. `sqlite: database or disk is full (SQLITE_FULL)`; `Unreachable`
 * for a read.
 */
function sqliteError(cause: unknown, write: boolean): StorageError {
  const code = (cause as { code?: unknown }).code;
  const detail = `sqlite: ${(cause as Error).message}${typeof code === "string" ? ` (${code})` : ""}`;
  return new StorageError(write ? "Internal" : "Unreachable", { detail, cause });
}
