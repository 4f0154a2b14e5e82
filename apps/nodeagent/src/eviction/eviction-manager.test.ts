import { describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import type { PodStats, Summary } from "../stats/types.js";
import { EvictionManager } from "./eviction-manager.js";
import { evictionMessage, makeSignalObservations, parseThresholdConfig, rankMemoryPressure, thresholdsMet, ThresholdConfigError } from "./helpers.js";
import type { ThresholdSettings } from "./helpers.js";

const t = "2026-01-01T00:00:00Z";
const Mi = 1024 * 1024;

function settings(s: Partial<ThresholdSettings>): ThresholdSettings {
  return { evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {}, enforceNodeAllocatable: [], ...s };
}

function pod(name: string, o: { priority?: number; memoryRequest?: string; cpuRequest?: string; static?: boolean } = {}): Pod {
  const requests: Record<string, string> = {};
  if (o.memoryRequest) requests.memory = o.memoryRequest;
  if (o.cpuRequest) requests.cpu = o.cpuRequest;
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}`, ...(o.static ? { annotations: { "example.io/config.source": "file" } } : {}) },
    spec: { containers: [{ name: "c", image: "busybox", ...(Object.keys(requests).length > 0 ? { resources: { requests } } : {}) }], ...(o.priority !== undefined ? { priority: o.priority } : {}) },
  } as Pod;
}

function podStats(name: string, workingSetBytes: number, extra: Partial<PodStats> = {}): PodStats {
  return { podRef: { name, namespace: "default", uid: `uid-${name}` }, startTime: t, containers: [{ name: "c", startTime: t, memory: { time: t, workingSetBytes } }], ...extra };
}

function summary(o: { memAvailable?: number; memWorkingSet?: number; fsAvailable?: number; fsCapacity?: number; time?: string; pods?: PodStats[] }): Summary {
  const time = o.time ?? t;
  return {
    node: {
      nodeName: "n",
      startTime: t,
      memory: { time, availableBytes: o.memAvailable ?? 1000 * Mi, workingSetBytes: o.memWorkingSet ?? 1000 * Mi },
      fs: { time, availableBytes: o.fsAvailable ?? 50_000 * Mi, capacityBytes: o.fsCapacity ?? 100_000 * Mi, inodesFree: 1000, inodes: 2000 },
      rlimit: { time, maxpid: 1000, curproc: 100 },
    },
    pods: o.pods ?? [],
  };
}

describe("parseThresholdConfig", () => {
  it("reads hard and soft thresholds, grace periods, minimum reclaim and the allocatable copy", () => {
    const th = parseThresholdConfig(
      settings({
        evictionHard: { "memory.available": "100Mi", "nodefs.available": "10%", "imagefs.available": "0%" },
        evictionSoft: { "memory.available": "300Mi" },
        evictionSoftGracePeriod: { "memory.available": "1m30s" },
        evictionMinimumReclaim: { "memory.available": "50Mi" },
        enforceNodeAllocatable: ["pods"],
      }),
    );
    expect(th).toEqual([
      { signal: "memory.available", value: { quantity: 100 * Mi }, gracePeriodMs: 0, minReclaim: { quantity: 50 * Mi } },
      { signal: "nodefs.available", value: { percentage: 0.1 }, gracePeriodMs: 0 },
      { signal: "memory.available", value: { quantity: 300 * Mi }, gracePeriodMs: 90_000, minReclaim: { quantity: 50 * Mi } },
      { signal: "allocatableMemory.available", value: { quantity: 100 * Mi }, gracePeriodMs: 0, minReclaim: { quantity: 50 * Mi } },
    ]);
  });

  it("refuses a soft threshold without a grace period and unknown signals with 1.23's messages", () => {
    expect(() => parseThresholdConfig(settings({ evictionSoft: { "memory.available": "1Gi" } }))).toThrow(new ThresholdConfigError("grace period must be specified for the soft eviction threshold memory.available"));
    expect(() => parseThresholdConfig(settings({ evictionHard: { "disk.available": "1Gi" } }))).toThrow("unsupported eviction signal disk.available");
  });
});

describe("signals and thresholds", () => {
  it("observes memory.available as capacity minus working set, pid.available as maxpid minus curproc", () => {
    const { observations } = makeSignalObservations(summary({ memAvailable: 300 * Mi, memWorkingSet: 700 * Mi }));
    expect(observations.get("memory.available")).toMatchObject({ available: 300 * Mi, capacity: 1000 * Mi });
    expect(observations.get("pid.available")).toMatchObject({ available: 900, capacity: 1000 });
    expect(observations.get("nodefs.inodesFree")).toMatchObject({ available: 1000, capacity: 2000 });
    expect(observations.has("imagefs.available")).toBe(false);
  });

  it("meets quantity and percentage thresholds, and keeps a met threshold until minimum reclaim", () => {
    const th = parseThresholdConfig(settings({ evictionHard: { "memory.available": "100Mi", "nodefs.available": "60%" }, evictionMinimumReclaim: { "memory.available": "50Mi" } }));
    const obs = makeSignalObservations(summary({ memAvailable: 120 * Mi, fsAvailable: 50_000 * Mi })).observations;
    expect(thresholdsMet(th, obs, false).map((x) => x.signal)).toEqual(["nodefs.available"]);
    // 120Mi is above 100Mi but below 100Mi + 50Mi of minimum reclaim.
    expect(thresholdsMet(th, obs, true).map((x) => x.signal)).toEqual(["memory.available", "nodefs.available"]);
  });
});

describe("ranking and messages", () => {
  it("ranks pods over their memory request first, then lower priority, then usage above request", () => {
    const pods = [pod("guaranteed-ish", { memoryRequest: "500Mi" }), pod("high", { priority: 1000 }), pod("low-small"), pod("low-big")];
    const stats = new Map([
      ["uid-guaranteed-ish", podStats("guaranteed-ish", 400 * Mi)],
      ["uid-high", podStats("high", 900 * Mi)],
      ["uid-low-small", podStats("low-small", 10 * Mi)],
      ["uid-low-big", podStats("low-big", 20 * Mi)],
    ]);
    rankMemoryPressure(pods, (p) => stats.get(p.metadata?.uid ?? ""));
    expect(pods.map((p) => p.metadata?.name)).toEqual(["low-big", "low-small", "high", "guaranteed-ish"]);
  });

  it("writes 1.23's message with the usage in binary units and the request", () => {
    const s = podStats("x", 1234 * 1024);
    expect(evictionMessage("memory", pod("x"), () => s)).toBe("The node was low on resource: memory. Container c was using 1234Ki, which exceeds its request of 0. ");
    expect(evictionMessage("memory", pod("x", { memoryRequest: "1Mi" }), () => s)).toBe("The node was low on resource: memory. Container c was using 1234Ki, which exceeds its request of 1Mi. ");
    expect(evictionMessage("memory", pod("x", { memoryRequest: "2Mi" }), () => s)).toBe("The node was low on resource: memory. ");
  });
});

interface Harness {
  manager: EvictionManager;
  evicted: { name: string; grace: number | undefined; message: string }[];
  events: string[];
  reclaims: string[];
  setNow: (ms: number) => void;
  setSummary: (s: Summary) => void;
  /** The `podsCpuAndMemoryOnly` argument of each summary call, in order. */
  summaryCalls: boolean[];
}

function harness(s: Partial<ThresholdSettings>, pods: Pod[], o: { transitionMs?: number; maxPodGrace?: number; reclaimFrees?: () => void; localStorageCapacityIsolation?: boolean } = {}): Harness {
  let now = 1_000_000;
  let current = summary({});
  const summaryCalls: boolean[] = [];
  const evicted: Harness["evicted"] = [];
  const events: string[] = [];
  const reclaims: string[] = [];
  const manager = new EvictionManager({
    thresholds: parseThresholdConfig(settings(s)),
    pressureTransitionPeriodMs: o.transitionMs ?? 300_000,
    maxPodGracePeriodSeconds: o.maxPodGrace ?? 0,
    summary: async (_updateStats, podsCpuAndMemoryOnly) => {
      summaryCalls.push(podsCpuAndMemoryOnly === true);
      return current;
    },
    ...(o.localStorageCapacityIsolation !== undefined ? { localStorageCapacityIsolation: o.localStorageCapacityIsolation } : {}),
    hasDedicatedImageFs: async () => false,
    activePods: () => pods.filter((p) => !evicted.some((e) => e.name === p.metadata?.name)),
    evictPod: async (p, grace, message) => void evicted.push({ name: p.metadata?.name ?? "", grace, message }),
    deleteAllUnusedContainers: async () => void reclaims.push("containers"),
    deleteUnusedImages: async () => {
      reclaims.push("images");
      o.reclaimFrees?.();
    },
    recordPodEvent: (p, type, reason, message) => events.push(`${type} ${reason} ${p.metadata?.name ?? ""}: ${message}`),
    recordNodeEvent: (type, reason, message) => events.push(`${type} ${reason} node: ${message}`),
    clock: () => now,
    log: () => {},
  });
  return { manager, evicted, events, reclaims, setNow: (ms) => (now = ms), setSummary: (x) => (current = x), summaryCalls };
}

const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("EvictionManager", () => {
  it("under a hard memory threshold reports MemoryPressure, evicts one pod per cycle with grace 1 and refuses BestEffort pods", async () => {
    const pods = [pod("a", { cpuRequest: "10m" }), pod("b", { cpuRequest: "10m" })];
    const h = harness({ evictionHard: { "memory.available": "500Mi" } }, pods);
    h.setSummary(summary({ memAvailable: 100 * Mi, time: at(1_000_000), pods: [podStats("a", 5 * Mi), podStats("b", 50 * Mi)] }));
    expect(await h.manager.synchronize()).toHaveLength(1);
    expect(h.manager.nodeConditions()).toEqual(["MemoryPressure"]);
    expect(h.evicted).toEqual([{ name: "b", grace: 1, message: "The node was low on resource: memory. Container c was using 50Mi, which exceeds its request of 0. " }]);
    expect(h.events).toEqual([
      "Warning EvictionThresholdMet node: Attempting to reclaim memory",
      "Warning Evicted b: The node was low on resource: memory. Container c was using 50Mi, which exceeds its request of 0. ",
    ]);
    expect(h.reclaims).toEqual([]);
    expect(h.manager.admit(pod("be"))).toEqual({ admit: false, reason: "Evicted", message: "The node had condition: [MemoryPressure]. " });
    expect(h.manager.admit(pod("burstable", { cpuRequest: "1m" }))).toEqual({ admit: true });
    expect(h.manager.admit(pod("static-be", { static: true }))).toEqual({ admit: true });
    // The same (stale) measurement does not evict again.
    h.setNow(1_010_000);
    expect(await h.manager.synchronize()).toEqual([]);
    h.setSummary(summary({ memAvailable: 100 * Mi, time: at(1_010_000), pods: [podStats("a", 5 * Mi)] }));
    expect((await h.manager.synchronize()).map((p) => p.metadata?.name)).toEqual(["a"]);
  });

  it("reads the pods' disk usage only for a pod with a local storage limit or to rank pods once a threshold is met", async () => {
    const plain = [pod("a", { cpuRequest: "10m" }), pod("b", { cpuRequest: "10m" })];
    const h = harness({ evictionHard: { "memory.available": "500Mi" } }, plain, { localStorageCapacityIsolation: true });
    h.setSummary(summary({ memAvailable: 900 * Mi, time: at(1_000_000), pods: [podStats("a", 5 * Mi), podStats("b", 50 * Mi)] }));
    expect(await h.manager.synchronize()).toEqual([]);
    expect(h.summaryCalls).toEqual([true]);
    // A threshold met: the ranking and the message get the whole summary.
    h.setNow(1_010_000);
    h.setSummary(summary({ memAvailable: 100 * Mi, time: at(1_010_000), pods: [podStats("a", 5 * Mi), podStats("b", 50 * Mi)] }));
    expect((await h.manager.synchronize()).map((p) => p.metadata?.name)).toEqual(["b"]);
    expect(h.summaryCalls).toEqual([true, true, false]);
    expect(h.evicted[0]?.message).toBe("The node was low on resource: memory. Container c was using 50Mi, which exceeds its request of 0. ");
    // A pod with an ephemeral-storage limit (or an emptyDir sizeLimit): every pass reads it all.
    for (const limited of [
      { ...pod("l"), spec: { containers: [{ name: "c", image: "busybox", resources: { limits: { "ephemeral-storage": "1Gi" } } }] } } as Pod,
      { ...pod("e"), spec: { containers: [{ name: "c", image: "busybox" }], volumes: [{ name: "v", emptyDir: { sizeLimit: "1Mi" } }] } } as Pod,
    ]) {
      const l = harness({ evictionHard: { "memory.available": "500Mi" } }, [limited], { localStorageCapacityIsolation: true });
      l.setSummary(summary({ memAvailable: 900 * Mi }));
      await l.manager.synchronize();
      expect(l.summaryCalls).toEqual([false]);
    }
    // Without local storage isolation the limits are not looked at.
    const off = harness({ evictionHard: { "memory.available": "500Mi" } }, [{ ...pod("l"), spec: { containers: [{ name: "c", image: "busybox", resources: { limits: { "ephemeral-storage": "1Gi" } } }] } } as Pod], { localStorageCapacityIsolation: false });
    await off.manager.synchronize();
    expect(off.summaryCalls).toEqual([true]);
  });

  it("keeps the condition for the transition period after the signal recovers, then clears it", async () => {
    const h = harness({ evictionHard: { "memory.available": "500Mi" } }, [], { transitionMs: 60_000 });
    h.setSummary(summary({ memAvailable: 100 * Mi, time: at(1_000_000) }));
    await h.manager.synchronize();
    expect(h.manager.nodePressure()).toEqual({ memory: true, disk: false, pid: false });
    h.setNow(1_030_000);
    h.setSummary(summary({ memAvailable: 900 * Mi, time: at(1_030_000) }));
    await h.manager.synchronize();
    expect(h.manager.nodeConditions()).toEqual(["MemoryPressure"]);
    h.setNow(1_061_000);
    await h.manager.synchronize();
    expect(h.manager.nodeConditions()).toEqual([]);
    expect(h.manager.admit(pod("be"))).toEqual({ admit: true });
  });

  it("waits a soft threshold's grace period and evicts with --eviction-max-pod-grace-period", async () => {
    const h = harness({ evictionSoft: { "memory.available": "500Mi" }, evictionSoftGracePeriod: { "memory.available": "30s" } }, [pod("a")], { maxPodGrace: 7 });
    h.setSummary(summary({ memAvailable: 100 * Mi, time: at(1_000_000), pods: [podStats("a", 5 * Mi)] }));
    expect(await h.manager.synchronize()).toEqual([]);
    expect(h.manager.nodeConditions()).toEqual(["MemoryPressure"]);
    h.setNow(1_031_000);
    h.setSummary(summary({ memAvailable: 100 * Mi, time: at(1_031_000), pods: [podStats("a", 5 * Mi)] }));
    expect(await h.manager.synchronize()).toHaveLength(1);
    expect(h.evicted[0]?.grace).toBe(7);
  });

  it("reclaims dead containers and unused images before evicting for a disk signal", async () => {
    const h: Harness = harness({ evictionHard: { "nodefs.available": "60%" } }, [pod("a")], {
      reclaimFrees: () => h.setSummary(summary({ fsAvailable: 70_000 * Mi, time: at(1_000_000) })),
    });
    h.setSummary(summary({ fsAvailable: 50_000 * Mi, time: at(1_000_000), pods: [podStats("a", 1)] }));
    expect(await h.manager.synchronize()).toEqual([]);
    expect(h.reclaims).toEqual(["containers", "images"]);
    expect(h.manager.nodeConditions()).toEqual(["DiskPressure"]);
    expect(h.manager.admit(pod("burstable", { cpuRequest: "1m" }))).toEqual({ admit: false, reason: "Evicted", message: "The node had condition: [DiskPressure]. " });
    expect(h.evicted).toEqual([]);
  });

  it("never evicts a critical (static) pod", async () => {
    const h = harness({ evictionHard: { "pid.available": "95%" } }, [pod("s", { static: true })]);
    h.setSummary(summary({ time: at(1_000_000), pods: [podStats("s", 1)] }));
    expect(await h.manager.synchronize()).toEqual([]);
    expect(h.manager.nodeConditions()).toEqual(["PIDPressure"]);
    expect(h.evicted).toEqual([]);
  });
});
