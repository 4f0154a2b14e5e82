/**
 * @skiff/storage: the MVCC storage interface of the Skiff apiserver and its backends.
 *
 * @see staging/src/k8s.io/apiserver/pkg/storage/interfaces.go
 */
export { StorageError, StorageErrorCode, isStorageError } from "./errors.js";
export type { StorageErrorInit } from "./errors.js";
export type {
  DeleteOptions,
  DeleteResult,
  GetOptions,
  GuaranteedUpdateOptions,
  ListContinue,
  ListOptions,
  ListResult,
  EncodedListOptions,
  EncodedListResult,
  Preconditions,
  ResourceVersionMatch,
  Revision,
  Storage,
  StoragePredicate,
  StoredObject,
  StoredObjectMeta,
  UpdateFunc,
  WatchBookmarkEvent,
  WatchChangeEvent,
  WatchErrorEvent,
  WatchEvent,
  WatchEventType,
  WatchOptions,
  WatchTrigger,
  Watcher,
  WriteResult,
} from "./types.js";
export { MemoryStorage } from "./memory-storage.js";
export type { MemoryStorageOptions } from "./memory-storage.js";
export { SqliteStorage, openSqliteStorage, sqliteFileName } from "./sqlite-storage.js";
export type { SqliteStorageOptions } from "./sqlite-storage.js";
export { EtcdStorage, openEtcdStorage } from "./etcd/etcd-storage.js";
export type { EtcdStorageOptions } from "./etcd/etcd-storage.js";
export { findEtcdBinary, freeLoopbackPort, freeLoopbackPortRange, startLocalEtcd } from "./etcd/local-etcd.js";
export type { LocalEtcd, LocalEtcdOptions } from "./etcd/local-etcd.js";
export { migrateStorage } from "./etcd/migrate.js";
export type { MigrateStorageOptions, MigrateStorageResult } from "./etcd/migrate.js";
