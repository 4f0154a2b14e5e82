// Issue 19's memory-pressure acceptance on the process runtime (namespace isolation, so the Job's
// hostPath marker is mounted as under runc): see memory-pressure-helpers.ts for the story and for
// how the pressure is made deterministic on a shared machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { runMemoryPressureStory, startMemoryPressureCluster, type MemoryPressureCluster } from "./memory-pressure-helpers.js";

const nodeName = "pressure-process";

describe("memory pressure end to end on the process runtime (soft allocatableMemory.available threshold)", () => {
  let dir: string;
  let cri: ProcessRuntime;
  let cluster: MemoryPressureCluster | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-pressure-"));
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state"), isolation: "namespaces" });
    cluster = await startMemoryPressureCluster(dir, nodeName, cri.endpoint);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await cri?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("evicts the Job's hog after the grace period (Evicted status and event), taints and untaints the Node, and the Job's replacement completes it", async () => {
    if (!cluster) throw new Error("no cluster");
    await runMemoryPressureStory(cluster, dir, nodeName);
  }, 600_000);
});
