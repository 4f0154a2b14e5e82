// Issue 19's memory-pressure acceptance on a private containerd + runc (root; with CI=true it must
// run): see memory-pressure-helpers.ts for the story and for how the pressure is made
// deterministic on a shared machine.
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { runMemoryPressureStory, startMemoryPressureCluster, type MemoryPressureCluster } from "./memory-pressure-helpers.js";
import { removePodLogs } from "./agent-harness.js";

const setup = setUpContainerd({ prefix: "skiff-mpc-", suite: "containerd memory pressure suite" });
const nodeName = `pressure-ctd-${Math.random().toString(36).slice(2, 8)}`;

describe.skipIf(setup.endpoint === undefined)("memory pressure end to end on containerd (soft allocatableMemory.available threshold)", () => {
  let cluster: MemoryPressureCluster | undefined;

  beforeAll(async () => {
    cluster = await startMemoryPressureCluster(join(setup.dir, "story"), nodeName, setup.endpoint ?? "", ["--runtime-request-timeout=1m"]);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    tearDownContainerd(setup);
    await removePodLogs(nodeName);
  }, 120_000);

  it("evicts the Job's hog after the grace period (Evicted status and event), taints and untaints the Node, and the Job's replacement completes it", async () => {
    if (!cluster) throw new Error("no cluster");
    await runMemoryPressureStory(cluster, join(setup.dir, "story"), nodeName);
  }, 600_000);
});
