/**
 * Validation of the merged node-agent configuration and of the per-process flags, with
 * Kubernetes 1.23's rules and wording (field names and flags renamed as the spec renames them).
 * Every function returns every error it finds (never only the first) and never throws.
 *
 * Besides `ValidateKubeletConfiguration`, this also checks, up front, what the kubelet only
 * checks later while starting (so that a bad value fails before anything starts): eviction
 * thresholds (`ParseThresholdConfig`), reserved resources (`parseResourceList`), `qosReserved`,
 * TLS version and cipher names, manager policy names, the authorization mode, the cgroup
 * driver, container log rotation settings and the logging format.
 *
 * @see pkg/kubelet/apis/config/validation/validation.go in kubernetes/kubernetes v1.23
 * @see cmd/kubelet/app/options/options.go (`ValidateKubeletFlags`)
 * @see pkg/kubelet/eviction/helpers.go (`ParseThresholdConfig`)
 * @see cmd/kubelet/app/server.go (`parseResourceList`, `InitializeTLS`)
 */
import { isIP } from "node:net";
import { posix } from "node:path";
import type { FeatureGate, NodeAgentFeature } from "@skiff/feature-gates";
import { formatDuration, mustParseDuration, parseDuration, parseQuantity } from "@skiff/flags";
import type { NodeAgentConfiguration } from "./config.js";
import type { NodeAgentFlags } from "./flags.js";
import { isKnownCipherSuite, tlsVersions } from "./tls.js";

/** Eviction signals the agent knows (Linux, 1.23). */
export const evictionSignals: readonly string[] = Object.freeze([
  "memory.available",
  "allocatableMemory.available",
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
  "pid.available",
]);

/** Label prefixes a `--node-labels` key in the reserved `example.io` namespace may use. */
export const nodeAgentLabelNamespaces: readonly string[] = Object.freeze(["nodeagent.example.io", "node.example.io"]);

/** Label keys in the reserved `example.io` namespace that `--node-labels` may set. Sorted. */
export const nodeAgentLabels: readonly string[] = Object.freeze([
  "beta.example.io/arch",
  "beta.example.io/instance-type",
  "beta.example.io/os",
  "example.io/arch",
  "example.io/hostname",
  "example.io/os",
  "failure-domain.beta.example.io/region",
  "failure-domain.beta.example.io/zone",
  "node.example.io/instance-type",
  "topology.example.io/region",
  "topology.example.io/zone",
]);

function labelNamespace(key: string): string {
  const i = key.indexOf("/");
  return i < 0 ? "" : key.slice(0, i);
}

function isReservedLabel(key: string): boolean {
  const ns = labelNamespace(key);
  return ns === "example.io" || ns.endsWith(".example.io");
}

function isAllowedAgentLabel(key: string): boolean {
  if (nodeAgentLabels.includes(key)) return true;
  const ns = labelNamespace(key);
  return nodeAgentLabelNamespaces.some((p) => ns === p || ns.endsWith(`.${p}`));
}

/**
 * `ValidateKubeletFlags` (1.23): `--node-labels` keys in the reserved `example.io` namespace must
 * use an allowed prefix or be in the allowed set; `--seccomp-default` needs gate `SeccompDefault`.
 * Also: `--exit-on-lock-contention` needs `--lock-file` (checked by the kubelet at start-up);
 * `--vendor-container-registry-config` is refused as not supported unless gate
 * `DisableNodeAgentCloudCredentialProviders` disables cloud vendor providers anyway.
 *
 * @see cmd/kubelet/app/options/options.go in kubernetes/kubernetes v1.23
 */
export function validateNodeAgentFlags(
  flags: Pick<NodeAgentFlags, "nodeLabels" | "seccompDefault" | "exitOnLockContention" | "lockFile"> & Partial<Pick<NodeAgentFlags, "vendorContainerRegistryConfig">>,
  gates: FeatureGate<NodeAgentFeature>,
): string[] {
  const errors: string[] = [];
  const unknown = Object.keys(flags.nodeLabels)
    .filter((k) => isReservedLabel(k) && !isAllowedAgentLabel(k))
    .sort();
  if (unknown.length > 0) {
    errors.push(
      `unknown 'example.io' labels specified with --node-labels: [${unknown.join(" ")}]\n` +
        `--node-labels in the 'example.io' namespace must begin with an allowed prefix (${nodeAgentLabelNamespaces.join(", ")}) or be in the specifically allowed set (${nodeAgentLabels.join(", ")})`,
    );
  }
  if (flags.seccompDefault && !gates.enabled("SeccompDefault")) {
    errors.push("the SeccompDefault feature gate must be enabled in order to use the --seccomp-default flag");
  }
  if (flags.exitOnLockContention && flags.lockFile === "") {
    errors.push("cannot exit on lock file contention: no lock file specified");
  }
  // The kubelet's in-tree cloud vendor credential provider (Azure's ACR provider reads this file)
  // is not built into the node agent; with DisableNodeAgentCloudCredentialProviders it is
  // disabled upstream too, and the flag is only logged (see `app.ts`).
  if ((flags.vendorContainerRegistryConfig ?? "") !== "" && !gates.enabled("DisableNodeAgentCloudCredentialProviders")) {
    errors.push(
      "--vendor-container-registry-config is not supported: this node agent has no in-tree cloud vendor credential provider; " +
        "use --image-credential-provider-config and --image-credential-provider-bin-dir with an exec credential provider plugin",
    );
  }
  return errors;
}

function inRange(v: number, lo: number, hi: number): boolean {
  return Number.isInteger(v) && v >= lo && v <= hi;
}

function validPort(v: number): boolean {
  return inRange(v, 1, 65535);
}

/** Go's `%v` of a `metav1.Duration`: `{1m0s}`. */
function goDuration(d: { nanoseconds: bigint }): string {
  return `{${formatDuration(d.nanoseconds)}}`;
}

function parsePercentage(v: string): number | undefined {
  const n = Number(v.slice(0, -1));
  return v.slice(0, -1).trim() === "" || Number.isNaN(n) ? undefined : n / 100;
}

/**
 * Eviction settings, as `ParseThresholdConfig` checks them: known signals, `<quantity>` > 0 or a
 * percentage in [0%,100%], a grace period for each soft threshold, positive grace periods,
 * non-negative minimum reclaims.
 *
 * @see pkg/kubelet/eviction/helpers.go in kubernetes/kubernetes v1.23
 */
export function validateEvictionThresholds(c: Pick<NodeAgentConfiguration, "evictionHard" | "evictionSoft" | "evictionSoftGracePeriod" | "evictionMinimumReclaim">): string[] {
  const errors: string[] = [];
  const statements = (m: Readonly<Record<string, string>>): void => {
    for (const [signal, value] of Object.entries(m)) {
      if (!evictionSignals.includes(signal)) {
        errors.push(`unsupported eviction signal ${signal}`);
        continue;
      }
      if (value.endsWith("%")) {
        if (value === "0%" || value === "100%") continue;
        const p = parsePercentage(value);
        if (p === undefined) errors.push(`invalid eviction threshold ${signal}: ${JSON.stringify(value)} is not a percentage`);
        else if (p < 0) errors.push(`eviction percentage threshold ${signal} must be >= 0%: ${value}`);
        else if (p > 1) errors.push(`eviction percentage threshold ${signal} must be <= 100%: ${value}`);
        continue;
      }
      const q = parseQuantity(value);
      if (!q.ok) {
        errors.push(`invalid eviction threshold ${signal}<${value}: ${q.errors[0]?.message ?? "quantities must match the regular expression"}`);
        continue;
      }
      if (q.value.coefficient <= 0n) errors.push(`eviction threshold ${signal} must be positive: ${value}`);
    }
  };
  statements(c.evictionHard);
  statements(c.evictionSoft);
  for (const [signal, value] of Object.entries(c.evictionSoftGracePeriod)) {
    if (!evictionSignals.includes(signal)) {
      errors.push(`unsupported eviction signal ${signal}`);
      continue;
    }
    const r = parseDuration(value);
    if (!r.ok) errors.push(r.errors[0]?.message ?? `invalid duration ${JSON.stringify(value)}`);
    else if (r.value.nanoseconds < 0n) errors.push(`invalid eviction grace period specified: ${value}, must be a positive value`);
  }
  for (const signal of Object.keys(c.evictionSoft)) {
    if (evictionSignals.includes(signal) && !Object.hasOwn(c.evictionSoftGracePeriod, signal)) {
      errors.push(`grace period must be specified for the soft eviction threshold ${signal}`);
    }
  }
  for (const [signal, value] of Object.entries(c.evictionMinimumReclaim)) {
    if (!evictionSignals.includes(signal)) {
      errors.push(`unsupported eviction signal ${signal}`);
      continue;
    }
    if (value.endsWith("%")) {
      const p = parsePercentage(value);
      if (p === undefined) errors.push(`invalid minimum reclaim ${signal}: ${JSON.stringify(value)} is not a percentage`);
      else if (p < 0) errors.push(`negative reclaim defined for signal ${signal}: ${value}`);
      continue;
    }
    const q = parseQuantity(value);
    if (!q.ok) errors.push(`invalid minimum reclaim ${signal}=${value}: ${q.errors[0]?.message ?? "invalid quantity"}`);
    else if (q.value.coefficient < 0n) errors.push(`negative reclaim defined for signal ${signal}: ${value}`);
  }
  return errors;
}

/**
 * A reserved-resources map (`--cluster-reserved`, `--system-reserved`): names among `cpu`,
 * `memory`, `ephemeral-storage` and `pid`, non-negative quantities.
 *
 * @see cmd/kubelet/app/server.go (`parseResourceList`) in kubernetes/kubernetes v1.23
 */
export function validateReservedResources(flag: string, m: Readonly<Record<string, string>>): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(m)) {
    if (!["cpu", "memory", "ephemeral-storage", "pid"].includes(name)) {
      errors.push(`--${flag}: cannot reserve ${JSON.stringify(name)} resource`);
      continue;
    }
    if (name === "pid") {
      if (!/^-?\d+$/.test(value.trim())) errors.push(`--${flag}: invalid pid quantity ${JSON.stringify(value)}`);
      else if (Number(value) < 0) errors.push(`--${flag}: resource quantity for "pid" cannot be negative: ${value}`);
      continue;
    }
    const q = parseQuantity(value.trim());
    if (!q.ok) errors.push(`--${flag}: ${q.errors[0]?.message ?? `invalid quantity ${JSON.stringify(value)}`}`);
    else if (q.value.coefficient < 0n) errors.push(`--${flag}: resource quantity for ${JSON.stringify(name)} cannot be negative: ${value}`);
  }
  return errors;
}

/** Go's `strconv.Atoi` error for `s` (64-bit int), or undefined when it parses. */
function atoiError(s: string): string | undefined {
  if (!/^[+-]?\d+$/.test(s)) return `strconv.Atoi: parsing ${q(s)}: invalid syntax`;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return `strconv.Atoi: parsing ${q(s)}: value out of range`;
  return undefined;
}

/**
 * The error `cpuset.Parse` (1.23) returns for a CPU list such as "0-3,8,10-11", or undefined.
 * 1.23 checks only that each bound is an integer (`strconv.Atoi`); a reversed range such as
 * "3-1" parses to an empty set without error, as upstream.
 *
 * @see pkg/kubelet/cm/cpuset/cpuset.go in kubernetes/kubernetes v1.23
 */
function cpuSetError(s: string): string | undefined {
  if (s === "") return undefined;
  for (const r of s.split(",")) {
    const dash = r.indexOf("-");
    const bounds = dash < 0 ? [r] : [r.slice(0, dash), r.slice(dash + 1)];
    for (const b of bounds) {
      const err = atoiError(b);
      if (err !== undefined) return err;
    }
  }
  return undefined;
}

// Go's filepath.Clean for absolute paths: no `.`/`..` segments, no doubled or trailing slash.
function cleanPath(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

const enforcementKeys = { pods: "pods", system: "system-reserved", cluster: "cluster-reserved", none: "none" } as const;
const q = (s: string): string => JSON.stringify(s);

/**
 * `ValidateKubeletConfiguration` (1.23) over the merged configuration, with the start-up checks
 * listed in this module's comment. `gates` must already hold the file's and the flags' gates.
 * `explicitEnableServer` tells whether `enableServer` was set by a flag or the file: `--runonce`
 * is refused only together with an explicitly requested server (the kubelet silently skips its
 * servers in run-once mode).
 *
 * Messages use 1.23's lower-camel field names (`maxPods (--max-pods) -1 must not be …`, Go's
 * `%v` of a duration `{50ms}`), renamed as the spec renames fields. Note: the reference index
 * held no copy of this file at exactly v1.23; the texts follow the 1.20 file (lower-camel names,
 * TopologyManager gate checks, `non-allowable value`) plus the rules added in 1.21–1.23
 * (reserved memory, MemoryQoS), cross-checked against the newer file's wording where unchanged.
 *
 * @see pkg/kubelet/apis/config/validation/validation.go in kubernetes/kubernetes v1.23
 */
export function validateNodeAgentConfiguration(c: NodeAgentConfiguration, gates: FeatureGate<NodeAgentFeature>, explicitEnableServer = false): string[] {
  const e: string[] = [];
  const ic = (msg: string): void => {
    e.push(`invalid configuration: ${msg}`);
  };
  if (c.nodeLeaseDurationSeconds <= 0) ic("nodeLeaseDurationSeconds must be greater than 0");
  if (!c.cgroupsPerQOS && c.enforceNodeAllocatable.length > 0) {
    ic("enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true");
  }
  if (c.systemCgroups !== "" && c.cgroupRoot === "") ic("systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified");
  if (c.eventBurst < 0) ic(`eventBurst (--event-burst) ${c.eventBurst} must not be a negative number`);
  if (c.eventRecordQPS < 0) ic(`eventRecordQPS (--event-qps) ${c.eventRecordQPS} must not be a negative number`);
  if (c.healthzPort !== 0 && !validPort(c.healthzPort)) ic(`healthzPort (--healthz-port) ${c.healthzPort} must be between 1 and 65535, inclusive`);
  const defaultCFS = mustParseDuration("100ms");
  if (!gates.enabled("CustomCPUCFSQuotaPeriod") && !c.cpuCFSQuotaPeriod.equals(defaultCFS)) {
    ic(`cpuCFSQuotaPeriod ${goDuration(c.cpuCFSQuotaPeriod)} requires feature gate CustomCPUCFSQuotaPeriod`);
  }
  if (gates.enabled("CustomCPUCFSQuotaPeriod") && (c.cpuCFSQuotaPeriod.nanoseconds < 1000n || c.cpuCFSQuotaPeriod.nanoseconds > 1_000_000_000n)) {
    ic(`cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${goDuration(c.cpuCFSQuotaPeriod)} must be between 1usec and 1sec, inclusive`);
  }
  if (!inRange(c.imageGCHighThresholdPercent, 0, 100)) {
    ic(`imageGCHighThresholdPercent (--image-gc-high-threshold) ${c.imageGCHighThresholdPercent} must be between 0 and 100, inclusive`);
  }
  if (!inRange(c.imageGCLowThresholdPercent, 0, 100)) {
    ic(`imageGCLowThresholdPercent (--image-gc-low-threshold) ${c.imageGCLowThresholdPercent} must be between 0 and 100, inclusive`);
  }
  if (c.imageGCLowThresholdPercent >= c.imageGCHighThresholdPercent) {
    ic(
      `imageGCLowThresholdPercent (--image-gc-low-threshold) ${c.imageGCLowThresholdPercent} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${c.imageGCHighThresholdPercent}`,
    );
  }
  if (!inRange(c.iptablesDropBit, 0, 31)) ic(`iptablesDropBit (--iptables-drop-bit) ${c.iptablesDropBit} must be between 0 and 31, inclusive`);
  if (!inRange(c.iptablesMasqueradeBit, 0, 31)) ic(`iptablesMasqueradeBit (--iptables-masquerade-bit) ${c.iptablesMasqueradeBit} must be between 0 and 31, inclusive`);
  if (c.clusterAPIBurst < 0) ic(`clusterAPIBurst (--cluster-api-burst) ${c.clusterAPIBurst} must not be a negative number`);
  if (c.clusterAPIQPS < 0) ic(`clusterAPIQPS (--cluster-api-qps) ${c.clusterAPIQPS} must not be a negative number`);
  if (c.nodeStatusMaxImages < -1) ic("nodeStatusMaxImages (--node-status-max-images) must be -1 or greater");
  if (c.maxOpenFiles < 0) ic(`maxOpenFiles (--max-open-files) ${c.maxOpenFiles} must not be a negative number`);
  if (c.maxPods < 0) ic(`maxPods (--max-pods) ${c.maxPods} must not be a negative number`);
  if (!inRange(c.oomScoreAdj, -1000, 1000)) ic(`oomScoreAdj (--oom-score-adj) ${c.oomScoreAdj} must be between -1000 and 1000, inclusive`);
  if (c.podsPerCore < 0) ic(`podsPerCore (--pods-per-core) ${c.podsPerCore} must not be a negative number`);
  if (!validPort(c.port)) ic(`port (--port) ${c.port} must be between 1 and 65535, inclusive`);
  if (c.readOnlyPort !== 0 && !validPort(c.readOnlyPort)) ic(`readOnlyPort (--read-only-port) ${c.readOnlyPort} must be between 0 and 65535, inclusive`);
  if (c.registryBurst < 0) ic(`registryBurst (--registry-burst) ${c.registryBurst} must not be a negative number`);
  if (c.registryPullQPS < 0) ic(`registryPullQPS (--registry-qps) ${c.registryPullQPS} must not be a negative number`);
  if (c.serverTLSBootstrap && !gates.enabled("RotateNodeAgentServerCertificate")) {
    ic(`serverTLSBootstrap ${c.serverTLSBootstrap} requires feature gate RotateNodeAgentServerCertificate`);
  }
  if (c.topologyManagerPolicy !== "none" && !gates.enabled("TopologyManager")) ic(`topologyManagerPolicy ${c.topologyManagerPolicy} requires feature gate TopologyManager`);
  if (!["none", "best-effort", "restricted", "single-numa-node"].includes(c.topologyManagerPolicy)) ic(`topologyManagerPolicy non-allowable value: ${c.topologyManagerPolicy}`);
  if (c.topologyManagerScope !== "container" && !gates.enabled("TopologyManager")) ic(`topologyManagerScope ${c.topologyManagerScope} requires feature gate TopologyManager`);
  if (!["container", "pod"].includes(c.topologyManagerScope)) ic(`topologyManagerScope non-allowable value: ${c.topologyManagerScope}`);
  for (const v of c.enforceNodeAllocatable) {
    switch (v) {
      case enforcementKeys.pods:
        break;
      case enforcementKeys.system:
        if (c.systemReservedCgroup === "") {
          ic('systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)');
        }
        break;
      case enforcementKeys.cluster:
        if (c.clusterReservedCgroup === "") {
          ic('clusterReservedCgroup (--cluster-reserved-cgroup) must be specified when "cluster-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)');
        }
        break;
      case enforcementKeys.none:
        if (c.enforceNodeAllocatable.length > 1) ic('enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified');
        break;
      default:
        ic(
          `option ${q(v)} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are ${q(enforcementKeys.pods)}, ${q(enforcementKeys.system)}, ${q(enforcementKeys.cluster)}, or ${q(enforcementKeys.none)}`,
        );
    }
  }
  if (!["none", "hairpin-veth", "promiscuous-bridge"].includes(c.hairpinMode)) {
    ic(`option ${q(c.hairpinMode)} specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`);
  }
  if (c.reservedSystemCPUs !== "") {
    if (c.systemReservedCgroup !== "" || c.clusterReservedCgroup !== "") e.push("can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or clusterReservedCgroup (--cluster-reserved-cgroup)");
    const cpuErr = cpuSetError(c.reservedSystemCPUs);
    if (cpuErr !== undefined) e.push(`unable to parse reservedSystemCPUs (--reserved-cpus), error: ${cpuErr}`);
  }
  if (gates.enabled("GracefulNodeShutdown")) {
    const period = c.shutdownGracePeriod.nanoseconds;
    const critical = c.shutdownGracePeriodCriticalPods.nanoseconds;
    if (period < 0n || critical < 0n || critical > period) {
      const p = goDuration(c.shutdownGracePeriod);
      const cp = goDuration(c.shutdownGracePeriodCriticalPods);
      ic(`shutdownGracePeriod ${p} must be >= 0, shutdownGracePeriodCriticalPods ${cp} must be >= 0, and shutdownGracePeriodCriticalPods ${cp} must be <= shutdownGracePeriod ${p}`);
    }
    if (period > 0n && period < 1_000_000_000n) ic(`shutdownGracePeriod ${goDuration(c.shutdownGracePeriod)} must be either zero or otherwise >= 1 sec`);
    if (critical > 0n && critical < 1_000_000_000n) ic(`shutdownGracePeriodCriticalPods ${goDuration(c.shutdownGracePeriodCriticalPods)} must be either zero or otherwise >= 1 sec`);
  }
  if ((c.shutdownGracePeriod.nanoseconds > 0n || c.shutdownGracePeriodCriticalPods.nanoseconds > 0n) && !gates.enabled("GracefulNodeShutdown")) {
    ic("specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown");
  }
  if (gates.enabled("MemoryQoS") && (c.memoryThrottlingFactor <= 0 || c.memoryThrottlingFactor > 1)) {
    ic(`memoryThrottlingFactor ${c.memoryThrottlingFactor} must be greater than 0 and less than or equal to 1.0`);
  }
  // metrics.ValidateShowHiddenMetricsVersion: only the previous minor version (the agent is 1.23).
  // The agent has no metric hidden in 1.23, so "1.22" shows nothing more.
  if (c.showHiddenMetricsForVersion !== "" && c.showHiddenMetricsForVersion !== "1.22") {
    e.push("--show-hidden-metrics-for-version must be omitted or have the value '1.22'. Only the previous minor version is allowed");
  }
  // podLogsDir: the checks of later kubelets (the field is not in 1.23).
  if (c.podLogsDir === "") ic("podLogsDir was not specified");
  else if (!posix.isAbsolute(c.podLogsDir)) ic(`pod logs path ${q(c.podLogsDir)} must be absolute path`);
  else if (cleanPath(c.podLogsDir) !== c.podLogsDir) ic(`pod logs path ${q(c.podLogsDir)} must be normalized`);
  // Reserved memory (validateReservedMemoryConfiguration).
  const seen = new Set<string>();
  for (const r of c.reservedMemory) {
    for (const [type, value] of Object.entries(r.limits)) {
      const key = `${r.numaNode}/${type}`;
      if (seen.has(key)) ic(`the reserved memory has a duplicate value for NUMA node ${r.numaNode} and resource ${q(type)}`);
      seen.add(key);
      if (type !== "memory" && !type.startsWith("hugepages-")) {
        ic(`the limit type ${q(type)} for NUMA node ${r.numaNode} is not supported, only [memory hugepages-<HugePageSize>] is accepted`);
      }
      const qty = parseQuantity(value);
      if (!qty.ok) ic(`the reserved memory ${q(value)} for NUMA node ${r.numaNode} and resource ${q(type)} is not a quantity`);
      else if (qty.value.coefficient < 0n) ic(`the reserved memory for NUMA node ${r.numaNode} and resource ${q(type)} may not be negative`);
    }
  }

  // Checks the kubelet makes while starting, reported here with the rest.
  if (!isIP(c.address)) ic(`Address (--address) ${q(c.address)} is not a valid IP address`);
  if (!isIP(c.healthzBindAddress)) ic(`HealthzBindAddress (--healthz-bind-address) ${q(c.healthzBindAddress)} is not a valid IP address`);
  if (!["cgroupfs", "systemd"].includes(c.cgroupDriver)) ic(`option ${q(c.cgroupDriver)} specified for CgroupDriver (--cgroup-driver). Valid options are "cgroupfs" or "systemd"`);
  if (!["none", "static"].includes(c.cpuManagerPolicy)) ic(`option ${q(c.cpuManagerPolicy)} specified for CPUManagerPolicy (--cpu-manager-policy). Valid options are "none" or "static"`);
  if (Object.keys(c.cpuManagerPolicyOptions).length > 0) {
    if (!gates.enabled("CPUManagerPolicyOptions")) ic("CPUManagerPolicyOptions (--cpu-manager-policy-options) requires feature gate CPUManagerPolicyOptions");
    if (c.cpuManagerPolicy !== "static") ic("CPUManagerPolicyOptions (--cpu-manager-policy-options) are only valid with the static CPU manager policy");
  }
  if (!["None", "Static"].includes(c.memoryManagerPolicy)) ic(`option ${q(c.memoryManagerPolicy)} specified for MemoryManagerPolicy (--memory-manager-policy). Valid options are "None" or "Static"`);
  if (c.memoryManagerPolicy === "Static" && !gates.enabled("MemoryManager")) ic("MemoryManagerPolicy Static requires feature gate MemoryManager");
  if (!["AlwaysAllow", "Webhook"].includes(c.authorization.mode)) e.push(`unknown authorization mode ${c.authorization.mode}`);
  if (c.tlsMinVersion !== "" && !Object.hasOwn(tlsVersions, c.tlsMinVersion)) e.push(`unknown tls version ${q(c.tlsMinVersion)}`);
  for (const s of c.tlsCipherSuites) {
    if (!isKnownCipherSuite(s)) e.push(`Cipher suite ${s} not supported or doesn't exist`);
  }
  if ((c.tlsCertFile === "") !== (c.tlsPrivateKeyFile === "")) {
    ic("TLSCertFile (--tls-cert-file) and TLSPrivateKeyFile (--tls-private-key-file) must be given together");
  }
  if (c.containerLogMaxFiles < 2) ic(`ContainerLogMaxFiles (--container-log-max-files) ${c.containerLogMaxFiles} must be greater than 1`);
  const maxSize = parseQuantity(c.containerLogMaxSize);
  if (!maxSize.ok) e.push(`failed to parse container log max size ${q(c.containerLogMaxSize)}: ${maxSize.errors[0]?.message ?? "invalid quantity"}`);
  else if (maxSize.value.coefficient <= 0n) ic(`ContainerLogMaxSize (--container-log-max-size) ${q(c.containerLogMaxSize)} must be positive`);
  if (!["text", "json"].includes(c.logging.format)) e.push(`logging.format: Invalid value: ${q(c.logging.format)}: Unsupported log format`);
  e.push(...validateEvictionThresholds(c));
  e.push(...validateReservedResources("cluster-reserved", c.clusterReserved));
  e.push(...validateReservedResources("system-reserved", c.systemReserved));
  for (const [name, value] of Object.entries(c.qosReserved)) {
    if (name !== "memory") e.push(`--qos-reserved: cannot reserve ${q(name)} resource`);
    else if (!/^\d+%$/.test(value) || Number(value.slice(0, -1)) > 100) e.push(`--qos-reserved: percentage must be between 0-100, got ${q(value)}`);
  }
  if (Object.keys(c.qosReserved).length > 0 && !gates.enabled("QOSReserved")) ic("QOSReserved (--qos-reserved) requires feature gate QOSReserved");
  if (c.runOnce && c.enableServer && explicitEnableServer) {
    ic("RunOnce (--runonce) is exclusive with EnableServer (--enable-server): run-once mode starts no server; drop --enable-server or set it to false");
  }
  return e;
}

