/**
 * The fleet's command line (`src/main.ts`): flags → a loaded kubeconfig → {@link startFleet} →
 * wait for SIGINT/SIGTERM → stop.
 */
import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";
import type { ClusterConfig } from "@skiff/client";
import { isClusterConfigError, loadClusterConfig } from "@skiff/client";
import type { Fleet, FleetLogSink } from "./fleet.js";
import { startFleet } from "./fleet.js";
import type { LoopDelayGateStats } from "./loop-gate.js";
import { checkFleetMemory, fleetBaseMemoryBytes, hollowNodeMemoryBytes } from "./memory.js";

/** The parsed command line. */
export interface FleetCliOptions {
  readonly nodes: number;
  readonly kubeconfig?: string;
  readonly server?: string;
  readonly token?: string;
  /** Each node's bearer token: `{node}` is replaced by its name (`--node-token`). */
  readonly nodeToken?: string;
  readonly insecureSkipTLSVerify: boolean;
  readonly namePrefix: string;
  readonly rootDir?: string;
  readonly logFile?: string;
  readonly agentArgs: readonly string[];
  /** `--no-sync-admission`: every pod sync starts at once (see `FleetOptions.syncAdmission`). */
  readonly noSyncAdmission?: boolean;
  readonly help: boolean;
}

/** {@link parseFleetArgs}'s answer. */
export type ParseFleetArgsResult = { readonly ok: true; readonly value: FleetCliOptions } | { readonly ok: false; readonly errors: readonly string[] };

const fleetUsage = `usage: skiff-fleet --nodes <n> (--kubeconfig <file> | --server <url>) [options] [-- <node agent flags>...]

  --nodes <n>                  hollow nodes to run in this process (an integer >= 1)
  --kubeconfig <file>          the apiserver and credentials every hollow node uses
  --server <url>               the apiserver URL (overrides the kubeconfig's server)
  --token <token>              bearer token (overrides the kubeconfig's credentials)
  --node-token <template>      each node's own bearer token, {node} replaced by its name (overrides --token):
                               a node identity per node (system:node:<name>), as real nodes have
  --insecure-skip-tls-verify   do not verify the apiserver's certificate
  --name-prefix <prefix>       node names are <prefix><n> (default hollow-node-)
  --root-dir <dir>             the nodes' root directories (default: a temporary directory, on /dev/shm when it is tmpfs; removed on exit)
  --log-file <file>            the hollow nodes' log lines (default: discarded)
  --no-sync-admission          start every pod sync at once, even while the event loop lags
                               (default: pod work waits while the loop is over 50 ms late, so heartbeats keep their turn)
  -h, --help                   show this help

Flags after -- go to every hollow node's agent (e.g. -- --max-pods=50 -v=2).
Memory: about ${(hollowNodeMemoryBytes / 1024 ** 2).toFixed(0)} MiB per hollow node plus ${(fleetBaseMemoryBytes / 1024 ** 2).toFixed(0)} MiB; the fleet refuses to start when that exceeds V8's heap room (--max-old-space-size) or the machine's available memory.
`;

/** Parses the fleet's flags. Never throws. */
export function parseFleetArgs(argv: readonly string[]): ParseFleetArgsResult {
  const dash = argv.indexOf("--");
  const own = dash === -1 ? argv : argv.slice(0, dash);
  const agentArgs = dash === -1 ? [] : argv.slice(dash + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...own],
      options: {
        nodes: { type: "string" },
        kubeconfig: { type: "string" },
        server: { type: "string" },
        token: { type: "string" },
        "node-token": { type: "string" },
        "insecure-skip-tls-verify": { type: "boolean" },
        "name-prefix": { type: "string" },
        "root-dir": { type: "string" },
        "log-file": { type: "string" },
        "no-sync-admission": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    return { ok: false, errors: [e instanceof Error ? e.message : String(e)] };
  }
  const str = (k: string): string | undefined => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  if (values.help === true) return { ok: true, value: { nodes: 0, insecureSkipTLSVerify: false, namePrefix: "hollow-node-", agentArgs, help: true } };
  const errors: string[] = [];
  const nodesText = str("nodes");
  const nodes = nodesText !== undefined && /^\d+$/.test(nodesText) ? Number(nodesText) : NaN;
  if (nodesText === undefined) errors.push("--nodes is required");
  else if (!(nodes >= 1)) errors.push(`--nodes must be an integer >= 1, got ${JSON.stringify(nodesText)}`);
  if (str("kubeconfig") === undefined && str("server") === undefined) errors.push("--kubeconfig or --server is required");
  const prefix = str("name-prefix") ?? "hollow-node-";
  if (!/^[a-z0-9]([-a-z0-9.]*)?$/.test(prefix)) errors.push(`--name-prefix ${JSON.stringify(prefix)}: node names must be lower-case DNS subdomains`);
  const nodeToken = str("node-token");
  if (nodeToken !== undefined && !nodeToken.includes("{node}")) errors.push(`--node-token ${JSON.stringify(nodeToken)}: the template must contain {node} (one token per node)`);
  if (errors.length > 0) return { ok: false, errors };
  const opt = <K extends string>(k: K, v: string | undefined) => (v === undefined ? {} : ({ [k]: v } as Record<K, string>));
  return {
    ok: true,
    value: {
      nodes,
      ...opt("kubeconfig", str("kubeconfig")),
      ...opt("server", str("server")),
      ...opt("token", str("token")),
      ...opt("nodeToken", nodeToken),
      insecureSkipTLSVerify: values["insecure-skip-tls-verify"] === true,
      namePrefix: prefix,
      ...opt("rootDir", str("root-dir")),
      ...opt("logFile", str("log-file")),
      agentArgs,
      ...(values["no-sync-admission"] === true ? { noSyncAdmission: true } : {}),
      help: false,
    },
  };
}

/** One line on what the pod-work admission did and how late the event loop ran (p50/p99/max of its samples). */
export function admissionSummary(s: LoopDelayGateStats): string {
  const sorted = [...s.delaysMs].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor((q / 100) * sorted.length))] ?? 0;
  return `pod syncs admitted ${s.admitted}, ${s.queued} of them after waiting (longest queue ${s.peakQueue}); event loop delay p50 ${at(50).toFixed(0)} ms, p99 ${at(99).toFixed(0)} ms, max ${s.maxDelayMs.toFixed(0)} ms`;
}

/** Where {@link runFleetCli} writes, and how it is told to stop. */
export interface FleetCliIO {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Stops the fleet when aborted; without it, SIGINT or SIGTERM. */
  readonly stopSignal?: AbortSignal;
  /** Called once every hollow node is registered. */
  readonly onReady?: (fleet: Fleet) => void;
}

async function clusterConfigOf(o: FleetCliOptions): Promise<ClusterConfig> {
  const base: ClusterConfig = o.kubeconfig !== undefined ? await loadClusterConfig(o.kubeconfig) : { server: o.server ?? "", insecureSkipTLSVerify: false };
  return {
    ...base,
    ...(o.server !== undefined ? { server: o.server.replace(/\/+$/, "") } : {}),
    ...(o.token !== undefined ? { token: o.token } : {}),
    ...(o.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
  };
}

/**
 * Runs the fleet until stopped; resolves with the exit code: 0 after `--help` or a clean stop, 2
 * for bad flags, 1 when the memory check refuses (the estimate is printed) or start-up fails.
 */
export async function runFleetCli(argv: readonly string[], io: FleetCliIO): Promise<number> {
  const parsed = parseFleetArgs(argv);
  if (!parsed.ok) {
    io.stderr.write(`${parsed.errors.map((e) => `skiff-fleet: ${e}`).join("\n")}\n${fleetUsage}`);
    return 2;
  }
  const o = parsed.value;
  if (o.help) {
    io.stdout.write(fleetUsage);
    return 0;
  }
  let fleet: Fleet;
  let logStream: ReturnType<typeof createWriteStream> | undefined;
  try {
    const { estimateBytes } = checkFleetMemory(o.nodes);
    const clusterConfig = await clusterConfigOf(o);
    logStream = o.logFile !== undefined ? createWriteStream(o.logFile, { flags: "a" }) : undefined;
    const log: FleetLogSink | undefined = logStream;
    io.stdout.write(`skiff-fleet: starting ${o.nodes} hollow nodes against ${clusterConfig.server} (estimated ${(estimateBytes / 1024 ** 2).toFixed(0)} MiB; RSS before them ${(process.memoryUsage().rss / 1024 ** 2).toFixed(0)} MiB)\n`);
    const started = Date.now();
    const template = o.nodeToken;
    fleet = await startFleet({ nodes: o.nodes, clusterConfig, namePrefix: o.namePrefix, ...(template !== undefined ? { nodeToken: (node: string) => template.replaceAll("{node}", node) } : {}), agentArgs: o.agentArgs, ...(o.noSyncAdmission ? { syncAdmission: false } : {}), ...(o.rootDir !== undefined ? { rootDir: o.rootDir } : {}), ...(log ? { log } : {}) });
    const rss = process.memoryUsage().rss;
    io.stdout.write(`skiff-fleet: ${o.nodes} hollow nodes registered in ${((Date.now() - started) / 1000).toFixed(1)} s; RSS ${(rss / 1024 ** 2).toFixed(0)} MiB (${(rss / o.nodes / 1024 ** 2).toFixed(2)} MiB per node)\n`);
  } catch (e) {
    const message = isClusterConfigError(e) ? `${e.message}: ${e.errors.join("; ")}` : e instanceof Error ? e.message : String(e);
    io.stderr.write(`skiff-fleet: ${message}\n`);
    logStream?.end();
    return 1;
  }
  io.onReady?.(fleet);
  const why = await new Promise<string>((resolve) => {
    if (io.stopSignal) {
      if (io.stopSignal.aborted) return resolve("stop requested");
      io.stopSignal.addEventListener("abort", () => resolve("stop requested"), { once: true });
    } else {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    }
  });
  io.stdout.write(`skiff-fleet: ${why}, stopping\n`);
  const admission = fleet.admission();
  if (admission) io.stdout.write(`skiff-fleet: ${admissionSummary(admission)}\n`);
  await fleet.stop();
  if (logStream) await new Promise<void>((resolve) => logStream?.end(resolve));
  return 0;
}
