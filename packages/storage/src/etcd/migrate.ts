import { StorageError, isStorageError } from "../errors.js";
import type { Revision, Storage, StoredObject } from "../types.js";

/** Options of {@link migrateStorage}. */
export interface MigrateStorageOptions {
  /** The directory copied (every key under it). @defaultValue "/registry" */
  readonly prefix?: string;
  /** Called after each object is copied or skipped (progress reporting). */
  readonly onObject?: (key: string, outcome: "copied" | "skipped") => void;
}

/** What {@link migrateStorage} did. */
export interface MigrateStorageResult {
  /** Objects created in the target. */
  readonly copied: number;
  /** Objects already in the target with the same content (a re-run after an interruption). */
  readonly skipped: number;
  /** The source revision the copy was read at. */
  readonly sourceRevision: Revision;
}

/**
 * Copies every live object under `prefix` from `source` to `target` (e.g. a SQLite data dir into
 * etcd), reading the source at one revision. Objects keep their content (uid, timestamps,
 * everything) but get new resourceVersions: the target's revisions (their order follows the keys). An object already present in
 * the target with the same content is skipped, so an interrupted migration can simply be re-run.
 * Neither storage is closed. Run it while no apiserver writes to either (SQLite's lock refuses a
 * second owner of the data dir anyway).
 *
 * @throws StorageError `KeyExists` when the target holds a different object at a key; any error
 *   of either storage.
 * @example
 * const from = await openSqliteStorage({ dataDir: ".skiff/data" });
 * const to = await openEtcdStorage({ servers: ["http://127.0.0.1:2379"] });
 * const { copied } = await migrateStorage(from, to);
 */
export async function migrateStorage(source: Storage, target: Storage, options: MigrateStorageOptions = {}): Promise<MigrateStorageResult> {
  const prefix = options.prefix ?? "/registry";
  // List results carry no keys; a watch from "0" starts with one ADDED event (with its key) per
  // live object at one revision. Nothing else writes to the source, so `count` bounds it.
  const total = await source.count(prefix);
  const sourceRevision = await source.currentRevision();
  const watcher = await source.watch(prefix, { recursive: true });
  let copied = 0;
  let skipped = 0;
  try {
    for (let seen = 0; seen < total; ) {
      const r = await watcher.next();
      if (r.done) throw new StorageError("Unreachable", { key: prefix, detail: "the source ended its watch during the migration" });
      const event = r.value;
      if (event.type === "ERROR") throw event.error;
      if (event.type !== "ADDED") continue;
      seen++;
      const object = withoutResourceVersion(event.object);
      try {
        await target.create(event.key, object);
        copied++;
        options.onObject?.(event.key, "copied");
      } catch (error) {
        if (!isStorageError(error, "KeyExists")) throw error;
        const existing = await target.get(event.key, { ignoreNotFound: true });
        if (existing === null || JSON.stringify(withoutResourceVersion(existing)) !== JSON.stringify(object)) {
          throw new StorageError("KeyExists", { key: event.key, detail: `the target already holds a different object at ${event.key}`, cause: error });
        }
        skipped++;
        options.onObject?.(event.key, "skipped");
      }
    }
  } finally {
    watcher.stop();
  }
  return { copied, skipped, sourceRevision };
}

function withoutResourceVersion(object: StoredObject): StoredObject {
  const copy = structuredClone(object);
  if (copy.metadata !== undefined) delete copy.metadata.resourceVersion;
  return copy;
}
