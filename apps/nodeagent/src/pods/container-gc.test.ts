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

describe("ContainerGC over CRI", () => {
  it("removes dead containers beyond the policy with their log files, and the sandboxes of gone pods", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, existsSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { ContainerGC } = await import("./container-gc.js");
    const dir = mkdtempSync(join(tmpdir(), "skiff-cgc-"));
    try {
      const logsDir = join(dir, "pods");
      mkdirSync(join(logsDir, "default_gone_uid-gone"), { recursive: true });
      mkdirSync(join(logsDir, "default_other_uid-other"), { recursive: true });
      const oldLog = join(dir, "old.log");
      writeFileSync(oldLog, "x");
      writeFileSync(`${oldLog}.20260101-000000`, "x");
      const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
      const labels = (uid: string, name: string) => ({ "io.example.pod.uid": uid, "io.example.container.name": name });
      let containers = [
        { id: "live-1", podSandboxId: "s-live", state: "CONTAINER_EXITED", createdAt: ns(1_000), labels: labels("uid-live", "a") },
        { id: "live-2", podSandboxId: "s-live", state: "CONTAINER_EXITED", createdAt: ns(2_000), labels: labels("uid-live", "a") },
        { id: "live-3", podSandboxId: "s-live", state: "CONTAINER_RUNNING", createdAt: ns(3_000), labels: labels("uid-live", "a") },
        { id: "gone-1", podSandboxId: "s-gone", state: "CONTAINER_EXITED", createdAt: ns(1_000), labels: labels("uid-gone", "a") },
      ];
      let sandboxes = [
        { id: "s-live", state: "SANDBOX_READY", createdAt: ns(500), labels: { "io.example.pod.uid": "uid-live" } },
        { id: "s-gone", state: "SANDBOX_NOTREADY", createdAt: ns(500), labels: { "io.example.pod.uid": "uid-gone" } },
      ];
      const removed: string[] = [];
      const runtime = {
        listContainers: async () => ({ containers }),
        listPodSandbox: async () => ({ items: sandboxes }),
        containerStatus: async (r: { containerId: string }) => ({ status: { logPath: r.containerId === "live-1" ? oldLog : "" } }),
        removeContainer: async (r: { containerId: string }) => {
          removed.push(r.containerId);
          containers = containers.filter((c) => c.id !== r.containerId);
        },
        removePodSandbox: async (r: { podSandboxId: string }) => {
          removed.push(r.podSandboxId);
          sandboxes = sandboxes.filter((s) => s.id !== r.podSandboxId);
        },
      };
      const gc = new ContainerGC({
        runtime: () => runtime as never,
        policy: { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 },
        pods: { shouldPodContentBeRemoved: (uid) => uid === "uid-gone" || uid === "uid-other", shouldPodRuntimeBeRemoved: (uid) => uid !== "uid-live" },
        allSourcesReady: () => true,
        podLogsDir: logsDir,
        log: () => {},
        clock: () => 10_000,
      });
      await gc.garbageCollect();
      expect(removed).toEqual(["gone-1", "live-1", "s-gone"]);
      expect(existsSync(oldLog) || existsSync(`${oldLog}.20260101-000000`)).toBe(false);
      // The gone pod's log directory goes; another agent's (unknown to this runtime) stays.
      expect(existsSync(join(logsDir, "default_gone_uid-gone"))).toBe(false);
      expect(existsSync(join(logsDir, "default_other_uid-other"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
