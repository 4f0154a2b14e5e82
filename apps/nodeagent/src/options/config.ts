/**
 * The node agent's configuration file: `NodeAgentConfiguration` of
 * `nodeagent.config.example.io/v1beta1`, the kubelet's `KubeletConfiguration` (v1beta1, 1.23)
 * with the spec's renames (`kubeletCgroups` → `agentCgroups`, `kubeReserved` →
 * `clusterReserved`, `kubeReservedCgroup` → `clusterReservedCgroup`, `kubeAPIQPS` →
 * `clusterAPIQPS`, `kubeAPIBurst` → `clusterAPIBurst`, enforcement level `kube-reserved` →
 * `cluster-reserved`).
 *
 * The file body is parsed with the zod schema {@link nodeAgentConfigurationSchema}
 * (`config-schema.ts`, checked against {@link NodeAgentConfiguration}), which words type errors as
 * Go's decoder does (`json: cannot unmarshal string into Go struct field
 * NodeAgentConfiguration.port of type int32`) and parses durations and quantities; unknown fields
 * are listed (reported as warnings: 1.23 falls back to lenient decoding when strict decoding
 * fails). The parsed fields are then written over {@link defaultNodeAgentConfiguration}.
 *
 * @see staging/src/k8s.io/kubelet/config/v1beta1/types.go in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/apis/config/v1beta1/defaults.go (`SetDefaults_KubeletConfiguration`)
 * @see pkg/kubelet/kubeletconfig/configfiles/configfiles.go (`Load`, `resolveRelativePaths`)
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { ModulePattern, Quantity } from "@skiff/flags";
import { Duration, formatGoQuoted, mustParseDuration, mustParseQuantity } from "@skiff/flags";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import type { NodeAgentConfigurationFile } from "./config-schema.js";
import { isZeroUnsetField, nestedStructShape, nodeAgentConfigurationSchema } from "./config-schema.js";
import type { NodeAgentConfigFlags } from "./flags.js";

/** The scheme name apimachinery prints in "no kind … is registered" errors for the config file. */
const configSchemeName = "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32";

/** `apiVersion` of the configuration file. */
export const nodeAgentConfigAPIVersion = "nodeagent.config.example.io/v1beta1";
/** `kind` of the configuration file. */
export const nodeAgentConfigKind = "NodeAgentConfiguration";

type NestedFlagKeys =
  | "verbosity"
  | "vmodule"
  | "loggingFormat"
  | "logFlushFrequency"
  | "logJSONInfoBufferSize"
  | "logJSONSplitStream"
  | "anonymousAuth"
  | "clientCAFile"
  | "authenticationTokenWebhook"
  | "authenticationTokenWebhookCacheTTL"
  | "authorizationMode"
  | "authorizationWebhookCacheAuthorizedTTL"
  | "authorizationWebhookCacheUnauthorizedTTL"
  | "experimentalKernelMemcgNotification";

/** `authentication` of the configuration. */
export interface NodeAgentAuthentication {
  x509: { clientCAFile: string };
  webhook: { enabled: boolean; cacheTTL: Duration };
  anonymous: { enabled: boolean };
}

/** `authorization` of the configuration; `mode` is `AlwaysAllow` or `Webhook`. */
export interface NodeAgentAuthorization {
  mode: string;
  webhook: { cacheAuthorizedTTL: Duration; cacheUnauthorizedTTL: Duration };
}

/** `logging` of the configuration (component-base's `LoggingConfiguration`, 1.23). */
export interface NodeAgentLogging {
  /** `text` or `json`. */
  format: string;
  flushFrequency: Duration;
  verbosity: number;
  vmodule: ModulePattern[];
  options: { json: { infoBufferSize: Quantity; splitStream: boolean } };
}

/**
 * The node agent's configuration in memory: every file field, defaulted. Durations are
 * {@link Duration}s (serialised as Go text, `1m0s`), sizes in `logging` {@link Quantity}s.
 * Top-level fields bound to a flag have the flag's name in {@link configFieldPaths}.
 */
export interface NodeAgentConfiguration extends Omit<NodeAgentConfigFlags, NestedFlagKeys> {
  authentication: NodeAgentAuthentication;
  authorization: NodeAgentAuthorization;
  logging: NodeAgentLogging;
  /** How often node status is reported when nothing changed. @defaultValue 5m */
  nodeStatusReportFrequency: Duration;
  /** Node lease duration. @defaultValue 40 */
  nodeLeaseDurationSeconds: number;
  /** Graceful node shutdown period; 0 disables. @defaultValue 0s */
  shutdownGracePeriod: Duration;
  /** Part of `shutdownGracePeriod` reserved for critical pods. @defaultValue 0s */
  shutdownGracePeriodCriticalPods: Duration;
  /** `Watch`, `Cache`, `Get` or `None`. @defaultValue Watch */
  configMapAndSecretChangeDetectionStrategy: string;
  /** Serve `/logs/` when debugging handlers are on. @defaultValue true */
  enableSystemLogHandler: boolean;
  /** Serve `/debug/pprof` when debugging handlers are on. @defaultValue true */
  enableProfilingHandler: boolean;
  /** Serve `/debug/flags/v` when debugging handlers are on. @defaultValue true */
  enableDebugFlagsHandler: boolean;
  /** Memory throttling factor of MemoryQoS. @defaultValue 0.8 */
  memoryThrottlingFactor: number;
  /** Metrics version whose hidden metrics are shown. @defaultValue "" */
  showHiddenMetricsForVersion: string;
  /**
   * Directory the node agent keeps container logs in (`<podLogsDir>/<ns>_<pod>_<uid>/<container>/<n>.log`);
   * an absolute, normalized path. Not in 1.23's v1beta1 (its kubelet writes to a fixed
   * `/var/log/pods`): the field as later `KubeletConfiguration` versions name it, so that an
   * unprivileged node agent can run pods. An empty value in a file means the default.
   * @defaultValue "/var/log/pods"
   * @see staging/src/k8s.io/kubelet/config/v1beta1/types.go (PodLogsDir, Kubernetes 1.29+)
   */
  podLogsDir: string;
}

const d = mustParseDuration;

/** The Linux default of `evictionHard` / `--eviction-hard`. */
const defaultEvictionHard: Readonly<Record<string, string>> = Object.freeze({
  "imagefs.available": "15%",
  "memory.available": "100Mi",
  "nodefs.available": "10%",
  "nodefs.inodesFree": "5%",
});

/**
 * The defaults a configuration file starts from (`SetDefaults_KubeletConfiguration`, 1.23, with
 * the spec's paths and renames). Differs from the flag defaults in the four "legacy" fields
 * (see {@link applyLegacyFlagDefaults}). A fresh object on every call.
 *
 * @see pkg/kubelet/apis/config/v1beta1/defaults.go in kubernetes/kubernetes v1.23
 */
export function defaultNodeAgentConfiguration(): NodeAgentConfiguration {
  return {
    address: "0.0.0.0",
    port: 10250,
    readOnlyPort: 0,
    enableServer: true,
    enableDebuggingHandlers: true,
    healthzBindAddress: "127.0.0.1",
    healthzPort: 10248,
    registerNode: true,
    registerWithTaints: [],
    providerID: "",
    podCIDR: "",
    runOnce: false,
    staticPodPath: "",
    fileCheckFrequency: d("20s"),
    staticPodURL: "",
    staticPodURLHeader: {},
    httpCheckFrequency: d("20s"),
    syncFrequency: d("1m"),
    runtimeRequestTimeout: d("2m"),
    serializeImagePulls: true,
    registryPullQPS: 5,
    registryBurst: 10,
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    imageMinimumGCAge: d("2m"),
    containerLogMaxFiles: 5,
    containerLogMaxSize: "10Mi",
    volumePluginDir: "/usr/libexec/example/nodeagent-plugins/volume/exec/",
    volumeStatsAggPeriod: d("1m"),
    enableControllerAttachDetach: true,
    maxPods: 110,
    podsPerCore: 0,
    podPidsLimit: -1,
    maxOpenFiles: 1000000,
    oomScoreAdj: -999,
    cgroupDriver: "cgroupfs",
    cgroupRoot: "",
    cgroupsPerQOS: true,
    agentCgroups: "",
    systemCgroups: "",
    cpuCFSQuota: true,
    cpuCFSQuotaPeriod: d("100ms"),
    cpuManagerPolicy: "none",
    cpuManagerPolicyOptions: {},
    cpuManagerReconcilePeriod: d("10s"),
    memoryManagerPolicy: "None",
    topologyManagerPolicy: "none",
    topologyManagerScope: "container",
    enforceNodeAllocatable: ["pods"],
    clusterReserved: {},
    clusterReservedCgroup: "",
    systemReserved: {},
    systemReservedCgroup: "",
    reservedSystemCPUs: "",
    reservedMemory: [],
    qosReserved: {},
    failSwapOn: true,
    protectKernelDefaults: false,
    allowedUnsafeSysctls: [],
    evictionHard: { ...defaultEvictionHard },
    evictionSoft: {},
    evictionSoftGracePeriod: {},
    evictionMinimumReclaim: {},
    evictionMaxPodGracePeriod: 0,
    evictionPressureTransitionPeriod: d("5m"),
    kernelMemcgNotification: false,
    clusterDNS: [],
    clusterDomain: "",
    resolvConf: "/etc/resolv.conf",
    hairpinMode: "promiscuous-bridge",
    makeIPTablesUtilChains: true,
    iptablesDropBit: 15,
    iptablesMasqueradeBit: 14,
    streamingConnectionIdleTimeout: d("4h"),
    nodeStatusUpdateFrequency: d("10s"),
    nodeStatusMaxImages: 50,
    clusterAPIQPS: 5,
    clusterAPIBurst: 10,
    contentType: "application/vnd.example.protobuf",
    eventRecordQPS: 5,
    eventBurst: 10,
    featureGates: {},
    enableContentionProfiling: false,
    tlsCertFile: "",
    tlsPrivateKeyFile: "",
    tlsMinVersion: "",
    tlsCipherSuites: [],
    rotateCertificates: false,
    serverTLSBootstrap: false,
    authentication: {
      x509: { clientCAFile: "" },
      webhook: { enabled: true, cacheTTL: d("2m") },
      anonymous: { enabled: false },
    },
    authorization: { mode: "Webhook", webhook: { cacheAuthorizedTTL: d("5m"), cacheUnauthorizedTTL: d("30s") } },
    logging: {
      format: "text",
      flushFrequency: d("5s"),
      verbosity: 0,
      vmodule: [],
      options: { json: { infoBufferSize: mustParseQuantity("0"), splitStream: false } },
    },
    nodeStatusReportFrequency: d("5m"),
    nodeLeaseDurationSeconds: 40,
    shutdownGracePeriod: d("0s"),
    shutdownGracePeriodCriticalPods: d("0s"),
    configMapAndSecretChangeDetectionStrategy: "Watch",
    enableSystemLogHandler: true,
    enableProfilingHandler: true,
    enableDebugFlagsHandler: true,
    memoryThrottlingFactor: 0.8,
    showHiddenMetricsForVersion: "",
    podLogsDir: "/var/log/pods",
  };
}

/**
 * Applies the kubelet's legacy flag defaults (mutates `config`): anonymous auth on, webhook
 * authentication off, `AlwaysAllow`, read-only port 10255. Used when no `--config` file is given,
 * so that the command line alone keeps its historical defaults.
 *
 * @see cmd/kubelet/app/options/options.go (`applyLegacyDefaults`) in kubernetes/kubernetes v1.23
 */
export function applyLegacyFlagDefaults(config: NodeAgentConfiguration): NodeAgentConfiguration {
  config.authentication.anonymous.enabled = true;
  config.authentication.webhook.enabled = false;
  config.authorization.mode = "AlwaysAllow";
  config.readOnlyPort = 10255;
  return config;
}

// ---------------------------------------------------------------------------------------------
// Decoding

type Json = Record<string, unknown>;

function isJsonObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isZero(v: unknown): boolean {
  if (v === 0 || v === "") return true;
  return v instanceof Duration && v.nanoseconds === 0n;
}

/**
 * Where `path` lies in the document, as the member positions along it. Issues are reported in
 * the order of the file, while zod reports a struct's members in schema order and its unknown
 * members after them.
 */
function documentPosition(doc: unknown, path: readonly PropertyKey[]): number[] {
  const out: number[] = [];
  let cur = doc;
  for (const seg of path) {
    if (Array.isArray(cur)) {
      out.push(typeof seg === "number" ? seg : -1);
      cur = typeof seg === "number" ? cur[seg] : undefined;
    } else if (isJsonObject(cur)) {
      out.push(Object.keys(cur).indexOf(String(seg)));
      cur = cur[String(seg)];
    } else {
      out.push(-1);
      cur = undefined;
    }
  }
  return out;
}

function compareDocumentPositions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function inDocumentOrder<T>(doc: unknown, items: readonly T[], pathOf: (item: T) => readonly PropertyKey[]): T[] {
  return items
    .map((item) => ({ item, pos: documentPosition(doc, pathOf(item)) }))
    .sort((a, b) => compareDocumentPositions(a.pos, b.pos))
    .map((x) => x.item);
}

/**
 * Writes the fields a file gives onto `target` (mutates it), in the file's order: nested structs
 * member by member, other values whole; zeros of {@link isZeroUnsetField} fields are skipped.
 * Appends the dotted path of every field written to `setFields`.
 */
function mergeConfigFile(shape: Readonly<Record<string, z.ZodType>>, doc: Json, parsed: Json, target: Json, prefix: string, setFields: string[]): void {
  for (const key of Object.keys(doc)) {
    const field = shape[key];
    const value = parsed[key];
    if (field === undefined || !Object.hasOwn(shape, key) || value === undefined) continue;
    const dotted = prefix === "" ? key : `${prefix}.${key}`;
    const nested = nestedStructShape(field);
    const docValue = doc[key];
    if (nested !== undefined && isJsonObject(value) && isJsonObject(docValue)) {
      const sub = isJsonObject(target[key]) ? target[key] : {};
      target[key] = sub;
      mergeConfigFile(nested, docValue, value, sub, dotted, setFields);
      continue;
    }
    if (isZeroUnsetField(field) && isZero(value)) continue;
    target[key] = value;
    setFields.push(dotted);
  }
}

/** The config field an issue belongs to: its path up to the first member that is not a nested struct (`clusterDNS` for `clusterDNS[2]`). */
function fieldOf(path: readonly PropertyKey[]): string {
  let shape = nestedStructShape(nodeAgentConfigurationSchema);
  const out: string[] = [];
  for (const seg of path) {
    const field = shape !== undefined && typeof seg === "string" && Object.hasOwn(shape, seg) ? shape[seg] : undefined;
    out.push(String(seg));
    shape = field === undefined ? undefined : nestedStructShape(field);
    if (shape === undefined) break;
  }
  return out.join(".");
}

/**
 * Keeps the first issue of each config field (`issues` in document order): a list or map field
 * reports its first bad entry only, while zod reports every entry. (Go's decoder reports only the
 * earliest error of the whole document; one per field lets a file be fixed in one pass without a
 * long list flooding the output.)
 */
function firstPerField(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const field = fieldOf(i.path);
    if (seen.has(field)) return false;
    seen.add(field);
    return true;
  });
}

function deleteAt(doc: unknown, path: readonly PropertyKey[], key: string): void {
  let cur = doc;
  for (const seg of path) cur = isJsonObject(cur) || Array.isArray(cur) ? (cur as Record<PropertyKey, unknown>)[seg] : undefined;
  if (isJsonObject(cur)) delete cur[key];
}

type BodyResult = { ok: true; value: NodeAgentConfigurationFile; unknownFields: string[] } | { ok: false; errors: string[] };

/**
 * Parses the body with {@link nodeAgentConfigurationSchema}. A strict zod object that meets an
 * unknown member fails as a whole, while 1.23 falls back to lenient decoding: so when unknown
 * members are the only issues, they are listed, deleted from `body` (mutated) and the body parsed
 * again.
 */
function parseBody(body: Json): BodyResult {
  const first = nodeAgentConfigurationSchema.safeParse(body);
  if (first.success) return { ok: true, value: first.data, unknownFields: [] };
  const unknown: { path: readonly PropertyKey[]; key: string }[] = [];
  const errors: z.core.$ZodIssue[] = [];
  for (const issue of first.error.issues) {
    if (issue.code === "unrecognized_keys") for (const key of issue.keys) unknown.push({ path: issue.path, key });
    else errors.push(issue);
  }
  if (errors.length > 0) return { ok: false, errors: firstPerField(inDocumentOrder(body, errors, (i) => i.path)).map((i) => i.message) };
  const sorted = inDocumentOrder(body, unknown, (u) => [...u.path, u.key]);
  for (const u of sorted) deleteAt(body, u.path, u.key);
  const second = nodeAgentConfigurationSchema.safeParse(body);
  if (!second.success) return { ok: false, errors: second.error.issues.map((i) => i.message) };
  return { ok: true, value: second.data, unknownFields: sorted.map((u) => [...u.path, u.key].map(String).join(".")) };
}

/** The outcome of {@link decodeNodeAgentConfiguration}. */
export type DecodeConfigResult =
  | { readonly ok: true; readonly value: NodeAgentConfiguration; readonly unknownFields: readonly string[]; readonly setFields: readonly string[] }
  | { readonly ok: false; readonly errors: readonly string[] };

/**
 * Decodes a configuration file's text (YAML or JSON; JSON is YAML) into a defaulted
 * {@link NodeAgentConfiguration}. Requires `apiVersion: nodeagent.config.example.io/v1beta1` and
 * `kind: NodeAgentConfiguration`; the first type error of every field is returned, in the file's
 * order, worded as Go's decoder words it; unknown fields are listed by dotted path, and so are the
 * fields the file sets (`setFields`). `null` members keep their defaults. Relative paths are left
 * as written (see {@link resolveConfigRelativePaths}). Pure; never throws.
 *
 * @example
 * ```ts
 * const r = decodeNodeAgentConfiguration("apiVersion: nodeagent.config.example.io/v1beta1\nkind: NodeAgentConfiguration\nport: 11250\n");
 * if (r.ok) r.value.port; // 11250
 * ```
 */
export function decodeNodeAgentConfiguration(text: string): DecodeConfigResult {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    return { ok: false, errors: [`error converting YAML to JSON: ${(e as Error).message.split("\n")[0] ?? ""}`] };
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return { ok: false, errors: [`couldn't get version/kind; json parse error: the file must hold one ${nodeAgentConfigKind} object`] };
  }
  const o = doc as Record<string, unknown>;
  const { apiVersion, kind, ...rest } = o;
  // Checked before the schema, not in it: the API machinery words a missing and a wrong
  // apiVersion/kind differently, and neither is a field error.
  if (apiVersion === undefined || apiVersion === "" || kind === undefined || kind === "") {
    return { ok: false, errors: [`Object 'Kind' is missing or 'apiVersion' is missing: want apiVersion ${JSON.stringify(nodeAgentConfigAPIVersion)} and kind ${JSON.stringify(nodeAgentConfigKind)}`] };
  }
  if (apiVersion !== nodeAgentConfigAPIVersion || kind !== nodeAgentConfigKind) {
    // apimachinery's notRegisteredErr; the scheme is named by the file and line that built it
    // (1.22–1.23 kubelets print scheme.go:32).
    return { ok: false, errors: [`no kind ${JSON.stringify(String(kind))} is registered for version ${JSON.stringify(String(apiVersion))} in scheme ${JSON.stringify(configSchemeName)}`] };
  }
  const parsed = parseBody(rest);
  if (!parsed.ok) return parsed;
  const value = defaultNodeAgentConfiguration();
  const setFields: string[] = [];
  mergeConfigFile(nestedStructShape(nodeAgentConfigurationSchema) ?? {}, rest, parsed.value as Json, value as unknown as Json, "", setFields);
  // 1.23's v1beta1 defaulting: a file that sets nodeStatusUpdateFrequency and not
  // nodeStatusReportFrequency reports as often as it updates (the behaviour before node leases).
  if (setFields.includes("nodeStatusUpdateFrequency") && !setFields.includes("nodeStatusReportFrequency")) {
    value.nodeStatusReportFrequency = value.nodeStatusUpdateFrequency;
  }
  return { ok: true, value, unknownFields: parsed.unknownFields, setFields };
}

/**
 * Resolves the file's relative paths against the file's directory, as the kubelet does for
 * `staticPodPath`, `authentication.x509.clientCAFile`, `tlsCertFile`, `tlsPrivateKeyFile` and
 * `resolvConf`; empty values stay empty. Mutates and returns `config`.
 *
 * @see pkg/kubelet/apis/config/helpers.go (`KubeletConfigurationPathRefs`) in kubernetes/kubernetes v1.23
 */
export function resolveConfigRelativePaths(config: NodeAgentConfiguration, fileDir: string): NodeAgentConfiguration {
  const fix = (p: string): string => (p === "" || isAbsolute(p) ? p : join(fileDir, p));
  config.staticPodPath = fix(config.staticPodPath);
  config.authentication.x509.clientCAFile = fix(config.authentication.x509.clientCAFile);
  config.tlsCertFile = fix(config.tlsCertFile);
  config.tlsPrivateKeyFile = fix(config.tlsPrivateKeyFile);
  config.resolvConf = fix(config.resolvConf);
  return config;
}

/** The outcome of {@link loadNodeAgentConfigFile}. */
export type LoadConfigResult =
  | { readonly ok: true; readonly value: NodeAgentConfiguration; readonly warnings: readonly string[]; readonly setFields: readonly string[] }
  | { readonly ok: false; readonly errors: readonly string[] };

/**
 * Reads, decodes, defaults and path-resolves a `--config` file. Errors are prefixed as the
 * kubelet's `failed to load Kubelet config file <path>, error ...` (renamed); unknown fields
 * become one warning. Never throws.
 *
 * @see cmd/kubelet/app/server.go (`loadConfigFile`) in kubernetes/kubernetes v1.23
 */
export function loadNodeAgentConfigFile(path: string): LoadConfigResult {
  const prefix = `failed to load Nodeagent config file ${path}, error`;
  // 1.23 reads filepath.Abs(name): the inner messages name the absolute, cleaned path.
  const abs = resolve(path);
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (e) {
    return { ok: false, errors: [`${prefix} failed to read nodeagent config file ${formatGoQuoted(abs)}, error: ${goFileError(e, abs)}`] };
  }
  if (text.length === 0) return { ok: false, errors: [`${prefix} nodeagent config file ${formatGoQuoted(abs)} was empty`] };
  const r = decodeNodeAgentConfiguration(text);
  if (!r.ok) return { ok: false, errors: r.errors.map((e) => `${prefix} failed to decode: ${e}`) };
  const warnings =
    r.unknownFields.length === 0
      ? []
      : [`using lenient decoding as strict decoding failed: unknown field${r.unknownFields.length > 1 ? "s" : ""} ${r.unknownFields.map((f) => JSON.stringify(f)).join(", ")} in ${path}`];
  return { ok: true, value: resolveConfigRelativePaths(r.value, dirname(abs)), warnings, setFields: r.setFields };
}

// Go's syscall.Errno texts for the errors os.ReadFile can meet on Linux.
const goErrnoText: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  EIO: "input/output error",
  EMFILE: "too many open files",
  ENXIO: "no such device or address",
};

/**
 * A Node file-system error as Go's `*fs.PathError` prints it: `<op> <path>: <errno text>`
 * (`open /x: no such file or directory`; reading a directory fails at `read`, as `os.ReadFile` does).
 */
function goFileError(e: unknown, path: string): string {
  const err = e as NodeJS.ErrnoException;
  const code = err.code ?? "";
  const text = goErrnoText[code] ?? err.message;
  const op = code === "EISDIR" ? "read" : "open";
  return `${op} ${path}: ${text}`;
}
