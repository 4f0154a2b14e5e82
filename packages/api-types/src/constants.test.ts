import { describe, expect, it } from "vitest";
import * as constants from "./constants.js";

const keys = Object.entries(constants).filter(([name, value]) => !name.endsWith("GVK") && typeof value === "string") as [string, string][];

describe("well-known keys", () => {
  it("have Kubernetes 1.23's names with `example` domains", () => {
    expect(constants.JobCompletionIndexAnnotation).toBe("batch.example.io/job-completion-index");
    expect(constants.JobTrackingFinalizer).toBe("batch.example.io/job-tracking");
    expect(constants.JobTrackingAnnotation).toBe(constants.JobTrackingFinalizer);
    expect(constants.ControllerUidLabel).toBe("controller-uid");
    expect(constants.JobNameLabel).toBe("job-name");
    expect(constants.JobCompletionIndexEnvName).toBe("JOB_COMPLETION_INDEX");
    expect([constants.CSIPodNameKey, constants.CSIPodNamespaceKey, constants.CSIPodUIDKey, constants.CSIEphemeralKey, constants.CSIServiceAccountTokensKey]).toEqual([
      "csi.storage.example.io/pod.name",
      "csi.storage.example.io/pod.namespace",
      "csi.storage.example.io/pod.uid",
      "csi.storage.example.io/ephemeral",
      "csi.storage.example.io/serviceAccount.tokens",
    ]);
    expect([constants.NodeHostnameLabel, constants.NodeOSLabel, constants.NodeArchLabel, constants.NodeOSBetaLabel, constants.NodeArchBetaLabel]).toEqual([
      "example.io/hostname",
      "example.io/os",
      "example.io/arch",
      "beta.example.io/os",
      "beta.example.io/arch",
    ]);
    expect([constants.NodeUnschedulableTaintKey, constants.NodeNotReadyTaintKey, constants.NodeUnreachableTaintKey]).toEqual([
      "node.example.io/unschedulable",
      "node.example.io/not-ready",
      "node.example.io/unreachable",
    ]);
    expect([constants.NodeMemoryPressureTaintKey, constants.NodeDiskPressureTaintKey, constants.NodePIDPressureTaintKey, constants.NodeNetworkUnavailableTaintKey]).toEqual([
      "node.example.io/memory-pressure",
      "node.example.io/disk-pressure",
      "node.example.io/pid-pressure",
      "node.example.io/network-unavailable",
    ]);
    expect([constants.ConfigHashAnnotation, constants.ConfigSourceAnnotation, constants.ConfigFirstSeenAnnotation, constants.ConfigMirrorAnnotation]).toEqual([
      "example.io/config.hash",
      "example.io/config.source",
      "example.io/config.seen",
      "example.io/config.mirror",
    ]);
    expect(constants.ForegroundDeletionFinalizer).toBe("foregroundDeletion");
    expect(constants.OrphanFinalizer).toBe("orphan");
    expect(constants.MigratedPluginsAnnotation).toBe("storage.alpha.example.io/migrated-plugins");
    expect(constants.NodeIDAnnotation).toBe("csi.volume.example.io/nodeid");
  });

  it("keep `kubernetes.io`/`k8s.io` only where kubectl needs it verbatim", () => {
    const verbatim = keys.filter(([, value]) => /(^|[./])(kubernetes|k8s)\.io\//.test(value)).map(([name]) => name);
    // Secret types are values, not keys; the service-account annotations are written by clients.
    // RBACAutoUpdateAnnotation: kubectl auth reconcile and the bootstrap policy read it verbatim.
    expect(verbatim).toEqual(["RBACAutoUpdateAnnotation", "LastAppliedConfigAnnotation", "ServiceAccountNameAnnotation", "ServiceAccountUIDAnnotation", "ServiceAccountTokenMountPath"]);
    expect(constants.LastAppliedConfigAnnotation).toBe("kubectl.kubernetes.io/last-applied-configuration");
  });

  it("are valid label/annotation keys (optional DNS prefix, then a name of at most 63 characters)", () => {
    const keyRe = /^(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
    // Secret and ConfigMap data keys (`.dockercfg`, `tls.crt`) are config keys, checked below.
    const dataKeys = new Set(["DockerConfigKey", "DockerConfigJsonKey", "TLSCertKey", "TLSPrivateKeyKey", "BasicAuthUsernameKey", "BasicAuthPasswordKey", "SSHAuthPrivateKey", "ServiceAccountRootCAKey"]);
    for (const [name, value] of keys) {
      if (dataKeys.has(name)) expect(value, name).toMatch(/^[-._a-zA-Z0-9]+$/);
      else if (name.endsWith("Label") || name.endsWith("Annotation") || name.endsWith("Key")) expect(value, name).toMatch(keyRe);
    }
  });
});
