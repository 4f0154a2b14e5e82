import type { Node, Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { admitPod, admitPodOnNode, admitPodOS, nodeOS } from "./admission.js";

const pod = (uid: string, requests?: Record<string, string>, init?: Record<string, string>): Pod => ({
  metadata: { name: uid, namespace: "default", uid },
  spec: { containers: [{ name: "c", image: "busybox", ...(requests ? { resources: { requests } } : {}) }], ...(init ? { initContainers: [{ name: "i", image: "busybox", resources: { requests: init } }] } : {}) },
});

// pkg/scheduler/framework/plugins/noderesources/fit_test.go and pkg/kubelet/lifecycle/predicate_test.go, 1.23
describe("admitPod", () => {
  const alloc = { cpuMilli: 1000n, memoryBytes: 1000n * 1024n * 1024n, pods: 2 };
  it("admits N pods with --max-pods=N: the new pod does not count itself", () => {
    expect(admitPod(pod("a"), [], { pods: 2 })).toEqual({ admit: true });
    expect(admitPod(pod("b"), [pod("a")], { pods: 2 })).toEqual({ admit: true });
    expect(admitPod(pod("c"), [pod("a"), pod("b")], { pods: 2 })).toEqual({
      admit: false,
      reason: "OutOfpods",
      message: "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
    });
  });
  it("rejects a pod asking for more CPU than is left, in milli-cores", () => {
    expect(admitPod(pod("a", { cpu: "2" }), [], alloc)).toEqual({ admit: false, reason: "OutOfcpu", message: "Node didn't have enough resource: cpu, requested: 2000, used: 0, capacity: 1000" });
    expect(admitPod(pod("b", { cpu: "600m" }), [pod("a", { cpu: "500m" })], alloc)).toEqual({
      admit: false,
      reason: "OutOfcpu",
      message: "Node didn't have enough resource: cpu, requested: 600, used: 500, capacity: 1000",
    });
    expect(admitPod(pod("b", { cpu: "500m" }), [pod("a", { cpu: "500m" })], alloc)).toEqual({ admit: true });
  });
  it("rejects a pod asking for more memory than is left, in bytes", () => {
    expect(admitPod(pod("a", { memory: "2000Mi" }), [], alloc)).toEqual({
      admit: false,
      reason: "OutOfmemory",
      message: `Node didn't have enough resource: memory, requested: ${2000 * 1024 * 1024}, used: 0, capacity: ${1000 * 1024 * 1024}`,
    });
  });
  it("rejects a pod asking for more ephemeral storage than is left", () => {
    expect(admitPod(pod("a", { "ephemeral-storage": "2Gi" }), [pod("b", { "ephemeral-storage": "1Gi" })], { ...alloc, ephemeralStorageBytes: 2n << 30n })).toEqual({
      admit: false,
      reason: "OutOfephemeral-storage",
      message: `Node didn't have enough resource: ephemeral-storage, requested: ${2 * 2 ** 30}, used: ${2 ** 30}, capacity: ${2 * 2 ** 30}`,
    });
  });
  it("counts the largest init container request", () => {
    expect(admitPod(pod("a", { cpu: "100m" }, { cpu: "1500m" }), [], alloc)).toMatchObject({ reason: "OutOfcpu", message: expect.stringContaining("requested: 1500,") });
  });
  it("checks pods before cpu and memory", () => {
    expect(admitPod(pod("c", { cpu: "5" }), [pod("a"), pod("b")], alloc)).toMatchObject({ reason: "OutOfpods" });
  });
  it("admits a pod without requests whatever is used", () => {
    expect(admitPod(pod("b"), [pod("a", { cpu: "1", memory: "1000Mi" })], alloc)).toEqual({ admit: true });
  });
});

describe("admitPod: device plugin resources", () => {
  const withFoo = (n: string): Pod => ({ metadata: { name: n, uid: n }, spec: { containers: [{ name: "c", image: "i", resources: { requests: { "example.com/foo": "1" }, limits: { "example.com/foo": "1" } } }] } }) as Pod;
  it("rejects OutOf<resource> beyond the device plugin allocatable, and ignores extended resources the node does not list", () => {
    const allocatable = { pods: 110, extendedResources: new Map([["example.com/foo", 1n]]) };
    expect(admitPod(withFoo("a"), [], allocatable)).toEqual({ admit: true });
    expect(admitPod(withFoo("b"), [withFoo("a")], allocatable)).toEqual({ admit: false, reason: "OutOfexample.com/foo", message: "Node didn't have enough resource: example.com/foo, requested: 1, used: 1, capacity: 1" });
    expect(admitPod(withFoo("b"), [withFoo("a")], { pods: 110 })).toEqual({ admit: true });
  });
});

// pkg/kubelet/lifecycle/predicate.go (rejectPodAdmissionBasedOnOSSelector, rejectPodAdmissionBasedOnOSField), 1.23
describe("admitPodOS", () => {
  const withOS = (os?: string, label?: string): Pod => ({
    metadata: { name: "p", namespace: "default", uid: "p", ...(label !== undefined ? { labels: { "example.io/os": label } } : {}) },
    spec: { containers: [{ name: "c", image: "busybox" }], ...(os !== undefined ? { os: { name: os } } : {}) },
  });
  it("admits a pod without OS, or naming the node's OS in its field and its label", () => {
    expect(admitPodOS(withOS(), "linux")).toEqual({ admit: true });
    expect(admitPodOS(withOS("linux", "linux"), "linux")).toEqual({ admit: true });
    expect(admitPodOS(withOS("windows"), "windows")).toEqual({ admit: true });
  });
  it("refuses a pod whose own example.io/os label names another OS, before its field", () => {
    expect(admitPodOS(withOS("windows", "windows"), "linux")).toEqual({
      admit: false,
      reason: "PodOSSelectorNodeLabelDoesNotMatch",
      message: "Failed to admit pod as the `example.io/os` label doesn't match node label",
    });
  });
  it("refuses a pod whose spec.os names another OS", () => {
    expect(admitPodOS(withOS("windows"), "linux")).toEqual({ admit: false, reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS" });
  });
  it("reads the pod's labels, not its node selector", () => {
    const p = withOS();
    p.spec = { ...p.spec, containers: p.spec?.containers ?? [], nodeSelector: { "example.io/os": "windows" } };
    expect(admitPodOS(p, "linux")).toEqual({ admit: true });
  });
  it("defaults to this machine's OS", () => {
    expect(nodeOS).toBe("linux");
    expect(admitPodOS(withOS("windows")).admit).toBe(false);
  });
});

// pkg/kubelet/lifecycle/predicate.go (generalFilter) and predicate_test.go, 1.23
describe("admitPodOnNode", () => {
  const node: Node = {
    metadata: { name: "node-a", labels: { "example.io/hostname": "node-a", zone: "z1" } },
    spec: { taints: [{ key: "dedicated", value: "batch", effect: "NoExecute" }, { key: "soft", effect: "NoSchedule" }] },
  };
  const tolerating = [{ key: "dedicated", operator: "Exists" as const, effect: "NoExecute" as const }];
  const withSpec = (spec: Partial<NonNullable<Pod["spec"]>>, uid = "p"): Pod => ({ metadata: { name: uid, namespace: "default", uid }, spec: { containers: [{ name: "c", image: "busybox" }], tolerations: tolerating, ...spec } });
  const hostPort = (port: number, hostIP?: string) => [{ name: "c", image: "busybox", ports: [{ containerPort: 80, hostPort: port, ...(hostIP ? { hostIP } : {}) }] }];
  const failed = (name: string) => ({ admit: false, reason: name, message: `Predicate ${name} failed` });

  it("admits a pod whose selector, node name, host ports and NoExecute tolerations fit (NoSchedule taints are not the node's business)", () => {
    expect(admitPodOnNode(withSpec({ nodeSelector: { zone: "z1" }, nodeName: "node-a", containers: hostPort(8080) }), node, [withSpec({ containers: hostPort(8081) }, "other")], false)).toEqual({ admit: true });
  });
  it("NodeAffinity: the nodeSelector or the required node affinity does not match the node's labels", () => {
    expect(admitPodOnNode(withSpec({ nodeSelector: { zone: "z2" } }), node, [], false)).toEqual(failed("NodeAffinity"));
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "gpu", operator: "Exists" as const }] }] } } };
    expect(admitPodOnNode(withSpec({ affinity }), node, [], true)).toEqual(failed("NodeAffinity"));
  });
  it("NodeName: a pod bound to another node", () => {
    expect(admitPodOnNode(withSpec({ nodeName: "node-b" }), node, [], false)).toEqual(failed("NodeName"));
  });
  it("NodePorts: a host port an active pod holds (same protocol, overlapping IP)", () => {
    expect(admitPodOnNode(withSpec({ containers: hostPort(8080) }), node, [withSpec({ containers: hostPort(8080) }, "other")], false)).toEqual(failed("NodePorts"));
    expect(admitPodOnNode(withSpec({ containers: hostPort(8080, "127.0.0.1") }), node, [withSpec({ containers: hostPort(8080, "127.0.0.2") }, "other")], false)).toEqual({ admit: true });
  });
  it("TaintToleration: an untolerated NoExecute taint refuses a pod from the API, never a static pod", () => {
    expect(admitPodOnNode(withSpec({ tolerations: [] }), node, [], false)).toEqual(failed("TaintToleration"));
    expect(admitPodOnNode(withSpec({ tolerations: [] }), node, [], true)).toEqual({ admit: true });
  });
  it("reports the first failing check in 1.23's order: NodeAffinity, NodeName, NodePorts, TaintToleration", () => {
    const all = withSpec({ nodeSelector: { zone: "z2" }, nodeName: "node-b", containers: hostPort(8080), tolerations: [] });
    const active = [withSpec({ containers: hostPort(8080) }, "other")];
    expect(admitPodOnNode(all, node, active, false)).toEqual(failed("NodeAffinity"));
    expect(admitPodOnNode({ ...all, spec: { ...all.spec!, nodeSelector: {} } }, node, active, false)).toEqual(failed("NodeName"));
    expect(admitPodOnNode({ ...all, spec: { ...all.spec!, nodeSelector: {}, nodeName: "node-a" } }, node, active, false)).toEqual(failed("NodePorts"));
    expect(admitPodOnNode({ ...all, spec: { ...all.spec!, nodeSelector: {}, nodeName: "node-a" } }, node, [], false)).toEqual(failed("TaintToleration"));
  });
});
