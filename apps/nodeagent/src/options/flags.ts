/**
 * The node agent's flag table: every option of `spec/nodeagent-cli.md`, typed against
 * {@link NodeAgentOptionValues} (STYLE.md §8), split as the kubelet splits them:
 *
 * - {@link NodeAgentFlags}: per-process values that never come from the config file (kubelet's
 *   `KubeletFlags` plus klog's global flags): the spec's rows whose `Dep` column is blank or `R`;
 * - {@link NodeAgentConfigFlags}: flags bound to a field of the config file (kubelet's
 *   `AddKubeletConfigFlags`): the spec's `C` rows, plus `-v`, `--vmodule` and
 *   `--log-flush-frequency`, which 1.23 binds to `logging` without deprecating them. Each one's
 *   field is named in {@link configFieldPaths}.
 *
 * Usage texts are the spec's "Rules" column; sections are the spec's table headings, so `--help`
 * prints the flags grouped as the spec lists them.
 *
 * @see cmd/kubelet/app/options/options.go (`KubeletFlags.AddFlags`, `AddKubeletConfigFlags`) in kubernetes/kubernetes v1.23
 * @see staging/src/k8s.io/component-base/logs/options.go, k8s.io/klog/v2 (logging flags)
 */
import type { Duration, FlagSpec, FlagTable, ModulePattern, Quantity, TraceLocation, VersionFlagValue } from "@skiff/flags";
import { flagTypes as t, mustParseDuration } from "@skiff/flags";
import type { RegisterTaint, ReservedMemoryEntry } from "./flag-types.js";
import { applyLegacyFlagDefaults, defaultNodeAgentConfiguration } from "./config.js";
import { ipFlagType, reservedMemoryFlagType, taintsFlagType } from "./flag-types.js";
import { insecureCipherSuites, preferredCipherSuites } from "./tls.js";

/**
 * Deprecation text of every flag bound to the config file (kubelet 1.23's words, `Kubelet's` →
 * `Nodeagent's`).
 */
export const configFileDeprecation =
  "This parameter should be set via the config file specified by the Nodeagent's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.";

/** Deprecation text of klog's own flags (KEP 2845), as component-base 1.23 words it. */
export const klogFlagDeprecation =
  "will be removed in a future release, see https://github.com/kubernetes/enhancements/tree/master/keps/sig-instrumentation/2845-deprecate-klog-specific-flags-in-k8s-components";

const futureRemoval = "will be removed in a future version";
const useEviction = "Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.";

/** Headings of the spec's option tables, in the spec's order: `--help` prints one block per heading. */
export const flagSections = [
  "Serving, identity and registration",
  "Pod sources and sync",
  "Container runtime and images",
  "Resources, cgroups and scheduling limits",
  "Eviction",
  "Networking and DNS",
  "Node status and API client",
  "Logging",
  "Authentication",
] as const;

/** One heading of {@link flagSections}. */
export type FlagSection = (typeof flagSections)[number];

/**
 * Per-process options (never read from the config file); kubelet's `KubeletFlags` and klog's flags.
 * Values are as parsed; `""` means unset for strings.
 */
export interface NodeAgentFlags {
  config: string;
  hostnameOverride: string;
  nodeIP: string;
  nodeLabels: Record<string, string>;
  registerSchedulable: boolean;
  cloudProvider: string;
  cloudConfig: string;
  clusterconfig: string;
  bootstrapClusterconfig: string;
  masterServiceNamespace: string;
  rootDir: string;
  lockFile: string;
  exitOnLockContention: boolean;
  version: VersionFlagValue;
  help: boolean;
  containerRuntime: string;
  containerRuntimeEndpoint: string;
  imageServiceEndpoint: string;
  runtimeCgroups: string;
  podInfraContainerImage: string;
  imageCredentialProviderBinDir: string;
  imageCredentialProviderConfig: string;
  vendorContainerRegistryConfig: string;
  minimumContainerTTLDuration: Duration;
  maximumDeadContainers: number;
  maximumDeadContainersPerContainer: number;
  keepTerminatedPodVolumes: boolean;
  experimentalMounterPath: string;
  experimentalAllocatableIgnoreEviction: boolean;
  seccompDefault: boolean;
  certDir: string;
  addDirHeader: boolean;
  alsologtostderr: boolean;
  logtostderr: boolean;
  logBacktraceAt: TraceLocation;
  logDir: string;
  logFile: string;
  logFileMaxSize: number;
  oneOutput: boolean;
  skipHeaders: boolean;
  skipLogHeaders: boolean;
  stderrthreshold: number;
}

/**
 * The flags bound to config-file fields, flat, keyed as the field's last path element (see
 * {@link configFieldPaths} for the full path in {@link NodeAgentConfiguration}).
 */
export interface NodeAgentConfigFlags {
  address: string;
  port: number;
  readOnlyPort: number;
  enableServer: boolean;
  enableDebuggingHandlers: boolean;
  healthzBindAddress: string;
  healthzPort: number;
  registerNode: boolean;
  registerWithTaints: RegisterTaint[];
  providerID: string;
  podCIDR: string;
  runOnce: boolean;
  staticPodPath: string;
  fileCheckFrequency: Duration;
  staticPodURL: string;
  staticPodURLHeader: Record<string, string[]>;
  httpCheckFrequency: Duration;
  syncFrequency: Duration;
  runtimeRequestTimeout: Duration;
  serializeImagePulls: boolean;
  registryPullQPS: number;
  registryBurst: number;
  imageGCHighThresholdPercent: number;
  imageGCLowThresholdPercent: number;
  imageMinimumGCAge: Duration;
  containerLogMaxFiles: number;
  containerLogMaxSize: string;
  volumePluginDir: string;
  volumeStatsAggPeriod: Duration;
  enableControllerAttachDetach: boolean;
  maxPods: number;
  podsPerCore: number;
  podPidsLimit: number;
  maxOpenFiles: number;
  oomScoreAdj: number;
  cgroupDriver: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
  agentCgroups: string;
  systemCgroups: string;
  cpuCFSQuota: boolean;
  cpuCFSQuotaPeriod: Duration;
  cpuManagerPolicy: string;
  cpuManagerPolicyOptions: Record<string, string>;
  cpuManagerReconcilePeriod: Duration;
  memoryManagerPolicy: string;
  topologyManagerPolicy: string;
  topologyManagerScope: string;
  enforceNodeAllocatable: string[];
  clusterReserved: Record<string, string>;
  clusterReservedCgroup: string;
  systemReserved: Record<string, string>;
  systemReservedCgroup: string;
  reservedSystemCPUs: string;
  reservedMemory: ReservedMemoryEntry[];
  qosReserved: Record<string, string>;
  failSwapOn: boolean;
  protectKernelDefaults: boolean;
  allowedUnsafeSysctls: string[];
  evictionHard: Record<string, string>;
  evictionSoft: Record<string, string>;
  evictionSoftGracePeriod: Record<string, string>;
  evictionMinimumReclaim: Record<string, string>;
  evictionMaxPodGracePeriod: number;
  evictionPressureTransitionPeriod: Duration;
  kernelMemcgNotification: boolean;
  experimentalKernelMemcgNotification: boolean;
  clusterDNS: string[];
  clusterDomain: string;
  resolvConf: string;
  hairpinMode: string;
  makeIPTablesUtilChains: boolean;
  iptablesDropBit: number;
  iptablesMasqueradeBit: number;
  streamingConnectionIdleTimeout: Duration;
  nodeStatusUpdateFrequency: Duration;
  nodeStatusMaxImages: number;
  clusterAPIQPS: number;
  clusterAPIBurst: number;
  contentType: string;
  eventRecordQPS: number;
  eventBurst: number;
  featureGates: Record<string, boolean>;
  enableContentionProfiling: boolean;
  verbosity: number;
  vmodule: ModulePattern[];
  loggingFormat: string;
  logFlushFrequency: Duration;
  logJSONInfoBufferSize: Quantity;
  logJSONSplitStream: boolean;
  anonymousAuth: boolean;
  clientCAFile: string;
  authenticationTokenWebhook: boolean;
  authenticationTokenWebhookCacheTTL: Duration;
  authorizationMode: string;
  authorizationWebhookCacheAuthorizedTTL: Duration;
  authorizationWebhookCacheUnauthorizedTTL: Duration;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  tlsMinVersion: string;
  tlsCipherSuites: string[];
  rotateCertificates: boolean;
  serverTLSBootstrap: boolean;
}

/** Every option that has a flag: the type the flag table is checked against. */
export type NodeAgentOptionValues = NodeAgentFlags & NodeAgentConfigFlags;

/**
 * Where each config-bound flag lives in the config file, as a dotted path of
 * {@link NodeAgentConfiguration} (`authentication.x509.clientCAFile`). Both memcg flags share
 * `kernelMemcgNotification`.
 */
export const configFieldPaths: { readonly [K in keyof NodeAgentConfigFlags]: string } = {
  address: "address",
  port: "port",
  readOnlyPort: "readOnlyPort",
  enableServer: "enableServer",
  enableDebuggingHandlers: "enableDebuggingHandlers",
  healthzBindAddress: "healthzBindAddress",
  healthzPort: "healthzPort",
  registerNode: "registerNode",
  registerWithTaints: "registerWithTaints",
  providerID: "providerID",
  podCIDR: "podCIDR",
  runOnce: "runOnce",
  staticPodPath: "staticPodPath",
  fileCheckFrequency: "fileCheckFrequency",
  staticPodURL: "staticPodURL",
  staticPodURLHeader: "staticPodURLHeader",
  httpCheckFrequency: "httpCheckFrequency",
  syncFrequency: "syncFrequency",
  runtimeRequestTimeout: "runtimeRequestTimeout",
  serializeImagePulls: "serializeImagePulls",
  registryPullQPS: "registryPullQPS",
  registryBurst: "registryBurst",
  imageGCHighThresholdPercent: "imageGCHighThresholdPercent",
  imageGCLowThresholdPercent: "imageGCLowThresholdPercent",
  imageMinimumGCAge: "imageMinimumGCAge",
  containerLogMaxFiles: "containerLogMaxFiles",
  containerLogMaxSize: "containerLogMaxSize",
  volumePluginDir: "volumePluginDir",
  volumeStatsAggPeriod: "volumeStatsAggPeriod",
  enableControllerAttachDetach: "enableControllerAttachDetach",
  maxPods: "maxPods",
  podsPerCore: "podsPerCore",
  podPidsLimit: "podPidsLimit",
  maxOpenFiles: "maxOpenFiles",
  oomScoreAdj: "oomScoreAdj",
  cgroupDriver: "cgroupDriver",
  cgroupRoot: "cgroupRoot",
  cgroupsPerQOS: "cgroupsPerQOS",
  agentCgroups: "agentCgroups",
  systemCgroups: "systemCgroups",
  cpuCFSQuota: "cpuCFSQuota",
  cpuCFSQuotaPeriod: "cpuCFSQuotaPeriod",
  cpuManagerPolicy: "cpuManagerPolicy",
  cpuManagerPolicyOptions: "cpuManagerPolicyOptions",
  cpuManagerReconcilePeriod: "cpuManagerReconcilePeriod",
  memoryManagerPolicy: "memoryManagerPolicy",
  topologyManagerPolicy: "topologyManagerPolicy",
  topologyManagerScope: "topologyManagerScope",
  enforceNodeAllocatable: "enforceNodeAllocatable",
  clusterReserved: "clusterReserved",
  clusterReservedCgroup: "clusterReservedCgroup",
  systemReserved: "systemReserved",
  systemReservedCgroup: "systemReservedCgroup",
  reservedSystemCPUs: "reservedSystemCPUs",
  reservedMemory: "reservedMemory",
  qosReserved: "qosReserved",
  failSwapOn: "failSwapOn",
  protectKernelDefaults: "protectKernelDefaults",
  allowedUnsafeSysctls: "allowedUnsafeSysctls",
  evictionHard: "evictionHard",
  evictionSoft: "evictionSoft",
  evictionSoftGracePeriod: "evictionSoftGracePeriod",
  evictionMinimumReclaim: "evictionMinimumReclaim",
  evictionMaxPodGracePeriod: "evictionMaxPodGracePeriod",
  evictionPressureTransitionPeriod: "evictionPressureTransitionPeriod",
  kernelMemcgNotification: "kernelMemcgNotification",
  experimentalKernelMemcgNotification: "kernelMemcgNotification",
  clusterDNS: "clusterDNS",
  clusterDomain: "clusterDomain",
  resolvConf: "resolvConf",
  hairpinMode: "hairpinMode",
  makeIPTablesUtilChains: "makeIPTablesUtilChains",
  iptablesDropBit: "iptablesDropBit",
  iptablesMasqueradeBit: "iptablesMasqueradeBit",
  streamingConnectionIdleTimeout: "streamingConnectionIdleTimeout",
  nodeStatusUpdateFrequency: "nodeStatusUpdateFrequency",
  nodeStatusMaxImages: "nodeStatusMaxImages",
  clusterAPIQPS: "clusterAPIQPS",
  clusterAPIBurst: "clusterAPIBurst",
  contentType: "contentType",
  eventRecordQPS: "eventRecordQPS",
  eventBurst: "eventBurst",
  featureGates: "featureGates",
  enableContentionProfiling: "enableContentionProfiling",
  verbosity: "logging.verbosity",
  vmodule: "logging.vmodule",
  loggingFormat: "logging.format",
  logFlushFrequency: "logging.flushFrequency",
  logJSONInfoBufferSize: "logging.options.json.infoBufferSize",
  logJSONSplitStream: "logging.options.json.splitStream",
  anonymousAuth: "authentication.anonymous.enabled",
  clientCAFile: "authentication.x509.clientCAFile",
  authenticationTokenWebhook: "authentication.webhook.enabled",
  authenticationTokenWebhookCacheTTL: "authentication.webhook.cacheTTL",
  authorizationMode: "authorization.mode",
  authorizationWebhookCacheAuthorizedTTL: "authorization.webhook.cacheAuthorizedTTL",
  authorizationWebhookCacheUnauthorizedTTL: "authorization.webhook.cacheUnauthorizedTTL",
  tlsCertFile: "tlsCertFile",
  tlsPrivateKeyFile: "tlsPrivateKeyFile",
  tlsMinVersion: "tlsMinVersion",
  tlsCipherSuites: "tlsCipherSuites",
  rotateCertificates: "rotateCertificates",
  serverTLSBootstrap: "serverTLSBootstrap",
};

/** The keys of {@link NodeAgentConfigFlags}, in table order. */
export const configFlagKeys = Object.keys(configFieldPaths) as ReadonlyArray<keyof NodeAgentConfigFlags>;

const d = mustParseDuration;

/**
 * Defaults of the config-bound flags: the config file's defaults
 * ({@link defaultNodeAgentConfiguration}) with the kubelet's legacy flag defaults applied
 * ({@link applyLegacyFlagDefaults}: `--anonymous-auth`, `--authentication-token-webhook`,
 * `--authorization-mode`, `--read-only-port`), so each default is written once, in config.ts.
 */
const configFlagDefaults = applyLegacyFlagDefaults(defaultNodeAgentConfiguration());

// The default of a config-bound flag, read at its field's path.
function c<K extends keyof NodeAgentConfigFlags>(key: K): NodeAgentConfigFlags[K] {
  let value: unknown = configFlagDefaults;
  for (const part of configFieldPaths[key].split(".")) value = (value as Record<string, unknown>)[part];
  return value as NodeAgentConfigFlags[K];
}

// Builders: a config-bound flag (deprecated in favour of the file unless told otherwise) and a
// per-process flag.
function cf<T>(section: FlagSection, name: string, type: FlagSpec<T>["type"], def: T, usage: string, deprecated: string | null = configFileDeprecation): FlagSpec<T> {
  const spec: FlagSpec<T> = { name, type, default: def, usage, section, hidden: false };
  return deprecated === null ? spec : { ...spec, deprecated };
}

function pf<T>(section: FlagSection, name: string, type: FlagSpec<T>["type"], def: T, usage: string, deprecated?: string): FlagSpec<T> {
  const spec: FlagSpec<T> = { name, type, default: def, usage, section, hidden: false };
  return deprecated === undefined ? spec : { ...spec, deprecated };
}

const S: FlagSection = "Serving, identity and registration";
const P: FlagSection = "Pod sources and sync";
const CR: FlagSection = "Container runtime and images";
const RES: FlagSection = "Resources, cgroups and scheduling limits";
const EV: FlagSection = "Eviction";
const NET: FlagSection = "Networking and DNS";
const NS: FlagSection = "Node status and API client";
const LOG: FlagSection = "Logging";
const AUTH: FlagSection = "Authentication";

/** The `--pod-infra-container-image` default (kubelet 1.23's pause image). */
export const defaultPodInfraContainerImage = "k8s.gcr.io/pause:3.6";

/**
 * Every flag of the spec. Defaults are the spec's (the kubelet's flag defaults, which for
 * `--anonymous-auth`, `--authentication-token-webhook`, `--authorization-mode` and
 * `--read-only-port` differ from the config file's defaults, as in the kubelet). A config-bound
 * flag's default is read from {@link defaultNodeAgentConfiguration} with
 * {@link applyLegacyFlagDefaults} applied; only per-process flags write theirs here.
 *
 * @see cmd/kubelet/app/options/options.go in kubernetes/kubernetes v1.23
 */
export const nodeAgentFlagTable = {
  // Serving, identity and registration
  config: pf(S, "config", t.string, "", "Path (absolute or relative to the working directory) of the initial configuration file. Omit to use built-in defaults. Command-line flags override values from the file."),
  address: cf(S, "address", ipFlagType, c("address"), "IP address to serve on; '0.0.0.0' or '::' means all interfaces and IP families."),
  port: cf(S, "port", t.int32, c("port"), "Port to serve on."),
  readOnlyPort: cf(S, "read-only-port", t.int32, c("readOnlyPort"), "Read-only port with no authentication or authorization; 0 disables."),
  enableServer: cf(S, "enable-server", t.bool, c("enableServer"), "Enable the agent's server."),
  enableDebuggingHandlers: cf(S, "enable-debugging-handlers", t.bool, c("enableDebuggingHandlers"), "Enable server endpoints for log collection and running containers and commands locally."),
  healthzBindAddress: cf(S, "healthz-bind-address", t.string, c("healthzBindAddress"), "Address of the health server; '0.0.0.0' or '::' for all interfaces."),
  healthzPort: cf(S, "healthz-port", t.int32, c("healthzPort"), "Port of the local health endpoint; 0 disables."),
  hostnameOverride: pf(S, "hostname-override", t.string, "", "If non-empty, used as node identification instead of the hostname; with a cloud provider set, the provider decides the node name."),
  nodeIP: pf(S, "node-ip", t.string, "", "IP address, or comma-separated dual-stack addresses, of the node. When unset: default IPv4 address, else default IPv6. '::' prefers IPv6."),
  nodeLabels: pf(S, "node-labels", t.configurationMap, {}, "<Warning: Alpha feature> Labels added at registration as comma-separated key=value. Labels in the 'example.io' namespace need an allowed prefix (nodeagent.example.io, node.example.io) or belong to the allowed set (beta.example.io/arch, beta.example.io/instance-type, beta.example.io/os, example.io/arch, example.io/hostname, example.io/os, failure-domain.beta.example.io/region, failure-domain.beta.example.io/zone, node.example.io/instance-type, topology.example.io/region, topology.example.io/zone)."),
  registerNode: cf(S, "register-node", t.bool, c("registerNode"), "Register with the API server; irrelevant without a cluster config."),
  registerSchedulable: pf(S, "register-schedulable", t.bool, true, "Register as schedulable; no effect when --register-node is false.", futureRemoval),
  registerWithTaints: cf(S, "register-with-taints", taintsFlagType, c("registerWithTaints"), "Taints at registration, comma-separated \"<key>=<value>:<effect>\"; no-op when --register-node is false."),
  providerID: cf(S, "provider-id", t.string, c("providerID"), "Unique identifier of the node in a machine database, such as a cloud provider's."),
  cloudProvider: pf(S, "cloud-provider", t.string, "", "Cloud services provider; empty for none; when set the provider determines the node name.", "will be removed in 1.24 or later, in favor of removing cloud provider code from Nodeagent."),
  cloudConfig: pf(S, "cloud-config", t.string, "", "Cloud provider configuration file path; empty for none.", "will be removed in 1.24 or later, in favor of removing cloud provider code from Nodeagent."),
  clusterconfig: pf(S, "clusterconfig", t.string, "", "Path of the file describing how to connect to the API server; its presence selects API-server mode, its absence standalone mode."),
  bootstrapClusterconfig: pf(S, "bootstrap-clusterconfig", t.string, "", "Bootstrap connection file used to request a client certificate when the file named by --clusterconfig does not exist. On success, a connection file referencing the generated client certificate and key is written to the --clusterconfig path; certificate and key are stored in --cert-dir."),
  podCIDR: cf(S, "pod-cidr", t.string, c("podCIDR"), "CIDR for pod IPs, standalone mode only; in cluster mode it comes from the master. For IPv6 at most 65536 addresses are allocated."),
  masterServiceNamespace: pf(S, "master-service-namespace", t.string, "default", "Namespace whose master services are injected into pods.", futureRemoval),
  rootDir: pf(S, "root-dir", t.string, "/var/lib/nodeagent", "Directory for agent files (volume mounts and the like)."),
  lockFile: pf(S, "lock-file", t.string, "", "<Warning: Alpha feature> Path of the lock file."),
  exitOnLockContention: pf(S, "exit-on-lock-contention", t.bool, false, "Exit when the lock file is contended."),
  runOnce: cf(S, "runonce", t.bool, c("runOnce"), "Exit after starting pods from local manifests or remote URLs; exclusive with --enable-server."),
  version: pf(S, "version", t.version, false, "Print version and quit; --version=raw prints the build information."),
  help: { name: "help", shorthand: "h", type: t.bool, default: false, usage: "Print help.", section: S },

  // Pod sources and sync
  staticPodPath: cf(P, "pod-manifest-path", t.string, c("staticPodPath"), "Directory of static pod files, or a single file; files starting with a dot are ignored."),
  fileCheckFrequency: cf(P, "file-check-frequency", t.duration, c("fileCheckFrequency"), "Interval between checks of config files."),
  staticPodURL: cf(P, "manifest-url", t.string, c("staticPodURL"), "URL of additional pod specifications."),
  staticPodURLHeader: cf(P, "manifest-url-header", t.colonSeparatedMultimap, c("staticPodURLHeader"), "Comma-separated HTTP headers (name:value) for --manifest-url; same-name headers are added in given order; the flag may repeat. For example: --manifest-url-header 'a:hello,b:again,c:world' --manifest-url-header 'b:beautiful'"),
  httpCheckFrequency: cf(P, "http-check-frequency", t.duration, c("httpCheckFrequency"), "Interval between checks of the HTTP source."),
  syncFrequency: cf(P, "sync-frequency", t.duration, c("syncFrequency"), "Maximum period between syncs of running containers and config."),

  // Container runtime and images
  containerRuntime: pf(CR, "container-runtime", t.string, "remote", "Allowed: 'remote' and a legacy in-process runtime value; only 'remote' stays valid.", "will be removed in 1.27 as the only valid value is 'remote'"),
  containerRuntimeEndpoint: pf(CR, "container-runtime-endpoint", t.string, "", "Endpoint of the remote runtime service: Unix domain sockets on Linux (unix:///path/to/runtime.sock); named-pipe and tcp endpoints on the other supported platform."),
  imageServiceEndpoint: pf(CR, "image-service-endpoint", t.string, "", "[Experimental] Endpoint of the remote image service; defaults to the runtime endpoint."),
  runtimeCgroups: pf(CR, "runtime-cgroups", t.string, "", "Absolute cgroup name in which the runtime runs."),
  runtimeRequestTimeout: cf(CR, "runtime-request-timeout", t.duration, c("runtimeRequestTimeout"), "Timeout for all runtime requests except pull, logs, exec and attach; on expiry the request is cancelled, an error is raised and retried later."),
  podInfraContainerImage: pf(CR, "pod-infra-container-image", t.string, defaultPodInfraContainerImage, "Image exempt from image garbage collection; with the legacy runtime all pod containers share network and IPC namespaces from it."),
  imageCredentialProviderBinDir: pf(CR, "image-credential-provider-bin-dir", t.string, "", "Directory of credential provider plugin binaries."),
  imageCredentialProviderConfig: pf(CR, "image-credential-provider-config", t.string, "", "Path of the credential provider plugin config file."),
  vendorContainerRegistryConfig: pf(CR, "vendor-container-registry-config", t.string, "", "Path of a registry configuration file of one cloud vendor."),
  serializeImagePulls: cf(CR, "serialize-image-pulls", t.bool, c("serializeImagePulls"), "Pull images one at a time."),
  registryPullQPS: cf(CR, "registry-qps", t.int32, c("registryPullQPS"), "If above 0, limit on registry pulls per second; 0 is unlimited."),
  registryBurst: cf(CR, "registry-burst", t.int32, c("registryBurst"), "Burst of pulls; used only when --registry-qps is above 0."),
  imageGCHighThresholdPercent: cf(CR, "image-gc-high-threshold", t.int32, c("imageGCHighThresholdPercent"), "Disk-usage percent above which image garbage collection always runs; range [0,100]; 100 disables."),
  imageGCLowThresholdPercent: cf(CR, "image-gc-low-threshold", t.int32, c("imageGCLowThresholdPercent"), "Disk-usage percent below which it never runs; range [0,100]; not above the high threshold."),
  imageMinimumGCAge: cf(CR, "minimum-image-ttl-duration", t.duration, c("imageMinimumGCAge"), "Minimum age of an unused image before collection."),
  minimumContainerTTLDuration: pf(CR, "minimum-container-ttl-duration", t.duration, d("0s"), "Minimum age of a finished container before collection.", useEviction),
  maximumDeadContainers: pf(CR, "maximum-dead-containers", t.int32, -1, "Old container instances kept globally; negative disables.", useEviction),
  maximumDeadContainersPerContainer: pf(CR, "maximum-dead-containers-per-container", t.int32, 1, "Old instances kept per container.", useEviction),
  containerLogMaxFiles: cf(CR, "container-log-max-files", t.int32, c("containerLogMaxFiles"), "<Warning: Beta feature> Maximum log files per container; at least 2; only with runtime 'remote'."),
  containerLogMaxSize: cf(CR, "container-log-max-size", t.string, c("containerLogMaxSize"), "<Warning: Beta feature> Size at which a container log rotates (e.g. 10Mi); only with runtime remote."),
  keepTerminatedPodVolumes: pf(CR, "keep-terminated-pod-volumes", t.bool, false, "Keep volumes of terminated pods mounted.", futureRemoval),
  experimentalMounterPath: pf(CR, "experimental-mounter-path", t.string, "mount", "[Experimental] Path of the mounter binary; empty uses the default.", "will be removed in 1.24 or later. in favor of using CSI."),
  volumePluginDir: cf(CR, "volume-plugin-dir", t.string, c("volumePluginDir"), "Directory searched for extra volume plugins."),
  volumeStatsAggPeriod: cf(CR, "volume-stats-agg-period", t.duration, c("volumeStatsAggPeriod"), "Interval for computing and caching volume disk usage; 0 disables."),
  enableControllerAttachDetach: cf(CR, "enable-controller-attach-detach", t.bool, c("enableControllerAttachDetach"), "Let the attach/detach controller manage volume attachment; the agent then performs no attach or detach."),

  // Resources, cgroups and scheduling limits
  maxPods: cf(RES, "max-pods", t.int32, c("maxPods"), "Pods that may run on this agent."),
  podsPerCore: cf(RES, "pods-per-core", t.int32, c("podsPerCore"), "Pods per CPU core; capped by --max-pods; 0 disables."),
  podPidsLimit: cf(RES, "pod-max-pids", t.int, c("podPidsLimit"), "Processes per pod; -1 uses the node allocatable PID capacity."),
  maxOpenFiles: cf(RES, "max-open-files", t.int, c("maxOpenFiles"), "Files the agent process may open."),
  oomScoreAdj: cf(RES, "oom-score-adj", t.int32, c("oomScoreAdj"), "OOM score of the agent process; range [-1000,1000]."),
  cgroupDriver: cf(RES, "cgroup-driver", t.string, c("cgroupDriver"), "Driver used to manipulate cgroups on the host: 'cgroupfs' or 'systemd'."),
  cgroupRoot: cf(RES, "cgroup-root", t.string, c("cgroupRoot"), "Root cgroup for pods; empty uses the runtime default."),
  cgroupsPerQOS: cf(RES, "cgroups-per-qos", t.bool, c("cgroupsPerQOS"), "Create QoS cgroup hierarchy and pod cgroups."),
  agentCgroups: cf(RES, "agent-cgroups", t.string, c("agentCgroups"), "Absolute cgroup name in which the agent runs."),
  systemCgroups: cf(RES, "system-cgroups", t.string, c("systemCgroups"), "Absolute cgroup in which non-kernel processes outside any cgroup are placed; empty for none; rolling back requires a reboot."),
  cpuCFSQuota: cf(RES, "cpu-cfs-quota", t.bool, c("cpuCFSQuota"), "Enforce CPU CFS quota for containers with CPU limits."),
  cpuCFSQuotaPeriod: cf(RES, "cpu-cfs-quota-period", t.duration, c("cpuCFSQuotaPeriod"), "CFS quota period (cpu.cfs_period_us)."),
  cpuManagerPolicy: cf(RES, "cpu-manager-policy", t.string, c("cpuManagerPolicy"), "CPU manager policy: 'none' or 'static'."),
  cpuManagerPolicyOptions: cf(RES, "cpu-manager-policy-options", t.mapStringString({ noSplit: true }), c("cpuManagerPolicyOptions"), "Key=value options that fine-tune the policy."),
  cpuManagerReconcilePeriod: cf(RES, "cpu-manager-reconcile-period", t.duration, c("cpuManagerReconcilePeriod"), "<Warning: Alpha feature> CPU manager reconciliation period; when not supplied, the node status update frequency."),
  memoryManagerPolicy: cf(RES, "memory-manager-policy", t.string, c("memoryManagerPolicy"), "Memory manager policy: 'None' or 'Static'."),
  topologyManagerPolicy: cf(RES, "topology-manager-policy", t.string, c("topologyManagerPolicy"), "Topology manager policy: 'none', 'best-effort', 'restricted', 'single-numa-node'."),
  topologyManagerScope: cf(RES, "topology-manager-scope", t.string, c("topologyManagerScope"), "Topology manager scope: 'container' or 'pod'."),
  enforceNodeAllocatable: cf(RES, "enforce-node-allocatable", t.strings, c("enforceNodeAllocatable"), "Comma-separated levels: 'none', 'pods', 'system-reserved', 'cluster-reserved'. The latter two require --system-reserved-cgroup and --cluster-reserved-cgroup respectively; with 'none', no other level may be set."),
  clusterReserved: cf(RES, "cluster-reserved", t.mapStringString(), c("clusterReserved"), "<resource>=<quantity> pairs (e.g. cpu=200m,memory=500Mi,ephemeral-storage=1Gi) reserved for platform components; cpu, memory and local ephemeral-storage of the root file system are supported. (default none)"),
  clusterReservedCgroup: cf(RES, "cluster-reserved-cgroup", t.string, c("clusterReservedCgroup"), "Absolute top-level cgroup managing those components."),
  systemReserved: cf(RES, "system-reserved", t.mapStringString(), c("systemReserved"), "<resource>=<quantity> pairs reserved for non-platform components; only cpu and memory supported. (default none)"),
  systemReservedCgroup: cf(RES, "system-reserved-cgroup", t.string, c("systemReservedCgroup"), "Absolute top-level cgroup for those components."),
  reservedSystemCPUs: cf(RES, "reserved-cpus", t.string, c("reservedSystemCPUs"), "CPUs or CPU ranges (e.g. 0-3,8) reserved for system and platform use; supersedes cpu counts in the two reserved options."),
  reservedMemory: cf(RES, "reserved-memory", reservedMemoryFlagType, c("reservedMemory"), "Per-NUMA-node memory reservations (e.g. 0:memory=1Gi,hugepages-1M=2Gi), repeatable; the total per memory type equals the sum of the two reserved options and the eviction threshold."),
  qosReserved: cf(RES, "qos-reserved", t.mapStringString(), c("qosReserved"), "<Warning: Alpha feature> <resource>=<percentage> (e.g. memory=50%); only memory is supported; needs gate QOSReserved."),
  experimentalAllocatableIgnoreEviction: pf(RES, "experimental-allocatable-ignore-eviction", t.bool, false, "Ignore hard eviction thresholds when computing node allocatable.", "will be removed in 1.24 or later."),
  failSwapOn: cf(RES, "fail-swap-on", t.bool, c("failSwapOn"), "Fail to start when swap is on."),
  protectKernelDefaults: cf(RES, "protect-kernel-defaults", t.bool, c("protectKernelDefaults"), "Error if a kernel tunable differs from the agent's defaults."),
  allowedUnsafeSysctls: cf(RES, "allowed-unsafe-sysctls", t.strings, c("allowedUnsafeSysctls"), "Comma-separated allowlist of unsafe sysctls or patterns ending in '*'."),
  seccompDefault: pf(RES, "seccomp-default", t.bool, false, "<Warning: Alpha feature> Use `RuntimeDefault` as the default seccomp profile for all workloads; needs gate SeccompDefault."),

  // Eviction
  evictionHard: cf(EV, "eviction-hard", t.mapStringString({ separator: "<" }), c("evictionHard"), "Thresholds (e.g. memory.available<1Gi) that trigger eviction when met."),
  evictionSoft: cf(EV, "eviction-soft", t.mapStringString({ separator: "<" }), c("evictionSoft"), "Thresholds (e.g. memory.available<1.5Gi) that trigger eviction when met over their grace period."),
  evictionSoftGracePeriod: cf(EV, "eviction-soft-grace-period", t.mapStringString(), c("evictionSoftGracePeriod"), "How long each soft threshold must hold (for example memory.available=1m30s)."),
  evictionMinimumReclaim: cf(EV, "eviction-minimum-reclaim", t.mapStringString(), c("evictionMinimumReclaim"), "Minimum amount reclaimed per resource under pressure (e.g. imagefs.available=2Gi)."),
  evictionMaxPodGracePeriod: cf(EV, "eviction-max-pod-grace-period", t.int32, c("evictionMaxPodGracePeriod"), "Maximum grace period in seconds when terminating pods for a soft threshold; negative defers to the pod's value."),
  evictionPressureTransitionPeriod: cf(EV, "eviction-pressure-transition-period", t.duration, c("evictionPressureTransitionPeriod"), "Wait before leaving a pressure condition."),
  kernelMemcgNotification: cf(EV, "kernel-memcg-notification", t.bool, c("kernelMemcgNotification"), "Use kernel memory-cgroup notification instead of polling for memory thresholds."),
  experimentalKernelMemcgNotification: cf(EV, "experimental-kernel-memcg-notification", t.bool, c("experimentalKernelMemcgNotification"), "Older alias of --kernel-memcg-notification; will be removed in 1.24 or later."),

  // Networking and DNS
  clusterDNS: cf(NET, "cluster-dns", t.strings, c("clusterDNS"), "Comma-separated DNS server IPs for pods with dnsPolicy=ClusterFirst; all must serve the same records."),
  clusterDomain: cf(NET, "cluster-domain", t.string, c("clusterDomain"), "Cluster domain; added to the containers' search domains."),
  resolvConf: cf(NET, "resolv-conf", t.string, c("resolvConf"), "Resolver configuration used as base for container DNS."),
  hairpinMode: cf(NET, "hairpin-mode", t.string, c("hairpinMode"), "Hairpin NAT setup: \"promiscuous-bridge\", \"hairpin-veth\" or \"none\"."),
  makeIPTablesUtilChains: cf(NET, "make-iptables-util-chains", t.bool, c("makeIPTablesUtilChains"), "Ensure iptables utility rules exist."),
  iptablesDropBit: cf(NET, "iptables-drop-bit", t.int32, c("iptablesDropBit"), "fwmark bit for dropped packets; range [0,31]."),
  iptablesMasqueradeBit: cf(NET, "iptables-masquerade-bit", t.int32, c("iptablesMasqueradeBit"), "fwmark bit for SNAT; range [0,31]; must match the proxy component's setting."),
  streamingConnectionIdleTimeout: cf(NET, "streaming-connection-idle-timeout", t.duration, c("streamingConnectionIdleTimeout"), "Idle limit for streaming connections; 0 is no timeout; every connection to the server also has a 4 hour maximum duration."),

  // Node status and API client
  nodeStatusUpdateFrequency: cf(NS, "node-status-update-frequency", t.duration, c("nodeStatusUpdateFrequency"), "How often node status is posted; must fit the node controller's grace period."),
  nodeStatusMaxImages: cf(NS, "node-status-max-images", t.int32, c("nodeStatusMaxImages"), "Images reported in node status; -1 means no cap."),
  clusterAPIQPS: cf(NS, "cluster-api-qps", t.int32, c("clusterAPIQPS"), "Queries per second to the API server; 0 uses 5; excludes events and node heartbeats."),
  clusterAPIBurst: cf(NS, "cluster-api-burst", t.int32, c("clusterAPIBurst"), "Burst to the API server; 0 uses 10."),
  contentType: cf(NS, "cluster-api-content-type", t.string, c("contentType"), "Content type of requests to the API server."),
  eventRecordQPS: cf(NS, "event-qps", t.int32, c("eventRecordQPS"), "Limit on event creations per second; at least 0; 0 uses 5."),
  eventBurst: cf(NS, "event-burst", t.int32, c("eventBurst"), "Burst of event records, not exceeding --event-qps on average; at least 0; 0 uses 10."),
  featureGates: cf(NS, "feature-gates", t.mapStringBool, c("featureGates"), "A set of key=value pairs that describe feature gates for alpha/experimental features."),
  enableContentionProfiling: cf(NS, "contention-profiling", t.bool, c("enableContentionProfiling"), "Lock contention profiling when profiling is on."),

  // Logging
  verbosity: { name: "v", shorthand: "v", type: t.verbosityLevel, default: c("verbosity"), usage: "number for the log level verbosity", section: LOG },
  vmodule: cf(LOG, "vmodule", t.vmoduleConfiguration, c("vmodule"), "comma-separated list of pattern=N settings for file-filtered logging", null),
  loggingFormat: cf(LOG, "logging-format", t.string, c("loggingFormat"), "Sets the log format. Permitted formats: \"json\" (gated by LoggingBetaOptions), \"text\". Non-default formats ignore --add-dir-header, --alsologtostderr, --log-backtrace-at, --log-dir, --log-file, --log-file-max-size, --logtostderr, --skip_headers, --skip_log_headers, --stderrthreshold, --log-flush-frequency; non-default choices are alpha."),
  logFlushFrequency: cf(LOG, "log-flush-frequency", t.duration, c("logFlushFrequency"), "Maximum number of seconds between log flushes", null),
  logJSONInfoBufferSize: cf(LOG, "log-json-info-buffer-size", t.quantity, c("logJSONInfoBufferSize"), "[Experimental] Buffer for info messages in JSON format with split streams; 0 disables; sizes as bytes (512), multiples of 1000 (1K), of 1024 (2Ki), or powers of those (3M, 4G, 5Mi, 6Gi)."),
  logJSONSplitStream: cf(LOG, "log-json-split-stream", t.bool, c("logJSONSplitStream"), "[Experimental] In JSON format, write error messages to stderr and info messages to stdout."),
  addDirHeader: pf(LOG, "add-dir-header", t.bool, false, "If true, adds the file directory to the header of the log messages", klogFlagDeprecation),
  alsologtostderr: pf(LOG, "alsologtostderr", t.bool, false, "log to standard error as well as files", klogFlagDeprecation),
  logtostderr: pf(LOG, "logtostderr", t.bool, true, "log to standard error instead of files", klogFlagDeprecation),
  logBacktraceAt: pf(LOG, "log-backtrace-at", t.traceLocation, { file: "", line: 0 }, "when logging hits line file:N, emit a stack trace", klogFlagDeprecation),
  logDir: pf(LOG, "log-dir", t.string, "", "If non-empty, write log files in this directory", klogFlagDeprecation),
  logFile: pf(LOG, "log-file", t.string, "", "If non-empty, use this log file", klogFlagDeprecation),
  logFileMaxSize: pf(LOG, "log-file-max-size", t.uint, 1800, "Defines the maximum size a log file can grow to. Unit is megabytes. If the value is 0, the maximum file size is unlimited.", klogFlagDeprecation),
  oneOutput: pf(LOG, "one-output", t.bool, false, "If true, only write logs to their native severity level (vs also writing to each lower severity level)", klogFlagDeprecation),
  skipHeaders: pf(LOG, "skip-headers", t.bool, false, "If true, avoid header prefixes in the log messages", klogFlagDeprecation),
  skipLogHeaders: pf(LOG, "skip-log-headers", t.bool, false, "If true, avoid headers when opening log files", klogFlagDeprecation),
  stderrthreshold: pf(LOG, "stderrthreshold", t.severity, 2, "logs at or above this threshold go to stderr", klogFlagDeprecation),

  // Authentication
  anonymousAuth: cf(AUTH, "anonymous-auth", t.bool, c("anonymousAuth"), "Requests not rejected by another method count as anonymous, with username system:anonymous and group system:unauthenticated."),
  clientCAFile: cf(AUTH, "client-ca-file", t.string, c("clientCAFile"), "A request with a client certificate signed by an authority in this file is authenticated as the certificate's CommonName."),
  authenticationTokenWebhook: cf(AUTH, "authentication-token-webhook", t.bool, c("authenticationTokenWebhook"), "Bearer tokens are checked through the token-review API."),
  authenticationTokenWebhookCacheTTL: cf(AUTH, "authentication-token-webhook-cache-ttl", t.duration, c("authenticationTokenWebhookCacheTTL"), "Cache time for webhook token authenticator answers."),
  authorizationMode: cf(AUTH, "authorization-mode", t.string, c("authorizationMode"), "AlwaysAllow or Webhook; Webhook asks the access-review API."),
  authorizationWebhookCacheAuthorizedTTL: cf(AUTH, "authorization-webhook-cache-authorized-ttl", t.duration, c("authorizationWebhookCacheAuthorizedTTL"), "Cache time for 'authorized' answers."),
  authorizationWebhookCacheUnauthorizedTTL: cf(AUTH, "authorization-webhook-cache-unauthorized-ttl", t.duration, c("authorizationWebhookCacheUnauthorizedTTL"), "Cache time for 'unauthorized' answers."),
  certDir: pf(AUTH, "cert-dir", t.string, "/var/lib/nodeagent/pki", "Directory of TLS certificates; ignored when both --tls-cert-file and --tls-private-key-file are given."),
  tlsCertFile: cf(AUTH, "tls-cert-file", t.string, c("tlsCertFile"), "x509 serving certificate, intermediates appended. When this and the key file are absent, a self-signed pair is generated for the public address and saved in --cert-dir."),
  tlsPrivateKeyFile: cf(AUTH, "tls-private-key-file", t.string, c("tlsPrivateKeyFile"), "x509 private key matching --tls-cert-file."),
  tlsMinVersion: cf(AUTH, "tls-min-version", t.string, c("tlsMinVersion"), "Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13"),
  tlsCipherSuites: cf(AUTH, "tls-cipher-suites", t.strings, c("tlsCipherSuites"), `Comma-separated list of cipher suites for the server. If omitted, the runtime's default suites are used. \nPreferred values: ${Object.keys(preferredCipherSuites).join(", ")}. \nInsecure values: ${Object.keys(insecureCipherSuites).join(", ")}.`),
  rotateCertificates: cf(AUTH, "rotate-certificates", t.bool, c("rotateCertificates"), "<Warning: Beta feature> Request new client certificates from the API server as expiry nears."),
  serverTLSBootstrap: cf(AUTH, "rotate-server-certificates", t.bool, c("serverTLSBootstrap"), "Request and rotate serving certificates; needs gate RotateNodeAgentServerCertificate and approval of the submitted signing requests."),
} satisfies FlagTable<NodeAgentOptionValues>;

/** The type of {@link nodeAgentFlagTable}. */
export type NodeAgentFlagTable = typeof nodeAgentFlagTable;

/** Whether an option key belongs to the config file (see {@link configFieldPaths}). */
export function isConfigFlagKey(key: string): key is keyof NodeAgentConfigFlags {
  return Object.hasOwn(configFieldPaths, key);
}
