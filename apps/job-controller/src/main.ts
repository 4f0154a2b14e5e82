#!/usr/bin/env node
/**
 * skiff-job-controller: parse flags, load the kubeconfig, build the clients and shared informers,
 * run the Job controller and the TTL-after-finished controller until SIGINT/SIGTERM.
 *
 * @see cmd/kube-controller-manager/app/batch.go (startJobController)
 */
import { createClient, createSharedInformerFactory, loadClusterConfig } from "@skiff/client";
import { jobControllerComponent, newClientEventRecorder } from "./events.js";
import { JobController } from "./job-controller.js";
import { formatJobControllerHelp, parseJobControllerOptions } from "./options.js";
import { TTLAfterFinishedController } from "./ttl-after-finished-controller.js";

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseJobControllerOptions(argv);
  for (const w of parsed.warnings) process.stderr.write(`Warning: ${w}\n`);
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`Error: ${e}\n`);
    return 2;
  }
  const o = parsed.value;
  if (o.help) {
    process.stdout.write(formatJobControllerHelp());
    return 0;
  }
  const config = await loadClusterConfig(o.clusterconfig);
  const client = createClient(config, { qps: o.clusterAPIQPS, burst: o.clusterAPIBurst, userAgent: "skiff-job-controller" });
  const eventClient = createClient(config, { qps: o.clusterAPIQPS, burst: o.clusterAPIBurst, userAgent: "skiff-job-controller/events" });
  const log = (m: string): void => void process.stderr.write(`${new Date().toISOString()} ${m}\n`);
  const recorder = newClientEventRecorder(eventClient, jobControllerComponent, (e) => {
    if (o.verbosity >= 2) log(`event: ${e instanceof Error ? e.message : String(e)}`);
  });
  const factory = createSharedInformerFactory({ onError: (e, ctx) => log(`informer ${ctx}: ${e instanceof Error ? e.message : String(e)}`) });
  const jobInformer = factory.informerFor(client.jobs);
  const podInformer = factory.informerFor(client.pods);
  const jobs = new JobController({ client, gates: parsed.gates, recorder, concurrentSyncs: o.concurrentJobSyncs, jobInformer, podInformer, log });
  const ttl = new TTLAfterFinishedController({ client, jobInformer, workers: o.concurrentTTLAfterFinishedSyncs, log });
  factory.start();
  await Promise.all([jobs.run(), ttl.run()]);
  log(`skiff-job-controller started (JobReadyPods=${String(parsed.gates.jobReadyPods)}, JobTrackingWithFinalizers=${String(parsed.gates.jobTrackingWithFinalizers)})`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await Promise.all([jobs.stop(), ttl.stop()]);
  factory.stop();
  client.close();
  eventClient.close();
  return 0;
}

// The node lifecycle controller runs beside the Job and TTL controllers (its own flags and informers).
import("./node-lifecycle-controller.js").then(({ runWithNodeLifecycleController }) => runWithNodeLifecycleController(process.argv.slice(2), main)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`skiff-job-controller: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
