/**
 * The storage backend of skiff-apiserver from its flags: etcd v3 when `--etcd-servers` is set,
 * else SQLite in `--data-dir` (one apiserver per data dir: the file is locked).
 *
 * @see staging/src/k8s.io/apiserver/pkg/server/options/etcd.go (EtcdOptions)
 * @see staging/src/k8s.io/apiserver/pkg/storage/storagebackend/factory/etcd3.go
 */
import { openEtcdStorage, openSqliteStorage } from "@skiff/storage";
import type { EtcdStorageOptions, Storage } from "@skiff/storage";
import type { APIServerOptions } from "./options.js";

/** Whether the apiserver stores in etcd (and may share it with other apiservers). */
export function usesEtcd(o: Pick<APIServerOptions, "etcdServers">): boolean {
  return o.etcdServers.length > 0;
}

/**
 * The etcd connection of `--etcd-servers`, `--etcd-prefix`, `--etcd-cafile`, `--etcd-certfile`,
 * `--etcd-keyfile` and `--etcd-compaction-interval` (ms; 0 disables compaction requests).
 * Reads no file itself.
 */
export function etcdStorageOptions(o: APIServerOptions): EtcdStorageOptions {
  return {
    servers: o.etcdServers,
    prefix: o.etcdPrefix,
    compactionIntervalMs: o.etcdCompactionInterval.ms,
    ...(o.etcdCAFile === "" ? {} : { caFile: o.etcdCAFile }),
    ...(o.etcdCertFile === "" ? {} : { certFile: o.etcdCertFile, keyFile: o.etcdKeyFile }),
  };
}

/**
 * Opens the apiserver's storage: etcd when {@link usesEtcd}, else SQLite in `--data-dir`.
 * The caller closes it.
 * @throws StorageError (`Unreachable`) when etcd cannot be reached; an Error when the SQLite file
 *   is locked by another process or cannot be opened.
 */
export async function openAPIServerStorage(o: APIServerOptions): Promise<Storage> {
  return usesEtcd(o) ? openEtcdStorage(etcdStorageOptions(o)) : openSqliteStorage({ dataDir: o.dataDir });
}
