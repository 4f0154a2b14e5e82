/**
 * The zod schema of the node agent's configuration file body (`NodeAgentConfiguration` without
 * `apiVersion` and `kind`), checked against {@link NodeAgentConfiguration} so the two cannot drift
 * (STYLE.md §3, §8): every struct's shape must name exactly the keys of its TypeScript type, and the
 * parsed output `satisfies z.ZodType<NodeAgentConfigurationFile>`.
 *
 * Issues are worded as Go's `encoding/json` words them, by the error maps of the schemas
 * themselves (zod hands them the whole path):
 * - a JSON type the field cannot hold: `json: cannot unmarshal string into Go struct field
 *   NodeAgentConfiguration.port of type int32` (`number 1.5` for a number an integer type rejects);
 * - a string the field's own parser rejects (durations, quantities, taints...):
 *   `NodeAgentConfiguration.fileCheckFrequency: time: invalid duration "soon"`.
 *
 * Members the schema does not declare raise zod's `unrecognized_keys` issue (structs are strict);
 * the decoder turns them into warnings. A `null` struct member counts as absent (Go leaves the field
 * unset).
 *
 * @see staging/src/k8s.io/kubelet/config/v1beta1/types.go in kubernetes/kubernetes v1.23
 */
import type { Duration, ModulePattern, Quantity, ValueError } from "@skiff/flags";
import { parseDuration, parseQuantity } from "@skiff/flags";
import { z } from "zod";
import type { NodeAgentConfiguration } from "./config.js";
import type { RegisterTaint, ReservedMemoryEntry } from "./flag-types.js";
import { parseRegisterTaint } from "./flag-types.js";

/**
 * How a configuration file may give a struct `T`: every member optional, nested structs likewise;
 * lists, maps, durations and quantities are given whole.
 */
export type ConfigFileOf<T> = { [K in keyof T]?: ConfigFileValue<T[K]> };

/** One member of {@link ConfigFileOf}: a nested struct is itself partial, any other value is whole. */
export type ConfigFileValue<V> = V extends readonly unknown[] | Duration | Quantity
  ? V
  : V extends object
    ? string extends keyof V
      ? V
      : ConfigFileOf<V>
    : V;

/** What {@link nodeAgentConfigurationSchema} parses a file body into: the fields the file gives, converted. */
export type NodeAgentConfigurationFile = ConfigFileOf<NodeAgentConfiguration>;

/** Name of the root struct in Go-style field paths (`NodeAgentConfiguration.authentication.webhook.cacheTTL`). */
const rootGoName = "NodeAgentConfiguration";

/** The Go-style path of a field: `NodeAgentConfiguration.a.b[0].mapKey`. */
export function formatGoFieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, seg) => (typeof seg === "number" ? `${out}[${seg}]` : `${out}.${String(seg)}`), rootGoName);
}

/** A JSON value's type in the words of Go's `UnmarshalTypeError` (`string`, `number`, `bool`, `array`, `object`, `null`). */
function jsonTypeOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

// Error maps. `integer`: Go names the offending number for integer types (`number 1.5`), and only
// there (`cannot unmarshal number into ... of type string`).
function goType(name: string, integer = false): { error: (iss: { readonly input?: unknown; readonly path?: readonly PropertyKey[] | undefined }) => string } {
  return {
    error: (iss) => {
      const got = integer && typeof iss.input === "number" ? `number ${iss.input}` : jsonTypeOf(iss.input);
      return `json: cannot unmarshal ${got} into Go struct field ${formatGoFieldPath(iss.path ?? [])} of type ${name}`;
    },
  };
}

type Converted<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

function fromValueResult<T>(r: { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly ValueError[] }, fallback: string): Converted<T> {
  return r.ok ? r : { ok: false, error: r.errors[0]?.message ?? fallback };
}

/**
 * `schema`, then `convert`; a conversion error is one issue at the field, worded `<Go path>:
 * <error>`. zod cannot word a transform's issue with the field's path (the path is only known
 * when issues are finalised, through the error map of the schema or check that raised them, and a
 * transform takes no error map), but a refinement's error map can: so the value is converted
 * twice, checked by a refinement and then transformed, which costs nothing for these short values.
 */
function converted<S extends z.ZodType, T>(schema: S, convert: (value: z.output<S>) => Converted<T>): z.ZodType<T, z.input<S>> {
  const check = schema.refine((v) => convert(v).ok, {
    error: (iss) => {
      const r = convert(iss.input as z.output<S>);
      return `${formatGoFieldPath(iss.path ?? [])}: ${r.ok ? "invalid value" : r.error}`;
    },
  });
  return check.transform((v, ctx) => {
    const r = convert(v);
    if (r.ok) return r.value;
    ctx.addIssue({ code: "custom", message: r.error }); // unreachable: the refinement rejected it
    return z.NEVER;
  });
}

// --- leaves ---------------------------------------------------------------------------------

const str = (): z.ZodString => z.string(goType("string"));
const bool = (): z.ZodBoolean => z.boolean(goType("bool"));
const int32 = () => z.int32(goType("int32", true));
/** int64 within JavaScript's safe integer range (a JSON number beyond 2^53 is not exact). */
const int64 = () => z.int(goType("int64", true));
const float64 = () => z.number(goType("float64"));

/** `metav1.Duration`: Go duration text (`1m30s`) → {@link Duration}. */
const duration = (): z.ZodType<Duration, string> => converted(z.string(goType("v1.Duration")), (s) => fromValueResult(parseDuration(s), "invalid duration"));

/** `resource.QuantityValue`: quantity text or a JSON number → {@link Quantity}. */
const quantity = (): z.ZodType<Quantity, string | number> =>
  converted(z.union([z.string(), z.number()], goType("resource.QuantityValue")), (v) => fromValueResult(parseQuantity(String(v)), "invalid quantity"));

const strList = (): z.ZodArray<z.ZodString> => z.array(str(), goType("[]string"));
const strMap = (): z.ZodRecord<z.ZodString, z.ZodString> => z.record(z.string(), str(), goType("map[string]string"));
const boolMap = (): z.ZodRecord<z.ZodString, z.ZodBoolean> => z.record(z.string(), bool(), goType("map[string]bool"));
/** `map[string][]string`; a `null` list is an empty one, as Go decodes it. */
const strListMap = (): z.ZodType<Record<string, string[]>> =>
  z.record(
    z.string(),
    z.preprocess((v) => v ?? [], strList()),
    goType("map[string][]string"),
  );

// --- list entries checked as a whole ----------------------------------------------------------
// A malformed entry is one issue at the entry (`NodeAgentConfiguration.registerWithTaints[0]: a
// taint needs ...`), not one per member: the member schemas below only decide whether the entry fits.

const taintMembers = z.object({ key: z.string(), value: z.string().exactOptional(), effect: z.string() });

/** `v1.Taint` (without `timeAdded`): checked as `key=value:effect` by the flag's parser. */
const taint = (): z.ZodType<RegisterTaint> =>
  converted(z.looseObject({}, goType("v1.Taint")), (o): Converted<RegisterTaint> => {
    const m = taintMembers.safeParse(o);
    if (!m.success) return { ok: false, error: "a taint needs string fields key and effect (and optionally value)" };
    const t = m.data;
    const r = parseRegisterTaint(t.value === undefined ? `${t.key}:${t.effect}` : `${t.key}=${t.value}:${t.effect}`);
    return r.ok ? r : { ok: false, error: r.error };
  });

const vmoduleMembers = z.looseObject({ filePattern: z.string(), verbosity: z.int().min(0) });

/** `VModuleConfiguration`: `{filePattern, verbosity}` entries → {@link ModulePattern}s (verbosity 0 entries kept, as 1.23's `VModuleConfiguration` keeps them; the logger ignores them as klog does). */
const vmodule = (): z.ZodType<ModulePattern[]> =>
  z
    .array(
      converted(z.unknown(), (x) => {
        const m = vmoduleMembers.safeParse(x);
        return m.success ? { ok: true, value: m.data } : { ok: false, error: "a vmodule entry needs a string filePattern and a non-negative integer verbosity" };
      }),
      goType("VModuleConfiguration"),
    )
    .transform((items) => items.map((m) => ({ pattern: m.filePattern, level: m.verbosity })));

const memoryReservationHead = z.looseObject({ numaNode: z.int() });

/** `[]MemoryReservation`: `{numaNode, limits}`; absent or `null` limits are empty. */
const reservedMemory = (): z.ZodType<ReservedMemoryEntry[]> =>
  z.array(
    converted(z.unknown(), (x) => {
      const m = memoryReservationHead.safeParse(x);
      return m.success ? { ok: true, value: m.data } : { ok: false, error: "a memory reservation needs an integer numaNode and a limits map" };
    }).pipe(z.object({ numaNode: z.number(), limits: z.preprocess((v) => v ?? {}, strMap()) })),
    goType("[]MemoryReservation"),
  );

// --- structs ----------------------------------------------------------------------------------

const structShapes = new WeakMap<z.ZodType, Readonly<Record<string, z.ZodType>>>();
const zeroUnsetFields = new WeakSet<z.ZodType>();

// Unknown members stay, `null` or not, so that they are reported.
function dropNullMembers(v: unknown, shape: object): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x !== null || !Object.hasOwn(shape, k)) Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A strict struct schema for `T`: the shape must name exactly the keys of `T` (checked at compile
 * time), each member's output must fit {@link ConfigFileValue}. `null` members the shape declares
 * are dropped before parsing (Go leaves such a field unset).
 */
function structOf<T>() {
  return <S extends { [K in keyof T]-?: z.ZodType<ConfigFileValue<T[K]>> }>(shape: S & Record<Exclude<keyof S, keyof T>, never>) => {
    const schema = z.preprocess((v) => dropNullMembers(v, shape), z.strictObject(shape as S, goType("struct")));
    structShapes.set(schema, shape);
    return schema;
  };
}

/**
 * An optional field whose zero value (`0`, `""`, `0s`) in a file means "use the default", because
 * 1.23's v1beta1 type is not a pointer there and `SetDefaults_KubeletConfiguration` tests for zero.
 * zod cannot express "absent from the output" in a transform of an `exactOptional` member (its
 * output may not be `undefined`), so the field is only marked here and the merge skips such zeros.
 */
function zeroIsUnset<S extends z.ZodType>(schema: S): z.ZodExactOptional<S> {
  const field = schema.exactOptional();
  zeroUnsetFields.add(field);
  return field;
}

/** The struct shape of a member schema, when the member is a nested struct. */
export function nestedStructShape(field: z.ZodType): Readonly<Record<string, z.ZodType>> | undefined {
  return structShapes.get(field instanceof z.ZodExactOptional ? (field.unwrap() as z.ZodType) : field);
}

/** Whether a member schema was declared with {@link zeroIsUnset}. */
export function isZeroUnsetField(field: z.ZodType): boolean {
  return zeroUnsetFields.has(field);
}

type Auth = NodeAgentConfiguration["authentication"];
type Authz = NodeAgentConfiguration["authorization"];
type Logging = NodeAgentConfiguration["logging"];

const authenticationSchema = structOf<Auth>()({
  x509: structOf<Auth["x509"]>()({ clientCAFile: str().exactOptional() }).exactOptional(),
  webhook: structOf<Auth["webhook"]>()({ enabled: bool().exactOptional(), cacheTTL: zeroIsUnset(duration()) }).exactOptional(),
  anonymous: structOf<Auth["anonymous"]>()({ enabled: bool().exactOptional() }).exactOptional(),
});

const authorizationSchema = structOf<Authz>()({
  mode: zeroIsUnset(str()),
  webhook: structOf<Authz["webhook"]>()({ cacheAuthorizedTTL: zeroIsUnset(duration()), cacheUnauthorizedTTL: zeroIsUnset(duration()) }).exactOptional(),
});

const loggingSchema = structOf<Logging>()({
  format: zeroIsUnset(str()),
  flushFrequency: zeroIsUnset(duration()),
  // v1alpha1 LoggingConfiguration.Verbosity is a uint32 (component-base config/v1alpha1/types.go, 1.23).
  verbosity: z.int(goType("uint32", true)).min(0, goType("uint32", true)).max(4294967295, goType("uint32", true)).exactOptional(),
  vmodule: vmodule().exactOptional(),
  options: structOf<Logging["options"]>()({
    json: structOf<Logging["options"]["json"]>()({ infoBufferSize: quantity().exactOptional(), splitStream: bool().exactOptional() }).exactOptional(),
  }).exactOptional(),
});

/**
 * The file body's schema: every field of {@link NodeAgentConfiguration}, optional, with its Go
 * type in issue messages; durations become {@link Duration}s, `logging.options.json.infoBufferSize`
 * a {@link Quantity}, `logging.vmodule` {@link ModulePattern}s. `apiVersion` and `kind` are not part
 * of it (the decoder checks them first, with the API machinery's messages). The output holds only
 * the fields the file gives; defaults are applied by the decoder.
 *
 * @example
 * ```ts
 * nodeAgentConfigurationSchema.safeParse({ port: "1" }).error?.issues[0]?.message;
 * // json: cannot unmarshal string into Go struct field NodeAgentConfiguration.port of type int32
 * ```
 */
export const nodeAgentConfigurationSchema = structOf<NodeAgentConfiguration>()({
  enableServer: bool().exactOptional(),
  staticPodPath: str().exactOptional(),
  syncFrequency: zeroIsUnset(duration()),
  fileCheckFrequency: zeroIsUnset(duration()),
  httpCheckFrequency: zeroIsUnset(duration()),
  staticPodURL: str().exactOptional(),
  staticPodURLHeader: strListMap().exactOptional(),
  address: zeroIsUnset(str()),
  port: zeroIsUnset(int32()),
  readOnlyPort: int32().exactOptional(),
  volumePluginDir: zeroIsUnset(str()),
  providerID: str().exactOptional(),
  tlsCertFile: str().exactOptional(),
  tlsPrivateKeyFile: str().exactOptional(),
  tlsCipherSuites: strList().exactOptional(),
  tlsMinVersion: str().exactOptional(),
  rotateCertificates: bool().exactOptional(),
  serverTLSBootstrap: bool().exactOptional(),
  authentication: authenticationSchema.exactOptional(),
  authorization: authorizationSchema.exactOptional(),
  registryPullQPS: int32().exactOptional(),
  registryBurst: int32().exactOptional(),
  eventRecordQPS: int32().exactOptional(),
  eventBurst: int32().exactOptional(),
  enableDebuggingHandlers: bool().exactOptional(),
  enableContentionProfiling: bool().exactOptional(),
  healthzPort: int32().exactOptional(),
  healthzBindAddress: zeroIsUnset(str()),
  oomScoreAdj: int32().exactOptional(),
  clusterDomain: str().exactOptional(),
  clusterDNS: strList().exactOptional(),
  streamingConnectionIdleTimeout: zeroIsUnset(duration()),
  nodeStatusUpdateFrequency: zeroIsUnset(duration()),
  nodeStatusReportFrequency: zeroIsUnset(duration()),
  nodeLeaseDurationSeconds: zeroIsUnset(int32()),
  imageMinimumGCAge: zeroIsUnset(duration()),
  imageGCHighThresholdPercent: int32().exactOptional(),
  imageGCLowThresholdPercent: int32().exactOptional(),
  volumeStatsAggPeriod: zeroIsUnset(duration()),
  agentCgroups: str().exactOptional(),
  systemCgroups: str().exactOptional(),
  cgroupRoot: str().exactOptional(),
  cgroupsPerQOS: bool().exactOptional(),
  cgroupDriver: zeroIsUnset(str()),
  cpuManagerPolicy: zeroIsUnset(str()),
  cpuManagerPolicyOptions: strMap().exactOptional(),
  cpuManagerReconcilePeriod: zeroIsUnset(duration()),
  memoryManagerPolicy: zeroIsUnset(str()),
  topologyManagerPolicy: zeroIsUnset(str()),
  topologyManagerScope: zeroIsUnset(str()),
  qosReserved: strMap().exactOptional(),
  runtimeRequestTimeout: zeroIsUnset(duration()),
  hairpinMode: zeroIsUnset(str()),
  maxPods: zeroIsUnset(int32()),
  podCIDR: str().exactOptional(),
  podPidsLimit: zeroIsUnset(int64()),
  resolvConf: str().exactOptional(),
  runOnce: bool().exactOptional(),
  cpuCFSQuota: bool().exactOptional(),
  cpuCFSQuotaPeriod: duration().exactOptional(),
  nodeStatusMaxImages: int32().exactOptional(),
  maxOpenFiles: zeroIsUnset(int64()),
  contentType: zeroIsUnset(str()),
  clusterAPIQPS: zeroIsUnset(int32()),
  clusterAPIBurst: zeroIsUnset(int32()),
  serializeImagePulls: bool().exactOptional(),
  evictionHard: strMap().exactOptional(),
  evictionSoft: strMap().exactOptional(),
  evictionSoftGracePeriod: strMap().exactOptional(),
  evictionPressureTransitionPeriod: zeroIsUnset(duration()),
  evictionMaxPodGracePeriod: int32().exactOptional(),
  evictionMinimumReclaim: strMap().exactOptional(),
  podsPerCore: int32().exactOptional(),
  enableControllerAttachDetach: bool().exactOptional(),
  protectKernelDefaults: bool().exactOptional(),
  makeIPTablesUtilChains: bool().exactOptional(),
  iptablesMasqueradeBit: int32().exactOptional(),
  iptablesDropBit: int32().exactOptional(),
  featureGates: boolMap().exactOptional(),
  failSwapOn: bool().exactOptional(),
  containerLogMaxSize: zeroIsUnset(str()),
  containerLogMaxFiles: int32().exactOptional(),
  configMapAndSecretChangeDetectionStrategy: zeroIsUnset(str()),
  systemReserved: strMap().exactOptional(),
  clusterReserved: strMap().exactOptional(),
  reservedSystemCPUs: str().exactOptional(),
  showHiddenMetricsForVersion: str().exactOptional(),
  systemReservedCgroup: str().exactOptional(),
  clusterReservedCgroup: str().exactOptional(),
  enforceNodeAllocatable: strList().exactOptional(),
  allowedUnsafeSysctls: strList().exactOptional(),
  kernelMemcgNotification: bool().exactOptional(),
  logging: loggingSchema.exactOptional(),
  enableSystemLogHandler: bool().exactOptional(),
  shutdownGracePeriod: duration().exactOptional(),
  shutdownGracePeriodCriticalPods: duration().exactOptional(),
  reservedMemory: reservedMemory().exactOptional(),
  enableProfilingHandler: bool().exactOptional(),
  enableDebugFlagsHandler: bool().exactOptional(),
  memoryThrottlingFactor: float64().exactOptional(),
  registerWithTaints: z.array(taint(), goType("[]v1.Taint")).exactOptional(),
  registerNode: bool().exactOptional(),
  podLogsDir: zeroIsUnset(str()),
}) satisfies z.ZodType<NodeAgentConfigurationFile>;
