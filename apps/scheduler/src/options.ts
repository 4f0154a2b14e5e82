/**
 * skiff-scheduler's command line, parsed with @skiff/flags (pflag grammar).
 *
 * @see cmd/kube-scheduler/app/options/options.go
 */

import { FlagSet, flagTypes as t, formatHelp, wordSepNormalize } from "@skiff/flags";
import type { FlagSpec, FlagTable } from "@skiff/flags";

/** Every skiff-scheduler option. */
export interface SchedulerOptionValues {
  clusterconfig: string;
  clusterAPIQPS: number;
  clusterAPIBurst: number;
  schedulerName: string;
  verbosity: number;
  help: boolean;
}

/** The flag table (source of `--help` and the README's flag table). */
export const schedulerFlagTable = {
  clusterconfig: {
    name: "clusterconfig",
    type: t.string,
    default: "",
    usage: "Path to a kubeconfig file with the apiserver's location and credentials (required).",
  },
  clusterAPIQPS: { name: "cluster-api-qps", type: t.float64, default: 50, usage: "QPS to use while talking with the apiserver." },
  clusterAPIBurst: { name: "cluster-api-burst", type: t.int32, default: 100, usage: "Burst to use while talking with the apiserver." },
  schedulerName: { name: "scheduler-name", type: t.string, default: "default-scheduler", usage: "Pods whose spec.schedulerName is this (or empty) are scheduled." },
  verbosity: { name: "v", shorthand: "v", type: t.verbosityLevel, default: 0, usage: "number for the log level verbosity" },
  help: { name: "help", shorthand: "h", type: t.bool, default: false, usage: "help for skiff-scheduler" },
} satisfies FlagTable<SchedulerOptionValues>;

/** Result of {@link parseSchedulerOptions}. */
export type ParseSchedulerOptionsResult = { ok: true; value: SchedulerOptionValues; warnings: string[] } | { ok: false; errors: string[]; warnings: string[] };

/**
 * Parses argv (without node and script) and validates it: `--clusterconfig` is required unless
 * `--help`; qps must be positive, burst at least 1. Never throws.
 * @example
 * const r = parseSchedulerOptions(["--clusterconfig=kubeconfig", "-v=2"]);
 */
export function parseSchedulerOptions(argv: readonly string[]): ParseSchedulerOptionsResult {
  const r = new FlagSet(schedulerFlagTable, { name: "skiff-scheduler", normalize: wordSepNormalize }).parse([...argv]);
  if (!r.ok) return { ok: false, errors: r.errors.map((e) => e.message), warnings: [...r.warnings] };
  const value = r.value.values as SchedulerOptionValues;
  const errors: string[] = [];
  if (!value.help && value.clusterconfig === "") errors.push("--clusterconfig is required");
  if (!(value.clusterAPIQPS > 0)) errors.push("--cluster-api-qps must be positive");
  if (value.clusterAPIBurst < 1) errors.push("--cluster-api-burst must be at least 1");
  if (errors.length > 0) return { ok: false, errors, warnings: [...r.value.warnings] };
  return { ok: true, value, warnings: [...r.value.warnings] };
}

/** The `--help` text. */
export function formatSchedulerHelp(): string {
  return `skiff-scheduler binds pending pods to fitting, Ready nodes.\n\nUsage:\n  skiff-scheduler [flags]\n\n${formatHelp(schedulerFlagTable)}`;
}

/** The README's flag table (markdown), generated from {@link schedulerFlagTable}. */
export function formatSchedulerFlagTable(): string {
  const rows = ["| flag | type | default | usage |", "|---|---|---|---|"];
  for (const spec of Object.values(schedulerFlagTable) as FlagSpec<unknown>[]) {
    const name = spec.shorthand !== undefined ? `-${spec.shorthand}, --${spec.name}` : `--${spec.name}`;
    const def = spec.type.isZeroDefault(spec.type.format(spec.default)) ? "" : spec.type.format(spec.default);
    rows.push(`| \`${name}\` | ${spec.type.typeName} | ${def === "" ? "" : `\`${def}\``} | ${spec.usage.replace(/\|/g, "\\|")} |`);
  }
  return `${rows.join("\n")}\n`;
}
