#!/usr/bin/env node
/**
 * skiff-apiserver: parse flags, build the config, wire the packages, serve HTTPS.
 * @see cmd/kube-apiserver/app/server.go
 */
import { randomUUID } from "node:crypto";
import { WatchCache, alwaysAllowAuthorizer, createAPIServer, handleHealth, logCheck, namespaceLifecycle, pingCheck } from "@skiff/apiserver-core";
import type { APIObject, HealthCheck, NonResourceRoute } from "@skiff/apiserver-core";
import { nodeAgentFeatureGates } from "@skiff/feature-gates";
import { openSqliteStorage } from "@skiff/storage";
import type { Storage } from "@skiff/storage";
import { authenticateBearer, loadTokenFile } from "./auth/token-file.js";
import { loadOrGenerateCertificates } from "./certs.js";
import { discoveryRoutes } from "./discovery-routes.js";
import { formatAPIServerHelp, parseAPIServerOptions } from "./options.js";
import { createAllStrategies } from "./registry/index.js";

/** The version /version and --version report. */
export const skiffVersion = { major: "1", minor: "23", gitVersion: "v1.23.0-skiff.0" };

/** Namespaces created at startup when missing. */
export const bootstrapNamespaces: readonly string[] = ["default", "kube-system", "kube-public", "kube-node-lease"];

async function ensureNamespaces(storage: Storage): Promise<void> {
  for (const name of bootstrapNamespaces) {
    const key = `/registry/core/namespaces/${name}`;
    if ((await storage.get(key, { ignoreNotFound: true })) !== null) continue;
    const ns: APIObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name, uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z") },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    };
    await storage.create(key, ns as never).catch(() => undefined);
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

async function main(argv: readonly string[]): Promise<number> {
  const gates = nodeAgentFeatureGates();
  const r = parseAPIServerOptions(argv, gates.knownFeatures());
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
  const storage = await openSqliteStorage({ dataDir: o.dataDir });
  await ensureNamespaces(storage);
  const server = createAPIServer({
    strategies: createAllStrategies({
      jobReadyPods: gates.enabled("JobReadyPods"),
      jobTrackingWithFinalizers: gates.enabled("JobTrackingWithFinalizers"),
      jobMutableNodeSchedulingDirectives: gates.enabled("JobMutableNodeSchedulingDirectives"),
    }),
    // One backend watch for every watcher; writes and consistent reads pass through.
    storage: new WatchCache(storage, { prefix: "/registry/" }),
    authenticator: (req) => {
      const h = req.headers["authorization"];
      const res = authenticateBearer(Array.isArray(h) ? h[0] : h, tokens, o.anonymousAuth);
      return res.ok ? res.user : null;
    },
    authorizer: alwaysAllowAuthorizer,
    admission: [namespaceLifecycle(storage)],
    tls: { cert: certs.cert, key: certs.key },
    verbosity: o.verbosity,
    extraRoutes: [
      ...discoveryRoutes(),
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
