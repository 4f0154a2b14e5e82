import { MemoryEngine } from "./internal/memory-engine.js";
import type { MvccStorageOptions } from "./internal/mvcc-storage.js";
import { MvccStorage } from "./internal/mvcc-storage.js";

/**
 * Options of {@link MemoryStorage}: compaction timer and watch buffer, as for SQLite.
 * `compactionIntervalMs` defaults to 300000 (5 minutes); 0 disables the timer.
 */
export type MemoryStorageOptions = MvccStorageOptions;

/**
 * A pure in-memory {@link Storage} with exactly the semantics of the SQLite backend (revisions,
 * MVCC reads, compaction, watch from any retained revision); nothing survives the process. Meant
 * for tests of the packages above storage and as the second implementation the conformance
 * suite runs on. History grows until compacted, as with SQLite.
 *
 * @example
 * const storage = new MemoryStorage({ compactionIntervalMs: 0 });
 * await storage.create("/registry/widgets/default/a", { metadata: { name: "a" } });
 */
export class MemoryStorage extends MvccStorage {
  constructor(options: MemoryStorageOptions = {}) {
    super(new MemoryEngine(), options);
  }
}
