#!/usr/bin/env node
/**
 * skiff-apiserver: parse flags, build the config, wire the packages, serve HTTPS until SIGTERM or
 * SIGINT. What it starts is in `server.ts`; routes are in `routes/`, the bootstrap namespaces in
 * `bootstrap.ts`, the in-process controllers in `controllers/`.
 * @see cmd/kube-apiserver/app/server.go
 */
import { nodeAgentFeatureGates } from "@skiff/feature-gates";
import { tuneHeap } from "./heap.js";
import { migrateSqliteToEtcd } from "./migrate.js";
import { formatAPIServerHelp, parseAPIServerOptions } from "./options.js";
import { formatVersion } from "./routes/version.js";
import { startAPIServer } from "./server.js";

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
    process.stdout.write(formatVersion(o.version === "raw"));
    return 0;
  }
  gates.setFromMap(o.featureGates);
  if (o.migrateSqliteToEtcd !== "") {
    // One-shot: copy a SQLite data dir into etcd, then exit.
    process.stdout.write(await migrateSqliteToEtcd(o));
    return 0;
  }
  const server = await startAPIServer(o, gates);
  process.stderr.write(`Serving securely on ${server.address.replace(/^https?:\/\//, "")}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
  });
  await server.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
