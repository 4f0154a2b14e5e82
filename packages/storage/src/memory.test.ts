import { runStorageConformance } from "./testing/index.js";
import { MemoryStorage } from "./memory-storage.js";

runStorageConformance("memory", async () => {
  const storage = new MemoryStorage({ compactionIntervalMs: 0 });
  return { storage, cleanup: () => storage.close() };
});
