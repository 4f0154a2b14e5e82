/**
 * @skiff/storage/testing: the conformance suite every storage backend (and the watch cache) runs.
 */
export { runStorageConformance } from "./conformance.js";
export type { StorageFactory, StorageFactoryResult } from "./conformance.js";
