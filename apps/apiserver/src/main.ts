#!/usr/bin/env node
/**
 * skiff-apiserver: parse flags, build the config, wire the packages, serve HTTPS.
 * @see cmd/kube-apiserver/app/server.go
 */
import { randomUUID } from "node:crypto";
import { WatchCache, createAPIServer, handleHealth, logCheck, namespaceLifecycle, pingCheck, reviewResources, reviewRoutes } from "@skiff/apiserver-core";
import type { APIObject, HealthCheck, NonResourceRoute } from "@skiff/apiserver-core";
import { LabelMetadataName } from "@skiff/api-types";
import { nodeAgentFeatureGates } from "@skiff/feature-gates";
import { isStorageError, migrateStorage, openEtcdStorage, openSqliteStorage } from "@skiff/storage";
import type { EtcdStorageOptions, Storage } from "@skiff/storage";
import { buildAuthenticator, buildAuthorizer, loadClientCA } from "./auth/chain.js";
import { loadTokenFile } from "./auth/token-file.js";
import { loadOrGenerateCertificates } from "./certs.js";
import { discoveryRoutes } from "./discovery-routes.js";
import { formatAPIServerHelp, parseAPIServerOptions } from "./options.js";
import { startControllers } from "./controllers/index.js";
import { createAllStrategies } from "./registry/index.js";
import { loadOrCreateNodeAgentClientCertificate, podLogRoutes } from "./pod-log-proxy.js";
import { tuneHeap } from "./heap.js";

/**
 * `SKIFF_WATCH_BOOKMARK_INTERVAL_MS`: the period of watch BOOKMARK events (default 60000, as
 * 1.23's cacher sends them about every minute). For tests only; not a flag of the contract.
 */
function watchBookmarkInterval(): { bookmarkIntervalMs?: number } {
  const raw = process.env["SKIFF_WATCH_BOOKMARK_INTERVAL_MS"];
  const ms = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(ms) && ms > 0 ? { bookmarkIntervalMs: ms } : {};
}

/** The version /version and --version report. */
export const skiffVersion = { major: "1", minor: "23", gitVersion: "v1.23.0-skiff.0" };

/** Namespaces created at startup when missing. */
export const bootstrapNamespaces: readonly string[] = ["default", "kube-system", "kube-public", "kube-node-lease"];

async function ensureNamespaces(storage: Storage): Promise<void> {
  for (const name of bootstrapNamespaces) {
    const key = `/registry/core/namespaces/${name}`;
    if ((await storage.get(key, { ignoreNotFound: true })) !== null) continue;
    const created = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    // Created as 1.23's apiserver creates them: the name label, and a managedFields entry (so
    // later updates are tracked; objects without one are tracked again only from an apply).
    const ns: APIObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name,
        uid: randomUUID(),
        creationTimestamp: created,
        labels: { [LabelMetadataName]: name },
        managedFields: [{ manager: "skiff-apiserver", operation: "Update", apiVersion: "v1", time: created, fieldsType: "FieldsV1", fieldsV1: { "f:metadata": { "f:labels": { ".": {}, [`f:${LabelMetadataName}`]: {} } } } }],
      },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    };
    // Several apiservers may start together on one etcd: the first create wins, the others see KeyExists.
    await storage.create(key, ns as never).catch((e: unknown) => {
      if (!isStorageError(e, "KeyExists")) throw e;
    });
  }
}

function healthRoutes(endpoint: string, checks: readonly HealthCheck[]): NonResourceRoute[] {
  const handler: NonResourceRoute["handler"] = async (req, reply) => {
    const path = req.url.split("?")[0] ?? req.url;
    const res = await handleHealth(endpoint, path, req.query as Record<string, string>, checks);
    return reply.code(res.status).headers(res.headers).send(res.body);
  };
  return [
    { method: "GET", url: `/${endpoint}`, public: true, handler },
    { method: "GET", url: `/${endpoint}/*`, public: true, handler },
  ];
}

async function withNodeAgentClientCertificate(certDir: string): Promise<{ clientCertificate?: { cert: string; key: string } }> {
  const c = await loadOrCreateNodeAgentClientCertificate(certDir);
  return c ? { clientCertificate: c } : {};
}

async function main(argv: readonly string[]): Promise<number> {
  tuneHeap();
  const gates = nodeAgentFeatureGates();
  const r = parseAPIServerOptions(argv, gates.featureNames());
  for (const w of r.warnings) process.stderr.write(`${w}\n`);
  if (!r.ok) {
    for (const e of r.errors) process.stderr.write(`Error: ${e}\n`);
    return 1;
  }
  const o = r.value;
  if (o.help) {
    process.stdout.write(formatAPIServerHelp());
    return 0;
  }
  if (o.version !== false) {
    process.stdout.write(o.version === "raw" ? `${JSON.stringify(skiffVersion)}\n` : `Kubernetes ${skiffVersion.gitVersion}\n`);
    return 0;
  }
  gates.setFromMap(o.featureGates);
  const tokens = o.tokenAuthFile === "" ? new Map() : await loadTokenFile(o.tokenAuthFile);
  const certs = await loadOrGenerateCertificates(o);
  const clientCA = await loadClientCA(o.clientCAFile);
  const authenticator = buildAuthenticator({ anonymousAuth: o.anonymousAuth, clientCA: clientCA !== undefined }, tokens);
  const authorizer = await buildAuthorizer(o);
  const etcdOptions: EtcdStorageOptions = {
    servers: o.etcdServers,
    prefix: o.etcdPrefix,
    compactionIntervalMs: o.etcdCompactionInterval.ms,
    ...(o.etcdCAFile === "" ? {} : { caFile: o.etcdCAFile }),
    ...(o.etcdCertFile === "" ? {} : { certFile: o.etcdCertFile, keyFile: o.etcdKeyFile }),
  };
  if (o.migrateSqliteToEtcd !== "") {
    // One-shot: copy a SQLite data dir into etcd, then exit.
    const from = await openSqliteStorage({ dataDir: o.migrateSqliteToEtcd, compactionIntervalMs: 0 });
    try {
      const to = await openEtcdStorage({ ...etcdOptions, compactionIntervalMs: 0 });
      try {
        const r = await migrateStorage(from, to);
        process.stdout.write(`Migrated ${r.copied} objects (${r.skipped} already present) from ${o.migrateSqliteToEtcd} (revision ${r.sourceRevision}) into etcd under ${o.etcdPrefix}\n`);
      } finally {
        await to.close();
      }
    } finally {
      await from.close();
    }
    return 0;
  }
  const storage = o.etcdServers.length > 0 ? await openEtcdStorage(etcdOptions) : await openSqliteStorage({ dataDir: o.dataDir });
  await ensureNamespaces(storage);
  const strategies = createAllStrategies({
    jobReadyPods: gates.enabled("JobReadyPods"),
    jobTrackingWithFinalizers: gates.enabled("JobTrackingWithFinalizers"),
    jobMutableNodeSchedulingDirectives: gates.enabled("JobMutableNodeSchedulingDirectives"),
  });
  // One backend watch for every watcher; reads and writes pass through to the backend.
  const cache = new WatchCache(storage, { prefix: "/registry/", ...watchBookmarkInterval() });
  // The garbage collector and the namespace controller run in this process (see controllers/),
  // in one apiserver at a time when several share a storage (leader election on a Lease).
  const stopControllers = await startControllers(
    strategies,
    cache,
    (line) => {
      if (o.verbosity >= 2) process.stderr.write(`${line}\n`);
    },
    { elect: o.etcdServers.length > 0 },
  );
  const server = createAPIServer({
    strategies,
    storage: cache,
    authenticator,
    authorizer,
    limits: {
      maxRequestsInFlight: o.maxRequestsInflight,
      maxMutatingRequestsInFlight: o.maxMutatingRequestsInflight,
      requestTimeoutMs: o.requestTimeout.ms,
      minRequestTimeoutSeconds: o.minRequestTimeout,
    },
    admission: [namespaceLifecycle(storage)],
    tls: { cert: certs.cert, key: certs.key, ...(clientCA !== undefined ? { ca: clientCA, requestCert: true } : {}) },
    verbosity: o.verbosity,
    extraRoutes: [
      ...discoveryRoutes(reviewResources),
      ...reviewRoutes({ authenticator, authorizer }),
      // pods/log proxies to the node agent, presenting a client certificate signed by our CA.
      ...podLogRoutes({ strategies, storage: cache, ...(await withNodeAgentClientCertificate(o.certDir)) }),
      ...["healthz", "livez", "readyz"].flatMap((endpoint) => healthRoutes(endpoint, [pingCheck, logCheck])),
      {
        method: "GET",
        url: "/version",
        handler: () => ({ ...skiffVersion, gitCommit: "", gitTreeState: "clean", buildDate: "", goVersion: "", compiler: "node", platform: "linux/amd64" }),
      },
    ],
  });
  const address = await server.listen({ host: o.bindAddress, port: o.securePort });
  process.stderr.write(`Serving securely on ${address.replace(/^https?:\/\//, "")}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  await stopControllers();
  await server.close();
  await storage.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
