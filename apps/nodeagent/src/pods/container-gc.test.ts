import { describe, expect, it } from "vitest";
import { planContainerRemoval, planSandboxRemoval } from "./container-gc.js";
import type { GCContainer, PodStateProvider } from "./container-gc.js";

const alive: PodStateProvider = { shouldPodContentBeRemoved: () => false, shouldPodRuntimeBeRemoved: () => false };

function dead(pod: string, name: string, ...ages: number[]): GCContainer[] {
  return ages.map((created) => ({ id: `${pod}-${name}-${created}`, podUID: pod, name, createdAtMs: created }));
}

describe("planContainerRemoval", () => {
  it("keeps --maximum-dead-containers-per-container newest dead instances per container, oldest removed first", () => {
    const containers = [...dead("p1", "a", 10, 30, 20), ...dead("p1", "b", 5)];
    expect(planContainerRemoval(containers, { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, 100, true, false, alive)).toEqual(["p1-a-10", "p1-a-20"]);
    expect(planContainerRemoval(containers, { minAgeMs: 0, maxPerPodContainer: -1, maxContainers: -1 }, 100, true, false, alive)).toEqual([]);
  });

  it("leaves containers younger than --minimum-container-ttl-duration alone", () => {
    const containers = dead("p1", "a", 10, 20, 95);
    expect(planContainerRemoval(containers, { minAgeMs: 10, maxPerPodContainer: 0, maxContainers: -1 }, 100, true, false, alive)).toEqual(["p1-a-10", "p1-a-20"]);
  });

  it("cuts to --maximum-dead-containers overall: each unit to max/units (at least 1), then the oldest overall", () => {
    const containers = [...dead("p1", "a", 1, 2, 3), ...dead("p2", "a", 4, 5, 6), ...dead("p3", "a", 7)];
    const removed = planContainerRemoval(containers, { minAgeMs: 0, maxPerPodContainer: -1, maxContainers: 2 }, 100, true, false, alive);
    // 2 / 3 units → 1 per unit (p1-a-3, p2-a-6, p3-a-7 left), then the oldest of those (p1-a-3) goes.
    expect(removed.sort()).toEqual(["p1-a-1", "p1-a-2", "p1-a-3", "p2-a-4", "p2-a-5"]);
  });

  it("removes every dead container of a pod that is gone, only once all sources are ready; of finished pods only for eviction", () => {
    const containers = [...dead("gone", "a", 1, 2), ...dead("done", "a", 3)];
    const pods: PodStateProvider = { shouldPodContentBeRemoved: (uid) => uid === "gone", shouldPodRuntimeBeRemoved: (uid) => uid === "gone" || uid === "done" };
    const policy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };
    expect(planContainerRemoval(containers, policy, 100, false, false, pods)).toEqual(["gone-a-1"]);
    expect(planContainerRemoval(containers, policy, 100, true, false, pods).sort()).toEqual(["gone-a-1", "gone-a-2"]);
    expect(planContainerRemoval(containers, policy, 100, true, true, pods).sort()).toEqual(["done-a-3", "gone-a-1", "gone-a-2"]);
  });
});

describe("planSandboxRemoval", () => {
  it("keeps the newest sandbox of a live pod and active ones; removes every inactive sandbox of a gone pod", () => {
    const sandboxes = [
      { id: "live-old", podUID: "live", createdAtMs: 1, active: false },
      { id: "live-new", podUID: "live", createdAtMs: 2, active: false },
      { id: "gone-1", podUID: "gone", createdAtMs: 1, active: false },
      { id: "gone-2", podUID: "gone", createdAtMs: 2, active: true },
    ];
    const pods: PodStateProvider = { shouldPodContentBeRemoved: (uid) => uid === "gone", shouldPodRuntimeBeRemoved: (uid) => uid === "gone" };
    expect(planSandboxRemoval(sandboxes, false, pods).sort()).toEqual(["gone-1", "live-old"]);
  });
});
