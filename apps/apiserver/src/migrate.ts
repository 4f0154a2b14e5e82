/**
 * `--migrate-sqlite-to-etcd=<data-dir>`: a one-shot copy of a SQLite data dir into etcd
 * (`--etcd-servers`, `--etcd-prefix`), after which skiff-apiserver exits. Objects keep their
 * content and get etcd revisions as resourceVersions; a re-run skips what was already copied.
 * Kubernetes has no counterpart (its only backend is etcd); see the README, "Storage".
 */
import { migrateStorage, openEtcdStorage, openSqliteStorage } from "@skiff/storage";
import type { APIServerOptions } from "./options.js";
import { etcdStorageOptions } from "./storage.js";

/**
 * Copies every object of the SQLite storage in `o.migrateSqliteToEtcd` into etcd (no compaction
 * requests meanwhile) and returns the one-line summary to print. Closes both storages.
 * @throws StorageError when either storage fails, or when etcd holds a different object under a
 *   copied key (never overwritten).
 */
export async function migrateSqliteToEtcd(o: APIServerOptions): Promise<string> {
  const from = await openSqliteStorage({ dataDir: o.migrateSqliteToEtcd, compactionIntervalMs: 0 });
  try {
    const to = await openEtcdStorage({ ...etcdStorageOptions(o), compactionIntervalMs: 0 });
    try {
      const r = await migrateStorage(from, to);
      return `Migrated ${r.copied} objects (${r.skipped} already present) from ${o.migrateSqliteToEtcd} (revision ${r.sourceRevision}) into etcd under ${o.etcdPrefix}\n`;
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
