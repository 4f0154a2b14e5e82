#!/usr/bin/env node
/**
 * skiff-job-controller (alias skiff-controller-manager), the controller manager: parse flags, build
 * the one controller context (client, event client, shared informers, gates, options, log), start
 * the controllers `--controllers` enables from the table (each with its own service account's
 * client under `--use-service-account-credentials`), run until SIGINT/SIGTERM, stop.
 *
 * @see cmd/kube-controller-manager/app/controllermanager.go (Run, CreateControllerContext, StartControllers)
 */
import { createClient, createSharedInformerFactory, loadClusterConfig } from "@skiff/client";
import type { Client } from "@skiff/client";
import { serviceAccountClientBuilder } from "./client-builder.js";
import { enabledControllers, startControllers, stopControllers } from "./controller-manager.js";
import type { ControllerContext } from "./controller-manager.js";
import { controllerInitializers } from "./controllers.js";
import { commandName, formatControllerManagerHelp, parseControllerManagerOptions } from "./options.js";

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseControllerManagerOptions(argv, controllerInitializers);
  for (const w of parsed.warnings) process.stderr.write(`Warning: ${w}\n`);
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`Error: ${e}\n`);
    return 2;
  }
  const o = parsed.value;
  if (o.help) {
    process.stdout.write(formatControllerManagerHelp(controllerInitializers, parsed.enabled));
    return 0;
  }
  const log = (m: string): void => void process.stderr.write(`${new Date().toISOString()} ${m}\n`);
  const config = await loadClusterConfig(o.clusterconfig);
  const client = createClient(config, { qps: o.clusterAPIQPS, burst: o.clusterAPIBurst, userAgent: commandName });
  const eventClient = createClient(config, { qps: o.clusterAPIQPS, burst: o.clusterAPIBurst, userAgent: `${commandName}/events` });
  const informerFactory = createSharedInformerFactory({ onError: (e, where) => log(`informer ${where}: ${e instanceof Error ? e.message : String(e)}`) });
  const ctx: ControllerContext = { client, eventClient, informerClient: client, informerFactory, featureGates: parsed.gates, options: o, log };
  // --use-service-account-credentials: a client per controller as its service account.
  const clientsFor = o.useServiceAccountCredentials ? serviceAccountClientBuilder(client, config, { qps: o.clusterAPIQPS, burst: o.clusterAPIBurst, userAgent: commandName, log }) : undefined;
  const owned: Client[] = [];
  const running = await startControllers(enabledControllers(controllerInitializers, o.controllers), ctx, clientsFor, owned);
  log(`${commandName} started (controllers: ${parsed.enabled.join(", ") || "none"})`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await stopControllers(running);
  informerFactory.stop();
  client.close();
  eventClient.close();
  for (const c of owned) c.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${commandName}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
