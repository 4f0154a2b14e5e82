/**
 * The controller manager's command line: the generic flags (cluster access, gates, `--controllers`,
 * verbosity) and every controller's own flags from its row of the controller table, registered into
 * one flag set (@skiff/flags, pflag grammar), parsed and validated once.
 *
 * @see cmd/kube-controller-manager/app/options/options.go (KubeControllerManagerOptions: Flags, Validate)
 * @see staging/src/k8s.io/controller-manager/options/generic.go (`--controllers`)
 */
import { FeatureGate, nodeAgentFeatureSpecs } from "@skiff/feature-gates";
import type { FeatureSpec } from "@skiff/feature-gates";
import { FlagSet, FlagTableError, flagTypes as t, formatHelp, wordSepNormalize } from "@skiff/flags";
import type { FlagSpec, FlagTable, FlagTableShape } from "@skiff/flags";
import { enabledControllers, validateControllerSelection } from "./controller-manager.js";
import type { ControllerInitializer } from "./controller-manager.js";

/** The generic options (every controller's flags come on top of these, see {@link parseControllerManagerOptions}). */
export interface ControllerManagerOptionValues {
  clusterconfig: string;
  featureGates: Record<string, boolean>;
  /** `--controllers` as given: names, `-name`, `*`. @defaultValue ["*"] */
  controllers: string[];
  clusterAPIQPS: number;
  clusterAPIBurst: number;
  /** Each controller uses its own service account's credentials. @defaultValue false */
  useServiceAccountCredentials: boolean;
  verbosity: number;
  help: boolean;
}

/** The binary's name in help, errors and the startup line (the bin `skiff-controller-manager` is an alias). */
export const commandName = "skiff-job-controller";

/**
 * The generic flag table; `--controllers`' usage lists the controllers of `initializers`
 * (kube-controller-manager's wording).
 */
export function genericFlagTable(initializers: readonly ControllerInitializer[]) {
  const all = initializers.map((c) => c.name).sort();
  const off = initializers.filter((c) => c.disabledByDefault === true).map((c) => c.name).sort();
  return {
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
    controllers: {
      name: "controllers",
      type: t.strings,
      default: ["*"],
      usage: `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. All controllers: ${all.join(", ")}. Disabled-by-default controllers: ${off.join(", ") || "none"}`,
    },
    clusterAPIQPS: { name: "cluster-api-qps", type: t.float64, default: 20, usage: "QPS to use while talking with the apiserver." },
    clusterAPIBurst: { name: "cluster-api-burst", type: t.int32, default: 30, usage: "Burst to use while talking with the apiserver." },
    useServiceAccountCredentials: {
      name: "use-service-account-credentials",
      type: t.bool,
      default: false,
      usage: "If true, use individual service account credentials for each controller.",
    },
    verbosity: { name: "v", shorthand: "v", type: t.verbosityLevel, default: 0, usage: "number for the log level verbosity" },
    help: { name: "help", shorthand: "h", type: t.bool, default: false, usage: `help for ${commandName}` },
  } satisfies FlagTable<ControllerManagerOptionValues>;
}

/**
 * Result of {@link parseControllerManagerOptions}. `value` holds every flag's value, flat by option
 * key (generic and per controller); `enabled` the names `--controllers` selects, in table order.
 */
export type ParseControllerManagerOptionsResult =
  | { ok: true; value: ControllerManagerOptionValues & Record<string, unknown>; gates: FeatureGate; enabled: string[]; warnings: string[] }
  | { ok: false; errors: string[]; warnings: string[] };

/** The gate table of this binary (the shared Kubernetes 1.23 table with this project's defaults). */
export function controllerManagerFeatureGates(): FeatureGate {
  const g = new FeatureGate(commandName);
  g.add(nodeAgentFeatureSpecs as Readonly<Record<string, FeatureSpec>>);
  return g;
}

/**
 * The one flag table: the generic flags, then each row's flags in table order.
 * @throws FlagTableError (`DuplicateFlag`) when two rows (or a row and the generic flags) use the
 *   same option key; a repeated flag name throws the same from the flag set's constructor.
 */
export function controllerManagerFlagTable(initializers: readonly ControllerInitializer[]): FlagTableShape {
  const table: Record<string, FlagSpec<unknown> | null> = { ...genericFlagTable(initializers) };
  for (const c of initializers) {
    for (const [key, spec] of Object.entries(c.flags?.table ?? {}) as Array<[string, FlagSpec<unknown> | null]>) {
      if (Object.hasOwn(table, key)) throw new FlagTableError("DuplicateFlag", spec?.name ?? key, `controller ${c.name}: option ${key} is already defined`);
      table[key] = spec;
    }
  }
  return table;
}

/**
 * Parses argv (without node and script) against the generic flags and every row's flags, then
 * validates: `--clusterconfig` required unless `--help`; qps positive; burst at least 1; every gate
 * known; every `--controllers` name known; each row's own `validate` (all rows, enabled or not, as
 * kube-controller-manager validates every controller's options). Never throws for bad input.
 * @example
 * const r = parseControllerManagerOptions(["--clusterconfig=kubeconfig", "--controllers=*,-nodelifecycle"], controllerInitializers);
 * if (r.ok) console.log(r.enabled); // ["job", "ttl-after-finished"]
 */
export function parseControllerManagerOptions(argv: readonly string[], initializers: readonly ControllerInitializer[]): ParseControllerManagerOptionsResult {
  const r = new FlagSet(controllerManagerFlagTable(initializers), { name: commandName, normalize: wordSepNormalize }).parse([...argv]);
  if (!r.ok) return { ok: false, errors: r.errors.map((e) => e.message), warnings: [...r.warnings] };
  const value = r.value.values as ControllerManagerOptionValues & Record<string, unknown>;
  const warnings = [...r.value.warnings];
  const errors: string[] = [];
  if (!value.help && value.clusterconfig === "") errors.push("--clusterconfig is required");
  for (const c of initializers) errors.push(...(c.flags?.validate?.(value) ?? []));
  if (!(value.clusterAPIQPS > 0)) errors.push("--cluster-api-qps must be positive");
  if (value.clusterAPIBurst < 1) errors.push("--cluster-api-burst must be at least 1");
  errors.push(...validateControllerSelection(initializers, value.controllers));
  const gates = controllerManagerFeatureGates();
  try {
    warnings.push(...gates.setFromMap(value.featureGates));
  } catch (e) {
    errors.push(`--feature-gates: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (errors.length > 0) return { ok: false, errors, warnings };
  const enabled = enabledControllers(initializers, value.controllers).map((c) => c.name);
  return { ok: true, value, gates, enabled, warnings };
}

/**
 * The `--help` text: which controllers `enabled` names (those `--controllers` selects), the generic
 * flags, then a section per controller with flags, in table order.
 */
export function formatControllerManagerHelp(initializers: readonly ControllerInitializer[], enabled: readonly string[]): string {
  let text = `${commandName} (alias skiff-controller-manager) is Skiff's controller manager. Enabled controllers: ${enabled.join(", ") || "none"} (of ${initializers.map((c) => c.name).join(", ")}).\n\nUsage:\n  ${commandName} [flags]\n\n${formatHelp(genericFlagTable(initializers))}`;
  for (const c of initializers) if (c.flags) text += `\n${c.flags.section} flags:\n${formatHelp(c.flags.table as FlagTableShape)}`;
  return text;
}

/**
 * A README flag table (markdown) generated from a flag table: one row per flag with its type,
 * default and usage. The README embeds the generic table and each controller's, and a test keeps
 * them current.
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
