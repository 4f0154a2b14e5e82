import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { FeatureSpec } from "./index.js";
import { FeatureGate, nodeAgentFeatureGates, nodeAgentFeatureSpecs } from "./index.js";

// The three paragraphs of the Versioning section of spec/nodeagent-cli.md, verbatim.
const SPEC_BETA_ON =
  "APIListChunking, APIPriorityAndFairness, APIResponseCompression, AnyVolumeDataSource, AppArmor, CPUManager, CPUManagerPolicyBetaOptions, CPUManagerPolicyOptions, CSIInlineVolume, CSIMigration, DaemonSetUpdateSurge, DelegateFSGroupToCSIDriver, DevicePlugins, DisableAcceleratorUsageMetrics, DownwardAPIHugePages, EndpointSliceTerminatingCondition, EphemeralContainers, GRPCContainerProbe, GracefulNodeShutdown, GracefulNodeShutdownBasedOnPodPriority, IdentifyPodOS, JobMutableNodeSchedulingDirectives, JobReadyPods, NodeAgentCredentialProviders, NodeAgentPodResources, NodeAgentPodResourcesGetAllocatable, LegacyServiceAccountTokenNoAutoGeneration, LocalStorageCapacityIsolation, LogarithmicScaleDown, MemoryManager, MixedProtocolLBService, NetworkPolicyEndPort, OpenAPIEnums, OpenAPIV3, PodDeletionCost, PodSecurity, RemainingItemCount, RotateNodeAgentServerCertificate, ServiceInternalTrafficPolicy, SizeMemoryBackedVolumes, StatefulSetMinReadySeconds, StorageVersionHash, TopologyAwareHints, TopologyManager, WinOverlay, and the host-process-containers gate of the non-Linux platform. Also CSIMigration for three storage backends (backend 1, 2, 3: `CSIMigration<backend>`).";
const SPEC_BETA_OFF =
  "AllBeta, ExperimentalHostUserNamespaceDefaulting, JobTrackingWithFinalizers, ProbeTerminationGracePeriod, and CSIMigration for a fourth storage backend (block-device-over-network kind, written `CSIMigration<backend 4>`).";
const SPEC_ALPHA_OFF =
  "APIServerIdentity, APIServerTracing, AllAlpha, CPUManagerPolicyAlphaOptions, CSIVolumeHealth, ContextualLogging, CronJobTimeZone, CustomCPUCFSQuotaPeriod, CustomResourceValidationExpressions, DisableCloudProviders, DisableNodeAgentCloudCredentialProviders, ExpandedDNSConfig, HPAContainerMetrics, HPAScaleToZero, HonorPVReclaimPolicy, NodeAgentInUserNamespace, LocalStorageCapacityIsolationFSQuotaMonitoring, MaxUnavailableStatefulSet, MemoryQoS, MinDomainsInPodTopologySpread, NetworkPolicyStatus, NodeOutOfServiceVolumeDetach, NodeSwap, PodAndContainerStatsFromCRI, ProcMountType, ProxyTerminatingEndpoints, QOSReserved, ReadWriteOncePod, RecoverVolumeExpansionFailure, SeccompDefault, ServerSideFieldValidation, ServiceIPStaticSubrange, StatefulSetAutoDeletePVC, StorageVersionAPI, VolumeCapacityPriority, WinDSR; `CSIMigration<backend>` for two further backends; and `InTreePlugin<backend>Unregister` for each of eight storage backends.";

/** The spec's placeholders, resolved as documented on `nodeAgentFeatureSpecs`. */
const PLACEHOLDERS: Record<string, readonly string[]> = {
  "the host-process-containers gate of the non-Linux platform": ["WindowsHostProcessContainers"],
  "three storage backends": ["CSIMigrationAWS", "CSIMigrationAzureFile", "CSIMigrationGCE"],
  "a fourth storage backend": ["CSIMigrationRBD"],
  "two further backends": ["CSIMigrationPortworx", "CSIMigrationvSphere"],
  "each of eight storage backends": ["AWS", "AzureDisk", "AzureFile", "GCE", "OpenStack", "Portworx", "RBD", "vSphere"].map(
    (b) => `InTreePlugin${b}Unregister`,
  ),
};

/** Plain gate names of a paragraph (before its first placeholder) plus the resolved placeholders. */
function namesIn(paragraph: string, placeholderCount: number): string[] {
  const listed = paragraph.split(/[,;]\s*|\.\s/).map((s) => s.replace(/^and /, "").trim());
  const plain = listed.filter((s) => /^[A-Z][A-Za-z0-9]*$/.test(s));
  const resolved = Object.entries(PLACEHOLDERS)
    .filter(([phrase]) => paragraph.includes(phrase))
    .flatMap(([, names]) => names);
  expect(Object.keys(PLACEHOLDERS).filter((phrase) => paragraph.includes(phrase))).toHaveLength(placeholderCount);
  return [...plain, ...resolved];
}

const specTable: Array<[string, FeatureSpec]> = [
  ...namesIn(SPEC_BETA_ON, 2).map((n): [string, FeatureSpec] => [n, { default: true, preRelease: "beta" }]),
  ...namesIn(SPEC_BETA_OFF, 1).map((n): [string, FeatureSpec] => [n, { default: false, preRelease: "beta" }]),
  ...namesIn(SPEC_ALPHA_OFF, 2).map((n): [string, FeatureSpec] => [n, { default: false, preRelease: "alpha" }]),
];

describe("nodeAgentFeatureSpecs", () => {
  it("reads the expected number of names from each spec paragraph", () => {
    // 45 named + host-process + 3 backends; 4 named + 1 backend; 36 named + 2 backends + 8 in-tree.
    expect(namesIn(SPEC_BETA_ON, 2)).toHaveLength(49);
    expect(namesIn(SPEC_BETA_OFF, 1)).toHaveLength(5);
    expect(namesIn(SPEC_ALPHA_OFF, 2)).toHaveLength(46);
    expect(new Set(specTable.map(([n]) => n)).size).toBe(100);
  });

  it("has exactly the spec's 100 gates, plus the GA gates it leaves out of help", () => {
    const listed = Object.entries(nodeAgentFeatureSpecs)
      .filter(([, spec]) => spec.preRelease !== "ga")
      .map(([n]) => n);
    expect(listed.sort()).toEqual(specTable.map(([n]) => n).sort());
    const ga = Object.entries(nodeAgentFeatureSpecs).filter(([, spec]) => spec.preRelease === "ga");
    expect(ga.map(([n]) => n).sort()).toEqual(["CSIMigrationAzureDisk", "CSIMigrationOpenStack"]);
    expect(nodeAgentFeatureGates().knownFeatures().join("\n")).not.toContain("CSIMigrationAzureDisk");
  });

  it("accepts GA gates only at their locked value", () => {
    const gates = nodeAgentFeatureGates();
    expect(() => gates.set("CSIMigrationAzureDisk=true")).not.toThrow();
    expect(() => gates.set("CSIMigrationOpenStack=false")).toThrow(/locked to true/);
  });

  it.each(specTable)("%s has the spec's stage and default", (name, want) => {
    expect(nodeAgentFeatureSpecs[name as keyof typeof nodeAgentFeatureSpecs]).toEqual(want);
  });

  it("follows the spec where it differs from Kubernetes 1.23", () => {
    expect(nodeAgentFeatureSpecs.JobReadyPods).toEqual({ default: true, preRelease: "beta" });
    expect(nodeAgentFeatureSpecs.JobTrackingWithFinalizers).toEqual({ default: false, preRelease: "beta" });
    expect(nodeAgentFeatureSpecs.CSIMigrationRBD).toEqual({ default: false, preRelease: "beta" });
    expect(nodeAgentFeatureSpecs.CSIMigrationGCE).toEqual({ default: true, preRelease: "beta" });
    expect(nodeAgentFeatureSpecs.CSIMigrationAzureFile).toEqual({ default: true, preRelease: "beta" });
    expect(nodeAgentFeatureSpecs.CSIMigrationOpenStack).toEqual({ default: true, preRelease: "ga", lockToDefault: true });
    expect(nodeAgentFeatureSpecs.CSIMigrationAzureDisk).toEqual({ default: true, preRelease: "ga", lockToDefault: true });
    expect("KubeletPodResources" in nodeAgentFeatureSpecs).toBe(false);
  });

  it("is alphabetised case-sensitively (upper before lower), as upstream", () => {
    const keys = Object.keys(nodeAgentFeatureSpecs);
    expect(keys).toEqual([...keys].sort());
  });

  it("gives every entry a one-line TSDoc with its owner area and a KEP or upstream link", () => {
    const source = readFileSync(new URL("./node-agent-features.ts", import.meta.url), "utf8");
    const body = source.slice(source.indexOf("export const nodeAgentFeatureSpecs = {"), source.indexOf("} as const satisfies"));
    const lines = body.split("\n").slice(1).filter((l) => l.trim() !== "");
    expect(lines).toHaveLength(204);
    for (let i = 0; i < lines.length; i += 2) {
      expect(lines[i]).toMatch(
        /^ {2}\/\*\* Owner: sig-[a-z-]+( \([^)]*\))?\. (KEP: https:\/\/kep\.k8s\.io\/\d+|Source: https:\/\/github\.com\/kubernetes\/kubernetes\/blob\/v1\.2[34]\.0\/\S+\.go) \*\/$/,
      );
      expect(lines[i + 1]).toMatch(/^ {2}[A-Za-z0-9]+: \{ default: (true|false), preRelease: "(alpha|beta|ga)"(, lockToDefault: true)? \},$/);
    }
  });
});

describe("nodeAgentFeatureGates", () => {
  it("knows every gate with the table's default", () => {
    const gates = nodeAgentFeatureGates();
    expect(gates.name).toBe("nodeagent");
    for (const [name, spec] of specTable) expect(gates.enabled(name as never)).toBe(spec.default);
  });

  it("prints one help line per gate, in Kubernetes' order and format", () => {
    const lines = nodeAgentFeatureGates().knownFeatures();
    expect(lines).toHaveLength(100);
    expect(lines.slice(0, 4)).toEqual([
      "APIListChunking=true|false (BETA - default=true)",
      "APIPriorityAndFairness=true|false (BETA - default=true)",
      "APIResponseCompression=true|false (BETA - default=true)",
      "APIServerIdentity=true|false (ALPHA - default=false)",
    ]);
    expect(lines).toContain("JobReadyPods=true|false (BETA - default=true)");
    expect(lines).toContain("JobTrackingWithFinalizers=true|false (BETA - default=false)");
    expect(lines.indexOf("CSIMigration=true|false (BETA - default=true)")).toBeLessThan(lines.indexOf("CSIMigrationAWS=true|false (BETA - default=true)"));
    expect(lines.at(-1)).toBe("WindowsHostProcessContainers=true|false (BETA - default=true)");
  });

  it("returns a fresh, independent gate set on each call", () => {
    const a = nodeAgentFeatureGates();
    a.set("JobReadyPods=false");
    expect(nodeAgentFeatureGates().enabled("JobReadyPods")).toBe(true);
    expect(a).not.toBe(nodeAgentFeatureGates());
  });

  it("applies AllBeta=false to the beta gates, except those set explicitly", () => {
    const gates = nodeAgentFeatureGates();
    gates.set("AllBeta=false,PodSecurity=true");
    expect(gates.enabled("JobReadyPods")).toBe(false);
    expect(gates.enabled("CSIMigrationAWS")).toBe(false);
    expect(gates.enabled("PodSecurity")).toBe(true);
    expect(gates.enabled("NodeSwap")).toBe(false);
  });

  it("turns on every alpha gate with AllAlpha=true", () => {
    const gates = nodeAgentFeatureGates();
    gates.setFromMap({ AllAlpha: true });
    const alpha = specTable.filter(([, s]) => s.preRelease === "alpha").map(([n]) => n);
    expect(alpha).toHaveLength(46);
    for (const name of alpha) expect(gates.enabled(name as never)).toBe(true);
    expect(gates.enabled("JobTrackingWithFinalizers")).toBe(false);
  });

  it("lets the config file set gates and the flag override them", () => {
    const gates = nodeAgentFeatureGates();
    gates.setFromMap({ NodeSwap: true, JobReadyPods: false });
    gates.set("NodeSwap=false");
    expect(gates.toMap()).toEqual({ JobReadyPods: false, NodeSwap: false });
  });

  it("is a FeatureGate that rejects the upstream Kubelet* names", () => {
    const gates = nodeAgentFeatureGates();
    expect(gates).toBeInstanceOf(FeatureGate);
    expect(() => gates.set("KubeletPodResources=false")).toThrowError("unrecognized feature gate: KubeletPodResources");
  });
});
