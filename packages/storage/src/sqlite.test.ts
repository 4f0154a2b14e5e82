import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStorageConformance } from "./testing/index.js";
import type { SqliteStorage } from "./sqlite-storage.js";
import { openSqliteStorage } from "./sqlite-storage.js";

runStorageConformance("sqlite", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "skiff-storage-"));
  let storage: SqliteStorage = await openSqliteStorage({ dataDir, compactionIntervalMs: 0 });
  return {
    storage,
    reopen: async () => {
      await storage.close();
      storage = await openSqliteStorage({ dataDir, compactionIntervalMs: 0 });
      return storage;
    },
    cleanup: async () => {
      await storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
