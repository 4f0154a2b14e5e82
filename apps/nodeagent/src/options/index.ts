/**
 * The node agent's options: argv + `--config` file → validated flags, configuration and feature
 * gates, in the kubelet's start-up order (reference §1):
 *
 * 1. parse argv (error → `"Failed to parse nodeagent flag" err="..."` + usage, exit 1);
 * 2. a positional argument → `"Unknown command" command="<arg>"` + usage, exit 1;
 * 3. `--help` → help on stdout, exit 0; `--version[=raw]` → stdout, exit 0;
 * 4. apply `--feature-gates` (`"Failed to set feature gates from initial flags-based config"`),
 *    validate the per-process flags (`"Failed to validate nodeagent flags"`);
 * 5. with `--config`: load the file (`"Failed to load nodeagent config file" err=... path=...`), parse
 *    argv again on top of it (flags win; feature gates from the file and the flags are merged, flags
 *    winning per gate), re-apply the gates;
 * 6. validate the merged configuration (`"Failed to validate nodeagent configuration"`): every error
 *    in one `err="[e1, e2]"`, exit 1; values the agent cannot honour are refused here too
 *    ({@link unsupportedOptions}: `--<flag>=<value> is not supported by skiff nodeagent; ...`).
 *
 * Errors are klog error lines (`E1121 02:03:04.000000    4711 options] "Message" err="..."`), as the
 * kubelet 1.23 writes them with `klog.ErrorS` before its logging is configured.
 *
 * @see cmd/kubelet/app/server.go (`NewKubeletCommand`, `kubeletConfigFlagPrecedence`) in kubernetes/kubernetes v1.23
 */
import type { FeatureGate, NodeAgentFeature } from "@skiff/feature-gates";
import { nodeAgentFeatureGates } from "@skiff/feature-gates";
import type { FlagValues } from "@skiff/flags";
import { FlagSet, wordSepNormalize } from "@skiff/flags";
import type { NodeAgentConfiguration } from "./config.js";
import { applyLegacyFlagDefaults, defaultNodeAgentConfiguration, loadNodeAgentConfigFile } from "./config.js";
import type { NodeAgentConfigFlags, NodeAgentFlagTable, NodeAgentFlags } from "./flags.js";
import { configFieldPaths, configFlagKeys, flagSections, klogFlagDeprecation, nodeAgentFlagTable } from "./flags.js";
import { unsupportedOptions } from "./unsupported.js";
import { validateNodeAgentConfiguration, validateNodeAgentFlags } from "./validate.js";
import { formatKlogHeader, formatStructuredMessage } from "../logging.js";

/** The build information `--version` and `--version=raw` print. */
export const nodeAgentVersion = Object.freeze({
  major: "1",
  minor: "23",
  gitVersion: "v1.23.0-skiff.0",
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "",
  goVersion: "",
  compiler: "node",
  platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
});

/** Something text can be written to (a stream or a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/** Where {@link loadNodeAgentOptions} prints help, version, warnings and errors. */
export interface OptionsIO {
  /** Environment; reserved (the kubelet reads no environment variables for its flags). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
}

/** The result of a successful {@link loadNodeAgentOptions}. */
export interface NodeAgentOptions {
  /** Per-process flag values. */
  readonly flags: NodeAgentFlags;
  /** The merged (defaults < file < flags), validated configuration. */
  readonly config: NodeAgentConfiguration;
  /** The feature gates: file's `featureGates` merged with `--feature-gates`. */
  readonly featureGates: FeatureGate<NodeAgentFeature>;
  /** Warnings already printed on stderr (deprecated flags, gates, unknown config fields). */
  readonly warnings: readonly string[];
  /** The `FLAG: --name="value"` lines the agent logs at verbosity 1. */
  readonly flagLog: readonly string[];
}

/** `ok: false` means "exit now with `exitCode`": 0 after `--help`/`--version`, 1 on errors (already printed). */
export type LoadOptionsResult = { readonly ok: true; readonly value: NodeAgentOptions } | { readonly ok: false; readonly errors: readonly string[]; readonly exitCode: number };

/**
 * Joins errors as Go's `utilerrors.NewAggregate(...).Error()`: repeated messages are printed once;
 * one distinct message as it is, several as `[e1, e2]`; none as `""`.
 *
 * @see staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go (`aggregate.Error`) in kubernetes/kubernetes v1.23
 */
export function aggregateErrors(errors: readonly string[]): string {
  const distinct = [...new Set(errors)];
  return distinct.length === 1 ? (distinct[0] ?? "") : distinct.length === 0 ? "" : `[${distinct.join(", ")}]`;
}

/** The node agent's flag set (pflag grammar, `_` and `-` equivalent). */
export function newNodeAgentFlagSet(): FlagSet<NodeAgentFlagTable> {
  return new FlagSet(nodeAgentFlagTable, { name: "nodeagent", normalize: wordSepNormalize });
}

const synopsis = `The nodeagent is the agent that runs on each node. It keeps the containers of the pod
specifications it is given running and healthy, and can register its node with the API server.

Besides specifications from the API server, pods come from a file or directory given on the
command line (--pod-manifest-path, polled every --file-check-frequency), from an HTTP endpoint
(--manifest-url, polled every --http-check-frequency), and from the agent's own HTTP server.
Without --clusterconfig the agent runs standalone.

Most flags are deprecated in favor of the file given with --config; flags override the file.
`;

/**
 * The `--help` text: synopsis, usage, then one block per spec table ({@link flagSections}),
 * every flag listed (deprecated ones marked `(DEPRECATED: ...)`), `--feature-gates` followed by
 * the known gates.
 */
export function formatNodeAgentHelp(gates: FeatureGate<NodeAgentFeature> = nodeAgentFeatureGates()): string {
  const table = {
    ...nodeAgentFlagTable,
    featureGates: {
      ...nodeAgentFlagTable.featureGates,
      usage: `${nodeAgentFlagTable.featureGates.usage} Options are:\n${gates.knownFeatures().join("\n")}`,
    },
  };
  const fs = new FlagSet(table, { name: "nodeagent", normalize: wordSepNormalize });
  return `${synopsis}\nUsage:\n  nodeagent [flags]\n${fs.formatHelp({ columns: 2, sections: flagSections })}`;
}

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const part of path.split(".")) cur = (cur as Record<string, unknown>)[part];
  return cur;
}

function setPath(obj: unknown, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur = obj as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) cur = cur[part] as Record<string, unknown>;
  cur[parts[parts.length - 1] ?? ""] = value;
}

/** The flat flag view of a configuration: each config-bound flag's current value in `config`. */
export function configToFlagValues(config: NodeAgentConfiguration): NodeAgentConfigFlags {
  const out: Record<string, unknown> = {};
  for (const key of configFlagKeys) out[key] = getPath(config, configFieldPaths[key]);
  return out as unknown as NodeAgentConfigFlags;
}

type Values = FlagValues<NodeAgentFlagTable>;

/** Writes the config-bound flags set on the command line into `config` (mutates it). */
function applyChangedFlags(config: NodeAgentConfiguration, values: Values, changed: ReadonlySet<keyof Values>): void {
  for (const key of configFlagKeys) {
    if (changed.has(key)) setPath(config, configFieldPaths[key], values[key]);
  }
}

function pickFlags(values: Values): NodeAgentFlags {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(values)) if (!Object.hasOwn(configFieldPaths, key)) out[key] = v;
  return out as unknown as NodeAgentFlags;
}

function buildGates(featureGates: Readonly<Record<string, boolean>>): { ok: true; gates: FeatureGate<NodeAgentFeature>; warnings: string[] } | { ok: false; error: string } {
  const gates = nodeAgentFeatureGates();
  try {
    const warnings = gates.setFromMap(featureGates);
    return { ok: true, gates, warnings };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/**
 * Parses `argv` again on top of a configuration file's values (kubelet's
 * `kubeletConfigFlagPrecedence`) and writes the flags given on the command line into `config`
 * (mutates it): flags win, except `featureGates`, where the file's gates are kept and the flags'
 * gates override them one by one.
 */
export function parseFlagsOverConfig(
  fs: FlagSet<NodeAgentFlagTable>,
  argv: readonly string[],
  config: NodeAgentConfiguration,
): { ok: true; values: Values; changed: ReadonlySet<keyof Values>; warnings: readonly string[] } | { ok: false; error: string } {
  const fileGates = { ...config.featureGates };
  const r = fs.parse(argv, { initial: configToFlagValues(config) as Partial<Values> });
  if (!r.ok) return { ok: false, error: `failed to parse nodeagent flag: ${r.errors[0]?.message ?? "unknown error"}` };
  applyChangedFlags(config, r.value.values, r.value.changedKeys);
  config.featureGates = { ...fileGates, ...(r.value.changedKeys.has("featureGates") ? r.value.values.featureGates : {}) };
  // 1.23 re-parses with the global (klog) flags replaced by no-op values that carry no
  // deprecation: only the node agent's own deprecated flags warn a second time.
  const warnings = r.value.warnings.filter((w) => !w.endsWith(`, ${klogFlagDeprecation}`));
  return { ok: true, values: r.value.values, changed: r.value.changedKeys, warnings };
}

/**
 * Parses argv and the optional `--config` file into validated options, printing what the
 * kubelet prints: help and version on stdout; deprecation and gate warnings (plain lines) and
 * errors (one klog error line per failed step, several errors joined as `[e1, e2]` as Go's
 * `utilerrors.NewAggregate`) on stderr. A deprecated flag warns once per occurrence; with
 * `--config`, argv is parsed a second time over the file and the node agent's own deprecated
 * flags warn again (klog's flags do not), as 1.23's `kubeletConfigFlagPrecedence` does. Never throws for bad input; never exits the
 * process.
 *
 * @example
 * ```ts
 * const r = loadNodeAgentOptions(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
 * if (!r.ok) process.exit(r.exitCode);
 * r.value.config.port; // 10250 unless --port or the file says otherwise
 * ```
 */
export function loadNodeAgentOptions(argv: readonly string[], io: OptionsIO): LoadOptionsResult {
  const fs = newNodeAgentFlagSet();
  const warnings: string[] = [];
  const warn = (w: string): void => {
    warnings.push(w);
    io.stderr.write(`${w}\n`);
  };
  const usage = "Usage:\n  nodeagent [flags]\n\nRun 'nodeagent --help' for the flags.\n";
  const logError = (message: string, fields: Readonly<Record<string, unknown>>): void => {
    io.stderr.write(`${formatKlogHeader("E", new Date(), process.pid, "options")}${formatStructuredMessage(message, fields, true)}\n`);
  };
  const failWith = (message: string, errors: readonly string[], fields: Readonly<Record<string, unknown>> = {}): LoadOptionsResult => {
    logError(message, { err: aggregateErrors(errors), ...fields });
    return { ok: false, errors, exitCode: 1 };
  };

  // 1. Parse.
  const first = fs.parse(argv);
  if (!first.ok) {
    for (const w of first.warnings) warn(w);
    const msg = first.errors[0]?.message ?? "unknown error";
    logError("Failed to parse nodeagent flag", { err: msg });
    io.stderr.write(usage);
    return { ok: false, errors: [`failed to parse nodeagent flag: ${msg}`], exitCode: 1 };
  }
  for (const w of first.value.warnings) warn(w);
  // 2. Positional arguments.
  if (first.value.args.length > 0) {
    const command = first.value.args[0] ?? "";
    logError("Unknown command", { command });
    io.stderr.write(usage);
    return { ok: false, errors: [`unknown command ${JSON.stringify(command)}`], exitCode: 1 };
  }
  // 3. Help and version.
  if (first.value.values.help) {
    io.stdout.write(formatNodeAgentHelp());
    return { ok: false, errors: [], exitCode: 0 };
  }
  const version = first.value.values.version;
  if (version !== false) {
    io.stdout.write(version === "raw" ? `${JSON.stringify(nodeAgentVersion, null, 2)}\n` : `Kubernetes ${nodeAgentVersion.gitVersion}\n`);
    return { ok: false, errors: [], exitCode: 0 };
  }
  // 4. Gates from flags; per-process flag validation.
  let values = first.value.values;
  let changed: ReadonlySet<keyof Values> = first.value.changedKeys;
  const flagGates = buildGates(values.featureGates);
  if (!flagGates.ok) return failWith("Failed to set feature gates from initial flags-based config", [flagGates.error]);
  for (const w of flagGates.warnings) warn(w);
  const flagErrors = validateNodeAgentFlags(pickFlags(values), flagGates.gates);
  if (flagErrors.length > 0) return failWith("Failed to validate nodeagent flags", flagErrors);

  // 5. Config file under the flags.
  let config: NodeAgentConfiguration;
  let explicitEnableServer = changed.has("enableServer");
  if (values.config !== "") {
    const loaded = loadNodeAgentConfigFile(values.config);
    if (!loaded.ok) return failWith("Failed to load nodeagent config file", loaded.errors, { path: values.config });
    for (const w of loaded.warnings) warn(w);
    config = loaded.value;
    explicitEnableServer ||= loaded.setFields.includes("enableServer") && config.enableServer;
    const merged = parseFlagsOverConfig(fs, argv, config);
    if (!merged.ok) return failWith("Failed to precedence nodeagentConfigFlag", [merged.error]);
    for (const w of merged.warnings) warn(w);
    values = merged.values;
    changed = merged.changed;
  } else {
    config = applyLegacyFlagDefaults(defaultNodeAgentConfiguration());
    applyChangedFlags(config, values, changed);
  }
  const gates = buildGates(config.featureGates);
  if (!gates.ok) return failWith("Failed to set feature gates from initial flags-based config", [gates.error]);
  for (const w of gates.warnings) if (!warnings.includes(w)) warn(w);

  // 6. Validate the merged configuration.
  const errors = [...validateNodeAgentConfiguration(config, gates.gates, explicitEnableServer), ...unsupportedOptions(pickFlags(values), config, gates.gates)];
  if (errors.length > 0) return failWith("Failed to validate nodeagent configuration", errors);

  const merged = { ...values, ...configToFlagValues(config) } as Values;
  return {
    ok: true,
    value: { flags: pickFlags(values), config, featureGates: gates.gates, warnings, flagLog: fs.formatFlagLog(merged) },
  };
}

export type { NodeAgentConfiguration, NodeAgentAuthentication, NodeAgentAuthorization, NodeAgentLogging, DecodeConfigResult, LoadConfigResult } from "./config.js";
export {
  applyLegacyFlagDefaults,
  decodeNodeAgentConfiguration,
  defaultNodeAgentConfiguration,
  loadNodeAgentConfigFile,
  nodeAgentConfigAPIVersion,
  nodeAgentConfigKind,
  resolveConfigRelativePaths,
} from "./config.js";
export type { NodeAgentConfigFlags, NodeAgentFlags, NodeAgentOptionValues, NodeAgentFlagTable, FlagSection } from "./flags.js";
export { configFieldPaths, configFileDeprecation, flagSections, klogFlagDeprecation, nodeAgentFlagTable } from "./flags.js";
export type { RegisterTaint, ReservedMemoryEntry } from "./flag-types.js";
export { unsupportedOptions } from "./unsupported.js";
export { evictionSignals, validateEvictionThresholds, validateNodeAgentConfiguration, validateNodeAgentFlags, validateReservedResources } from "./validate.js";
export { insecureCipherSuites, preferredCipherSuites, tlsVersions } from "./tls.js";
