import { describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import type { PodStats, Summary } from "../stats/types.js";
import { EvictionManager } from "./eviction-manager.js";
import { containerEphemeralStorageMessage, emptyDirLimitMessage, localStorageViolation, podEphemeralStorageMessage } from "./helpers.js";

const t = "2026-01-01T00:00:00Z";
const Mi = 1024 * 1024;

function pod(o: { sizeLimit?: string; containerLimits?: Array<string | undefined>; initLimit?: string; critical?: boolean } = {}): Pod {
  const limits = o.containerLimits ?? [undefined];
  return {
    metadata: { name: "p", namespace: "default", uid: "uid-p", ...(o.critical ? { annotations: { "example.io/config.source": "file" } } : {}) },
    spec: {
      ...(o.critical ? { priority: 2_000_001_000 } : {}),
      containers: limits.map((l, i) => ({ name: `c${i}`, image: "busybox", ...(l !== undefined ? { resources: { limits: { "ephemeral-storage": l } } } : {}) })),
      ...(o.initLimit !== undefined ? { initContainers: [{ name: "init", image: "busybox", resources: { limits: { "ephemeral-storage": o.initLimit } } }] } : {}),
      volumes: [{ name: "scratch", emptyDir: o.sizeLimit !== undefined ? { sizeLimit: o.sizeLimit } : {} }, { name: "cm", configMap: { name: "x" } }],
    },
  } as Pod;
}

function stats(o: { scratch?: number; total?: number; containers?: Array<{ rootfs?: number; logs?: number }> } = {}): PodStats {
  return {
    podRef: { name: "p", namespace: "default", uid: "uid-p" },
    startTime: t,
    containers: (o.containers ?? [{}]).map((c, i) => ({ name: `c${i}`, startTime: t, rootfs: { time: t, usedBytes: c.rootfs ?? 0 }, logs: { time: t, usedBytes: c.logs ?? 0 } })),
    volume: [{ time: t, name: "scratch", usedBytes: o.scratch ?? 0 }],
    ...(o.total !== undefined ? { "ephemeral-storage": { time: t, usedBytes: o.total } } : {}),
  };
}

describe("local storage messages (1.23's formats)", () => {
  it("quotes as Go's %q where 1.23 does", () => {
    expect(emptyDirLimitMessage("scratch", "1Mi")).toBe('Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ');
    expect(podEphemeralStorageMessage("2Mi")).toBe("Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ");
    expect(containerEphemeralStorageMessage("c0", "1M")).toBe('Container c0 exceeded its local ephemeral storage limit "1M". ');
  });
});

describe("localStorageViolation", () => {
  it("emptyDir: usage above a positive sizeLimit; equal is within; no sizeLimit or 0 never", () => {
    expect(localStorageViolation(pod({ sizeLimit: "1Mi" }), stats({ scratch: Mi + 1 }), false)).toBe('Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ');
    expect(localStorageViolation(pod({ sizeLimit: "1Mi" }), stats({ scratch: Mi }), false)).toBeUndefined();
    expect(localStorageViolation(pod(), stats({ scratch: 100 * Mi }), false)).toBeUndefined();
    expect(localStorageViolation(pod({ sizeLimit: "0" }), stats({ scratch: 100 * Mi }), false)).toBeUndefined();
    // The limit is written canonically (1.23's Quantity.String()).
    expect(localStorageViolation(pod({ sizeLimit: "1048576" }), stats({ scratch: 2 * Mi }), false)).toBe('Usage of EmptyDir volume "scratch" exceeds the limit "1048576". ');
    expect(localStorageViolation(pod({ sizeLimit: "1000k" }), stats({ scratch: 2 * Mi }), false)).toBe('Usage of EmptyDir volume "scratch" exceeds the limit "1M". ');
  });
  it("pod: the whole ephemeral-storage use against the sum of the containers' limits (only those that set one), max with init containers", () => {
    const p = pod({ containerLimits: ["1Mi", undefined, "1Mi"] });
    expect(localStorageViolation(p, stats({ total: 2 * Mi + 1, containers: [{}, {}, {}] }), false)).toBe("Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ");
    expect(localStorageViolation(p, stats({ total: 2 * Mi, containers: [{}, {}, {}] }), false)).toBeUndefined();
    expect(localStorageViolation(pod({ containerLimits: ["1Mi"], initLimit: "4Mi" }), stats({ total: 3 * Mi }), false)).toBeUndefined();
    // Not measured yet (no ephemeral-storage): 0 is used, as 1.23.
    expect(localStorageViolation(pod({ containerLimits: ["1Mi"] }), stats({}), false)).toBeUndefined();
  });
  it("container: logs plus the writable layer (logs alone with a dedicated image fs) against its own limit", () => {
    const p = pod({ containerLimits: ["10Mi", "1Mi"] });
    const s = stats({ total: 0, containers: [{ rootfs: 5 * Mi, logs: 5 * Mi }, { rootfs: Mi, logs: 1 }] });
    expect(localStorageViolation(p, s, false)).toBe('Container c1 exceeded its local ephemeral storage limit "1Mi". ');
    expect(localStorageViolation(p, s, true)).toBeUndefined();
    expect(localStorageViolation(p, stats({ total: 0, containers: [{}, { rootfs: 0, logs: Mi + 1 }] }), true)).toBe('Container c1 exceeded its local ephemeral storage limit "1Mi". ');
  });
  it("checks in 1.23's order: emptyDir, then pod, then container", () => {
    const p = pod({ sizeLimit: "1Mi", containerLimits: ["1Mi"] });
    expect(localStorageViolation(p, stats({ scratch: 2 * Mi, total: 9 * Mi, containers: [{ logs: 9 * Mi }] }), false)).toMatch(/^Usage of EmptyDir/);
    expect(localStorageViolation(p, stats({ scratch: 0, total: 9 * Mi, containers: [{ logs: 9 * Mi }] }), false)).toMatch(/^Pod ephemeral/);
  });
});

describe("EvictionManager local storage eviction", () => {
  const summary = (pods: PodStats[]): Summary => ({ node: { nodeName: "n", startTime: t, memory: { time: t, availableBytes: 1000 * Mi, workingSetBytes: 100 * Mi } }, pods });
  const manager = (p: Pod, s: PodStats, gate: boolean, evicted: Array<{ grace: number | undefined; message: string }>, events: string[]) =>
    new EvictionManager({
      thresholds: [],
      pressureTransitionPeriodMs: 300_000,
      maxPodGracePeriodSeconds: 30,
      summary: async () => summary([s]),
      hasDedicatedImageFs: async () => false,
      activePods: () => [p],
      evictPod: async (_p, grace, message) => void evicted.push({ grace, message }),
      recordPodEvent: (_p, type, reason, message) => events.push(`${type} ${reason}: ${message}`),
      localStorageCapacityIsolation: gate,
      log: () => {},
    });
  it("with the gate on (and no threshold at all), evicts the pod at once with grace 0 and an Evicted event", async () => {
    const evicted: Array<{ grace: number | undefined; message: string }> = [];
    const events: string[] = [];
    const m = manager(pod({ sizeLimit: "1Mi" }), stats({ scratch: 2 * Mi }), true, evicted, events);
    expect((await m.synchronize()).map((x) => x.metadata?.name)).toEqual(["p"]);
    expect(evicted).toEqual([{ grace: 0, message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' }]);
    expect(events).toEqual(['Warning Evicted: Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ']);
    expect(m.nodeConditions()).toEqual([]);
  });
  it("with the gate off nothing happens; critical pods are never evicted", async () => {
    const evicted: Array<{ grace: number | undefined; message: string }> = [];
    expect(await manager(pod({ sizeLimit: "1Mi" }), stats({ scratch: 2 * Mi }), false, evicted, []).synchronize()).toEqual([]);
    expect(await manager(pod({ sizeLimit: "1Mi", critical: true }), stats({ scratch: 2 * Mi }), true, evicted, []).synchronize()).toEqual([]);
    expect(evicted).toEqual([]);
  });
});
