#!/usr/bin/env node
// skiff-scheduler: parse flags, load the kubeconfig, start the scheduler; SIGINT/SIGTERM stop it.
import { tracerFromEnv } from "@skiff/apimachinery";
import { createClient, loadClusterConfig } from "@skiff/client";
import { formatSchedulerHelp, parseSchedulerOptions } from "./options.js";
import { Scheduler } from "./scheduler.js";

async function main(argv: readonly string[]): Promise<number> {
  const r = parseSchedulerOptions(argv);
  for (const w of r.warnings) process.stderr.write(`${w}\n`);
  if (!r.ok) {
    for (const e of r.errors) process.stderr.write(`Error: ${e}\n`);
    return 1;
  }
  const o = r.value;
  if (o.help) {
    process.stdout.write(formatSchedulerHelp());
    return 0;
  }
  const client = createClient(await loadClusterConfig(o.clusterconfig), { qps: o.clusterAPIQPS, burst: o.clusterAPIBurst, userAgent: "skiff-scheduler" });
  const log = (level: number, message: string) => {
    if (level <= o.verbosity) process.stderr.write(`${new Date().toISOString()} scheduler: ${message}\n`);
  };
  // SKIFF_TRACE_FILE: per-pod spans (see @skiff/apimachinery's trace module).
  const scheduler = new Scheduler({ client, schedulerName: o.schedulerName, log, tracer: tracerFromEnv("scheduler") });
  await scheduler.start();
  log(0, "scheduler started: caches synced");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await scheduler.stop();
  client.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
