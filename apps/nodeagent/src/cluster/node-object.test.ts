import { describe, expect, it } from "vitest";
import type { Node } from "@skiff/api-types";
import {
  buildInitialNode,
  buildNodeAddresses,
  buildNodeImages,
  buildNodeStatus,
  CloudProviderUninitializedTaintKey,
  ControllerManagedAttachDetachAnnotation,
  goArch,
  KeepTerminatedPodVolumesAnnotation,
  reconcileExistingNode,
} from "./node-object.js";
import type { NodeStatusInputs } from "./node-object.js";
import { withDevicePluginResources } from "./node-status-manager.js";

const params = {
  nodeName: "node-a",
  hostname: "node-a",
  os: "linux",
  arch: "amd64",
  nodeLabels: { "node.example.io/role": "worker", "example.io/arch": "arm64" },
  taints: [{ key: "dedicated", value: "batch", effect: "NoSchedule" }, { key: "gpu", effect: "NoExecute" }],
  registerSchedulable: true,
  controllerAttachDetach: true,
  providerID: "",
  podCIDR: "",
};

describe("buildInitialNode", () => {
  it("sets the default labels, lets --node-labels override them, and copies the taints", () => {
    const n = buildInitialNode(params);
    expect(n.metadata?.labels).toEqual({
      "example.io/hostname": "node-a",
      "example.io/os": "linux",
      "example.io/arch": "arm64",
      "beta.example.io/os": "linux",
      "beta.example.io/arch": "amd64",
      "node.example.io/role": "worker",
    });
    expect(n.metadata?.annotations).toEqual({ [ControllerManagedAttachDetachAnnotation]: "true" });
    expect(n.spec).toEqual({ taints: [{ key: "dedicated", value: "batch", effect: "NoSchedule" }, { key: "gpu", effect: "NoExecute" }] });
  });

  it("--register-schedulable=false: unschedulable plus the unschedulable taint; provider ID and pod CIDR", () => {
    const n = buildInitialNode({ ...params, taints: [], registerSchedulable: false, controllerAttachDetach: false, providerID: "skiff://a", podCIDR: "10.0.0.0/24" });
    expect(n.metadata?.annotations).toBeUndefined();
    expect(n.spec).toEqual({ unschedulable: true, taints: [{ key: "node.example.io/unschedulable", effect: "NoSchedule" }], providerID: "skiff://a", podCIDR: "10.0.0.0/24", podCIDRs: ["10.0.0.0/24"] });
  });

  it("--keep-terminated-pod-volumes adds its annotation; --cloud-provider=external the uninitialized taint", () => {
    const n = buildInitialNode({ ...params, taints: [], keepTerminatedPodVolumes: true, cloudProvider: "external" });
    expect(n.metadata?.annotations).toEqual({ [ControllerManagedAttachDetachAnnotation]: "true", [KeepTerminatedPodVolumesAnnotation]: "true" });
    expect(KeepTerminatedPodVolumesAnnotation).toBe("volumes.example.io/keep-terminated-pod-volumes");
    expect(n.spec?.taints).toEqual([{ key: CloudProviderUninitializedTaintKey, value: "true", effect: "NoSchedule" }]);
    expect(CloudProviderUninitializedTaintKey).toBe("node.cloudprovider.example.io/uninitialized");
    expect(buildInitialNode({ ...params, taints: [], cloudProvider: "gce" }).spec?.taints).toBeUndefined();
  });

  it("does not add the unschedulable taint twice when --register-with-taints already has it", () => {
    const n = buildInitialNode({ ...params, taints: [{ key: "node.example.io/unschedulable", effect: "NoSchedule" }], registerSchedulable: false });
    expect(n.spec?.taints).toEqual([{ key: "node.example.io/unschedulable", effect: "NoSchedule" }]);
  });

  it("maps Node's arch names to Go's", () => {
    expect(goArch("x64")).toBe("amd64");
    expect(goArch("ia32")).toBe("386");
    expect(goArch("arm64")).toBe("arm64");
  });
});

describe("reconcileExistingNode", () => {
  it("only fixes the default labels and the attach-detach annotation; other labels and taints stay", () => {
    const initial = buildInitialNode(params);
    const existing: Node = { metadata: { name: "node-a", labels: { "example.io/hostname": "old", "example.io/os": "linux", "example.io/arch": "arm64", extra: "kept" } }, spec: { taints: [] } };
    expect(reconcileExistingNode(initial, existing)).toEqual({
      labels: { "example.io/hostname": "node-a", "beta.example.io/os": "linux", "beta.example.io/arch": "amd64" },
      annotations: { [ControllerManagedAttachDetachAnnotation]: "true" },
    });
    const same: Node = { metadata: { name: "node-a", labels: { ...initial.metadata?.labels, extra: "x" }, annotations: { [ControllerManagedAttachDetachAnnotation]: "true" } } };
    expect(reconcileExistingNode(initial, same)).toBeUndefined();
    const noCMAD = buildInitialNode({ ...params, controllerAttachDetach: false });
    expect(reconcileExistingNode(noCMAD, same)).toEqual({ annotations: { [ControllerManagedAttachDetachAnnotation]: null } });
  });
});

const inputs: NodeStatusInputs = {
  resources: { capacity: { cpu: "2" }, allocatable: { cpu: "1900m" } },
  addresses: buildNodeAddresses("", "10.1.2.3", "node-a"),
  nodeInfo: { machineID: "m", systemUUID: "", bootID: "b", kernelVersion: "6", osImage: "Debian", containerRuntimeVersion: "x://1", kubeletVersion: "v1.23.0-skiff.0", kubeProxyVersion: "v1.23.0-skiff.0", operatingSystem: "linux", architecture: "amd64" },
  port: 10250,
  notReadyReasons: [],
  pressure: { memory: false, disk: false, pid: false },
  now: "2026-01-01T00:00:00Z",
};

describe("buildNodeStatus", () => {
  it("reports Ready and no pressure, with endpoints, addresses and nodeInfo", () => {
    const { status, transitions } = buildNodeStatus(inputs, undefined);
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["MemoryPressure", "False", "NodeAgentHasSufficientMemory"],
      ["DiskPressure", "False", "NodeAgentHasNoDiskPressure"],
      ["PIDPressure", "False", "NodeAgentHasSufficientPID"],
      ["Ready", "True", "NodeAgentReady"],
    ]);
    expect(status.conditions?.[3]?.message).toBe("nodeagent is posting ready status");
    expect(status.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
    expect(status.addresses).toEqual([{ type: "InternalIP", address: "10.1.2.3" }, { type: "Hostname", address: "node-a" }]);
    expect(status.allocatable).toEqual({ cpu: "1900m" });
    expect(transitions.map((t) => t.eventReason)).toEqual(["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID", "NodeReady"]);
  });

  it("keeps lastTransitionTime until the status changes; NotReady joins several reasons as Go's aggregate", () => {
    const first = buildNodeStatus(inputs, undefined).status;
    const same = buildNodeStatus({ ...inputs, now: "2026-01-01T00:00:10Z" }, first);
    expect(same.transitions).toEqual([]);
    expect(same.status.conditions?.[3]).toMatchObject({ lastHeartbeatTime: "2026-01-01T00:00:10Z", lastTransitionTime: "2026-01-01T00:00:00Z" });
    const down = buildNodeStatus({ ...inputs, now: "2026-01-01T00:00:20Z", notReadyReasons: ["container runtime is down"], pressure: { memory: true, disk: false, pid: false } }, same.status);
    expect(down.status.conditions?.[3]).toMatchObject({ status: "False", reason: "NodeAgentNotReady", message: "container runtime is down", lastTransitionTime: "2026-01-01T00:00:20Z" });
    expect(down.status.conditions?.[0]).toMatchObject({ status: "True", reason: "NodeAgentHasInsufficientMemory" });
    expect(down.transitions.map((t) => t.eventReason)).toEqual(["NodeHasInsufficientMemory", "NodeNotReady"]);
    const two = buildNodeStatus({ ...inputs, notReadyReasons: ["a", "b"] }, undefined);
    expect(two.status.conditions?.[3]?.message).toBe("[a, b]");
  });
});

describe("buildNodeAddresses", () => {
  it("uses --node-ip (each of a dual-stack pair) else the fallback, then the host name", () => {
    expect(buildNodeAddresses("192.168.1.5", "10.0.0.1", "h")).toEqual([{ type: "InternalIP", address: "192.168.1.5" }, { type: "Hostname", address: "h" }]);
    expect(buildNodeAddresses("10.0.0.5, fd00::5", "x", "h").map((a) => a.address)).toEqual(["10.0.0.5", "fd00::5", "h"]);
    // Entries that are not IPs are ignored ("Could not parse --node-ip ignoring").
    expect(buildNodeAddresses("nope,10.0.0.5", "x", "h").map((a) => a.address)).toEqual(["10.0.0.5", "h"]);
  });
});

describe("status.images (buildNodeImages)", () => {
  const img = (id: string, size: number, tags: string[], digests: string[] = []) => ({ id, repoTags: tags, repoDigests: digests, size: String(size) });
  const images = [img("sha256:small", 10, ["small:1"]), img("sha256:big", 300, ["big:1", "big:latest"], ["big@sha256:d"]), img("sha256:mid", 200, ["mid:1"])];

  it("sorts largest first and names each by digests then tags", () => {
    expect(buildNodeImages(images, 50)).toEqual([
      { names: ["big@sha256:d", "big:1", "big:latest"], sizeBytes: 300 },
      { names: ["mid:1"], sizeBytes: 200 },
      { names: ["small:1"], sizeBytes: 10 },
    ]);
  });

  it("keeps at most --node-status-max-images (-1 all, 0 none) and five names per image", () => {
    expect(buildNodeImages(images, 2).map((i) => i.sizeBytes)).toEqual([300, 200]);
    expect(buildNodeImages(images, -1)).toHaveLength(3);
    expect(buildNodeImages(images, 0)).toEqual([]);
    expect(buildNodeImages([img("x", 1, ["a", "b", "c", "d"], ["e", "f"])], 1)[0]?.names).toEqual(["e", "f", "a", "b", "c"]);
  });

  it("is left out of the status when empty, set when given", () => {
    const base = { resources: { capacity: {}, allocatable: {} }, addresses: [], nodeInfo: {} as never, port: 1, notReadyReasons: [], pressure: { memory: false, disk: false, pid: false }, now: "2026-01-01T00:00:00Z" } as never;
    expect(buildNodeStatus({ ...(base as object), images: [] } as never, undefined).status.images).toBeUndefined();
    expect(buildNodeStatus({ ...(base as object), images: [{ names: ["a"], sizeBytes: 1 }] } as never, undefined).status.images).toEqual([{ names: ["a"], sizeBytes: 1 }]);
  });
});

describe("device plugin resources in node status (withDevicePluginResources)", () => {
  it("sets capacity to all devices, allocatable to healthy ones, and a removed resource to 0, as 1.23's MachineInfo", () => {
    const base = { capacity: { cpu: "4" }, allocatable: { cpu: "4" } };
    expect(withDevicePluginResources(base, { capacity: { "example.com/foo": 3 }, allocatable: { "example.com/foo": 2 }, removed: ["example.com/gone"] })).toEqual({
      capacity: { cpu: "4", "example.com/foo": "3", "example.com/gone": "0" },
      allocatable: { cpu: "4", "example.com/foo": "2", "example.com/gone": "0" },
    });
    expect(withDevicePluginResources(base, undefined)).toBe(base);
  });
});

