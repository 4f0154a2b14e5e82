/**
 * skiff-job-controller's command line, parsed with @skiff/flags (pflag grammar), and the feature
 * gates it reads.
 *
 * @see cmd/kube-controller-manager/app/options/jobcontroller.go (--concurrent-job-syncs)
 */
import { FeatureGate, nodeAgentFeatureSpecs } from "@skiff/feature-gates";
import type { FeatureSpec } from "@skiff/feature-gates";
import { FlagSet, flagTypes as t, formatHelp, wordSepNormalize } from "@skiff/flags";
import type { FlagSpec, FlagTable } from "@skiff/flags";
import type { JobSyncGates } from "./job-sync.js";

/** Every skiff-job-controller option. */
export interface JobControllerOptionValues {
  clusterconfig: string;
  featureGates: Record<string, boolean>;
  concurrentJobSyncs: number;
  concurrentTTLAfterFinishedSyncs: number;
  clusterAPIQPS: number;
  clusterAPIBurst: number;
  verbosity: number;
  help: boolean;
}

/** The flag table (source of `--help` and the README's flag table). */
export const jobControllerFlagTable = {
  clusterconfig: {
    name: "clusterconfig",
    type: t.string,
    default: "",
    usage: "Path to a kubeconfig file with the apiserver's location and credentials (required).",
  },
  featureGates: {
    name: "feature-gates",
    type: t.mapStringBool,
    default: {},
    usage: "A set of key=value pairs that describe feature gates for alpha/experimental features (JobReadyPods, JobTrackingWithFinalizers, ...).",
  },
  concurrentJobSyncs: {
    name: "concurrent-job-syncs",
    type: t.int32,
    default: 5,
    usage: "The number of job objects that are allowed to sync concurrently. Larger number = more responsive jobs, but more CPU (and network) load.",
  },
  concurrentTTLAfterFinishedSyncs: {
    name: "concurrent-ttl-after-finished-syncs",
    type: t.int32,
    default: 5,
    usage: "The number of TTL-after-finished controller workers that are allowed to sync concurrently.",
  },
  clusterAPIQPS: { name: "cluster-api-qps", type: t.float64, default: 20, usage: "QPS to use while talking with the apiserver." },
  clusterAPIBurst: { name: "cluster-api-burst", type: t.int32, default: 30, usage: "Burst to use while talking with the apiserver." },
  verbosity: { name: "v", shorthand: "v", type: t.level, default: 0, usage: "number for the log level verbosity" },
  help: { name: "help", shorthand: "h", type: t.bool, default: false, usage: "help for skiff-job-controller" },
} satisfies FlagTable<JobControllerOptionValues>;

/** Result of {@link parseJobControllerOptions}. */
export type ParseJobControllerOptionsResult =
  | { ok: true; value: JobControllerOptionValues; gates: JobSyncGates; warnings: string[] }
  | { ok: false; errors: string[]; warnings: string[] };

/** The gate table of this binary (the shared Kubernetes 1.23 table with this project's defaults). */
export function jobControllerFeatureGates(): FeatureGate {
  const g = new FeatureGate("skiff-job-controller");
  g.add(nodeAgentFeatureSpecs as Readonly<Record<string, FeatureSpec>>);
  return g;
}

/**
 * Parses argv (without node and script) and validates it: `--clusterconfig` is required unless
 * `--help`; syncs at least 1; qps positive; burst at least 1; every gate known. Never throws.
 * @example
 * const r = parseJobControllerOptions(["--clusterconfig=kubeconfig", "--feature-gates=JobTrackingWithFinalizers=true"]);
 * if (r.ok) console.log(r.gates.jobTrackingWithFinalizers); // true
 */
export function parseJobControllerOptions(argv: readonly string[]): ParseJobControllerOptionsResult {
  const r = new FlagSet(jobControllerFlagTable, { name: "skiff-job-controller", normalize: wordSepNormalize }).parse([...argv]);
  if (!r.ok) return { ok: false, errors: r.errors.map((e) => e.message), warnings: [...r.warnings] };
  const value = r.value.values as JobControllerOptionValues;
  const warnings = [...r.value.warnings];
  const errors: string[] = [];
  if (!value.help && value.clusterconfig === "") errors.push("--clusterconfig is required");
  if (value.concurrentJobSyncs < 1) errors.push("--concurrent-job-syncs must be at least 1");
  if (value.concurrentTTLAfterFinishedSyncs < 1) errors.push("--concurrent-ttl-after-finished-syncs must be at least 1");
  if (!(value.clusterAPIQPS > 0)) errors.push("--cluster-api-qps must be positive");
  if (value.clusterAPIBurst < 1) errors.push("--cluster-api-burst must be at least 1");
  const gates = jobControllerFeatureGates();
  try {
    warnings.push(...gates.setFromMap(value.featureGates));
  } catch (e) {
    errors.push(`--feature-gates: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (errors.length > 0) return { ok: false, errors, warnings };
  return {
    ok: true,
    value,
    gates: { jobReadyPods: gates.enabled("JobReadyPods"), jobTrackingWithFinalizers: gates.enabled("JobTrackingWithFinalizers") },
    warnings,
  };
}

/** The `--help` text. */
export function formatJobControllerHelp(): string {
  return `skiff-job-controller runs the Job controller and the TTL-after-finished controller.\n\nUsage:\n  skiff-job-controller [flags]\n\n${formatHelp(jobControllerFlagTable)}`;
}

/**
 * A README flag table (markdown) generated from a flag table: one row per flag with its type,
 * default and usage. The README embeds the tables of {@link jobControllerFlagTable} and the node
 * lifecycle controller's, and a test keeps them current.
 */
export function formatFlagMarkdown(table: FlagTable<object>): string {
  const rows = ["| flag | type | default | usage |", "|---|---|---|---|"];
  for (const spec of Object.values(table) as FlagSpec<unknown>[]) {
    const name = spec.shorthand !== undefined ? `-${spec.shorthand}, --${spec.name}` : `--${spec.name}`;
    const def = spec.type.isZeroDefault(spec.type.format(spec.default)) ? "" : spec.type.format(spec.default);
    rows.push(`| \`${name}\` | ${spec.type.typeName} | ${def === "" ? "" : `\`${def}\``} | ${spec.usage.replace(/\|/g, "\\|")} |`);
  }
  return rows.join("\n") + "\n";
}
