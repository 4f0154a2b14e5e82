import type { Container, Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { containerOOMScoreAdjust, containerResources, milliCPUToQuota, milliCPUToShares, podQOSClass, podRequestsAndLimits } from "./resources.js";

type RL = Record<string, string>;
const ctr = (name: string, requests?: RL, limits?: RL): Container => ({ name, image: "busybox", resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });
const podOf = (containers: Container[], initContainers: Container[] = [], extra: Partial<NonNullable<Pod["spec"]>> & { overhead?: Record<string, string> } = {}): Pod => ({
  metadata: { name: "p", namespace: "default", uid: "u1" },
  spec: { containers, ...(initContainers.length > 0 ? { initContainers } : {}), ...extra },
});
const rl = (cpu: string, memory: string): RL => {
  const r: RL = {};
  if (cpu) r.cpu = cpu;
  if (memory) r.memory = memory;
  return r;
};

// pkg/apis/core/v1/helper/qos/qos_test.go (TestGetPodQOS), 1.23
describe("podQOSClass", () => {
  const cases: Array<{ name: string; pod: Pod; expected: string }> = [
    { name: "guaranteed", pod: podOf([ctr("guaranteed", rl("100m", "100Mi"), rl("100m", "100Mi"))]), expected: "Guaranteed" },
    { name: "guaranteed-guaranteed", pod: podOf([ctr("a", rl("100m", "100Mi"), rl("100m", "100Mi")), ctr("b", rl("100m", "100Mi"), rl("100m", "100Mi"))]), expected: "Guaranteed" },
    { name: "best-effort-best-effort", pod: podOf([ctr("a", rl("", ""), rl("", "")), ctr("b", rl("", ""), rl("", ""))]), expected: "BestEffort" },
    { name: "best-effort", pod: podOf([ctr("a", rl("", ""), rl("", ""))]), expected: "BestEffort" },
    { name: "best-effort-burstable", pod: podOf([ctr("a", rl("", ""), rl("", "")), ctr("b", rl("1", ""), rl("2", ""))]), expected: "Burstable" },
    { name: "best-effort-guaranteed", pod: podOf([ctr("a", rl("", ""), rl("", "")), ctr("b", rl("10m", "100Mi"), rl("10m", "100Mi"))]), expected: "Burstable" },
    { name: "burstable-cpu-guaranteed-memory", pod: podOf([ctr("a", rl("", "100Mi"), rl("", "100Mi"))]), expected: "Burstable" },
    { name: "burstable-no-limits", pod: podOf([ctr("a", rl("100m", "100Mi"), rl("", ""))]), expected: "Burstable" },
    { name: "burstable-guaranteed", pod: podOf([ctr("a", rl("1", "100Mi"), rl("2", "100Mi")), ctr("b", rl("100m", "100Mi"), rl("100m", "100Mi"))]), expected: "Burstable" },
    { name: "burstable-unbounded-but-requests-match-limits", pod: podOf([ctr("a", rl("100m", "100Mi"), rl("200m", "200Mi")), ctr("b", rl("100m", "100Mi"), rl("100m", ""))]), expected: "Burstable" },
    { name: "burstable-1", pod: podOf([ctr("a", rl("10m", "100Mi"), rl("10m", "100Mi")), ctr("b", rl("", ""), rl("", ""))]), expected: "Burstable" },
    { name: "burstable-2", pod: podOf([ctr("a", rl("0", "0"), rl("100m", ""))]), expected: "Burstable" },
    { name: "best-effort-hugepages-ignored-when-zero", pod: podOf([ctr("a", { cpu: "0", memory: "0" }, { cpu: "0", memory: "0" })]), expected: "BestEffort" },
    { name: "guaranteed-with-init", pod: podOf([ctr("a", rl("10m", "100Mi"), rl("10m", "100Mi"))], [ctr("i", rl("10m", "100Mi"), rl("10m", "100Mi"))]), expected: "Guaranteed" },
    { name: "burstable-init-without-limits", pod: podOf([ctr("a", rl("10m", "100Mi"), rl("10m", "100Mi"))], [ctr("i", rl("10m", "100Mi"))]), expected: "Burstable" },
    { name: "limits-only-guaranteed", pod: podOf([ctr("a", undefined, rl("1", "64Mi"))]), expected: "Burstable" },
    { name: "equal-in-different-units", pod: podOf([ctr("a", rl("1", "1Gi"), rl("1000m", "1024Mi"))]), expected: "Guaranteed" },
    { name: "extended-resources-ignored", pod: podOf([ctr("a", { "example.com/gpu": "1" }, { "example.com/gpu": "1" })]), expected: "BestEffort" },
  ];
  it.each(cases)("$name → $expected", ({ pod, expected }) => expect(podQOSClass(pod)).toBe(expected));
});

// pkg/kubelet/kuberuntime/helpers_linux_test.go (TestMilliCPUToQuota) and cm/helpers_linux_test.go, 1.23
describe("milliCPUToShares / milliCPUToQuota", () => {
  it.each([
    [0n, 2n],
    [1n, 2n],
    [2n, 2n],
    [3n, 3n],
    [100n, 102n],
    [1000n, 1024n],
    [500000n, 512000n],
  ])("shares(%s) = %s", (m, s) => expect(milliCPUToShares(m)).toBe(s));
  it.each([
    [0n, 100000n, 0n],
    [5n, 100000n, 1000n],
    [9n, 100000n, 1000n],
    [10n, 100000n, 1000n],
    [200n, 100000n, 20000n],
    [500n, 100000n, 50000n],
    [1000n, 100000n, 100000n],
    [1500n, 100000n, 150000n],
    [1500n, 10000n, 15000n],
    [1500n, 5000n, 7500n],
    [50n, 5000n, 1000n],
  ])("quota(%s, %s) = %s", (m, p, q) => expect(milliCPUToQuota(m, p)).toBe(q));
});

// pkg/kubelet/qos/policy_test.go (TestGetContainerOOMScoreAdjust), 1.23: standardMemoryAmount = 8000000000
describe("containerOOMScoreAdjust", () => {
  const memory = 8_000_000_000n;
  const cases: Array<{ name: string; pod: Pod; lo: number; hi: number }> = [
    { name: "cpu-limit (burstable)", pod: podOf([ctr("a", undefined, { cpu: "10" })]), lo: 999, hi: 999 },
    { name: "memory-limit-cpu-request (burstable)", pod: podOf([ctr("a", { cpu: "0" }, { memory: "10G" })]), lo: 999, hi: 999 },
    { name: "zero memory request", pod: podOf([ctr("a", { cpu: "1", memory: "0" })]), lo: 999, hi: 999 },
    { name: "best effort", pod: podOf([ctr("a")]), lo: 1000, hi: 1000 },
    { name: "guaranteed", pod: podOf([ctr("a", { cpu: "10", memory: "8000000000" }, { cpu: "10", memory: "8000000000" })]), lo: -997, hi: -997 },
    { name: "burstable 99%", pod: podOf([ctr("a", { memory: String(memory - 1n) }, { memory: String(memory) })]), lo: 3, hi: 3 },
    { name: "burstable requests all memory", pod: podOf([ctr("a", { memory: String(memory) })]), lo: 3, hi: 3 },
    { name: "burstable half", pod: podOf([ctr("a", { memory: "4000000000" })]), lo: 500, hi: 500 },
    { name: "critical node pod", pod: { ...podOf([ctr("a")], [], { priority: 2000001000, priorityClassName: "system-node-critical" }) }, lo: -997, hi: -997 },
    { name: "critical cluster pod is not node-critical", pod: podOf([ctr("a")], [], { priority: 2000000000, priorityClassName: "system-cluster-critical" }), lo: 1000, hi: 1000 },
  ];
  it.each(cases)("$name", ({ pod, lo, hi }) => {
    const v = containerOOMScoreAdjust(pod, pod.spec?.containers[0] as Container, memory);
    expect(v).toBeGreaterThanOrEqual(lo);
    expect(v).toBeLessThanOrEqual(hi);
  });
});

// pkg/kubelet/kuberuntime/kuberuntime_container_linux_test.go (TestGenerateContainerConfig / TestGenerateLinuxContainerConfigResources), 1.23
describe("containerResources", () => {
  const memoryCapacityBytes = 8_000_000_000n;
  it.each([
    { name: "request 128Mi/1 limit 256Mi/2", req: { cpu: "1", memory: "128Mi" }, lim: { cpu: "2", memory: "256Mi" }, want: { cpuShares: "1024", cpuQuota: "200000", cpuPeriod: "100000", memoryLimitInBytes: "268435456" } },
    { name: "limits only", req: undefined, lim: { cpu: "2", memory: "256Mi" }, want: { cpuShares: "2048", cpuQuota: "200000", cpuPeriod: "100000", memoryLimitInBytes: "268435456", oomScoreAdj: "999" } },
    { name: "request only", req: { cpu: "100m", memory: "64Mi" }, lim: undefined, want: { cpuShares: "102", cpuQuota: "0", cpuPeriod: "100000" } },
    { name: "nothing", req: undefined, lim: undefined, want: { cpuShares: "2", cpuQuota: "0", cpuPeriod: "100000", oomScoreAdj: "1000" } },
    { name: "tiny limit", req: undefined, lim: { cpu: "5m" }, want: { cpuShares: "5", cpuQuota: "1000", cpuPeriod: "100000" } },
  ])("$name", ({ req, lim, want }) => {
    const c = ctr("c", req, lim);
    const r = containerResources(podOf([c]), c, { memoryCapacityBytes });
    expect(r).toMatchObject(want);
    if (!lim?.memory) expect(r.memoryLimitInBytes).toBeUndefined();
  });
  it("sets no CFS quota or period without --cpu-cfs-quota", () => {
    const c = ctr("c", { cpu: "1" }, { cpu: "2" });
    const r = containerResources(podOf([c]), c, { memoryCapacityBytes, cpuCFSQuota: false });
    expect(r.cpuQuota).toBeUndefined();
    expect(r.cpuPeriod).toBeUndefined();
  });
  it("NodeSwap: the swap limit equals the memory limit (0 without one); without the gate it is not set", () => {
    const limited = ctr("c", { memory: "64Mi" }, { memory: "128Mi" });
    expect(containerResources(podOf([limited]), limited, { memoryCapacityBytes, nodeSwap: true }).memorySwapLimitInBytes).toBe("134217728");
    const open = ctr("c", undefined, undefined);
    expect(containerResources(podOf([open]), open, { memoryCapacityBytes, nodeSwap: true }).memorySwapLimitInBytes).toBe("0");
    expect(containerResources(podOf([limited]), limited, { memoryCapacityBytes }).memorySwapLimitInBytes).toBeUndefined();
  });
  it("uses --cpu-cfs-quota-period only with CustomCPUCFSQuotaPeriod", () => {
    const c = ctr("c", { cpu: "1" }, { cpu: "2" });
    expect(containerResources(podOf([c]), c, { memoryCapacityBytes, cpuCFSQuotaPeriodUs: 50_000n })).toMatchObject({ cpuPeriod: "100000", cpuQuota: "200000" });
    expect(containerResources(podOf([c]), c, { memoryCapacityBytes, cpuCFSQuotaPeriodUs: 50_000n, customCPUCFSQuotaPeriod: true })).toMatchObject({ cpuPeriod: "50000", cpuQuota: "100000" });
  });
  it("gives Burstable containers the OOM score of their memory request", () => {
    const c = ctr("c", { memory: "4000000000" }, { memory: "6000000000" });
    expect(containerResources(podOf([c]), c, { memoryCapacityBytes }).oomScoreAdj).toBe("500");
  });
});

describe("podRequestsAndLimits", () => {
  it("sums containers, takes the max of init containers, adds overhead to requests and existing limits", () => {
    const pod = podOf([ctr("a", { cpu: "100m", memory: "10Mi" }, { cpu: "200m" }), ctr("b", { cpu: "300m" })], [ctr("i", { cpu: "1", memory: "1Mi" })], { overhead: { cpu: "50m", memory: "1Mi" } });
    const { requests, limits } = podRequestsAndLimits(pod);
    expect(requests.get("cpu")).toBe(1050n);
    expect(requests.get("memory")).toBe((10n * 1024n * 1024n + 1024n * 1024n) * 1000n);
    expect(limits.get("cpu")).toBe(250n);
    expect(limits.has("memory")).toBe(false);
  });
});
