/**
 * The node agent's configuration file: `NodeAgentConfiguration` of
 * `nodeagent.config.example.io/v1beta1`, the kubelet's `KubeletConfiguration` (v1beta1, 1.23)
 * with the spec's renames (`kubeletCgroups` → `agentCgroups`, `kubeReserved` →
 * `clusterReserved`, `kubeReservedCgroup` → `clusterReservedCgroup`, `kubeAPIQPS` →
 * `clusterAPIQPS`, `kubeAPIBurst` → `clusterAPIBurst`, enforcement level `kube-reserved` →
 * `cluster-reserved`).
 *
 * The schema is a table of field decoders ({@link nodeAgentConfigurationSchema}) rather than zod:
 * `zod` is not a dependency of `apps/nodeagent`. It checks JSON types as Go's decoder does
 * (`json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32`),
 * parses durations and quantities, and lists unknown fields (reported as warnings: 1.23 falls back
 * to lenient decoding when strict decoding fails).
 *
 * @see staging/src/k8s.io/kubelet/config/v1beta1/types.go in kubernetes/kubernetes v1.23
 * @see pkg/kubelet/apis/config/v1beta1/defaults.go (`SetDefaults_KubeletConfiguration`)
 * @see pkg/kubelet/kubeletconfig/configfiles/configfiles.go (`Load`, `resolveRelativePaths`)
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { Duration, ModulePattern, Quantity } from "@skiff/flags";
import { mustParseDuration, mustParseQuantity, parseDuration, parseQuantity } from "@skiff/flags";
import { parse as parseYaml } from "yaml";
import type { RegisterTaint, ReservedMemoryEntry } from "./flag-types.js";
import { parseRegisterTaint } from "./flag-types.js";
import type { NodeAgentConfigFlags } from "./flags.js";
import { defaultEvictionHard } from "./flags.js";

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
}

const d = mustParseDuration;

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
// Schema

/** Decodes one JSON value; `path` is the Go-style field path for messages. */
/** Decodes one JSON value at a Go-style field path, recording errors; returns a private failure marker on error. */
export type FieldDecoder = (value: unknown, path: string, ctx: DecodeContext) => unknown;

/** A leaf field of {@link nodeAgentConfigurationSchema}: its Go type (for messages) and decoder. */
export interface ConfigLeafSchema {
  readonly goType: string;
  readonly decode: FieldDecoder;
}

/** Errors and unknown fields collected while decoding. */
export interface DecodeContext {
  readonly errors: string[];
  readonly unknownFields: string[];
  readonly setFields: string[];
}

/** A field of {@link nodeAgentConfigurationSchema}: a decoder, or a nested object schema. */
export type ConfigFieldSchema = ConfigLeafSchema | { readonly fields: ConfigObjectSchema };

/** An object of {@link nodeAgentConfigurationSchema}: field name → schema. */
export type ConfigObjectSchema = { readonly [field: string]: ConfigFieldSchema };

const fail = Symbol("fail");

function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v;
}

function mismatch(ctx: DecodeContext, v: unknown, path: string, goType: string): typeof fail {
  ctx.errors.push(`json: cannot unmarshal ${jsonTypeOf(v)} into Go struct field ${path} of type ${goType}`);
  return fail;
}

function leaf(goType: string, decode: FieldDecoder): ConfigLeafSchema {
  return { goType, decode };
}

const str = leaf("string", (v, p, c) => (typeof v === "string" ? v : mismatch(c, v, p, "string")));
const bool = leaf("bool", (v, p, c) => (typeof v === "boolean" ? v : mismatch(c, v, p, "bool")));

function integer(goType: string, min: number, max: number): ConfigLeafSchema {
  return leaf(goType, (v, p, c) => {
    if (typeof v !== "number") return mismatch(c, v, p, goType);
    if (!Number.isInteger(v) || v < min || v > max) {
      c.errors.push(`json: cannot unmarshal number ${v} into Go struct field ${p} of type ${goType}`);
      return fail;
    }
    return v;
  });
}

const int32 = integer("int32", -(2 ** 31), 2 ** 31 - 1);
const int64 = integer("int64", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
const float64 = leaf("float64", (v, p, c) => (typeof v === "number" ? v : mismatch(c, v, p, "float64")));

const duration = leaf("v1.Duration", (v, p, c) => {
  if (typeof v !== "string") return mismatch(c, v, p, "v1.Duration");
  const r = parseDuration(v);
  if (!r.ok) {
    c.errors.push(`${p}: ${r.errors[0]?.message ?? "invalid duration"}`);
    return fail;
  }
  return r.value;
});

const quantity = leaf("resource.QuantityValue", (v, p, c) => {
  if (typeof v !== "string" && typeof v !== "number") return mismatch(c, v, p, "resource.QuantityValue");
  const r = parseQuantity(String(v));
  if (!r.ok) {
    c.errors.push(`${p}: ${r.errors[0]?.message ?? "invalid quantity"}`);
    return fail;
  }
  return r.value;
});

function list(item: ConfigLeafSchema, goType: string): ConfigLeafSchema {
  return leaf(goType, (v, p, c) => {
    if (v === null) return [];
    if (!Array.isArray(v)) return mismatch(c, v, p, goType);
    const out: unknown[] = [];
    for (const [i, x] of v.entries()) {
      const r = item.decode(x, `${p}[${i}]`, c);
      if (r === fail) return fail;
      out.push(r);
    }
    return out;
  });
}

function map(value: ConfigLeafSchema, goType: string): ConfigLeafSchema {
  return leaf(goType, (v, p, c) => {
    if (v === null) return {};
    if (typeof v !== "object" || Array.isArray(v)) return mismatch(c, v, p, goType);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const r = value.decode(x, `${p}.${k}`, c);
      if (r === fail) return fail;
      out[k] = r;
    }
    return out;
  });
}

const strList = list(str, "[]string");
const strMap = map(str, "map[string]string");
const boolMap = map(bool, "map[string]bool");
const strListMap = map(strList, "map[string][]string");
const strMapDecode = strMap.decode;

const taints = leaf("[]v1.Taint", (v, p, c) => {
  if (v === null) return [];
  if (!Array.isArray(v)) return mismatch(c, v, p, "[]v1.Taint");
  const out: RegisterTaint[] = [];
  for (const [i, x] of v.entries()) {
    if (typeof x !== "object" || x === null || Array.isArray(x)) return mismatch(c, x, `${p}[${i}]`, "v1.Taint");
    const o = x as Record<string, unknown>;
    if (typeof o.key !== "string" || typeof o.effect !== "string" || (o.value !== undefined && typeof o.value !== "string")) {
      c.errors.push(`${p}[${i}]: a taint needs string fields key and effect (and optionally value)`);
      return fail;
    }
    const r = parseRegisterTaint(typeof o.value === "string" ? `${o.key}=${o.value}:${o.effect}` : `${o.key}:${o.effect}`);
    if (!r.ok) {
      c.errors.push(`${p}[${i}]: ${r.error}`);
      return fail;
    }
    out.push(r.value);
  }
  return out;
});

const reservedMemory = leaf("[]MemoryReservation", (v, p, c) => {
  if (v === null) return [];
  if (!Array.isArray(v)) return mismatch(c, v, p, "[]MemoryReservation");
  const out: ReservedMemoryEntry[] = [];
  for (const [i, x] of v.entries()) {
    const o = x as Record<string, unknown> | null;
    if (typeof o !== "object" || o === null || typeof o.numaNode !== "number" || !Number.isInteger(o.numaNode)) {
      c.errors.push(`${p}[${i}]: a memory reservation needs an integer numaNode and a limits map`);
      return fail;
    }
    const limits = strMapDecode(o.limits ?? {}, `${p}[${i}].limits`, c);
    if (limits === fail) return fail;
    out.push({ numaNode: o.numaNode, limits: limits as Record<string, string> });
  }
  return out;
});

const vmodule = leaf("VModuleConfiguration", (v, p, c) => {
  if (v === null) return [];
  if (!Array.isArray(v)) return mismatch(c, v, p, "VModuleConfiguration");
  const out: ModulePattern[] = [];
  for (const [i, x] of v.entries()) {
    const o = x as Record<string, unknown> | null;
    if (typeof o !== "object" || o === null || typeof o.filePattern !== "string" || typeof o.verbosity !== "number" || !Number.isInteger(o.verbosity) || o.verbosity < 0) {
      c.errors.push(`${p}[${i}]: a vmodule entry needs a string filePattern and a non-negative integer verbosity`);
      return fail;
    }
    if (o.verbosity > 0) out.push({ pattern: o.filePattern, level: o.verbosity });
  }
  return out;
});

/**
 * The file schema: every field of {@link NodeAgentConfiguration} with its JSON decoder (Go
 * type in messages). `apiVersion` and `kind` are checked separately.
 */
export const nodeAgentConfigurationSchema: ConfigObjectSchema = {
  enableServer: bool,
  staticPodPath: str,
  syncFrequency: duration,
  fileCheckFrequency: duration,
  httpCheckFrequency: duration,
  staticPodURL: str,
  staticPodURLHeader: strListMap,
  address: str,
  port: int32,
  readOnlyPort: int32,
  volumePluginDir: str,
  providerID: str,
  tlsCertFile: str,
  tlsPrivateKeyFile: str,
  tlsCipherSuites: strList,
  tlsMinVersion: str,
  rotateCertificates: bool,
  serverTLSBootstrap: bool,
  authentication: {
    fields: {
      x509: { fields: { clientCAFile: str } },
      webhook: { fields: { enabled: bool, cacheTTL: duration } },
      anonymous: { fields: { enabled: bool } },
    },
  },
  authorization: {
    fields: {
      mode: str,
      webhook: { fields: { cacheAuthorizedTTL: duration, cacheUnauthorizedTTL: duration } },
    },
  },
  registryPullQPS: int32,
  registryBurst: int32,
  eventRecordQPS: int32,
  eventBurst: int32,
  enableDebuggingHandlers: bool,
  enableContentionProfiling: bool,
  healthzPort: int32,
  healthzBindAddress: str,
  oomScoreAdj: int32,
  clusterDomain: str,
  clusterDNS: strList,
  streamingConnectionIdleTimeout: duration,
  nodeStatusUpdateFrequency: duration,
  nodeStatusReportFrequency: duration,
  nodeLeaseDurationSeconds: int32,
  imageMinimumGCAge: duration,
  imageGCHighThresholdPercent: int32,
  imageGCLowThresholdPercent: int32,
  volumeStatsAggPeriod: duration,
  agentCgroups: str,
  systemCgroups: str,
  cgroupRoot: str,
  cgroupsPerQOS: bool,
  cgroupDriver: str,
  cpuManagerPolicy: str,
  cpuManagerPolicyOptions: strMap,
  cpuManagerReconcilePeriod: duration,
  memoryManagerPolicy: str,
  topologyManagerPolicy: str,
  topologyManagerScope: str,
  qosReserved: strMap,
  runtimeRequestTimeout: duration,
  hairpinMode: str,
  maxPods: int32,
  podCIDR: str,
  podPidsLimit: int64,
  resolvConf: str,
  runOnce: bool,
  cpuCFSQuota: bool,
  cpuCFSQuotaPeriod: duration,
  nodeStatusMaxImages: int32,
  maxOpenFiles: int64,
  contentType: str,
  clusterAPIQPS: int32,
  clusterAPIBurst: int32,
  serializeImagePulls: bool,
  evictionHard: strMap,
  evictionSoft: strMap,
  evictionSoftGracePeriod: strMap,
  evictionPressureTransitionPeriod: duration,
  evictionMaxPodGracePeriod: int32,
  evictionMinimumReclaim: strMap,
  podsPerCore: int32,
  enableControllerAttachDetach: bool,
  protectKernelDefaults: bool,
  makeIPTablesUtilChains: bool,
  iptablesMasqueradeBit: int32,
  iptablesDropBit: int32,
  featureGates: boolMap,
  failSwapOn: bool,
  containerLogMaxSize: str,
  containerLogMaxFiles: int32,
  configMapAndSecretChangeDetectionStrategy: str,
  systemReserved: strMap,
  clusterReserved: strMap,
  reservedSystemCPUs: str,
  showHiddenMetricsForVersion: str,
  systemReservedCgroup: str,
  clusterReservedCgroup: str,
  enforceNodeAllocatable: strList,
  allowedUnsafeSysctls: strList,
  kernelMemcgNotification: bool,
  logging: {
    fields: {
      format: str,
      flushFrequency: duration,
      verbosity: int32,
      vmodule,
      options: { fields: { json: { fields: { infoBufferSize: quantity, splitStream: bool } } } },
    },
  },
  enableSystemLogHandler: bool,
  shutdownGracePeriod: duration,
  shutdownGracePeriodCriticalPods: duration,
  reservedMemory,
  enableProfilingHandler: bool,
  enableDebugFlagsHandler: bool,
  memoryThrottlingFactor: float64,
  registerWithTaints: taints,
  registerNode: bool,
};

/**
 * Fields whose zero value (`0`, `""`) in a file means "use the default", because 1.23's v1beta1
 * type is not a pointer there and `SetDefaults_KubeletConfiguration` tests for zero.
 */
const zeroMeansDefault = new Set([
  "syncFrequency",
  "fileCheckFrequency",
  "httpCheckFrequency",
  "address",
  "port",
  "volumePluginDir",
  "authentication.webhook.cacheTTL",
  "authorization.mode",
  "authorization.webhook.cacheAuthorizedTTL",
  "authorization.webhook.cacheUnauthorizedTTL",
  "healthzBindAddress",
  "streamingConnectionIdleTimeout",
  "nodeStatusUpdateFrequency",
  "nodeStatusReportFrequency",
  "nodeLeaseDurationSeconds",
  "imageMinimumGCAge",
  "volumeStatsAggPeriod",
  "cgroupDriver",
  "cpuManagerPolicy",
  "cpuManagerReconcilePeriod",
  "memoryManagerPolicy",
  "topologyManagerPolicy",
  "topologyManagerScope",
  "runtimeRequestTimeout",
  "hairpinMode",
  "maxPods",
  "podPidsLimit",
  "maxOpenFiles",
  "contentType",
  "clusterAPIQPS",
  "clusterAPIBurst",
  "evictionPressureTransitionPeriod",
  "containerLogMaxSize",
  "configMapAndSecretChangeDetectionStrategy",
  "logging.format",
  "logging.flushFrequency",
]);

function isZero(v: unknown): boolean {
  if (v === 0 || v === "") return true;
  return typeof v === "object" && v !== null && "nanoseconds" in v && (v as Duration).nanoseconds === 0n;
}

function decodeObjectInto(schema: ConfigObjectSchema, input: Record<string, unknown>, target: Record<string, unknown>, goPath: string, dotted: string, ctx: DecodeContext): void {
  for (const [key, value] of Object.entries(input)) {
    const field = schema[key];
    const here = dotted === "" ? key : `${dotted}.${key}`;
    if (field === undefined || !Object.hasOwn(schema, key)) {
      ctx.unknownFields.push(here);
      continue;
    }
    if (value === null) continue;
    if ("fields" in field) {
      if (typeof value !== "object" || Array.isArray(value)) {
        mismatch(ctx, value, `${goPath}.${key}`, "struct");
        continue;
      }
      const sub = (target[key] ?? {}) as Record<string, unknown>;
      target[key] = sub;
      decodeObjectInto(field.fields, value as Record<string, unknown>, sub, `${goPath}.${key}`, here, ctx);
      continue;
    }
    const r = field.decode(value, `${goPath}.${key}`, ctx);
    if (r === fail) continue;
    if (zeroMeansDefault.has(here) && isZero(r)) continue;
    target[key] = r;
    ctx.setFields.push(here);
  }
}

/** The outcome of {@link decodeNodeAgentConfiguration}. */
export type DecodeConfigResult =
  | { readonly ok: true; readonly value: NodeAgentConfiguration; readonly unknownFields: readonly string[]; readonly setFields: readonly string[] }
  | { readonly ok: false; readonly errors: readonly string[] };

/**
 * Decodes a configuration file's text (YAML or JSON; JSON is YAML) into a defaulted
 * {@link NodeAgentConfiguration}. Requires `apiVersion: nodeagent.config.example.io/v1beta1` and
 * `kind: NodeAgentConfiguration`; every type error is returned (not only the first); unknown
 * fields are listed by dotted path, and so are the fields the file sets (`setFields`). Relative paths are left as written (see
 * {@link resolveConfigRelativePaths}). Pure; never throws.
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
  if (apiVersion === undefined || apiVersion === "" || kind === undefined || kind === "") {
    return { ok: false, errors: [`Object 'Kind' is missing or 'apiVersion' is missing: want apiVersion ${JSON.stringify(nodeAgentConfigAPIVersion)} and kind ${JSON.stringify(nodeAgentConfigKind)}`] };
  }
  if (apiVersion !== nodeAgentConfigAPIVersion || kind !== nodeAgentConfigKind) {
    return { ok: false, errors: [`no kind ${JSON.stringify(String(kind))} is registered for version ${JSON.stringify(String(apiVersion))} (want ${nodeAgentConfigAPIVersion}, Kind=${nodeAgentConfigKind})`] };
  }
  const ctx: DecodeContext = { errors: [], unknownFields: [], setFields: [] };
  const value = defaultNodeAgentConfiguration();
  decodeObjectInto(nodeAgentConfigurationSchema, rest, value as unknown as Record<string, unknown>, nodeAgentConfigKind, "", ctx);
  if (ctx.errors.length > 0) return { ok: false, errors: ctx.errors };
  return { ok: true, value, unknownFields: ctx.unknownFields, setFields: ctx.setFields };
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
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return { ok: false, errors: [`${prefix} failed to read nodeagent config file ${JSON.stringify(path)}, error: ${(e as Error).message}`] };
  }
  const r = decodeNodeAgentConfiguration(text);
  if (!r.ok) return { ok: false, errors: r.errors.map((e) => `${prefix} failed to decode: ${e}`) };
  const warnings =
    r.unknownFields.length === 0
      ? []
      : [`using lenient decoding as strict decoding failed: unknown field${r.unknownFields.length > 1 ? "s" : ""} ${r.unknownFields.map((f) => JSON.stringify(f)).join(", ")} in ${path}`];
  return { ok: true, value: resolveConfigRelativePaths(r.value, dirname(path)), warnings, setFields: r.setFields };
}
