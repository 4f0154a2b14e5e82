import { describe, expect, it } from "vitest";
import { nodeAgentFeatureGates } from "@skiff/feature-gates";
import { mustParseDuration } from "@skiff/flags";
import type { NodeAgentConfiguration } from "./config.js";
import { applyLegacyFlagDefaults, defaultNodeAgentConfiguration } from "./config.js";
import { validateNodeAgentConfiguration, validateNodeAgentFlags } from "./validate.js";

const gatesWith = (m: Record<string, boolean> = {}) => {
  const g = nodeAgentFeatureGates();
  g.setFromMap(m);
  return g;
};

function errorsFor(mutate: (c: NodeAgentConfiguration) => void, gates: Record<string, boolean> = {}, explicitServer = false): string[] {
  const c = defaultNodeAgentConfiguration();
  mutate(c);
  return validateNodeAgentConfiguration(c, gatesWith(gates), explicitServer);
}

describe("validateNodeAgentConfiguration", () => {
  it("accepts the file defaults and the flag defaults", () => {
    expect(validateNodeAgentConfiguration(defaultNodeAgentConfiguration(), gatesWith())).toEqual([]);
    expect(validateNodeAgentConfiguration(applyLegacyFlagDefaults(defaultNodeAgentConfiguration()), gatesWith())).toEqual([]);
  });

  const d = mustParseDuration;
  // [rule, mutation, expected error (exact), gates]
  const cases: Array<[string, (c: NodeAgentConfiguration) => void, string, Record<string, boolean>?]> = [
    ["node lease", (c) => (c.nodeLeaseDurationSeconds = 0), "invalid configuration: nodeLeaseDurationSeconds must be greater than 0"],
    ["enforce without QoS cgroups", (c) => (c.cgroupsPerQOS = false), "invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true"],
    ["system cgroups without root", (c) => (c.systemCgroups = "/system"), "invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified"],
    ["event burst", (c) => (c.eventBurst = -1), "invalid configuration: eventBurst (--event-burst) -1 must not be a negative number"],
    ["event qps", (c) => (c.eventRecordQPS = -1), "invalid configuration: eventRecordQPS (--event-qps) -1 must not be a negative number"],
    ["healthz port", (c) => (c.healthzPort = 70000), "invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive"],
    ["cfs period without gate", (c) => (c.cpuCFSQuotaPeriod = d("50ms")), "invalid configuration: cpuCFSQuotaPeriod {50ms} requires feature gate CustomCPUCFSQuotaPeriod"],
    ["cfs period range", (c) => (c.cpuCFSQuotaPeriod = d("2s")), "invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {2s} must be between 1usec and 1sec, inclusive", { CustomCPUCFSQuotaPeriod: true }],
    ["image gc high range", (c) => (c.imageGCHighThresholdPercent = 101), "invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive"],
    ["image gc low range", (c) => (c.imageGCLowThresholdPercent = -1), "invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) -1 must be between 0 and 100, inclusive"],
    ["image gc low < high", (c) => (c.imageGCLowThresholdPercent = 85), "invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 85 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85"],
    ["iptables drop bit", (c) => (c.iptablesDropBit = 32), "invalid configuration: iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive"],
    ["iptables masquerade bit", (c) => (c.iptablesMasqueradeBit = -1), "invalid configuration: iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive"],
    ["api burst", (c) => (c.clusterAPIBurst = -1), "invalid configuration: clusterAPIBurst (--cluster-api-burst) -1 must not be a negative number"],
    ["api qps", (c) => (c.clusterAPIQPS = -1), "invalid configuration: clusterAPIQPS (--cluster-api-qps) -1 must not be a negative number"],
    ["max images", (c) => (c.nodeStatusMaxImages = -2), "invalid configuration: nodeStatusMaxImages (--node-status-max-images) must be -1 or greater"],
    ["open files", (c) => (c.maxOpenFiles = -1), "invalid configuration: maxOpenFiles (--max-open-files) -1 must not be a negative number"],
    ["max pods", (c) => (c.maxPods = -1), "invalid configuration: maxPods (--max-pods) -1 must not be a negative number"],
    ["oom score low", (c) => (c.oomScoreAdj = -1001), "invalid configuration: oomScoreAdj (--oom-score-adj) -1001 must be between -1000 and 1000, inclusive"],
    ["oom score high", (c) => (c.oomScoreAdj = 1001), "invalid configuration: oomScoreAdj (--oom-score-adj) 1001 must be between -1000 and 1000, inclusive"],
    ["pods per core", (c) => (c.podsPerCore = -1), "invalid configuration: podsPerCore (--pods-per-core) -1 must not be a negative number"],
    ["port", (c) => (c.port = 0), "invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive"],
    ["read-only port", (c) => (c.readOnlyPort = 65536), "invalid configuration: readOnlyPort (--read-only-port) 65536 must be between 0 and 65535, inclusive"],
    ["registry burst", (c) => (c.registryBurst = -1), "invalid configuration: registryBurst (--registry-burst) -1 must not be a negative number"],
    ["registry qps", (c) => (c.registryPullQPS = -1), "invalid configuration: registryPullQPS (--registry-qps) -1 must not be a negative number"],
    ["server TLS bootstrap gate", (c) => (c.serverTLSBootstrap = true), "invalid configuration: serverTLSBootstrap true requires feature gate RotateNodeAgentServerCertificate", { RotateNodeAgentServerCertificate: false }],
    ["topology manager gate", (c) => (c.topologyManagerPolicy = "restricted"), "invalid configuration: topologyManagerPolicy restricted requires feature gate TopologyManager", { TopologyManager: false }],
    ["enforce system-reserved", (c) => (c.enforceNodeAllocatable = ["pods", "system-reserved"]), 'invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)'],
    ["enforce cluster-reserved", (c) => (c.enforceNodeAllocatable = ["cluster-reserved"]), 'invalid configuration: clusterReservedCgroup (--cluster-reserved-cgroup) must be specified when "cluster-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)'],
    ["enforce none alone", (c) => (c.enforceNodeAllocatable = ["none", "pods"]), 'invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified'],
    ["enforce unknown", (c) => (c.enforceNodeAllocatable = ["kube-reserved"]), 'invalid configuration: option "kube-reserved" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "cluster-reserved", or "none"'],
    ["pod logs dir empty", (c) => (c.podLogsDir = ""), "invalid configuration: podLogsDir was not specified"],
    ["pod logs dir relative", (c) => (c.podLogsDir = "logs/pods"), 'invalid configuration: pod logs path "logs/pods" must be absolute path'],
    ["pod logs dir dot-dot", (c) => (c.podLogsDir = "/var/log/../pods"), 'invalid configuration: pod logs path "/var/log/../pods" must be normalized'],
    ["pod logs dir trailing slash", (c) => (c.podLogsDir = "/var/log/pods/"), 'invalid configuration: pod logs path "/var/log/pods/" must be normalized'],
    ["pod logs dir double slash", (c) => (c.podLogsDir = "/tmp//pods"), 'invalid configuration: pod logs path "/tmp//pods" must be normalized'],
    ["hairpin", (c) => (c.hairpinMode = "x"), 'invalid configuration: option "x" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"'],
    ["reserved cpus with cgroup", (c) => ((c.reservedSystemCPUs = "0-1"), (c.systemReservedCgroup = "/sys")), "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or clusterReservedCgroup (--cluster-reserved-cgroup)"],
    ["reserved cpus syntax", (c) => (c.reservedSystemCPUs = "0-x"), 'unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing "x": invalid syntax'],
    ["reserved cpus space", (c) => (c.reservedSystemCPUs = "0, 1"), 'unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing " 1": invalid syntax'],
    ["reserved cpus out of range", (c) => (c.reservedSystemCPUs = "99999999999999999999"), 'unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing "99999999999999999999": value out of range'],
    ["shutdown period under a second", (c) => (c.shutdownGracePeriod = d("500ms")), "invalid configuration: shutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec"],
    ["critical shutdown period under a second", (c) => ((c.shutdownGracePeriod = d("10s")), (c.shutdownGracePeriodCriticalPods = d("1ms"))), "invalid configuration: shutdownGracePeriodCriticalPods {1ms} must be either zero or otherwise >= 1 sec"],
    ["topology scope gate", (c) => (c.topologyManagerScope = "pod"), "invalid configuration: topologyManagerScope pod requires feature gate TopologyManager", { TopologyManager: false }],
    ["shutdown periods", (c) => ((c.shutdownGracePeriod = d("10s")), (c.shutdownGracePeriodCriticalPods = d("20s"))), "invalid configuration: shutdownGracePeriod {10s} must be >= 0, shutdownGracePeriodCriticalPods {20s} must be >= 0, and shutdownGracePeriodCriticalPods {20s} must be <= shutdownGracePeriod {10s}"],
    ["shutdown gate", (c) => (c.shutdownGracePeriod = d("10s")), "invalid configuration: specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown", { GracefulNodeShutdown: false }],
    ["hidden metrics version", (c) => (c.showHiddenMetricsForVersion = "1.21"), "--show-hidden-metrics-for-version must be omitted or have the value '1.22'. Only the previous minor version is allowed"],
    ["memory throttling", (c) => (c.memoryThrottlingFactor = 1.5), "invalid configuration: memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0", { MemoryQoS: true }],
    ["reserved memory type", (c) => (c.reservedMemory = [{ numaNode: 0, limits: { cpu: "1" } }]), 'invalid configuration: the limit type "cpu" for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted'],
    ["reserved memory duplicate", (c) => (c.reservedMemory = [{ numaNode: 0, limits: { memory: "1Gi" } }, { numaNode: 0, limits: { memory: "2Gi" } }]), 'invalid configuration: the reserved memory has a duplicate value for NUMA node 0 and resource "memory"'],
    ["reserved memory quantity", (c) => (c.reservedMemory = [{ numaNode: 1, limits: { memory: "lots" } }]), 'invalid configuration: the reserved memory "lots" for NUMA node 1 and resource "memory" is not a quantity'],
    ["address", (c) => (c.address = "localhost"), 'invalid configuration: Address (--address) "localhost" is not a valid IP address'],
    ["healthz address", (c) => (c.healthzBindAddress = "1.2.3"), 'invalid configuration: HealthzBindAddress (--healthz-bind-address) "1.2.3" is not a valid IP address'],
    ["cgroup driver", (c) => (c.cgroupDriver = "x"), 'invalid configuration: option "x" specified for CgroupDriver (--cgroup-driver). Valid options are "cgroupfs" or "systemd"'],
    ["cpu manager policy", (c) => (c.cpuManagerPolicy = "Static"), 'invalid configuration: option "Static" specified for CPUManagerPolicy (--cpu-manager-policy). Valid options are "none" or "static"'],
    ["cpu manager options policy", (c) => (c.cpuManagerPolicyOptions = { "full-pcpus-only": "true" }), "invalid configuration: CPUManagerPolicyOptions (--cpu-manager-policy-options) are only valid with the static CPU manager policy"],
    ["cpu manager options gate", (c) => ((c.cpuManagerPolicy = "static"), (c.cpuManagerPolicyOptions = { a: "b" })), "invalid configuration: CPUManagerPolicyOptions (--cpu-manager-policy-options) requires feature gate CPUManagerPolicyOptions", { CPUManagerPolicyOptions: false }],
    ["memory manager policy", (c) => (c.memoryManagerPolicy = "static"), 'invalid configuration: option "static" specified for MemoryManagerPolicy (--memory-manager-policy). Valid options are "None" or "Static"'],
    ["memory manager gate", (c) => (c.memoryManagerPolicy = "Static"), "invalid configuration: MemoryManagerPolicy Static requires feature gate MemoryManager", { MemoryManager: false }],
    ["topology policy", (c) => (c.topologyManagerPolicy = "strict"), "invalid configuration: topologyManagerPolicy non-allowable value: strict"],
    ["topology scope", (c) => (c.topologyManagerScope = "node"), "invalid configuration: topologyManagerScope non-allowable value: node"],
    ["authorization mode", (c) => (c.authorization.mode = "RBAC"), "unknown authorization mode RBAC"],
    ["tls version", (c) => (c.tlsMinVersion = "VersionTLS14"), 'unknown tls version "VersionTLS14"'],
    ["tls cipher", (c) => (c.tlsCipherSuites = ["TLS_AES_128_GCM_SHA256", "TLS_FOO"]), "Cipher suite TLS_FOO not supported or doesn't exist"],
    ["tls pair", (c) => (c.tlsCertFile = "/x.crt"), "invalid configuration: TLSCertFile (--tls-cert-file) and TLSPrivateKeyFile (--tls-private-key-file) must be given together"],
    ["log max files", (c) => (c.containerLogMaxFiles = 1), "invalid configuration: ContainerLogMaxFiles (--container-log-max-files) 1 must be greater than 1"],
    ["log max size syntax", (c) => (c.containerLogMaxSize = "10MB"), 'failed to parse container log max size "10MB": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\''],
    ["log max size positive", (c) => (c.containerLogMaxSize = "0"), 'invalid configuration: ContainerLogMaxSize (--container-log-max-size) "0" must be positive'],
    ["logging format", (c) => (c.logging.format = "xml"), 'logging.format: Invalid value: "xml": Unsupported log format'],
    ["eviction signal", (c) => (c.evictionHard = { "memory.free": "1Gi" }), "unsupported eviction signal memory.free"],
    ["eviction percentage", (c) => (c.evictionHard = { "nodefs.available": "110%" }), "eviction percentage threshold nodefs.available must be <= 100%: 110%"],
    ["eviction negative percentage", (c) => (c.evictionHard = { "nodefs.available": "-5%" }), "eviction percentage threshold nodefs.available must be >= 0%: -5%"],
    ["eviction positive quantity", (c) => (c.evictionHard = { "memory.available": "-1Mi" }), "eviction threshold memory.available must be positive: -1Mi"],
    ["eviction quantity syntax", (c) => ((c.evictionSoft = { "memory.available": "lots" }), (c.evictionSoftGracePeriod = { "memory.available": "1m" })), "invalid eviction threshold memory.available<lots: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["soft threshold grace period", (c) => (c.evictionSoft = { "memory.available": "1Gi" }), "grace period must be specified for the soft eviction threshold memory.available"],
    ["grace period negative", (c) => ((c.evictionSoft = { "memory.available": "1Gi" }), (c.evictionSoftGracePeriod = { "memory.available": "-1m" })), "invalid eviction grace period specified: -1m, must be a positive value"],
    ["minimum reclaim negative", (c) => (c.evictionMinimumReclaim = { "memory.available": "-1Gi" }), "negative reclaim defined for signal memory.available: -1Gi"],
    ["cluster reserved resource", (c) => (c.clusterReserved = { gpu: "1" }), '--cluster-reserved: cannot reserve "gpu" resource'],
    ["system reserved negative", (c) => (c.systemReserved = { memory: "-1Gi" }), '--system-reserved: resource quantity for "memory" cannot be negative: -1Gi'],
    ["qos reserved resource", (c) => (c.qosReserved = { cpu: "50%" }), '--qos-reserved: cannot reserve "cpu" resource', { QOSReserved: true }],
    ["qos reserved percentage", (c) => (c.qosReserved = { memory: "150%" }), '--qos-reserved: percentage must be between 0-100, got "150%"', { QOSReserved: true }],
    ["qos reserved gate", (c) => (c.qosReserved = { memory: "50%" }), "invalid configuration: QOSReserved (--qos-reserved) requires feature gate QOSReserved"],
  ];

  it.each(cases)("%s", (_name, mutate, expected, gates) => {
    expect(errorsFor(mutate, gates)).toEqual([expected]);
  });

  it("accepts the edge values of each range", () => {
    expect(
      errorsFor((c) => {
        c.imageGCHighThresholdPercent = 100;
        c.imageGCLowThresholdPercent = 0;
        c.iptablesDropBit = 31;
        c.iptablesMasqueradeBit = 0;
        c.oomScoreAdj = -1000;
        c.readOnlyPort = 0;
        c.showHiddenMetricsForVersion = "1.22";
        c.reservedSystemCPUs = "3-1"; // 1.23 cpuset.Parse accepts a reversed range (an empty set)
        c.healthzPort = 0;
        c.port = 65535;
        c.nodeStatusMaxImages = -1;
        c.enforceNodeAllocatable = ["none"];
        c.evictionHard = { "memory.available": "0%", "nodefs.available": "100%", "imagefs.inodesFree": "5%" };
        c.evictionSoft = { "memory.available": "1.5Gi" };
        c.evictionSoftGracePeriod = { "memory.available": "1m30s" };
        c.clusterReserved = { cpu: "200m", memory: "500Mi", "ephemeral-storage": "1Gi", pid: "100" };
        c.reservedSystemCPUs = "0-1,4";
        c.tlsMinVersion = "VersionTLS13";
        c.tlsCipherSuites = ["TLS_RSA_WITH_RC4_128_SHA"];
        c.logging.format = "json";
      }),
    ).toEqual([]);
  });

  it("reports every error together", () => {
    const errors = errorsFor((c) => {
      c.port = 0;
      c.oomScoreAdj = 5000;
      c.evictionHard = { bogus: "1" };
    });
    expect(errors).toHaveLength(3);
  });

  it("refuses --runonce with an explicitly enabled server only", () => {
    expect(errorsFor((c) => (c.runOnce = true))).toEqual([]);
    expect(validateNodeAgentConfiguration({ ...defaultNodeAgentConfiguration(), runOnce: true }, gatesWith(), true)).toEqual([
      "invalid configuration: RunOnce (--runonce) is exclusive with EnableServer (--enable-server): run-once mode starts no server; drop --enable-server or set it to false",
    ]);
    expect(validateNodeAgentConfiguration({ ...defaultNodeAgentConfiguration(), runOnce: true, enableServer: false }, gatesWith(), true)).toEqual([]);
  });
});

describe("validateNodeAgentFlags", () => {
  const base = { nodeLabels: {}, seccompDefault: false, exitOnLockContention: false, lockFile: "" };
  it("accepts allowed node labels", () => {
    const nodeLabels = {
      "example.io/hostname": "x",
      "topology.example.io/zone": "a",
      "nodeagent.example.io/role": "w",
      "foo.node.example.io/x": "y",
      "team.acme.com/x": "y",
      plain: "v",
    };
    expect(validateNodeAgentFlags({ ...base, nodeLabels }, gatesWith())).toEqual([]);
  });
  it("refuses --vendor-container-registry-config as not supported unless DisableNodeAgentCloudCredentialProviders is on", () => {
    const errors = validateNodeAgentFlags({ ...base, vendorContainerRegistryConfig: "/etc/acr.json" }, gatesWith());
    expect(errors).toEqual([
      "--vendor-container-registry-config is not supported: this node agent has no in-tree cloud vendor credential provider; use --image-credential-provider-config and --image-credential-provider-bin-dir with an exec credential provider plugin",
    ]);
    expect(validateNodeAgentFlags({ ...base, vendorContainerRegistryConfig: "/etc/acr.json" }, gatesWith({ DisableNodeAgentCloudCredentialProviders: true }))).toEqual([]);
  });
  it("refuses unknown labels in the example.io namespace, sorted", () => {
    const errors = validateNodeAgentFlags({ ...base, nodeLabels: { "node-role.example.io/master": "", "example.io/foo": "x" } }, gatesWith());
    expect(errors).toEqual([
      "unknown 'example.io' labels specified with --node-labels: [example.io/foo node-role.example.io/master]\n" +
        "--node-labels in the 'example.io' namespace must begin with an allowed prefix (nodeagent.example.io, node.example.io) or be in the specifically allowed set (beta.example.io/arch, beta.example.io/instance-type, beta.example.io/os, example.io/arch, example.io/hostname, example.io/os, failure-domain.beta.example.io/region, failure-domain.beta.example.io/zone, node.example.io/instance-type, topology.example.io/region, topology.example.io/zone)",
    ]);
  });
  it("needs the SeccompDefault gate for --seccomp-default", () => {
    expect(validateNodeAgentFlags({ ...base, seccompDefault: true }, gatesWith())).toEqual(["the SeccompDefault feature gate must be enabled in order to use the --seccomp-default flag"]);
    expect(validateNodeAgentFlags({ ...base, seccompDefault: true }, gatesWith({ SeccompDefault: true }))).toEqual([]);
  });
  it("needs --lock-file for --exit-on-lock-contention", () => {
    expect(validateNodeAgentFlags({ ...base, exitOnLockContention: true }, gatesWith())).toEqual(["cannot exit on lock file contention: no lock file specified"]);
    expect(validateNodeAgentFlags({ ...base, exitOnLockContention: true, lockFile: "/l" }, gatesWith())).toEqual([]);
  });
});
